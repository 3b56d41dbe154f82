#!/usr/bin/env python3
"""Every sample flow x every variant x both languages, on the live desktop in $DISPLAY.

Starts the practice app fresh for each run, runs `mend run --json`, and judges the run by the
app's ledger: `completed` (the intended effects, exactly), `refused` (a negative variant
stopped — paused for a person or failed — with no effect beyond the ones before the missing
control), `wrong` (any effect the
flow did not intend), `failed` (anything else). Writes out/matrix/matrix.json and prints a
Markdown table. Usage: matrix.py MEND_BINARY [flow ...]
"""
import json, os, subprocess, sys, time, tempfile, pathlib, statistics

ROOT = pathlib.Path(__file__).resolve().parent.parent
MEND = sys.argv[1]
APP = ROOT / "fixtures/legacy-app/customer-desk"
FLOWS = {
    "login_edit_save": ("login", [], lambda l: [e["op"] for e in l] == ["login", "save"]
                        and l[1]["record"] == "C002" and l[1]["fields"]["phone"] == "13900000002"),
    "delete_with_confirm": ("main", [], lambda l: [(e["op"], e["record"]) for e in l] == [("delete", "C003")]),
    "new_customers": ("main", ["--data", str(ROOT / "fixtures/flows/customers.csv")],
                      lambda l: [e["op"] for e in l] == ["create"] * 3
                      and [e["fields"]["name"] for e in l] == ["周七", "吴八", "郑九"]),
}
# What a refusal may leave behind: the effects before the missing control.
ALLOWED_BEFORE = {"login_edit_save": [["login"]], "delete_with_confirm": [[]], "new_customers": [[]]}
VARIANTS = ["baseline", "moved", "relabeled", "owner_drawn", "nested_dialog", "reordered_columns",
            "dark_theme", "large_font", "large_font_150", "popup", "slow",
            "moved,dark_theme,relabeled", "large_font,popup", "removed", "decoy"]
NEGATIVE = {"removed", "decoy"}


def run_one(lang, variant, flow):
    screen, extra, ok = FLOWS[flow]
    with tempfile.TemporaryDirectory() as d:
        ledger = pathlib.Path(d) / "ledger.jsonl"
        geo = pathlib.Path(d) / "geo.json"
        app = subprocess.Popen([str(APP), "--lang", lang, "--variant", variant, "--screen", screen,
                                "--seed", "1", "--ledger", str(ledger), "--dump-geometry", str(geo)],
                               stdout=subprocess.DEVNULL)
        for _ in range(200):
            if geo.exists() and json.loads(geo.read_text() or "{}").get("screen") in (screen, "popup", "loading"):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        t0 = time.time()
        r = subprocess.run([MEND, "run", str(ROOT / f"fixtures/flows/{flow}.toml"), "--json",
                            "--db", str(pathlib.Path(d) / "db")] + extra,
                           capture_output=True, text=True, env={**os.environ, "DESK_PASSWORD": "pw"})
        wall = time.time() - t0
        time.sleep(0.5)
        app.kill(); app.wait()
        effects = [json.loads(x) for x in ledger.read_text().splitlines()] if ledger.exists() else []
        try:
            summary = json.loads(r.stdout)
        except ValueError:
            summary = {"status": "crashed", "steps": [], "code": None}
    ops = [e["op"] for e in effects]
    if variant.split(",")[0] in NEGATIVE:
        # A refusal pauses the run for a person (exit 3) or fails it (exit 1).
        verdict = "refused" if r.returncode in (1, 3) and ops in ALLOWED_BEFORE[flow] else (
            "wrong" if any(o not in ("login",) for o in ops) else "failed")
    else:
        verdict = "completed" if r.returncode == 0 and ok(effects) else (
            "wrong" if effects and not all(o in ("login", "save", "create", "delete") for o in ops)
            or any(e.get("record") not in (None, "C002", "C003") and e["op"] != "create" for e in effects)
            else "failed")
    steps = [{"id": s["id"], "strategy": s["strategy"], "ms": s["duration_ms"], "status": s["status"]}
             for s in summary.get("steps", [])]
    return {"lang": lang, "variant": variant, "flow": flow, "exit": r.returncode, "verdict": verdict,
            "code": summary.get("code"), "wall_s": round(wall, 1), "ledger": ops, "steps": steps}


def main():
    flows = sys.argv[2:] or list(FLOWS)
    out = ROOT / "out/matrix"
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for flow in flows:
        for lang in ["zh", "en"]:
            for v in VARIANTS:
                res = run_one(lang, v, flow)
                results.append(res)
                print(f"{flow:20} {lang} {v:28} {res['verdict']:9} exit {res['exit']} "
                      f"{res['code'] or '':18} {res['wall_s']:5.1f} s {res['ledger']}", flush=True)
                (out / "matrix.json").write_text(json.dumps(results, ensure_ascii=False, indent=1))
    print()
    print("| flow | lang | completed | refused | wrong | failed |")
    print("|---|---|---|---|---|---|")
    for flow in flows:
        for lang in ["zh", "en"]:
            rs = [r for r in results if r["flow"] == flow and r["lang"] == lang]
            c = {k: sum(1 for r in rs if r["verdict"] == k) for k in ["completed", "refused", "wrong", "failed"]}
            print(f"| {flow} | {lang} | {c['completed']} | {c['refused']} | {c['wrong']} | {c['failed']} |")
    ms = {}
    for r in results:
        for s in r["steps"]:
            if s["strategy"] and s["status"] == "passed":
                ms.setdefault(s["strategy"], []).append(s["ms"])
    print()
    print("| rung | steps | median ms per step | p95 ms |")
    print("|---|---|---|---|")
    for k, v in sorted(ms.items()):
        v.sort()
        print(f"| {k} | {len(v)} | {statistics.median(v):.0f} | {v[int(0.95 * (len(v) - 1))]} |")


main()
