//! `mend queue add|status|retry|move|cancel` and `mend worker`: the fleet's side of the CLI. The
//! queue and the journal live in PostgreSQL (`--database-url`, else `$MEND_DATABASE_URL`).

use crate::live::{connect, database_url, parse_vars, progress_to, DbArgs, Parts};
use clap::{Args, Subcommand};
use mend_fleet::{Exec, Fleet, Job, WorkSpec, WorkerOpts};
use mend_model::{ErrorCode, MendError};
use mend_runner::{read_rows, LoadedFlow, Options, Summary};
use mend_store::Store;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn fleet(flag: &Option<String>) -> Result<Fleet, MendError> {
    let url = database_url(flag.as_deref()).ok_or_else(|| {
        MendError::new(
            ErrorCode::InvalidArgument,
            "no fleet database: pass --database-url postgres://… or set MEND_DATABASE_URL",
        )
    })?;
    connect(&url)
}

#[derive(Subcommand, Debug)]
pub enum QueueCmd {
    /// One work item per --data row (or one): adding the same list again adds nothing.
    Add {
        flow: PathBuf,
        #[arg(long)]
        data: Option<PathBuf>,
        #[arg(long = "var", value_name = "K=V")]
        vars: Vec<String>,
        #[arg(long, default_value = mend_app::DEFAULT_LANG)]
        lang: String,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Pending / running / done / failed / paused per flow, and each worker's last heartbeat.
    Status {
        #[arg(long)]
        json: bool,
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Put a failed, paused or cancelled item back on the queue.
    Retry {
        job: String,
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Move an item whose seat is gone for good to another seat (or any), to start over there.
    /// Refused while the old seat has a live worker (SEAT_IN_USE), and when a step that writes
    /// acted there (RESUME_UNVERIFIED) unless you checked it committed nothing: --start-over.
    Move {
        job: String,
        /// The seat to run it (default: any seat).
        #[arg(long)]
        to: Option<String>,
        /// You checked that what its writing steps did on the old seat did not commit.
        #[arg(long)]
        start_over: bool,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Take an item off the queue (a running one is fenced off: it writes and acts no more).
    Cancel {
        job: String,
        #[arg(long)]
        database_url: Option<String>,
    },
}

pub fn run_queue(cmd: QueueCmd) -> Result<ExitCode, MendError> {
    match cmd {
        QueueCmd::Add {
            flow,
            data,
            vars,
            lang,
            json,
            database_url,
        } => {
            let vars = parse_vars(&vars)?;
            let rows = match &data {
                Some(p) => read_rows(p)?,
                None => vec![Default::default()],
            };
            let mut columns: Vec<String> = vars.keys().cloned().collect();
            if let Some(r) = rows.first() {
                columns.extend(r.keys().cloned());
            }
            // Validate here, once, so a bad flow never reaches a worker.
            let lf = LoadedFlow::load(&flow, &columns)?;
            let specs: Vec<WorkSpec> = rows
                .into_iter()
                .map(|row| WorkSpec {
                    flow_path: lf.path.display().to_string(),
                    flow: lf.flow.name.clone(),
                    vars: vars.clone(),
                    row,
                    lang: lang.clone(),
                })
                .collect();
            let rep = fleet(&database_url)?.add(&specs)?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&rep).expect("serializes")
                );
            } else {
                eprintln!(
                    "{} added, {} already on the list ({})",
                    rep.added, rep.existing, lf.flow.name
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        QueueCmd::Status { json, database_url } => {
            let st = fleet(&database_url)?.status()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&st).expect("serializes"));
                return Ok(ExitCode::SUCCESS);
            }
            println!("flow\tpending\trunning\tdone\tfailed\tpaused\tcancelled");
            for f in &st.flows {
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    f.flow, f.pending, f.running, f.done, f.failed, f.paused, f.cancelled
                );
            }
            for w in &st.workers {
                println!(
                    "worker {} pid {} on {}: heartbeat {:.1} s ago, {}",
                    w.seat,
                    w.pid,
                    w.host,
                    w.heartbeat_age_s,
                    w.job.as_deref().unwrap_or("idle")
                );
            }
            for i in &st.attention {
                println!(
                    "{} {}: {}",
                    i.key,
                    i.status,
                    i.reason.as_deref().unwrap_or("")
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        QueueCmd::Retry { job, database_url } => {
            let i = fleet(&database_url)?.retry(&job)?;
            eprintln!("{} is {} again", i.key, i.status);
            Ok(ExitCode::SUCCESS)
        }
        QueueCmd::Move {
            job,
            to,
            start_over,
            json,
            database_url,
        } => {
            let m = fleet(&database_url)?.move_item(&job, to.as_deref(), start_over)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&m).expect("serializes"));
            } else {
                eprintln!(
                    "{} moved off seat {} to {}: it starts over from its first step (the old attempt is kept as run {})",
                    m.job,
                    m.from,
                    m.to.as_deref().unwrap_or("any seat"),
                    m.archive
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        QueueCmd::Cancel { job, database_url } => {
            let i = fleet(&database_url)?.cancel(&job)?;
            eprintln!("{} {}", i.key, i.status);
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// The X display this worker drives (its desktop).
    #[arg(long)]
    pub display: String,
    /// The seat's name (default `HOST:DISPLAY`): one worker per seat at a time.
    #[arg(long)]
    pub seat: Option<String>,
    #[arg(long)]
    pub database_url: Option<String>,
    /// Where each run's audit, screenshots and report go (default: beside the other runs,
    /// `$MEND_DB/runs`, else `~/.local/share/mend/runs`).
    #[arg(long)]
    pub runs: Option<PathBuf>,
    #[arg(long, default_value_t = 5000)]
    pub heartbeat_ms: u64,
    /// A heartbeat older than this gives the job back to the queue.
    #[arg(long, default_value_t = 60000)]
    pub stale_ms: u64,
    /// Workers lost on one item before it is parked for a person (POISON_JOB).
    #[arg(long, default_value_t = 3)]
    pub max_recoveries: i32,
    #[arg(long, default_value_t = 1000)]
    pub budget: u32,
}

struct LiveExec {
    runs: PathBuf,
    budget: u32,
    /// The runner's parts, built when the worker starts and kept for its life (one desktop,
    /// one job at a time): a job starts without starting OCR engines or an X connection again
    /// (issue 35: lease → start was 0.3–0.6 s, most of it this). Built again for another
    /// language.
    parts: Mutex<Option<Parts>>,
}

impl Exec for LiveExec {
    fn run(&self, job: &Job, store: &Store) -> Result<Summary, MendError> {
        let s = &job.spec;
        let lf = LoadedFlow::load(std::path::Path::new(&s.flow_path), &s.columns())?;
        let mut on = progress_to(None);
        let mut opts = Options::new(self.runs.clone());
        opts.budget = self.budget;
        // A job that panicked left the parts as they were: nothing in them is half-written.
        let mut parts = self.parts.lock().unwrap_or_else(|p| p.into_inner());
        if parts.as_ref().is_none_or(|p| p.lang != s.lang) {
            *parts = Some(Parts::new(&s.lang)?);
        }
        let parts = parts.as_mut().expect("built above");
        parts.runner(&lf, store, &mut on, opts, |runner| {
            mend_fleet::continue_job(runner, &lf, job)
        })
    }
}

pub fn run_worker(a: WorkerArgs) -> Result<ExitCode, MendError> {
    // Before any thread talks to X.
    std::env::set_var("DISPLAY", &a.display);
    let host = std::fs::read_to_string("/etc/hostname")
        .unwrap_or_else(|_| "localhost".into())
        .trim()
        .to_string();
    let opts = WorkerOpts {
        seat: a.seat.unwrap_or_else(|| format!("{host}{}", a.display)),
        heartbeat: Duration::from_millis(a.heartbeat_ms),
        stale: Duration::from_millis(a.stale_ms),
        max_recoveries: a.max_recoveries,
    };
    let fleet = match database_url(a.database_url.as_deref()) {
        Some(url) => Fleet::connect(&url, Duration::from_secs(60))?,
        None => fleet(&None)?,
    };
    let exec = Arc::new(LiveExec {
        runs: a.runs.unwrap_or_else(|| {
            DbArgs {
                db: None,
                database_url: None,
            }
            .dir()
            .join("runs")
        }),
        budget: a.budget,
        // Built before the first lease, in the default languages (a job in others builds its
        // own once): no job waits for OCR engines or an X connection to start. A worker that
        // cannot build them here says why and tries again at its first job.
        parts: Mutex::new(
            Parts::new(mend_app::DEFAULT_LANG)
                .map_err(|e| {
                    eprintln!("note: the runner could not be set up at the worker's start ({e}); it is tried again at the first job")
                })
                .ok(),
        ),
    });
    mend_fleet::run_worker(&fleet, opts, exec)?;
    Ok(ExitCode::SUCCESS)
}
