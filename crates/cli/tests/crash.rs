//! Crash and resume on real parts: `mend run` of the work-list flow is killed with SIGKILL at a
//! random moment, then `mend resume` finishes the run. The app's ledger must show every row's
//! `create` exactly once: zero duplicated and zero missing effects.
//!
//! Each test first runs once unkilled to measure a run, then kills inside that span until 10
//! kills landed mid-run: 5 tests × 10 = 50 in the suite (each test has its own X server, so they run in
//! parallel). `scripts/soak.sh N` runs the same with N kills per test.

use mend_testkit::{repo_root, wait_for, App, Desktop};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn mend(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(args)
        .arg("--db")
        .arg(db)
        .output()
        .expect("run mend")
}

fn runs(db: &Path) -> Vec<Value> {
    let out = mend(db, &["runs", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// xorshift: reproducible kill points per seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

fn crash_rounds(seed: u64) {
    let rounds: usize = std::env::var("MEND_CRASH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let _d = Desktop::start().expect("desktop");
    let app = App::start("zh", &[], "main").expect("practice app");
    let db = tempfile::tempdir().unwrap();
    let flow = repo_root().join("fixtures/flows/new_customers.toml");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
    let mut kills = 0;
    // Round 0 is not killed: it measures how long a run takes, so the kills land inside one.
    let mut span_ms = 0u64;
    let mut k = 0;
    // Until `rounds` kills landed mid-run (a kill after the run ended is no crash).
    while kills < rounds {
        assert!(k <= 3 * rounds, "only {kills} of {k} kills landed mid-run");
        let name = format!("K{seed}n{k}");
        let phone = format!("139{seed:02}{k:06}");
        let csv = db.path().join(format!("row{k}.csv"));
        std::fs::write(&csv, format!("name,phone,balance\n{name},{phone},{k}.50\n")).unwrap();
        let before = app.ledger().len();
        let known = runs(db.path()).len();

        let mut child = Command::new(env!("CARGO_BIN_EXE_mend"))
            .arg("run")
            .arg(&flow)
            .arg("--data")
            .arg(&csv)
            .arg("--db")
            .arg(db.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let at = if k == 0 {
            let t0 = std::time::Instant::now();
            assert!(
                child.wait().unwrap().success(),
                "the calibration run passes"
            );
            span_ms = t0.elapsed().as_millis() as u64;
            eprintln!("one run takes {span_ms} ms; kills land in 100..{span_ms} ms");
            span_ms
        } else {
            let at = 100 + rng.next((span_ms * 9 / 10).max(200));
            std::thread::sleep(Duration::from_millis(at));
            let finished = child.try_wait().unwrap().is_some();
            child.kill().ok(); // SIGKILL
            child.wait().unwrap();
            if !finished {
                kills += 1;
            }
            at
        };

        let list = runs(db.path());
        if list.len() == known {
            // Killed before the run was even recorded: nothing may have happened yet.
            assert_eq!(app.ledger().len(), before, "an effect without a run record");
            let out = Command::new(env!("CARGO_BIN_EXE_mend"))
                .arg("run")
                .arg(&flow)
                .arg("--data")
                .arg(&csv)
                .arg("--db")
                .arg(db.path())
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        } else {
            let id = list[0]["id"].as_str().unwrap().to_string();
            let out = mend(db.path(), &["resume", &id]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {k}: killed after {at} ms; resume said:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let effects = wait_for(Duration::from_secs(10), || {
            let l = app.ledger();
            (l.len() > before).then_some(l)
        })
        .unwrap_or_default();
        std::thread::sleep(Duration::from_millis(300));
        let effects = if app.ledger().len() != effects.len() {
            app.ledger()
        } else {
            effects
        };
        let new: Vec<&Value> = effects[before..].iter().collect();
        assert_eq!(
            new.len(),
            1,
            "round {k} (killed after {at} ms): expected one create, got {new:?}"
        );
        assert_eq!(new[0]["op"], "create");
        assert_eq!(new[0]["fields"]["name"], name.as_str());
        assert_eq!(
            new[0]["fields"]["phone"],
            phone.as_str(),
            "round {k}: {new:?}"
        );
        k += 1;
    }
    eprintln!(
        "{kills} kills mid-run in {} rounds after the calibration",
        k - 1
    );
}

#[test]
fn crash_and_resume_1() {
    crash_rounds(1);
}
#[test]
fn crash_and_resume_2() {
    crash_rounds(2);
}
#[test]
fn crash_and_resume_3() {
    crash_rounds(3);
}
#[test]
fn crash_and_resume_4() {
    crash_rounds(4);
}
#[test]
fn crash_and_resume_5() {
    crash_rounds(5);
}
