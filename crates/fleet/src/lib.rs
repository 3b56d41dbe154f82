//! The robot fleet: many workers, one PostgreSQL. A work item (one data row of a flow) is a
//! `graphile_worker` job; its run, journal and takeover requests live in PostgreSQL through
//! the same [`mend_store::Store`] as on one machine, fenced by (job, attempt): every write
//! first checks, under a row lock, that the job's current attempt is the writer's, so a worker
//! that lost its lease writes nothing (`LEASE_LOST`).
//!
//! Where things are: `mend.work` (one row per work item: its spec, status, current attempt,
//! the seat — the desktop — it last ran on, recoveries), `mend.records` and `mend.journal`
//! (the `Store` backend: the same `[version][crc32][JSON]` records as sled), `mend.workers`
//! (each seat's last heartbeat), and graphile_worker's own schema for the queue.

mod pg;
mod queue;
mod relocate;
mod takeover;
mod worker;

pub use pg::{Fence, PgBackend};
pub use queue::{AddReport, FlowCounts, Status, WorkItem, WorkSpec, WorkerRow};
pub use relocate::Moved;
pub use takeover::{continue_job, Decided};
pub use worker::{run_worker, Exec, Job, WorkerOpts};

use mend_model::{ErrorCode, MendError};
use std::sync::Arc;
use std::time::Duration;

pub(crate) fn db_err(e: impl std::fmt::Display) -> MendError {
    MendError::new(
        ErrorCode::DatabaseUnavailable,
        format!("PostgreSQL: {e}; check MEND_DATABASE_URL and that the server is up"),
    )
}

/// The graphile_worker task every work item is queued as.
pub const TASK: &str = "mend_run";
/// graphile_worker's schema.
pub const QUEUE_SCHEMA: &str = "graphile_worker";

const SCHEMA: &str = "
CREATE SCHEMA IF NOT EXISTS mend;
CREATE TABLE IF NOT EXISTS mend.records (
    tbl text NOT NULL, key text NOT NULL, body bytea NOT NULL, PRIMARY KEY (tbl, key));
CREATE TABLE IF NOT EXISTS mend.journal (
    seq bigserial PRIMARY KEY, run text NOT NULL, body bytea NOT NULL);
CREATE INDEX IF NOT EXISTS journal_run ON mend.journal (run, seq);
CREATE TABLE IF NOT EXISTS mend.work (
    key text PRIMARY KEY,
    flow text NOT NULL,
    spec jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending',
    attempt bigint NOT NULL DEFAULT 0,
    recoveries int NOT NULL DEFAULT 0,
    seat text,
    reason text,
    created timestamptz NOT NULL DEFAULT now(),
    updated timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS mend.workers (
    seat text PRIMARY KEY, pid int NOT NULL, host text NOT NULL,
    started timestamptz NOT NULL, heartbeat timestamptz NOT NULL, job text);
";

/// A connection to the fleet's database: a small pool on a runtime of its own, so every call
/// here is blocking (the runner is synchronous).
#[derive(Clone)]
pub struct Fleet {
    pub(crate) rt: Arc<tokio::runtime::Runtime>,
    pub(crate) db: graphile_worker::tokio_postgres::TokioPostgresDatabase,
    pub(crate) url: String,
}

impl Fleet {
    /// Connect, waiting up to `wait` for a server that is starting, and create the schemas
    /// (graphile_worker's migrations and Mend's tables) if they are missing.
    pub fn connect(url: &str, wait: Duration) -> Result<Fleet, MendError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(db_err)?;
        let db = graphile_worker::tokio_postgres::TokioPostgresDatabase::from_url(url, 8).map_err(
            |e| {
                MendError::new(
                    ErrorCode::InvalidArgument,
                    format!("database URL '{url}': {e}"),
                )
            },
        )?;
        let fleet = Fleet {
            rt: Arc::new(rt),
            db,
            url: url.to_string(),
        };
        let deadline = std::time::Instant::now() + wait;
        loop {
            match fleet.migrate() {
                Ok(()) => return Ok(fleet),
                Err(e) if std::time::Instant::now() < deadline => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(250));
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn migrate(&self) -> Result<(), MendError> {
        self.rt.block_on(async {
            let utils =
                graphile_worker::WorkerUtils::new(self.db.clone(), QUEUE_SCHEMA.to_string());
            utils.migrate().await.map_err(db_err)?;
            let mut c = self.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            tx.execute("SELECT pg_advisory_xact_lock(7345001)", &[])
                .await
                .map_err(db_err)?;
            tx.batch_execute(SCHEMA).await.map_err(db_err)?;
            tx.commit().await.map_err(db_err)
        })
    }

    /// The run store over this database; with a fence, every write is refused once the job's
    /// attempt is no longer `fence.attempt`.
    pub fn store(&self, fence: Option<Fence>) -> mend_store::Store {
        mend_store::Store::with_backend(Box::new(PgBackend::new(self.clone(), fence)))
    }

    pub(crate) fn block_on<T>(&self, f: impl std::future::Future<Output = T>) -> T {
        self.rt.handle().block_on(f)
    }
}
