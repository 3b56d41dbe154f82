#!/usr/bin/env bash
# The real-app corpus: every app × look × task of fixtures/real-apps (Win32 under Wine, Athena,
# Motif, GTK 3, Java Swing, a terminal form) run by `mend run` and judged from outside the app (the file it
# saved, the registry value it set, the calculator display read through its copy command):
# completed / refused (code) / wrong / failed. Each case runs on a fresh private Xvfb + openbox
# with the app started fresh (crates/testkit/src/real.rs); bench/real_apps.py drives them.
#
#   bash scripts/real-apps.sh                               # the whole matrix (~30–45 min)
#   bash scripts/real-apps.sh --apps xcalc --looks default  # a slice (--tasks too)
#   bash scripts/real-apps.sh --resume                      # keep the verdicts so far, run the rest
#
# Results: out/real-apps/results.json and results.md; a whole run also writes the table into
# BENCHMARKS.md between the real-apps markers. Exit 1 when any case did a wrong action.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_packages
ensure_ppocr

say "building mend and the real-app desktop test"
cargo build -p mend-cli --quiet
# A copy: the shared target dir's binary may be rebuilt from another checkout during the run.
mkdir -p out/real-apps
cp "$CARGO_TARGET_DIR/debug/mend" out/real-apps/mend
export MEND_BIN="$ROOT/out/real-apps/mend"
test_bin="$(cargo test -p mend-cli --test real_apps --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "real_apps":
        print(m["executable"])')"
[[ -x "$test_bin" ]] || { echo "error: no real_apps test binary" >&2; exit 1; }

write=(--write-benchmarks)
for a in "$@"; do
    [[ "$a" == --apps || "$a" == --looks || "$a" == --tasks ]] && write=()
    [[ "$a" == --resume ]] && cmd_flags=1
done
cmd="bash scripts/real-apps.sh"
[[ -z "${cmd_flags:-}" ]] && cmd="bash scripts/real-apps.sh${*:+ $*}"
python3 bench/real_apps.py --test-bin "$test_bin" --command "$cmd" "${write[@]}" "$@"
