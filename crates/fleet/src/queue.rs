//! The work list: `mend queue add|status|retry|cancel`. A work item is keyed by what it does
//! (flow, variables, row), so adding the same list again finds its items and adds nothing.

use crate::{db_err, Fleet, QUEUE_SCHEMA, TASK};
use mend_model::{ErrorCode, MendError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What one work item runs: a flow over one data row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkSpec {
    /// Absolute path of the flow file, as every worker sees it.
    pub flow_path: String,
    /// The flow's name (for status).
    pub flow: String,
    pub vars: BTreeMap<String, String>,
    pub row: BTreeMap<String, String>,
    pub lang: String,
}

impl WorkSpec {
    /// The names a run of it can use: its variables, then its row's columns (what the flow is
    /// validated against).
    pub fn columns(&self) -> Vec<String> {
        self.vars.keys().chain(self.row.keys()).cloned().collect()
    }

    /// The idempotency key: a 128-bit FNV-1a of the flow path, the variables and the row
    /// (stable across versions and machines, unlike std's hasher). It is also the run's id.
    pub fn key(&self) -> String {
        let text =
            serde_json::to_string(&(&self.flow_path, &self.vars, &self.row)).expect("serializes");
        let fnv = |seed: u64| {
            text.bytes().fold(seed, |h, b| {
                (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
            })
        };
        format!(
            "w{:016x}{:016x}",
            fnv(0xcbf2_9ce4_8422_2325),
            fnv(0x6c62_272e_07bb_0142)
        )
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AddReport {
    pub added: usize,
    /// Already on the list (any status): not added again.
    pub existing: usize,
    pub keys: Vec<String>,
}

/// One work item as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkItem {
    pub key: String,
    pub flow: String,
    /// `pending`, `running`, `done`, `failed`, `paused`, `cancelled`.
    pub status: String,
    pub attempt: i64,
    pub recoveries: i32,
    pub seat: Option<String>,
    pub reason: Option<String>,
    pub spec: WorkSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FlowCounts {
    pub flow: String,
    pub pending: i64,
    pub running: i64,
    pub done: i64,
    pub failed: i64,
    pub paused: i64,
    pub cancelled: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkerRow {
    pub seat: String,
    pub pid: i32,
    pub host: String,
    /// Seconds since its last heartbeat.
    pub heartbeat_age_s: f64,
    pub job: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Status {
    pub flows: Vec<FlowCounts>,
    pub workers: Vec<WorkerRow>,
    /// Items paused or failed, with why.
    pub attention: Vec<WorkItem>,
}

fn not_found(job: &str) -> MendError {
    MendError::new(
        ErrorCode::JobNotFound,
        format!("no work item '{job}'; `mend queue status --json` lists them"),
    )
}

const ITEM_COLS: &str = "key, flow, status, attempt, recoveries, seat, reason, spec::text";

fn item(r: &tokio_postgres::Row) -> Result<WorkItem, MendError> {
    let spec: String = r.get(7);
    Ok(WorkItem {
        key: r.get(0),
        flow: r.get(1),
        status: r.get(2),
        attempt: r.get(3),
        recoveries: r.get(4),
        seat: r.get(5),
        reason: r.get(6),
        spec: serde_json::from_str(&spec)
            .map_err(|e| MendError::new(ErrorCode::StoreCorrupt, format!("work item spec: {e}")))?,
    })
}

/// Queue the job of `key` in graphile_worker (replacing a queued one of the same key).
/// The item's status, its row locked for the rest of the transaction.
async fn locked_status(
    tx: &impl tokio_postgres::GenericClient,
    job: &str,
) -> Result<String, MendError> {
    let row = tx
        .query_opt(
            "SELECT status FROM mend.work WHERE key = $1 FOR UPDATE",
            &[&job],
        )
        .await
        .map_err(db_err)?
        .ok_or_else(|| not_found(job))?;
    Ok(row.get(0))
}

pub(crate) async fn enqueue(
    tx: &impl tokio_postgres::GenericClient,
    key: &str,
) -> Result<(), MendError> {
    let payload = serde_json::json!({ "key": key });
    let sql = format!(
        "SELECT 1 FROM {QUEUE_SCHEMA}.add_job($1, $2::text::json, job_key => $3, max_attempts => 25)"
    );
    tx.query(&sql, &[&TASK, &payload.to_string(), &key])
        .await
        .map_err(db_err)?;
    Ok(())
}

impl Fleet {
    /// Add one work item per spec; items already on the list (same key) are left as they are.
    pub fn add(&self, specs: &[WorkSpec]) -> Result<AddReport, MendError> {
        self.block_on(async {
            let mut c = self.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            let mut rep = AddReport::default();
            for s in specs {
                let key = s.key();
                let spec = serde_json::to_string(s).expect("serializes");
                let n = tx
                    .execute(
                        "INSERT INTO mend.work (key, flow, spec) VALUES ($1, $2, $3::text::jsonb)
                         ON CONFLICT (key) DO NOTHING",
                        &[&key, &s.flow, &spec],
                    )
                    .await
                    .map_err(db_err)?;
                if n == 1 {
                    enqueue(&*tx, &key).await?;
                    rep.added += 1;
                } else {
                    rep.existing += 1;
                }
                rep.keys.push(key);
            }
            tx.commit().await.map_err(db_err)?;
            Ok(rep)
        })
    }

    pub fn item(&self, job: &str) -> Result<WorkItem, MendError> {
        self.block_on(async {
            let c = self.db.pool().get().await.map_err(db_err)?;
            let row = c
                .query_opt(
                    &format!("SELECT {ITEM_COLS} FROM mend.work WHERE key = $1"),
                    &[&job],
                )
                .await
                .map_err(db_err)?;
            item(&row.ok_or_else(|| not_found(job))?)
        })
    }

    pub fn items(&self) -> Result<Vec<WorkItem>, MendError> {
        self.block_on(async {
            let c = self.db.pool().get().await.map_err(db_err)?;
            let rows = c
                .query(
                    &format!("SELECT {ITEM_COLS} FROM mend.work ORDER BY created, key"),
                    &[],
                )
                .await
                .map_err(db_err)?;
            rows.iter().map(item).collect()
        })
    }

    pub fn status(&self) -> Result<Status, MendError> {
        let items = self.items()?;
        let mut flows: BTreeMap<String, FlowCounts> = BTreeMap::new();
        for i in &items {
            let f = flows.entry(i.flow.clone()).or_insert_with(|| FlowCounts {
                flow: i.flow.clone(),
                ..Default::default()
            });
            match i.status.as_str() {
                "pending" => f.pending += 1,
                "running" => f.running += 1,
                "done" => f.done += 1,
                "failed" => f.failed += 1,
                "paused" => f.paused += 1,
                _ => f.cancelled += 1,
            }
        }
        let workers = self.block_on(async {
            let c = self.db.pool().get().await.map_err(db_err)?;
            let rows = c
                .query(
                    "SELECT seat, pid, host, extract(epoch from now() - heartbeat)::float8, job
                     FROM mend.workers ORDER BY seat",
                    &[],
                )
                .await
                .map_err(db_err)?;
            Ok::<_, MendError>(
                rows.iter()
                    .map(|r| WorkerRow {
                        seat: r.get(0),
                        pid: r.get(1),
                        host: r.get(2),
                        heartbeat_age_s: r.get(3),
                        job: r.get(4),
                    })
                    .collect(),
            )
        })?;
        Ok(Status {
            flows: flows.into_values().collect(),
            workers,
            attention: items
                .into_iter()
                .filter(|i| i.status == "paused" || i.status == "failed")
                .collect(),
        })
    }

    /// Put a failed, paused or cancelled item back on the queue (recoveries reset). A person
    /// calls this after looking: a running item is refused, as is a done one.
    pub fn retry(&self, job: &str) -> Result<WorkItem, MendError> {
        self.block_on(async {
            let mut c = self.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            let status = locked_status(&*tx, job).await?;
            if !matches!(status.as_str(), "failed" | "paused" | "cancelled") {
                return Err(MendError::new(
                    ErrorCode::InvalidArgument,
                    format!("work item {job} is {status}; only failed, paused or cancelled items are retried"),
                ));
            }
            tx.execute(
                "UPDATE mend.work SET status = 'pending', recoveries = 0, reason = NULL,
                 updated = now() WHERE key = $1",
                &[&job],
            )
            .await
            .map_err(db_err)?;
            enqueue(&*tx, job).await?;
            tx.commit().await.map_err(db_err)
        })?;
        self.item(job)
    }

    /// Take an item off the list. A running one is fenced off too (its attempt is bumped), so
    /// its worker's next journal write is refused and nothing more of it is acted.
    pub fn cancel(&self, job: &str) -> Result<WorkItem, MendError> {
        self.block_on(async {
            let mut c = self.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            let status = locked_status(&*tx, job).await?;
            if status == "done" {
                return Err(MendError::new(
                    ErrorCode::InvalidArgument,
                    format!("work item {job} is done; there is nothing to cancel"),
                ));
            }
            tx.execute(
                "UPDATE mend.work SET status = 'cancelled', attempt = attempt + 1,
                 reason = 'cancelled by a person', updated = now() WHERE key = $1",
                &[&job],
            )
            .await
            .map_err(db_err)?;
            tx.query(
                &format!("SELECT 1 FROM {QUEUE_SCHEMA}.remove_job($1)"),
                &[&job],
            )
            .await
            .map_err(db_err)?;
            tx.commit().await.map_err(db_err)
        })?;
        self.item(job)
    }
}
