"""The adapter: an X11 display (Xvfb) as openadapt-flow's pixel-only RDP transport.

openadapt-flow drives pixel-only remote desktops through ``FreeRDPBackend``, which is written
against a small ``RDPTransport`` protocol (``openadapt_flow.backends.rdp_backend``):
``connect / disconnect / framebuffer / pointer / key / wheel``. The stock transport speaks RDP
(aardwolf). This one speaks X11 to the display in $DISPLAY instead:

* ``framebuffer()``: one XGetImage of the root window (the whole 1280x800 screen), as a PIL
  image. The screen is the "remote desktop": the app's main window and its dialogs are all in
  it, as they would be in an RDP/Citrix session.
* ``pointer()`` / ``wheel()``: XTEST motion and button events at framebuffer pixels (1:1 with
  screen pixels).
* ``key()``: XTEST key events. A single character is looked up in the keyboard map (Shift is
  added when the keysym is on the shifted level); a character the map lacks (CJK) is bound to
  a spare keycode for the duration of the keystroke, which is what xdotool does too. Named
  tokens are the transport tokens ``FreeRDPBackend`` normalises to (``enter``, ``ctrl``, ...).

Nothing here locates anything: every coordinate comes from openadapt-flow's resolver.
"""

from __future__ import annotations

import os
import time
from typing import Optional

from PIL import Image
from Xlib import X, XK, display
from Xlib.ext import xtest

# FreeRDPBackend's normalised transport tokens -> X keysym names.
_NAMED = {
    "enter": "Return",
    "tab": "Tab",
    "escape": "Escape",
    "backspace": "BackSpace",
    "delete": "Delete",
    "space": "space",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pagedown": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "ctrl": "Control_L",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "meta": "Super_L",
}
_BUTTONS = {"left": 1, "middle": 2, "right": 3}


class X11Transport:
    """An ``RDPTransport`` over an X server (pixels in, XTEST input out)."""

    def __init__(self, display_name: Optional[str] = None, key_delay_s: float = 0.004) -> None:
        self._display_name = display_name or os.environ.get("DISPLAY")
        self._d: Optional[display.Display] = None
        self._key_delay_s = key_delay_s
        self._last_pointer = (0, 0)
        # keycodes held down by key(ch, True), with the extra Shift and the temporary binding
        # to undo on key(ch, False)
        self._held: dict[str, tuple[int, bool, Optional[int]]] = {}
        self._spare: Optional[int] = None

    # -- lifecycle ---------------------------------------------------------
    def connect(self) -> None:
        if self._d is None:
            self._d = display.Display(self._display_name)
            if not self._d.has_extension("XTEST"):
                raise RuntimeError("the X server has no XTEST extension")

    def disconnect(self) -> None:
        if self._d is not None:
            try:
                for token in list(self._held):
                    self.key(token, False)
                self._d.close()
            except Exception:  # noqa: BLE001 - idempotent, never raises
                pass
            self._d = None

    @property
    def d(self) -> display.Display:
        if self._d is None:
            self.connect()
        assert self._d is not None
        return self._d

    # -- frames ------------------------------------------------------------
    def framebuffer(self):
        root = self.d.screen().root
        geo = root.get_geometry()
        w, h = geo.width, geo.height
        raw = root.get_image(0, 0, w, h, X.ZPixmap, 0xFFFFFFFF)
        img = Image.frombytes("RGB", (w, h), raw.data, "raw", "BGRX")
        return img, w, h

    # -- input -------------------------------------------------------------
    def pointer(self, x: int, y: int, button: str, down: bool) -> None:
        d = self.d
        self._last_pointer = (int(x), int(y))
        xtest.fake_input(d, X.MotionNotify, x=int(x), y=int(y))
        d.sync()
        xtest.fake_input(d, X.ButtonPress if down else X.ButtonRelease, _BUTTONS.get(button, 1))
        d.sync()
        # a human press lasts a few ms; Tk buttons need press and release as separate events
        time.sleep(0.02 if down else 0.0)

    def move(self, x: int, y: int) -> None:
        xtest.fake_input(self.d, X.MotionNotify, x=int(x), y=int(y))
        self.d.sync()
        self._last_pointer = (int(x), int(y))

    def wheel(self, dx: int, dy: int) -> None:
        d = self.d
        x, y = self._last_pointer
        xtest.fake_input(d, X.MotionNotify, x=x, y=y)
        # Backend convention: positive dy scrolls the view down (wheel button 5)
        for _ in range(max(1, abs(int(dy)) // 100) if dy else 0):
            b = 5 if dy > 0 else 4
            xtest.fake_input(d, X.ButtonPress, b)
            xtest.fake_input(d, X.ButtonRelease, b)
        d.sync()

    def _keysym(self, token: str) -> int:
        if token in _NAMED:
            return XK.string_to_keysym(_NAMED[token])
        if len(token) == 1:
            ch = token
            if ch == "\n":
                return XK.string_to_keysym("Return")
            if ch == "\t":
                return XK.string_to_keysym("Tab")
            cp = ord(ch)
            if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
                return cp  # Latin-1 keysyms equal their code points
            return 0x01000000 | cp  # X11 Unicode keysym
        ks = XK.string_to_keysym(token)
        if ks == 0:
            raise ValueError(f"no X keysym for {token!r}")
        return ks

    def _spare_keycode(self) -> int:
        if self._spare is None:
            d = self.d
            lo, hi = d.display.info.min_keycode, d.display.info.max_keycode
            mapping = d.get_keyboard_mapping(lo, hi - lo + 1)
            for i in range(len(mapping) - 1, -1, -1):
                if not any(mapping[i]):
                    self._spare = lo + i
                    break
            if self._spare is None:
                raise RuntimeError("no spare keycode to bind a character to")
        return self._spare

    def key(self, keysym_or_char: str, down: bool) -> None:
        d = self.d
        token = keysym_or_char
        if not down:
            held = self._held.pop(token, None)
            if held is None:
                return
            code, shift, bound = held
            xtest.fake_input(d, X.KeyRelease, code)
            if shift:
                xtest.fake_input(d, X.KeyRelease, d.keysym_to_keycode(XK.XK_Shift_L))
            d.sync()
            time.sleep(self._key_delay_s)
            return
        ks = self._keysym(token)
        bound: Optional[int] = None
        shift = False
        code = 0
        for c, index in d.keysym_to_keycodes(ks):
            if index in (0, 1):
                code, shift = c, index == 1
                break
        if not code:
            code = self._spare_keycode()
            d.change_keyboard_mapping(code, [(ks, ks)])
            d.sync()
            time.sleep(0.02)  # let the client see the MappingNotify before the key arrives
            bound = code
        if shift:
            xtest.fake_input(d, X.KeyPress, d.keysym_to_keycode(XK.XK_Shift_L))
        xtest.fake_input(d, X.KeyPress, code)
        d.sync()
        self._held[token] = (code, shift, bound)
