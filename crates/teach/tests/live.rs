//! The engine as the studio drives it (issue 14): steps are told while the person still works,
//! a step is told again when later input changes it, the `stop` flag (the studio's Stop) ends
//! the recording with the flow written, and a masked field's text is in no event and no file.

use mend_teach::{teach, Event, Options, Stopped};
use mend_testkit::{App, Desktop};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const PASSWORD: &str = "pw-l1ve-s3cret";

fn xdotool(args: &[&str]) {
    let st = Command::new("xdotool")
        .args(args)
        .status()
        .expect("xdotool");
    assert!(st.success(), "xdotool {args:?}");
}

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
    std::thread::sleep(Duration::from_millis(500));
}

/// The next step event, skipping notes; panics after `secs`.
fn next_step(rx: &mpsc::Receiver<Event>, all: &mut Vec<Event>, secs: u64) -> (usize, Event) {
    loop {
        let e = rx
            .recv_timeout(Duration::from_secs(secs))
            .expect("a step was told while recording");
        all.push(e.clone());
        if let Event::Step { index, .. } = &e {
            return (*index, e);
        }
    }
}

#[test]
fn steps_are_told_as_captured_and_stop_writes_the_flow() {
    let _d = Desktop::start().expect("desktop");
    let app = App::start("zh", &[], "login").expect("practice app");
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("live.toml");
    let opts = Options {
        flow: flow.clone(),
        window: "客户管理系统|Customer Desk".into(),
        lang: "chi_sim+eng".into(),
        name: Some("live".into()),
        skip_pid: Some(std::process::id()),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let worker = {
        let stop = stop.clone();
        std::thread::spawn(move || teach(&opts, &stop, &mut |e| tx.send(e).unwrap()))
    };
    let mut all = vec![];
    let started = rx.recv_timeout(Duration::from_secs(60)).expect("started");
    assert!(matches!(started, Event::Started { .. }), "{started:?}");
    all.push(started);

    // The click on the field is told at once, while recording goes on.
    click(&app, "field", "用户名");
    let (i, e) = next_step(&rx, &mut all, 30);
    assert_eq!(i, 0);
    let Event::Step { step, .. } = e else {
        unreachable!()
    };
    assert_eq!(step.target.unwrap().role.as_deref(), Some("field"));
    assert!(!worker.is_finished(), "still recording");

    // Typing then a click elsewhere: step 0 is told again as a `type`, step 1 is new.
    xdotool(&["type", "--delay", "60", "admin"]);
    click(&app, "field", "密码");
    let mut seen = vec![];
    while !(seen.iter().any(|(i, _)| *i == 1)
        && seen.iter().any(|(i, s): &(usize, mend_model::Step)| {
            *i == 0 && s.text.as_deref() == Some("admin")
        }))
    {
        if let (i, Event::Step { step, .. }) = next_step(&rx, &mut all, 30) {
            seen.push((i, *step));
        }
    }

    // The password, 登录, then Stop: the password is settled as a secret and the flow written.
    xdotool(&["type", "--delay", "60", PASSWORD]);
    click(&app, "button", "登录");
    assert!(
        app.wait_screen("main", Duration::from_secs(10)).is_some(),
        "the person logged in"
    );
    std::thread::sleep(Duration::from_millis(1500));
    stop.store(true, Ordering::SeqCst);
    let out = worker.join().unwrap().expect("recording ends cleanly");
    all.extend(rx.try_iter());
    assert_eq!(out.stopped, Stopped::Asked);
    // The events and crops, kept for the studio's mock backend (MEND_TEACH_KEEP=DIR:
    // ui/src/backend/recorded/teach.json, ui/public/mock/teach.crops/).
    if let Some(keep) = std::env::var_os("MEND_TEACH_KEEP") {
        let keep = std::path::PathBuf::from(keep);
        std::fs::create_dir_all(keep.join("teach.crops")).unwrap();
        std::fs::write(
            keep.join("teach.json"),
            serde_json::to_string_pretty(&all).unwrap(),
        )
        .unwrap();
        for e in std::fs::read_dir(dir.path().join("live.crops")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), keep.join("teach.crops").join(e.file_name())).unwrap();
        }
    }
    let written = out.flow.expect("a flow was written");
    assert_eq!(written.steps.len(), 3, "{written:?}");
    let login = written.steps[2].target.clone().unwrap();
    assert_eq!(login.text.as_deref(), Some("登录"));
    assert!(dir.path().join(login.crop.expect("a crop")).is_file());
    assert_eq!(written.steps[0].text.as_deref(), Some("admin"));
    let secret = written.steps[1].text.clone().unwrap();
    assert!(secret.starts_with("${secret:"), "{secret}");
    assert_eq!(out.secrets.len(), 1);
    // The last state told of each step is the step written.
    for (i, s) in written.steps.iter().enumerate() {
        let last = all
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::Step { index, step } if *index == i => Some(step.as_ref()),
                _ => None,
            })
            .expect("told");
        assert_eq!(last, s, "step {i}");
    }
    let told = serde_json::to_string(&all).unwrap();
    assert!(!told.contains(PASSWORD), "the password reached an event");
    let src = std::fs::read_to_string(&flow).unwrap();
    assert!(!src.contains(PASSWORD), "the password reached the flow");
    mend_model::parse_flow("live.toml", &src, &[]).expect("the flow validates");
}
