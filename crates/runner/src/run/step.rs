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
