#!/usr/bin/env bash
# The demo: Mend logs in to the practice app on its baseline look and on several UI tweaks, with
# real capture, OCR and input, and shows which rung found each control. Screenshots and the ledger
# go to out/demo/. Runs on a private Xvfb; pass --visible to use the display in $DISPLAY instead.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

ensure_packages
say "building mend (release)"
cargo build --release -p mend-cli --quiet
MEND="$CARGO_TARGET_DIR/release/mend"

if [[ "${1:-}" == "--visible" && -n "${DISPLAY:-}" ]]; then
    say "using your display $DISPLAY"
else
    trap stop_desktop EXIT
    start_desktop
fi

OUT="$ROOT/out/demo"
rm -rf "$OUT" && mkdir -p "$OUT"
APP_PID=""
stop_app() { [[ -n "$APP_PID" ]] && kill "$APP_PID" 2>/dev/null; wait "$APP_PID" 2>/dev/null || true; APP_PID=""; }

run_variant() {
    local lang="$1" variant="$2" title user pass login
    if [[ "$lang" == zh ]]; then title="客户管理系统" user="用户名" pass="密码" login="登录"
    else title="Customer Desk" user="User name" pass="Password" login="Login"; fi
    local ledger="$OUT/ledger-$lang-$variant.jsonl"
    echo
    say "practice app: lang=$lang variant=$variant"
    fixtures/legacy-app/customer-desk --lang "$lang" --variant "$variant" --screen login --ledger "$ledger" --seed 1 &
    APP_PID=$!
    for _ in $(seq 1 100); do xdotool search --name "^$title\$" >/dev/null 2>&1 && break; sleep 0.1; done
    "$MEND" capture --window "$title" --out "$OUT/$lang-$variant-before.png" >/dev/null
    local t0=$SECONDS
    "$MEND" type --window "$title" --text "$user" --role field --input demo-user
    "$MEND" type --window "$title" --text "$pass" --role field --input "not-shown"
    "$MEND" click --window "$title" --text "$login" --role button
    for _ in $(seq 1 50); do [[ -s "$ledger" ]] && break; sleep 0.1; done
    if [[ -s "$ledger" ]]; then
        echo "    ledger: $(cat "$ledger")"
    else
        echo "    ledger: (no login recorded)"
    fi
    "$MEND" capture --window "$title" --out "$OUT/$lang-$variant-after.png" >/dev/null
    echo "    screenshots: out/demo/$lang-$variant-{before,after}.png ($((SECONDS - t0)) s)"
    stop_app
}

for v in baseline moved relabeled dark_theme large_font owner_drawn; do
    run_variant zh "$v"
done
run_variant en relabeled

echo
say "the negative case: a button that is gone is refused, not guessed"
fixtures/legacy-app/customer-desk --lang zh --variant removed --screen main --seed 1 &
APP_PID=$!
for _ in $(seq 1 100); do xdotool search --name "^客户管理系统\$" >/dev/null 2>&1 && break; sleep 0.1; done
"$MEND" locate --window 客户管理系统 --text 查询 --role button || echo "    (exit $?: refused, nothing clicked)"
stop_app
say "done: see out/demo/"
