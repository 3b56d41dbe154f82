#!/usr/bin/env python3
"""The side-by-side bench: every sample flow x variant x language, for Mend and its peers.

For each case it starts the practice app fresh on the live desktop in $DISPLAY, runs one tool,
and scores the run from the app's ledger and its final screen (the app's geometry dump, read by
this harness only, never by a tool):

  completed  the tool says it finished and the ledger holds exactly the intended effects
  refused    a negative variant (removed, decoy): the tool stopped (non-zero exit) and left
             nothing the flow did not intend
  wrong      any effect the flow did not intend (another record, a changed value, a duplicate,
             save_as / delete_all), or a decoy's dialog left open on the screen
  failed     anything else: stopped on a variant it should have handled, or claimed success
             without the effects

Per run: wall time, CPU time (user + sys of the tool and the processes it waited for, from
wait4) and peak memory (the largest resident set in the tool's process tree, wait4's
ru_maxrss). Per step: the rung (Mend) and locate / act / settle milliseconds, as each tool
reports them. Writes out/bench/bench.json (appended as it goes; --resume skips cases already
there) and out/bench/bench.md; --write-benchmarks puts bench.md into BENCHMARKS.md between the
bench markers.

Usage: bench.py --mend BIN [--tools mend,mend-zh,classic,openadapt] [--flows a,b] [--langs zh,en]
                [--variants v1,v2] [--python-classic PY] [--python-openadapt PY] [--resume]
                [--write-benchmarks]
"""
import argparse
import collections
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = ROOT / "fixtures/legacy-app/customer-desk"
OUT = ROOT / "out/bench"
CSV = ROOT / "fixtures/flows/customers.csv"

# flow: (start screen, needs the CSV, intended effects as (op, record, fields ⊆) in order)
FLOWS = {
    "login_edit_save": ("login", False, [("login", None, {"user": "admin"}),
                                         ("save", "C002", {"phone": "13900000002"})]),
    "delete_with_confirm": ("main", False, [("delete", "C003", {})]),
    "new_customers": ("main", True, [("create", None, {"name": "周七", "phone": "13800000007"}),
                                     ("create", None, {"name": "吴八", "phone": "13800000008"}),
                                     ("create", None, {"name": "郑九", "phone": "13800000009"})]),
}
VARIANTS = ["baseline", "moved", "relabeled", "owner_drawn", "nested_dialog", "reordered_columns",
            "dark_theme", "large_font", "large_font_150", "popup", "slow",
            "moved,dark_theme,relabeled", "large_font,popup", "removed", "decoy"]
NEGATIVE = {"removed", "decoy"}
DECOY_MESSAGES = ("确定删除全部客户吗？", "Delete all customers?")
TIMEOUT_S = {"mend": 240, "mend-zh": 240, "classic": 240, "openadapt": 240}


def is_negative(variant):
    return any(v in NEGATIVE for v in variant.split(","))


def effect_matches(entry, want):
    op, record, fields = want
    return (entry.get("op") == op and (record is None or entry.get("record") == record)
            and all(str(entry.get("fields", {}).get(k)) == v for k, v in fields.items()))


def judge(flow, variant, exit_code, ledger, final_screen):
    """The verdict, and the unintended effects that made a run `wrong`."""
    intended = FLOWS[flow][2]
    # Match the ledger against the intended effects in order; whatever is left over is unintended.
    unintended, i = [], 0
    for e in ledger:
        if i < len(intended) and effect_matches(e, intended[i]):
            i += 1
        else:
            unintended.append(e)
    dialogs = (final_screen or {}).get("dialogs", [])
    decoy_open = any(c.get("label") in DECOY_MESSAGES for d in dialogs for c in d.get("controls", []))
    if unintended or decoy_open:
        why = [f"{e.get('op')} {e.get('record') or ''}".strip() for e in unintended]
        if decoy_open:
            why.append("decoy dialog open")
        return "wrong", why
    if is_negative(variant):
        return ("refused" if exit_code != 0 else "failed"), []
    if exit_code == 0 and i == len(intended):
        return "completed", []
    return "failed", []


def mend_flow(tool, flow, lang):
    """The flow Mend runs: like each peer's script or recording, the one written for the UI's
    language (`fixtures/flows/<lang>/`, recorded on that language's baseline; the Chinese ones
    at the top); `mend-zh` runs the Chinese flow on every UI — on the English one each control
    is found by its meaning (the cross-language healing no peer attempts)."""
    own = ROOT / f"fixtures/flows/{lang}/{flow}.toml"
    if tool == "mend" and own.exists():
        return own
    return ROOT / f"fixtures/flows/{flow}.toml"


def command(tool, args, flow, lang, workdir, steps_out):
    data = ["--data", str(CSV)] if FLOWS[flow][1] else []
    if tool.startswith("mend"):
        return [args.mend, "run", str(mend_flow(tool, flow, lang)), "--json",
                "--db", str(workdir / "db")] + data
    py = args.python_classic if tool == "classic" else args.python_openadapt
    return [py, str(ROOT / f"bench/peers/{tool}/run.py"), "--flow", flow, "--lang", lang,
            "--steps-out", str(steps_out)] + data


def app_paint_ms(step):
    """How long the application painted after Mend's input (the X server's DAMAGE timestamps:
    its last paint, in ms after the input), or None when the step did not settle on damage
    events (fingerprints) — its paint time is then unknown. A step that painted nothing: 0."""
    settled = step.get("settled")
    if settled == "unchanged":
        return 0
    if isinstance(settled, dict) and "painted" in settled:
        return settled["painted"].get("last_ms", 0)
    return None


def mend_own_ms(step):
    """Mend's own time in a step: locate + act + settle minus the application's paint."""
    if step.get("paint_ms") is None:
        return None
    return max(0, step["locate_ms"] + step["act_ms"] + step["settle_ms"] - step["paint_ms"])


def steps_of(tool, stdout, steps_out):
    """Per step: id, rung (Mend only), locate/act/settle ms, and whether the control was found."""
    if tool.startswith("mend"):
        try:
            summary = json.loads(stdout)
        except ValueError:
            return [], None
        return [{"id": s["id"], "rung": s.get("strategy"), "locate_ms": s.get("locate_ms", 0),
                 "act_ms": s.get("act_ms", 0), "settle_ms": s.get("settle_ms", 0),
                 "paint_ms": app_paint_ms(s),
                 "found": bool(s.get("strategy")) and s["status"] == "passed"}
                for s in summary.get("steps", [])], summary.get("code")
    out = []
    if steps_out.exists():
        for line in steps_out.read_text().splitlines():
            try:
                s = json.loads(line)
            except ValueError:
                continue
            out.append({"id": s.get("step"), "rung": None, "locate_ms": s.get("locate_ms", 0),
                        "act_ms": s.get("act_ms", 0), "settle_ms": s.get("settle_ms", 0),
                        "found": bool(s.get("found"))})
    return out, None


def run_case(tool, args, flow, lang, variant):
    screen = FLOWS[flow][0]
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        ledger, geo, steps_out = d / "ledger.jsonl", d / "geo.json", d / "steps.jsonl"
        app = subprocess.Popen([str(APP), "--lang", lang, "--variant", variant, "--screen", screen,
                                "--seed", "1", "--ledger", str(ledger), "--dump-geometry", str(geo)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    if json.loads(geo.read_text() or "{}").get("screen") in (screen, "popup"):
                        break
                except (OSError, ValueError):
                    pass
                time.sleep(0.1)
            time.sleep(0.5)
            out_path = d / "stdout"
            env = {**os.environ, "DESK_PASSWORD": "pw"}
            t0 = time.monotonic()
            with open(out_path, "w") as out, open(d / "stderr", "w") as err:
                proc = subprocess.Popen(command(tool, args, flow, lang, d, steps_out), stdout=out,
                                        stderr=err, env=env, cwd=ROOT, start_new_session=True)
                deadline = t0 + TIMEOUT_S[tool]
                status, usage = 0, None
                while True:
                    pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                    if pid:
                        break
                    if time.monotonic() > deadline:
                        os.killpg(proc.pid, 9)
                        _, status, usage = os.wait4(proc.pid, 0)
                        break
                    time.sleep(0.05)
                proc.returncode = os.waitstatus_to_exitcode(status)
            wall = time.monotonic() - t0
            time.sleep(0.5)
            final = None
            try:
                final = json.loads(geo.read_text())
            except (OSError, ValueError):
                pass
        finally:
            app.kill()
            app.wait()
        effects = [json.loads(x) for x in ledger.read_text().splitlines()] if ledger.exists() else []
        steps, code = steps_of(tool, out_path.read_text(), steps_out)
        stderr_tail = (d / "stderr").read_text()[-400:]
    verdict, why = judge(flow, variant, proc.returncode, effects, final)
    return {"tool": tool, "flow": flow, "lang": lang, "variant": variant, "verdict": verdict,
            "why": why, "exit": proc.returncode, "code": code, "wall_s": round(wall, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "ledger": [e.get("op") for e in effects], "steps": steps,
            "stderr_tail": stderr_tail if verdict not in ("completed", "refused") else ""}


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def markdown(results, tools):
    lines = []
    when = time.strftime("%Y-%m-%d")
    n_cases = len({(r["flow"], r["lang"], r["variant"]) for r in results})
    lines.append(f"Run {when}: {n_cases} cases (flow × language × variant), each tool on the same "
                 "screen one after the other; the practice app started fresh for every run.\n")
    lines.append("### Outcomes\n")
    lines.append("| tool | non-negative runs | completed | failed | wrong | negative runs | refused | wrong |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for t in tools:
        rs = [r for r in results if r["tool"] == t]
        pos = [r for r in rs if not is_negative(r["variant"])]
        neg = [r for r in rs if is_negative(r["variant"])]
        c = lambda rr, k: sum(1 for r in rr if r["verdict"] == k)
        pc = f"{100 * c(pos, 'completed') / len(pos):.0f} %" if pos else "—"
        pr = f"{100 * c(neg, 'refused') / len(neg):.0f} %" if neg else "—"
        lines.append(f"| {t} | {len(pos)} | {c(pos, 'completed')} ({pc}) | {c(pos, 'failed')} | "
                     f"{c(pos, 'wrong')} | {len(neg)} | {c(neg, 'refused')} ({pr}) | {c(neg, 'wrong')} |")
    lines.append("\n### Per variant (completed or refused / runs, both languages, all flows)\n")
    variants = [v for v in VARIANTS if any(r["variant"] == v for r in results)]
    lines.append("| variant | " + " | ".join(tools) + " |")
    lines.append("|---|" + "---|" * len(tools))
    for v in variants:
        row = []
        for t in tools:
            rs = [r for r in results if r["tool"] == t and r["variant"] == v]
            good = sum(1 for r in rs if r["verdict"] in ("completed", "refused"))
            wrong = sum(1 for r in rs if r["verdict"] == "wrong")
            row.append(f"{good}/{len(rs)}" + (f" ({wrong} wrong)" if wrong else "") if rs else "—")
        lines.append(f"| {v} | " + " | ".join(row) + " |")
    lines.append("\n### Time per located step (locate + act + settle), runs that completed\n")
    lines.append("| tool | steps | median ms | p95 ms | median locate ms | run wall median s | "
                 "CPU median s | peak RSS median MB |")
    lines.append("|---|---|---|---|---|---|---|---|")
    med = {}
    for t in tools:
        done = [r for r in results if r["tool"] == t and r["verdict"] == "completed"]
        st = [s for r in done for s in r["steps"] if s["found"]]
        if not st:
            lines.append(f"| {t} | 0 | — | — | — | — | — | — |")
            continue
        tot = [s["locate_ms"] + s["act_ms"] + s["settle_ms"] for s in st]
        med[t] = statistics.median(tot)
        lines.append(f"| {t} | {len(st)} | {statistics.median(tot):.0f} | {pct(tot, 0.95):.0f} | "
                     f"{statistics.median([s['locate_ms'] for s in st]):.0f} | "
                     f"{statistics.median([r['wall_s'] for r in done]):.1f} | "
                     f"{statistics.median([r['cpu_s'] for r in done]):.1f} | "
                     f"{statistics.median([r['peak_rss_mb'] for r in done]):.0f} |")
    lines.append("\n### Per located step by the UI's language (median ms, steps)\n")
    lines.append("| tool | pooled | zh | en |")
    lines.append("|---|---|---|---|")
    for t in tools:
        cells = []
        for langs in (("zh", "en"), ("zh",), ("en",)):
            st = [s["locate_ms"] + s["act_ms"] + s["settle_ms"] for r in results
                  if r["tool"] == t and r["verdict"] == "completed" and r["lang"] in langs
                  for s in r["steps"] if s["found"]]
            cells.append(f"{statistics.median(st):.0f} ({len(st)})" if st else "—")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    if "mend" in med:
        for t in tools:
            if not t.startswith("mend") and t in med:
                lines.append(f"\nMend ÷ {t}, median time per located step: "
                             f"{med['mend']:.0f} / {med[t]:.0f} ms = **{med['mend'] / med[t]:.2f}** "
                             f"({med[t] / med['mend']:.1f}× faster)" if med['mend'] <= med[t] else
                             f"\nMend ÷ {t}, median time per located step: "
                             f"{med['mend']:.0f} / {med[t]:.0f} ms = **{med['mend'] / med[t]:.2f}** (slower)")
    rungs = collections.defaultdict(list)
    own = collections.defaultdict(list)
    for r in results:
        if r["tool"] == "mend":
            for s in r["steps"]:
                if s["found"] and s["rung"]:
                    rungs[s["rung"]].append(s["locate_ms"] + s["act_ms"] + s["settle_ms"])
                    if mend_own_ms(s) is not None:
                        own[s["rung"]].append(mend_own_ms(s))
    if rungs:
        lines.append("\n### Mend per rung\n")
        lines.append("Mend's own time: the step minus the application's painting after the input "
                     "(its last paint, from the X server's DAMAGE events), over the steps that "
                     "settled on damage events.\n")
        lines.append("| rung | steps | median ms | p95 ms | Mend's own ms, median | p95 |")
        lines.append("|---|---|---|---|---|---|")
        for k, v in sorted(rungs.items()):
            o = own.get(k, [])
            o_med = f"{statistics.median(o):.0f}" if o else "–"
            o_p95 = f"{pct(o, 0.95):.0f}" if o else "–"
            lines.append(f"| {k} | {len(v)} | {statistics.median(v):.0f} | {pct(v, 0.95):.0f} "
                         f"| {o_med} | {o_p95} |")
    bad = [r for r in results if r["verdict"] in ("wrong", "failed")]
    if bad:
        lines.append("\n### Runs not completed or refused\n")
        lines.append("| tool | flow | lang | variant | verdict | exit | code / why | ledger |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for r in bad:
            lines.append(f"| {r['tool']} | {r['flow']} | {r['lang']} | {r['variant']} | {r['verdict']} | "
                         f"{r['exit']} | {r['code'] or ', '.join(r['why']) or ''} | {' '.join(r['ledger'])} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mend", required=True)
    p.add_argument("--tools", default="mend,classic,openadapt")
    p.add_argument("--flows", default=",".join(FLOWS))
    p.add_argument("--langs", default="zh,en")
    p.add_argument("--variants", default=";".join(VARIANTS),
                   help="';'-separated (a combination is itself comma-separated)")
    p.add_argument("--python-classic", default=str(ROOT / "out/bench/venv-classic/bin/python"))
    p.add_argument("--python-openadapt", default=str(ROOT / "out/bench/venv-openadapt/bin/python"))
    p.add_argument("--resume", action="store_true", help="keep results already in bench.json")
    p.add_argument("--write-benchmarks", action="store_true")
    args = p.parse_args()
    tools = args.tools.split(",")
    OUT.mkdir(parents=True, exist_ok=True)
    store = OUT / "bench.json"
    results = json.loads(store.read_text()) if args.resume and store.exists() else []
    done = {(r["tool"], r["flow"], r["lang"], r["variant"]) for r in results}
    cases = [(f, l, v) for f in args.flows.split(",") for l in args.langs.split(",")
             for v in args.variants.split(";")]
    total = len(cases) * len(tools)
    n = 0
    t_start = time.monotonic()
    for flow, lang, variant in cases:
        for tool in tools:  # the tools take turns on each case: same screen, same minute
            n += 1
            if (tool, flow, lang, variant) in done:
                continue
            if tool == "mend-zh" and lang == "zh":
                continue  # the same run as mend's
            r = run_case(tool, args, flow, lang, variant)
            results.append(r)
            store.write_text(json.dumps(results, ensure_ascii=False, indent=1))
            eta = (time.monotonic() - t_start) / n * (total - n)
            print(f"[{n}/{total}, ~{eta / 60:.0f} min left] {tool:9} {flow:20} {lang} {variant:27} "
                  f"{r['verdict']:9} exit {r['exit']:<3} {r['code'] or ' '.join(r['why']):20} "
                  f"{r['wall_s']:6.1f} s  cpu {r['cpu_s']:5.1f} s  {r['peak_rss_mb']:6.0f} MB  "
                  f"{' '.join(r['ledger'])}", flush=True)
    md = markdown([r for r in results if r["tool"] in tools], tools)
    (OUT / "bench.md").write_text(md)
    print()
    print(md)
    if args.write_benchmarks:
        doc = ROOT / "BENCHMARKS.md"
        text = doc.read_text()
        start, end = "<!-- bench:start -->", "<!-- bench:end -->"
        if start in text and end in text:
            head, rest = text.split(start, 1)
            _, tail = rest.split(end, 1)
            doc.write_text(f"{head}{start}\n{md}{end}{tail}")
            print(f"wrote the tables into {doc}")
    wrong = sum(1 for r in results if r["tool"].startswith("mend") and r["verdict"] == "wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
