#!/usr/bin/env bash
# Soak the crash test: `bash scripts/soak.sh N [M]` kills `mend run` N times in each of the eight
# sample-flow crash tests (two per sample flow: 8·N kills; N=25 is 200), each followed by
# `mend resume`, and compares the app's ledger with a clean run's, value for value, every time;
# and M times (default 5) in each of the five real-app crash tests (xcalc, mousepad, nedit,
# jEdit, Wine notepad), judged from outside the app.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_packages
command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
export MEND_CRASH_ROUNDS="${1:-25}"
export MEND_CRASH_REAL_ROUNDS="${2:-5}"
say "crash soak: $MEND_CRASH_ROUNDS kills per test, 8 tests (every sample flow twice); $MEND_CRASH_REAL_ROUNDS per real app, 5 apps"
cargo nextest run -p mend-cli --test crash --no-fail-fast
