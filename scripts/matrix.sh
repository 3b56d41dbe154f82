#!/usr/bin/env bash
# Every sample flow × 15 variants (incl. combinations and the two negative ones) × zh/en on a
# private Xvfb, judged by the practice app's ledger. `bash scripts/matrix.sh [flow …]`;
# results in out/matrix/matrix.json and a Markdown table on stdout.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_packages
cargo build --release -p mend-cli --quiet
trap stop_desktop EXIT
start_desktop
python3 scripts/matrix.py "$CARGO_TARGET_DIR/release/mend" "$@"
