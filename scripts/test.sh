#!/usr/bin/env bash
# The test command: installs what is missing, starts a private Xvfb + openbox, runs the lints and
# every test (desktop tests included; each desktop test also starts its own Xvfb), then the demo
# headless against the same build, and stops it all.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
started=$SECONDS

ensure_packages
ensure_ui_deps
ensure_ppocr
command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked

say "ui: unit tests and build (the studio embeds ui/dist)"
(cd ui && npm test --silent && npm run build --silent)

say "ui: browser tests against the mock backend in Debian's Chromium (screenshots to docs/screenshots)"
(cd ui && MEND_UI_PORT="$(free_port)" npx playwright test)

say "bench harness: its verdicts on hand-written ledgers"
/usr/bin/python3 bench/test_bench.py

say "cargo fmt --check"
cargo fmt --all -- --check

say "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

trap stop_desktop EXIT
start_desktop

say "cargo nextest (unit, image and desktop tests)"
cargo nextest run --workspace --no-fail-fast

say "studio smoke test under Xvfb"
bash scripts/studio-smoke.sh

say "studio end to end: the real app through tauri-driver + WebKitWebDriver, beside the practice app"
bash scripts/studio-e2e.sh

# The README's other command, on a private Xvfb, against the debug build made above: nextest built
# target/debug/mend, the smoke test ui/dist and mend-studio (a release build would cost minutes).
say "the demo, headless, against this build"
MEND_DEMO_PROFILE=debug MEND_DEMO_PREBUILT=1 bash scripts/demo.sh --headless

say "all green in $((SECONDS - started)) s"
