//! The PostgreSQL store on a throwaway server: the same checks as sled, the fence, the work
//! list's idempotency and error codes, and a person's answer to a paused job.

use mend_fleet::{Fence, Fleet, WorkSpec};
use mend_model::ErrorCode;
use mend_runner::takeover::{Resolution, Takeover, TAKEOVERS};
use mend_store::{conformance, JournalEntry, RunRecord};
use mend_testkit::pg::Postgres;
use std::time::Duration;

fn connect(pg: &Postgres) -> Fleet {
    Fleet::connect(&pg.url(), Duration::from_secs(30)).unwrap()
}

/// One statement through `psql`, which must succeed; its output, trimmed.
fn psql(pg: &Postgres, sql: &str) -> String {
    let out = std::process::Command::new("psql")
        .args(["-d", &pg.url(), "-tAc", sql])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn spec(name: &str) -> WorkSpec {
    WorkSpec {
        flow_path: "/flows/f.toml".into(),
        flow: "f".into(),
        vars: Default::default(),
        row: [("name".to_string(), name.to_string())].into(),
        lang: "eng".into(),
    }
}

fn intent(step: usize) -> JournalEntry {
    JournalEntry::Intent {
        row: 0,
        step,
        attempt: 1,
        action: "click".into(),
    }
}

#[test]
fn postgres_passes_the_same_backend_checks_as_sled() {
    let pg = Postgres::start().unwrap();
    let fleet = connect(&pg);
    conformance::check(Box::new(mend_fleet::PgBackend::new(fleet, None)));
}

#[test]
fn a_stale_attempt_can_never_write_and_the_current_one_can() {
    let pg = Postgres::start().unwrap();
    let fleet = connect(&pg);
    let key = fleet.add(&[spec("a")]).unwrap().keys[0].clone();
    // Lease it twice, as a worker and then its successor would (what `lease` does).
    let lease = |n| {
        psql(
            &pg,
            &format!("UPDATE mend.work SET status = 'running', attempt = {n} WHERE key = '{key}'"),
        );
    };
    lease(1);
    let first = fleet.store(Some(Fence {
        job: key.clone(),
        attempt: 1,
    }));
    first.append(&key, &intent(0)).unwrap();
    first.put_run(&RunRecord::new(&key, "f", 1)).unwrap();
    lease(2);
    let second = fleet.store(Some(Fence {
        job: key.clone(),
        attempt: 2,
    }));
    for e in [
        first.append(&key, &intent(1)).unwrap_err(),
        first.put_run(&RunRecord::new(&key, "f", 2)).unwrap_err(),
        first.put("takeovers", "t1", &1u32).unwrap_err(),
    ] {
        assert_eq!(e.code, ErrorCode::LeaseLost, "{e}");
    }
    second.append(&key, &intent(1)).unwrap();
    let j = second.journal(&key).unwrap();
    assert_eq!(j, vec![intent(0), intent(1)], "only the holder's entries");
    assert_eq!(second.run(&key).unwrap().unwrap().started_ms, 1);
    assert_eq!(second.get::<u32>("takeovers", "t1").unwrap(), None);
    // Cancelled: even the holder of the last lease may not write.
    fleet.cancel(&key).unwrap();
    assert_eq!(
        second.append(&key, &intent(2)).unwrap_err().code,
        ErrorCode::LeaseLost
    );
    // An unfenced store (a person's `mend takeover list`) reads everything.
    assert_eq!(fleet.store(None).journal(&key).unwrap().len(), 2);
}

#[test]
fn adding_the_same_work_list_twice_does_not_double_it() {
    let pg = Postgres::start().unwrap();
    let fleet = connect(&pg);
    let list = [spec("a"), spec("b"), spec("c")];
    let first = fleet.add(&list).unwrap();
    assert_eq!((first.added, first.existing), (3, 0));
    let again = fleet.add(&list).unwrap();
    assert_eq!((again.added, again.existing), (0, 3));
    assert_eq!(first.keys, again.keys);
    let more = fleet.add(&[spec("c"), spec("d")]).unwrap();
    assert_eq!((more.added, more.existing), (1, 1));
    let st = fleet.status().unwrap();
    assert_eq!(st.flows.len(), 1);
    assert_eq!(st.flows[0].pending, 4);
    // graphile_worker holds exactly one job per item.
    let out = std::process::Command::new("psql")
        .args([
            "-d",
            &pg.url(),
            "-tAc",
            "SELECT count(*), count(DISTINCT key) FROM graphile_worker._private_jobs",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "4|4");
    assert_eq!(
        fleet.retry("nope").unwrap_err().code,
        ErrorCode::JobNotFound
    );
    assert_eq!(
        fleet.retry(&first.keys[0]).unwrap_err().code,
        ErrorCode::InvalidArgument,
        "a pending item is not retried"
    );
    let c = fleet.cancel(&first.keys[0]).unwrap();
    assert_eq!(c.status, "cancelled");
    let r = fleet.retry(&first.keys[0]).unwrap();
    assert_eq!(r.status, "pending");
}

#[test]
fn a_server_that_is_not_there_is_database_unavailable() {
    let pg = Postgres::start().unwrap();
    let url = pg.url();
    drop(pg);
    let e = Fleet::connect(&url, Duration::from_millis(300))
        .err()
        .unwrap();
    assert_eq!(e.code, ErrorCode::DatabaseUnavailable, "{e}");
}

fn request(id: &str, run: &str, code: ErrorCode) -> Takeover {
    Takeover {
        id: id.into(),
        run: run.into(),
        flow: "/flows/f.toml".into(),
        row: 0,
        step: 3,
        step_id: "approve".into(),
        action: "click".into(),
        code,
        message: "no 主管审批 button".into(),
        screenshot: None,
        candidates: vec![],
        effects: vec![],
        suggestion: String::new(),
        status: "open".into(),
        resolution: None,
        created_ms: 1,
    }
}

#[test]
fn an_answer_is_recorded_once_for_a_paused_job_and_queues_it_again_for_its_seat() {
    let pg = Postgres::start().unwrap();
    let fleet = connect(&pg);
    let psql = |sql: &str| psql(&pg, sql);
    let key = fleet.add(&[spec("a")]).unwrap().keys[0].clone();
    // A worker on seat s1 runs it and the run pauses: its request is written under its lease.
    psql(&format!(
        "UPDATE mend.work SET status = 'running', attempt = 1, seat = 's1' WHERE key = '{key}';
         DELETE FROM graphile_worker._private_jobs"
    ));
    let holder = fleet.store(Some(Fence {
        job: key.clone(),
        attempt: 1,
    }));
    holder
        .put(
            TAKEOVERS,
            "t1",
            &request("t1", &key, ErrorCode::LocatorNotFound),
        )
        .unwrap();
    assert!(fleet.is_job(&key).unwrap());
    assert!(
        !fleet.is_job("r123").unwrap(),
        "a plain run is no work item"
    );
    let e = fleet.decide("t404", Resolution::Skip).unwrap_err();
    assert_eq!(e.code, ErrorCode::TakeoverNotFound, "{e}");
    // Not paused yet (the worker is still recording the pause): nothing changes.
    let e = fleet.decide("t1", Resolution::Skip).unwrap_err();
    assert_eq!(e.code, ErrorCode::TakeoverStale, "{e}");
    assert!(e.message.contains("running"), "{e}");
    psql(&format!(
        "UPDATE mend.work SET status = 'paused' WHERE key = '{key}'"
    ));
    let d = fleet.decide("t1", Resolution::Skip).unwrap();
    assert_eq!(
        (d.job.as_str(), d.seat.as_deref()),
        (key.as_str(), Some("s1"))
    );
    assert_eq!(d.takeover.status, "decided");
    let stored: Takeover = fleet.store(None).get(TAKEOVERS, "t1").unwrap().unwrap();
    assert_eq!(
        mend_runner::takeover::decision(&stored).unwrap(),
        Some(Resolution::Skip)
    );
    assert_eq!(
        psql(&format!(
            "SELECT status || '|' || attempt || '|' || seat FROM mend.work WHERE key = '{key}'"
        )),
        "pending|2|s1",
        "leasable again, for its seat, and the old attempt fenced off"
    );
    assert_eq!(
        psql("SELECT count(*) FROM graphile_worker._private_jobs"),
        "1",
        "queued again"
    );
    assert_eq!(
        holder
            .put(
                TAKEOVERS,
                "t1",
                &request("t1", &key, ErrorCode::LocatorNotFound)
            )
            .unwrap_err()
            .code,
        ErrorCode::LeaseLost
    );
    // One answer per request.
    let e = fleet.decide("t1", Resolution::Retry).unwrap_err();
    assert_eq!(e.code, ErrorCode::TakeoverStale, "{e}");
    assert!(e.message.contains("decided (skip)"), "{e}");
    // A poison job's request has no failed step to skip.
    let key2 = fleet.add(&[spec("b")]).unwrap().keys[0].clone();
    psql(&format!(
        "UPDATE mend.work SET status = 'paused', seat = 's1' WHERE key = '{key2}'"
    ));
    fleet
        .store(None)
        .put(TAKEOVERS, "t2", &request("t2", &key2, ErrorCode::PoisonJob))
        .unwrap();
    let e = fleet.decide("t2", Resolution::Skip).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e}");
    fleet.decide("t2", Resolution::Retry).unwrap();
}

const SAVES: &str = r#"version = 1
name = "a customer, saved"

[window]
title = "Customer Desk"

[[step]]
id = "new"
action = "click"
target = { text = "New", role = "button" }

[[step]]
id = "name"
action = "type"
target = { text = "Name", role = "field" }
text = "${name}"

[[step]]
id = "save"
action = "click"
target = { text = "Save", role = "button" }
risk = "write"
verify = { not_exists = { text = "Save", role = "button" } }
"#;

fn result(step: usize) -> JournalEntry {
    JournalEntry::Result {
        row: 0,
        step,
        attempt: 1,
        code: None,
        strategy: Some("exact".into()),
        detail: Default::default(),
    }
}

#[test]
fn a_job_whose_seat_is_gone_moves_to_another_seat_only_when_nothing_it_did_may_have_committed() {
    let pg = Postgres::start().unwrap();
    let fleet = connect(&pg);
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("saves.toml");
    std::fs::write(&flow, SAVES).unwrap();
    let psql = |sql: &str| psql(&pg, sql);
    let item = |name: &str| {
        let mut s = spec(name);
        s.flow_path = flow.display().to_string();
        let key = fleet.add(&[s]).unwrap().keys[0].clone();
        // Leased on seat s1, whose worker then died.
        psql(&format!(
            "UPDATE mend.work SET status = 'running', attempt = 1, seat = 's1' WHERE key = '{key}';
             DELETE FROM graphile_worker._private_jobs"
        ));
        let holder = fleet.store(Some(Fence {
            job: key.clone(),
            attempt: 1,
        }));
        holder.put_run(&RunRecord::new(&key, "f", 1)).unwrap();
        (key, holder)
    };
    let state = |key: &str| {
        psql(&format!(
            "SELECT status || '|' || attempt || '|' || coalesce(seat, '-') FROM mend.work WHERE key = '{key}'"
        ))
    };

    // Cut short after typing the name: it clicked New and typed, nothing that writes.
    let (a, holder) = item("a");
    for e in [intent(0), result(0), intent(1)] {
        holder.append(&a, &e).unwrap();
    }
    holder
        .put(
            TAKEOVERS,
            "t1",
            &request("t1", &a, ErrorCode::LocatorNotFound),
        )
        .unwrap();

    // While a worker holds seat s1 (its advisory lock), nothing moves.
    let mut lock = std::process::Command::new("psql")
        .args([
            "-d",
            &pg.url(),
            "-c",
            "SELECT pg_advisory_lock(hashtext('mend-seat:s1'))",
            "-c",
            "SELECT pg_sleep(120)",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let locks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted";
    mend_testkit::wait_for(Duration::from_secs(10), || {
        (psql(locks) == "1").then_some(())
    })
    .expect("the seat lock is held");
    let e = fleet.move_item(&a, Some("s2"), false).unwrap_err();
    assert_eq!(e.code, ErrorCode::SeatInUse, "{e}");
    assert!(e.message.contains("seat s1"), "{e}");
    // The worker dies (its connection ends, so the server frees its lock).
    psql("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'");
    let _ = lock.kill();
    let _ = lock.wait();
    mend_testkit::wait_for(Duration::from_secs(10), || {
        (psql(locks) == "0").then_some(())
    })
    .expect("the seat lock is freed with its session");
    assert_eq!(state(&a), "running|1|s1", "a refusal changes nothing");

    let e = fleet.move_item(&a, Some("s1"), false).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e}");
    assert_eq!(
        fleet.move_item("w-nope", None, false).unwrap_err().code,
        ErrorCode::JobNotFound
    );

    // Seat s1 is gone: the job starts over on s2; the old attempt is kept and fenced off.
    let m = fleet.move_item(&a, Some("s2"), false).unwrap();
    assert_eq!((m.from.as_str(), m.to.as_deref()), ("s1", Some("s2")));
    assert!(m.acted.is_empty(), "{m:?}");
    assert_eq!(m.archive, format!("{a}@s1#1"));
    assert_eq!(state(&a), "pending|2|s2");
    let store = fleet.store(None);
    assert!(
        store.journal(&a).unwrap().is_empty(),
        "starts from its first step"
    );
    assert!(
        store.run(&a).unwrap().is_none(),
        "so the seat's worker starts it afresh"
    );
    assert_eq!(store.journal(&m.archive).unwrap().len(), 3);
    let old = store.run(&m.archive).unwrap().unwrap();
    assert_eq!(
        (old.id.as_str(), old.status.as_str()),
        (m.archive.as_str(), "moved")
    );
    let t: Takeover = store.get(TAKEOVERS, "t1").unwrap().unwrap();
    assert_eq!(
        (t.status.as_str(), t.run.as_str()),
        ("resolved", m.archive.as_str())
    );
    assert_eq!(
        psql("SELECT count(*) FROM graphile_worker._private_jobs"),
        "1",
        "queued again"
    );
    assert_eq!(
        holder.append(&a, &intent(2)).unwrap_err().code,
        ErrorCode::LeaseLost,
        "the old attempt writes nothing"
    );

    // Cut short at Save (a write): it may have committed; the person must have checked.
    let (b, holder) = item("b");
    for e in [intent(0), result(0), intent(1), result(1), intent(2)] {
        holder.append(&b, &e).unwrap();
    }
    let e = fleet.move_item(&b, None, false).unwrap_err();
    assert_eq!(e.code, ErrorCode::ResumeUnverified, "{e}");
    assert!(
        e.message.contains("step 3 'save' (Write, cut short)"),
        "{e}"
    );
    assert!(e.message.contains("--start-over"), "{e}");
    assert!(e.message.contains(&format!("mend queue cancel {b}")), "{e}");
    assert_eq!(state(&b), "running|1|s1");
    assert_eq!(fleet.store(None).journal(&b).unwrap().len(), 5);
    let m = fleet.move_item(&b, None, true).unwrap();
    assert_eq!(
        m.acted,
        vec!["step 3 'save' (Write, cut short)".to_string()]
    );
    assert_eq!(state(&b), "pending|2|-", "any seat may take it");

    // A flow that cannot be read: every acted step counts as one that may have committed.
    let (c, holder) = item("c");
    holder.append(&c, &intent(0)).unwrap();
    std::fs::remove_file(&flow).unwrap();
    let e = fleet.move_item(&c, Some("s2"), false).unwrap_err();
    assert_eq!(e.code, ErrorCode::ResumeUnverified, "{e}");
    assert!(e.message.contains("the flow cannot be read"), "{e}");

    // Done is done.
    psql(&format!(
        "UPDATE mend.work SET status = 'done' WHERE key = '{c}'"
    ));
    let e = fleet.move_item(&c, Some("s2"), true).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e}");
}
