//! `mend teach` stops on the chord pressed inside the application (issue 14): no Ctrl+C in a
//! terminal is needed. The chord is seen on the same RECORD stream as every other key (the
//! application gets it too: nothing is intercepted), ends the recording with the flow written
//! and validated, and is never a step itself.

use mend_testkit::{App, Desktop};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn xdotool(args: &[&str]) {
    let st = Command::new("xdotool")
        .args(args)
        .status()
        .expect("xdotool");
    assert!(st.success(), "xdotool {args:?}");
}

#[test]
fn the_stop_chord_pressed_in_the_app_ends_teach_with_the_flow_written() {
    let _d = Desktop::start().expect("desktop");
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("chord.toml");
    let app = App::start("zh", &[], "login").expect("practice app");
    let mut teach = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["teach"])
        .arg(&flow)
        .args(["--window", "客户管理系统|Customer Desk"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("mend teach");
    let mut out = BufReader::new(teach.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("recording in"), "{line}");
    assert!(
        line.contains(mend_teach::STOP_CHORD),
        "the chord is told: {line}"
    );

    let g = app.geometry().expect("geometry");
    let user = g
        .controls
        .iter()
        .find(|c| c.role == "field" && c.label.contains("用户名"))
        .expect("the user field");
    let (x, y) = (user.x + user.w / 2, user.y + user.h / 2);
    xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(500));
    xdotool(&["type", "--delay", "60", "admin"]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["key", mend_teach::STOP_CHORD]);

    // No signal: the chord alone ends it, within a few seconds.
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = teach.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = teach.kill();
            panic!("mend teach did not stop on {}", mend_teach::STOP_CHORD);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let printed: String = out.lines().map(|l| l.unwrap() + "\n").collect();
    assert!(status.success(), "{status:?}\n{printed}");
    let src = std::fs::read_to_string(&flow).expect("the flow was written");
    let parsed = mend_model::parse_flow("chord.toml", &src, &[]).expect("it validates");
    assert_eq!(parsed.steps.len(), 1, "the chord is no step: {src}");
    assert_eq!(parsed.steps[0].text.as_deref(), Some("admin"), "{src}");
    assert!(!src.contains("End"), "{src}");
}
