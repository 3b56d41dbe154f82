#!/usr/bin/env bash
# Smoke test of the studio shell: build the UI and the Tauri binary, start the app on the X
# display in $DISPLAY (the caller runs Xvfb + a window manager), wait for its window, screenshot it
# to docs/screenshots/studio-start.png and stop the app.
#
# Exit 0 only if the window appeared and the screenshot is a non-empty PNG. Every step has a
# timeout, so a hung build or app fails the script instead of hanging it.
#
# Environment:
#   DISPLAY              required
#   WINDOW_TIMEOUT_SECS  how long to poll for the window (default 60)
#   SETTLE_TIMEOUT_SECS  how long to wait for the page to paint after the window maps (default 15)
#   SKIP_BUILD=1         reuse ui/dist and target/debug/mend-studio as they are
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/lib.sh" # ensure_ui_deps
SHOT="$ROOT/docs/screenshots/studio-start.png"
TITLE="Mend Studio"
WINDOW_TIMEOUT_SECS="${WINDOW_TIMEOUT_SECS:-60}"
SETTLE_TIMEOUT_SECS="${SETTLE_TIMEOUT_SECS:-15}"
LOG="$(mktemp -t mend-studio-smoke.XXXXXX.log)"
APP_PID=""

fail() {
    echo "studio-smoke: FAIL: $*" >&2
    exit 1
}

step() {
    echo "studio-smoke: $*"
}

cleanup() {
    if [[ -n "$APP_PID" ]] && kill -0 "$APP_PID" 2>/dev/null; then
        kill "$APP_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$APP_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$APP_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT

[[ -n "${DISPLAY:-}" ]] || fail "DISPLAY is not set; start Xvfb and a window manager first"
for tool in xdotool xwininfo import timeout npm cargo; do
    command -v "$tool" >/dev/null || fail "'$tool' is not installed"
done
timeout 10 xwininfo -root >/dev/null 2>&1 || fail "cannot reach X display $DISPLAY"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    ensure_ui_deps
    cd "$ROOT/ui"
    step "npm run build"
    timeout 300 npm run build || fail "UI build failed or timed out"

    cd "$ROOT"
    step "cargo build -p mend-studio (a cold debug build takes ~5 min on 2 cores)"
    timeout 1800 cargo build -p mend-studio || fail "cargo build failed or timed out"
fi

BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/mend-studio"
[[ -x "$BIN" ]] || fail "$BIN was not built"
[[ -f "$ROOT/ui/dist/index.html" ]] || fail "ui/dist/index.html missing; run without SKIP_BUILD"

# A window from an earlier run would satisfy the search below and photograph the wrong app.
if xdotool search --name "^${TITLE}\$" >/dev/null 2>&1; then
    fail "a '$TITLE' window is already open on $DISPLAY; close it first"
fi

step "starting $BIN on $DISPLAY (log: $LOG)"
"$BIN" >"$LOG" 2>&1 &
APP_PID=$!

WID=""
started=$SECONDS
deadline=$((SECONDS + WINDOW_TIMEOUT_SECS))
while ((SECONDS < deadline)); do
    if ! kill -0 "$APP_PID" 2>/dev/null; then
        tail -n 20 "$LOG" >&2 || true
        fail "mend-studio exited before its window appeared"
    fi
    # --onlyvisible: GTK creates unmapped helper windows; only a mapped one can be captured.
    WID="$(xdotool search --onlyvisible --name "^${TITLE}\$" 2>/dev/null | head -n 1 || true)"
    [[ -n "$WID" ]] && break
    sleep 0.5
done
[[ -n "$WID" ]] || {
    tail -n 20 "$LOG" >&2 || true
    fail "no window titled '$TITLE' within ${WINDOW_TIMEOUT_SECS}s"
}
step "window $WID appeared after ~$((SECONDS - started))s"

# Mapping the window precedes WebKit's first paint. Poll until two consecutive captures agree and
# the window is not a single flat colour (a blank webview is one colour), or give up after
# SETTLE_TIMEOUT_SECS and keep the last capture, saying so.
mkdir -p "$(dirname "$SHOT")"
tmp_prev="$(mktemp -t mend-shot-prev.XXXXXX.png)"
tmp_cur="$(mktemp -t mend-shot-cur.XXXXXX.png)"
settled=0
settle_deadline=$((SECONDS + SETTLE_TIMEOUT_SECS))
while ((SECONDS < settle_deadline)); do
    sleep 1
    timeout 20 import -window "$WID" "png:$tmp_cur" 2>/dev/null || continue
    colours="$(timeout 20 identify -format '%k' "$tmp_cur" 2>/dev/null || echo 0)"
    if ((colours > 1)) && [[ -s "$tmp_prev" ]] &&
        timeout 20 compare -metric AE "$tmp_prev" "$tmp_cur" null: 2>/dev/null; then
        settled=1
        break
    fi
    cp "$tmp_cur" "$tmp_prev"
done
[[ -s "$tmp_cur" ]] || fail "could not capture window $WID"
mv "$tmp_cur" "$SHOT"
rm -f "$tmp_prev"
if ((settled)); then
    step "page painted and stable"
else
    echo "studio-smoke: warning: window content still changing or blank after ${SETTLE_TIMEOUT_SECS}s; kept the last capture" >&2
fi

kill -0 "$APP_PID" 2>/dev/null || fail "mend-studio died while being captured"
cleanup
APP_PID=""

[[ -s "$SHOT" ]] || fail "screenshot $SHOT is empty"
file_type="$(head -c 8 "$SHOT" | od -An -tx1 | tr -d ' \n')"
[[ "$file_type" == "89504e470d0a1a0a" ]] || fail "screenshot $SHOT is not a PNG"
rm -f "$LOG"
step "OK: $SHOT ($(identify -format '%wx%h' "$SHOT"), $(stat -c %s "$SHOT") bytes)"
