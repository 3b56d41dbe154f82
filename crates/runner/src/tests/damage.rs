//! Settling on damage events: the runner on the fake desktop with a scripted damage stream on
//! the same fake clock. Every branch: painted then quiet, nothing painted (the checks decide),
//! painting that never stops, no stream, and a stream that breaks.

use super::*;
use crate::settle::{ScriptedDamage, Settled};

/// Like `go`, with `damage` as the runner's damage stream; also how the last step settled.
fn go_damaged(
    b: &Bench,
    lf: &LoadedFlow,
    damage: &mut ScriptedDamage<FakeClock>,
    opts: impl FnOnce(&mut Options),
) -> (Summary, Option<Settled>) {
    let clock = b.world.borrow().clock.clone();
    let desk = Desk(b.world.clone());
    let mut kb = Keyboard(b.world.clone());
    let mut seer = Seer(b.world.clone());
    let mut on = |_: &Progress| {};
    let mut o = Options::new(b.dir.path().join("runs"));
    opts(&mut o);
    let mut runner = Runner::new(
        &desk, &mut kb, &mut seer, &clock, &b.store, &secrets, &mut on, o,
    );
    runner.damage = Some(damage);
    let s = runner
        .start(lf, BTreeMap::new(), vec![], "chi_sim+eng")
        .unwrap();
    (s, runner.last_settle)
}

fn stream(b: &Bench, per_watch: &[u64]) -> ScriptedDamage<FakeClock> {
    let mut d = ScriptedDamage::new(b.world.borrow().clock.clone(), vec![]);
    d.per_watch = per_watch.to_vec();
    d
}

const CLICK_LOGIN: &str = r#"
[[step]]
action = "click"
target = { text = "登录", role = "button" }
check = [{ exists = { text = "查询", role = "button" } }]
"#;

#[test]
fn a_step_that_paints_settles_a_quiet_period_after_its_last_paint() {
    let b = bench("login");
    let mut d = stream(&b, &[4, 20]);
    let (s, settled) = go_damaged(&b, &flow(&b, CLICK_LOGIN), &mut d, |_| {});
    assert_eq!(s.code, None, "{s:?}");
    assert_eq!(b.world.borrow().effects, vec!["login".to_string()]);
    assert_eq!(
        settled,
        Some(Settled::Painted {
            first_ms: 5,
            last_ms: 20
        })
    );
    // The last paint at 20 ms and 40 ms of quiet: not the fingerprints' 250 ms.
    assert_eq!(s.steps[0].settle_ms, 60, "{:?}", s.steps[0]);
    assert_eq!(
        s.steps[0].settled, settled,
        "the summary says how it settled"
    );
    assert_eq!(
        d.watched,
        vec![vec![MAIN]],
        "the window acted on is watched"
    );
}

#[test]
fn a_step_that_changes_nothing_finishes_after_the_grace_and_its_checks_decide() {
    let b = bench("main");
    b.world.borrow_mut().deaf = 1;
    let body = r#"
[[step]]
action = "click"
target = { text = "查询", role = "button" }
[[step]]
action = "click"
target = { text = "查询", role = "button" }
check = [{ exists = { text = "结果" } }]
timeout_ms = 500
"#;
    let mut d = stream(&b, &[]);
    let (s, settled) = go_damaged(&b, &flow(&b, body), &mut d, |o| o.max_retries = 0);
    // The first click was swallowed: nothing painted, the step (no checks) passes after the
    // grace alone (counted from the input), with no quiet period after it.
    assert_eq!(s.steps[0].code, None, "{s:?}");
    assert_eq!(s.steps[0].settle_ms, 250);
    assert_eq!(s.steps[0].settled, Some(Settled::Unchanged));
    // The second took effect without a paint the stream saw: settled as unchanged after the
    // grace, and then its check, polled, found the result.
    assert_eq!(s.code, None, "{s:?}");
    assert_eq!(settled, Some(Settled::Unchanged));
    assert_eq!(s.steps[1].settle_ms, 250);
}

#[test]
fn unchanged_after_the_grace_is_still_held_to_the_steps_checks() {
    let b = bench("main");
    b.world.borrow_mut().deaf = 1;
    let body = r#"
[[step]]
action = "click"
target = { text = "查询", role = "button" }
risk = "write"
check = [{ exists = { text = "结果" } }]
timeout_ms = 500
"#;
    let mut d = stream(&b, &[]);
    let (s, _) = go_damaged(&b, &flow(&b, body), &mut d, |_| {});
    assert_eq!(s.code, Some(ErrorCode::AssertionFailed));
    assert_eq!(
        b.world.borrow().inputs.len(),
        1,
        "a write that acted is not redone"
    );
}

#[test]
fn painting_that_never_stops_times_out_on_the_clock() {
    let b = bench("login");
    let paints: Vec<u64> = (0..1000).map(|i| i * 10).collect();
    let mut d = stream(&b, &paints);
    let body = r#"
[[step]]
action = "click"
target = { text = "登录", role = "button" }
timeout_ms = 2000
"#;
    let clock = b.world.borrow().clock.clone();
    let t0 = clock.now_ms();
    let (s, _) = go_damaged(&b, &flow(&b, body), &mut d, |o| o.max_retries = 0);
    assert_eq!(s.code, Some(ErrorCode::ActionTimeout), "{s:?}");
    let spent = clock.now_ms() - t0;
    assert!(
        (2000..2100).contains(&spent),
        "timed out after {spent} ms of fake time"
    );
}

#[test]
fn without_damage_events_the_fingerprints_decide() {
    let b = bench("login");
    let mut d = stream(&b, &[4]);
    d.no_watch = true;
    let (s, settled) = go_damaged(&b, &flow(&b, CLICK_LOGIN), &mut d, |_| {});
    assert_eq!(s.code, None, "{s:?}");
    assert_eq!(settled, None);
    assert_eq!(s.steps[0].settled, None);
    assert!(
        s.steps[0].settle_ms >= 250,
        "the fingerprint quiet period: {} ms",
        s.steps[0].settle_ms
    );
}

#[test]
fn a_stream_that_breaks_mid_settle_falls_back_to_fingerprints() {
    let b = bench("login");
    let mut d = stream(&b, &[4, 8]);
    // Breaks 30 ms after the run starts: after the watch, before any quiet period ends.
    d.breaks_at = Some(b.world.borrow().clock.now_ms() + 30);
    let (s, settled) = go_damaged(&b, &flow(&b, CLICK_LOGIN), &mut d, |_| {});
    assert_eq!(s.code, None, "{s:?}");
    assert_eq!(settled, None);
    assert!(s.steps[0].settle_ms >= 250, "{}", s.steps[0].settle_ms);
}

#[test]
fn a_dialog_acted_on_is_watched_with_the_main_window() {
    let b = bench("main");
    {
        let mut w = b.world.borrow_mut();
        w.extra.push((POPUP, "提示".into()));
        w.focus = POPUP;
    }
    let body = r#"allow = ["提示"]
[[step]]
action = "click"
target = { text = "确定", role = "button", window = "提示" }
"#;
    let mut d = stream(&b, &[3]);
    let (s, _) = go_damaged(&b, &flow(&b, body), &mut d, |_| {});
    assert_eq!(s.code, None, "{s:?}");
    assert_eq!(d.watched, vec![vec![POPUP, MAIN]]);
}

/// A dialog that opened after the last input is filled in bursts further apart than one
/// click's repaint (a file list, a path written when a scan ends): before it is acted on it
/// must go 250 ms without painting, then it is looked at again. The window the run started on
/// is not held up, nor is the dialog a second time.
#[test]
fn a_window_that_opened_since_the_last_input_goes_quiet_before_it_is_acted_on() {
    let b = bench("main");
    b.world.borrow_mut().opens_dialog = Some("查询");
    // The dialog stays open after its button's click (acted on twice below).
    b.world.borrow_mut().sticky_popup = true;
    let body = r#"allow = ["提示"]
[[step]]
action = "click"
target = { text = "查询", role = "button" }
[[step]]
action = "click"
target = { text = "确定", role = "button", window = "提示" }
[[step]]
action = "click"
target = { text = "确定", role = "button", window = "提示" }
"#;
    let mut d = stream(&b, &[3]);
    let (s, _) = go_damaged(&b, &flow(&b, body), &mut d, |_| {});
    assert_eq!(s.code, None, "{s:?}");
    // Watched: the first input; the new dialog alone, while it goes quiet; then each input
    // (the dialog, and the main window with it).
    assert_eq!(
        d.watched,
        vec![
            vec![MAIN],
            vec![POPUP],
            vec![POPUP, MAIN],
            vec![POPUP, MAIN]
        ]
    );
    assert!(
        s.steps[1].locate_ms >= 253,
        "the dialog's paint at 3 ms and 250 ms of quiet: {:?}",
        s.steps[1]
    );
    assert!(s.steps[0].locate_ms < 250, "{:?}", s.steps[0]);
    // (The third step waits too, but as a click on the spot of the one before: the watches
    // above show the dialog was not let go quiet a second time.)
}

/// A type step clicks its field and waits for the application to show it took the click
/// before the first key. A field that had the focus already looks the same after the click;
/// the application's repaint says it handled the click, and the keys go at once instead of
/// after the 300 ms a change of pixels is waited for.
#[test]
fn a_fields_repaint_after_its_click_lets_the_keys_go_without_waiting_for_a_change() {
    let body = r#"
[[step]]
action = "type"
target = { text = "用户名", role = "field" }
text = "admin"
"#;
    // The type step's act time when the application paints at `paints` ms after each input.
    let act_ms = |paints: &[u64]| {
        let b = bench("login");
        let mut d = stream(&b, paints);
        let (s, _) = go_damaged(&b, &flow(&b, body), &mut d, |_| {});
        assert_eq!(s.code, None, "{s:?}");
        assert_eq!(
            b.world.borrow().fields.get("用户名").map(String::as_str),
            Some("admin")
        );
        s.steps[0].act_ms
    };
    // The application repaints 6 ms after the click (the fake field draws no caret: its
    // pixels do not change until the first key).
    let painted = act_ms(&[6]);
    // Nothing painted: the pixels are waited for, up to FOCUS_WAIT_MS.
    let silent = act_ms(&[]);
    assert!(
        silent >= 300,
        "no paint: the field's pixels waited for ({silent} ms)"
    );
    assert!(
        painted + 250 <= silent,
        "a repaint after the click ends the wait: {painted} ms against {silent} ms"
    );
}
