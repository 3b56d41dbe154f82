//! One step: wait for and locate its target, guard, spend the budget, journal the intent, act,
//! settle, check, journal the result; retries by the step's redo rule (model/redo.rs), and a
//! step cut short by a crash verified or redone on resume.

use super::*;

/// A step a crash cut short: its intent is journaled, its result is not.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub attempt: u32,
    /// The journal also says its input went out in full (`acted`).
    pub sent: bool,
}

impl Runner<'_> {
    /// One step of one row, with retries; or, when `pending` (a crash left its intent without a
    /// result), verified first.
    pub(super) fn step(
        &mut self,
        lf: &LoadedFlow,
        run: &str,
        r: usize,
        i: usize,
        vars: &Row,
        pending: Option<Pending>,
    ) -> Result<(), MendError> {
        let step = &lf.flow.steps[i];
        let steps = lf.flow.steps.len();
        let step_id = step.id.clone().unwrap_or_else(|| format!("{}", i + 1));
        let base = StepDetail {
            step_id: step_id.clone(),
            action: action_name(&step.action),
            ..StepDetail::default()
        };
        let progress = |me: &mut Self,
                        status: &str,
                        d: &StepDetail,
                        strategy: Option<&str>,
                        code: Option<ErrorCode>| {
            let p = Progress {
                row: r,
                rows: me.rows,
                step: i,
                steps,
                id: step_id.clone(),
                action: base.action.clone(),
                status: status.into(),
                strategy: strategy.map(str::to_string),
                confidence: d.confidence,
                ms: d.locate_ms + d.act_ms + d.settle_ms,
                code,
                message: d.message.clone(),
                rect: d.rect,
            };
            (me.on_progress)(&p);
        };
        progress(self, "start", &base, None, None);
        self.app_wait_ms = 0;
        // Between steps: dismiss whatever interrupt window is up.
        self.handle_interrupts(lf, vars)?;

        let mut attempt = pending.map_or(0, |p| p.attempt);
        let mut compensate = false;
        if let Some(p) = pending {
            let t0 = self.clock.now_ms();
            if let Some(v) = &step.verify {
                // Did the step take effect before the crash? Let the screen settle, then look.
                let _ = self.settle(lf, self.timeout(step));
                self.app_wait_ms += self.clock.now_ms() - t0;
                let already = self.check_once(lf, v, vars)?;
                if already {
                    let d = StepDetail {
                        settle_ms: self.clock.now_ms() - t0,
                        message: Some(
                            "verified after a crash: it had taken effect, not redone".into(),
                        ),
                        ..base.clone()
                    };
                    self.journal_result(run, r, i, attempt, None, Some("verified"), d.clone())?;
                    self.audit(
                        run,
                        r,
                        &step_id,
                        "verify",
                        Some("verified"),
                        None,
                        None,
                        None,
                        None,
                        d.settle_ms,
                        None,
                    );
                    progress(self, "verified", &d, Some("verified"), None);
                    return Ok(());
                }
                compensate = true;
            } else if p.sent && step.done_once_sent() {
                // Its input went out in full before the crash: sent again it would act twice
                // (a key entered twice, a menu opened and shut). The screen settles and the
                // step's own checks decide.
                let mut d = StepDetail {
                    message: Some("its input had gone out before the crash: not sent again".into()),
                    ..base.clone()
                };
                let at = At {
                    run,
                    row: r,
                    step: i,
                    attempt,
                };
                let q = self.main_query(lf)?;
                let h = self
                    .capture
                    .capture(&q)
                    .map(|f| self.fp.hash(&f.image))
                    .unwrap_or_else(|_| Fingerprint(String::new()));
                match self.after_act(lf, step, vars, &mut d, Some(at), "sent", None, &h) {
                    Ok(()) => {
                        self.journal_result(run, r, i, attempt, None, Some("sent"), d.clone())?;
                        progress(self, "passed", &d, Some("sent"), None);
                        return Ok(());
                    }
                    Err(f) => {
                        d.message = Some(f.err.message.clone());
                        d.screenshot = self.screenshot(lf, r, i);
                        self.journal_result(run, r, i, attempt, Some(f.err.code), None, d.clone())?;
                        progress(self, "failed", &d, None, Some(f.err.code));
                        return Err(f.err);
                    }
                }
            } else if let Redo::NeedsVerify(why) = step.redo() {
                let e = err(
                    ErrorCode::ResumeUnverified,
                    format!(
                        "step {} ('{step_id}') may have acted before the crash and has no `verify` to tell ({why}); look at the application, then finish the step by hand or add a `verify` to the flow",
                        i + 1,
                    ),
                );
                let shot = self.screenshot(lf, r, i);
                let d = StepDetail {
                    message: Some(e.message.clone()),
                    screenshot: shot,
                    ..base.clone()
                };
                self.journal_result(run, r, i, attempt, Some(e.code), None, d.clone())?;
                progress(self, "failed", &d, None, Some(e.code));
                return Err(e);
            } else {
                compensate = true;
            }
        }
        loop {
            attempt += 1;
            let at = At {
                run,
                row: r,
                step: i,
                attempt,
            };
            let t0 = self.clock.now_ms();
            match self.attempt(lf, step, vars, Some(at), compensate) {
                Ok((located, mut d)) => {
                    d.step_id = step_id.clone();
                    d.action = base.action.clone();
                    let strategy = located.as_ref().map(|l| l.strategy.as_str());
                    self.journal_result(run, r, i, attempt, None, strategy, d.clone())?;
                    progress(self, "passed", &d, strategy, None);
                    return Ok(());
                }
                Err(f) => {
                    // One more look at the step's verify before refusing or redoing, in two
                    // cases. A verify that came true just after its deadline (a slow app): the
                    // step took effect, and a redo would act twice. A resumed step whose verify
                    // did not hold yet and whose target is gone, nothing sent: the app may only
                    // have been slow to show the effect of the input sent before the crash (a
                    // dialog still closing when the verify was read).
                    let second_look = if f.err.code == ErrorCode::StepNotVerified {
                        Some("its verify came true just after the step's timeout: done, not sent again")
                    } else if f.acted && f.err.code == ErrorCode::ActionTimeout {
                        // The input went in but the window never stopped painting (a GUI drawn
                        // by a game engine, an animation): its verify decides, not a redo.
                        Some("the window kept painting after the input, and its verify holds: done, not sent again")
                    } else if pending.is_some()
                        && !f.acted
                        && matches!(
                            f.err.code,
                            ErrorCode::LocatorNotFound | ErrorCode::WindowNotFound
                        )
                    {
                        Some("verified after a crash (on a second look): it had taken effect, not redone")
                    } else {
                        None
                    };
                    if let (Some(why), Some(v)) = (second_look, &step.verify) {
                        if self.check_once(lf, v, vars)? {
                            let d = StepDetail {
                                locate_ms: self.clock.now_ms() - t0,
                                message: Some(why.into()),
                                ..base.clone()
                            };
                            self.journal_result(
                                run,
                                r,
                                i,
                                attempt,
                                None,
                                Some("verified"),
                                d.clone(),
                            )?;
                            progress(self, "verified", &d, Some("verified"), None);
                            return Ok(());
                        }
                    }
                    // Before any input, a retryable refusal may be tried again; after input, only a
                    // read step whose effect did not show (a click that did not register).
                    let retryable = attempt <= self.opts.max_retries
                        && if f.acted {
                            !matches!(step.redo(), Redo::NeedsVerify(_))
                                && matches!(
                                    f.err.code,
                                    ErrorCode::AssertionFailed
                                        | ErrorCode::ActionTimeout
                                        | ErrorCode::StepNotVerified
                                        // Redone, a field is emptied before the text goes in.
                                        | ErrorCode::FieldValueWrong
                                )
                        } else {
                            // A control or window that is not there was already waited for.
                            f.err.code.is_retryable()
                                && !matches!(
                                    f.err.code,
                                    ErrorCode::LocatorNotFound | ErrorCode::WindowNotFound
                                )
                        };
                    let mut d = StepDetail {
                        message: Some(f.err.message.clone()),
                        locate_ms: self.clock.now_ms() - t0,
                        ..base.clone()
                    };
                    if !retryable {
                        d.screenshot = match &f.frame {
                            Some(fr) => self.save_shot(fr, r, i),
                            None => self.screenshot(lf, r, i),
                        };
                        if !f.candidates.is_empty() {
                            let _ = std::fs::write(
                                self.run_dir
                                    .join(format!("candidates-r{}-s{}.json", r + 1, i + 1)),
                                serde_json::to_string_pretty(&f.candidates).unwrap_or_default(),
                            );
                        }
                    }
                    if !retryable {
                        self.last_failure = Some((d.screenshot.clone(), f.candidates.clone()));
                    }
                    self.journal_result(run, r, i, attempt, Some(f.err.code), None, d.clone())?;
                    self.audit(
                        run,
                        r,
                        &step_id,
                        &base.action,
                        None,
                        None,
                        None,
                        None,
                        Some(f.err.code),
                        d.locate_ms,
                        d.screenshot.clone(),
                    );
                    if !retryable {
                        progress(self, "failed", &d, None, Some(f.err.code));
                        return Err(f.err);
                    }
                    progress(self, "retry", &d, None, Some(f.err.code));
                    compensate = f.acted;
                }
            }
        }
    }

    pub(super) fn timeout(&self, step: &Step) -> u64 {
        step.timeout_ms.unwrap_or(self.opts.timeout_ms)
    }

    pub(super) fn main_query(&self, lf: &LoadedFlow) -> Result<WindowQuery, MendError> {
        let mut q = WindowQuery::title(&lf.flow.window.title)?;
        q.class = lf.flow.window.class.clone();
        Ok(q)
    }

    pub(super) fn query_for(
        &self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
    ) -> Result<WindowQuery, MendError> {
        match &spec.window {
            Some(t) => Ok(self.dialog_queries(lf, &[t])?.remove(0)),
            None => self.main_query(lf),
        }
    }

    /// Queries for windows other than the main one (dialogs): each is a dialog of the run's
    /// main window when that window is open (`WM_TRANSIENT_FOR` picks it among look-alikes),
    /// and under a literal title it is also found by the same title in the UI vocabulary's
    /// other wording ("Save As" → 另存为) — only as that window's dialog.
    pub(super) fn dialog_queries(
        &self,
        lf: &LoadedFlow,
        patterns: &[&String],
    ) -> Result<Vec<WindowQuery>, MendError> {
        let main = self
            .main_query(lf)
            .and_then(|q| self.capture.find_window(&q))
            .ok();
        patterns
            .iter()
            .map(|p| {
                let q = WindowQuery::title(p)?;
                Ok(match &main {
                    Some(m) => q.of_owner(m.id, mend_locate::title_meanings(p)),
                    None => q,
                })
            })
            .collect()
    }

    pub(super) fn guard(&self, lf: &LoadedFlow) -> Result<Guard, MendError> {
        let mut allow = vec![self.main_query(lf)?];
        let dialogs: Vec<&String> = lf.flow.window.allow.iter().collect();
        allow.extend(self.dialog_queries(lf, &dialogs)?);
        for int in &lf.flow.interrupts {
            allow.push(WindowQuery::title(&int.window)?);
        }
        Ok(Guard::new(allow))
    }

    /// The guard on the frame the target was located in.
    pub(super) fn check_guard(&self, lf: &LoadedFlow, frame: &Frame) -> Result<(), MendError> {
        let window = frame
            .info
            .window
            .as_ref()
            .ok_or_else(|| err(ErrorCode::WindowNotFound, "the frame has no window"))?;
        self.guard(lf)?
            .check(self.capture.foreground()?.as_ref(), window)
    }

    pub(super) fn spend(&mut self, n: u32) -> Result<(), MendError> {
        if self.actions + n > self.opts.budget {
            return Err(err(
                ErrorCode::BudgetExceeded,
                format!(
                    "the run's action budget ({}) is spent; raise --budget if the flow really needs more",
                    self.opts.budget
                ),
            ));
        }
        self.actions += n;
        Ok(())
    }

    /// The same action on the same control on the same screen, again and again, is a loop.
    pub(super) fn note_action(
        &mut self,
        row: usize,
        what: &str,
        at: Rect,
        frame: &Frame,
    ) -> Result<Fingerprint, MendError> {
        let h = self.fp.hash(&frame.image);
        let n = self
            .seen
            .entry((row, what.to_string(), at, h.clone()))
            .or_insert(0);
        *n += 1;
        if *n > MAX_SAME {
            return Err(err(
                ErrorCode::LoopDetected,
                format!(
                    "'{what}' at {},{} on an unchanged screen for the {}th time; stopping instead of looping",
                    at.x, at.y, n
                ),
            ));
        }
        Ok(h)
    }

    pub(super) fn send(&mut self, a: &Input_) -> Result<(), MendError> {
        let r = self.input.perform(a);
        if let Input_::Click { at, .. } = a {
            self.last_click = Some((self.clock.now_ms(), *at));
        }
        r
    }

    /// The pointer left where the last click put it, over the window where a target is not
    /// found: what it hovers may be covered by what hovering shows (a tooltip over the next
    /// key, a highlight that hides a caption). It is moved off the window once, just above its
    /// top edge (the window manager's title bar), or below it when the window touches the
    /// screen's top. Only a move: nothing is pressed, and the pointer is left alone when the
    /// last click was elsewhere.
    pub(super) fn park_pointer(&mut self, frame: &Frame) {
        let Some((_, at)) = self.last_click else {
            return;
        };
        let screen = frame.info.to_screen(&frame.info.bounds());
        if !screen.contains(at) {
            return;
        }
        const OFF: i32 = 8;
        let y = if screen.y >= 2 * OFF {
            screen.y - OFF
        } else {
            screen.bottom() + OFF
        };
        let to = mend_model::Point {
            x: screen.x + screen.w / 2,
            y,
        };
        // A pointer that cannot be moved leaves the look as it was: the wait goes on.
        let _ = self.input.perform(&Input_::MoveTo { at: to });
    }

    /// Move the pointer over `caption` (frame pixels) and look again, for [`HOVER_MS`] at
    /// most: a flat button takes its hover shade the moment the pointer enters it. What lit up
    /// around the caption is the button ([`mend_vision::lit_by_hover`]), with the window's
    /// frame taken then; `None` when nothing did (the pointer is parked next, as for any target
    /// not found). Nothing is clicked or typed to find out.
    fn hover_probe(&mut self, frame: &Frame, caption: Rect) -> Option<(Frame, Rect)> {
        let id = frame.info.window.as_ref()?.id;
        let at = frame.info.to_screen(&caption).center();
        self.input.perform(&Input_::MoveTo { at }).ok()?;
        let deadline = self.clock.now_ms() + HOVER_MS;
        while self.clock.now_ms() < deadline {
            self.clock.sleep_ms(self.opts.poll_ms.clamp(10, 50));
            let now = self.capture.capture_window(id).ok()?;
            if let Some(b) = mend_vision::lit_by_hover(&frame.image, &now.image, caption) {
                return Some((now, b));
            }
        }
        None
    }

    /// Hold a click a toolkit could take for part of the click before ([`CLICK_APART_MS`]):
    /// one on an item of a popup (a menu, a drop-down list: the previous click opened it) or
    /// on the spot the previous click hit. Any other click goes at once: spacing every click
    /// would slow every step for a rule that only menus and double clicks have.
    pub(super) fn space_click(&mut self, frame: &Frame, located: &Located) {
        let Some((t, p)) = self.last_click else {
            return;
        };
        let c = located.screen_box.center();
        let in_popup = frame
            .info
            .popups
            .iter()
            .any(|r| r.contains(located.rect.center()));
        let same_spot = (c.x - p.x).abs() <= SAME_SPOT_PX && (c.y - p.y).abs() <= SAME_SPOT_PX;
        let since = self.clock.now_ms().saturating_sub(t);
        if (in_popup || same_spot) && since < CLICK_APART_MS {
            self.clock.sleep_ms(CLICK_APART_MS - since);
        }
    }

    /// Locate a target, waiting (and dismissing interrupts) while it is not there yet.
    pub(super) fn locate_wait(
        &mut self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
        vars: &Row,
        timeout: u64,
    ) -> Result<(Frame, Located), Fail> {
        let q = self.query_for(lf, spec)?;
        let target = target_of(spec, vars)?;
        let recorded = Recorded {
            template: spec
                .crop
                .as_ref()
                .and_then(|c| lf.templates.get(c).cloned()),
        };
        let deadline = self.clock.now_ms() + timeout;
        let mut parked = false;
        let mut hovered = false;
        let mut fits = 0;
        // A prompt whose caret was off in the last look: the next look waits for it on.
        let mut caret_on = false;
        loop {
            let t_poll = self.clock.now_ms();
            let frame = self.capture.capture(&q);
            let r = match frame {
                Ok(f) => match self.finder.find(&f, &target, &recorded) {
                    Ok(l)
                        if self
                            .passed_over
                            .get(&seen_key(spec, &target))
                            .is_some_and(|twins| twins.iter().any(|t| t.iou(&l.rect) > 0.5)) =>
                    {
                        Fail {
                            err: MendError::new(
                                ErrorCode::LocatorAmbiguous,
                                format!(
                                    "'{}' is found now only at {},{}, the twin passed over when its menu told the item apart: not the control chosen before. Nothing was clicked: open the menu and pick the item, or finish the step by hand",
                                    l.text, l.rect.x, l.rect.y
                                ),
                            ),
                            acted: false,
                            frame: Some(Box::new(f)),
                            candidates: vec![],
                        }
                    }
                    Ok(l) => {
                        self.last_seen
                            .insert(seen_key(spec, &target), (f.clone(), l.clone()));
                        self.menu_before = (target.role == Role::Menu).then(|| f.clone());
                        return Ok((f, l));
                    }
                    Err(refusal)
                        if refusal.error.code == ErrorCode::LocatorAmbiguous
                            && target.role == Role::Menu
                            && self.menu_before.is_some() =>
                    {
                        let before = self.menu_before.as_ref().expect("checked");
                        match opened_by_the_menu(before, &f, &refusal.candidates) {
                            Some(c) => {
                                let l = Located {
                                    strategy: mend_model::Strategy::FuzzyOcr,
                                    rect: c.rect,
                                    screen_box: f.info.to_screen(&c.rect),
                                    confidence: c.score,
                                    text: c.text.clone(),
                                    frame_id: f.info.id,
                                };
                                self.last_seen
                                    .insert(seen_key(spec, &target), (f.clone(), l.clone()));
                                self.passed_over.insert(
                                    seen_key(spec, &target),
                                    refusal
                                        .candidates
                                        .iter()
                                        .map(|o| o.rect)
                                        .filter(|r| *r != c.rect)
                                        .collect(),
                                );
                                self.menu_before = Some(f.clone());
                                return Ok((f, l));
                            }
                            None => Fail {
                                err: refusal.error,
                                acted: false,
                                frame: Some(Box::new(f)),
                                candidates: refusal.candidates,
                            },
                        }
                    }
                    Err(refusal) => {
                        if let Some(caption) = refusal.caret_awaited {
                            caret_on = self.await_caret(&f, caption, deadline);
                        }
                        // A button's caption read on no control: the pointer over it shows
                        // whether it lights up as a flat button does (once per step).
                        if let Some(caption) = refusal.hover_asked.filter(|_| !hovered) {
                            hovered = true;
                            if let Some((now, rect)) = self.hover_probe(&f, caption) {
                                let l = Located {
                                    strategy: mend_model::Strategy::FuzzyOcr,
                                    rect,
                                    screen_box: now.info.to_screen(&rect),
                                    confidence: 1.0,
                                    text: target.text.clone().unwrap_or_default(),
                                    frame_id: now.info.id,
                                };
                                self.last_seen
                                    .insert(seen_key(spec, &target), (now.clone(), l.clone()));
                                self.menu_before = None;
                                return Ok((now, l));
                            }
                        }
                        Fail {
                            err: refusal.error,
                            acted: false,
                            frame: Some(Box::new(f)),
                            candidates: refusal.candidates,
                        }
                    }
                },
                Err(e) => Fail::from(e),
            };
            let waitable = matches!(
                r.err.code,
                ErrorCode::LocatorNotFound | ErrorCode::WindowNotFound
            );
            // The last look is at a frame taken at the deadline or later: one look can outlast
            // the whole timeout (a file chooser read in a debug build under load), and a target
            // that showed while it ran must not be refused for a frame taken before it did.
            let last_look = t_poll + self.opts.poll_ms * 4 >= deadline;
            // A window reaching past the screen's edge (a dialog taller than the screen) may
            // hold the target beyond it: fitted onto the screen, and when its least size is
            // still too large, slid so its bottom edge shows (its buttons), then its right edge
            // too. A window moved is looked at again, past the deadline too (three times at
            // most).
            let mut moved = false;
            if r.err.code == ErrorCode::LocatorNotFound && fits < 3 {
                if let Some(f) = r.frame.as_deref() {
                    let to = match fits {
                        0 => fit_onto_screen(&f.info),
                        1 => slide_onto_screen(&f.info, false),
                        _ => slide_onto_screen(&f.info, true),
                    };
                    fits = if to.is_some() { fits + 1 } else { 3 };
                    if let Some((window, to)) = to {
                        // A window manager that will not move it leaves the look as it was.
                        moved = self.input.perform(&Input_::Fit { window, to }).is_ok();
                    }
                }
            }
            if !waitable || (self.clock.now_ms() >= deadline && last_look && !moved) {
                return Err(beyond_the_screen(r));
            }
            if self.clock.now_ms() >= deadline && !moved {
                continue;
            }
            if !parked && r.err.code == ErrorCode::LocatorNotFound {
                parked = true;
                if let Some(f) = &r.frame {
                    self.park_pointer(f);
                }
            }
            self.handle_interrupts(lf, vars)?;
            // A caret just seen on is looked at at once: it is on for a blink's half only.
            if !std::mem::take(&mut caret_on) {
                self.clock.sleep_ms(self.opts.poll_ms * 4);
            }
            // Not there yet: this poll was spent waiting for the application.
            self.app_wait_ms += self.clock.now_ms() - t_poll;
        }
    }

    /// Wait, until `deadline` and [`CARET_BLINK_MS`] at most, for the caret of the prompt
    /// captioned at `caption` in `frame`'s window to show (a blinking caret is off half the
    /// time, and a line with no caret is no input): whether it did. Looks at the window only,
    /// a capture every poll, no reading.
    fn await_caret(&mut self, frame: &Frame, caption: Rect, deadline: u64) -> bool {
        let Some(id) = frame.info.window.as_ref().map(|w| w.id) else {
            return false;
        };
        let until = deadline.min(self.clock.now_ms() + CARET_BLINK_MS);
        while self.clock.now_ms() < until {
            self.clock.sleep_ms(self.opts.poll_ms);
            let Ok(now) = self.capture.capture_window(id) else {
                return false;
            };
            if now.image.dimensions() == frame.image.dimensions()
                && mend_vision::prompt_input(&now.image, caption).is_some_and(|p| p.caret)
            {
                return true;
            }
        }
        false
    }

    /// Locate, guard (dismissing an interrupt that blocks, waiting up to [`FOCUS_LAND_MS`] for a
    /// focus that is nowhere), note the action; the frame and the
    /// control to act on.
    pub(super) fn locate_guarded(
        &mut self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
        vars: &Row,
        timeout: u64,
        row: usize,
        what: &str,
    ) -> Result<(Frame, Located, Fingerprint), Fail> {
        let mut tries = 0;
        let mut unfocused_ms = 0;
        loop {
            let (frame, located) = self.locate_wait(lf, spec, vars, timeout)?;
            if self.let_new_window_settle(&frame, timeout) {
                continue; // it may have painted since the frame: look again
            }
            // Before the guard, which reads the live foreground: nothing slips in between the
            // guard and the input, and the wait is no different from a slower locate.
            if sends_a_click(what) {
                self.space_click(&frame, &located);
            }
            match self.check_guard(lf, &frame) {
                Ok(()) => {
                    let h = self.note_action(row, what, located.screen_box, &frame)?;
                    return Ok((frame, located, h));
                }
                // No window has the focus: the window manager is between two windows (one
                // closing, a message box mapping). Nothing is sent; wait a moment for the focus
                // to land, then look again — the new window may be an interrupt's.
                Err(e)
                    if e.code == ErrorCode::WindowBlocked
                        && unfocused_ms < FOCUS_LAND_MS
                        && matches!(self.capture.foreground(), Ok(None)) =>
                {
                    self.clock.sleep_ms(FOCUS_POLL_MS);
                    unfocused_ms += FOCUS_POLL_MS;
                }
                Err(e) if e.code == ErrorCode::WindowBlocked && tries < 2 => {
                    tries += 1;
                    if !self.handle_interrupts(lf, vars)? {
                        return Err(Fail {
                            err: e,
                            acted: false,
                            frame: Some(Box::new(frame)),
                            candidates: vec![],
                        });
                    }
                }
                Err(e) => {
                    return Err(Fail {
                        err: e,
                        acted: false,
                        frame: Some(Box::new(frame)),
                        candidates: vec![],
                    })
                }
            }
        }
    }

    /// Type the text, the guard checked before it and the focus with every key (the backend's
    /// promise, per character or per batch under a server grab): a window that steals the
    /// focus mid-text receives nothing.
    pub(super) fn type_guarded(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        text: &str,
    ) -> Result<(), MendError> {
        self.type_counted(lf, frame, text)
            .map_err(|(n, e)| stopped_after(n, text, e))
    }

    /// Click a field again after an interrupt was dismissed, and wait for it to take the click.
    fn click_field_again(
        &mut self,
        frame: &Frame,
        field: Rect,
        click: &Input_,
    ) -> Result<(), MendError> {
        self.send(click)?;
        self.await_change(frame, field, FOCUS_WAIT_MS);
        Ok(())
    }

    /// The title of a window on the screen now that was not at the last input.
    fn window_opened_since_input(&self) -> Option<String> {
        let known = self.known_windows.as_ref()?;
        let now = self.capture.windows().ok()?;
        now.into_iter()
            .find(|w| !known.contains(&w.id))
            .map(|w| w.title)
    }

    /// [`Runner::type_guarded`], a stop with how many characters went out before it.
    fn type_counted(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        text: &str,
    ) -> Result<(), (usize, MendError)> {
        let window = frame
            .info
            .window
            .as_ref()
            .map(|w| w.id)
            .ok_or_else(|| (0, err(ErrorCode::WindowNotFound, "the frame has no window")))?;
        self.check_guard(lf, frame).map_err(|e| (0, e))?;
        // The backend checks the focus and sends the keys atomically: a window that takes the
        // focus mid-text gets nothing.
        if !self.paced {
            return self.input.type_text_into(window, text);
        }
        // A redo: one key at a time, each with the same focus check, at a typist's pace.
        for (n, c) in text.chars().enumerate() {
            if n > 0 {
                self.clock.sleep_ms(crate::run::KEY_PACE_MS);
            }
            self.input.type_into(window, c).map_err(|e| (n, e))?;
        }
        Ok(())
    }

    /// Type into the field clicked by `click`: when an interrupt (a session notice) came up
    /// in front before the first key went out, it is dismissed, the field clicked again and
    /// the text typed then. A stop after some keys went out stays a stop: re-typing part of
    /// a text needs the field emptied first, and a person decides.
    fn type_into_field(
        &mut self,
        lf: &LoadedFlow,
        vars: &Row,
        frame: &Frame,
        field: Rect,
        click: &Input_,
        text: &str,
    ) -> Result<(), MendError> {
        // A window that opened since the click (a session notice mapping) may hold the
        // application's keyboard grab before the window manager gives it the focus: keys
        // sent to the field then are dropped, or reach the new window once it is in front.
        // None is sent until it is handled or gone. An interrupt's window that is up already
        // (mapped just before the click, and not in front yet) is handled first.
        if self.handle_interrupts(lf, vars)? {
            self.click_field_again(frame, field, click)?;
        }
        let first = match self.window_opened_since_input() {
            Some(title) => Err((
                0,
                err(
                    ErrorCode::WindowBlocked,
                    format!("'{title}' opened after the field was clicked; no key sent"),
                ),
            )),
            None => self.type_counted(lf, frame, text),
        };
        match first {
            Err((0, e))
                if e.code == ErrorCode::WindowBlocked && self.handle_interrupts(lf, vars)? =>
            {
                self.click_field_again(frame, field, click)?;
                self.type_guarded(lf, frame, text)
            }
            Ok(()) => Ok(()),
            Err((n, e)) => Err(stopped_after(n, text, e)),
        }
    }

    /// One attempt at a step (or a compensation step when `at` is `None`: no journal).
    pub(super) fn attempt(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        compensate: bool,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let timeout = self.timeout(step);
        let t0 = self.clock.now_ms();
        // A watch left by an attempt that failed before settling is not this attempt's.
        self.armed = None;
        let row = at.map_or(usize::MAX, |a| a.row);
        let mut d = StepDetail::default();
        // A menu item the step before chose by releasing the button on it: done; its verify
        // still decides.
        if let Some(a) = at.filter(|a| self.held_through == Some((a.row, a.step))) {
            self.held_through = None;
            let what = action_name(&step.action);
            let frame = self.capture.capture(&self.main_query(lf)?)?;
            let h = self.fp.hash(&frame.image);
            d.message = Some(
                "chosen from the menu the step before held open (released on it): not clicked again".into(),
            );
            self.intent(Some(a), &what)?;
            self.acted(Some(a))?;
            self.arm(lf, None);
            self.after_act(lf, step, vars, &mut d, Some(a), &what, None, &h)?;
            return Ok((None, d));
        }
        // Undo a half-done attempt first; for `type`, after focusing the field (below).
        if compensate && step.action != Action::Type {
            self.compensate(lf, step, vars)?;
        }
        let what = action_name(&step.action);
        match step.action {
            Action::WaitFor | Action::Assert => {
                self.intent(at, &what)?;
                // An assertion may wait for a slow screen as long as the step's timeout;
                // what differs from wait_for is the code when it never holds.
                let code = if step.action == Action::Assert {
                    ErrorCode::AssertionFailed
                } else {
                    ErrorCode::ActionTimeout
                };
                self.wait_checks(lf, &step.check, vars, timeout, code)?;
                d.settle_ms = self.clock.now_ms() - t0;
                return Ok((None, d));
            }
            Action::Focus => {
                self.intent(at, &what)?;
                let q = self.main_query(lf)?;
                let deadline = self.clock.now_ms() + timeout;
                loop {
                    let w = self.capture.find_window(&q)?;
                    if self.capture.foreground()?.is_some_and(|f| f.id == w.id) {
                        break;
                    }
                    if self.clock.now_ms() >= deadline {
                        return Err(Fail::from(err(
                            ErrorCode::WindowBlocked,
                            format!(
                                "'{}' did not come to the front within {timeout} ms",
                                w.title
                            ),
                        )));
                    }
                    self.handle_interrupts(lf, vars)?;
                    self.clock.sleep_ms(self.opts.poll_ms);
                }
                d.settle_ms = self.clock.now_ms() - t0;
                return Ok((None, d));
            }
            Action::Key => {
                let keys = parse_keys(step.keys.as_deref().unwrap_or_default())?;
                let q = self.main_query(lf)?;
                let frame = self.capture.capture(&q)?;
                if let Err(e) = self.check_guard(lf, &frame) {
                    if !(e.code == ErrorCode::WindowBlocked && self.handle_interrupts(lf, vars)?) {
                        return Err(e.into());
                    }
                    self.check_guard(lf, &frame)?;
                }
                // A key's identity is its keys: a keyboard-driven text UI presses `=`, Return,
                // `P`, Return in four steps while its screen changes by one line (sc), which
                // is no loop; the same keys again and again on an unchanged screen are.
                let keyed = format!("{what} {}", step.keys.as_deref().unwrap_or_default());
                let h = self.note_action(row, &keyed, frame.info.bounds(), &frame)?;
                self.spend(1)?;
                self.intent(at, &what)?;
                let t1 = self.clock.now_ms();
                self.arm(lf, Some(&frame));
                self.send(&Input_::Keys { keys }).map_err(|e| Fail {
                    acted: true,
                    ..Fail::from(e)
                })?;
                self.acted(at)?;
                d.act_ms = self.clock.now_ms() - t1;
                self.after_act(lf, step, vars, &mut d, at, &what, None, &h)?;
                return Ok((None, d));
            }
            _ => {}
        }
        let spec = step.target.as_ref().ok_or_else(|| {
            Fail::from(err(
                ErrorCode::FlowInvalid,
                format!("{what} needs a target"),
            ))
        })?;
        let located_at = self.locate_guarded(lf, spec, vars, timeout, row, &what);
        self.audit_notes(at);
        let (frame, located, h) = located_at?;
        d.locate_ms = self.clock.now_ms() - t0;
        if let Some(a) = at.filter(|a| self.opts.record && a.row == 0) {
            let pixels = target_of(spec, vars)
                .ok()
                .and_then(|t| self.finder.crop_for(&frame, &t, located.rect))
                .and_then(|r| mend_vision::crop(&frame.image, r));
            self.recorded.insert(a.step, (located.rect, pixels));
        }
        d.confidence = Some(located.confidence);
        d.rect = Some(located.rect);
        if matches!(step.action, Action::Check | Action::Uncheck) {
            let want = step.action == Action::Check;
            return self.set_check(lf, step, vars, at, &what, &frame, located, &h, d, want);
        }
        let c = located.screen_box.center();
        let drop_at = match (&step.action, &step.to) {
            (Action::Drag, Some(to)) => {
                let (_, l) = self.locate_wait(lf, to, vars, timeout)?;
                Some(l.screen_box.center())
            }
            _ => None,
        };
        self.spend(1)?;
        self.intent(at, &what)?;
        let t1 = self.clock.now_ms();
        let acted = |e: MendError| Fail {
            err: e,
            acted: true,
            frame: None,
            candidates: vec![],
        };
        let first = match step.action {
            Action::Click | Action::Type => Input_::click(c),
            Action::DoubleClick => Input_::Click {
                at: c,
                button: MouseButton::Left,
                count: 2,
            },
            Action::RightClick => Input_::Click {
                at: c,
                button: MouseButton::Right,
                count: 1,
            },
            Action::Scroll => Input_::Scroll {
                at: c,
                lines: step.lines.unwrap_or(1),
            },
            Action::Drag => Input_::Drag {
                from: c,
                to: drop_at.unwrap_or(c),
            },
            _ => unreachable!("targetless actions returned above"),
        };
        self.arm(lf, Some(&frame));
        self.send(&first).map_err(acted)?;
        if opens_a_menu(step, located.rect) {
            // A menu bar's title that shows nothing below it after the click did not take it:
            // Swing drops a click that lands while its window is being activated (jEdit, after
            // a dialog closed, under load). A second click is safe here: a title opens a menu
            // and does nothing else, and one the app took late only closes it again (then the
            // next step refuses). Never for a menu's items: those act.
            let h = located.rect.h.max(8);
            let below = Rect::new(located.rect.x - 2 * h, located.rect.y, 24 * h, 12 * h);
            let menu = (below, (4 * h * h) as usize);
            if !self.shows_change(&frame, menu.0, menu.1, MENU_WAIT_MS) {
                self.send(&first).map_err(acted)?;
                d.message = Some("the menu did not open after the click: clicked again".into());
                // Two clicks and still no menu: one that lives only while the button is held
                // (Athena's, XForms'), opened by the press and shut by the release. Held open,
                // the next step's item is chosen by releasing the button on it.
                if !self.shows_change(&frame, menu.0, menu.1, MENU_WAIT_MS) {
                    if let Some(why) = self
                        .choose_from_held_menu(lf, vars, at, &frame, menu, c)
                        .map_err(|f| Fail { acted: true, ..f })?
                    {
                        d.message = Some(why);
                    }
                }
            }
        }
        if step.action != Action::Type {
            self.acted(at).map_err(acted)?;
        }
        if step.action == Action::Type {
            // The application moves its keyboard focus when it handles the click, not when the
            // server delivers it: keys sent at once can reach the old focus (ctrl+a did, in
            // the practice app). Wait until the field shows the click (its caret), briefly.
            self.await_change(&frame, located.rect, FOCUS_WAIT_MS);
            // An interrupt (a session notice) that came up between the click and the first
            // key: dismissed, and the field clicked again, before any key goes out. Looked for
            // here when keys go out before the text (a compensation, emptying the field);
            // else typing the text checks it first (`type_into_field`).
            if (compensate || step.clear)
                && self.check_guard(lf, &frame).is_err()
                && self.handle_interrupts(lf, vars).map_err(acted)?
            {
                self.click_field_again(&frame, located.rect, &first)
                    .map_err(acted)?;
            }
            if compensate {
                self.compensate(lf, step, vars)
                    .map_err(|f| Fail { acted: true, ..f })?;
            }
            let text = substitute(step.text.as_deref().unwrap_or_default(), vars, self.secrets)
                .map_err(acted)?;
            // A redo leaves the field holding exactly the text (run/field.rs): read it first,
            // else empty it and see it empty before typing.
            let replace = compensate && step.types_into_field();
            // Typed again at a typist's pace: keys sent at once can race a completion that
            // lost one of them the first time (a file box completing `/r` to `/root/`).
            self.paced = replace;
            let was_blank = mend_vision::field_is_blank(&frame.image, located.rect);
            if replace && self.field_holds(&frame, located.rect, &text) {
                d.message = Some("the field already held the text: not typed again".into());
            } else {
                if step.clear || replace {
                    let emptied = self
                        .empty_field(lf, &frame, located.rect, text.chars().count())
                        .map_err(acted)?;
                    if replace {
                        d.message = Some(
                            if emptied {
                                "redone: the field held other text, emptied before typing"
                            } else {
                                "redone: the field was empty"
                            }
                            .into(),
                        );
                    }
                }
                let typed = self.type_into_field(lf, vars, &frame, located.rect, &first, &text);
                self.paced = false;
                typed.map_err(acted)?;
                self.acted(at).map_err(acted)?;
                // An empty field that was typed into shows something, or the keys went astray.
                if step.types_into_field()
                    && !text.is_empty()
                    && (was_blank || step.clear || replace)
                {
                    self.expect_filled(&frame, located.rect, FILLED_WAIT_MS)
                        .map_err(acted)?;
                }
                // A field meant to hold only the text (it was empty, or emptied for it) reads
                // the text, not more (something written into it after the emptying, a
                // completion). Without `clear` the text is added to what a field held, by the
                // flow's word. A secret is never read back (nor written into a message).
                let secret = step.text.as_deref().is_some_and(|t| {
                    mend_model::references(t)
                        .iter()
                        .any(|r| r.starts_with("secret:"))
                });
                if step.types_into_field()
                    && !text.trim().is_empty()
                    && (was_blank || step.clear || replace)
                    && !secret
                {
                    self.expect_value(lf, &frame, located.rect, &text)
                        .map_err(acted)?;
                }
            }
        }
        d.act_ms = self.clock.now_ms() - t1;
        self.after_act(lf, step, vars, &mut d, at, &what, Some(&located), &h)?;
        Ok((Some(located), d))
    }

    /// A menu bar's title whose menu lives only while the button is held: press on the title
    /// at `title` (screen), and while the menu shows (`menu`: where it drops and how many
    /// pixels must change there, as for a click), find the next step's item (a `read`
    /// click on a `menu` target, found and guarded as any target is) and release the button
    /// on it; the next step is then done (`held_through`). Nothing found, or a window not
    /// allowed in front: the button is released on the title, which chooses nothing. `None`
    /// when the next step is no menu item (nothing is pressed).
    fn choose_from_held_menu(
        &mut self,
        lf: &LoadedFlow,
        vars: &Row,
        at: Option<At>,
        frame: &Frame,
        menu: (Rect, usize),
        title: mend_model::Point,
    ) -> Result<Option<String>, Fail> {
        let Some(a) = at else {
            return Ok(None);
        };
        let Some(next) = lf.flow.steps.get(a.step + 1) else {
            return Ok(None);
        };
        let Some(spec) = next.target.as_ref().filter(|t| {
            next.action == Action::Click
                && next.risk == Risk::Read
                && t.role.as_deref().and_then(Role::parse) == Some(Role::Menu)
        }) else {
            return Ok(None);
        };
        self.check_guard(lf, frame)?;
        self.send(&Input_::Press { at: title })?;
        let chosen = if self.shows_change(frame, menu.0, menu.1, MENU_WAIT_MS) {
            match self.locate_wait(lf, spec, vars, MENU_WAIT_MS) {
                Ok((f, l)) if self.check_guard(lf, &f).is_ok() => Some(l),
                _ => None,
            }
        } else {
            None
        };
        let to = chosen.as_ref().map_or(title, |l| l.screen_box.center());
        self.send(&Input_::Release { at: to })?;
        Ok(Some(match chosen {
            Some(l) => {
                self.held_through = Some((a.row, a.step + 1));
                format!(
                    "the menu opened only while the button was held: held open, '{}' chosen by releasing the button on it (the next step)",
                    l.text
                )
            }
            None => "the menu opened neither on a click nor while the button was held (or its item was not there): released on the title, nothing chosen".into(),
        }))
    }

    /// Settle, then the step's own checks; one audit line for the action.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn after_act(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        d: &mut StepDetail,
        at: Option<At>,
        what: &str,
        located: Option<&Located>,
        frame_hash: &Fingerprint,
    ) -> Result<(), Fail> {
        let timeout = self.timeout(step);
        let t2 = self.clock.now_ms();
        let settled = self.settle(lf, timeout);
        d.settle_ms = self.clock.now_ms() - t2;
        d.settled = self.last_settle;
        self.app_wait_ms += d.settle_ms;
        let code = settled.as_ref().err().map(|e| e.code);
        if let Some(a) = at {
            self.audit(
                a.run,
                a.row,
                &step.id.clone().unwrap_or_else(|| format!("{}", a.step + 1)),
                what,
                located.map(|l| l.strategy.as_str()),
                located.map(|l| l.confidence),
                located.map(|l| l.rect),
                Some(frame_hash),
                code,
                d.locate_ms + d.act_ms + d.settle_ms,
                None,
            );
        }
        settled.map_err(|e| Fail {
            acted: true,
            ..Fail::from(e)
        })?;
        if !step.check.is_empty() {
            self.wait_checks(lf, &step.check, vars, timeout, ErrorCode::AssertionFailed)
                .map_err(|f| Fail { acted: true, ..f })?;
        }
        // The step's `verify` tells that it took effect: it must come true after the input,
        // or the run would call done a write that never happened (a Qt file dialog's Save
        // whose click did not take: exit 0, the dialog still open, no file).
        // A menu title whose item the held button chose: its menu is shut again, and the next
        // step's verify tells what the choice did.
        let held = at.is_some_and(|a| self.held_through == Some((a.row, a.step + 1)));
        if let Some(v) = step.verify.as_ref().filter(|_| !held) {
            self.wait_checks(lf, std::slice::from_ref(v), vars, timeout, ErrorCode::StepNotVerified)
                .map_err(|f| {
                    let mut f = Fail { acted: true, ..f };
                    if f.err.code == ErrorCode::StepNotVerified {
                        f.err.message = format!(
                            "the {what} went out but its verify ({}) did not hold within {timeout} ms: the input may not have taken effect, or the verify is wrong. Look at the application: finish the step by hand (then resume) or fix the verify",
                            describe_check(v)
                        );
                    }
                    f
                })?;
        }
        Ok(())
    }

    /// Run a step's compensation steps (no journal of their own: they belong to the step).
    pub(super) fn compensate(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
    ) -> Result<(), Fail> {
        for c in &step.compensation {
            self.attempt(lf, c, vars, None, false)?;
        }
        Ok(())
    }
}

/// How long a menu bar's title has to show its menu before it is clicked again.
const MENU_WAIT_MS: u64 = 1500;

/// How long a caption under the pointer is watched for a hover shade: toolkits light a flat
/// button on the pointer's entry (Tk, GTK, Qt), well before a tooltip's delay (0.5–0.7 s).
const HOVER_MS: u64 = 300;

/// How long a prompt's caret is waited for to show: a cursor blinks on and off within a
/// second or so (Emacs 0.5 s each way, GTK 0.6 s, Windows 0.53 s).
const CARET_BLINK_MS: u64 = 1500;

/// Whether a step of this action (by its name) starts its input with a click: a type clicks
/// its field first, a check its box.
fn sends_a_click(what: &str) -> bool {
    matches!(
        what,
        "click" | "double_click" | "right_click" | "type" | "check" | "uncheck"
    )
}

/// A plain click on a menu title in the window's menu bar: a `menu` target in the top two text
/// heights of the window's client area (a popup's items hang below the bar), reading only.
fn opens_a_menu(step: &Step, at: Rect) -> bool {
    step.action == Action::Click
        && step.risk == Risk::Read
        && step
            .target
            .as_ref()
            .and_then(|t| t.role.as_deref())
            .and_then(Role::parse)
            == Some(Role::Menu)
        && at.y < 2 * at.h.max(8)
}

/// A type step's stop after `n` characters of `text` went out.
fn stopped_after(n: usize, text: &str, e: MendError) -> MendError {
    err(
        e.code,
        format!(
            "typing stopped after {n} of {} characters: {}",
            text.chars().count(),
            e.message
        ),
    )
}

/// Whether the frame's window reaches past the screen's edge: the frame is cut where the screen
/// ends, so a window larger than its frame runs past it (a dialog taller than the screen at a
/// high DPI or scale). `false` for a whole-screen frame.
pub(super) fn past_the_screen(info: &mend_model::FrameInfo) -> bool {
    let Some(w) = info.window.as_ref() else {
        return false;
    };
    let inside = info.from_screen(&w.rect);
    let b = info.bounds();
    inside.x < b.x || inside.y < b.y || inside.right() > b.right() || inside.bottom() > b.bottom()
}

/// A title bar's height, left above a window fitted onto the screen.
const TITLE_BAR: i32 = 32;

/// Where to put a window that reaches past the screen's edge so all of it shows (frame
/// top-left, client size): moved onto the screen and, where it runs past the right or bottom
/// edge, sized to the screen. `None` when the whole window is on the screen.
pub(super) fn fit_onto_screen(info: &mend_model::FrameInfo) -> Option<(u32, Rect)> {
    if !past_the_screen(info) {
        return None;
    }
    let w = info.window.as_ref()?;
    let inside = info.from_screen(&w.rect);
    let b = info.bounds();
    let (past_right, past_bottom) = (inside.right() > b.right(), inside.bottom() > b.bottom());
    // The screen's right and bottom edges are where the frame was cut.
    let (screen_r, screen_b) = (
        info.origin.x + info.width as i32,
        info.origin.y + info.height as i32,
    );
    let x = if inside.x < b.x || past_right {
        0
    } else {
        w.rect.x
    };
    let width = if past_right { screen_r - 4 } else { w.rect.w };
    let height = if past_bottom {
        screen_b - TITLE_BAR
    } else {
        w.rect.h
    };
    Some((w.id, Rect::new(x, 0, width.max(1), height.max(1))))
}

/// A window still past the screen's bottom or right edge after [`fit_onto_screen`] (its least
/// size is larger than the screen): slid up so its bottom edge shows, its top past the
/// screen's top; and, `across` (or when it runs past the right edge only), left so its right
/// edge shows (a dialog's OK, the far end of its form), its left part past the screen's left
/// edge. A later target in the part slid away is brought back by the next fit.
pub(super) fn slide_onto_screen(info: &mend_model::FrameInfo, across: bool) -> Option<(u32, Rect)> {
    let w = info.window.as_ref()?;
    let (inside, b) = (info.from_screen(&w.rect), info.bounds());
    let past_bottom = inside.bottom() > b.bottom();
    let past_right = inside.right() > b.right() && (across || !past_bottom);
    if !past_bottom && !past_right {
        return None;
    }
    let (screen_r, screen_b) = (
        info.origin.x + info.width as i32,
        info.origin.y + info.height as i32,
    );
    let x = if past_right {
        screen_r - w.rect.w - 4
    } else {
        w.rect.x
    };
    let y = if past_bottom {
        screen_b - w.rect.h - TITLE_BAR
    } else {
        w.rect.y
    };
    Some((w.id, Rect::new(x, y, w.rect.w, w.rect.h)))
}

/// A refusal in a window that reaches past the screen says so: the control may lie beyond the
/// edge, where no reading can find it, and a person can make the window fit.
fn beyond_the_screen(mut f: Fail) -> Fail {
    if f.err.code != ErrorCode::LocatorNotFound {
        return f;
    }
    let Some(info) = f.frame.as_ref().map(|fr| &fr.info) else {
        return f;
    };
    if let (Some(w), true) = (info.window.as_ref(), past_the_screen(info)) {
        f.err.message = format!(
            "{} The window ({}x{} at {},{}) reaches past the screen's edge, also after Mend asked the window manager to fit it: the control may lie beyond it. Make the window fit the screen (move or shrink it, a lower DPI or scale, a larger screen), then resume",
            f.err.message, w.rect.w, w.rect.h, w.rect.x, w.rect.y
        );
    }
    f
}

/// Of the candidates for a menu item the text could not tell apart, the one the menu just
/// opened shows: the only one whose pixels changed since `before`, the frame the menu's title
/// was found in (a text UI's open menu holds `Mkdir`, and its function-key bar, there before
/// the click, `7Mkdir`). Another window, another size, none changed or more than one: no
/// answer, the refusal stands.
pub(super) fn opened_by_the_menu<'a>(
    before: &Frame,
    now: &Frame,
    candidates: &'a [Candidate],
) -> Option<&'a Candidate> {
    if !super::screen::same_window(before, now)
        || before.image.dimensions() != now.image.dimensions()
        || before.info.origin != now.info.origin
        || candidates.len() < 2
    {
        return None;
    }
    let changed = |r: &Rect| -> bool {
        match (
            mend_vision::crop(&before.image, *r),
            mend_vision::crop(&now.image, *r),
        ) {
            (Some(a), Some(b)) => {
                let all = (a.width() * a.height()) as usize;
                all > 0 && mend_vision::pixels_changed(&a, &b, 40) * 5 >= all
            }
            _ => false,
        }
    };
    // Only the tied ones: a candidate the text ranked lower is no twin.
    let best = candidates.iter().map(|c| c.score).fold(f64::MIN, f64::max);
    let mut fresh = candidates
        .iter()
        .filter(|c| c.score >= best - 0.15 && changed(&c.rect));
    let one = fresh.next()?;
    fresh.next().is_none().then_some(one)
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use mend_model::{FrameInfo, Point, WindowInfo};

    fn frame(window: Rect, origin: Point, w: u32, h: u32) -> FrameInfo {
        FrameInfo {
            id: 1,
            monitor: "screen".into(),
            scale_factor: 1.0,
            origin,
            width: w,
            height: h,
            window: Some(WindowInfo {
                id: 42,
                title: "Save File As".into(),
                app_name: "abiword".into(),
                pid: 1,
                rect: window,
                focused: true,
                owner: Some(7),
                takes_no_focus: false,
            }),
            popups: vec![],
        }
    }

    /// AbiWord's Save File As, 822 px tall at y 20 on a 1280×800 screen: the frame is cut at
    /// the screen's bottom (780 px) and its Save button lies below it.
    #[test]
    fn a_window_past_the_screens_edge_is_told_apart() {
        let info = frame(
            Rect::new(93, 20, 1096, 822),
            Point { x: 93, y: 20 },
            1096,
            780,
        );
        assert!(past_the_screen(&info));
        let info = frame(
            Rect::new(300, 20, 2192, 1644),
            Point { x: 300, y: 20 },
            980,
            780,
        );
        assert!(past_the_screen(&info));
        let info = frame(
            Rect::new(10, -40, 300, 200),
            Point { x: 10, y: 0 },
            300,
            160,
        );
        assert!(past_the_screen(&info));
        let refusal = beyond_the_screen(Fail {
            err: MendError::new(ErrorCode::LocatorNotFound, "no control matching 'Save'."),
            acted: false,
            frame: Some(Box::new(Frame {
                info: frame(
                    Rect::new(93, 20, 1096, 822),
                    Point { x: 93, y: 20 },
                    1096,
                    780,
                ),
                image: Default::default(),
            })),
            candidates: vec![],
        });
        assert!(
            refusal
                .err
                .message
                .contains("reaches past the screen's edge"),
            "{}",
            refusal.err.message
        );
    }

    /// A window wider than the screen whose least size the window manager kept (FileZilla's
    /// Site Manager at 1.5× text, 1506 px on a 1280 px screen): slid left so its right edge
    /// shows, its top where it was; one taller and wider, up and left.
    #[test]
    fn a_window_past_the_right_edge_is_slid_left() {
        let info = frame(
            Rect::new(1, 20, 1506, 617),
            Point { x: 1, y: 20 },
            1279,
            617,
        );
        let (id, to) = slide_onto_screen(&info, false).unwrap();
        assert_eq!(id, info.window.as_ref().unwrap().id);
        assert_eq!(to, Rect::new(1280 - 1506 - 4, 20, 1506, 617));
        // Taller and wider: up first (its left part stays), then up and left.
        let info = frame(
            Rect::new(0, 0, 1506, 1100),
            Point { x: 0, y: 0 },
            1280,
            1024,
        );
        let (_, to) = slide_onto_screen(&info, false).unwrap();
        assert_eq!(to, Rect::new(0, 1024 - 1100 - TITLE_BAR, 1506, 1100));
        let (_, to) = slide_onto_screen(&info, true).unwrap();
        assert_eq!(
            to,
            Rect::new(1280 - 1506 - 4, 1024 - 1100 - TITLE_BAR, 1506, 1100)
        );
    }

    #[test]
    fn a_window_on_the_screen_is_not_past_it() {
        let info = frame(
            Rect::new(93, 20, 600, 400),
            Point { x: 93, y: 20 },
            600,
            400,
        );
        assert!(!past_the_screen(&info));
        assert_eq!(fit_onto_screen(&info), None);
        assert_eq!(slide_onto_screen(&info, true), None);
        // A frame grown for a menu hanging outside the window: the window itself is whole.
        let info = frame(
            Rect::new(93, 20, 600, 400),
            Point { x: 80, y: 20 },
            613,
            500,
        );
        assert!(!past_the_screen(&info));
        let mut whole_screen = info.clone();
        whole_screen.window = None;
        assert!(!past_the_screen(&whole_screen));
    }
}
