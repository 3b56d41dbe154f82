#!/usr/bin/env bash
# Fuzz the flow parser: `bash scripts/fuzz.sh [SECONDS]` (default 60). Needs the nightly
# toolchain and cargo-fuzz (installed here if missing). Seeds: every flow in fixtures/flows.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
corpus="$CARGO_TARGET_DIR/fuzz-corpus/flow_parser"
mkdir -p "$corpus"
cp fixtures/flows/*.toml fixtures/flows/invalid/*.toml "$corpus/"
cd fuzz
cargo +nightly fuzz run flow_parser "$corpus" -- -max_total_time="${1:-60}"
