#!/usr/bin/env bash
# The demo: Mend runs the sample flows against the practice app on its baseline look and on
# several UI tweaks (real capture, OCR, input, sled), showing for every step which rung found the
# control and how long it took, then the negative variants it must refuse, then a run report.
# Reports, screenshots, ledgers and the run database go to out/demo/. With a display it runs there and leaves the studio open beside the practice app; without one
# (or --headless) it runs on a private Xvfb and writes out/demo/studio.png.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

ensure_packages
say "building mend (release)"
cargo build --release -p mend-cli --quiet
MEND="$CARGO_TARGET_DIR/release/mend"

# With a display of yours (DISPLAY set and reachable) the demo runs on it and leaves the
# studio open; without one (or with --headless) it runs on a private Xvfb and screenshots it.
VISIBLE=0
if [[ "${1:-}" != "--headless" && -n "${DISPLAY:-}" ]] && xwininfo -root >/dev/null 2>&1; then
    say "using your display $DISPLAY"
    VISIBLE=1
else
    trap stop_desktop EXIT
    start_desktop
fi

OUT="$ROOT/out/demo"
rm -rf "$OUT" && mkdir -p "$OUT"
export MEND_DB="$OUT/db"
export DESK_PASSWORD="demo-password"   # the flow types ${secret:DESK_PASSWORD}; never stored
APP_PID=""
stop_app() { [[ -n "$APP_PID" ]] && kill "$APP_PID" 2>/dev/null; wait "$APP_PID" 2>/dev/null || true; APP_PID=""; }

# Run one sample flow on one variant of the practice app; the runner prints, per step, which
# rung found the control and how long the step took.
run_flow() {
    local lang="$1" variant="$2" screen="$3" flow="$4"; shift 4
    local title; [[ "$lang" == zh ]] && title="客户管理系统" || title="Customer Desk"
    local tag="$lang-${variant//,/+}-$(basename "$flow" .toml)"
    local ledger="$OUT/ledger-$tag.jsonl"
    echo
    say "$(basename "$flow") on lang=$lang variant=$variant"
    fixtures/legacy-app/customer-desk --lang "$lang" --variant "$variant" --screen "$screen" \
        --ledger "$ledger" --seed 1 &
    APP_PID=$!
    for _ in $(seq 1 100); do xdotool search --name "^$title\$" >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 0.5
    local rc=0
    "$MEND" run "fixtures/flows/$flow" --report "$OUT/report-$tag.md" "$@" || rc=$?
    "$MEND" capture --window "$title" --out "$OUT/$tag-after.png" >/dev/null 2>&1 || true
    echo "    exit $rc; the app's ledger (what really happened):"
    sed 's/^/      /' "$ledger" 2>/dev/null || true
    [[ -s "$ledger" ]] || echo "      (no side effect)"
    stop_app
}

run_flow zh baseline            login login_edit_save.toml
run_flow zh moved,dark_theme    login login_edit_save.toml
run_flow zh relabeled           login login_edit_save.toml
run_flow zh owner_drawn         login login_edit_save.toml
run_flow en relabeled,moved     login login_edit_save.toml
run_flow zh nested_dialog       main  delete_with_confirm.toml
run_flow zh large_font          main  new_customers.toml --data fixtures/flows/customers.csv

echo
say "negative cases: a control that is gone, or replaced by a look-alike, is refused, not guessed;"
say "the run pauses (exit 3) and waits for a person with a takeover request"
run_flow zh removed login login_edit_save.toml
run_flow zh decoy   main  delete_with_confirm.toml
TAKEOVER="$("$MEND" takeover list | head -1 | cut -f1)"
if [[ -n "$TAKEOVER" ]]; then
    say "the newest request (mend takeover show $TAKEOVER):"
    "$MEND" takeover show "$TAKEOVER" || true
    say "a person decides to abort it (mend takeover resolve $TAKEOVER --abort):"
    "$MEND" takeover resolve "$TAKEOVER" --abort || true
fi

echo
say "the last report ($("$MEND" runs | head -1 | cut -f1)):"
"$MEND" report "$("$MEND" runs | head -1 | cut -f1)" || true
echo
say "runs in this demo (mend runs):"
"$MEND" runs

echo
say "the studio beside the practice app, a sample flow open"
(cd ui && npm run build --silent)
cargo build -p mend-studio --quiet
fixtures/legacy-app/customer-desk --lang zh --screen login --seed 1 &
APP_PID=$!
export MEND_FLOWS="$ROOT/fixtures/flows" MEND_OPEN=login_edit_save.toml
if [[ "$VISIBLE" == 1 ]]; then
    say "close the studio window to end the demo"
    "$CARGO_TARGET_DIR/debug/mend-studio" || true
else
    "$CARGO_TARGET_DIR/debug/mend-studio" >/dev/null 2>&1 &
    STUDIO_PID=$!
    for _ in $(seq 1 150); do xdotool search --name "^Mend Studio\$" >/dev/null 2>&1 && break; sleep 0.2; done
    sleep 3
    import -window root "$OUT/studio.png" && say "no display of yours: screenshot of the studio in out/demo/studio.png"
    kill "$STUDIO_PID" 2>/dev/null || true
fi
stop_app
say "done: reports, screenshots and ledgers in out/demo/"
