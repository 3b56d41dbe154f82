//! `mend teach FLOW --window PATTERN`: a person does the task once, Mend writes the flow. The
//! engine is `mend_teach` (shared with the studio's Record); this prints what it reports.
//! Ctrl+C (SIGINT) or the chord `mend_teach::STOP_CHORD` pressed in the application stops:
//! the flow so far is written and validated.

use clap::Args;
use mend_model::{ErrorCode, MendError, Risk, Step};
use mend_teach::{Event, Options};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct TeachArgs {
    /// Where to write the flow (TOML); crops go to `<flow>.crops/`.
    pub flow: PathBuf,
    /// Anchored regex of the application's main window title.
    #[arg(long)]
    pub window: String,
    /// OCR languages.
    #[arg(long, default_value = mend_app::DEFAULT_LANG)]
    pub lang: String,
    /// The flow's name (default: the file's stem).
    #[arg(long)]
    pub name: Option<String>,
}

pub fn run_teach(a: TeachArgs) -> Result<ExitCode, MendError> {
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst)).map_err(|e| {
            MendError::new(
                ErrorCode::InvalidArgument,
                format!("cannot catch Ctrl+C: {e}"),
            )
        })?;
    }
    let opts = Options {
        flow: a.flow.clone(),
        window: a.window,
        lang: a.lang,
        name: a.name,
        skip_pid: None,
    };
    let out = mend_teach::teach(&opts, &stop, &mut |e| {
        if let Event::Started { title, stop_chord } = e {
            println!(
                "recording in '{title}': work as usual; Ctrl+C (or {stop_chord} in the app) stops and writes {}",
                a.flow.display()
            );
        }
    })?;
    let Some(flow) = &out.flow else {
        println!("nothing was recorded: no click or key reached the watched windows");
        return Ok(ExitCode::from(1));
    };
    println!(
        "wrote {} ({} steps)",
        out.flow_path.display(),
        flow.steps.len()
    );
    for (i, s) in flow.steps.iter().enumerate() {
        println!("  {:>2}. {}", i + 1, describe_step(s));
    }
    for n in &out.notes {
        println!("note: {n}");
    }
    for w in &out.warnings {
        println!("warning: {w}");
    }
    for s in &out.secrets {
        println!(
            "secret: a masked field was typed into; set {s} before running (export {s}=… or `mend secret set {s}`)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn describe_step(s: &Step) -> String {
    let t = s.target.as_ref().map(|t| match (&t.text, &t.crop) {
        (Some(x), _) => format!("'{x}' ({})", t.role.as_deref().unwrap_or("any")),
        (None, Some(c)) => format!(
            "the control in {c} ({})",
            t.role.as_deref().unwrap_or("any")
        ),
        _ => "?".into(),
    });
    let what = serde_json::to_value(&s.action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut out = match (&t, &s.keys) {
        (Some(t), _) => format!("{what} {t}"),
        (None, Some(k)) => format!("{what} {k}"),
        _ => what,
    };
    if s.risk == Risk::Write {
        out.push_str(" [write]");
    }
    if let Some(v) = &s.verify {
        out.push_str(&format!(" verify {}", mend_runner::describe_check(v)));
    }
    out
}
