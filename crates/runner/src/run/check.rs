//! `check` and `uncheck`: a check box set to a state, not clicked blindly.
//!
//! The target is the box's caption. The indicator is found beside it (mend_vision), read,
//! clicked only when it does not already hold the state asked, and read again after the
//! screen settles: a box that does not take the click (a caption that is a label of its own,
//! a disabled box) is `CHECK_NOT_SET`, never a run that goes on as if it had. No box beside the
//! caption is `CHECKBOX_NOT_FOUND` and a look that says neither state `CHECK_STATE_UNKNOWN`,
//! both before any input. Reading first makes the step safe to redo after a crash.
//!
//! Where the window has an accessibility tree, its `checked` state is a second witness: a
//! tree that says the opposite of the pixels is `CHECK_STATE_UNKNOWN` (nothing clicked); where
//! the pixels cannot tell, the tree's state decides, and after the click it counts only if
//! the indicator was repainted.

use super::*;
use mend_model::Point;

fn state_word(ticked: bool) -> &'static str {
    if ticked {
        "ticked"
    } else {
        "clear"
    }
}

/// A check box's state by its two witnesses: the pixels of the indicator and, where the window
/// has one, its accessibility tree.
enum Witnessed {
    State(bool),
    /// The pixels say the first, the tree the second.
    Disagree(bool, bool),
    Unknown,
}

/// The two must not disagree; the tree alone decides only where the pixels cannot tell and
/// `tree_alone` allows it.
fn witnessed(pixels: Option<bool>, tree: Option<bool>, tree_alone: bool) -> Witnessed {
    match (pixels, tree) {
        (Some(p), Some(t)) if p != t => Witnessed::Disagree(p, t),
        (Some(p), _) => Witnessed::State(p),
        (None, Some(t)) if tree_alone => Witnessed::State(t),
        _ => Witnessed::Unknown,
    }
}

impl Runner<'_> {
    /// Set the check box captioned at `located` (in `frame`) to `want`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn set_check(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        what: &str,
        frame: &Frame,
        located: Located,
        h: &Fingerprint,
        mut d: StepDetail,
        want: bool,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let caption = located.text.clone();
        let (ind, before) = self.read_check_before(frame, &located)?;
        if before == want {
            d.message = Some(format!(
                "the check box of '{caption}' was already {}: not clicked",
                state_word(want)
            ));
            self.intent(at, what)?;
            // No input: nothing should paint, and the grace says so without a quiet period.
            self.arm(lf, Some(frame));
            self.after_act(lf, step, vars, &mut d, at, what, Some(&located), h)?;
            return Ok((Some(located), d));
        }
        let on_box =
            self.click_check_box(lf, step, vars, at, what, frame, &located, ind, h, &mut d)?;
        let after = self.read_check_after(frame, ind, &caption);
        if after != Some(want) {
            return Err(Fail {
                err: err(
                    ErrorCode::CheckNotSet,
                    format!(
                        "clicked the check box of '{caption}' at {ind:?} to make it {}, and it now reads {}: the click did not set it. Look at the form, set the box by hand and answer done",
                        state_word(want),
                        after.map_or("as neither", state_word)
                    ),
                ),
                acted: true,
                frame: None,
                candidates: vec![],
            });
        }
        d.message = Some(format!(
            "the check box of '{caption}' is {} now",
            state_word(want)
        ));
        Ok((Some(on_box), d))
    }

    /// The indicator beside the caption `located` in `frame` and its state by both witnesses,
    /// before any input. No box, or a state the witnesses cannot agree on, is refused.
    fn read_check_before(
        &mut self,
        frame: &Frame,
        located: &Located,
    ) -> Result<(Rect, bool), Fail> {
        let refuse = |code, msg: String| Fail {
            err: err(code, msg),
            acted: false,
            frame: Some(Box::new(frame.clone())),
            candidates: vec![],
        };
        let caption = located.text.clone();
        let Some(ind) = mend_vision::find_check_indicator(&frame.image, located.rect) else {
            return Err(refuse(
                ErrorCode::CheckboxNotFound,
                format!(
                    "found the caption '{caption}' at {:?}, but no check box beside it (or two alike): nothing was clicked. Is it a check box? Use `click` with a `verify` for other controls",
                    located.rect
                ),
            ));
        };
        let pixels = mend_vision::check_state(&frame.image, ind);
        let tree = self.finder.tree_checked(frame, &caption, ind);
        let before = match witnessed(pixels, tree, true) {
            Witnessed::State(s) => s,
            Witnessed::Disagree(p, t) => {
                return Err(refuse(
                    ErrorCode::CheckStateUnknown,
                    format!(
                        "the check box of '{caption}' at {ind:?} looks {} but the window's accessibility tree says it is {}: nothing was clicked. Set it by hand and answer done",
                        state_word(p),
                        state_word(t)
                    ),
                ))
            }
            Witnessed::Unknown => {
                return Err(refuse(
                    ErrorCode::CheckStateUnknown,
                    format!(
                        "the check box of '{caption}' at {ind:?} looks neither ticked nor clear: nothing was clicked. Set it by hand and answer done"
                    ),
                ))
            }
        };
        Ok((ind, before))
    }

    /// Click the indicator `ind` (frame pixels, beside the caption `located`): the budget
    /// spent and the intent journaled first, then settled and checked ([`Runner::after_act`]).
    /// The control acted on: the indicator, in frame and screen pixels.
    #[allow(clippy::too_many_arguments)]
    fn click_check_box(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        what: &str,
        frame: &Frame,
        located: &Located,
        ind: Rect,
        h: &Fingerprint,
        d: &mut StepDetail,
    ) -> Result<Located, Fail> {
        // The indicator in screen pixels: the caption's frame-to-screen offset applied to it.
        let (dx, dy) = (
            located.screen_box.x - located.rect.x,
            located.screen_box.y - located.rect.y,
        );
        let c = ind.center();
        let at_screen = Point {
            x: c.x + dx,
            y: c.y + dy,
        };
        self.spend(1)?;
        self.intent(at, what)?;
        let t1 = self.clock.now_ms();
        self.arm(lf, Some(frame));
        self.send(&Input_::click(at_screen)).map_err(|e| Fail {
            err: e,
            acted: true,
            frame: None,
            candidates: vec![],
        })?;
        d.act_ms = self.clock.now_ms() - t1;
        let mut on_box = located.clone();
        on_box.rect = ind;
        on_box.screen_box = Rect::new(ind.x + dx, ind.y + dy, ind.w, ind.h);
        // A window that never stops painting (a GUI a game engine draws, which draws its own
        // pointer too) times the settling out: the state read below is this step's verify, so
        // it goes on, with the pointer moved off the window first (it may cover the box).
        match self.after_act(lf, step, vars, d, at, what, Some(&on_box), h) {
            Err(f) if f.acted && f.err.code == ErrorCode::ActionTimeout => {
                self.park_pointer(frame);
                self.clock.sleep_ms(self.opts.poll_ms * 2);
            }
            r => r?,
        }
        Ok(on_box)
    }

    /// The state of the check box at `ind` (in `frame`) read again on a fresh frame of its
    /// window, both witnesses agreeing; the tree's word alone counts only if the click
    /// repainted the indicator. `None`: no answer.
    fn read_check_after(&mut self, frame: &Frame, ind: Rect, caption: &str) -> Option<bool> {
        let now = frame
            .info
            .window
            .as_ref()
            .and_then(|w| self.capture.capture_window(w.id).ok());
        now.and_then(|now| {
            let r = super::field::moved(frame, &now, ind);
            let pixels = mend_vision::check_state(&now.image, r);
            let tree = self.finder.tree_checked(&now, caption, r);
            // The tree's word alone counts only if the click repainted the indicator.
            let repainted = pixels.is_none() && {
                let (was, is) = (
                    mend_vision::crop(&frame.image, ind),
                    mend_vision::crop(&now.image, r),
                );
                was.is_some() && is.is_some() && was != is
            };
            match witnessed(pixels, tree, repainted) {
                Witnessed::State(s) => Some(s),
                Witnessed::Disagree(..) | Witnessed::Unknown => None,
            }
        })
    }
}
