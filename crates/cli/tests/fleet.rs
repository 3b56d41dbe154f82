//! The fleet on real parts: a throwaway PostgreSQL 15, N workers each on its own Xvfb with its
//! own practice app, a work list of rows of `new_customers.toml`. Workers are SIGKILLed in
//! the middle of jobs at random moments and replaced on their seat; the server is restarted once mid-run. Every row
//! must be created exactly once across all ledgers, with its own values, none missing.
//!
//! CI size: 2 workers, 6 rows, 6 kills. The issue's full size (3 workers, 30 rows, ≥ 30 kills):
//! `MEND_FLEET_WORKERS=3 MEND_FLEET_ROWS=30 MEND_FLEET_KILLS=30 cargo nextest run -p mend-cli
//! --test fleet`.

use mend_testkit::{pg::Postgres, repo_root, wait_for, App, Desktop};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn mend(url: &str, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(args)
        .env("MEND_DATABASE_URL", url)
        .output()
        .expect("run mend")
}

fn status(url: &str) -> Value {
    let out = mend(url, &["queue", "status", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// xorshift: reproducible kill moments.
struct Rng(u64);
impl Rng {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

struct Seat {
    _desktop: Desktop,
    app: App,
    display: String,
    worker: Option<Child>,
    log: PathBuf,
}

/// Items of the work list that ended (done, failed, paused or cancelled).
fn rows_finished(url: &str) -> u64 {
    let st = status(url);
    let f = &st["flows"][0];
    ["done", "failed", "paused", "cancelled"]
        .iter()
        .map(|k| f[k].as_u64().unwrap_or(0))
        .sum()
}

/// Whether the seat's worker is in the middle of a job: the last attempt its log names
/// started and has not ended.
fn mid_job(log: &Path) -> bool {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .rev()
        .find(|l| l.contains(": attempt ") || l.contains("worker up"))
        .is_some_and(|l| l.contains(": attempt ") && l.contains(" started"))
}

fn start_worker(url: &str, seat: &Seat, runs: &Path, max_recoveries: u32) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&seat.log)
        .unwrap();
    Command::new(env!("CARGO_BIN_EXE_mend"))
        .args([
            "worker",
            "--display",
            &seat.display,
            "--seat",
            &seat.display,
        ])
        .args(["--heartbeat-ms", "500", "--stale-ms", "3000"])
        .args(["--max-recoveries", &max_recoveries.to_string()])
        .arg("--runs")
        .arg(runs)
        .env("MEND_DATABASE_URL", url)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start mend worker")
}

fn seats(n: usize, dir: &Path) -> Vec<Seat> {
    (0..n)
        .map(|i| {
            // Desktop::start points DISPLAY at the new server; the app started next opens there.
            let desktop = Desktop::start().unwrap();
            let app = App::start("zh", &[], "main").unwrap();
            Seat {
                display: desktop.display.clone(),
                _desktop: desktop,
                app,
                worker: None,
                log: dir.join(format!("worker{i}.log")),
            }
        })
        .collect()
}

fn work_list(dir: &Path, rows: usize) -> (PathBuf, Vec<(String, String, String)>) {
    let rows: Vec<_> = (0..rows)
        .map(|i| {
            (
                format!("Fleet{i:02}"),
                format!("1390000{i:04}"),
                format!("{}.{:02}", i + 1, i),
            )
        })
        .collect();
    let mut csv = "name,phone,balance\n".to_string();
    for (n, p, b) in &rows {
        csv.push_str(&format!("{n},{p},{b}\n"));
    }
    let path = dir.join("work.csv");
    std::fs::write(&path, csv).unwrap();
    (path, rows)
}

fn dump_logs(seats: &[Seat]) -> String {
    seats
        .iter()
        .map(|s| {
            let l = std::fs::read_to_string(&s.log).unwrap_or_default();
            let tail: Vec<&str> = l.lines().rev().take(25).collect();
            format!(
                "--- {} ---\n{}",
                s.display,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_fleet_through_kills_and_a_server_restart_creates_every_row_exactly_once() {
    let n_workers = env_or("MEND_FLEET_WORKERS", 2);
    let n_rows = env_or("MEND_FLEET_ROWS", 6);
    let n_kills = env_or("MEND_FLEET_KILLS", 6);
    let pg = Postgres::start().unwrap();
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let (csv, rows) = work_list(dir.path(), n_rows);
    let flow = repo_root().join("fixtures/flows/new_customers.toml");
    let add = |expect_added: usize| {
        let out = mend(
            &url,
            &[
                "queue",
                "add",
                flow.to_str().unwrap(),
                "--data",
                csv.to_str().unwrap(),
                "--json",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rep["added"], expect_added, "{rep}");
    };
    add(n_rows);
    add(0); // the same list again adds nothing
    let mut seats = seats(n_workers, dir.path());
    for s in seats.iter_mut() {
        s.worker = Some(start_worker(&url, s, &runs, 1000));
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut kills, mut restarted) = (0usize, false);
    let deadline = Instant::now() + Duration::from_secs(120 + 40 * n_rows as u64);
    let mut next_kill = Instant::now() + Duration::from_millis(rng.next(1000));
    let done = loop {
        assert!(
            Instant::now() < deadline,
            "the fleet did not finish in time: {}\n{}",
            status(&url),
            dump_logs(&seats)
        );
        // Replace any worker that is gone (killed, or exited when the database went away).
        for s in seats.iter_mut() {
            let gone = s
                .worker
                .as_mut()
                .is_none_or(|w| matches!(w.try_wait(), Ok(Some(_))));
            if gone {
                s.worker = Some(start_worker(&url, s, &runs, 1000));
            }
        }
        // A kill lands on a worker in the middle of a job (its log's last attempt started
        // and has not ended): a job takes about a second now that fields take the exact rung,
        // and kills at random moments landed between jobs. Once every row is done, any.
        let busy: Vec<usize> = (0..n_workers).filter(|&i| mid_job(&seats[i].log)).collect();
        let all_done = rows_finished(&url) == n_rows as u64;
        if kills < n_kills && Instant::now() >= next_kill && (!busy.is_empty() || all_done) {
            let i = if busy.is_empty() {
                rng.next(n_workers as u64) as usize
            } else {
                busy[rng.next(busy.len() as u64) as usize]
            };
            let s = &mut seats[i];
            if let Some(mut w) = s.worker.take() {
                let _ = w.kill(); // SIGKILL
                let _ = w.wait();
                kills += 1;
            }
            next_kill = Instant::now() + Duration::from_millis(200 + rng.next(1500));
            if !restarted && kills >= n_kills / 2 {
                pg.restart().unwrap();
                restarted = true;
            }
        }
        if kills >= n_kills && rows_finished(&url) == n_rows as u64 {
            break status(&url);
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(restarted);
    assert_eq!(
        done["flows"][0]["done"],
        n_rows,
        "every item done: {done}\n{}",
        dump_logs(&seats)
    );
    // Exactly once, across every seat's ledger, value for value.
    wait_for(Duration::from_secs(2), || None::<()>);
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
        assert_eq!(
            mine.len(),
            1,
            "{name} created {} times: {mine:?}\n{}",
            mine.len(),
            dump_logs(&seats)
        );
        assert_eq!(mine[0]["phone"], **phone, "{name}: {:?}", mine[0]);
        assert_eq!(mine[0]["balance"], **balance, "{name}: {:?}", mine[0]);
    }
    assert_eq!(
        created.len(),
        n_rows,
        "no other record created: {created:?}"
    );
    let logs: String = seats
        .iter()
        .map(|s| std::fs::read_to_string(&s.log).unwrap_or_default())
        .collect();
    let adopted = logs.matches("adopting").count();
    let stale = logs.matches("lost its lease").count() + logs.matches("LEASE_LOST").count();
    eprintln!(
        "{n_rows} rows on {n_workers} workers through {kills} kills and one server restart: {adopted} items adopted by a seat's next worker, {stale} stale attempts refused"
    );
    if std::env::var_os("MEND_FLEET_LOGS").is_some() {
        eprintln!("{logs}");
    }
    assert!(
        adopted >= 1,
        "no kill landed mid-job, so recovery was not exercised:\n{logs}"
    );
    for s in seats.iter_mut() {
        if let Some(mut w) = s.worker.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}

fn psql(url: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .args(["-d", url, "-tAc", sql])
        .output()
        .expect("psql");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// (status, attempt) of the one work item of a test.
fn item(url: &str, key: &str) -> (String, i64) {
    let s = psql(
        url,
        &format!("SELECT status || '|' || attempt FROM mend.work WHERE key = '{key}'"),
    );
    let (st, at) = s.split_once('|').unwrap_or(("", "0"));
    (st.to_string(), at.parse().unwrap_or(0))
}

fn add_rows(url: &str, dir: &Path, rows: usize) -> (Vec<String>, Vec<(String, String, String)>) {
    let (csv, rows) = work_list(dir, rows);
    let flow = repo_root().join("fixtures/flows/new_customers.toml");
    let out = mend(
        url,
        &[
            "queue",
            "add",
            flow.to_str().unwrap(),
            "--data",
            csv.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = rep["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    (keys, rows)
}

#[test]
fn a_job_that_kills_its_worker_every_time_is_parked_for_a_person_then_retried() {
    let pg = Postgres::start().unwrap();
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let (keys, rows) = add_rows(&url, dir.path(), 1);
    let key = &keys[0];
    let mut seat = seats(1, dir.path()).pop().unwrap();
    // Kill the worker as soon as each new attempt has started, until the item is parked.
    let mut last = 0;
    for _ in 0..8 {
        let mut w = start_worker(&url, &seat, &runs, 2);
        let started = wait_for(Duration::from_secs(60), || {
            let (st, at) = item(&url, key);
            ((st == "running" && at > last) || st == "paused").then_some((st, at))
        })
        .expect("the worker took the job");
        let _ = w.kill();
        let _ = w.wait();
        if started.0 == "paused" {
            break;
        }
        last = started.1;
    }
    let (st, _) = item(&url, key);
    assert_eq!(st, "paused", "{}", dump_logs(std::slice::from_ref(&seat)));
    let reason = psql(
        &url,
        &format!("SELECT reason FROM mend.work WHERE key = '{key}'"),
    );
    assert!(reason.starts_with("POISON_JOB"), "{reason}");
    assert_eq!(
        psql(
            &url,
            &format!("SELECT recoveries FROM mend.work WHERE key = '{key}'")
        ),
        "3",
        "parked on the first recovery past the cap of 2"
    );
    // Another process sees the request.
    let out = mend(&url, &["takeover", "list", "--json"]);
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = list
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["run"] == key.as_str())
        .unwrap_or_else(|| panic!("no takeover for {key}: {list}"));
    assert_eq!(t["code"], "POISON_JOB");
    // A person retries it: a worker on the seat finishes it, and the row exists once.
    let out = mend(&url, &["queue", "retry", key]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    seat.worker = Some(start_worker(&url, &seat, &runs, 2));
    wait_for(Duration::from_secs(90), || {
        (item(&url, key).0 == "done").then_some(())
    })
    .unwrap_or_else(|| panic!("{}", dump_logs(std::slice::from_ref(&seat))));
    let created = creates(&seat.app);
    assert_eq!(created.len(), 1, "{created:?}");
    assert_eq!(created[0]["fields"]["name"], rows[0].0.as_str());
    if let Some(mut w) = seat.worker.take() {
        let _ = w.kill();
        let _ = w.wait();
    }
}

#[test]
fn sigterm_finishes_the_job_in_hand_and_leases_no_more() {
    let pg = Postgres::start().unwrap();
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let (keys, _) = add_rows(&url, dir.path(), 2);
    let seat = seats(1, dir.path()).pop().unwrap();
    let mut w = start_worker(&url, &seat, &dir.path().join("runs"), 2);
    let first = wait_for(Duration::from_secs(60), || {
        keys.iter().find(|k| item(&url, k).0 == "running").cloned()
    })
    .expect("a job started");
    let term = Command::new("kill")
        .args(["-TERM", &w.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let code = wait_for(Duration::from_secs(90), || w.try_wait().ok().flatten())
        .expect("the worker stopped");
    assert_eq!(
        code.code(),
        Some(0),
        "{}",
        dump_logs(std::slice::from_ref(&seat))
    );
    assert_eq!(item(&url, &first).0, "done", "the job in hand was finished");
    let other = keys.iter().find(|k| **k != first).unwrap();
    assert_eq!(
        item(&url, other).0,
        "pending",
        "no job leased after SIGTERM"
    );
    assert_eq!(creates(&seat.app).len(), 1);
}

/// A customer's entry that stops for a person before it is saved: `approve` names a button the
/// practice app does not have.
const NEEDS_A_PERSON: &str = r#"version = 1
name = "a customer whose entry needs a person"

[window]
title = "客户管理系统|Customer Desk"
allow = ["提示|Notice"]

[[interrupt]]
window = "提示|Notice"
click = "确定"

[[step]]
id = "new"
action = "click"
target = { text = "新增", role = "button" }
verify = { exists = { text = "保存", role = "button" } }

[[step]]
id = "name"
action = "type"
target = { text = "姓名", role = "field" }
text = "${name}"

[[step]]
id = "phone"
action = "type"
target = { text = "电话", role = "field" }
text = "${phone}"

[[step]]
id = "approve"
action = "click"
target = { text = "不存在的按钮", role = "button" }
timeout_ms = 1500

[[step]]
id = "save"
action = "click"
target = { text = "保存", role = "button" }
risk = "write"
verify = { not_exists = { text = "保存", role = "button" } }
"#;

/// How many intents the job journaled for each step, `step:count,…` (an input sent again
/// after the answer would add one to its step).
/// Queue one job of `NEEDS_A_PERSON` (it pauses at its fourth step); its key.
fn add_needs_a_person(url: &str, dir: &Path) -> String {
    let flow = dir.join("needs_a_person.toml");
    std::fs::write(&flow, NEEDS_A_PERSON).unwrap();
    let out = mend(
        url,
        &[
            "queue",
            "add",
            flow.to_str().unwrap(),
            "--var",
            "name=Takeover01",
            "--var",
            "phone=13900009999",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice::<Value>(&out.stdout).unwrap()["keys"][0]
        .as_str()
        .unwrap()
        .to_string()
}

fn intents(url: &str, key: &str) -> String {
    psql(
        url,
        &format!(
            "SELECT string_agg(step || ':' || n, ',' ORDER BY step) FROM (
               SELECT (convert_from(substring(body FROM 7), 'UTF8')::jsonb ->> 'step')::int AS step,
                      count(*) AS n
               FROM mend.journal WHERE run = '{key}'
                 AND convert_from(substring(body FROM 7), 'UTF8')::jsonb ->> 'kind' = 'intent'
               GROUP BY 1) s"
        ),
    )
}

#[test]
fn a_job_that_needs_a_person_pauses_and_an_answer_from_another_process_continues_it_once() {
    let pg = Postgres::start().unwrap();
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let key = add_needs_a_person(&url, dir.path());
    let mut seat = seats(1, dir.path()).pop().unwrap();
    seat.worker = Some(start_worker(&url, &seat, &runs, 2));
    let logs = |seat: &Seat| dump_logs(std::slice::from_ref(seat));
    wait_for(Duration::from_secs(90), || {
        (item(&url, &key).0 == "paused").then_some(())
    })
    .unwrap_or_else(|| panic!("the job did not pause: {}", logs(&seat)));

    // Paused, as the queue and any other machine see it.
    let st = status(&url);
    assert_eq!(st["flows"][0]["paused"], 1, "{st}");
    let waiting = &st["attention"][0];
    assert_eq!(
        (&waiting["key"], &waiting["status"]),
        (&json(&key), &json("paused"))
    );
    assert!(
        waiting["reason"]
            .as_str()
            .unwrap()
            .starts_with("LOCATOR_NOT_FOUND"),
        "{waiting}"
    );
    let out = mend(&url, &["takeover", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    let t = &list[0];
    assert_eq!((&t["run"], &t["step_id"]), (&json(&key), &json("approve")));
    assert_eq!(t["code"], "LOCATOR_NOT_FOUND");
    let id = t["id"].as_str().unwrap().to_string();
    let before = intents(&url, &key);
    assert!(
        before.starts_with("0:") && before.matches(':').count() == 3 && !before.contains("3:"),
        "new, name and phone acted; approve never found: {before}"
    );
    assert_eq!(
        creates(&seat.app).len(),
        0,
        "nothing saved before the person answers"
    );

    // An id that names no request: refused with its code, nothing queued.
    let out = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args([
            "takeover",
            "resolve",
            "t-nope",
            "--skip",
            "--database-url",
            &url,
        ])
        .env_remove("MEND_DATABASE_URL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("TAKEOVER_NOT_FOUND"),
        "{out:?}"
    );
    assert_eq!(item(&url, &key).0, "paused");

    // An answer the seat cannot apply (a point outside the window) is refused there before
    // any input: the request is open again, saying why, and the job paused.
    let (_, paused_at) = item(&url, &key);
    let out = mend(&url, &["takeover", "resolve", &id, "--pick", "5000,5000"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The answer bumps the attempt, the seat's lease bumps it again.
    wait_for(Duration::from_secs(60), || {
        let (st, at) = item(&url, &key);
        (st == "paused" && at >= paused_at + 2).then_some(())
    })
    .unwrap_or_else(|| panic!("the pick was not tried: {}", logs(&seat)));
    let out = mend(&url, &["takeover", "show", &id, "--json"]);
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["status"], "open", "{t}");
    assert!(
        t["suggestion"]
            .as_str()
            .unwrap()
            .contains("'pick 5000,5000' could not be applied"),
        "{t}"
    );
    assert_eq!(intents(&url, &key), before, "nothing acted");

    // The person skips the approval from another process; the job goes back to its seat.
    let out = mend(&url, &["takeover", "resolve", &id, "--skip", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["takeover"]["status"], "decided", "{d}");
    assert_eq!(d["seat"], seat.display.as_str());
    // Answered once: the same answer again is stale.
    let again = mend(&url, &["takeover", "resolve", &id, "--skip"]);
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("TAKEOVER_STALE"),
        "{again:?}"
    );

    wait_for(Duration::from_secs(90), || {
        (item(&url, &key).0 == "done").then_some(())
    })
    .unwrap_or_else(|| panic!("the answered job did not finish: {}", logs(&seat)));
    let created: Vec<Value> = seat
        .app
        .wait_ledger(1, Duration::from_secs(5))
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e["op"] == "create")
        .collect();
    assert_eq!(created.len(), 1, "{created:?}");
    assert_eq!(created[0]["fields"]["name"], "Takeover01");
    assert_eq!(
        created[0]["fields"]["phone"], "13900009999",
        "typed once, not again after the answer"
    );
    // Steps with a result were not acted again; the skipped step never acted; save once.
    assert_eq!(
        intents(&url, &key),
        format!("{before},4:1"),
        "{}",
        logs(&seat)
    );
    let out = mend(&url, &["takeover", "list", "--all", "--json"]);
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&list[0]["status"], &list[0]["resolution"]),
        (&json("resolved"), &json("skip"))
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(creates(&seat.app).len(), 1, "saved exactly once");
    if let Some(mut w) = seat.worker.take() {
        let _ = w.kill();
        let _ = w.wait();
    }
}

fn json(s: &str) -> Value {
    Value::String(s.to_string())
}

fn creates(app: &mend_testkit::App) -> Vec<Value> {
    app.ledger()
        .into_iter()
        .filter(|e| e["op"] == "create")
        .collect()
}

#[test]
fn a_job_whose_seat_is_gone_is_moved_by_a_person_and_started_over_on_another_seat() {
    let pg = Postgres::start().unwrap();
    let url = pg.url();
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let key = add_needs_a_person(&url, dir.path());
    let mut two = seats(2, dir.path());
    let mut b = two.pop().unwrap();
    let mut a = two.pop().unwrap();
    a.worker = Some(start_worker(&url, &a, &runs, 2));
    wait_for(Duration::from_secs(90), || {
        (item(&url, &key).0 == "paused").then_some(())
    })
    .unwrap_or_else(|| {
        panic!(
            "the job did not pause on seat A: {}",
            dump_logs(std::slice::from_ref(&a))
        )
    });
    let before = intents(&url, &key);
    assert_eq!(before, "0:1,1:1,2:1", "new, name and phone acted on A");

    // Seat A's worker lives: the job is not moved.
    let out = mend(&url, &["queue", "move", &key, "--to", &b.display]);
    assert_eq!(out.status.code(), Some(1), "a refusal: {out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("SEAT_IN_USE"),
        "{out:?}"
    );
    assert_eq!(item(&url, &key).0, "paused");

    // Seat A is gone for good: its worker killed, its desktop closed.
    let mut w = a.worker.take().unwrap();
    let _ = w.kill();
    let _ = w.wait();
    assert!(creates(&a.app).is_empty(), "nothing was saved on A");
    drop(a);
    let out = mend(&url, &["queue", "move", &key, "--to", &b.display, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let m: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        m["acted"],
        serde_json::json!([]),
        "only read steps acted: {m}"
    );
    let archive = m["archive"].as_str().unwrap().to_string();
    assert_eq!(
        intents(&url, &archive),
        before,
        "the old attempt's journal is kept"
    );
    let out = mend(&url, &["takeover", "list", "--json"]);
    let open: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(open, serde_json::json!([]), "A's request is closed");

    // Seat B starts it over from its first step; it needs a person there too.
    b.worker = Some(start_worker(&url, &b, &runs, 2));
    wait_for(Duration::from_secs(90), || {
        (item(&url, &key).0 == "paused").then_some(())
    })
    .unwrap_or_else(|| {
        panic!(
            "the job did not pause on seat B: {}",
            dump_logs(std::slice::from_ref(&b))
        )
    });
    assert_eq!(intents(&url, &key), before, "started over on B");
    let out = mend(&url, &["takeover", "list", "--json"]);
    let open: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = open[0]["id"].as_str().unwrap().to_string();
    let out = mend(&url, &["takeover", "resolve", &id, "--skip"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    wait_for(Duration::from_secs(90), || {
        (item(&url, &key).0 == "done").then_some(())
    })
    .unwrap_or_else(|| {
        panic!(
            "the moved job did not finish: {}",
            dump_logs(std::slice::from_ref(&b))
        )
    });
    let created = b
        .app
        .wait_ledger(1, Duration::from_secs(5))
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e["op"] == "create")
        .collect::<Vec<_>>();
    assert_eq!(created.len(), 1, "{created:?}");
    assert_eq!(
        (
            &created[0]["fields"]["name"],
            &created[0]["fields"]["phone"]
        ),
        (&json("Takeover01"), &json("13900009999"))
    );
    if let Some(mut w) = b.worker.take() {
        let _ = w.kill();
        let _ = w.wait();
    }
}
