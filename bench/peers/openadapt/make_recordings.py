#!/usr/bin/env python3
"""Record each sample flow on the *baseline* practice app and compile it with openadapt-flow.

A recording is a demonstration on the UI the user has, so there is one per flow and language
(zh, en), all on `--variant baseline`. This script is the demonstrator: it starts the app on the
display in $DISPLAY, reads where each control is from the app's `--dump-geometry` file (the
demonstrator's eyes: only here, at recording time, never at replay), and performs the task
through openadapt-flow's own `Recorder` wrapped around its pixel-only `FreeRDPBackend` over the
X11 transport. The recorder writes openadapt-flow's recording format (events.jsonl, before/after
frames, meta.json); `compile_recording` turns each into a bundle under bundles/<flow>-<lang>/.

By default (`--declarations mend`) the bundles also carry what Mend's flow files declare by
hand, in openadapt-flow's own terms: the clicks those files mark `risk = "write"` or
`"irreversible"` (login, save, delete, confirm) compile with `risk_overrides` as irreversible
(openadapt-flow's risk classifier keys on English verbs, so 保存/删除 would otherwise compile as
reversible), and the session-expiry notice (their `[[interrupt]]`) is a declared interstitial.
`--declarations none` gives the stock compile.

Typed values are recorded as parameters (`type_text(..., param=...)`), the password as a secret
parameter (its value is never written; replay reads OPENADAPT_FLOW_SECRET_PASSWORD).
new_customers demonstrates the first CSV row only; replay wraps that body in openadapt-flow's
data-driven loop (`for-each`) over the CSV.

Usage (with a desktop in $DISPLAY; scripts/lib.sh start_desktop makes one):
    python bench/peers/openadapt/make_recordings.py [--flows a,b] [--langs zh,en] [--keep-raw]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
APP = ROOT / "fixtures/legacy-app/customer-desk"
CSV_PATH = ROOT / "fixtures/flows/customers.csv"
BUNDLES = HERE / "bundles"
sys.dont_write_bytecode = True  # no __pycache__ beside the peer in the work tree
sys.path.insert(0, str(HERE))

from x11_transport import X11Transport  # noqa: E402

TEXT = {
    "zh": {"user": "用户名", "password": "密码", "login": "登录", "search_label": "客户编号",
           "search": "查询", "edit": "编辑", "new": "新增", "delete": "删除", "save": "保存",
           "name": "姓名", "phone": "电话", "balance": "余额", "ok": "确定"},
    "en": {"user": "User name", "password": "Password", "login": "Login",
           "search_label": "Customer ID", "search": "Search", "edit": "Edit", "new": "New",
           "delete": "Delete", "save": "Save", "name": "Name", "phone": "Phone",
           "balance": "Balance", "ok": "OK"},
}
START = {"login_edit_save": "login", "delete_with_confirm": "main", "new_customers": "main"}
PASSWORD = "pw"  # the demonstration's password; never stored (secret parameter)


class Desk:
    """The app under demonstration, and the geometry the demonstrator looks at."""

    def __init__(self, lang: str, screen: str, workdir: Path):
        self.lang = lang
        self.geo_path = workdir / "geo.json"
        self.ledger = workdir / "ledger.jsonl"
        self.proc = subprocess.Popen(
            [str(APP), "--lang", lang, "--variant", "baseline", "--screen", screen, "--seed", "1",
             "--ledger", str(self.ledger), "--dump-geometry", str(self.geo_path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_screen(screen)
        time.sleep(0.5)

    def geo(self) -> dict:
        return json.loads(self.geo_path.read_text() or "{}")

    def wait_screen(self, screen: str, timeout: float = 15.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                g = self.geo()
                if g.get("screen") == screen:
                    return g
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"app never showed screen {screen!r}")

    def find(self, role: str, label: str | None = None, record: str | None = None) -> dict:
        g = self.geo()
        controls = list(g.get("controls", []))
        for d in g.get("dialogs", []):
            controls += d.get("controls", [])
        for c in controls:
            if c.get("role") != role:
                continue
            if label is not None and c.get("label") != label:
                continue
            if record is not None and c.get("record") != record:
                continue
            return c
        raise RuntimeError(f"no {role} {label or record!r} on screen {g.get('screen')!r}")

    def center(self, role: str, label: str | None = None, record: str | None = None):
        c = self.find(role, label, record)
        return c["x"] + c["w"] // 2, c["y"] + c["h"] // 2

    def effects(self) -> list[dict]:
        if not self.ledger.exists():
            return []
        return [json.loads(x) for x in self.ledger.read_text().splitlines() if x.strip()]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def type_secret(rec, backend, text: str, param: str) -> None:
    """A secret TYPE event: performed, then recorded without its value (Recorder API)."""
    before = backend.screenshot()
    backend.type_text(text)
    rec.record_observed({"kind": "type", "text": text}, before_png=before,
                        structural_before={}, param=param, secret=True)


def demo_login_edit_save(rec, backend, desk: Desk, t: dict) -> None:
    rec.click(*desk.center("field", t["user"]))
    rec.type_text("admin", param="user")
    rec.click(*desk.center("field", t["password"]))
    type_secret(rec, backend, PASSWORD, "password")
    rec.write_click(*desk.center("button", t["login"]))
    desk.wait_screen("main")
    time.sleep(0.3)
    rec.click(*desk.center("field", t["search_label"]))
    rec.type_text("C002", param="customer")
    rec.click(*desk.center("button", t["search"]))
    time.sleep(0.3)
    rec.click(*desk.center("button", t["edit"]))
    desk.wait_screen("record")
    time.sleep(0.3)
    rec.click(*desk.center("field", t["phone"]))
    rec.hotkey(["Control"], "a")
    rec.type_text("13900000002", param="phone")
    rec.write_click(*desk.center("button", t["save"]))
    desk.wait_screen("main")


def demo_delete_with_confirm(rec, backend, desk: Desk, t: dict) -> None:
    row = desk.find("row", record="C003")
    # the C003 cell (the ID column), as a person would click the row by its id
    rec.click(row["x"] + 40, row["y"] + row["h"] // 2)
    time.sleep(0.2)
    rec.write_click(*desk.center("button", t["delete"]))
    desk.wait_screen("confirm")
    time.sleep(0.3)
    rec.write_click(*desk.center("dialog_button", t["ok"]))
    desk.wait_screen("main")


def demo_new_customers(rec, backend, desk: Desk, t: dict) -> None:
    with open(CSV_PATH, newline="", encoding="utf-8") as f:
        first = next(csv.DictReader(f))
    rec.click(*desk.center("button", t["new"]))
    desk.wait_screen("record")
    time.sleep(0.3)
    for col in ("name", "phone", "balance"):
        rec.click(*desk.center("field", t[col]))
        rec.type_text(first[col], param=col)
    rec.write_click(*desk.center("button", t["save"]))
    desk.wait_screen("main")


DEMOS = {"login_edit_save": demo_login_edit_save,
         "delete_with_confirm": demo_delete_with_confirm,
         "new_customers": demo_new_customers}
INTENDED = {"login_edit_save": ["login", "save"], "delete_with_confirm": ["delete"],
            "new_customers": ["create"]}


NOTICE = {"zh": "会话即将过期", "en": "Session about to expire"}


def declare_interstitials(bundle: Path, lang: str) -> None:
    """Declare the session-expiry notice as a known interstitial of the bundle.

    The counterpart of the `[[interrupt]] window = "提示|Notice"` that Mend's flow files carry:
    an authored, flow-level declaration, not learned from the recording (the baseline never
    shows the notice). openadapt-flow's model-free interstitial path detects it by its text on
    each step's entry frame and dismisses it with Escape (the only key its automatic path
    admits; the app closes the notice on Escape), then checks the text is gone.
    """
    from openadapt_flow.ir import Interstitial, Predicate, PredicateKind, Workflow

    wf = Workflow.load(bundle)
    text = NOTICE[lang]
    wf.interstitials = [Interstitial(
        name="session-expiry notice",
        detect=Predicate(kind=PredicateKind.TEXT_PRESENT, text=text),
        dismiss_key="Escape",
        risk="reversible",
        consequential=False,
        clearance=Predicate(kind=PredicateKind.TEXT_ABSENT, text=text),
    )]
    wf.save(bundle)


def record_one(flow: str, lang: str, out_root: Path, keep_raw: bool, declare: bool) -> Path:
    from openadapt_flow.backends.rdp_backend import FreeRDPBackend
    from openadapt_flow.compiler import compile_recording
    from openadapt_flow.recorder import Recorder

    class DemoRecorder(Recorder):
        """openadapt-flow's Recorder, noting which clicks the flow declares as writes."""

        write_steps: list[str] = []

        def write_click(self, x: int, y: int) -> None:
            # compiled step ids follow the event index (step_000 for event 0 ...)
            self.write_steps.append(f"step_{self.event_count:03d}")
            self.click(x, y)

    name = f"{flow}-{lang}"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw = tmp / "recording"
        desk = Desk(lang, START[flow], tmp)
        try:
            backend = FreeRDPBackend(X11Transport(), connect=True)
            rec = DemoRecorder(backend, raw, settle_interval_s=0.1, settle_stable_frames=3,
                           settle_timeout_s=3.0)
            rec.write_steps = []
            DEMOS[flow](rec, backend, desk, TEXT[lang])
            time.sleep(0.5)
            rec.finish()
            backend.close()
            ops = [e["op"] for e in desk.effects()]
        finally:
            desk.close()
        if ops != INTENDED[flow]:
            raise RuntimeError(f"{name}: the demonstration left {ops}, not {INTENDED[flow]}")
        # the surface the demonstration was captured on: a pixel-only remote display
        meta = json.loads((raw / "meta.json").read_text())
        meta["surface"] = "rdp"
        meta["backend_hints"] = {"backend": "rdp"}
        (raw / "meta.json").write_text(json.dumps(meta, indent=2))
        bundle = out_root / name
        if bundle.exists():
            shutil.rmtree(bundle)
        overrides = {sid: "irreversible" for sid in rec.write_steps} if declare else None
        wf = compile_recording(raw, bundle, name=name, risk_overrides=overrides)
        for sid in rec.write_steps:
            step = next(st for st in wf.steps if st.id == sid)
            assert step.action.value == "click", (sid, step.intent)
        if declare:
            declare_interstitials(bundle, lang)
        if keep_raw:
            dst = out_root.parent / "raw" / name
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(raw, dst)
    print(f"{name}: {len(wf.steps)} steps -> {bundle}")
    return bundle


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", default=",".join(DEMOS))
    ap.add_argument("--langs", default="zh,en")
    ap.add_argument("--out", default=str(BUNDLES))
    ap.add_argument("--keep-raw", action="store_true", help="also keep the raw recordings")
    ap.add_argument("--declarations", choices=("mend", "none"), default="mend",
                    help="mend (default): declare what Mend's flow files declare (the write "
                         "steps' risk, the session-notice interrupt); none: the stock compile")
    args = ap.parse_args()
    if not os.environ.get("DISPLAY"):
        print("make_recordings: no $DISPLAY", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for flow in args.flows.split(","):
        for lang in args.langs.split(","):
            record_one(flow, lang, out, args.keep_raw, args.declarations == "mend")
    return 0


if __name__ == "__main__":
    sys.exit(main())
