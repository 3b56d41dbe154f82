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
}
