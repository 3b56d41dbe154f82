//! Looking at the screen between inputs: waiting for a change or for the window to settle,
//! checking a step's conditions, and dismissing interrupt windows.

use super::*;
use mend_locate::text::label_match;

/// Mean difference per channel (0–255) under which a place's pixels are the same ones: a
/// caret's blink or a focus ring redrawn is well under it, another caption far over.
const SAME_PIXELS: f64 = 4.0;

/// The windows on the screen at the last input; a window not among them opened since: on
/// damage events it is let go quiet before it is acted on
/// ([`Runner::let_new_window_settle`]), and no key of a type step goes out while it is there
/// unhandled. Nothing known before the first input.
#[derive(Default)]
pub(super) struct WindowWatch {
    known: Option<HashSet<u32>>,
}

impl WindowWatch {
    /// The windows on the screen at an input (`None`: they could not be listed).
    fn at_input(&mut self, ids: Option<HashSet<u32>>) {
        self.known = ids;
    }

    /// Whether the window `id` opened since the last input and is seen now for the first
    /// time (it is known from now on). `false` before the first input.
    fn first_sight(&mut self, id: u32) -> bool {
        self.known.as_mut().is_some_and(|k| k.insert(id))
    }

    /// Whether there was an input to tell new windows from.
    pub(super) fn watching(&self) -> bool {
        self.known.is_some()
    }

    /// The title of a window of `now` that was not on the screen at the last input.
    pub(super) fn opened_since(&self, now: Vec<mend_model::WindowInfo>) -> Option<String> {
        let known = self.known.as_ref()?;
        now.into_iter()
            .find(|w| !known.contains(&w.id))
            .map(|w| w.title)
    }
}

impl Runner<'_> {
    /// Wait until the application shows it handled the input just sent at `rect` (frame
    /// pixels of `before`), or `max_ms` pass. With a damage stream watching the input: until
    /// it paints over `rect` — a field clicked that had the focus already repaints with the
    /// same pixels, and is not waited out. Else (or if the stream breaks): until the pixels
    /// in `rect` differ from `before`'s.
    pub(super) fn await_change(&mut self, before: &Frame, rect: Rect, max_ms: u64) {
        let Some(id) = before.info.window.as_ref().map(|w| w.id) else {
            return;
        };
        if let (Some(_), Some(d)) = (self.armed, self.damage.as_deref_mut()) {
            let area = before.info.to_screen(&rect);
            let deadline = self.clock.now_ms() + max_ms;
            loop {
                match d.painted_over(area) {
                    Ok(true) => return,
                    Ok(false) if self.clock.now_ms() >= deadline => return,
                    Ok(false) => self.clock.sleep_ms(self.opts.settle.poll_ms),
                    Err(_) => break,
                }
            }
        }
        let old = mend_vision::crop(&before.image, rect);
        let deadline = self.clock.now_ms() + max_ms;
        while self.clock.now_ms() < deadline {
            self.clock.sleep_ms(20);
            let Ok(now) = self.capture.capture_window(id) else {
                return;
            };
            let new = mend_vision::crop(&now.image, super::field::moved(before, &now, rect));
            if old.as_ref().map(|o| o.as_raw()) != new.as_ref().map(|n| n.as_raw()) {
                return;
            }
        }
    }

    /// Whether at least `min_px` pixels of `rect` change from `before` within `max_ms`: a
    /// menu opening, not a caret's blink.
    pub(super) fn shows_change(
        &mut self,
        before: &Frame,
        rect: Rect,
        min_px: usize,
        max_ms: u64,
    ) -> bool {
        let Some(id) = before.info.window.as_ref().map(|w| w.id) else {
            return true;
        };
        let Some(old) = mend_vision::crop(&before.image, rect) else {
            return true;
        };
        let deadline = self.clock.now_ms() + max_ms;
        while self.clock.now_ms() < deadline {
            self.clock.sleep_ms(50);
            let Ok(now) = self.capture.capture_window(id) else {
                return true;
            };
            let Some(new) = mend_vision::crop(&now.image, super::field::moved(before, &now, rect))
            else {
                return true;
            };
            if new.dimensions() != old.dimensions() {
                return true;
            }
            let changed = old
                .pixels()
                .zip(new.pixels())
                .filter(|(a, b)| a != b)
                .count();
            if changed >= min_px {
                return true;
            }
        }
        false
    }

    /// Start watching what is painted, just before an input: the window of the frame acted
    /// on and the flow's main window (a dialog closing repaints it). Without a damage stream,
    /// or when it cannot watch, the step settles on fingerprints.
    pub(super) fn arm(&mut self, lf: &LoadedFlow, frame: Option<&Frame>) {
        self.armed = None;
        // The windows at this input: one that opens after it is new (a dialog to let go
        // quiet, a notice no key may race).
        let ids = self
            .capture
            .windows()
            .ok()
            .map(|ws| ws.iter().map(|w| w.id).collect());
        self.window_watch.at_input(ids);
        if self.damage.is_none() {
            return;
        }
        let mut ids: Vec<u32> = frame
            .and_then(|f| f.info.window.as_ref())
            .map(|w| w.id)
            .into_iter()
            .collect();
        if let Ok(q) = self.main_query(lf) {
            let is_main = frame
                .and_then(|f| f.info.window.as_ref())
                .is_some_and(|w| q.matches(w));
            if !is_main {
                if let Ok(w) = self.capture.find_window(&q) {
                    ids.push(w.id);
                }
            }
        }
        let now = self.clock.now_ms();
        if let Some(d) = self.damage.as_deref_mut() {
            self.armed = d.watch(&ids).ok().map(|()| now);
        }
    }

    /// A window that opened since the last input (a dialog) is let go quiet before it is acted
    /// on: on damage events, until it has painted nothing for [`NEW_WINDOW_QUIET_MS`] (bounded by
    /// `timeout`). True when it had to wait: the frame located in may be stale, look again.
    /// Settling on fingerprints, or before the run's first input, nothing waits (fingerprints
    /// wait as long after every input).
    pub(super) fn let_new_window_settle(&mut self, frame: &Frame, timeout: u64) -> bool {
        let Some(w) = frame.info.window.as_ref() else {
            return false;
        };
        if !self.window_watch.first_sight(w.id) {
            return false;
        }
        let Some(d) = self.damage.as_deref_mut() else {
            return false;
        };
        if d.watch(&[w.id]).is_err() {
            return false;
        }
        // The step's own settle rule with the longer quiet, and no shorter grace: a window
        // that paints nothing for that long is as quiet as one that stopped painting. A
        // window still painting at the timeout is looked at all the same.
        let rule = crate::settle::SettleRule {
            grace_ms: NEW_WINDOW_QUIET_MS,
            quiet_ms: NEW_WINDOW_QUIET_MS,
            ..self.opts.settle
        };
        let start = self.clock.now_ms();
        let _ = crate::settle::on_damage(self.clock, d, &rule, start, timeout);
        self.app_wait_ms += self.clock.now_ms() - start;
        true
    }

    /// Wait until the screen settles: on damage events when the input was watched
    /// (`settle.rs`), else on fingerprints. `ACTION_TIMEOUT` if it never does.
    pub(super) fn settle(&mut self, lf: &LoadedFlow, timeout: u64) -> Result<(), MendError> {
        self.last_settle = None;
        if let (Some(since), Some(d)) = (self.armed.take(), self.damage.as_deref_mut()) {
            match crate::settle::on_damage(self.clock, d, &self.opts.settle, since, timeout) {
                Ok(s) => {
                    self.last_settle = Some(s);
                    return Ok(());
                }
                Err(e) if e.code == ErrorCode::ActionTimeout => return Err(e),
                // The stream broke: the fingerprints decide, as without one.
                Err(_) => {}
            }
        }
        self.settle_on_fingerprints(lf, timeout)
    }

    /// Wait until the screen stops changing: the main window's fingerprint and the set of
    /// windows unchanged for `quiet_ms`. `ACTION_TIMEOUT` if it never does.
    fn settle_on_fingerprints(&mut self, lf: &LoadedFlow, timeout: u64) -> Result<(), MendError> {
        let q = self.main_query(lf)?;
        let start = self.clock.now_ms();
        let mut last: Option<ScreenState> = None;
        let mut since = start;
        loop {
            let wins: Vec<(u32, String)> = self
                .capture
                .windows()?
                .into_iter()
                .map(|w| (w.id, w.title))
                .collect();
            let h = self
                .capture
                .capture(&q)
                .ok()
                .map(|f| self.fp.hash(&f.image));
            let now = self.clock.now_ms();
            let same = last.as_ref().is_some_and(|(lh, lw)| {
                *lw == wins
                    && match (lh, &h) {
                        (Some(a), Some(b)) => a.distance(b) <= 1,
                        (None, None) => true,
                        _ => false,
                    }
            });
            if same {
                if now - since >= self.opts.quiet_ms {
                    return Ok(());
                }
            } else {
                last = Some((h, wins));
                since = now;
            }
            if now - start >= timeout {
                return Err(err(
                    ErrorCode::ActionTimeout,
                    format!("the screen did not settle within {timeout} ms (it kept changing)"),
                ));
            }
            self.clock.sleep_ms(self.opts.poll_ms);
        }
    }

    /// Poll checks until all hold; `code` when the timeout passes first.
    pub(super) fn wait_checks(
        &mut self,
        lf: &LoadedFlow,
        checks: &[Check],
        vars: &Row,
        timeout: u64,
        code: ErrorCode,
    ) -> Result<(), Fail> {
        let deadline = self.clock.now_ms() + timeout;
        loop {
            let t_poll = self.clock.now_ms();
            let mut failing = None;
            for c in checks {
                if !self.check_once(lf, c, vars)? {
                    failing = Some(c);
                    break;
                }
            }
            let Some(c) = failing else { return Ok(()) };
            if self.clock.now_ms() >= deadline {
                return Err(Fail::from(err(
                    code,
                    format!("not true within {timeout} ms: {}", describe_check(c)),
                )));
            }
            self.handle_interrupts(lf, vars)?;
            self.clock.sleep_ms(self.opts.poll_ms * 4);
            // Not true yet: this poll was spent waiting for the application.
            self.app_wait_ms += self.clock.now_ms() - t_poll;
        }
    }

    /// One look at the screen: does the check hold?
    pub(super) fn check_once(
        &mut self,
        lf: &LoadedFlow,
        c: &Check,
        vars: &Row,
    ) -> Result<bool, MendError> {
        match c {
            // Something is proven there only by a reading of its whole text: a fuzzy
            // reading (a near spelling, a part of a longer line) found the control for a
            // click, but a check decides whether a side effect happened and takes none
            // (issue 35: `exists = { text = "60" }` passed where no cell held 60). Its absence
            // is still refused by any reading, as before.
            // The text as the run means it (`${phone}` is the number typed, not its name).
            Check::Exists(t) => {
                let want = target_of(t, vars)?;
                Ok(self
                    .find_for_check(lf, t, vars)?
                    .0
                    .is_some_and(|l| proves(want.text.as_deref(), &l)))
            }
            Check::NotExists(t) => self.absent(lf, t, vars),
            Check::WindowTitle(p) => {
                let q = self.dialog_queries(lf, &[p])?.remove(0);
                Ok(self.capture.windows()?.iter().any(|w| q.matches(w)))
            }
            Check::TextMatches { target, pattern } => {
                let re = regex::Regex::new(pattern).map_err(|e| {
                    err(
                        ErrorCode::FlowInvalid,
                        format!("text_matches pattern '{pattern}': {e}"),
                    )
                })?;
                Ok(self
                    .find_for_check(lf, target, vars)?
                    .0
                    .is_some_and(|l| re.is_match(&l.text)))
            }
        }
    }

    /// Absence is seen twice, a fresh frame apart: one look can fall on a screen in between
    /// (a popup closing, a dialog repainting after a click that did not take), and a check
    /// that passed there would call a write done that never happened. Pixels the locator had
    /// already seen unchanged that long before this look are the two frames (a screen steady
    /// since), and a second look falls no sooner than that long after the first began (a
    /// first look that read the window for seconds is not followed by a wait). On pixels
    /// already proven not to hold the control the second look is a capture and a comparison,
    /// not a reading. And unread is not gone: where the control was last found, its pixels
    /// must have changed (or its window closed) — a caption misread twice on a dialog still
    /// open called a Save done that never happened (qpdfview's File name:, read by PP-OCR).
    fn absent(&mut self, lf: &LoadedFlow, t: &TargetSpec, vars: &Row) -> Result<bool, MendError> {
        let apart = self.opts.poll_ms * 4;
        let began = self.clock.now_ms();
        let (found, steady) = self.find_for_check(lf, t, vars)?;
        if found.is_some() {
            return Ok(false);
        }
        if steady < apart {
            let next = began + apart;
            let now = self.clock.now_ms();
            if now < next {
                self.clock.sleep_ms(next - now);
            }
            if self.find_for_check(lf, t, vars)?.0.is_some() {
                return Ok(false);
            }
        }
        Ok(!self.still_shown(lf, t, vars)?)
    }

    /// What a check finds of `t` ([`Runner::answer_in_windows`]), remembered where it was;
    /// two candidates alike count as one there. With how long every frame it looked in had
    /// shown the same pixels ([`Finder::steady_ms`]; 0 when it looked in none).
    fn find_for_check(
        &mut self,
        lf: &LoadedFlow,
        t: &TargetSpec,
        vars: &Row,
    ) -> Result<(Option<Located>, u64), MendError> {
        let (found, steady, target) = self.answer_in_windows(lf, t, vars)?;
        let Some((frame, result)) = found else {
            return Ok((None, steady));
        };
        match result {
            Ok(l) => {
                self.last_seen
                    .insert(seen_key(t, &target), (frame.clone(), l.clone()));
                Ok((Some(l), steady))
            }
            Err(r) if r.error.code == ErrorCode::LocatorNotFound => Ok((None, steady)),
            // Two candidates: it exists, whichever it is (one read as the text itself
            // speaks for both, below).
            Err(r) if r.error.code == ErrorCode::LocatorAmbiguous => {
                let wanted = target.text.as_deref().unwrap_or_default();
                let c = r
                    .candidates
                    .iter()
                    .find(|c| label_match(wanted, &c.text) == Some(1.0))
                    .or(r.candidates.first());
                Ok((
                    Some(Located {
                        strategy: mend_model::Strategy::FuzzyOcr,
                        rect: c.map_or(Rect::default(), |c| c.rect),
                        screen_box: Rect::default(),
                        confidence: 0.0,
                        text: c.map_or(String::new(), |c| c.text.clone()),
                        frame_id: frame.info.id,
                    }),
                    steady,
                ))
            }
            Err(r) => Err(r.error),
        }
    }

    /// Where a check looks for `t`: the target's own window; with none named, the main
    /// window, then each dialog of it in front that the flow allows (DB4S's "Export
    /// completed." is said in a message box over the main window: a verify naming no window
    /// looked only behind it, STEP_NOT_VERIFIED after the file was written). The first
    /// answer other than "not found" with the frame it came from (`None`: not found in any);
    /// the least time those frames had shown the same pixels; and the target as the run
    /// means it.
    #[allow(clippy::type_complexity)]
    fn answer_in_windows(
        &mut self,
        lf: &LoadedFlow,
        t: &TargetSpec,
        vars: &Row,
    ) -> Result<(Option<(Frame, Result<Located, Refusal>)>, u64, Target), MendError> {
        let main = match self.capture.capture(&self.query_for(lf, t)?) {
            Ok(f) => Some(f),
            Err(e) if e.code == ErrorCode::WindowNotFound => None,
            Err(e) => return Err(e),
        };
        let owner = main
            .as_ref()
            .and_then(|f| f.info.window.as_ref())
            .map(|w| w.id);
        let dialogs = match (&t.window, owner) {
            (None, Some(owner)) => self.allowed_dialogs_of(lf, owner)?,
            _ => Vec::new(),
        };
        let target = target_of(t, vars)?;
        let recorded = Recorded {
            template: t.crop.as_ref().and_then(|c| lf.templates.get(c).cloned()),
        };
        let mut found = None;
        let mut steady = None::<u64>;
        let mut next = main;
        let mut dialogs = dialogs.into_iter();
        loop {
            let frame = match next.take() {
                Some(f) => f,
                None => match dialogs.next() {
                    None => break,
                    Some(id) => match self.capture.capture_window(id) {
                        Ok(f) => f,
                        Err(e) if e.code == ErrorCode::WindowNotFound => continue,
                        Err(e) => return Err(e),
                    },
                },
            };
            let r = self.finder.find(&frame, &target, &recorded);
            let ms = self.finder.steady_ms(&frame);
            steady = Some(steady.map_or(ms, |s| s.min(ms)));
            match r {
                Err(r) if r.error.code == ErrorCode::LocatorNotFound => continue,
                other => {
                    found = Some((frame, other));
                    break;
                }
            }
        }
        Ok((found, steady.unwrap_or(0), target))
    }

    /// The open dialogs of the main window (`owner`) whose titles the flow allows: the main
    /// window's own (a dialog of its dialog included) where it has any, as a step's `window`
    /// is picked among look-alikes.
    fn allowed_dialogs_of(&self, lf: &LoadedFlow, owner: u32) -> Result<Vec<u32>, MendError> {
        let allowed: Vec<&String> = lf.flow.window.allow.iter().collect();
        let qs = self.dialog_queries(lf, &allowed)?;
        let all = self.capture.windows()?;
        let owned_by_main = |w: &mend_model::WindowInfo| {
            let mut at = w.owner;
            for _ in 0..8 {
                match at {
                    Some(o) if o == owner => return true,
                    Some(o) => at = all.iter().find(|x| x.id == o).and_then(|x| x.owner),
                    None => return false,
                }
            }
            false
        };
        let open: Vec<_> = all
            .iter()
            .filter(|w| w.id != owner && qs.iter().any(|q| q.matches(w)))
            .collect();
        let owned = open.iter().any(|w| owned_by_main(w));
        Ok(open
            .into_iter()
            .filter(|w| !owned || owned_by_main(w))
            .map(|w| w.id)
            .collect())
    }

    /// Whether the pixels of the place `t` was last found at (in this run) are still on the
    /// screen, unchanged, in the same window: then the control is there, read or not. For a
    /// field the place is its caption beside it ([`Finder::crop_for`]'s part left of the
    /// field: its own box holds the text typed since); a field whose caption is not on its
    /// rows, or a target never found, has no place to compare and counts as gone.
    fn still_shown(
        &mut self,
        lf: &LoadedFlow,
        t: &TargetSpec,
        vars: &Row,
    ) -> Result<bool, MendError> {
        let target = target_of(t, vars)?;
        let Some((old, l)) = self.last_seen.get(&seen_key(t, &target)).cloned() else {
            return Ok(false);
        };
        let place = match target.role {
            Role::Field => match self.finder.crop_for(&old, &target, l.rect) {
                Some(r) if r.x < l.rect.x => Rect::new(r.x, r.y, l.rect.x - r.x, r.h),
                _ => return Ok(false),
            },
            _ => l.rect,
        };
        // The window it was last seen in (a check naming no window may have found it in a
        // dialog of the main window).
        let now = match old.info.window.as_ref() {
            Some(w) => self.capture.capture_window(w.id),
            None => self.capture.capture(&self.query_for(lf, t)?),
        };
        let now = match now {
            Ok(f) => f,
            Err(e) if e.code == ErrorCode::WindowNotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        if !same_window(&old, &now) {
            return Ok(false);
        }
        let at_now = now.info.from_screen(&old.info.to_screen(&place));
        let (Some(was), Some(is)) = (
            mend_vision::crop(&old.image, place),
            mend_vision::crop(&now.image, at_now),
        ) else {
            return Ok(false);
        };
        Ok(
            was.dimensions() == is.dimensions()
                && mend_vision::pixel_diff(&was, &is) <= SAME_PIXELS,
        )
    }

    /// If an interrupt window is up, click its button. Returns whether one was handled.
    pub(super) fn handle_interrupts(
        &mut self,
        lf: &LoadedFlow,
        _vars: &Row,
    ) -> Result<bool, MendError> {
        if lf.flow.interrupts.is_empty() {
            return Ok(false);
        }
        let windows = self.capture.windows()?;
        for int in &lf.flow.interrupts {
            let q = WindowQuery::title(&int.window)?;
            let Some(w) = windows.iter().find(|w| q.matches(w)) else {
                continue;
            };
            let target = Target {
                text: Some(int.click.clone()),
                role: Role::Button,
                ..Target::default()
            };
            // A popup that has just opened may not have drawn its button yet: it is looked
            // for until the step timeout, as a step's target is; one that closes meanwhile
            // needs nothing.
            let deadline = self.clock.now_ms() + self.opts.timeout_ms;
            let (frame, located) = loop {
                let frame = match self.capture.capture_window(w.id) {
                    Ok(f) => f,
                    Err(e) if e.code == ErrorCode::WindowNotFound => return Ok(false),
                    Err(e) => return Err(e),
                };
                match self.finder.find(&frame, &target, &Recorded::default()) {
                    Ok(l) => break (frame, l),
                    Err(r)
                        if r.error.code == ErrorCode::LocatorNotFound
                            && self.clock.now_ms() < deadline =>
                    {
                        self.clock.sleep_ms(self.opts.poll_ms * 4);
                    }
                    Err(r) => {
                        return Err(err(
                            r.error.code,
                            format!(
                                "interrupt '{}' is up but its '{}' cannot be found: {}",
                                w.title, int.click, r.error.message
                            ),
                        ))
                    }
                }
            };
            // A notice just mapped may not have the focus yet (the window manager gives it a
            // moment later): it is waited for, as a step waits for a focus to land. One that
            // mapped as a click landed on the window behind it may never get it (that click
            // took the focus back): after a moment it is asked to the front once, as a pager
            // would, and the guard still decides.
            let start = self.clock.now_ms();
            let land = start + FOCUS_LAND_MS;
            let mut asked = false;
            loop {
                match self.check_guard(lf, &frame) {
                    Ok(()) => break,
                    Err(e) if e.code == ErrorCode::WindowBlocked && self.clock.now_ms() < land => {
                        if !asked && self.clock.now_ms() >= start + 3 * FOCUS_POLL_MS {
                            asked = true;
                            let _ = self.input.activate(w.id);
                        }
                        self.clock.sleep_ms(FOCUS_POLL_MS);
                    }
                    Err(e) => return Err(e),
                }
            }
            let h = self.note_action(usize::MAX, "interrupt", located.screen_box, &frame)?;
            self.spend(1)?;
            self.send(&Input_::click(located.screen_box.center()))?;
            let title = w.title.clone();
            self.audit(
                &self.run_id.clone(),
                0,
                "interrupt",
                &format!("interrupt {title}"),
                Some(located.strategy.as_str()),
                Some(located.confidence),
                Some(located.rect),
                Some(&h),
                None,
                0,
                None,
            );
            let p = Progress {
                row: 0,
                rows: self.rows,
                step: 0,
                steps: 0,
                id: "interrupt".into(),
                action: format!("dismiss '{title}'"),
                status: "interrupt".into(),
                strategy: Some(located.strategy.as_str().into()),
                confidence: Some(located.confidence),
                ms: 0,
                code: None,
                message: None,
                rect: None,
            };
            (self.on_progress)(&p);
            // Wait for it to go away.
            let deadline = self.clock.now_ms() + self.opts.timeout_ms;
            while self.capture.windows()?.iter().any(|x| x.id == w.id) {
                if self.clock.now_ms() >= deadline {
                    return Err(err(
                        ErrorCode::ActionTimeout,
                        format!(
                            "interrupt '{title}' did not close after '{}' was clicked",
                            int.click
                        ),
                    ));
                }
                self.clock.sleep_ms(self.opts.poll_ms);
            }
            return Ok(true);
        }
        Ok(false)
    }
}

/// Whether a located control proves a check's target there: found by its recorded pixels or
/// its anchor, or read as the target's whole text (normalised: a mnemonic or a colon may
/// differ, a letter may not); the semantic rung's answer is a reading of another wording and
/// counts as the matcher vouched for it. A fuzzy reading short of the whole text does not.
fn proves(text: Option<&str>, l: &Located) -> bool {
    match (l.strategy, text) {
        (mend_model::Strategy::FuzzyOcr, Some(text)) => label_match(text, &l.text) == Some(1.0),
        _ => true,
    }
}

/// Whether two frames show the same window.
pub(super) fn same_window(a: &Frame, b: &Frame) -> bool {
    match (&a.info.window, &b.info.window) {
        (Some(a), Some(b)) => a.id == b.id,
        _ => false,
    }
}
