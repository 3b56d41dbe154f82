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

/// The step [`Runner::step`] runs: where its journal results go and what its progress events
/// and results name.
struct StepRun<'s> {
    run: &'s str,
    r: usize,
    i: usize,
    steps: usize,
    step_id: String,
    /// What every result of the step starts from: its id and action.
    base: StepDetail,
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
        let step_id = step.id.clone().unwrap_or_else(|| format!("{}", i + 1));
        let s = StepRun {
            run,
            r,
            i,
            steps: lf.flow.steps.len(),
            step_id: step_id.clone(),
            base: StepDetail {
                step_id,
                action: action_name(&step.action),
                ..StepDetail::default()
            },
        };
        self.tell(&s, "start", &s.base, None, None);
        self.app_wait_ms = 0;
        // Between steps: dismiss whatever interrupt window is up.
        self.handle_interrupts(lf, vars)?;

        let mut attempt = pending.map_or(0, |p| p.attempt);
        if let Some(p) = pending {
            if self.resume_pending(lf, &s, vars, p)? {
                return Ok(());
            }
        }
        // A step a crash cut short and not found done is undone before it is redone.
        let mut compensate = pending.is_some();
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
                    d.step_id = s.step_id.clone();
                    d.action = s.base.action.clone();
                    let strategy = located.as_ref().map(|l| l.strategy.as_str());
                    self.journal_result(run, r, i, attempt, None, strategy, d.clone())?;
                    self.tell(&s, "passed", &d, strategy, None);
                    return Ok(());
                }
                Err(f) => {
                    if self.verified_on_second_look(
                        lf,
                        &s,
                        vars,
                        attempt,
                        pending.is_some(),
                        &f,
                        t0,
                    )? {
                        return Ok(());
                    }
                    let retryable = self.may_retry(step, attempt, &f);
                    let d = self.record_failed_attempt(lf, &s, attempt, &f, retryable, t0)?;
                    if !retryable {
                        self.tell(&s, "failed", &d, None, Some(f.err.code));
                        return Err(f.err);
                    }
                    self.tell(&s, "retry", &d, None, Some(f.err.code));
                    compensate = f.acted;
                }
            }
        }
    }

    /// One progress event of the step `s`: `status`, with what `d` says of it.
    fn tell(
        &mut self,
        s: &StepRun,
        status: &str,
        d: &StepDetail,
        strategy: Option<&str>,
        code: Option<ErrorCode>,
    ) {
        let p = Progress {
            row: s.r,
            rows: self.rows,
            step: s.i,
            steps: s.steps,
            id: s.step_id.clone(),
            action: s.base.action.clone(),
            status: status.into(),
            strategy: strategy.map(str::to_string),
            confidence: d.confidence,
            ms: d.locate_ms + d.act_ms + d.settle_ms,
            code,
            message: d.message.clone(),
            rect: d.rect,
        };
        (self.on_progress)(&p);
    }

    /// A step a crash cut short (`p`): verified by its `verify`, or settled and checked when
    /// its input had gone out in full and must not go out twice, or refused when it may have
    /// acted and nothing can tell. Whether it is done; `false`: it is redone (undone first).
    fn resume_pending(
        &mut self,
        lf: &LoadedFlow,
        s: &StepRun,
        vars: &Row,
        p: Pending,
    ) -> Result<bool, MendError> {
        let step = &lf.flow.steps[s.i];
        if let Some(v) = &step.verify {
            return self.verify_after_crash(lf, s, vars, p.attempt, v);
        }
        if p.sent && step.done_once_sent() {
            // Its input went out in full before the crash: sent again it would act twice
            // (a key entered twice, a menu opened and shut). The screen settles and the
            // step's own checks decide.
            return self
                .settle_after_crash(lf, s, vars, p.attempt)
                .map(|()| true);
        }
        if let Redo::NeedsVerify(why) = step.redo() {
            let e = err(
                ErrorCode::ResumeUnverified,
                format!(
                    "step {} ('{}') may have acted before the crash and has no `verify` to tell ({why}); look at the application, then finish the step by hand or add a `verify` to the flow",
                    s.i + 1,
                    s.step_id,
                ),
            );
            let shot = self.screenshot(lf, s.r, s.i);
            let d = StepDetail {
                message: Some(e.message.clone()),
                screenshot: shot,
                ..s.base.clone()
            };
            self.journal_result(s.run, s.r, s.i, p.attempt, Some(e.code), None, d.clone())?;
            self.tell(s, "failed", &d, None, Some(e.code));
            return Err(e);
        }
        Ok(false)
    }

    /// Did the step take effect before the crash? The screen let settle, then its verify `v`
    /// looked at once: whether it holds (then journaled and told as verified).
    fn verify_after_crash(
        &mut self,
        lf: &LoadedFlow,
        s: &StepRun,
        vars: &Row,
        attempt: u32,
        v: &Check,
    ) -> Result<bool, MendError> {
        let step = &lf.flow.steps[s.i];
        let t0 = self.clock.now_ms();
        // Did the step take effect before the crash? Let the screen settle, then look.
        let _ = self.settle(lf, self.timeout(step));
        self.app_wait_ms += self.clock.now_ms() - t0;
        let already = self.check_once(lf, v, vars)?;
        if !already {
            return Ok(false);
        }
        let d = StepDetail {
            settle_ms: self.clock.now_ms() - t0,
            message: Some("verified after a crash: it had taken effect, not redone".into()),
            ..s.base.clone()
        };
        self.journal_result(s.run, s.r, s.i, attempt, None, Some("verified"), d.clone())?;
        self.audit(
            s.run,
            s.r,
            &s.step_id,
            "verify",
            Some("verified"),
            None,
            None,
            None,
            None,
            d.settle_ms,
            None,
        );
        self.tell(s, "verified", &d, Some("verified"), None);
        Ok(true)
    }

    /// A step whose input went out in full before the crash, not sent again: the screen
    /// settles and its own checks decide ([`Runner::after_act`]); the result journaled.
    fn settle_after_crash(
        &mut self,
        lf: &LoadedFlow,
        s: &StepRun,
        vars: &Row,
        attempt: u32,
    ) -> Result<(), MendError> {
        let step = &lf.flow.steps[s.i];
        let mut d = StepDetail {
            message: Some("its input had gone out before the crash: not sent again".into()),
            ..s.base.clone()
        };
        let at = At {
            run: s.run,
            row: s.r,
            step: s.i,
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
                self.journal_result(s.run, s.r, s.i, attempt, None, Some("sent"), d.clone())?;
                self.tell(s, "passed", &d, Some("sent"), None);
                Ok(())
            }
            Err(f) => {
                d.message = Some(f.err.message.clone());
                d.screenshot = self.screenshot(lf, s.r, s.i);
                self.journal_result(s.run, s.r, s.i, attempt, Some(f.err.code), None, d.clone())?;
                self.tell(s, "failed", &d, None, Some(f.err.code));
                Err(f.err)
            }
        }
    }

    /// One more look at the step's verify after the failed attempt `f`, before refusing or
    /// redoing, where [`second_look`] calls for it (`resumed`: a step a crash cut short):
    /// whether it holds, then journaled and told as verified.
    #[allow(clippy::too_many_arguments)]
    fn verified_on_second_look(
        &mut self,
        lf: &LoadedFlow,
        s: &StepRun,
        vars: &Row,
        attempt: u32,
        resumed: bool,
        f: &Fail,
        t0: u64,
    ) -> Result<bool, MendError> {
        let step = &lf.flow.steps[s.i];
        if let (Some(why), Some(v)) = (second_look(f, resumed), &step.verify) {
            if self.check_once(lf, v, vars)? {
                let d = StepDetail {
                    locate_ms: self.clock.now_ms() - t0,
                    message: Some(why.into()),
                    ..s.base.clone()
                };
                self.journal_result(s.run, s.r, s.i, attempt, None, Some("verified"), d.clone())?;
                self.tell(s, "verified", &d, Some("verified"), None);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether the failed attempt `f` (the `attempt`th) may be tried again. Before any input, a
    /// retryable refusal may be tried again; after input, only a read step whose effect did not
    /// show (a click that did not register).
    fn may_retry(&self, step: &Step, attempt: u32, f: &Fail) -> bool {
        attempt <= self.opts.max_retries
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
            }
    }

    /// The failed attempt `f` journaled and audited; one not `retryable` also leaves what a
    /// person needs (a screenshot, the candidates, kept for the takeover request). What the
    /// step's result said.
    fn record_failed_attempt(
        &mut self,
        lf: &LoadedFlow,
        s: &StepRun,
        attempt: u32,
        f: &Fail,
        retryable: bool,
        t0: u64,
    ) -> Result<StepDetail, MendError> {
        let (r, i) = (s.r, s.i);
        let mut d = StepDetail {
            message: Some(f.err.message.clone()),
            locate_ms: self.clock.now_ms() - t0,
            ..s.base.clone()
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
        self.journal_result(s.run, r, i, attempt, Some(f.err.code), None, d.clone())?;
        self.audit(
            s.run,
            r,
            &s.step_id,
            &s.base.action,
            None,
            None,
            None,
            None,
            Some(f.err.code),
            d.locate_ms,
            d.screenshot.clone(),
        );
        Ok(d)
    }

    pub(super) fn timeout(&self, step: &Step) -> u64 {
        step.timeout_ms.unwrap_or(self.opts.timeout_ms)
    }
}

/// Whether the failed attempt `f` earns one more look at its step's verify before refusing or
/// redoing, and what the verify holding then means. A verify that came true just after its
/// deadline (a slow app): the step took effect, and a redo would act twice. A `resumed` step
/// whose verify did not hold yet and whose target is gone, nothing sent: the app may only have
/// been slow to show the effect of the input sent before the crash (a dialog still closing
/// when the verify was read).
fn second_look(f: &Fail, resumed: bool) -> Option<&'static str> {
    if f.err.code == ErrorCode::StepNotVerified {
        Some("its verify came true just after the step's timeout: done, not sent again")
    } else if f.acted && f.err.code == ErrorCode::ActionTimeout {
        // The input went in but the window never stopped painting (a GUI drawn
        // by a game engine, an animation): its verify decides, not a redo.
        Some("the window kept painting after the input, and its verify holds: done, not sent again")
    } else if resumed
        && !f.acted
        && matches!(
            f.err.code,
            ErrorCode::LocatorNotFound | ErrorCode::WindowNotFound
        )
    {
        Some("verified after a crash (on a second look): it had taken effect, not redone")
    } else {
        None
    }
}
