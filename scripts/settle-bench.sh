#!/usr/bin/env bash
# Settling on the X server's damage events against settling on window fingerprints, on the live
# practice app: `mend run fixtures/flows/login_edit_save.toml` on the zh baseline, N runs per
# way (MEND_SETTLE=fingerprint, then damage, the default), each on a fresh app under one private
# Xvfb. Prints, per way, the medians of the exact-rung click steps (locate + act + settle, and
# the settle alone), of every acting step, and of the run's wall time; the ledger of every run
# must hold exactly the intended login and save.
#
#   bash scripts/settle-bench.sh [N]     # N runs per way (default 5)
#   MEND_BIN=target/release/mend bash scripts/settle-bench.sh   # another build (default: debug)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
n="${1:-5}"
bin="${MEND_BIN:-$CARGO_TARGET_DIR/debug/mend}"
[[ -x "$bin" ]] || { echo "error: no mend at $bin (cargo build -p mend-cli, or set MEND_BIN)" >&2; exit 2; }
out="$(mktemp -d)"
trap 'stop_desktop; rm -rf "$out"' EXIT
start_desktop
for mode in fingerprint damage; do
    for i in $(seq "$n"); do
        d="$out/$mode-$i"
        mkdir -p "$d"
        fixtures/legacy-app/customer-desk --lang zh --screen login --seed 1 \
            --ledger "$d/ledger.jsonl" --dump-geometry "$d/geometry.json" >/dev/null 2>&1 &
        app=$!
        for _ in $(seq 100); do [[ -s "$d/geometry.json" ]] && break; sleep 0.1; done
        sleep 0.5
        t0=$(date +%s%N)
        MEND_SETTLE=$mode DESK_PASSWORD=pw-s3cret "$bin" run fixtures/flows/login_edit_save.toml \
            --db "$d/db" --json >"$d/summary.json" 2>"$d/stderr" || true
        echo $((($(date +%s%N) - t0) / 1000000)) >"$d/wall"
        sleep 0.5
        kill "$app" 2>/dev/null || true
        wait "$app" 2>/dev/null || true
    done
done
python3 - "$out" "$n" <<'PY'
import json, statistics as st, sys, pathlib
out, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
med = lambda xs: st.median(xs) if xs else float("nan")
for mode in ("fingerprint", "damage"):
    exact, exact_settle, acting, walls, bad = [], [], [], [], 0
    firsts, lasts, kinds = [], [], {}
    for i in range(1, n + 1):
        d = out / f"{mode}-{i}"
        s = json.loads((d / "summary.json").read_text() or "{}")
        ops = [json.loads(l)["op"] for l in (d / "ledger.jsonl").read_text().splitlines() if l.strip()] \
            if (d / "ledger.jsonl").exists() else []
        if s.get("status") != "passed" or ops != ["login", "save"]:
            bad += 1
            print(f"{mode} run {i}: {s.get('status')} {s.get('code')} ledger {ops}", file=sys.stderr)
            continue
        walls.append(int((d / "wall").read_text()))
        for st_ in s["steps"]:
            if st_["action"] in ("click", "type", "key"):
                acting.append(st_["duration_ms"])
                how = st_.get("settled") or "fingerprints"
                if isinstance(how, dict):
                    firsts.append(how["painted"]["first_ms"])
                    lasts.append(how["painted"]["last_ms"])
                    how = "painted"
                kinds[how] = kinds.get(how, 0) + 1
            if st_["action"] == "click" and st_.get("strategy") == "exact":
                exact.append(st_["duration_ms"])
                exact_settle.append(st_["settle_ms"])
    print(f"{mode}: {n - bad}/{n} runs passed with the intended ledger; exact-rung clicks: "
          f"{len(exact)} steps, median {med(exact):.0f} ms (settle {med(exact_settle):.0f} ms, "
          f"range {min(exact, default=0)}-{max(exact, default=0)}); every acting step median "
          f"{med(acting):.0f} ms; run wall median {med(walls) / 1000:.2f} s; settled {kinds}")
    if firsts:
        print(f"  paints after the input: first at {sorted(firsts)} ms, last at {sorted(lasts)} ms")
PY
