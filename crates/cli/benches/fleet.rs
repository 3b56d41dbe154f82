//! Fleet throughput (issue 16): the same work list of `new_customers.toml` rows run by 1, 2 and
//! 3 workers, each on a seat of its own (a private Xvfb with its own practice app), against a
//! throwaway PostgreSQL 15; no kills. A measurement, not a test: it runs only from the bench
//! command (`bash scripts/bench.sh --fleet`, which calls `cargo bench -p mend-cli --bench fleet`),
//! never under `cargo nextest run`.
//!
//! For each fleet size, on fresh seats and a fresh database:
//! - the workers are started and waited for (`worker up` in their logs), so a worker's own
//!   start-up is not counted;
//! - **wall** runs from just before `mend queue add` (the first enqueue) to the last
//!   `attempt N done` line of the workers' JSON logs; **rows/min** = rows / wall;
//! - **lease → start** per job: from the worker's `KEY: attempt N started` log line (written the
//!   moment its lease transaction on `mend.work` commits, right after graphile_worker handed it
//!   the job) to the run's `started_ms` in its run record (the runner's own start: the flow
//!   loaded, the runner set up on the seat's desktop, the record written) — median and max;
//! - **done → next lease** per worker: from one job's `done` line to the same worker's next
//!   `started` line (graphile_worker completing the job, fetching the next one, mend's lease);
//! - every row's effect is in the seats' ledgers exactly once, with its own values.
//!
//!   cargo bench -p mend-cli --bench fleet -- [--rows 12] [--workers 1,2,3] [--out FILE]

use mend_testkit::{pg::Postgres, repo_root, wait_for, App, Desktop};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn psql(url: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .args(["-d", url, "-tAc", sql])
        .output()
        .expect("psql (the postgresql-client package)");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

struct Seat {
    _desktop: Desktop,
    app: App,
    display: String,
    worker: Option<Child>,
    log: PathBuf,
}

fn seat(i: usize, dir: &Path) -> Seat {
    // Desktop::start points DISPLAY at the new server; the app started next opens there.
    let desktop = Desktop::start().expect("a private desktop");
    let app = App::start("zh", &[], "main").expect("the practice app");
    Seat {
        display: desktop.display.clone(),
        _desktop: desktop,
        app,
        worker: None,
        log: dir.join(format!("worker{i}.log")),
    }
}

fn start_worker(url: &str, seat: &Seat, runs: &Path) -> Child {
    let log = std::fs::File::create(&seat.log).unwrap();
    Command::new(env!("CARGO_BIN_EXE_mend"))
        .args([
            "worker",
            "--display",
            &seat.display,
            "--seat",
            &seat.display,
        ])
        .arg("--runs")
        .arg(runs)
        .env("MEND_DATABASE_URL", url)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start mend worker")
}

/// The workers' JSON log lines: (ts_ms, seat, msg).
fn log_lines(seats: &[Seat]) -> Vec<(u64, String, String)> {
    seats
        .iter()
        .flat_map(|s| {
            std::fs::read_to_string(&s.log)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter_map(|v| {
                    Some((
                        v["ts_ms"].as_u64()?,
                        v["seat"].as_str()?.to_string(),
                        v["msg"].as_str()?.to_string(),
                    ))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn dump_logs(seats: &[Seat]) -> String {
    seats
        .iter()
        .map(|s| {
            let l = std::fs::read_to_string(&s.log).unwrap_or_default();
            let tail: Vec<&str> = l.lines().rev().take(20).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            format!("--- {} ---\n{}", s.display, tail.join("\n"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn median(v: &[u64]) -> u64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    match v.len() {
        0 => 0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

fn max(v: &[u64]) -> u64 {
    v.iter().copied().max().unwrap_or(0)
}

/// One fleet size on fresh seats and a fresh database.
fn measure(n_workers: usize, n_rows: usize) -> Value {
    let load_before = loadavg();
    let pg = Postgres::start().expect("a throwaway PostgreSQL 15");
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let rows: Vec<(String, String, String)> = (0..n_rows)
        .map(|i| {
            (
                format!("Fleet{i:02}"),
                format!("1390000{i:04}"),
                format!("{}.{:02}", i + 1, i),
            )
        })
        .collect();
    let mut csv_text = "name,phone,balance\n".to_string();
    for (n, p, b) in &rows {
        csv_text.push_str(&format!("{n},{p},{b}\n"));
    }
    let csv = dir.path().join("work.csv");
    std::fs::write(&csv, csv_text).unwrap();
    let flow = repo_root().join("fixtures/flows/new_customers.toml");

    let mut seats: Vec<Seat> = (0..n_workers).map(|i| seat(i, dir.path())).collect();
    for s in seats.iter_mut() {
        s.worker = Some(start_worker(&url, s, &runs));
    }
    let up = wait_for(Duration::from_secs(120), || {
        let ups = log_lines(&seats)
            .iter()
            .filter(|(_, _, m)| m == "worker up")
            .count();
        (ups == n_workers).then_some(())
    });
    assert!(
        up.is_some(),
        "workers did not come up:\n{}",
        dump_logs(&seats)
    );
    // Let graphile_worker's own start-up (schema, listen) settle.
    std::thread::sleep(Duration::from_secs(2));

    let t0 = now_ms();
    let out = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["queue", "add"])
        .arg(&flow)
        .arg("--data")
        .arg(&csv)
        .arg("--json")
        .env("MEND_DATABASE_URL", &url)
        .output()
        .expect("mend queue add");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rep["added"], n_rows, "{rep}");

    let deadline = Instant::now() + Duration::from_secs(120 + 60 * n_rows as u64);
    loop {
        let counts = psql(
            &url,
            "SELECT count(*) FILTER (WHERE status = 'done') || '|' ||
                    count(*) FILTER (WHERE status IN ('failed', 'paused', 'cancelled'))
             FROM mend.work",
        );
        let (done, bad) = counts.split_once('|').unwrap_or(("0", "0"));
        assert_eq!(
            bad,
            "0",
            "a job ended other than done:\n{}\n{}",
            psql(
                &url,
                "SELECT key, status, reason FROM mend.work WHERE status <> 'done'"
            ),
            dump_logs(&seats)
        );
        if done == n_rows.to_string() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the fleet did not finish in time ({done}/{n_rows} done):\n{}",
            dump_logs(&seats)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let load_after = loadavg();
    for s in seats.iter_mut() {
        if let Some(mut w) = s.worker.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &w.id().to_string()])
                .status();
            if wait_for(Duration::from_secs(20), || w.try_wait().ok().flatten()).is_none() {
                let _ = w.kill();
                let _ = w.wait();
            }
        }
    }

    // Exactly once, across every seat's ledger, value for value.
    let mut created: Vec<Value> = vec![];
    for s in &seats {
        created.extend(
            s.app
                .ledger()
                .into_iter()
                .filter(|e| e["op"] == "create")
                .map(|e| e["fields"].clone()),
        );
    }
    for (name, phone, balance) in &rows {
        let mine: Vec<&Value> = created.iter().filter(|f| f["name"] == **name).collect();
        assert_eq!(mine.len(), 1, "{name} created {} times", mine.len());
        assert_eq!(mine[0]["phone"], **phone, "{name}: {:?}", mine[0]);
        assert_eq!(mine[0]["balance"], **balance, "{name}: {:?}", mine[0]);
    }
    assert_eq!(created.len(), n_rows, "no other record: {created:?}");

    // Per job, from the logs: when its lease was taken and when it was done (one attempt each).
    let mut leased: BTreeMap<String, (u64, String)> = BTreeMap::new();
    let mut done: BTreeMap<String, u64> = BTreeMap::new();
    for (ts, seat, msg) in log_lines(&seats) {
        let Some((key, rest)) = msg.split_once(": attempt ") else {
            continue;
        };
        if rest.ends_with(" started") {
            let again = leased.insert(key.to_string(), (ts, seat));
            assert!(again.is_none(), "{key} leased twice without a kill");
        } else if rest.ends_with(" done") {
            done.insert(key.to_string(), ts);
        }
    }
    assert_eq!(leased.len(), n_rows, "{leased:?}");
    assert_eq!(done.len(), n_rows, "{done:?}");
    // The runner's own start, from each run record (6-byte header, then JSON).
    let mut run_started: BTreeMap<String, u64> = BTreeMap::new();
    for line in psql(
        &url,
        "SELECT key || '|' || (convert_from(substring(body from 7), 'UTF8')::json->>'started_ms')
         FROM mend.records WHERE tbl = 'runs'",
    )
    .lines()
    {
        if let Some((k, ms)) = line.split_once('|') {
            run_started.insert(k.to_string(), ms.parse().unwrap());
        }
    }
    let mut lease_to_start = vec![];
    let mut run_ms = vec![];
    for (key, (l, _)) in &leased {
        let s = *run_started
            .get(key)
            .unwrap_or_else(|| panic!("{key} has no run record"));
        lease_to_start.push(s.saturating_sub(*l));
        run_ms.push(done[key].saturating_sub(s));
    }
    let mut turnaround = vec![];
    for s in &seats {
        let mut mine: Vec<(u64, &String)> = leased
            .iter()
            .filter(|(_, (_, seat))| *seat == s.display)
            .map(|(k, (l, _))| (*l, k))
            .collect();
        mine.sort();
        for w in mine.windows(2) {
            turnaround.push(w[1].0.saturating_sub(done[w[0].1]));
        }
    }
    let first_lease = leased.values().map(|(l, _)| *l).min().unwrap();
    let t1 = *done.values().max().unwrap();
    let wall_ms = t1 - t0;
    let per_seat: BTreeMap<&String, usize> =
        leased.values().fold(BTreeMap::new(), |mut m, (_, s)| {
            *m.entry(s).or_default() += 1;
            m
        });
    let r = json!({
        "workers": n_workers,
        "rows": n_rows,
        "wall_s": wall_ms as f64 / 1000.0,
        "rows_per_min": n_rows as f64 * 60_000.0 / wall_ms as f64,
        "enqueue_to_first_lease_ms": first_lease.saturating_sub(t0),
        "run_median_s": median(&run_ms) as f64 / 1000.0,
        "lease_to_start_median_ms": median(&lease_to_start),
        "lease_to_start_max_ms": max(&lease_to_start),
        "done_to_next_lease_median_ms": median(&turnaround),
        "done_to_next_lease_max_ms": max(&turnaround),
        "jobs_per_worker": per_seat.values().collect::<Vec<_>>(),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
    });
    eprintln!("{r}");
    r
}

fn main() {
    let mut rows = 12usize;
    let mut workers = vec![1usize, 2, 3];
    let mut out = repo_root().join("out/bench/fleet.json");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rows" => rows = args.next().and_then(|v| v.parse().ok()).expect("--rows N"),
            "--workers" => {
                workers = args
                    .next()
                    .expect("--workers 1,2,3")
                    .split(',')
                    .map(|w| w.trim().parse().expect("--workers 1,2,3"))
                    .collect()
            }
            "--out" => out = PathBuf::from(args.next().expect("--out FILE")),
            // What `cargo bench` passes to every bench target.
            "--bench" => {}
            other => panic!("unknown argument {other}: --rows N --workers 1,2,3 --out FILE"),
        }
    }
    eprintln!(
        "fleet throughput: {rows} rows of new_customers.toml with {workers:?} workers (load {})",
        loadavg()
    );
    let results: Vec<Value> = workers.iter().map(|&n| measure(n, rows)).collect();
    println!();
    println!("| workers | rows | wall | rows/min | lease → start median / max | done → next lease median / max | enqueue → first lease | run median | load avg (1 min) before → after |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for r in &results {
        println!(
            "| {} | {} | {:.1} s | {:.1} | {} / {} ms | {} / {} ms | {} ms | {:.1} s | {} → {} |",
            r["workers"],
            r["rows"],
            r["wall_s"].as_f64().unwrap(),
            r["rows_per_min"].as_f64().unwrap(),
            r["lease_to_start_median_ms"],
            r["lease_to_start_max_ms"],
            r["done_to_next_lease_median_ms"],
            r["done_to_next_lease_max_ms"],
            r["enqueue_to_first_lease_ms"],
            r["run_median_s"].as_f64().unwrap(),
            r["loadavg_before"]
                .as_str()
                .unwrap()
                .split(' ')
                .next()
                .unwrap(),
            r["loadavg_after"]
                .as_str()
                .unwrap()
                .split(' ')
                .next()
                .unwrap(),
        );
    }
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&json!({ "rows": rows, "results": results })).unwrap(),
    )
    .unwrap();
    eprintln!("written {}", out.display());
}
