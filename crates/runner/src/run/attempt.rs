//! One attempt at a step: the targetless actions (wait, assert, focus, keys); the target
//! located and guarded; its input sent (a click of its kind, a menu title clicked again or held
//! open, text typed into the field clicked); then the screen settled, the step's checks and its
//! verify.

use super::*;

impl Runner<'_> {
    /// One attempt at a step (or a compensation step when `at` is `None`: no journal).
    pub(super) fn attempt(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        compensate: bool,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let t0 = self.clock.now_ms();
        // A watch left by an attempt that failed before settling is not this attempt's.
        self.armed = None;
        let mut d = StepDetail::default();
        // A menu item the step before chose by releasing the button on it: done; its verify
        // still decides.
        if let Some(a) = at.filter(|a| self.held_through == Some((a.row, a.step))) {
            self.held_through = None;
            return self.chosen_in_held_menu(lf, step, vars, a, d);
        }
        // Undo a half-done attempt first; for `type`, after focusing the field (below).
        if compensate && step.action != Action::Type {
            self.compensate(lf, step, vars)?;
        }
        let what = action_name(&step.action);
        match step.action {
            Action::WaitFor | Action::Assert => {
                return self.wait_or_assert(lf, step, vars, at, &what, t0, d);
            }
            Action::Focus => return self.focus_main_window(lf, step, vars, at, &what, t0, d),
            Action::Key => return self.press_keys(lf, step, vars, at, &what, d),
            _ => {}
        }
        let (frame, located, h) = self.find_target(lf, step, vars, at, &what, t0, &mut d)?;
        if matches!(step.action, Action::Check | Action::Uncheck) {
            let want = step.action == Action::Check;
            return self.set_check(lf, step, vars, at, &what, &frame, located, &h, d, want);
        }
        self.act_on_target(
            lf, step, vars, at, compensate, &what, &frame, &located, &mut d,
        )?;
        self.after_act(lf, step, vars, &mut d, at, &what, Some(&located), &h)?;
        Ok((Some(located), d))
    }

    /// The menu item at `a`, chosen by the step before releasing the button on it: journaled
    /// as sent without clicking it again, then settled and checked as any step.
    fn chosen_in_held_menu(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        a: At,
        mut d: StepDetail,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let what = action_name(&step.action);
        let frame = self.capture.capture(&self.main_query(lf)?)?;
        let h = self.fp.hash(&frame.image);
        d.message = Some(
            "chosen from the menu the step before held open (released on it): not clicked again"
                .into(),
        );
        self.intent(Some(a), &what)?;
        self.acted(Some(a))?;
        self.arm(lf, None);
        self.after_act(lf, step, vars, &mut d, Some(a), &what, None, &h)?;
        Ok((None, d))
    }

    /// A `wait_for` or `assert` step: its checks polled until they hold or the step's timeout
    /// passes. No input.
    #[allow(clippy::too_many_arguments)]
    fn wait_or_assert(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        what: &str,
        t0: u64,
        mut d: StepDetail,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let timeout = self.timeout(step);
        self.intent(at, what)?;
        // An assertion may wait for a slow screen as long as the step's timeout;
        // what differs from wait_for is the code when it never holds.
        let code = if step.action == Action::Assert {
            ErrorCode::AssertionFailed
        } else {
            ErrorCode::ActionTimeout
        };
        self.wait_checks(lf, &step.check, vars, timeout, code)?;
        d.settle_ms = self.clock.now_ms() - t0;
        Ok((None, d))
    }

    /// A `focus` step: wait, dismissing interrupts, until the main window is in front. No
    /// input of its own.
    #[allow(clippy::too_many_arguments)]
    fn focus_main_window(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        what: &str,
        t0: u64,
        mut d: StepDetail,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let timeout = self.timeout(step);
        self.intent(at, what)?;
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
        Ok((None, d))
    }

    /// A `key` step: the guard on the main window (an interrupt that blocks it dismissed
    /// once), the keys noted against a loop and sent, then settled and checked.
    fn press_keys(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        what: &str,
        mut d: StepDetail,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let row = at.map_or(usize::MAX, |a| a.row);
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
        self.intent(at, what)?;
        let t1 = self.clock.now_ms();
        self.arm(lf, Some(&frame));
        self.send(&Input_::Keys { keys }).map_err(|e| Fail {
            acted: true,
            ..Fail::from(e)
        })?;
        self.acted(at)?;
        d.act_ms = self.clock.now_ms() - t1;
        self.after_act(lf, step, vars, &mut d, at, what, None, &h)?;
        Ok((None, d))
    }

    /// The step's target located and guarded, the action noted against a loop
    /// ([`Runner::locate_guarded`]), the finder's notes audited, and with `opts.record` on the
    /// first row the control's box and crop kept: the frame, the control and the frame's
    /// fingerprint, with the locate's time, confidence and box in `d`.
    #[allow(clippy::too_many_arguments)]
    fn find_target(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        what: &str,
        t0: u64,
        d: &mut StepDetail,
    ) -> Result<(Frame, Located, Fingerprint), Fail> {
        let timeout = self.timeout(step);
        let row = at.map_or(usize::MAX, |a| a.row);
        let spec = step.target.as_ref().ok_or_else(|| {
            Fail::from(err(
                ErrorCode::FlowInvalid,
                format!("{what} needs a target"),
            ))
        })?;
        let located_at = self.locate_guarded(lf, spec, vars, timeout, row, what);
        self.audit_notes(at);
        let (frame, located, h) = located_at?;
        d.locate_ms = self.clock.now_ms() - t0;
        if let Some(a) = at.filter(|a| self.opts.record && a.row == 0) {
            let target = target_of(spec, vars).ok();
            let pixels = target
                .as_ref()
                .and_then(|t| self.finder.crop_for(&frame, t, located.rect))
                .and_then(|r| mend_vision::crop(&frame.image, r));
            // Its place in the window's tree, where the tree names its caption there.
            let tree = target
                .as_ref()
                .and_then(|t| t.text.as_deref())
                .and_then(|text| self.finder.tree_place(&frame, located.rect, text));
            self.recorded.insert(
                a.step,
                crate::RecordedTarget {
                    rect: located.rect,
                    pixels,
                    tree,
                },
            );
        }
        d.confidence = Some(located.confidence);
        d.rect = Some(located.rect);
        Ok((frame, located, h))
    }

    /// Send the step's input at the control `located` in `frame` (a drag's drop target located
    /// first): the budget spent and the intent journaled before it; a menu title whose menu
    /// does not show clicked again ([`Runner::reopen_menu_title`]); a type step's text typed
    /// into the field clicked ([`Runner::type_after_click`]); `acted` journaled once the input
    /// went out in full. The time it took in `d`.
    #[allow(clippy::too_many_arguments)]
    fn act_on_target(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        compensate: bool,
        what: &str,
        frame: &Frame,
        located: &Located,
        d: &mut StepDetail,
    ) -> Result<(), Fail> {
        let timeout = self.timeout(step);
        let c = located.screen_box.center();
        let drop_at = match (&step.action, &step.to) {
            (Action::Drag, Some(to)) => {
                let (_, l) = self.locate_wait(lf, to, vars, timeout)?;
                Some(l.screen_box.center())
            }
            _ => None,
        };
        self.spend(1)?;
        self.intent(at, what)?;
        let t1 = self.clock.now_ms();
        let first = first_input(step, c, drop_at);
        self.arm(lf, Some(frame));
        self.send(&first).map_err(failed_after_input)?;
        if opens_a_menu(step, located.rect) {
            self.reopen_menu_title(lf, vars, at, frame, located.rect, &first, c, d)?;
        }
        if step.action != Action::Type {
            self.acted(at).map_err(failed_after_input)?;
        }
        if step.action == Action::Type {
            self.type_after_click(
                lf,
                step,
                vars,
                at,
                compensate,
                frame,
                located.rect,
                &first,
                d,
            )?;
        }
        d.act_ms = self.clock.now_ms() - t1;
        Ok(())
    }

    /// After the click `first` on the menu bar's title at `title` (in `frame`; `c` on the
    /// screen): a title that
    /// shows no menu below it is clicked once more, and a menu that still does not show is one
    /// that lives only while the button is held ([`Runner::choose_from_held_menu`]).
    #[allow(clippy::too_many_arguments)]
    fn reopen_menu_title(
        &mut self,
        lf: &LoadedFlow,
        vars: &Row,
        at: Option<At>,
        frame: &Frame,
        title: Rect,
        first: &Input_,
        c: Point,
        d: &mut StepDetail,
    ) -> Result<(), Fail> {
        // A menu bar's title that shows nothing below it after the click did not take it:
        // Swing drops a click that lands while its window is being activated (jEdit, after
        // a dialog closed, under load). A second click is safe here: a title opens a menu
        // and does nothing else, and one the app took late only closes it again (then the
        // next step refuses). Never for a menu's items: those act.
        let h = title.h.max(8);
        let below = Rect::new(title.x - 2 * h, title.y, 24 * h, 12 * h);
        let menu = (below, (4 * h * h) as usize);
        if !self.shows_change(frame, menu.0, menu.1, MENU_WAIT_MS) {
            self.send(first).map_err(failed_after_input)?;
            d.message = Some("the menu did not open after the click: clicked again".into());
            // Two clicks and still no menu: one that lives only while the button is held
            // (Athena's, XForms'), opened by the press and shut by the release. Held open,
            // the next step's item is chosen by releasing the button on it.
            if !self.shows_change(frame, menu.0, menu.1, MENU_WAIT_MS) {
                if let Some(why) = self
                    .choose_from_held_menu(lf, vars, at, frame, menu, c)
                    .map_err(|f| Fail { acted: true, ..f })?
                {
                    d.message = Some(why);
                }
            }
        }
        Ok(())
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

/// A failure once the input has gone out: a redo may act twice.
pub(super) fn failed_after_input(e: MendError) -> Fail {
    Fail {
        err: e,
        acted: true,
        frame: None,
        candidates: vec![],
    }
}

/// The input a targeted action starts with at `c` (screen): a click of its kind (a type
/// step's on its field), a scroll, or a drag to `drop_at`.
fn first_input(step: &Step, c: Point, drop_at: Option<Point>) -> Input_ {
    match step.action {
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
    }
}
