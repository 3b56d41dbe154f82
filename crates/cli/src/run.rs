//! `mend run|resume|runs|report`: durable runs of a flow against the live desktop.

use clap::Args;
use mend_capture::XcapCapture;
use mend_input::EnigoInput;
use mend_locate::Locator;
use mend_model::{ErrorCode, MendError};
use mend_runner::{
    markdown, read_rows, summary_from, LoadedFlow, Options, Progress, Runner, Summary, SystemClock,
};
use mend_store::Store;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug, Clone)]
pub struct DbArgs {
    /// The run database (default: $MEND_DB, else ~/.local/share/mend).
    #[arg(long)]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    pub fn dir(&self) -> PathBuf {
        self.db
            .clone()
            .or_else(|| std::env::var_os("MEND_DB").map(PathBuf::from))
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| ".".into()))
                    .join(".local/share/mend")
            })
    }
    fn open(&self) -> Result<Store, MendError> {
        Store::open(&self.dir())
    }
}

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
    #[arg(long, default_value = "chi_sim+eng")]
    pub lang: String,
    /// Input actions the run may send at most.
    #[arg(long, default_value_t = 1000)]
    pub budget: u32,
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

fn parse_vars(vars: &[String]) -> Result<BTreeMap<String, String>, MendError> {
    vars.iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.to_string()))
                .ok_or_else(|| invalid(format!("--var '{kv}' must be K=V")))
        })
        .collect()
}

/// One line per step on stderr: the operator sees where a long run is.
fn print_progress(p: &Progress) {
    let row = if p.rows > 1 {
        format!("row {}/{} ", p.row + 1, p.rows)
    } else {
        String::new()
    };
    match p.status.as_str() {
        "start" => {}
        "interrupt" => eprintln!(
            "  {row}interrupt: {} by {}",
            p.action,
            p.strategy.as_deref().unwrap_or("?")
        ),
        status => eprintln!(
            "  {row}step {}/{} {:<10} {:<12} {:<8} {:<9} {:>5} {:>6} ms{}",
            p.step + 1,
            p.steps,
            p.id,
            p.action,
            status,
            p.strategy.as_deref().unwrap_or("-"),
            p.confidence.map_or("-".into(), |c| format!("{c:.2}")),
            p.ms,
            p.code.map_or(String::new(), |c| format!(
                "  {c}: {}",
                p.message.as_deref().unwrap_or("")
            )),
        ),
    }
}

fn secret_from_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
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
        if s.status != "passed" {
            eprintln!("  continue with: mend resume {}", s.run);
        }
    }
    Ok(ExitCode::from(s.exit_code()))
}

fn runner_parts(lang: &str) -> Result<(Locator, EnigoInput), MendError> {
    Ok((Locator::new(lang)?, EnigoInput::new()?))
}

pub fn run_run(a: RunArgs) -> Result<ExitCode, MendError> {
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
    let (mut locator, mut input) = runner_parts(&a.lang)?;
    let clock = SystemClock::default();
    let capture = XcapCapture;
    let mut on = print_progress;
    let mut opts = Options::new(a.db.dir().join("runs"));
    opts.budget = a.budget;
    eprintln!("running {} ({} steps)", lf.flow.name, lf.flow.steps.len());
    let s = Runner::new(
        &capture,
        &mut input,
        &mut locator,
        &clock,
        &store,
        &secret_from_env,
        &mut on,
        opts,
    )
    .start(&lf, vars, rows, &a.lang)?;
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
    let mut columns: Vec<String> = rec.vars.keys().cloned().collect();
    if let Some(r) = rec.rows.first() {
        columns.extend(r.keys().cloned());
    }
    let lf = LoadedFlow::load(Path::new(&rec.flow_path), &columns)?;
    let lang = if rec.lang.is_empty() {
        "chi_sim+eng".to_string()
    } else {
        rec.lang.clone()
    };
    let (mut locator, mut input) = runner_parts(&lang)?;
    let clock = SystemClock::default();
    let capture = XcapCapture;
    let mut on = print_progress;
    let mut opts = Options::new(a.db.dir().join("runs"));
    opts.budget = a.budget;
    eprintln!("resuming {} ({})", rec.id, lf.flow.name);
    let s = Runner::new(
        &capture,
        &mut input,
        &mut locator,
        &clock,
        &store,
        &secret_from_env,
        &mut on,
        opts,
    )
    .resume(&lf, &a.run)?;
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
