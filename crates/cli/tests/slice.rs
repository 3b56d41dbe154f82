//! The first slice on real parts: a private Xvfb + openbox, the practice app, xcap capture,
//! Tesseract (chi_sim+eng), the locator, the guard, enigo input; judged by the app's ledger,
//! its true geometry and a perceptual hash of the window before and after.

use mend_capture::{Capture, WindowQuery, XcapCapture};
use mend_input::{Action, EnigoInput, Guard, Input, WindowRule};
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
    let geometry = app.geometry().expect("geometry");
    let (user, pass, login) = if lang == "zh" {
        ("用户名", "密码", "登录")
    } else {
        ("User name", "Password", "Login")
    };
    let query = WindowQuery::title(&app.title).unwrap();
    let guard = Guard::new(vec![WindowRule::title(&app.title).unwrap()]);
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
        if let Some(t) = text {
            input.perform(&Action::Type { text: t.into() }).unwrap();
        }
    }

    let ledger = app
        .wait_ledger(1, Duration::from_secs(10))
        .expect("a login in the ledger");
    assert_eq!(ledger.len(), 1, "exactly one side effect: {ledger:?}");
    assert_eq!(ledger[0]["op"], "login");
    assert_eq!(ledger[0]["fields"]["user"], "admin");
    assert!(!std::fs::read_to_string(&app.ledger)
        .unwrap()
        .contains("s3cret-pw"));
    app.wait_screen("main", Duration::from_secs(10))
        .expect("main screen");

    let after = mend_testkit::wait_for(Duration::from_secs(5), || {
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
