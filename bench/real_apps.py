#!/usr/bin/env python3
"""The real-app corpus scorer: every app x look x task of fixtures/real-apps, run by `mend run`
and judged from outside the app.

Each case runs in a process of its own: the desktop test binary's `corpus_case` (crates/cli/
tests/real_apps.rs) starts a private Xvfb + openbox, the app in its look (crates/testkit/src/
real.rs), `mend run` on the task's flow, judges the effect (file, registry value, calculator
display) and appends its outcome to a JSON-lines file read here. Verdicts:

  completed  exit 0 and the intended effect, nothing else
  refused    exit 1 or 3 with a stable code, and no effect
  wrong      any unintended effect (another value, another file, a setting not asked for)
  failed     anything else (exit 0 without the effect, a crash, the time limit)

Writes out/real-apps/results.json and results.md; --write-benchmarks puts the table into
BENCHMARKS.md between the real-apps markers.

Usage: real_apps.py --test-bin BIN [--apps a,b] [--looks l1,l2] [--tasks t1,t2] [--resume]
                    [--write-benchmarks]
"""
import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import time
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fixtures/real-apps"
OUT = ROOT / "out/real-apps"
CASE_TIMEOUT_S = 420
START, END = "<!-- real-apps:start -->", "<!-- real-apps:end -->"


def corpus():
    """[(app, toolkit, [looks], [tasks])] in folder order."""
    apps = []
    for d in sorted(CORPUS.iterdir()):
        if not (d / "app.toml").exists():
            continue
        spec = tomllib.loads((d / "app.toml").read_text())
        looks = [l["name"] for l in spec["look"]]
        tasks = sorted(p.name[: -len(".expect.json")] for p in d.glob("*.expect.json"))
        apps.append((d.name, spec["toolkit"], looks, tasks))
    return apps


def run_case(test_bin, app, look, task, results_file):
    before = results_file.read_text().count("\n") if results_file.exists() else 0
    env = {**os.environ, "MEND_REAL_APPS_CASE": f"{app}/{look}/{task}",
           "MEND_REAL_APPS_OUT": str(results_file), "MEND_REAL_APPS_KEEP": str(OUT / "cases")}
    t0 = time.monotonic()
    try:
        p = subprocess.run([test_bin, "corpus_case", "--exact", "--nocapture"], env=env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=CASE_TIMEOUT_S,
                           start_new_session=True)
        log = p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        log = (e.stdout or b"").decode(errors="replace") + "\n(harness: time limit)"
    case_dir = OUT / "cases" / f"{app}-{look}-{task}"
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "harness.log").write_text(log)
    lines = results_file.read_text().splitlines() if results_file.exists() else []
    if len(lines) > before:
        return json.loads(lines[-1])
    # The case did not get as far as a verdict (the app did not start, …).
    return {"app": app, "look": look, "task": task, "toolkit": "", "negative": False,
            "verdict": "failed", "exit": None, "code": None, "effect": "unreadable",
            "why": ["harness: " + (log.strip().splitlines() or ["no output"])[-1][:300]],
            "wall_s": round(time.monotonic() - t0, 1), "steps": [], "stderr_tail": log[-600:]}


def cell(r):
    v = r["verdict"]
    if v == "completed":
        return "completed"
    if v == "refused":
        return f"refused ({r['code']})"
    if v == "wrong":
        return "**WRONG**: " + "; ".join(r["why"])[:120]
    why = r["code"] or "; ".join(r["why"]) or (f"exit {r['exit']}" if r["exit"] is not None else "")
    return f"failed ({why[:100]})" if why else "failed"


def steps_done(r):
    """Steps passed / steps in the flow."""
    flow = CORPUS / r["app"] / f"{r['task']}.toml"
    n = len(tomllib.loads(flow.read_text()).get("step", [])) if flow.exists() else 0
    ok = sum(1 for s in r.get("steps") or [] if s["status"] == "passed")
    return f"{ok}/{n}"


def by_meaning(r):
    """The steps the locator resolved by meaning (the semantic rung): guesses a reviewer should
    look at, since a click on the wrong control that changes nothing escapes the effect judge."""
    ids = [s["id"] for s in r.get("steps") or []
           if s.get("strategy") == "semantic" and s["status"] == "passed"]
    return ", ".join(ids) if ids else "—"


def markdown(results, command):
    when = time.strftime("%Y-%m-%d")
    c = collections.Counter(r["verdict"] for r in results)
    lines = [f"Command: `{command}` — run {when}, {len(results)} cases "
             f"(app × look × task), each on a fresh Xvfb + openbox with the app started fresh.\n",
             f"**{c['completed']} completed, {c['refused']} refused, {c['wrong']} wrong, "
             f"{c['failed']} failed.**\n",
             "### Per app and look (completed / refused / wrong / failed)\n",
             "| app | toolkit | look | completed | refused | wrong | failed |",
             "|---|---|---|---|---|---|---|"]
    by = collections.defaultdict(list)
    for r in results:
        by[(r["app"], r["look"])].append(r)
    for (app, look), rs in by.items():
        k = collections.Counter(r["verdict"] for r in rs)
        lines.append(f"| {app} | {rs[0]['toolkit']} | {look} | {k['completed']} | {k['refused']} | "
                     f"{k['wrong']} | {k['failed']} |")
    lines += ["\n### Every case\n",
              "| app | look | task | verdict (code) | steps passed | by meaning | wall s |",
              "|---|---|---|---|---|---|---|"]
    for r in results:
        task = r["task"] + (" (negative)" if r.get("negative") else "")
        lines.append(f"| {r['app']} | {r['look']} | {task} | {cell(r)} | {steps_done(r)} | "
                     f"{by_meaning(r)} | {r['wall_s']} |")
    codes = collections.Counter(r["code"] or "—" for r in results if r["verdict"] != "completed")
    if codes:
        lines += ["\n### Codes of the runs that did not complete\n", "| code | runs |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in codes.most_common()]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--test-bin", required=True, help="the real_apps desktop test binary")
    p.add_argument("--apps")
    p.add_argument("--looks")
    p.add_argument("--tasks")
    p.add_argument("--write-benchmarks", action="store_true")
    p.add_argument("--resume", action="store_true",
                   help="keep the verdicts in results.json; run the cases missing there (or harness failures)")
    p.add_argument("--command", default="bash scripts/real-apps.sh")
    a = p.parse_args()
    pick = lambda s: set(s.split(",")) if s else None
    apps, looks, tasks = pick(a.apps), pick(a.looks), pick(a.tasks)
    cases = [(app, look, task) for app, _, ls, ts in corpus() if not apps or app in apps
             for look in ls if not looks or look in looks
             for task in ts if not tasks or task in tasks]
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    raw = OUT / "outcomes.jsonl"
    raw.unlink(missing_ok=True)
    kept = {}
    if a.resume and (OUT / "results.json").exists():
        for r in json.loads((OUT / "results.json").read_text()):
            if not (r["why"] and r["why"][0].startswith("harness:")):
                kept[(r["app"], r["look"], r["task"])] = r
    results = []
    t_start = time.monotonic()
    for n, (app, look, task) in enumerate(cases, 1):
        if (app, look, task) in kept:
            results.append(kept[(app, look, task)])
            continue
        r = run_case(a.test_bin, app, look, task, raw)
        if r["why"] and r["why"][0].startswith("harness:"):
            # No verdict at all (the desktop or the app did not come up under load): once more.
            r = run_case(a.test_bin, app, look, task, raw)
        results.append(r)
        (OUT / "results.json").write_text(json.dumps(results, ensure_ascii=False, indent=1))
        eta = (time.monotonic() - t_start) / n * (len(cases) - n)
        print(f"[{n}/{len(cases)}, ~{eta / 60:.0f} min left] {app:9} {look:9} {task:14} "
              f"{r['verdict']:9} exit {str(r['exit']):4} {r['code'] or '; '.join(r['why'])[:60]:30} "
              f"{r['wall_s']:6.1f} s", flush=True)
    md = markdown(results, a.command)
    (OUT / "results.md").write_text(md)
    print()
    print(md)
    if a.write_benchmarks:
        doc = ROOT / "BENCHMARKS.md"
        text = doc.read_text()
        if START in text and END in text:
            head, rest = text.split(START, 1)
            _, tail = rest.split(END, 1)
            doc.write_text(f"{head}{START}\n{md}{END}{tail}")
            print(f"wrote the table into {doc}")
    return 1 if any(r["verdict"] == "wrong" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
