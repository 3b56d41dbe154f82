//! The run report: Markdown a person reads after the run (and a reviewer in a ticket).

use crate::run::Summary;
use mend_store::RunRecord;
use std::fmt::Write;

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
