#!/usr/bin/env bash
# The bench command: Mend beside its peers (the classic pyautogui + pytesseract + OpenCV stack,
# and openadapt-flow) on every sample flow × variant × language, on a private Xvfb, judged by the
# practice app's ledger and screen (bench/bench.py); then the criterion micro-benchmarks.
#
#   bash scripts/bench.sh                       # everything: ~3 tools × 90 cases, then criterion
#   bash scripts/bench.sh --tools mend --langs zh --variants 'baseline;moved'   # a slice
#   bash scripts/bench.sh --resume              # go on from out/bench/bench.json
#   bash scripts/bench.sh --criterion-only      # only the micro-benchmarks
#   bash scripts/bench.sh --fleet               # only the fleet's throughput (issue 16): 12 rows
#                                               # with 1, 2 and 3 workers on private desktops and a
#                                               # throwaway PostgreSQL; --fleet-rows N, --fleet-workers 1,2
#
# The peers live in their own virtual environments under out/bench/ (made here from the pinned
# bench/requirements-*.txt, re-made when a requirements file changes). Results: out/bench/bench.json,
# out/bench/bench.md, and the tables in BENCHMARKS.md between the bench markers. The fleet's figures:
# out/bench/fleet.json and a table on stdout (BENCHMARKS.md, "Fleet throughput", quotes a run).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
# The peers: virtual environments, and what the pip OpenCV wheel links (libGL, GLib).
DEBIAN_PACKAGES+=(python3-venv libgl1 libglib2.0-0)
ensure_packages
ensure_ppocr

tools="mend,mend-zh,classic,openadapt"
criterion=1
harness=1
fleet=0
fleet_args=()
pass=()
while (($#)); do
    case "$1" in
        --tools) tools="$2"; shift 2 ;;
        --no-criterion) criterion=0; shift ;;
        --criterion-only) harness=0; shift ;;
        --fleet) fleet=1; shift ;;
        --fleet-rows) fleet_args+=(--rows "$2"); shift 2 ;;
        --fleet-workers) fleet_args+=(--workers "$2"); shift 2 ;;
        *) pass+=("$1"); shift ;;
    esac
done

venv() { # venv NAME: out/bench/venv-NAME from bench/requirements-NAME.txt
    local name="$1" dir="$ROOT/out/bench/venv-$1" req="$ROOT/bench/requirements-$1.txt"
    local stamp
    stamp="$(sha256sum "$req" | cut -d' ' -f1)"
    if [[ "$(cat "$dir/.stamp" 2>/dev/null)" != "$stamp" ]]; then
        say "virtual environment for $name (pip install -r ${req#"$ROOT"/})"
        rm -rf "$dir"
        python3 -m venv "$dir"
        "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$req"
        echo "$stamp" >"$dir/.stamp"
    fi
}

if ((fleet)); then
    # Seats of its own (a private Xvfb + practice app per worker) and a throwaway PostgreSQL 15:
    # no shared desktop, none of the peers.
    say "fleet throughput (cargo bench -p mend-cli --bench fleet)"
    cargo bench -p mend-cli --bench fleet -- "${fleet_args[@]}"
    exit 0
fi

if ((harness)); then
    say "building mend (release)"
    cargo build --release -p mend-cli --quiet
    [[ ",$tools," == *",classic,"* ]] && venv classic
    [[ ",$tools," == *",openadapt,"* ]] && venv openadapt
fi

trap stop_desktop EXIT
start_desktop
if ((harness)); then
    # Only a whole run rewrites the tables in BENCHMARKS.md; a slice stays in out/bench/.
    write=(--write-benchmarks)
    [[ " ${pass[*]-} " == *" --flows "* || " ${pass[*]-} " == *" --langs "* ||
        " ${pass[*]-} " == *" --variants "* || "$tools" != "mend,mend-zh,classic,openadapt" ]] && write=()
    python3 bench/bench.py --mend "$CARGO_TARGET_DIR/release/mend" --tools "$tools" \
        "${write[@]}" "${pass[@]}"
fi
if ((criterion)); then
    say "criterion micro-benchmarks (mend-locate chain, mend-runner settle, mend-input typing)"
    cargo bench -p mend-locate --bench chain
    cargo bench -p mend-runner --bench settle
    cargo bench -p mend-input --bench typing
fi
