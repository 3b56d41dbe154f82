use crate::target::{locate, TargetArgs};
use clap::Args;
use mend_capture::{Capture, XcapCapture};
use mend_input::{Action, EnigoInput, Guard, Input};
use mend_model::{ErrorCode, Located, MendError};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ClickArgs {
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Args, Debug)]
pub struct TypeArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The text to type. Never echoed.
    #[arg(long)]
    pub input: String,
}

/// Locate, then guard on the frame the target was located in, then click. Nothing is sent when
/// the locator refuses or the guard says no. Returns the control and its window's id.
fn locate_guarded(t: &TargetArgs) -> Result<(Located, u32), MendError> {
    if t.image.is_some() {
        return Err(MendError::new(
            ErrorCode::InvalidArgument,
            "--image is for locating only; acting needs a live window",
        ));
    }
    let (frame, r) = locate(t)?;
    let located = r.map_err(|refusal| refusal.error)?;
    let window = frame
        .info
        .window
        .as_ref()
        .ok_or_else(|| MendError::new(ErrorCode::WindowNotFound, "the frame has no window"))?;
    let guard = Guard::new(vec![t.query()?]);
    let foreground = XcapCapture.foreground()?;
    guard.check(foreground.as_ref(), window)?;
    Ok((located, window.id))
}

fn report(l: &Located, verb: &str) {
    println!(
        "{verb} '{}' found by {} (confidence {:.2}) at screen {},{}",
        l.text,
        l.strategy.as_str(),
        l.confidence,
        l.screen_box.center().x,
        l.screen_box.center().y
    );
}

pub fn run_click(a: ClickArgs) -> Result<ExitCode, MendError> {
    let (l, _) = locate_guarded(&a.target)?;
    EnigoInput::new()?.perform(&Action::click(l.screen_box.center()))?;
    report(&l, "clicked");
    Ok(ExitCode::SUCCESS)
}

pub fn run_type(a: TypeArgs) -> Result<ExitCode, MendError> {
    let (l, window) = locate_guarded(&a.target)?;
    let mut input = EnigoInput::new()?;
    let before = XcapCapture.capture_window(window)?;
    input.perform(&Action::click(l.screen_box.center()))?;
    // The application moves its focus when it handles the click: wait (≤ 300 ms) until the
    // field shows its caret, so the first keys do not reach the old focus.
    let old = mend_vision::crop(&before.image, l.rect);
    for _ in 0..15 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let now = XcapCapture.capture_window(window)?;
        if mend_vision::crop(&now.image, l.rect).map(|i| i.into_raw())
            != old.as_ref().map(|o| o.as_raw().clone())
        {
            break;
        }
    }
    // Each key only while that window has the focus (checked atomically with the send).
    input.type_text_into(window, &a.input).map_err(|(_, e)| e)?;
    report(&l, "typed into");
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct KeyArgs {
    /// Window title (an anchored regex) that must be in front.
    #[arg(long)]
    pub window: String,
    /// Keys pressed together: "Return", "ctrl+a", "shift+Tab".
    #[arg(long)]
    pub keys: String,
}

/// Press a key chord into a window, only if it is in front and the one named.
pub fn run_key(a: KeyArgs) -> Result<ExitCode, MendError> {
    let q = mend_capture::WindowQuery::title(&a.window)?;
    let w = XcapCapture.find_window(&q)?;
    Guard::new(vec![q]).check(XcapCapture.foreground()?.as_ref(), &w)?;
    let keys = mend_input::parse_keys(&a.keys)?;
    EnigoInput::new()?.perform(&Action::Keys { keys })?;
    println!("pressed {} in '{}'", a.keys, w.title);
    Ok(ExitCode::SUCCESS)
}
