//! Settling on the X server's damage events, on the live practice app under a private Xvfb: a
//! step that changes nothing is done when the grace after its input ends, not after a quiet
//! period begun once the settle starts; a step
//! that opens the next screen waits for its paint and its checks hold. The same flow settled on
//! fingerprints (`MEND_SETTLE=fingerprints`; events are the default) waits the 250 ms quiet
//! period, so the difference is the event settle's doing.

use mend_testkit::{App, Desktop};
use serde_json::Value;
use std::path::Path;

fn run(dir: &Path, flow: &str, settle: Option<&str>) -> Value {
    let db = tempfile::tempdir().unwrap();
    let f = dir.join("flow.toml");
    std::fs::write(
        &f,
        format!("version = 1\nname = \"settle\"\n[window]\ntitle = \"客户管理系统\"\n{flow}"),
    )
    .unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mend"));
    cmd.arg("run")
        .arg(&f)
        .arg("--json")
        .arg("--db")
        .arg(db.path())
        .env("DESK_PASSWORD", "pw-s3cret")
        .env_remove("MEND_SETTLE");
    if let Some(s) = settle {
        cmd.env("MEND_SETTLE", s);
    }
    let out = cmd.output().expect("run mend");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{summary}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    summary
}

fn settle_ms(s: &Value, i: usize) -> u64 {
    s["steps"][i]["settle_ms"].as_u64().expect("settle_ms")
}

#[test]
fn a_click_that_changes_nothing_finishes_without_waiting_out_a_quiet_period() {
    let _d = Desktop::start().expect("desktop");
    let app = App::start("zh", &[], "login").expect("practice app");
    let dir = tempfile::tempdir().unwrap();
    // The screen's title is a plain label: clicking it changes nothing.
    let flow = r#"
[[step]]
action = "click"
target = { text = "用户登录", role = "text" }
[[step]]
action = "click"
target = { text = "用户登录", role = "text" }
check = [{ exists = { text = "登录", role = "button" } }]
"#;
    let s = run(dir.path(), flow, None);
    for i in 0..2 {
        assert_eq!(s["steps"][i]["settled"], "unchanged", "{s}");
        // The grace counted from the input (250 ms; the settle's polling adds a few ms): no
        // quiet period waited out after it.
        assert!(
            settle_ms(&s, i) <= 300,
            "step {i} settled in {} ms: {s}",
            settle_ms(&s, i)
        );
    }
    let f = run(dir.path(), flow, Some("fingerprints"));
    for i in 0..2 {
        assert!(f["steps"][i]["settled"].is_null(), "{f}");
        assert!(settle_ms(&f, i) >= 250, "on fingerprints: {f}");
    }
    assert!(app.ledger().is_empty(), "{:?}", app.ledger());
    // A settle that is not one is refused before anything is sent.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mend"))
        .arg("run")
        .arg(dir.path().join("flow.toml"))
        .args(["--db", dir.path().join("db").to_str().unwrap()])
        .env("MEND_SETTLE", "dammage")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("INVALID_ARGUMENT") && err.contains("MEND_SETTLE='dammage'"),
        "{err}"
    );
}

#[test]
fn a_click_that_opens_the_next_screen_waits_for_its_paint() {
    let _d = Desktop::start().expect("desktop");
    let app = App::start("zh", &[], "login").expect("practice app");
    let crops = mend_testkit::repo_root().join("fixtures/flows/login_edit_save.crops");
    let dir = tempfile::tempdir().unwrap();
    let flow = format!(
        r#"
[[step]]
action = "type"
target = {{ text = "用户名", role = "field" }}
text = "admin"
[[step]]
action = "type"
target = {{ text = "密码", role = "field" }}
text = "${{secret:DESK_PASSWORD}}"
[[step]]
action = "click"
target = {{ text = "登录", role = "button", recorded = {{ x = 324, y = 280, w = 110, h = 34 }}, crop = "{}" }}
risk = "write"
check = [{{ exists = {{ text = "查询", role = "button" }} }}]
"#,
        crops.join("login.png").display()
    );
    let s = run(dir.path(), &flow, None);
    let login = &s["steps"][2];
    assert_eq!(login["strategy"], "exact", "{s}");
    let paint = &login["settled"]["painted"];
    let (first, last) = (
        paint["first_ms"].as_u64().expect("painted"),
        paint["last_ms"].as_u64().unwrap(),
    );
    // Settled a quiet period after the last paint, not before it.
    assert!(first <= last, "{s}");
    assert!(settle_ms(&s, 2) >= 40, "{s}");
    eprintln!(
        "exact click: {} ms (locate {}, act {}, settle {}; painted {first}–{last} ms after the input)",
        login["duration_ms"], login["locate_ms"], login["act_ms"], login["settle_ms"]
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let ops: Vec<String> = app
        .ledger()
        .iter()
        .map(|l| l["op"].as_str().unwrap_or("?").to_string())
        .collect();
    assert_eq!(ops, vec!["login"]);
}

#[test]
fn without_damage_on_the_server_the_run_settles_on_fingerprints_and_says_so() {
    let _d = Desktop::start_with(&["-extension", "DAMAGE"]).expect("desktop");
    let app = App::start("zh", &[], "login").expect("practice app");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("flow.toml");
    std::fs::write(
        &f,
        "version = 1\nname = \"settle\"\n[window]\ntitle = \"客户管理系统\"\n[[step]]\naction = \"click\"\ntarget = { text = \"用户登录\", role = \"text\" }\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mend"))
        .arg("run")
        .arg(&f)
        .arg("--json")
        .args(["--db", dir.path().join("db").to_str().unwrap()])
        .env_remove("MEND_SETTLE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("settling on window fingerprints"), "{err}");
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(s["steps"][0]["settled"].is_null(), "{s}");
    assert!(
        settle_ms(&s, 0) >= 250,
        "a quiet period on fingerprints: {s}"
    );
    assert!(app.ledger().is_empty());
}
