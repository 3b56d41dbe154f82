#!/usr/bin/env bash
# Regenerate fixtures/screenshots/ (every screen x variant x language) on a private Xvfb.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_packages
cargo build -p mend-cli --quiet
export MEND="$CARGO_TARGET_DIR/debug/mend"
trap stop_desktop EXIT
start_desktop
# `bash scripts/screenshots.sh [variant …]`: all of them from scratch, or only those named.
[[ $# -eq 0 ]] && rm -rf fixtures/screenshots
/usr/bin/python3 fixtures/scripts/regen-screenshots.py "$@"
