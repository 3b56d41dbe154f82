//! `mend run` on real parts: a private Xvfb + openbox, the practice app with a variant,
//! Tesseract, enigo, sled on disk. Each sample flow runs on the tweaked variants in both
//! languages and is judged by the app's ledger (what really happened), not by Mend's word.
//! Negative variants must stop with the right code and no wrong effect.

use mend_testkit::{repo_root, App, Desktop};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

fn mend(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(args)
        .arg("--db")
        .arg(db)
        .env("DESK_PASSWORD", "pw-s3cret")
        .output()
        .expect("run mend")
}

fn flow(name: &str) -> String {
    repo_root()
        .join("fixtures/flows")
        .join(name)
        .display()
        .to_string()
}

struct Ran {
    code: i32,
    summary: Value,
    stderr: String,
    ledger: Vec<Value>,
    _app: App,
    db: tempfile::TempDir,
}

/// Start the app on `screen` with `variants`, run `flow` with `extra` args, wait for the
/// ledger to settle.
fn run(lang: &str, variants: &[&str], screen: &str, flow_file: &str, extra: &[&str]) -> Ran {
    let app = App::start(lang, variants, screen).expect("practice app");
    let db = tempfile::tempdir().unwrap();
    let f = flow(flow_file);
    let mut args = vec!["run", f.as_str(), "--json"];
    args.extend_from_slice(extra);
    let out = mend(db.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("--json summary ({e}): {stderr}"));
    std::thread::sleep(Duration::from_millis(500));
    Ran {
        code: out.status.code().unwrap(),
        summary,
        stderr: stderr.into_owned(),
        ledger: app.ledger(),
        _app: app,
        db,
    }
}

fn ops(ledger: &[Value]) -> Vec<String> {
    ledger
        .iter()
        .map(|l| l["op"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// login → search → edit → save: exactly one login and one save of C002's new phone.
fn edit_passes(lang: &str, variants: &[&str]) {
    let _d = Desktop::start().expect("desktop");
    let r = run(lang, variants, "login", "login_edit_save.toml", &[]);
    assert_eq!(r.code, 0, "{}", r.summary);
    assert_eq!(r.summary["status"], "passed");
    assert_eq!(ops(&r.ledger), vec!["login", "save"], "{:?}", r.ledger);
    assert_eq!(r.ledger[0]["fields"]["user"], "admin");
    assert_eq!(r.ledger[1]["record"], "C002");
    assert_eq!(r.ledger[1]["fields"]["phone"], "13900000002");
    // Every step says which rung found its control and how long it took.
    for s in r.summary["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "passed", "{s}");
        assert!(s["duration_ms"].as_u64().is_some());
        if s["action"] != "assert" {
            assert!(s["strategy"].is_string(), "{s}");
        }
    }
    // The password reached the app and nothing of Mend's.
    assert_nowhere_under(r.db.path(), b"pw-s3cret");
    // The practice app exposes no accessibility tree (and this desktop may have no bus): the
    // run says so, once for the desktop or once per window, never once per step.
    let notes: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("note:") && l.contains("accessibility"))
        .collect();
    assert!(
        !notes.is_empty(),
        "no word of the missing tree: {}",
        r.stderr
    );
    let mut distinct = notes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(notes.len(), distinct.len(), "said again: {notes:?}");
}

/// No file under `dir` (the database, run folders, audit, report, screenshots) holds `secret`.
fn assert_nowhere_under(dir: &Path, secret: &[u8]) {
    let mut files = vec![];
    collect(dir, &mut files);
    assert!(!files.is_empty(), "nothing under {}", dir.display());
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret),
            "{} holds the secret",
            f.display()
        );
    }
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            collect(&e.path(), out);
        } else {
            out.push(e.path());
        }
    }
}

#[test]
fn edit_zh_baseline() {
    edit_passes("zh", &[]);
}
#[test]
fn edit_zh_moved_dark_theme() {
    edit_passes("zh", &["moved", "dark_theme"]);
}
#[test]
fn edit_zh_relabeled() {
    edit_passes("zh", &["relabeled"]);
}
#[test]
fn edit_zh_large_font() {
    edit_passes("zh", &["large_font"]);
}
#[test]
fn edit_zh_owner_drawn() {
    edit_passes("zh", &["owner_drawn"]);
}
#[test]
fn edit_zh_popup_slow() {
    edit_passes("zh", &["popup", "slow"]);
}
#[test]
fn edit_en_baseline() {
    edit_passes("en", &[]);
}
#[test]
fn edit_en_relabeled_moved() {
    edit_passes("en", &["relabeled", "moved"]);
}

#[test]
fn edit_zh_removed_stops_without_a_wrong_effect() {
    let _d = Desktop::start().expect("desktop");
    let r = run("zh", &["removed"], "login", "login_edit_save.toml", &[]);
    assert_eq!(r.code, 3, "paused for a person: {}", r.summary);
    assert_eq!(r.summary["code"], "LOCATOR_NOT_FOUND");
    assert_eq!(ops(&r.ledger), vec!["login"]);
    let failed = r.summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["status"] == "failed")
        .expect("a failed step");
    assert_eq!(failed["id"], "search");
    assert!(
        Path::new(failed["screenshot"].as_str().expect("screenshot")).exists(),
        "the failure's screenshot is on disk"
    );
    // `mend report` tells the same story.
    let out = mend(r.db.path(), &["report", r.summary["run"].as_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("LOCATOR_NOT_FOUND") && md.contains("paused"),
        "{md}"
    );

    // The stored request, as a person sees it.
    let id = r.summary["takeover"]
        .as_str()
        .expect("a takeover id")
        .to_string();
    let out = mend(r.db.path(), &["takeover", "list", "--json"]);
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["code"], "LOCATOR_NOT_FOUND");
    assert_eq!(list[0]["step_id"], "search");
    assert!(Path::new(list[0]["screenshot"].as_str().unwrap()).exists());
    assert_eq!(
        list[0]["effects"].as_array().unwrap().len(),
        1,
        "the login so far"
    );

    // retry: the control is still gone, so the run pauses again with a new request.
    let out = mend(
        r.db.path(),
        &["takeover", "resolve", &id, "--retry", "--json"],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id2 = s["takeover"].as_str().unwrap().to_string();
    assert_ne!(id2, id);
    // skip: the run goes on without the search (and stops again where the record screen
    // never came); abort then ends it. Nothing beyond the login ever happened.
    let out = mend(
        r.db.path(),
        &["takeover", "resolve", &id2, "--skip", "--json"],
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["steps"][4]["status"], "skipped", "{s}");
    assert!(
        s["steps"].as_array().unwrap().len() > 5,
        "steps after the skipped one ran: {s}"
    );
    if out.status.code() == Some(3) {
        let id3 = s["takeover"].as_str().unwrap().to_string();
        let out = mend(
            r.db.path(),
            &["takeover", "resolve", &id3, "--abort", "--json"],
        );
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(s["status"], "aborted");
        let again = mend(r.db.path(), &["takeover", "resolve", &id3, "--abort"]);
        assert_eq!(again.status.code(), Some(2), "a request is resolved once");
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(ops(&r._app.ledger()), vec!["login"]);
}

/// Delete C003 after confirming: exactly one delete, of C003.
fn delete_passes(lang: &str, variants: &[&str]) {
    let _d = Desktop::start().expect("desktop");
    let r = run(lang, variants, "main", "delete_with_confirm.toml", &[]);
    assert_eq!(r.code, 0, "{}", r.summary);
    assert_eq!(ops(&r.ledger), vec!["delete"], "{:?}", r.ledger);
    assert_eq!(r.ledger[0]["record"], "C003");
}

#[test]
fn delete_zh_baseline() {
    delete_passes("zh", &[]);
}
#[test]
fn delete_zh_nested_dialog() {
    delete_passes("zh", &["nested_dialog"]);
}
#[test]
fn delete_zh_owner_drawn() {
    delete_passes("zh", &["owner_drawn"]);
}
#[test]
fn edit_en_moved_dark_theme_relabeled() {
    edit_passes("en", &["moved", "dark_theme", "relabeled"]);
}
#[test]
fn delete_en_reordered_columns_dark_theme() {
    delete_passes("en", &["reordered_columns", "dark_theme"]);
}

#[test]
fn delete_zh_decoy_never_deletes_all() {
    let _d = Desktop::start().expect("desktop");
    let r = run("zh", &["decoy"], "main", "delete_with_confirm.toml", &[]);
    assert_eq!(r.code, 3, "{}", r.summary);
    assert_eq!(r.summary["code"], "LOCATOR_NOT_FOUND");
    assert!(r.ledger.is_empty(), "no effect at all: {:?}", r.ledger);
}

/// One customer per CSV row: three creates, in order, with the row's values.
fn rows_pass(lang: &str, variants: &[&str]) {
    let _d = Desktop::start().expect("desktop");
    let csv = flow("customers.csv");
    let r = run(
        lang,
        variants,
        "main",
        "new_customers.toml",
        &["--data", &csv],
    );
    assert_eq!(r.code, 0, "{}", r.summary);
    assert_eq!(ops(&r.ledger), vec!["create"; 3], "{:?}", r.ledger);
    let names: Vec<&str> = r
        .ledger
        .iter()
        .map(|l| l["fields"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["周七", "吴八", "郑九"]);
    assert_eq!(r.ledger[1]["fields"]["balance"], "20.50");
    assert_eq!(r.summary["steps"].as_array().unwrap().len(), 15);
}

/// Characters outside the keymap (CJK) are bound to spare keycodes; each must arrive as itself.
/// With one spare keycode rebound per character, a press still queued in the app was read with
/// the next character's binding (吴八 arrived as 八八 under load). Two runs in a row, 40 distinct
/// characters each: more than Xvfb has spare keycodes, and the second run must find its own.
#[test]
fn long_chinese_names_arrive_character_for_character() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("name.toml");
    std::fs::write(
        &flow,
        r#"version = 1
name = "a new customer with a long name"
[window]
title = "客户管理系统"
[[step]]
action = "click"
target = { text = "新增", role = "button" }
verify = { exists = { text = "保存", role = "button" } }
[[step]]
action = "type"
target = { text = "姓名", role = "field" }
text = "${name}"
[[step]]
action = "click"
target = { text = "保存", role = "button" }
risk = "write"
verify = { not_exists = { text = "保存", role = "button" } }
"#,
    )
    .unwrap();
    let app = App::start("zh", &[], "main").expect("practice app");
    let db = tempfile::tempdir().unwrap();
    let names = [
        "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜戚谢邹喻柏水窦章",
        "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥天地玄黄宇宙洪荒日月盈昃宿列寒来暑往秋收冬藏",
    ];
    for (i, name) in names.iter().enumerate() {
        let var = format!("name={name}");
        let out = mend(db.path(), &["run", flow.to_str().unwrap(), "--var", &var]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ledger = app.wait_ledger(i + 1, Duration::from_secs(10)).unwrap();
        assert_eq!(ledger[i]["op"], "create");
        assert_eq!(ledger[i]["fields"]["name"], *name);
    }
}

#[test]
fn rows_zh_baseline() {
    rows_pass("zh", &[]);
}
#[test]
fn rows_en_moved() {
    rows_pass("en", &["moved"]);
}

#[test]
fn runs_lists_newest_first_and_bad_input_is_exit_2() {
    let db = tempfile::tempdir().unwrap();
    let out = mend(db.path(), &["runs", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        serde_json::json!([])
    );
    let bad = flow("invalid/unknown_action.toml");
    let out = mend(db.path(), &["run", &bad]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("FLOW_INVALID"));
    let out = mend(db.path(), &["resume", "r-nope"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A window that grabs the focus while Mend types receives nothing: the focus check and each
/// key are atomic (the X server is grabbed between them). The thief strikes shortly after
/// Mend's click lands in the field, i.e. while the text is being typed; the error says how many
/// characters reached the app before the stop.
#[test]
fn a_window_stealing_the_focus_mid_typing_receives_nothing() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    // Long enough that typing lasts while every thief strikes: in batches under one grab a
    // character takes ~9 µs, and 20 000 were all typed before the 0.2 s thief came.
    let text = "abcdefghij".repeat(8000);
    let flow_file = dir.path().join("type.toml");
    std::fs::write(
        &flow_file,
        format!(
            "version = 1\nname = \"type a lot\"\n[window]\ntitle = \"客户管理系统\"\n\n[[step]]\nid = \"user\"\naction = \"type\"\ntarget = {{ text = \"用户名\", role = \"field\" }}\ntext = \"{text}\"\ntimeout_ms = 60000\n"
        ),
    )
    .unwrap();
    let mut landed_mid_text = 0;
    for (k, delay) in ["0.05", "0.2", "0.02", "0.4"].iter().enumerate() {
        let app = App::start("zh", &[], "login").expect("practice app");
        let field = app
            .geometry()
            .unwrap()
            .controls
            .iter()
            .find(|c| c.role == "field" && c.label.starts_with("用户名"))
            .expect("the user field")
            .rect();
        // The pointer away from the field, so the thief waits for Mend's click.
        Command::new("xdotool")
            .args(["mousemove", "5", "5"])
            .status()
            .expect("xdotool");
        let log = dir.path().join(format!("thief-{k}.log"));
        std::fs::write(&log, "").unwrap();
        let mut thief = Command::new(repo_root().join("fixtures/legacy-app/focus-thief"))
            .arg(&log)
            .arg(delay)
            .args([field.x, field.y, field.w, field.h].map(|v| v.to_string()))
            .spawn()
            .expect("start the focus thief");
        std::thread::sleep(Duration::from_millis(500));
        let db = dir.path().join(format!("db-{k}"));
        let out = mend(&db, &["run", flow_file.to_str().unwrap(), "--json"]);
        std::thread::sleep(Duration::from_millis(500));
        let _ = thief.kill();
        let _ = thief.wait();
        let got = std::fs::read_to_string(&log).unwrap();
        assert!(
            got.is_empty(),
            "the decoy received {} characters",
            got.len()
        );
        let s: Value = serde_json::from_slice(&out.stdout).expect("summary");
        // Typed it all before the thief struck: passed, or — the thief's window then covering
        // the field — FIELD_NOT_FILLED, which is checked only once every key went out (into
        // the field: the decoy got nothing, above). Typing in batches is fast enough for the
        // latest thief to come after the last key.
        if s["status"] == "passed" || s["code"] == "FIELD_NOT_FILLED" {
            continue;
        }
        assert_eq!(s["code"], "WINDOW_BLOCKED", "{s}");
        let msg = s["message"].as_str().unwrap();
        let n: usize = msg
            .strip_prefix("typing stopped after ")
            .and_then(|m| m.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        eprintln!(
            "thief after {delay} s: stopped after {n} of {} characters",
            text.len()
        );
        if n > 0 && n < text.len() {
            landed_mid_text += 1;
        }
    }
    assert!(
        landed_mid_text >= 2,
        "the thief struck mid-text only {landed_mid_text} times"
    );
}

/// Screen pixels of a control of the practice app → pixels of its window's frame.
fn frame_point(app: &App, label: &str) -> (i32, i32) {
    let g = app.geometry().expect("geometry");
    let c = g.control(label).expect("control");
    let r = c.rect();
    let w = &g.window;
    (r.x + r.w / 2 - w.x, r.y + r.h / 2 - w.y)
}

/// A flow whose target text matches nothing: the person picks the right button on the
/// screenshot, Mend clicks it (guarded), the proposed change is accepted, and the next run
/// passes without help.
#[test]
fn a_pick_becomes_an_accepted_flow_change() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("search.toml");
    std::fs::write(
        &f,
        r#"version = 1
name = "search with a wrong label"

[window]
title = "客户管理系统"

[[step]]
id = "customer"
action = "type"
target = { text = "客户编号", role = "field" }
text = "C002"

[[step]]
id = "search"
action = "click"
# Nobody calls it this: only a person can tell which button is meant.
target = { text = "开始检索", role = "button" }
timeout_ms = 2000

[[step]]
id = "edit"
action = "click"
target = { text = "编辑", role = "button" }

[[step]]
id = "opened"
action = "assert"
check = [{ exists = { text = "保存", role = "button" } }]
"#,
    )
    .unwrap();
    let db = dir.path().join("db");
    let fs = f.to_str().unwrap();
    {
        let app = App::start("zh", &[], "main").expect("app");
        let out = mend(&db, &["run", fs, "--json"]);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        let id = s["takeover"].as_str().unwrap().to_string();
        let (x, y) = frame_point(&app, "查询");
        let at = format!("{x},{y}");
        let out = mend(&db, &["takeover", "resolve", &id, "--pick", &at, "--json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(s["steps"][1]["strategy"], "picked");
        assert_eq!(s["status"], "passed");
    }
    let out = mend(&db, &["changes", "list", "--json"]);
    let changes: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(changes.as_array().unwrap().len(), 1, "{changes}");
    let cid = changes[0]["id"].as_str().unwrap().to_string();
    let diff = String::from_utf8_lossy(&mend(&db, &["changes", "show", &cid]).stdout).into_owned();
    assert!(diff.contains("-target = { text = \"开始检索\""), "{diff}");
    assert!(diff.contains("+target = { text = \"查询\""), "{diff}");
    assert_eq!(
        mend(&db, &["changes", "accept", &cid]).status.code(),
        Some(0)
    );
    let src = std::fs::read_to_string(&f).unwrap();
    assert!(
        src.contains("# Nobody calls it this"),
        "comments are kept: {src}"
    );
    assert!(src.contains("crop = \"search.crops/search.png\""), "{src}");
    // The next run, on a fresh app, needs no one.
    let _app = App::start("zh", &[], "main").expect("app");
    let out = mend(&db, &["run", fs, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["steps"][1]["strategy"], "exact", "{s}");
}

/// Abort runs the completed steps' compensations in reverse, once each: the customer the run
/// created is deleted again, and aborting twice changes nothing.
#[test]
fn abort_undoes_a_created_customer_once() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("undo.toml");
    std::fs::write(
        &f,
        r#"version = 1
name = "create, then fail"

[window]
title = "客户管理系统"
allow = ["确认"]

[[step]]
id = "new"
action = "click"
target = { text = "新增", role = "button" }

[[step]]
id = "name"
action = "type"
target = { text = "姓名", role = "field" }
text = "钱十"

[[step]]
id = "save"
action = "click"
target = { text = "保存", role = "button" }
risk = "write"
compensation = [
  { action = "type", target = { text = "客户编号", role = "field" }, text = "C005", clear = true },
  { action = "click", target = { text = "查询", role = "button" } },
  { action = "click", target = { text = "删除", role = "button" } },
  { action = "click", target = { text = "确定", role = "button", window = "确认" } },
]

[[step]]
id = "missing"
action = "click"
target = { text = "不存在的按钮", role = "button" }
timeout_ms = 1500
"#,
    )
    .unwrap();
    let db = dir.path().join("db");
    let app = App::start("zh", &[], "main").expect("app");
    let out = mend(&db, &["run", f.to_str().unwrap(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = s["takeover"].as_str().unwrap().to_string();
    let out = mend(&db, &["takeover", "show", &id, "--json"]);
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["effects"].as_array().unwrap().len(), 1, "the save: {t}");
    let out = mend(&db, &["takeover", "resolve", &id, "--abort", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = app
        .wait_ledger(2, Duration::from_secs(15))
        .expect("the undo");
    assert_eq!(ops(&l), vec!["create", "delete"], "{l:?}");
    assert_eq!(l[0]["record"], "C005");
    assert_eq!(l[1]["record"], "C005");
    let again = mend(&db, &["takeover", "resolve", &id, "--abort"]);
    assert_eq!(again.status.code(), Some(2));
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(app.ledger().len(), 2, "nothing undone twice");
}

/// A private session bus with GNOME Keyring on it; both stop when this is dropped.
struct Keyring {
    bus: String,
    pid: u32,
    data: tempfile::TempDir,
}

impl Keyring {
    fn start() -> Keyring {
        let out = Command::new("dbus-daemon")
            .args(["--session", "--fork", "--print-address=1", "--print-pid=1"])
            .output()
            .expect("dbus-daemon (Debian dbus)");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let mut lines = text.lines();
        let bus = lines.next().expect("bus address").trim().to_string();
        let pid = lines.next().expect("bus pid").trim().parse().unwrap();
        let data = tempfile::tempdir().unwrap();
        let k = Keyring { bus, pid, data };
        let mut unlock = k
            .command("gnome-keyring-daemon")
            .arg("--unlock")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("gnome-keyring-daemon (Debian gnome-keyring)");
        use std::io::Write;
        unlock
            .stdin
            .take()
            .unwrap()
            .write_all(b"mend-test")
            .unwrap();
        assert!(unlock.wait().unwrap().success());
        k
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("DBUS_SESSION_BUS_ADDRESS", &self.bus)
            .env("XDG_DATA_HOME", self.data.path())
            .env("XDG_CACHE_HOME", self.data.path())
            .env_remove("MEND_TEST_PHONE");
        c
    }
}

impl Drop for Keyring {
    fn drop(&mut self) {
        let _ = Command::new("pkill")
            .args(["-f", &format!("gnome-keyring-daemon.*{}", "unlock")])
            .status();
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
}

#[test]
fn a_secret_from_the_os_keyring_is_typed_and_never_stored() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("secret.toml");
    std::fs::write(
        &f,
        r#"version = 1
name = "a phone number kept in the keyring"

[window]
title = "客户管理系统"

[[step]]
id = "new"
action = "click"
target = { text = "新增", role = "button" }

[[step]]
id = "name"
action = "type"
target = { text = "姓名", role = "field" }
text = "钱十"

[[step]]
id = "phone"
action = "type"
target = { text = "电话", role = "field" }
text = "${secret:MEND_TEST_PHONE}"

[[step]]
id = "save"
action = "click"
target = { text = "保存", role = "button" }
risk = "write"
"#,
    )
    .unwrap();
    let db = dir.path().join("db");
    let mend_bin = env!("CARGO_BIN_EXE_mend");

    // Neither the environment nor a keyring has it: refused before any input, saying how.
    let app = App::start("zh", &[], "main").expect("app");
    let out = Command::new(mend_bin)
        .args(["run", f.to_str().unwrap(), "--db"])
        .arg(&db)
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("MEND_TEST_PHONE")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("mend secret set MEND_TEST_PHONE"),
        "{stderr}"
    );
    assert!(
        app.ledger().is_empty(),
        "nothing was done: {:?}",
        app.ledger()
    );
    drop(app);

    // Stored in GNOME Keyring through `mend secret set`, typed at the step.
    let k = Keyring::start();
    let mut set = k
        .command(mend_bin)
        .args(["secret", "set", "MEND_TEST_PHONE"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        set.stdin
            .take()
            .unwrap()
            .write_all(b"13811112222\n")
            .unwrap();
    }
    assert!(set.wait().unwrap().success());
    let app = App::start("zh", &[], "main").expect("app");
    let out = k
        .command(mend_bin)
        .args(["run", f.to_str().unwrap(), "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::thread::sleep(Duration::from_millis(500));
    let ledger = app.ledger();
    assert_eq!(ops(&ledger), vec!["create"], "{ledger:?}");
    assert_eq!(ledger[0]["fields"]["phone"], "13811112222");
    // Nowhere in Mend's database or run folders.
    assert_nowhere_under(&db, b"13811112222");
    // Deleted again: the next run has nothing to type and says so.
    let out = k
        .command(mend_bin)
        .args(["secret", "delete", "MEND_TEST_PHONE"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("deleted"));
}

/// `--attended`: the person at the terminal answers the takeover; a nonsense answer is asked
/// again, `skip` lets the run finish.
#[test]
fn an_attended_run_asks_the_terminal_and_goes_on() {
    let _d = Desktop::start().expect("desktop");
    let app = App::start("zh", &["removed"], "login").expect("app");
    let db = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["run", &flow("login_search.toml"), "--attended", "--db"])
        .arg(db.path())
        .env("DESK_PASSWORD", "pw")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"click it please\nskip\n")
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("LOCATOR_NOT_FOUND"), "{stderr}");
    assert_eq!(
        stderr.matches("your decision").count(),
        2,
        "asked again after the nonsense: {stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(ops(&app.ledger()), vec!["login"]);
}

/// Issue 14, targets known only by their pixels: the 登录 button's crop, cut from a capture of
/// the app at its true box, is the whole target (no text, no near) and `mend run` logs in. The
/// user-name and password fields are two empty boxes alike: a target that is a crop of one of
/// them is refused as `LOCATOR_AMBIGUOUS`, and nothing is typed or pressed.
#[test]
fn a_button_known_only_by_its_pixels_is_clicked_and_look_alike_fields_are_refused() {
    use mend_capture::{Capture, WindowQuery, XcapCapture};
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let write_flow = |name: &str, steps: &str| {
        let p = dir.path().join(name);
        std::fs::write(
            &p,
            format!(
                "version = 1\nname = \"by pixels\"\n[window]\ntitle = \"客户管理系统|Customer Desk\"\n{steps}"
            ),
        )
        .unwrap();
        p.display().to_string()
    };
    let crop_of = |app: &App, role: &str, label: &str, file: &str| {
        let g = app.geometry().expect("geometry");
        let c = g
            .controls
            .iter()
            .find(|c| c.role == role && c.label.contains(label))
            .unwrap_or_else(|| panic!("no {role} {label} in {:?}", g.controls));
        let frame = XcapCapture
            .capture(&WindowQuery::title("客户管理系统|Customer Desk").unwrap())
            .expect("capture");
        let r = frame.info.from_screen(&c.rect());
        mend_vision::crop(&frame.image, r)
            .expect("crop")
            .save(dir.path().join(file))
            .unwrap();
    };

    let app = App::start("zh", &[], "login").expect("practice app");
    crop_of(&app, "button", "登录", "login.png");
    let f = write_flow(
        "login.toml",
        r#"
[[step]]
action = "type"
target = { text = "用户名", role = "field" }
text = "admin"
[[step]]
action = "type"
target = { text = "密码", role = "field" }
text = "${secret:DESK_PASSWORD}"
[[step]]
id = "login"
action = "click"
target = { crop = "login.png", role = "button" }
risk = "write"
verify = { exists = { text = "查询", role = "button" } }
"#,
    );
    let db = tempfile::tempdir().unwrap();
    let out = mend(db.path(), &["run", &f, "--json"]);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{summary}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(summary["steps"][2]["strategy"], "exact", "{summary}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(ops(&app.ledger()), vec!["login"]);
    drop(app);

    let app = App::start("zh", &[], "login").expect("practice app");
    // The password field: no caret blinks in it (the user name field has the focus, and a
    // caret caught in its crop would tell it apart). Empty, its inside is blank.
    crop_of(&app, "field", "密码", "field.png");
    let f = write_flow(
        "field.toml",
        r#"
[[step]]
action = "type"
target = { crop = "field.png", role = "field" }
text = "admin"
[[step]]
action = "click"
target = { text = "登录", role = "button" }
"#,
    );
    let db = tempfile::tempdir().unwrap();
    let out = mend(db.path(), &["run", &f, "--json"]);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(out.status.code(), Some(3), "{summary}");
    assert_eq!(summary["code"], "LOCATOR_AMBIGUOUS", "{summary}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(app.ledger().is_empty(), "{:?}", app.ledger());
}

/// `mend record` keeps a field's pixels with its caption's beside it (an empty field alone
/// looks like any other): the next run types into the fields by the exact rung, and into the
/// right ones — judged by the app's ledger.
#[test]
fn a_recorded_field_keeps_its_caption_and_is_typed_into_by_its_pixels() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("login.toml");
    std::fs::write(
        &f,
        r#"version = 1
name = "log in"

[window]
title = "客户管理系统|Customer Desk"

[[step]]
id = "user"
action = "type"
target = { text = "用户名", role = "field" }
text = "admin"

[[step]]
id = "password"
action = "type"
target = { text = "密码", role = "field" }
text = "${secret:DESK_PASSWORD}"

[[step]]
id = "login"
action = "click"
target = { text = "登录", role = "button" }
verify = { exists = { text = "查询", role = "button" } }
"#,
    )
    .unwrap();
    let fs = f.to_str().unwrap();
    {
        let _app = App::start("zh", &[], "login").expect("app");
        let out = mend(&dir.path().join("db1"), &["record", fs]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let src = std::fs::read_to_string(&f).unwrap();
    let flow: toml::Value = toml::from_str(&src).unwrap();
    for (i, id) in ["user", "password"].iter().enumerate() {
        let t = &flow["step"][i]["target"];
        let crop = t["crop"]
            .as_str()
            .unwrap_or_else(|| panic!("{id}: no crop: {src}"));
        let img = image::open(dir.path().join(crop)).unwrap();
        let (w, h) = (
            t["recorded"]["w"].as_integer().unwrap() as u32,
            t["recorded"]["h"].as_integer().unwrap() as u32,
        );
        assert_eq!(img.height(), h, "{id}: the crop spans the field's rows");
        assert!(
            img.width() > w + 20,
            "{id}: the crop ({}) holds no caption beside the field ({w})",
            img.width()
        );
    }
    let app = App::start("zh", &[], "login").expect("app");
    let out = mend(&dir.path().join("db2"), &["run", fs, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["steps"][0]["strategy"], "exact", "{s}");
    assert_eq!(s["steps"][1]["strategy"], "exact", "{s}");
    std::thread::sleep(Duration::from_millis(500));
    let ledger = app.ledger();
    assert_eq!(ops(&ledger), vec!["login"], "{ledger:?}");
    assert_eq!(ledger[0]["fields"]["user"], "admin");
}
