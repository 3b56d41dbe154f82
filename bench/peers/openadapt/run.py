#!/usr/bin/env python3
"""Replay one sample flow with openadapt-flow's pixel-only runtime: the bench's peer entry point.

    python bench/peers/openadapt/run.py --flow NAME --lang zh|en [--data CSV] --steps-out FILE

$DISPLAY is the desktop the practice app is showing its start screen on; DESK_PASSWORD is the
login password. The bundle replayed is bundles/<flow>-<lang>/, compiled by make_recordings.py
from a demonstration on the baseline app. Everything that locates, checks and acts is
openadapt-flow's own: its governed `Replayer` (template/OCR/landmark resolver, identity and
postcondition checks, settle waits) driving its pixel-only `FreeRDPBackend`, built by its
backend factory with `kind: rdp` and an injected transport. The only code of ours on the path
is that transport (x11_transport.py: X11 screenshots in, XTEST input out). No model, no network:
`allow_egress=False`, so the grounding rung is the local OCR one.

Writes one JSON line per executed step to --steps-out:
{"step", "locate_ms", "act_ms", "settle_ms", "found"} from the step's own `timings`
(runtime/step_timing.py): locate = screenshot + resolve + identity (+ ocr on a step with a
visual target), act = actuate, settle = settle_before + settle_after + postcondition (+ ocr on a
type/hotkey step, where it is the read-back of the typed value). Exit 0 when openadapt-flow reports the
run succeeded, 1 when it halted or failed, 2 on a usage error. A watchdog ends the run (exit 1)
after --timeout seconds.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ beside the peer in the work tree
sys.path.insert(0, str(HERE))

FLOWS = ("login_edit_save", "delete_with_confirm", "new_customers")
SETTLE = ("settle_before", "settle_after", "postcondition")


def step_line(result) -> dict:
    """One contract line from an openadapt-flow StepResult and its exclusive-time spans.

    A step with a visual target (a click) locates it: its captures, resolve, identity and OCR
    (landmarks, the target's label) are locate time. A step without one (type, hotkey) locates
    nothing; its OCR is the read-back of the typed value after acting, so it counts as settle.
    """
    t = result.timings or {}
    located = result.resolution is not None
    ocr = t.get("ocr", 0.0)
    locate = sum(t.get(k, 0.0) for k in ("screenshot", "resolve", "identity"))
    settle = sum(t.get(k, 0.0) for k in SETTLE)
    if located:
        locate += ocr
    else:
        settle += ocr
    step = result.step_id
    for frame in result.program_scope or []:
        if getattr(frame, "row_index", None) is not None:
            step = f"row{frame.row_index + 1}.{step}"
    return {
        "step": step,
        "locate_ms": round(locate, 1),
        "act_ms": round(t.get("actuate", 0.0), 1),
        "settle_ms": round(settle, 1),
        # a click's target was found; a type/hotkey step has nothing to find, so found = it ran
        "found": located or (bool(result.ok) and not result.skipped),
        # extras for the reader, not part of the contract
        "located": located,
        "intent": result.intent,
        "ok": bool(result.ok),
        "rung": str(getattr(result.resolution.rung, "value", result.resolution.rung))
        if located else None,
        "error": (result.error or "")[:300] or None,
        "timings": t,
    }


class StepSink:
    """The --steps-out file: created empty at start, filled from the report when the run ends.

    openadapt-flow exposes no per-step hook, so a run the watchdog ends leaves the file empty.
    """

    def __init__(self, path: Path):
        self.path = path
        self.lock = threading.Lock()
        self.written = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")

    def write(self, lines: list[dict]) -> None:
        with self.lock, open(self.path, "a", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
            self.written += len(lines)


def load_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return [dict(r) for r in csv.DictReader(f)]


def looped_bundle(body_dir: Path, rows: list[dict], out: Path):
    """openadapt-flow's data-driven loop (the `for-each` command) over the demonstrated body."""
    from openadapt_flow.compiler.loop_authoring import author_data_driven_loop
    from openadapt_flow.ir import Workflow

    body = Workflow.load(body_dir)
    looped = author_data_driven_loop(body, rows, relation="worklist", max_iterations=len(rows),
                                     name=body.name)
    out.mkdir(parents=True, exist_ok=True)
    if (body_dir / "templates").is_dir():
        shutil.copytree(body_dir / "templates", out / "templates", dirs_exist_ok=True)
    looped.save(out)
    return looped


def main() -> int:
    ap = argparse.ArgumentParser(description="openadapt-flow peer for the Mend bench")
    ap.add_argument("--flow", required=True, choices=FLOWS)
    ap.add_argument("--lang", required=True, choices=("zh", "en"))
    ap.add_argument("--data", help="CSV work-list (new_customers)")
    ap.add_argument("--steps-out", required=True)
    ap.add_argument("--bundles", default=str(HERE / "bundles"))
    ap.add_argument("--run-dir", help="keep openadapt-flow's run directory here")
    ap.add_argument("--timeout", type=float, default=280.0)
    args = ap.parse_args()

    sink = StepSink(Path(args.steps_out))
    bundle = Path(args.bundles) / f"{args.flow}-{args.lang}"
    if not (bundle / "workflow.json").is_file():
        print(f"run.py: no bundle at {bundle}; run make_recordings.py first", file=sys.stderr)
        return 2
    if not os.environ.get("DISPLAY"):
        print("run.py: no $DISPLAY", file=sys.stderr)
        return 2

    def watchdog() -> None:
        print(f"run.py: timed out after {args.timeout:.0f}s", file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)

    timer = threading.Timer(args.timeout, watchdog)
    timer.daemon = True
    timer.start()

    # The secret parameter recorded for the password field is read from the environment.
    if "DESK_PASSWORD" in os.environ:
        os.environ["OPENADAPT_FLOW_SECRET_PASSWORD"] = os.environ["DESK_PASSWORD"]

    from openadapt_flow.backends.factory import build_backend
    from openadapt_flow.deployment import BackendConfig, build_replayer
    from openadapt_flow.ir import Workflow
    from x11_transport import X11Transport

    with tempfile.TemporaryDirectory(prefix="oaf-run-") as tmp:
        tmp = Path(tmp)
        run_dir = Path(args.run_dir) if args.run_dir else tmp / "run"
        worklists: dict = {}
        if args.flow == "new_customers":
            if not args.data:
                print("run.py: new_customers needs --data CSV", file=sys.stderr)
                return 2
            rows = load_rows(Path(args.data))
            bundle_dir = tmp / "bundle"
            workflow = looped_bundle(bundle, rows, bundle_dir)
        else:
            bundle_dir = bundle
            workflow = Workflow.load(bundle_dir)

        backend = build_backend(BackendConfig(kind="rdp"), rdp_transport=X11Transport())
        replayer = build_replayer(backend, allow_egress=False, effect_verifier=None,
                                  api_actuator=None, durable=False, use_structural=True)
        t0 = time.monotonic()
        report = None
        try:
            with contextlib.redirect_stdout(sys.stderr):
                report = replayer.run(workflow, params={}, worklists=worklists,
                                      bundle_dir=bundle_dir, run_dir=run_dir,
                                      execution_target_kind="rdp")
        except Exception as exc:  # noqa: BLE001 - a crash is a failed run, reported
            print(f"run.py: replay raised {type(exc).__name__}: {exc}", file=sys.stderr)
        finally:
            with contextlib.suppress(Exception):
                backend.close()
        wall = time.monotonic() - t0
        if report is None:
            timer.cancel()
            return 1
        sink.write([step_line(r) for r in report.results])
        outcome = getattr(report, "execution_outcome", None)
        halt = getattr(report, "halt", None)
        summary = json.dumps({
            "success": bool(report.success), "outcome": outcome,
            "halt": getattr(halt, "reason", None) if halt is not None else None,
            "steps": len(report.results), "wall_s": round(wall, 2)}, ensure_ascii=False)
        print(summary)
        print(summary, file=sys.stderr)  # the harness keeps the tail of stderr
        keep = os.environ.get("OAF_PEER_KEEP_RUNS")
        if keep and not args.run_dir:
            dst = Path(keep) / f"{args.flow}-{args.lang}-{time.strftime('%H%M%S')}"
            shutil.copytree(run_dir, dst, dirs_exist_ok=True)
        timer.cancel()
        return 0 if report.success else 1


if __name__ == "__main__":
    sys.exit(main())
