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
    run_flow(a, false)
}

/// `mend record`: run the flow; when it passes, write where each step's control was
/// (`recorded`) and, for controls other than fields, its pixels (`crop`) into the flow, so the
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
    let (mut locator, mut input) = runner_parts(&a.lang)?;
    let clock = SystemClock::default();
    let capture = XcapCapture;
    let mut on = print_progress;
    let mut opts = Options::new(a.db.dir().join("runs"));
    opts.budget = a.budget;
    opts.record = record;
    eprintln!("running {} ({} steps)", lf.flow.name, lf.flow.steps.len());
    let mut runner = Runner::new(
        &capture,
        &mut input,
        &mut locator,
        &clock,
        &store,
        &secret_from_env,
        &mut on,
        opts,
    );
    let s = runner.start(&lf, vars, rows, &a.lang)?;
    if record {
        if s.status == "passed" {
            let n = write_recording(&lf, &runner.recorded)?;
            eprintln!("recorded {n} targets into {}", a.flow.display());
        } else {
            eprintln!("the run did not pass: nothing recorded");
        }
    }
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

/// Write `recorded` boxes and `crop` files into the flow file, keeping its comments.
fn write_recording(
    lf: &LoadedFlow,
    recorded: &BTreeMap<usize, (mend_model::Rect, Option<image::RgbaImage>)>,
) -> Result<usize, MendError> {
    let bad = |e: String| MendError::new(ErrorCode::InvalidArgument, e);
    let path = &lf.path;
    let src = std::fs::read_to_string(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    let mut doc: toml_edit::DocumentMut = src
        .parse()
        .map_err(|e| bad(format!("{}: {e}", path.display())))?;
    let stem = path
        .file_stem()
        .map_or("flow".into(), |s| s.to_string_lossy().into_owned());
    let crops = format!("{stem}.crops");
    let dir = path.parent().unwrap_or(Path::new("."));
    let steps = doc["step"]
        .as_array_of_tables_mut()
        .ok_or_else(|| bad("the flow has no [[step]] tables".into()))?;
    let mut n = 0;
    for (&i, (rect, pixels)) in recorded {
        let step = &lf.flow.steps[i];
        let Some(spec) = &step.target else { continue };
        let Some(item) = steps.get_mut(i).and_then(|t| t.get_mut("target")) else {
            continue;
        };
        let Some(target) = item.as_table_like_mut() else {
            continue;
        };
        let mut r = toml_edit::InlineTable::new();
        for (k, v) in [("x", rect.x), ("y", rect.y), ("w", rect.w), ("h", rect.h)] {
            r.insert(k, (v as i64).into());
        }
        target.insert("recorded", toml_edit::value(r));
        // A field's pixels are its content, which changes; its label locates it.
        let is_field =
            spec.role.as_deref().and_then(mend_model::Role::parse) == Some(mend_model::Role::Field);
        if let (false, Some(img)) = (is_field, pixels) {
            let name = format!(
                "{crops}/{}.png",
                step.id.clone().unwrap_or_else(|| format!("step{}", i + 1))
            );
            std::fs::create_dir_all(dir.join(&crops)).map_err(|e| bad(format!("{crops}: {e}")))?;
            img.save(dir.join(&name))
                .map_err(|e| bad(format!("{name}: {e}")))?;
            target.insert("crop", toml_edit::value(name));
        }
        if let Some(t) = item.as_inline_table_mut() {
            t.fmt();
        }
        n += 1;
    }
    std::fs::write(path, doc.to_string()).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    Ok(n)
}
