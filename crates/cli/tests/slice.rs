//! The first slice on real parts: a private Xvfb + openbox, the practice app, xcap capture,
//! Tesseract (chi_sim+eng), the locator, the guard, enigo input; judged by the app's ledger,
//! its true geometry and a perceptual hash of the window before and after.

use mend_capture::{Capture, WindowQuery, XcapCapture};
use mend_input::{Action, EnigoInput, Guard, Input};
use mend_locate::{Locator, Recorded};
use mend_model::{Role, Target};
use mend_testkit::{App, Desktop};
use mend_vision::Fingerprinter;
use std::time::Duration;

fn target(text: &str, role: Role) -> Target {
    Target {
        text: Some(text.into()),
        role,
        ..Target::default()
    }
}

fn login_slice(lang: &str, variants: &[&str]) {
    let _desktop = Desktop::start().expect("desktop");
    let app = App::start(lang, variants, "login").expect("practice app");
    log_in(&app, lang);
}

/// Type the user and password into their fields and press 登录/Login, each located on a fresh
/// frame and guarded; then judge by the ledger, the app's screen and the window's fingerprint.
fn log_in(app: &App, lang: &str) {
    let geometry = app.geometry().expect("geometry");
    let (user, pass, login) = if lang == "zh" {
        ("用户名", "密码", "登录")
    } else {
        ("User name", "Password", "Login")
    };
    let query = WindowQuery::title(&app.title).unwrap();
    let guard = Guard::new(vec![WindowQuery::title(&app.title).unwrap()]);
    let capture = XcapCapture;
    let mut locator = Locator::new("chi_sim+eng").expect("tesseract");
    let mut input = EnigoInput::new().expect("enigo");
    let fp = Fingerprinter::new();

    let before = capture.capture(&query).expect("capture");
    let steps = [
        (user, Role::Field, Some("admin")),
        (pass, Role::Field, Some("s3cret-pw")),
        (login, Role::Button, None),
    ];
    for (label, role, text) in steps {
        let frame = capture.capture(&query).expect("capture");
        let located = locator
            .locate(&frame, &target(label, role), &Recorded::default())
            .unwrap_or_else(|r| panic!("{label}: {}", r.error));
        // Scored against the app's own geometry (screen pixels).
        let truth = geometry
            .controls
            .iter()
            .find(|c| {
                c.role
                    == if role == Role::Field {
                        "field"
                    } else {
                        "button"
                    }
                    && c.rect().iou(&located.screen_box) >= 0.5
            })
            .unwrap_or_else(|| {
                panic!(
                    "{label}: located {:?} is not a true {role:?}",
                    located.screen_box
                )
            });
        assert!(
            truth
                .label
                .contains(label.split_whitespace().next().unwrap())
                || lang == "en"
                || truth.label.starts_with(label)
        );
        guard
            .check(
                capture.foreground().unwrap().as_ref(),
                frame.info.window.as_ref().unwrap(),
            )
            .expect("guard");
        input
            .perform(&Action::click(located.screen_box.center()))
            .unwrap();
        // The app moves its focus when it handles the click (the runner waits for the caret).
        std::thread::sleep(Duration::from_millis(150));
        if let Some(t) = text {
            input.perform(&Action::Type { text: t.into() }).unwrap();
        }
    }

    let ledger = app
        .wait_ledger(1, Duration::from_secs(30))
        .expect("a login in the ledger");
    assert_eq!(ledger.len(), 1, "exactly one side effect: {ledger:?}");
    assert_eq!(ledger[0]["op"], "login");
    assert_eq!(ledger[0]["fields"]["user"], "admin");
    assert!(!std::fs::read_to_string(&app.ledger)
        .unwrap()
        .contains("s3cret-pw"));
    app.wait_screen("main", Duration::from_secs(30))
        .expect("main screen");

    let after = mend_testkit::wait_for(Duration::from_secs(20), || {
        let f = capture.capture(&query).ok()?;
        (fp.hash(&f.image).distance(&fp.hash(&before.image)) > 6).then_some(f)
    });
    assert!(
        after.is_some(),
        "the window's fingerprint shows the screen changed"
    );
}

#[test]
fn login_zh_baseline() {
    login_slice("zh", &[]);
}

#[test]
fn login_en_baseline() {
    login_slice("en", &[]);
}

#[test]
fn login_zh_moved() {
    login_slice("zh", &["moved"]);
}

#[test]
fn login_en_relabeled() {
    login_slice("en", &["relabeled"]);
}

#[test]
fn login_zh_relabeled() {
    login_slice("zh", &["relabeled"]);
}

#[test]
fn login_zh_dark_theme() {
    login_slice("zh", &["dark_theme"]);
}

#[test]
fn login_zh_large_font() {
    login_slice("zh", &["large_font"]);
}

#[test]
fn login_zh_owner_drawn() {
    login_slice("zh", &["owner_drawn"]);
}

#[test]
fn login_zh_large_font_150() {
    login_slice("zh", &["large_font_150"]);
}

#[test]
fn login_en_slow() {
    login_slice("en", &["slow"]);
}

#[test]
fn login_zh_moved_dark_relabeled() {
    login_slice("zh", &["moved", "dark_theme", "relabeled"]);
}

/// An unexpected modal (会话即将过期) in front: the guard refuses input to the main window and
/// nothing is typed; once the modal is handled (its 确定 located and clicked in its own window),
/// the login goes through.
#[test]
fn popup_in_front_blocks_input_until_handled() {
    let _desktop = Desktop::start().expect("desktop");
    // Seed 1: the popup follows the first screen, 200 ms after start.
    let app = App::start("zh", &["popup"], "login").expect("practice app");
    let capture = XcapCapture;
    let popup_q = WindowQuery::title("提示").unwrap();
    mend_testkit::wait_for(Duration::from_secs(30), || {
        capture.find_window(&popup_q).ok()
    })
    .expect("the popup appears");
    let main_q = WindowQuery::title(&app.title).unwrap();
    let mut locator = Locator::new("chi_sim+eng").unwrap();
    let frame = capture.capture(&main_q).unwrap();
    // The modal covers the login form: the field either cannot be seen (a refusal) or, if it
    // can, the guard refuses — either way nothing is typed.
    if let Err(r) = locator.locate(&frame, &target("用户名", Role::Field), &Recorded::default())
    {
        assert!(matches!(
            r.error.code,
            mend_model::ErrorCode::LocatorNotFound | mend_model::ErrorCode::LocatorAmbiguous
        ));
    }
    let guard = Guard::new(vec![WindowQuery::title(&app.title).unwrap()]);
    let refused = guard
        .check(
            capture.foreground().unwrap().as_ref(),
            frame.info.window.as_ref().unwrap(),
        )
        .unwrap_err();
    assert_eq!(refused.code, mend_model::ErrorCode::WindowBlocked);
    assert!(app.ledger().is_empty());

    // The interrupt handler's job, by hand: 确定 in the popup's own window.
    let pf = capture.capture(&popup_q).unwrap();
    let ok = locator
        .locate(&pf, &target("确定", Role::Button), &Recorded::default())
        .expect("确定 on the popup");
    let popup_guard = Guard::new(vec![WindowQuery::title("提示").unwrap()]);
    popup_guard
        .check(
            capture.foreground().unwrap().as_ref(),
            pf.info.window.as_ref().unwrap(),
        )
        .expect("the popup is in front");
    EnigoInput::new()
        .unwrap()
        .perform(&Action::click(ok.screen_box.center()))
        .unwrap();
    mend_testkit::wait_for(Duration::from_secs(20), || {
        capture.find_window(&popup_q).is_err().then_some(())
    })
    .expect("the popup closes");
    mend_testkit::wait_for(Duration::from_secs(20), || {
        capture
            .foreground()
            .ok()
            .flatten()
            .filter(|w| w.title == app.title)
    })
    .expect("focus returns to the main window");
    log_in(&app, "zh");
}
