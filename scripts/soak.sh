#!/usr/bin/env bash
# Soak the crash test: `bash scripts/soak.sh N` kills `mend run` N times in each of the five
# crash tests (5·N kills), each followed by `mend resume`, and checks the ledger every time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_packages
command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
export MEND_CRASH_ROUNDS="${1:-100}"
say "crash soak: $MEND_CRASH_ROUNDS kills per test, 5 tests"
cargo nextest run -p mend-cli --test crash --no-fail-fast
