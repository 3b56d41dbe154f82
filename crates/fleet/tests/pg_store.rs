//! The PostgreSQL store on a throwaway server: the same checks as sled, the fence, and the
//! work list's idempotency and error codes.

use mend_fleet::{Fence, Fleet, WorkSpec};
use mend_model::ErrorCode;
use mend_store::{conformance, JournalEntry, RunRecord};
use mend_testkit::pg::Postgres;
use std::time::Duration;

fn connect(pg: &Postgres) -> Fleet {
    Fleet::connect(&pg.url(), Duration::from_secs(30)).unwrap()
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
    let exec = |sql: &str| {
        std::process::Command::new("psql")
            .args(["-d", &pg.url(), "-tAc", sql])
            .output()
            .unwrap()
    };
    let lease = |n| {
        let out = exec(&format!(
            "UPDATE mend.work SET status = 'running', attempt = {n} WHERE key = '{key}'"
        ));
        assert!(out.status.success(), "{out:?}");
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
