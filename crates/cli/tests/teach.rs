//! `mend teach` on real parts (issue 14): a person, played by `xdotool`, logs in to the
//! practice app while Mend watches the X server's input; the flow it writes validates, its
//! password step is a `${secret:…}` (the password appears nowhere Mend wrote), its button has a
//! crop, and run on a fresh app it logs in as the person did — judged by the app's ledger.

use mend_testkit::{App, Desktop};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const PASSWORD: &str = "pw-s3cret";

fn xdotool(args: &[&str]) {
    let st = Command::new("xdotool")
        .args(args)
        .status()
        .expect("xdotool");
    assert!(st.success(), "xdotool {args:?}");
}

/// Click the centre of the practice app's control `label` (screen pixels from its geometry).
fn click(app: &App, role: &str, label: &str) {
    let g = app.geometry().expect("geometry");
    let c = g
        .controls
        .iter()
        .find(|c| c.role == role && c.label.contains(label))
        .unwrap_or_else(|| panic!("no {role} '{label}' in {:?}", g.controls));
    let (x, y) = (c.x + c.w / 2, c.y + c.h / 2);
    xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(700));
}

/// `mend run FLOW --json` on a fresh database, with `env` set; its output.
fn replay(flow: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let db = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["run"])
        .arg(flow)
        .args(["--json", "--db"])
        .arg(db.path())
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn everything_under(dir: &Path, out: &mut Vec<u8>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            everything_under(&p, out);
        } else {
            out.extend(std::fs::read(&p).unwrap());
        }
    }
}

#[test]
fn a_login_shown_once_is_written_as_a_flow_that_logs_in_again() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("login.toml");
    let app = App::start("zh", &[], "login").expect("practice app");

    let mut teach = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["teach"])
        .arg(&flow)
        .args(["--window", "客户管理系统|Customer Desk"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mend teach");
    let mut out = BufReader::new(teach.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("recording in"), "{line}");

    // The person: the user name, the password, then 登录.
    click(&app, "field", "用户名");
    xdotool(&["type", "--delay", "60", "admin"]);
    click(&app, "field", "密码");
    xdotool(&["type", "--delay", "60", PASSWORD]);
    click(&app, "button", "登录");
    assert!(
        app.wait_screen("main", Duration::from_secs(10)).is_some(),
        "the person logged in"
    );
    std::thread::sleep(Duration::from_millis(1500));
    Command::new("kill")
        .args(["-INT", &teach.id().to_string()])
        .status()
        .unwrap();
    let st = teach.wait().unwrap();
    let mut printed = line.clone();
    for l in out.lines() {
        printed.push_str(&l.unwrap());
        printed.push('\n');
    }
    let mut err = String::new();
    std::io::Read::read_to_string(&mut teach.stderr.take().unwrap(), &mut err).unwrap();
    eprintln!("{printed}{err}");
    assert!(st.success(), "teach: {st:?}\n{printed}{err}");
    drop(app);

    // The flow: it validates, types admin, keeps the password a secret, clicks 登录 by its
    // caption with a crop, proposed as a write with a verify.
    let src = std::fs::read_to_string(&flow).unwrap();
    eprintln!("{src}");
    let v = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["validate"])
        .arg(&flow)
        .output()
        .unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    let parsed = mend_model::parse_flow("login.toml", &src, &[]).unwrap();
    assert_eq!(parsed.steps.len(), 3, "{src}");
    assert_eq!(parsed.steps[0].text.as_deref(), Some("admin"));
    assert!(parsed.steps[0].clear);
    let secret = parsed.steps[1].text.clone().unwrap();
    assert!(secret.starts_with("${secret:"), "{secret}");
    let name = secret
        .trim_start_matches("${secret:")
        .trim_end_matches('}')
        .to_string();
    let login = parsed.steps[2].target.clone().unwrap();
    assert_eq!(login.text.as_deref(), Some("登录"), "{src}");
    let crop = login.crop.expect("the button's crop");
    assert!(dir.path().join(&crop).is_file(), "{crop}");
    assert_eq!(parsed.steps[2].risk, mend_model::Risk::Write);
    assert!(parsed.steps[2].verify.is_some(), "{src}");
    assert!(printed.contains(&name), "the person is told to set {name}");
    // Nothing typed as a password is anywhere Mend wrote or printed.
    let mut all = printed.into_bytes();
    all.extend(err.into_bytes());
    everything_under(dir.path(), &mut all);
    assert!(
        !all.windows(PASSWORD.len())
            .any(|w| w == PASSWORD.as_bytes()),
        "the password leaked"
    );

    // Replayed on a fresh app with the secret set: logged in as admin, as the person did.
    let app = App::start("zh", &[], "login").expect("practice app");
    let run = replay(&flow, &[(&name, PASSWORD)]);
    let summary: Value = serde_json::from_slice(&run.stdout).unwrap_or_default();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{summary}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::thread::sleep(Duration::from_millis(500));
    let ledger = app.ledger();
    assert_eq!(ledger.len(), 1, "{ledger:?}");
    assert_eq!(ledger[0]["op"], "login");
    assert_eq!(ledger[0]["fields"]["user"], "admin");
    drop(app);

    // The same recorded flow on tweaked looks: it logs in as admin, or it stops with a code
    // having done nothing — never a wrong effect.
    for variants in [&["moved"][..], &["large_font"], &["dark_theme"]] {
        let app = App::start("zh", variants, "login").expect("practice app");
        let run = replay(&flow, &[(&name, PASSWORD)]);
        let summary: Value = serde_json::from_slice(&run.stdout).unwrap_or_default();
        std::thread::sleep(Duration::from_millis(500));
        let ledger = app.ledger();
        eprintln!(
            "{variants:?}: exit {:?} code {} ledger {ledger:?}",
            run.status.code(),
            summary["code"]
        );
        match run.status.code() {
            Some(0) => {
                assert_eq!(ledger.len(), 1, "{variants:?}: {ledger:?}");
                assert_eq!(ledger[0]["fields"]["user"], "admin", "{variants:?}");
            }
            Some(1) | Some(3) => {
                assert!(summary["code"].is_string(), "{variants:?}: {summary}");
                assert!(ledger.is_empty(), "{variants:?}: {ledger:?}");
            }
            other => panic!("{variants:?}: exit {other:?}: {summary}"),
        }
    }
}

/// A real app (xcalc, Athena): the person works 6 × 7 on the keypad. The `*` key's caption is
/// never read by OCR, so its target is its crop alone; replayed on a fresh calculator, the
/// display (read through the calculator's own copy command) says 42.
#[test]
fn calculator_keys_shown_once_replay_with_a_key_known_by_its_pixels() {
    use mend_capture::{Capture, WindowQuery, XcapCapture};
    use mend_testkit::real::{self, RealApp};
    let _d = Desktop::start().expect("desktop");
    let spec = real::load_app("xcalc").unwrap();
    let look = spec.look("default").unwrap();
    let task = spec.task("multiply").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("multiply.toml");
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(
            mend_testkit::repo_root().join("fixtures/real-apps/screens/xcalc/default.truth.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let case = tempfile::tempdir().unwrap();
    let app = RealApp::start(&spec, look, &task, case.path()).expect("xcalc");
    let frame = XcapCapture
        .capture(&WindowQuery::title("^Calculator$").unwrap())
        .unwrap();
    let key = |label: &str| {
        let t = truth["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["label"] == label)
            .unwrap_or_else(|| panic!("no key {label}"));
        let b = &t["box"];
        let n = |k: &str| b[k].as_i64().unwrap() as i32;
        let r = frame
            .info
            .to_screen(&mend_model::Rect::new(n("x"), n("y"), n("w"), n("h")));
        (r.x + r.w / 2, r.y + r.h / 2)
    };
    let mut teach = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["teach"])
        .arg(&flow)
        .args(["--window", "^Calculator$", "--lang", "eng"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("mend teach");
    let mut out = BufReader::new(teach.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("recording in"), "{line}");
    for k in ["6", "*", "7", "="] {
        let (x, y) = key(k);
        xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
        std::thread::sleep(Duration::from_millis(300));
        xdotool(&["click", "1"]);
        std::thread::sleep(Duration::from_millis(700));
    }
    std::thread::sleep(Duration::from_millis(1000));
    Command::new("kill")
        .args(["-INT", &teach.id().to_string()])
        .status()
        .unwrap();
    assert!(teach.wait().unwrap().success());
    let mut printed = line;
    for l in out.lines() {
        printed.push_str(&l.unwrap());
        printed.push('\n');
    }
    eprintln!("{printed}");
    drop(app);
    let src = std::fs::read_to_string(&flow).unwrap();
    if let Some(keep) = std::env::var_os("MEND_TEACH_KEEP") {
        let _ = Command::new("cp")
            .arg("-r")
            .arg(dir.path())
            .arg(keep)
            .status();
    }
    let parsed = mend_model::parse_flow("multiply.toml", &src, &[]).unwrap();
    assert_eq!(parsed.steps.len(), 4, "{src}");
    assert!(
        parsed.steps.iter().all(|s| s
            .target
            .as_ref()
            .is_some_and(|t| t.crop.is_some() && t.role.as_deref() == Some("button"))),
        "every key is a button with its crop: {src}"
    );
    let star = parsed.steps[1].target.clone().unwrap();
    assert!(
        star.text.is_none() || star.text.as_deref() == Some("*"),
        "the * key by its pixels (or its true caption): {src}"
    );

    let case = tempfile::tempdir().unwrap();
    let mut app = RealApp::start(&spec, look, &task, case.path()).expect("xcalc");
    let run = replay(&flow, &[]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(real::read_display(&mut app).as_deref(), Some("42"));
    drop(app);

    // The same taught flow on xcalc's tweaked looks: 42, or a coded refusal that pressed no
    // wrong key (the display shows a prefix of 6 * 7: nothing, 6 or 7).
    let mut completed = 0;
    for name in ["font", "colors", "geometry"] {
        let look = spec.look(name).unwrap();
        let case = tempfile::tempdir().unwrap();
        let mut app = RealApp::start(&spec, look, &task, case.path()).expect("xcalc");
        let run = replay(&flow, &[]);
        std::thread::sleep(Duration::from_millis(500));
        let shown = real::read_display(&mut app);
        drop(app);
        let said = format!(
            "{name}: {}
{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        match run.status.code() {
            Some(0) => {
                assert_eq!(shown.as_deref(), Some("42"), "{said}");
                completed += 1;
            }
            Some(1) | Some(3) => {
                let summary: Value = serde_json::from_slice(&run.stdout).unwrap_or_default();
                assert!(summary["code"].is_string(), "a refusal with a code: {said}");
                assert!(
                    matches!(shown.as_deref(), Some("0") | Some("6") | Some("7")),
                    "refused but the display shows {shown:?}: {said}"
                );
            }
            other => panic!("{name}: exit {other:?}: {said}"),
        }
    }
    eprintln!("taught on the default look, replayed on 3 tweaked looks: {completed} completed, the rest refused with no wrong key");
}

/// Where `mend locate` finds a control now (screen pixels, its centre): the person's eyes,
/// where the person would click `text`: asked of `mend locate` until it answers (a dialog
/// opened by the click before may still be on its way on a loaded machine), 20 s at most.
fn find(window: &str, text: &str, role: &str) -> (i32, i32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let v: Value = loop {
        let out = Command::new(env!("CARGO_BIN_EXE_mend"))
            .args(["locate", "--window", window, "--text", text, "--role", role])
            .args(["--lang", "eng", "--json"])
            .output()
            .unwrap();
        match serde_json::from_slice::<Value>(&out.stdout) {
            Ok(v) if out.status.success() => break v,
            _ if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(500))
            }
            _ => panic!("{text}: {}", String::from_utf8_lossy(&out.stderr)),
        }
    };
    let b = &v["screen_box"];
    let n = |k: &str| b[k].as_i64().unwrap() as i32;
    (n("x") + n("w") / 2, n("y") + n("h") / 2)
}

fn click_at((x, y): (i32, i32)) {
    xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(900));
}

/// What a person does to save a document under another name through a file dialog: the menu
/// and its item in the main window, the name field and the button in the dialog.
struct SaveAs<'a> {
    app: &'a str,
    /// The main window as `mend teach --window` and `mend locate` are told it.
    main: &'a str,
    /// The dialog as `mend locate` is told it, and as the taught flow must allow it (`^title$`).
    dialog: &'a str,
    file_menu: &'a str,
    item: &'a str,
    name: &'a str,
    save: &'a str,
    tweaks: &'a [&'a str],
}

/// A person saving under `target` through the app's dialog while `mend teach` writes `flow`
/// (xdotool clicking where `mend locate` sees each control): what teach printed.
fn show_save_as(s: &SaveAs, flow: &Path, target: &Path) -> String {
    let mut teach = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["teach"])
        .arg(flow)
        .args(["--window", s.main, "--lang", "eng"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("mend teach");
    let mut out = BufReader::new(teach.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("recording in"), "{line}");
    click_at(find(s.main, s.file_menu, "menu"));
    click_at(find(s.main, s.item, "menu"));
    std::thread::sleep(Duration::from_millis(800));
    click_at(find(s.dialog, s.name, "field"));
    xdotool(&["key", "ctrl+a"]);
    xdotool(&["type", "--delay", "40", &target.display().to_string()]);
    std::thread::sleep(Duration::from_millis(500));
    click_at(find(s.dialog, s.save, "button"));
    std::thread::sleep(Duration::from_millis(1500));
    Command::new("kill")
        .args(["-INT", &teach.id().to_string()])
        .status()
        .unwrap();
    assert!(teach.wait().unwrap().success());
    let mut printed = line;
    for l in out.lines() {
        printed.push_str(&l.unwrap());
        printed.push('\n');
    }
    printed
}

/// Teach a Save As on the app's default look (a person played by xdotool, clicking where
/// `mend locate` sees each control), then replay the taught flow on a fresh app: on the same
/// look it must save the file with the document's text; on the tweaked looks it saves it, or
/// stops with a code having saved nothing (never another file, never other text), and at
/// least one tweaked look must save it (issue 35 item 9: a taught flow passes its own dialog).
fn teach_save_as_then_replay(s: SaveAs) {
    use mend_testkit::real::{self, RealApp};
    let _d = Desktop::start().expect("desktop");
    let spec = real::load_app(s.app).unwrap();
    let look = spec.look("default").unwrap();
    let task = spec.task("save_as").unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let target = out_dir.path().join("copy.txt");
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("save_as.toml");
    let case = tempfile::tempdir().unwrap();
    let app = RealApp::start(&spec, look, &task, case.path()).expect(s.app);
    let printed = show_save_as(&s, &flow, &target);
    eprintln!("{printed}");
    drop(app);
    assert!(target.is_file(), "the person saved the file");
    std::fs::remove_file(&target).unwrap();
    let src = std::fs::read_to_string(&flow).unwrap();
    let parsed = mend_model::parse_flow("save_as.toml", &src, &[]).unwrap();
    assert!(parsed.window.allow.iter().any(|a| a == s.dialog), "{src}");
    assert!(
        parsed
            .steps
            .iter()
            .any(|s| s.text.as_deref() == Some(&target.display().to_string())),
        "{src}"
    );
    let text = task.files.values().next().expect("the document").trim_end();

    let case = tempfile::tempdir().unwrap();
    let app = RealApp::start(&spec, look, &task, case.path()).expect(s.app);
    let run = replay(&flow, &[]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{src}\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    std::thread::sleep(Duration::from_millis(700));
    drop(app);
    assert_eq!(std::fs::read_to_string(&target).unwrap().trim_end(), text);

    // The same taught flow on the app's tweaked looks.
    let mut completed = Vec::new();
    let mut said_all = String::new();
    for name in s.tweaks {
        std::fs::remove_file(&target).ok();
        let look = spec.look(name).unwrap();
        let case = tempfile::tempdir().unwrap();
        let app = RealApp::start(&spec, look, &task, case.path()).expect(s.app);
        let run = replay(&flow, &[]);
        std::thread::sleep(Duration::from_millis(700));
        drop(app);
        let said = format!(
            "{name}: {}\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        let others: Vec<_> = std::fs::read_dir(out_dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p != &target)
            .collect();
        assert!(others.is_empty(), "no other file saved: {others:?} {said}");
        match run.status.code() {
            Some(0) => {
                assert_eq!(
                    std::fs::read_to_string(&target).unwrap().trim_end(),
                    text,
                    "{said}"
                );
                completed.push(*name);
            }
            Some(1) | Some(3) => {
                let summary: Value = serde_json::from_slice(&run.stdout).unwrap_or_default();
                assert!(summary["code"].is_string(), "a refusal with a code: {said}");
                assert!(!target.exists(), "refused yet saved: {said}");
            }
            other => panic!("{name}: exit {other:?}: {said}"),
        }
        said_all.push_str(&said);
    }
    eprintln!(
        "{}: taught on the default look, replayed on {:?}: completed on {completed:?}, the rest refused with nothing saved",
        s.app, s.tweaks
    );
    assert!(
        !completed.is_empty(),
        "the taught flow completed on no tweaked look:\n{src}\n{said_all}"
    );
}

/// A second real app (mousepad, GTK 3): File → Save As…, a name typed into the GTK file
/// chooser (its own window), Save. The menu item is in a popup, the field in a dialog: the
/// flow names the dialog's window and allows it; replayed on a fresh mousepad, the file is
/// saved again — judged by the file on disk.
#[test]
fn a_gtk_save_as_shown_once_replays_through_the_menu_and_the_dialog() {
    teach_save_as_then_replay(SaveAs {
        app: "mousepad",
        main: ".* - Mousepad",
        dialog: "^Save As$",
        file_menu: "File",
        item: "Save As...",
        name: "Name:",
        save: "Save",
        tweaks: &["dpi150", "dark"],
    });
}

/// The same on Qt 5 (KWrite: KXmlGui menus with icons beside their items, KIO's file dialog
/// titled "Save File — KWrite", its Save button with an icon). Taught there, a flow once
/// stopped WINDOW_BLOCKED at its first dialog step, the dialog not in `allow`, and stored the
/// captions with their icons read as letters (`区Save As`, `Ld Save`).
#[test]
fn a_qt_save_as_shown_once_replays_through_the_menu_and_the_dialog() {
    teach_save_as_then_replay(SaveAs {
        app: "kwrite",
        main: "^draft\\.txt +— KWrite$",
        dialog: "^Save File — KWrite$",
        file_menu: "File",
        item: "Save As...",
        name: "Name:",
        save: "Save",
        tweaks: &["dark", "scale125"],
    });
}

/// Issue 33: where the window has an accessibility tree, `mend teach` writes each control's
/// place in it beside its caption (`tree = { path, of }`), taken from the tree as it was before
/// the press and only where the tree names the control as the pixels read it. A flow whose
/// captions then mean nothing on screen (here rewritten to words no vocabulary knows, as an
/// operator's own words would be) runs on the Chinese UI by those places — each confirmed by
/// the pixels reading the tree's Chinese name there — and saves the file; on the English UI the
/// same flow is refused with nothing saved (a caption in the flow's own script that the screen
/// does not show is never taken from the place alone).
#[test]
fn a_gtk_flow_taught_with_its_tree_runs_on_the_chinese_ui_by_the_places_it_recorded() {
    use mend_testkit::real::{self, RealApp};
    let _d = Desktop::start().expect("desktop");
    let session = mend_structure::start_a11y_session().expect("an AT-SPI session");
    real::join_tree_bus(session.bus_address());
    let spec = real::load_app("mousepad").unwrap();
    let task = spec.task("save_as").unwrap();
    let text = task.files.values().next().expect("the document").trim_end();
    let out_dir = tempfile::tempdir().unwrap();
    let target = out_dir.path().join("copy.txt");
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("save_as.toml");
    let shown = SaveAs {
        app: "mousepad",
        main: ".* - Mousepad",
        dialog: "^Save As$",
        file_menu: "File",
        item: "Save As...",
        name: "Name:",
        save: "Save",
        tweaks: &[],
    };

    let case = tempfile::tempdir().unwrap();
    let app =
        RealApp::start(&spec, spec.look("default").unwrap(), &task, case.path()).expect("mousepad");
    show_save_as(&shown, &flow, &target);
    drop(app);
    assert!(target.is_file(), "the person saved the file");
    std::fs::remove_file(&target).unwrap();
    let src = std::fs::read_to_string(&flow).unwrap();
    let parsed = mend_model::parse_flow("save_as.toml", &src, &[]).unwrap();
    let placed: Vec<(String, String)> = parsed
        .steps
        .iter()
        .filter_map(|s| s.target.as_ref())
        .filter_map(|t| Some((t.text.clone()?, t.tree.as_ref()?.path.clone())))
        .collect();
    eprintln!("{src}");
    let captioned = parsed
        .steps
        .iter()
        .filter(|s| s.target.as_ref().is_some_and(|t| t.text.is_some()))
        .count();
    assert_eq!(
        (captioned, placed.len()),
        (4, 4),
        "every caption has its place: {src}"
    );
    // The tree's roles where the pixels could not tell them (a menu bar's caption, a menu
    // item's highlighted row).
    let roles: Vec<Option<&str>> = parsed
        .steps
        .iter()
        .filter_map(|s| s.target.as_ref())
        .map(|t| t.role.as_deref())
        .collect();
    assert_eq!(
        roles,
        [Some("menu"), Some("menu"), Some("field"), Some("button")],
        "{src}"
    );

    // The operator's own words for the same controls: none is on either UI, none is in the
    // UI vocabulary.
    let mut renamed = src.clone();
    for ((from, _), to) in placed
        .iter()
        .zip(["Archive", "Keep a duplicate", "Called", "Store"])
    {
        renamed = renamed.replace(&format!("text = \"{from}\""), &format!("text = \"{to}\""));
    }
    std::fs::write(&flow, &renamed).unwrap();

    let run_on = |look: &str| {
        std::fs::remove_file(&target).ok();
        let case = tempfile::tempdir().unwrap();
        let app =
            RealApp::start(&spec, spec.look(look).unwrap(), &task, case.path()).expect("mousepad");
        let run = replay(&flow, &[]);
        std::thread::sleep(Duration::from_millis(700));
        drop(app);
        let said = format!(
            "{look}:\n{renamed}\n{}\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        let summary: Value = serde_json::from_slice(&run.stdout).unwrap_or_default();
        (run.status.code(), summary, said)
    };
    let (code, summary, said) = run_on("zh");
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap().trim_end(),
        text,
        "{said}"
    );
    for s in summary["steps"].as_array().unwrap() {
        eprintln!(
            "zh, by the places: {} {} {} locate {} ms",
            s["id"], s["action"], s["strategy"], s["locate_ms"]
        );
        if s["action"] != "key" {
            assert_eq!(s["strategy"], "structure", "{s}: {said}");
        }
    }

    let (code, summary, said) = run_on("default");
    assert_ne!(code, Some(0), "{said}");
    assert!(summary["code"].is_string(), "a refusal with a code: {said}");
    assert!(!target.exists(), "refused yet saved: {said}");
}
