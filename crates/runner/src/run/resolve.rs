//! What happens when a step cannot go on: the takeover request a person answers, and the
//! answers — pick (act where the person pointed, guarded, journaled, proposed as a flow change),
//! done, skip, retry, abort (compensations in reverse, once each). Nothing here runs the step
//! loop; a resolution ends by resuming the run.

use super::*;

impl Runner<'_> {
    /// Store what a person needs to take over at step `i` of row `r`.
    pub(super) fn request_takeover(
        &mut self,
        lf: &LoadedFlow,
        rec: &RunRecord,
        r: usize,
        i: usize,
        e: &MendError,
    ) -> Result<String, MendError> {
        let step = &lf.flow.steps[i];
        let (screenshot, candidates) = match self.last_failure.take() {
            Some((shot, cands)) if shot.is_some() => (shot, cands),
            Some((_, cands)) => (self.screenshot(lf, r, i), cands),
            None => (self.screenshot(lf, r, i), vec![]),
        };
        let effects = self
            .store
            .journal(&rec.id)?
            .into_iter()
            .filter_map(|j| match j {
                JournalEntry::Result {
                    row,
                    step,
                    code: None,
                    strategy,
                    detail,
                    ..
                } if strategy.as_deref() != Some("skipped")
                    && lf
                        .flow
                        .steps
                        .get(step)
                        .is_some_and(|s| s.risk != Risk::Read) =>
                {
                    Some(format!(
                        "row {} step {} '{}' ({:?}, {})",
                        row + 1,
                        step + 1,
                        detail.step_id,
                        lf.flow.steps[step].risk,
                        strategy.unwrap_or_default()
                    ))
                }
                _ => None,
            })
            .collect();
        let mut id = format!("t{}", self.clock.unix_ms());
        while self.store.get::<Takeover>(TAKEOVERS, &id)?.is_some() {
            id.push('x');
        }
        let t = Takeover {
            id: id.clone(),
            run: rec.id.clone(),
            flow: rec.flow_path.clone(),
            row: r,
            step: i,
            step_id: step.id.clone().unwrap_or_else(|| format!("{}", i + 1)),
            action: action_name(&step.action),
            code: e.code,
            message: e.message.clone(),
            screenshot,
            candidates,
            effects,
            suggestion: suggestion(e.code),
            status: "open".into(),
            resolution: None,
            created_ms: self.clock.unix_ms(),
        };
        self.store.put(TAKEOVERS, &id, &t)?;
        Ok(id)
    }

    /// Apply a person's resolution to an open takeover (or one a fleet recorded as decided
    /// with this answer), then continue the run (abort ends it).
    pub fn resolve(
        &mut self,
        lf: &LoadedFlow,
        id: &str,
        res: Resolution,
    ) -> Result<Summary, MendError> {
        let mut t = takeover::takeover(self.store, id)?;
        if takeover::decision(&t)? != Some(res) {
            takeover::check_open(&t)?;
        }
        let mut rec = self.store.run(&t.run)?.ok_or_else(|| {
            err(
                ErrorCode::StoreCorrupt,
                format!("takeover {id} names run {} which is not stored", t.run),
            )
        })?;
        if rec.flow_hash != lf.hash {
            return Err(err(
                ErrorCode::FlowInvalid,
                format!(
                    "{} changed since run {} started; start a new run",
                    rec.flow_path, rec.id
                ),
            ));
        }
        self.run_dir = self.opts.runs_dir.join(&rec.id);
        self.run_id = rec.id.clone();
        self.rows = rec.rows.len();
        let vars = row_vars(&lf.flow, &rec.vars, &rec.rows[t.row]);
        let step = &lf.flow.steps[t.step];
        let next = self
            .store
            .journal(&rec.id)?
            .iter()
            .filter_map(|j| match j {
                JournalEntry::Intent {
                    row, step, attempt, ..
                }
                | JournalEntry::Result {
                    row, step, attempt, ..
                } if (*row, *step) == (t.row, t.step) => Some(*attempt),
                _ => None,
            })
            .max()
            .unwrap_or(0)
            + 1;
        let base = StepDetail {
            step_id: t.step_id.clone(),
            action: t.action.clone(),
            ..StepDetail::default()
        };
        match res {
            Resolution::Skip => {
                let d = StepDetail {
                    message: Some("skipped by a person".into()),
                    ..base
                };
                self.journal_result(&rec.id, t.row, t.step, next, None, Some("skipped"), d)?;
            }
            Resolution::Retry => {
                // A result with no intent of its own: the step did not act, run it again.
                let d = StepDetail {
                    message: Some("a person asked to retry".into()),
                    ..base
                };
                self.journal_result(&rec.id, t.row, t.step, next, Some(t.code), None, d)?;
            }
            Resolution::Done => {
                if let Some(v) = &step.verify {
                    let _ = self.settle(lf, self.timeout(step));
                    if !self.check_once(lf, v, &vars)? {
                        return Err(err(
                            ErrorCode::AssertionFailed,
                            format!(
                                "step '{}' is not done: its verify ({}) does not hold. Do it, then answer done again, or retry",
                                t.step_id,
                                describe_check(v)
                            ),
                        ));
                    }
                }
                let d = StepDetail {
                    message: Some("done by a person".into()),
                    ..base
                };
                self.journal_result(&rec.id, t.row, t.step, next, None, Some("person"), d)?;
            }
            Resolution::Pick { x, y } => {
                self.pick(lf, &t, &vars, next, x, y)?;
            }
            Resolution::Abort => {
                self.abort(lf, &rec)?;
                rec.status = "aborted".into();
                rec.finished_ms = Some(self.clock.unix_ms());
                self.store.put_run(&rec)?;
            }
        }
        t.status = "resolved".into();
        t.resolution = Some(res.name());
        self.store.put(TAKEOVERS, id, &t)?;
        let scope = lf.flow.window.title.clone();
        let mut b: Breaker = self
            .store
            .get(BREAKERS, &scope)?
            .unwrap_or_else(|| Breaker::new(&scope));
        b.half_open();
        self.store.put(BREAKERS, &scope, &b)?;
        if res == Resolution::Abort {
            return summary(self.store, &rec, lf);
        }
        self.resume(lf, &t.run)
    }

    /// Act where the person pointed (guarded), record the step, and propose the picked
    /// control as the step's new target.
    pub(super) fn pick(
        &mut self,
        lf: &LoadedFlow,
        t: &Takeover,
        vars: &Row,
        attempt: u32,
        x: i32,
        y: i32,
    ) -> Result<(), MendError> {
        let step = &lf.flow.steps[t.step];
        let spec = step.target.as_ref().ok_or_else(|| {
            err(
                ErrorCode::InvalidArgument,
                format!(
                    "step '{}' acts on no control: pick does not apply; use done, skip or retry",
                    t.step_id
                ),
            )
        })?;
        if !matches!(
            step.action,
            Action::Click | Action::DoubleClick | Action::RightClick | Action::Type
        ) {
            return Err(err(
                ErrorCode::InvalidArgument,
                "pick applies to click and type steps; use done, skip or retry",
            ));
        }
        let frame = self.capture.capture(&self.query_for(lf, spec)?)?;
        let p = mend_model::Point { x, y };
        if !frame.info.bounds().contains(p) {
            return Err(err(
                ErrorCode::InvalidArgument,
                format!(
                    "{x},{y} is outside the window ({}x{}); give a point on the screenshot",
                    frame.info.width, frame.info.height
                ),
            ));
        }
        self.check_guard(lf, &frame)?;
        let rect = mend_vision::find_control_boxes(&frame.image)
            .into_iter()
            .filter(|b| b.rect.contains(p))
            .min_by_key(|b| b.rect.area())
            .map_or(Rect::new(x - 20, y - 10, 40, 20), |b| b.rect);
        self.act_where_picked(lf, t, vars, attempt, &frame, rect, p)?;
        self.record_pick(t, attempt, rect, p)?;
        self.propose_picked(lf, t, spec, &frame, rect)
    }

    /// Send the step's input at `p` (frame pixels of `frame`, the control's box `rect`) after
    /// the guard passed: the budget spent and the intent journaled first; a type step's text
    /// typed into the field (emptied first for `clear`), then the screen let settle.
    #[allow(clippy::too_many_arguments)]
    fn act_where_picked(
        &mut self,
        lf: &LoadedFlow,
        t: &Takeover,
        vars: &Row,
        attempt: u32,
        frame: &Frame,
        rect: Rect,
        p: Point,
    ) -> Result<(), MendError> {
        let step = &lf.flow.steps[t.step];
        let at = frame.info.to_screen(&Rect::new(p.x, p.y, 1, 1));
        let at = mend_model::Point { x: at.x, y: at.y };
        self.spend(1)?;
        self.intent(
            Some(At {
                run: &t.run,
                row: t.row,
                step: t.step,
                attempt,
            }),
            &t.action,
        )?;
        let first = match step.action {
            Action::DoubleClick => Input_::Click {
                at,
                button: MouseButton::Left,
                count: 2,
            },
            Action::RightClick => Input_::Click {
                at,
                button: MouseButton::Right,
                count: 1,
            },
            _ => Input_::click(at),
        };
        self.arm(lf, Some(frame));
        self.send(&first)?;
        if step.action == Action::Type {
            self.await_change(frame, rect, FOCUS_WAIT_MS);
            let text = substitute(step.text.as_deref().unwrap_or_default(), vars, self.secrets)?;
            if step.clear {
                self.empty_field(lf, frame, rect, text.chars().count())?;
            }
            self.type_guarded(lf, frame, &text)?;
        }
        let _ = self.settle(lf, self.timeout(step));
        Ok(())
    }

    /// The picked step's result journaled ("picked", at `rect`) and its audit line.
    fn record_pick(
        &mut self,
        t: &Takeover,
        attempt: u32,
        rect: Rect,
        p: Point,
    ) -> Result<(), MendError> {
        let (x, y) = (p.x, p.y);
        let d = StepDetail {
            step_id: t.step_id.clone(),
            action: t.action.clone(),
            rect: Some(rect),
            confidence: Some(1.0),
            message: Some(format!("a person picked {x},{y}")),
            ..StepDetail::default()
        };
        self.journal_result(&t.run, t.row, t.step, attempt, None, Some("picked"), d)?;
        self.audit(
            &t.run,
            t.row,
            &t.step_id,
            &t.action,
            Some("picked"),
            Some(1.0),
            Some(rect),
            None,
            None,
            0,
            None,
        );
        Ok(())
    }

    /// The proposal: what the person pointed at (`rect` in `frame`), as the step's target
    /// `spec` — its caption read there (a field keeps its own) and its pixels saved beside the
    /// run — stored as a flow change for a person to accept.
    fn propose_picked(
        &mut self,
        lf: &LoadedFlow,
        t: &Takeover,
        spec: &TargetSpec,
        frame: &Frame,
        rect: Rect,
    ) -> Result<(), MendError> {
        let is_field = spec.role.as_deref().and_then(Role::parse) == Some(Role::Field);
        let text = if is_field {
            spec.text.clone()
        } else {
            self.finder
                .read_text(frame, rect)
                .filter(|s| !s.trim().is_empty())
                .or_else(|| spec.text.clone())
        };
        let mut cid = format!("c{}", self.clock.unix_ms());
        while self.store.get::<Change>(CHANGES, &cid)?.is_some() {
            cid.push('x');
        }
        let crop = if is_field {
            None
        } else {
            mend_vision::crop(&frame.image, rect).and_then(|img| {
                let p = self.run_dir.join(format!("{cid}.png"));
                img.save(&p).ok().map(|_| p.display().to_string())
            })
        };
        let change = Change {
            id: cid.clone(),
            run: t.run.clone(),
            takeover: t.id.clone(),
            flow_path: lf.path.display().to_string(),
            step: t.step,
            step_id: t.step_id.clone(),
            old: spec.clone(),
            new: TargetSpec {
                text,
                recorded: Some(rect),
                crop: None,
                ..spec.clone()
            },
            crop,
            status: "proposed".into(),
            created_ms: self.clock.unix_ms(),
        };
        self.store.put(CHANGES, &cid, &change)?;
        Ok(())
    }

    /// Run the compensations of the completed steps in reverse, each exactly once (a marker
    /// in the store per step: aborting again changes nothing).
    pub(super) fn abort(&mut self, lf: &LoadedFlow, rec: &RunRecord) -> Result<(), MendError> {
        let mut completed: Vec<(usize, usize)> = Vec::new();
        for j in self.store.journal(&rec.id)? {
            if let JournalEntry::Result {
                row,
                step,
                code: None,
                strategy,
                ..
            } = j
            {
                if strategy.as_deref() != Some("skipped") && !completed.contains(&(row, step)) {
                    completed.push((row, step));
                }
            }
        }
        for (r, i) in completed.into_iter().rev() {
            let step = &lf.flow.steps[i];
            if step.compensation.is_empty() {
                continue;
            }
            let key = format!("{}/{r}/{i}", rec.id);
            if self.store.get::<bool>(COMPENSATED, &key)?.is_some() {
                continue;
            }
            let vars = row_vars(&lf.flow, &rec.vars, &rec.rows[r]);
            self.compensate(lf, step, &vars).map_err(|f| {
                err(
                    f.err.code,
                    format!(
                        "undoing step '{}' failed: {}; the steps undone so far stay undone, abort again to go on",
                        step.id.clone().unwrap_or_default(),
                        f.err.message
                    ),
                )
            })?;
            self.store.put(COMPENSATED, &key, &true)?;
            let sid = step.id.clone().unwrap_or_else(|| format!("{}", i + 1));
            self.audit(
                &rec.id,
                r,
                &sid,
                "compensate",
                None,
                None,
                None,
                None,
                None,
                0,
                None,
            );
            let p = Progress {
                row: r,
                rows: self.rows,
                step: i,
                steps: lf.flow.steps.len(),
                id: sid,
                action: "compensate".into(),
                status: "undone".into(),
                strategy: None,
                confidence: None,
                ms: 0,
                code: None,
                message: None,
                rect: None,
            };
            (self.on_progress)(&p);
        }
        Ok(())
    }
}
