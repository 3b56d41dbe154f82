#!/usr/bin/env bash
# End-to-end test of the real studio under the X display in $DISPLAY: tauri-driver +
# WebKitWebDriver drive the Tauri app; the practice app runs beside it. Flows are copied to a
# temporary folder and the run database is temporary, so nothing in the repository changes
# except the screenshots in docs/screenshots/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -n "${DISPLAY:-}" ]] || { echo "studio-e2e: DISPLAY is not set" >&2; exit 1; }
command -v tauri-driver >/dev/null || cargo install tauri-driver --locked
command -v WebKitWebDriver >/dev/null || { echo "studio-e2e: install webkit2gtk-driver" >&2; exit 1; }
cargo build -p mend-studio --quiet
work="$(mktemp -d)"
cp -r "$ROOT/fixtures/flows" "$work/flows"
export MEND_FLOWS="$work/flows" MEND_DB="$work/db" DESK_PASSWORD=e2e-password
export MEND_DRIVER_PORT="${MEND_DRIVER_PORT:-$(free_port)}"
tauri-driver --port "$MEND_DRIVER_PORT" --native-port "$(free_port)" >"$work/driver.log" 2>&1 &
driver=$!
trap 'kill $driver 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$MEND_DRIVER_PORT) 2>/dev/null && break; sleep 0.2; done
timeout 600 node "$ROOT/ui/e2e-app/studio-app.mjs" "$CARGO_TARGET_DIR/debug/mend-studio" \
    "$ROOT/fixtures/legacy-app/customer-desk" "$ROOT/docs/screenshots"
echo "studio-e2e: OK"
