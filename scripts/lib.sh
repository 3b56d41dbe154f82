# Shared by the README's commands: install what is missing, start and stop a private desktop.
# Sourced, not run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Cargo builds live outside the clone so a fresh clone on the same machine reuses them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mend/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

DEBIAN_PACKAGES=(
    # desktop and OCR
    xvfb openbox xdotool x11-utils imagemagick tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim
    fonts-wqy-microhei python3-tk
    # real apps of the image suite's screenshots (xcalc, xmessage, xfontsel) and their bitmap fonts
    x11-apps xfonts-base xfonts-75dpi
    # ${secret:NAME} from the OS keyring: the Secret Service on a session bus (GNOME Keyring in tests)
    dbus gnome-keyring libdbus-1-dev
    # building the engine (tesseract, xcap, enigo link these)
    build-essential pkg-config clang libclang-dev libtesseract-dev libleptonica-dev libxcb1-dev
    libxcb-randr0-dev libxcb-shm0-dev libpipewire-0.3-dev libgbm-dev libwayland-dev libxdo-dev
    # the studio (Tauri on WebKitGTK)
    libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev webkit2gtk-driver libssl-dev file
    # browser tests of the studio UI (Playwright drives Debian's Chromium; it downloads none)
    chromium
)

say() { echo "==> $*"; }

ensure_packages() {
    local missing=()
    for p in "${DEBIAN_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        say "installing ${#missing[@]} Debian packages: ${missing[*]}"
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    for tool in cargo npm; do
        command -v "$tool" >/dev/null || { echo "error: '$tool' is required (Rust toolchain and Node.js 20)" >&2; exit 2; }
    done
}

ensure_ui_deps() {
    if [[ ! -d "$ROOT/ui/node_modules" ]]; then
        say "npm ci (ui)"
        (cd "$ROOT/ui" && npm ci --no-audit --no-fund --loglevel=error)
    fi
}

XVFB_PID=""
WM_PID=""

# Start Xvfb on a free display (the server picks it) plus openbox; export DISPLAY.
start_desktop() {
    local dfile
    dfile="$(mktemp)"
    Xvfb -displayfd 5 -screen 0 1280x800x24 -nolisten tcp 5>"$dfile" 2>/dev/null &
    XVFB_PID=$!
    for _ in $(seq 1 100); do
        [[ -s "$dfile" ]] && break
        sleep 0.1
    done
    [[ -s "$dfile" ]] || { echo "error: Xvfb did not start" >&2; exit 1; }
    export DISPLAY=":$(tr -d '[:space:]' <"$dfile")"
    rm -f "$dfile"
    openbox --sm-disable >/dev/null 2>&1 &
    WM_PID=$!
    for _ in $(seq 1 100); do
        xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id" && break
        sleep 0.1
    done
    say "desktop on DISPLAY=$DISPLAY (Xvfb $XVFB_PID, openbox $WM_PID)"
}

stop_desktop() {
    [[ -n "$WM_PID" ]] && kill "$WM_PID" 2>/dev/null || true
    [[ -n "$XVFB_PID" ]] && kill "$XVFB_PID" 2>/dev/null || true
    wait 2>/dev/null || true
}
