//! The throwaway PostgreSQL starts, answers on its private port, survives a restart, and is
//! gone (its directory and its server) after the drop.

use mend_testkit::pg::Postgres;
use std::process::Command;

fn psql(port: u16, sql: &str) -> (bool, String) {
    let out = Command::new("psql")
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-U",
            "mend",
            "-d",
            "postgres",
        ])
        .args(["-tAc", sql])
        .output()
        .expect("psql");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    )
}

#[test]
fn a_throwaway_server_starts_restarts_and_is_torn_down() {
    let pg = Postgres::start().unwrap();
    let port = pg.port;
    assert_eq!(
        psql(port, "select 40 + 2"),
        (true, "42".into()),
        "{}",
        pg.log()
    );
    assert!(psql(port, "create table t (x int); insert into t values (7)").0);
    pg.restart().unwrap();
    assert_eq!(
        psql(port, "select x from t"),
        (true, "7".into()),
        "data kept over a restart"
    );
    drop(pg);
    assert!(
        !psql(port, "select 1").0,
        "the server is gone after the drop"
    );
}
