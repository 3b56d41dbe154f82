#!/usr/bin/env bash
# The bench command: criterion micro-benchmarks of the perception path (release build) on a
# private Xvfb. Figures are medians; BENCHMARKS.md quotes them with this command.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_packages
trap stop_desktop EXIT
start_desktop
cargo bench -p mend-locate --bench chain -- "$@"
