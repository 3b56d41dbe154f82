//! What a run ended with: the summary per step, read from the journal alone (for `mend
//! report`, `mend runs` and the end of a run), and the Markdown report a person reads after the
//! run (and a reviewer in a ticket).

use crate::load::LoadedFlow;
use mend_model::{ErrorCode, MendError};
use mend_store::{JournalEntry, RunRecord, Store};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// What a run ended with, per step from the journal.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub run: String,
    pub flow: String,
    pub status: String,
    pub code: Option<ErrorCode>,
    pub message: Option<String>,
    pub steps: Vec<StepSummary>,
    pub report: Option<String>,
    /// The takeover request when the run paused for a person.
    pub takeover: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepSummary {
    pub row: usize,
    pub step: usize,
    pub id: String,
    pub action: String,
    pub status: String,
    pub strategy: Option<String>,
    pub confidence: Option<f64>,
    /// locate + act + settle.
    pub duration_ms: u64,
    pub locate_ms: u64,
    pub act_ms: u64,
    pub settle_ms: u64,
    /// How it settled on damage events (`None`: on fingerprints).
    pub settled: Option<mend_store::Settled>,
    pub code: Option<ErrorCode>,
    pub screenshot: Option<String>,
    /// What the step said of itself (a failure's reason; how a redo went).
    pub message: Option<String>,
}

impl Summary {
    /// 0 passed, 1 failed, 3 paused for a person.
    pub fn exit_code(&self) -> u8 {
        match self.status.as_str() {
            "passed" => 0,
            "paused" => 3,
            _ => 1,
        }
    }
}

/// A run's summary from the store alone (for `mend report`, `runs`, and the end of a run).
pub fn summary(store: &Store, rec: &RunRecord, lf: &LoadedFlow) -> Result<Summary, MendError> {
    summary_from(store, rec, Some(lf))
}

pub fn summary_from(
    store: &Store,
    rec: &RunRecord,
    lf: Option<&LoadedFlow>,
) -> Result<Summary, MendError> {
    let mut last: BTreeMap<(usize, usize), StepSummary> = BTreeMap::new();
    for e in store.journal(&rec.id)? {
        if let JournalEntry::Result {
            row,
            step,
            code,
            strategy,
            detail,
            ..
        } = e
        {
            let status = match (&code, strategy.as_deref()) {
                (None, Some("verified")) => "verified",
                (None, Some("skipped")) => "skipped",
                (None, _) => "passed",
                (Some(ErrorCode::ResumeUnverified), _) => "paused",
                (Some(_), _) => "failed",
            };
            let id = if detail.step_id.is_empty() {
                lf.and_then(|l| l.flow.steps.get(step))
                    .and_then(|s| s.id.clone())
                    .unwrap_or_else(|| format!("{}", step + 1))
            } else {
                detail.step_id.clone()
            };
            last.insert(
                (row, step),
                StepSummary {
                    row,
                    step,
                    id,
                    action: detail.action.clone(),
                    status: status.into(),
                    strategy,
                    confidence: detail.confidence,
                    duration_ms: detail.locate_ms + detail.act_ms + detail.settle_ms,
                    locate_ms: detail.locate_ms,
                    act_ms: detail.act_ms,
                    settle_ms: detail.settle_ms,
                    settled: detail.settled,
                    code,
                    screenshot: detail.screenshot.clone(),
                    message: detail.message.clone(),
                },
            );
        }
    }
    Ok(Summary {
        run: rec.id.clone(),
        flow: rec.flow.clone(),
        status: rec.status.clone(),
        code: rec.code,
        message: rec.message.clone(),
        steps: last.into_values().collect(),
        report: None,
        takeover: None,
    })
}

pub fn markdown(s: &Summary, rec: &RunRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Run {} — {}\n", s.run, s.flow);
    let took = rec
        .finished_ms
        .map(|f| format!("{:.1} s", f.saturating_sub(rec.started_ms) as f64 / 1000.0))
        .unwrap_or_else(|| "—".into());
    let _ = writeln!(out, "- status: **{}**", s.status);
    let _ = writeln!(out, "- flow file: `{}`", rec.flow_path);
    let _ = writeln!(out, "- data rows: {}", rec.rows.len());
    let _ = writeln!(out, "- wall time: {took}");
    if let (Some(code), Some(msg)) = (&s.code, &s.message) {
        let _ = writeln!(out, "- stopped with `{code}`: {msg}");
    }
    match s.status.as_str() {
        "paused" => {
            let _ = writeln!(
                out,
                "\nThe run is paused for a person. Check the application, then `mend resume {}`.",
                s.run
            );
        }
        "failed" => {
            let _ = writeln!(
                out,
                "\nFix what the failing step says (or the application), then `mend resume {}` continues after the last step that passed.",
                s.run
            );
        }
        _ => {}
    }
    let _ = writeln!(
        out,
        "\n| row | step | action | status | rung | confidence | time | code |\n|---|---|---|---|---|---|---|---|"
    );
    for st in &s.steps {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} ms | {} |",
            st.row + 1,
            st.id,
            st.action,
            st.status,
            st.strategy.as_deref().unwrap_or("—"),
            st.confidence.map_or("—".into(), |c| format!("{c:.2}")),
            st.duration_ms,
            st.code.map_or("".into(), |c| format!("`{c}`")),
        );
    }
    for st in s.steps.iter().filter(|s| s.screenshot.is_some()) {
        let p = st.screenshot.as_deref().unwrap_or_default();
        let _ = writeln!(
            out,
            "\n## Step {} (row {}) failed\n\n![the screen when step {} failed]({p})",
            st.id,
            st.row + 1,
            st.id
        );
    }
    out
}
