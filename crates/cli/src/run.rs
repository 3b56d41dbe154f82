//! `mend run|record|resume|runs|report|takeover|changes`: durable runs of a flow against the
//! live desktop, and the person's side of them.

use crate::live::{parse_vars, print_progress, progress_to, with_runner, DbArgs};
use clap::Args;
use mend_model::{ErrorCode, MendError};
use mend_runner::takeover::{self, Resolution, Takeover, TAKEOVERS};
use mend_runner::{
    edit_targets, markdown, read_rows, summary_from, LoadedFlow, Options, Summary, TargetEdit,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The flow file (TOML).
    pub flow: PathBuf,
    /// Variables, `K=V` (repeatable); override the flow's [vars].
    #[arg(long = "var", value_name = "K=V")]
    pub vars: Vec<String>,
    /// A CSV work-list: the flow runs once per row, columns are `${name}` variables.
    #[arg(long)]
    pub data: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArgs,
    /// Also write the Markdown report here.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Print the run summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// OCR languages.
    #[arg(long, default_value = mend_app::DEFAULT_LANG)]
    pub lang: String,
    /// Input actions the run may send at most.
    #[arg(long, default_value_t = 1000)]
    pub budget: u32,
    /// When the run needs a person, ask on this terminal instead of exiting 3.
    #[arg(long)]
    pub attended: bool,
    /// Also append every progress event to this file as a JSON line (the studio's format).
    #[arg(long)]
    pub events: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ResumeArgs {
    /// The run id (`mend runs` lists them).
    pub run: String,
    #[command(flatten)]
    pub db: DbArgs,
    #[arg(long)]
    pub report: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    #[arg(long, default_value_t = 1000)]
    pub budget: u32,
}

#[derive(Args, Debug)]
pub struct RunsArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    pub run: String,
    #[command(flatten)]
    pub db: DbArgs,
    #[arg(long)]
    pub json: bool,
}

fn invalid(msg: String) -> MendError {
    MendError::new(ErrorCode::InvalidArgument, msg)
}

/// Ask the person at the terminal what to do.
fn ask() -> Result<Resolution, MendError> {
    use std::io::BufRead;
    loop {
        eprint!("  your decision [pick X,Y | done | skip | retry | abort]: ");
        let mut line = String::new();
        let n = std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| invalid(format!("stdin: {e}")))?;
        if n == 0 {
            return Err(invalid("no answer on the terminal (stdin closed)".into()));
        }
        match Resolution::parse(&line) {
            Ok(r) => return Ok(r),
            Err(e) => eprintln!("  {}", e.message),
        }
    }
}

fn print_takeover(t: &Takeover) {
    eprintln!(
        "\ntakeover {} — run {} paused at row {} step {} '{}' ({})",
        t.id,
        t.run,
        t.row + 1,
        t.step + 1,
        t.step_id,
        t.action
    );
    eprintln!("  why: {}: {}", t.code, t.message);
    if let Some(p) = &t.screenshot {
        eprintln!("  screenshot: {p}  (pick X,Y in its pixels)");
    }
    for c in &t.candidates {
        eprintln!(
            "  candidate '{}' {:?} at {},{} {}x{} confidence {:.2}",
            c.text, c.role, c.rect.x, c.rect.y, c.rect.w, c.rect.h, c.score
        );
    }
    if t.effects.is_empty() {
        eprintln!("  side effects so far: none");
    } else {
        eprintln!("  side effects so far:");
        for e in &t.effects {
            eprintln!("    {e}");
        }
    }
    eprintln!("  suggestion: {}", t.suggestion);
}

fn finish(s: &Summary, json: bool, report: Option<&Path>) -> Result<ExitCode, MendError> {
    if let (Some(to), Some(from)) = (report, s.report.as_deref()) {
        std::fs::copy(from, to)
            .map_err(|e| invalid(format!("cannot write {}: {e}", to.display())))?;
    }
    if json {
        println!("{}", serde_json::to_string_pretty(s).expect("serializes"));
    } else {
        eprintln!(
            "run {} {}{}{}",
            s.run,
            s.status,
            s.code.map_or(String::new(), |c| format!(" ({c})")),
            s.report
                .as_deref()
                .map_or(String::new(), |r| format!("; report: {r}"))
        );
        if let Some(m) = &s.message {
            eprintln!("  {m}");
        }
        if let Some(t) = &s.takeover {
            eprintln!(
                "  waiting for a person: mend takeover show {t}, then mend takeover resolve {t} --pick X,Y | --done | --skip | --retry | --abort"
            );
        } else if s.status == "failed" {
            eprintln!("  continue with: mend resume {}", s.run);
        }
    }
    Ok(ExitCode::from(s.exit_code()))
}

pub fn run_run(a: RunArgs) -> Result<ExitCode, MendError> {
    run_flow(a, false)
}

/// `mend record`: run the flow; when it passes, write where each step's control was
/// (`recorded`) and its pixels (`crop`; a field's with the caption beside it) into the flow, so the
/// next runs find them by the exact rung. Comments and layout of the file are kept.
pub fn run_record(a: RunArgs) -> Result<ExitCode, MendError> {
    run_flow(a, true)
}

fn run_flow(a: RunArgs, record: bool) -> Result<ExitCode, MendError> {
    let vars = parse_vars(&a.vars)?;
    let rows = match &a.data {
        Some(p) => read_rows(p)?,
        None => vec![],
    };
    let mut columns: Vec<String> = vars.keys().cloned().collect();
    if let Some(r) = rows.first() {
        columns.extend(r.keys().cloned());
    }
    let lf = LoadedFlow::load(&a.flow, &columns)?;
    let store = a.db.open()?;
    let mut on = progress_to(a.events.clone());
    let mut opts = Options::new(a.db.dir().join("runs"));
    opts.budget = a.budget;
    opts.record = record;
    let mode = mend_ocr::OcrMode::from_env()?;
    eprintln!(
        "running {} ({} steps), read by {}",
        lf.flow.name,
        lf.flow.steps.len(),
        match mode {
            mend_ocr::OcrMode::Both => "PP-OCR with Tesseract as witness".to_string(),
            m => m.as_str().to_string(),
        }
    );
    let s = with_runner(&a.lang, &lf, &store, &mut on, opts, |runner| {
        let mut s = runner.start(&lf, vars, rows, &a.lang)?;
        while a.attended && s.status == "paused" {
            let Some(id) = s.takeover.clone() else { break };
            let t = takeover::takeover(&store, &id)?;
            print_takeover(&t);
            let res = ask()?;
            match runner.resolve(&lf, &id, res) {
                Ok(next) => s = next,
                Err(e) => eprintln!("  {e}"),
            }
        }
        if record {
            if s.status == "passed" {
                let n = write_recording(&lf, &runner.recorded)?;
                eprintln!("recorded {n} targets into {}", a.flow.display());
            } else {
                eprintln!("the run did not pass: nothing recorded");
            }
        }
        Ok(s)
    })?;
    finish(&s, a.json, a.report.as_deref())
}

pub fn run_resume(a: ResumeArgs) -> Result<ExitCode, MendError> {
    let store = a.db.open()?;
    let rec = store.run(&a.run)?.ok_or_else(|| {
        invalid(format!(
            "no run '{}' in {}; `mend runs` lists them",
            a.run,
            a.db.dir().display()
        ))
    })?;
    let lf = LoadedFlow::for_run(&rec)?;
    let lang = mend_app::lang_of(&rec);
    let mut on = print_progress;
    let mut opts = Options::new(a.db.dir().join("runs"));
    opts.budget = a.budget;
    eprintln!("resuming {} ({})", rec.id, lf.flow.name);
    let s = with_runner(&lang, &lf, &store, &mut on, opts, |r| r.resume(&lf, &a.run))?;
    finish(&s, a.json, a.report.as_deref())
}

pub fn run_runs(a: RunsArgs) -> Result<ExitCode, MendError> {
    let store = a.db.open()?;
    let runs = store.runs()?;
    if a.json {
        let v: Vec<_> = runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id, "flow": r.flow, "status": r.status,
                    "started_ms": r.started_ms, "code": r.code,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v).expect("serializes"));
    } else {
        for r in runs {
            println!(
                "{}\t{}\t{}\t{}",
                r.id,
                r.status,
                r.flow,
                r.code.map_or(String::new(), |c| c.to_string())
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_report(a: ReportArgs) -> Result<ExitCode, MendError> {
    let store = a.db.open()?;
    let rec = store
        .run(&a.run)?
        .ok_or_else(|| invalid(format!("no run '{}'; `mend runs` lists them", a.run)))?;
    let s = summary_from(&store, &rec, None)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s).expect("serializes"));
    } else {
        print!("{}", markdown(&s, &rec));
    }
    Ok(ExitCode::from(s.exit_code()))
}

/// Write `recorded` boxes and `crop` files into the flow file, keeping its comments.
fn write_recording(
    lf: &LoadedFlow,
    recorded: &BTreeMap<usize, mend_runner::RecordedTarget>,
) -> Result<usize, MendError> {
    let mut edits = Vec::new();
    for (&i, r) in recorded {
        let step = &lf.flow.steps[i];
        if step.target.is_none() {
            continue;
        }
        let name = step.id.clone().unwrap_or_else(|| format!("step{}", i + 1));
        edits.push((
            i,
            TargetEdit {
                text: None,
                recorded: Some(r.rect),
                // A field's crop holds its caption beside it, or there is none.
                crop: r.pixels.clone().map(|img| (name, img)),
                // The place the tree gives it now; one taught before and not found now stays.
                tree: r.tree.clone().map(Some),
            },
        ));
    }
    edit_targets(&lf.path, &edits)?;
    Ok(edits.len())
}

#[derive(clap::Subcommand, Debug)]
pub enum TakeoverCmd {
    /// Open takeover requests (--all: resolved ones too).
    List {
        #[arg(long)]
        all: bool,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArgs,
    },
    /// One request: the reason, the screenshot, the candidates, the side effects so far.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Resolve a request, then continue the run (a fleet job's answer is recorded, and a
    /// worker on the job's seat applies it and continues).
    Resolve(ResolveArgs),
}

#[derive(Args, Debug)]
#[group(id = "how", required = true, multiple = false)]
pub struct ResolveArgs {
    pub id: String,
    /// Act at X,Y of the request's screenshot (window pixels); proposes a flow change.
    #[arg(long, group = "how", value_name = "X,Y", allow_hyphen_values = true)]
    pub pick: Option<String>,
    /// You did the step by hand; Mend checks its verify condition.
    #[arg(long, group = "how")]
    pub done: bool,
    #[arg(long, group = "how")]
    pub skip: bool,
    #[arg(long, group = "how")]
    pub retry: bool,
    /// Undo the completed steps' compensations in reverse, each once, and end the run.
    #[arg(long, group = "how")]
    pub abort: bool,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArgs,
    /// Also append every progress event to this file as a JSON line.
    #[arg(long)]
    pub events: Option<PathBuf>,
}

#[derive(clap::Subcommand, Debug)]
pub enum ChangesCmd {
    /// Proposed flow changes (--all: decided ones too).
    List {
        #[arg(long)]
        all: bool,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArgs,
    },
    /// The change as a diff of the flow.
    Show {
        id: String,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Write the change into the flow file (and its crop beside it).
    Accept {
        id: String,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Drop the change.
    Reject {
        id: String,
        #[command(flatten)]
        db: DbArgs,
    },
}

pub fn run_takeover(cmd: TakeoverCmd) -> Result<ExitCode, MendError> {
    match cmd {
        TakeoverCmd::List { all, json, db } => {
            let store = db.open()?;
            let mut list: Vec<Takeover> = store.list(TAKEOVERS)?;
            list.retain(|t| all || t.status == "open");
            list.sort_by_key(|t| std::cmp::Reverse(t.created_ms));
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&list).expect("serializes")
                );
            } else {
                for t in list {
                    println!(
                        "{}\t{}\t{}\tstep {} '{}'\t{}",
                        t.id,
                        t.status,
                        t.run,
                        t.step + 1,
                        t.step_id,
                        t.code
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        TakeoverCmd::Show { id, json, db } => {
            let store = db.open()?;
            let t = takeover::takeover(&store, &id)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&t).expect("serializes"));
            } else {
                print_takeover(&t);
            }
            Ok(ExitCode::SUCCESS)
        }
        TakeoverCmd::Resolve(a) => {
            let res = if let Some(p) = &a.pick {
                Resolution::parse(&format!("pick {p}"))?
            } else if a.done {
                Resolution::Done
            } else if a.skip {
                Resolution::Skip
            } else if a.retry {
                Resolution::Retry
            } else {
                Resolution::Abort
            };
            let (store, fleet) = a.db.open_fleet()?;
            let t = takeover::takeover(&store, &a.id)?;
            // A fleet job's answer is recorded, and its seat's worker applies it.
            if let Some(fleet) = &fleet {
                if fleet.is_job(&t.run)? {
                    let d = fleet.decide(&a.id, res)?;
                    if a.json {
                        println!("{}", serde_json::to_string_pretty(&d).expect("serializes"));
                    } else {
                        eprintln!(
                        "takeover {} answered '{}': job {} is queued again; the worker on seat {} applies it and continues (`mend queue status`)",
                        a.id,
                        res.name(),
                        d.job,
                        d.seat.as_deref().unwrap_or("any")
                    );
                    }
                    return Ok(ExitCode::SUCCESS);
                }
            }
            let rec = store
                .run(&t.run)?
                .ok_or_else(|| invalid(format!("run {} is not stored", t.run)))?;
            let lf = LoadedFlow::for_run(&rec)?;
            let lang = mend_app::lang_of(&rec);
            let mut on = progress_to(a.events.clone());
            let opts = Options::new(a.db.dir().join("runs"));
            eprintln!("resolving {} with {}", a.id, res.name());
            let s = with_runner(&lang, &lf, &store, &mut on, opts, |r| {
                r.resolve(&lf, &a.id, res)
            })?;
            for c in store.list::<takeover::Change>(takeover::CHANGES)? {
                if c.takeover == a.id && c.status == "proposed" {
                    eprintln!(
                        "  proposed flow change {}: mend changes show {}",
                        c.id, c.id
                    );
                }
            }
            finish(&s, a.json, None)
        }
    }
}

pub fn run_changes(cmd: ChangesCmd) -> Result<ExitCode, MendError> {
    match cmd {
        ChangesCmd::List { all, json, db } => {
            let store = db.open()?;
            let mut list: Vec<takeover::Change> = store.list(takeover::CHANGES)?;
            list.retain(|c| all || c.status == "proposed");
            list.sort_by_key(|t| std::cmp::Reverse(t.created_ms));
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&list).expect("serializes")
                );
            } else {
                for c in list {
                    println!(
                        "{}\t{}\t{}\tstep {} '{}'",
                        c.id,
                        c.status,
                        c.flow_path,
                        c.step + 1,
                        c.step_id
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ChangesCmd::Show { id, db } => {
            let store = db.open()?;
            print!("{}", takeover::change(&store, &id)?.diff());
            Ok(ExitCode::SUCCESS)
        }
        ChangesCmd::Accept { id, db } => {
            let store = db.open()?;
            let c = takeover::accept(&store, &id)?;
            eprintln!("accepted {id}: {} step {} updated", c.flow_path, c.step + 1);
            Ok(ExitCode::SUCCESS)
        }
        ChangesCmd::Reject { id, db } => {
            let store = db.open()?;
            takeover::reject(&store, &id)?;
            eprintln!("rejected {id}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `mend secret set NAME` / `mend secret delete NAME`: the OS keyring side of `${secret:NAME}`.
/// There is no `get`: Mend never prints a secret.
#[derive(clap::Subcommand)]
pub enum SecretCmd {
    /// Store NAME in the keyring (service `mend`); the value is read from stdin (one line).
    Set { name: String },
    /// Remove NAME from the keyring.
    Delete { name: String },
}

pub fn run_secret(c: SecretCmd) -> Result<ExitCode, MendError> {
    let bad = |m: String| MendError::new(ErrorCode::InvalidArgument, m);
    match c {
        SecretCmd::Set { name } => {
            let mut value = String::new();
            std::io::stdin()
                .read_line(&mut value)
                .map_err(|e| bad(format!("read the secret from stdin: {e}")))?;
            let value = value.trim_end_matches(['\n', '\r']);
            if value.is_empty() {
                return Err(bad(format!(
                    "no value for '{name}' on stdin: pipe it in, e.g. `read -rs V; printf %s \"$V\" | mend secret set {name}`"
                )));
            }
            mend_runner::secrets::store(&name, value).map_err(bad)?;
            println!("stored '{name}' in the keyring (service 'mend')");
        }
        SecretCmd::Delete { name } => {
            if mend_runner::secrets::forget(&name).map_err(bad)? {
                println!("deleted '{name}' from the keyring");
            } else {
                println!("'{name}' was not in the keyring");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
