//! What `mend run` (and its siblings) and `mend worker` share: where runs are kept (`DbArgs`, a
//! fleet's database), the `--var`s, progress on the terminal; the runner over the live desktop
//! is `mend_app`'s, as the studio's is. `run.rs` and `fleet.rs` each use it and not each other.

use clap::Args;
use mend_fleet::Fleet;
use mend_model::{ErrorCode, MendError};
use mend_runner::Progress;
use mend_store::Store;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

fn invalid(msg: String) -> MendError {
    MendError::new(ErrorCode::InvalidArgument, msg)
}

pub fn database_url(flag: Option<&str>) -> Option<String> {
    flag.map(str::to_string)
        .or_else(|| std::env::var("MEND_DATABASE_URL").ok())
        .filter(|u| !u.is_empty())
}

pub fn connect(url: &str) -> Result<Fleet, MendError> {
    Fleet::connect(url, Duration::from_secs(10))
}

#[derive(Args, Debug, Clone)]
pub struct DbArgs {
    /// The run database (default: $MEND_DB, else ~/.local/share/mend).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// A fleet's PostgreSQL (default: $MEND_DATABASE_URL): runs, journals and takeover
    /// requests are read and written there instead of the local sled database.
    #[arg(long)]
    pub database_url: Option<String>,
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
    pub(crate) fn open(&self) -> Result<Store, MendError> {
        Ok(self.open_fleet()?.0)
    }

    /// The store, and the fleet when it lives in one.
    pub(crate) fn open_fleet(&self) -> Result<(Store, Option<mend_fleet::Fleet>), MendError> {
        match database_url(self.database_url.as_deref()) {
            Some(url) => {
                let fleet = connect(&url)?;
                Ok((fleet.store(None), Some(fleet)))
            }
            None => Ok((Store::open(&self.dir())?, None)),
        }
    }
}

pub(crate) fn parse_vars(vars: &[String]) -> Result<BTreeMap<String, String>, MendError> {
    vars.iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.to_string()))
                .ok_or_else(|| invalid(format!("--var '{kv}' must be K=V")))
        })
        .collect()
}

/// One line per step on stderr: the operator sees where a long run is.
pub(crate) fn print_progress(p: &Progress) {
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

/// Progress on stderr, and as JSON lines in `events` when given.
pub(crate) fn progress_to(events: Option<PathBuf>) -> impl FnMut(&Progress) {
    let mut file = events.and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    move |p: &Progress| {
        print_progress(p);
        if let Some(f) = file.as_mut() {
            use std::io::Write;
            let _ = writeln!(f, "{}", serde_json::to_string(p).expect("serializes"));
        }
    }
}

pub(crate) use mend_app::{with_runner, Parts};
