//! What a run leaves behind: the journal's intent and result entries (flushed), the audit
//! lines, failure screenshots.

use super::*;

impl Runner<'_> {
    pub(super) fn intent(&mut self, at: Option<At>, what: &str) -> Result<(), MendError> {
        if let Some(a) = at {
            self.store.append(
                a.run,
                &JournalEntry::Intent {
                    row: a.row,
                    step: a.step,
                    attempt: a.attempt,
                    action: what.into(),
                },
            )?;
        }
        Ok(())
    }

    /// The input of the attempt `at` went out in full: a crash from here on must not send it
    /// again (model/redo.rs).
    pub(super) fn acted(&mut self, at: Option<At>) -> Result<(), MendError> {
        if let Some(a) = at {
            self.store.append(
                a.run,
                &JournalEntry::Acted {
                    row: a.row,
                    step: a.step,
                    attempt: a.attempt,
                },
            )?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn journal_result(
        &self,
        run: &str,
        row: usize,
        step: usize,
        attempt: u32,
        code: Option<ErrorCode>,
        strategy: Option<&str>,
        detail: StepDetail,
    ) -> Result<(), MendError> {
        self.store.append(
            run,
            &JournalEntry::Result {
                row,
                step,
                attempt,
                code,
                strategy: strategy.map(str::to_string),
                detail,
            },
        )?;
        Ok(())
    }

    /// The finder's notes (a model's answers and reasons) as audit lines of their own.
    pub(super) fn audit_notes(&mut self, at: Option<At>) {
        let notes = self.finder.notes();
        if notes.is_empty() {
            return;
        }
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.run_dir.join("audit.jsonl"))
        {
            for n in notes {
                let note: serde_json::Value =
                    serde_json::from_str(&n).unwrap_or(serde_json::Value::String(n));
                let line = serde_json::json!({
                    "ts": self.clock.unix_ms(),
                    "run": self.run_id,
                    "row": at.map(|a| a.row + 1),
                    "step": at.map(|a| a.step + 1),
                    "action": "note",
                    "note": note,
                });
                let _ = writeln!(f, "{line}");
            }
        }
    }

    /// One audit line per action. Never holds typed text: only what `describe` would show.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn audit(
        &self,
        run: &str,
        row: usize,
        step: &str,
        action: &str,
        strategy: Option<&str>,
        confidence: Option<f64>,
        rect: Option<Rect>,
        frame_hash: Option<&Fingerprint>,
        code: Option<ErrorCode>,
        ms: u64,
        screenshot: Option<String>,
    ) {
        let line = serde_json::json!({
            "ts": self.clock.unix_ms(),
            "run": run,
            "row": row + 1,
            "step": step,
            "action": action,
            "strategy": strategy,
            "confidence": confidence,
            "box": rect,
            "frame_hash": frame_hash.map(|h| h.0.clone()),
            "code": code,
            "ms": ms,
            "screenshot": screenshot,
        });
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.run_dir.join("audit.jsonl"))
        {
            let _ = writeln!(f, "{line}");
        }
    }

    pub(super) fn save_shot(&self, frame: &Frame, r: usize, i: usize) -> Option<String> {
        let p = self.run_dir.join(format!("fail-r{}-s{}.png", r + 1, i + 1));
        save_frame(frame, &p).ok().map(|_| p.display().to_string())
    }

    pub(super) fn screenshot(&self, lf: &LoadedFlow, r: usize, i: usize) -> Option<String> {
        let q = self.main_query(lf).ok()?;
        let f = self.capture.capture(&q).ok()?;
        self.save_shot(&f, r, i)
    }
}
