#!/usr/bin/env python3
"""The "classic script stack" peer: pyautogui + pytesseract + OpenCV template matching.

Written the way an RPA engineer would script the practice app after looking at its baseline
screens in both languages: find a label or button caption by OCR, click buttons at the centre
of the OCR'd text, click fields at a fixed offset right of their label (measured on baseline),
use a template crop where OCR is ambiguous (the Login button shares its word with the screen
title, the dialog OK button with the confirmation message), and poll for the next screen's text
instead of sleeping blindly. A "session about to expire" notice is dismissed whenever an OCR
pass sees it. See README.md beside this file.

    python bench/peers/classic/run.py --flow NAME --lang zh|en [--data CSV] --steps-out FILE

Exit 0: the script believes it completed. Exit 1: something was not found or a wait timed out
(or the 120 s budget ran out). Exit 2: bad arguments. Needs $DISPLAY and, for
login_edit_save, $DESK_PASSWORD.
"""
import argparse
import csv
import difflib
import json
import os
import signal
import subprocess
import sys
import time
import unicodedata

# pyautogui's Xlib reads ~/.Xauthority and, in python3-xlib, fails when there is none (Xvfb
# needs no cookie): the usual `touch ~/.Xauthority`, without touching $HOME.
if "XAUTHORITY" not in os.environ and not os.path.exists(os.path.expanduser("~/.Xauthority")):
    os.environ["XAUTHORITY"] = os.devnull

import cv2
import numpy as np
import pyautogui
import pytesseract
from PIL import Image, ImageGrab

HERE = os.path.dirname(os.path.abspath(__file__))
CROPS = os.path.join(HERE, "crops")

# What the two UIs say (seen on the baseline screens).
LABELS = {
    "zh": {
        "user": "用户名", "password": "密码", "customer_id": "客户编号", "search": "查询",
        "edit": "编辑", "new": "新增", "delete": "删除", "save": "保存",
        "name": "姓名", "phone": "电话", "balance": "余额", "ok": "确定",
        "notice": "会话即将过期",
    },
    "en": {
        "user": "User name", "password": "Password", "customer_id": "Customer ID",
        "search": "Search", "edit": "Edit", "new": "New", "delete": "Delete", "save": "Save",
        "name": "Name", "phone": "Phone", "balance": "Balance", "ok": "OK",
        "notice": "Session about to expire",
    },
}
OCR_LANG = {"zh": "chi_sim+eng", "en": "eng"}
# Controls found by template (OCR is ambiguous for them on baseline).
TEMPLATES = {"login": "login_{lang}.png", "ok": "ok_{lang}.png"}

FUZZY = 0.8             # difflib ratio accepted for a caption
TEMPLATE_THRESHOLD = 0.8  # TM_CCOEFF_NORMED score accepted for a crop
OCR_SCALES = (2, 1, 3)  # upscale before OCR (the UI text is 16 px); a poll that missed retries
                        # at the next scale: tesseract misses different words at each
APP_CLASS = "customerDesk"  # WM_CLASS of the app's windows
FIELD_DX = 110          # label text's right edge -> a point inside its field (baseline: gap 16 + half of 200)
FOCUS_PAUSE = 0.3       # s after clicking a field, before typing into it
FIND_TIMEOUT = 10.0     # s to wait for a control to show up
SCREEN_TIMEOUT = 15.0   # s to wait for the next screen after a click
FLOW_BUDGET = 120       # s for the whole flow

pyautogui.PAUSE = 0.1   # pyautogui's default pause after each call
# pyautogui.FAILSAFE stays on (mouse in a corner aborts), as shipped.

DEADLINE = [0.0]


class NotFound(Exception):
    pass


def log(*a):
    print("[classic]", *a, file=sys.stderr, flush=True)


def left():
    return DEADLINE[0] - time.monotonic()


# ------------------------------------------------------------------ screen

def grab():
    """The whole screen (Pillow's X11 grab; pyscreeze wants gnome-screenshot or scrot)."""
    return ImageGrab.grab()


def app_region():
    """(x, y, w, h) of the app's main window, or None. `xdotool search --name` does not match
    the Chinese title (WM_NAME is not UTF-8), so search by WM_CLASS; xdotool's own geometry is
    off by the frame under openbox, so ask xwininfo. Dialogs open centred over the main window."""
    try:
        ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--class", APP_CLASS],
                             capture_output=True, text=True, timeout=5).stdout.split()
        best = None
        for wid in ids:
            info = subprocess.run(["xwininfo", "-id", wid], capture_output=True, text=True,
                                  timeout=5).stdout
            v = {}
            for line in info.splitlines():
                k, _, val = line.strip().partition(":")
                v[k] = val.strip()
            box = (int(v["Absolute upper-left X"]), int(v["Absolute upper-left Y"]),
                   int(v["Width"]), int(v["Height"]))
            if best is None or box[2] * box[3] > best[2] * best[3]:
                best = box
        return best
    except (subprocess.SubprocessError, KeyError, ValueError):
        return None


def grab_app():
    """A screenshot of the app window (OCR on the whole screen is slower and reads worse), and
    its offset on the screen."""
    img = grab()
    r = app_region()
    if r is None:
        return img, (0, 0)
    x, y, w, h = r
    return img.crop((x, y, x + w, y + h)), (x, y)


def norm(s):
    """Compare captions without case, spaces, colons and the | OCR makes of button borders."""
    s = unicodedata.normalize("NFKC", s).lower()
    return "".join(ch for ch in s if not ch.isspace() and ch not in ":|[]_")


def ocr_lines(img, lang, scale=2, offset=(0, 0)):
    """OCR the image (grey, upscaled); lines of words, each (text, left, top, width, height)
    in screen px."""
    g = img.convert("L")
    if scale != 1:
        g = g.resize((g.width * scale, g.height * scale), Image.LANCZOS)
    d = pytesseract.image_to_data(g, lang=OCR_LANG[lang], config="--psm 11",
                                  output_type=pytesseract.Output.DICT)
    ox, oy = offset
    lines = {}
    for i, text in enumerate(d["text"]):
        if not text.strip():
            continue
        key = (d["block_num"][i], d["par_num"][i], d["line_num"][i])
        lines.setdefault(key, []).append((text, ox + d["left"][i] / scale, oy + d["top"][i] / scale,
                                          d["width"][i] / scale, d["height"][i] / scale))
    return [sorted(ws, key=lambda w: w[1]) for ws in lines.values()]


def match_text(lines, label):
    """The box of `label` in OCR lines, or None.

    A candidate is any run of consecutive words in one line (tesseract splits Chinese into
    single characters or pairs, and "User name" into two words), joined without spaces. An exact match after norm()
    wins; otherwise the best difflib ratio >= FUZZY. Among equal scores the first in reading
    order (top to bottom, then left to right) is taken.
    """
    want = norm(label)
    if not want:
        return None
    # Longest run tried: a couple of words more than the label has; Chinese may come back one
    # character per word.
    longest = len(label.split()) + 2 if label.isascii() else len(want) + 1
    hits = []
    for ws in lines:
        for i in range(len(ws)):
            for j in range(i + 1, min(len(ws), i + longest) + 1):
                run = ws[i:j]
                if not norm(run[0][0]) or not norm(run[-1][0]):
                    continue  # no stray "|" at either end: it would stretch the box
                got = norm("".join(w[0] for w in run))
                score = 1.0 if got == want else difflib.SequenceMatcher(None, got, want).ratio()
                if score >= FUZZY:
                    x0 = min(w[1] for w in run)
                    y0 = min(w[2] for w in run)
                    x1 = max(w[1] + w[3] for w in run)
                    y1 = max(w[2] + w[4] for w in run)
                    hits.append((score, (x0, y0, x1 - x0, y1 - y0)))
    if not hits:
        return None
    hits.sort(key=lambda h: (-h[0], round(h[1][1] / 10), h[1][0]))
    return hits[0][1]


def match_template(img, name, lang):
    tpl = cv2.imread(os.path.join(CROPS, TEMPLATES[name].format(lang=lang)), cv2.IMREAD_GRAYSCALE)
    scr = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2GRAY)
    res = cv2.matchTemplate(scr, tpl, cv2.TM_CCOEFF_NORMED)
    _, best, _, (x, y) = cv2.minMaxLoc(res)
    if best < TEMPLATE_THRESHOLD:
        return None
    h, w = tpl.shape
    return (x, y, w, h)


def center(box):
    x, y, w, h = box
    return int(x + w / 2), int(y + h / 2)


class Screen:
    """OCR helpers with the notice guard: every OCR pass first dismisses the expiry notice."""

    def __init__(self, lang):
        self.lang = lang
        self.L = LABELS[lang]

    def read(self, attempt=0):
        """Grab + OCR; if the notice is up, click its OK and read again."""
        for _ in range(3):
            img, off = grab_app()
            lines = ocr_lines(img, self.lang, OCR_SCALES[attempt % len(OCR_SCALES)], off)
            if match_text(lines, self.L["notice"]) is None:
                return img, lines
            log("notice popup seen: dismissing")
            box = match_template(grab(), "ok", self.lang)
            if box is None:
                msg = match_text(lines, self.L["notice"])
                oks = [ln for ln in lines if match_text([ln], self.L["ok"])]
                below = [match_text([ln], self.L["ok"]) for ln in oks]
                below = [b for b in below if b[1] > msg[1]]
                box = below[0] if below else None
            if box is not None:
                pyautogui.click(*center(box))
            else:
                pyautogui.press("enter")
            time.sleep(0.5)
        return img, lines

    def find_text(self, label, timeout=FIND_TIMEOUT):
        """Poll OCR until `label` shows; its box in screen px. Raises NotFound."""
        end = time.monotonic() + min(timeout, max(left(), 0))
        attempt = 0
        while True:
            _, lines = self.read(attempt)
            box = match_text(lines, label)
            if box is not None:
                return box
            if time.monotonic() > end:
                raise NotFound(label)
            attempt += 1
            time.sleep(0.2)

    def find(self, key, timeout=FIND_TIMEOUT):
        return self.find_text(self.L[key], timeout)

    def find_template(self, name, timeout=FIND_TIMEOUT):
        end = time.monotonic() + min(timeout, max(left(), 0))
        while True:
            box = match_template(grab(), name, self.lang)
            if box is not None:
                return box
            if time.monotonic() > end:
                raise NotFound(name + " (template)")
            time.sleep(0.2)

    def wait_for(self, present=(), absent=(), timeout=SCREEN_TIMEOUT):
        """Poll OCR until every text in `present` shows and none in `absent` does."""
        end = time.monotonic() + min(timeout, max(left(), 0))
        attempt = 0
        while True:
            _, lines = self.read(attempt)
            if all(match_text(lines, t) for t in present) and \
                    not any(match_text(lines, t) for t in absent):
                return
            if time.monotonic() > end:
                raise NotFound("wait for %s / gone %s" % (list(present), list(absent)))
            attempt += 1
            time.sleep(0.2)


# ------------------------------------------------------------------ input

def type_text(text):
    """pyautogui types ASCII only; anything else goes through `xdotool type`, which binds each
    missing keysym to a spare keycode for the keystroke (slowly: the app has to catch up with
    every keymap change, or it drops the character)."""
    if text.isascii():
        pyautogui.write(text, interval=0.02)
    else:
        subprocess.run(["xdotool", "type", "--delay", "250", "--", text], check=True, timeout=20)


def click_field(label_box):
    x, y, w, h = label_box
    pyautogui.click(int(x + w + FIELD_DX), int(y + h / 2))
    time.sleep(FOCUS_PAUSE)  # let the focus move before typing, or the first keys land in the last field


# ------------------------------------------------------------------ steps

class Steps:
    def __init__(self, path):
        self.f = open(path, "w", encoding="utf-8")

    def record(self, step, locate, act, settle, found, **extra):
        line = {"step": step, "locate_ms": round(locate * 1000, 1), "act_ms": round(act * 1000, 1),
                "settle_ms": round(settle * 1000, 1), "found": found}
        line.update(extra)
        self.f.write(json.dumps(line, ensure_ascii=False) + "\n")
        self.f.flush()
        log("step", json.dumps(line, ensure_ascii=False))

    def run(self, step, locate, act, settle=None, **extra):
        """locate() -> target; act(target); settle() waits for the effect. Times each phase."""
        t0 = time.monotonic()
        try:
            target = locate()
        except NotFound as e:
            self.record(step, time.monotonic() - t0, 0, 0, False, **extra)
            raise NotFound("%s: %s" % (step, e))
        t1 = time.monotonic()
        act(target)
        t2 = time.monotonic()
        try:
            if settle:
                settle()
        except NotFound as e:
            self.record(step, t1 - t0, t2 - t1, time.monotonic() - t2, True, **extra)
            raise NotFound("%s (after): %s" % (step, e))
        self.record(step, t1 - t0, t2 - t1, time.monotonic() - t2, True, **extra)
        return target


def type_into(scr, key, text, clear=False):
    def act(box):
        click_field(box)
        if clear:
            pyautogui.hotkey("ctrl", "a")
        type_text(text)
    return (lambda: scr.find(key)), act


def click_text(scr, key):
    return (lambda: scr.find(key)), (lambda box: pyautogui.click(*center(box)))


def settle_then(check, pause=0.3):
    def f():
        time.sleep(pause)
        check()
    return f


def flow_login_edit_save(scr, steps, args):
    L = scr.L
    password = os.environ.get("DESK_PASSWORD")
    if not password:
        raise NotFound("DESK_PASSWORD is not set")
    steps.run("user", *type_into(scr, "user", "admin"))
    steps.run("password", *type_into(scr, "password", password))
    steps.run("login", lambda: scr.find_template("login"),
              lambda box: pyautogui.click(*center(box)),
              settle_then(lambda: scr.wait_for([L["search"]])))
    steps.run("customer", *type_into(scr, "customer_id", "C002"))
    steps.run("search", *click_text(scr, "search"),
              settle_then(lambda: scr.wait_for(["C002"], absent=["C001"])))
    steps.run("edit", *click_text(scr, "edit"), settle_then(lambda: scr.wait_for([L["save"]])))
    steps.run("phone", *type_into(scr, "phone", "13900000002", clear=True))
    steps.run("save", *click_text(scr, "save"), settle_then(lambda: scr.wait_for([L["search"]])))
    steps.run("saved", lambda: scr.find_text("13900000002", timeout=5), lambda box: None)


def flow_delete_with_confirm(scr, steps, args):
    steps.run("pick", lambda: scr.find_text("C003"), lambda box: pyautogui.click(*center(box)),
              lambda: time.sleep(0.3))
    steps.run("delete", *click_text(scr, "delete"),
              settle_then(lambda: scr.find_template("ok")))

    def confirmed():
        # The row must go. Some builds ask a second time: answer that OK too (once).
        time.sleep(0.5)
        again = attempt = 0
        end = time.monotonic() + min(SCREEN_TIMEOUT, max(left(), 0))
        while True:
            box = match_template(grab(), "ok", scr.lang)
            if box is not None and again < 1:
                log("another confirmation: OK")
                again += 1
                pyautogui.click(*center(box))
                time.sleep(0.5)
                continue
            _, lines = scr.read(attempt)
            if box is None and match_text(lines, "C003") is None:
                return
            if time.monotonic() > end:
                raise NotFound("C003 still shown")
            attempt += 1
            time.sleep(0.2)

    steps.run("confirm", lambda: scr.find_template("ok"),
              lambda box: pyautogui.click(*center(box)), confirmed)

    def gone():
        _, lines = scr.read()
        if match_text(lines, "C003") is not None:
            raise NotFound("C003 still listed")
        return True
    steps.run("gone", gone, lambda _: None)


def flow_new_customers(scr, steps, args):
    L = scr.L
    if not args.data:
        raise SystemExit("--data CSV is required for new_customers")
    with open(args.data, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for n, row in enumerate(rows, 1):
        steps.run("new", *click_text(scr, "new"), settle_then(lambda: scr.wait_for([L["save"]])),
                  row=n)
        steps.run("name", *type_into(scr, "name", row["name"]), row=n)
        steps.run("phone", *type_into(scr, "phone", row["phone"]), row=n)
        steps.run("balance", *type_into(scr, "balance", row["balance"]), row=n)
        steps.run("save", *click_text(scr, "save"),
                  settle_then(lambda: scr.wait_for([L["search"]])), row=n)


FLOWS = {
    "login_edit_save": flow_login_edit_save,
    "delete_with_confirm": flow_delete_with_confirm,
    "new_customers": flow_new_customers,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--flow", required=True, choices=sorted(FLOWS))
    p.add_argument("--lang", required=True, choices=["zh", "en"])
    p.add_argument("--data")
    p.add_argument("--steps-out", required=True)
    args = p.parse_args()

    DEADLINE[0] = time.monotonic() + FLOW_BUDGET

    def out_of_time(*_):
        raise NotFound("flow budget of %d s used up" % FLOW_BUDGET)
    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(FLOW_BUDGET + 10)  # hard stop if a wait's own timeout is not reached in time

    steps = Steps(args.steps_out)
    scr = Screen(args.lang)
    t0 = time.monotonic()
    try:
        FLOWS[args.flow](scr, steps, args)
    except NotFound as e:
        log("stopped: not found / timed out:", e, "after %.1f s" % (time.monotonic() - t0))
        return 1
    except pyautogui.FailSafeException as e:
        log("stopped: pyautogui fail-safe:", e)
        return 1
    log("completed in %.1f s" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
