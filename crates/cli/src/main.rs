//! `mend`: the command line over the engine. Exit codes: 0 success, 1 not found / refused /
//! failed, 2 bad input, 3 paused for a person.

mod act;
mod fleet;
mod inspect;
mod live;
mod run;
mod target;
mod teach;
mod validate;

use clap::{Parser, Subcommand};
use mend_model::{ErrorCode, MendError};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mend",
    version,
    about = "Mend: GUI automation that survives UI tweaks and refuses to guess"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Find a control and print where it is (and which rung found it).
    Locate(target::LocateArgs),
    /// Locate a control, check the guard, and click it.
    Click(act::ClickArgs),
    /// Locate a field, check the guard, click it, and type.
    Type(act::TypeArgs),
    /// Press a key chord ("Return", "ctrl+a") in a window that is in front.
    Key(act::KeyArgs),
    /// Capture a window and write the frame, OCR words, candidates and an overlay to a folder.
    Inspect(inspect::InspectArgs),
    /// Capture a window to a PNG (plus a JSON sidecar with the frame geometry).
    Capture(inspect::CaptureArgs),
    /// Check a flow file; errors give file:line:col and what to change (exit 2).
    Validate(validate::ValidateArgs),
    /// Run a flow (once per --data row); exit 0 passed, 1 failed, 2 bad input, 3 paused.
    Run(run::RunArgs),
    /// Run a flow and, when it passes, write each control's box and pixels into the flow.
    Record(run::RunArgs),
    /// Watch a person do the task once in a window and write the flow (Ctrl+C stops).
    Teach(teach::TeachArgs),
    /// Continue a run from its journal; a step cut short is verified before it is redone.
    Resume(run::ResumeArgs),
    /// List runs, newest first.
    Runs(run::RunsArgs),
    /// Print a run's Markdown report (or --json summary).
    Report(run::ReportArgs),
    /// Requests for a person: list, show, resolve (--pick X,Y | --done | --skip | --retry | --abort).
    #[command(subcommand)]
    Takeover(run::TakeoverCmd),
    /// Flow changes proposed by picks: list, show (a diff), accept, reject.
    #[command(subcommand)]
    Changes(run::ChangesCmd),
    /// The fleet's work list on PostgreSQL: add, status, retry, move, cancel.
    #[command(subcommand)]
    Queue(fleet::QueueCmd),
    /// Lease jobs from the fleet's queue one at a time and run them on this desktop.
    Worker(fleet::WorkerArgs),
    /// The OS keyring for ${secret:NAME}: set (value on stdin), delete.
    #[command(subcommand)]
    Secret(run::SecretCmd),
}

/// Map a coded failure to an exit code: bad input (an unknown or already answered takeover
/// too) is 2, everything else the engine refuses is 1.
pub fn exit_for(e: &MendError) -> ExitCode {
    match e.code {
        ErrorCode::InvalidArgument
        | ErrorCode::FlowInvalid
        | ErrorCode::TakeoverNotFound
        | ErrorCode::TakeoverStale => ExitCode::from(2),
        _ => ExitCode::from(1),
    }
}

fn main() -> ExitCode {
    mend_app::limit_ocr_threads();
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Locate(a) => target::run_locate(a),
        Cmd::Click(a) => act::run_click(a),
        Cmd::Type(a) => act::run_type(a),
        Cmd::Key(a) => act::run_key(a),
        Cmd::Inspect(a) => inspect::run_inspect(a),
        Cmd::Capture(a) => inspect::run_capture(a),
        Cmd::Validate(a) => validate::run_validate(a),
        Cmd::Run(a) => run::run_run(a),
        Cmd::Record(a) => run::run_record(a),
        Cmd::Teach(a) => teach::run_teach(a),
        Cmd::Resume(a) => run::run_resume(a),
        Cmd::Runs(a) => run::run_runs(a),
        Cmd::Report(a) => run::run_report(a),
        Cmd::Takeover(c) => run::run_takeover(c),
        Cmd::Changes(c) => run::run_changes(c),
        Cmd::Secret(c) => run::run_secret(c),
        Cmd::Queue(c) => fleet::run_queue(c),
        Cmd::Worker(a) => fleet::run_worker(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            exit_for(&e)
        }
    }
}
