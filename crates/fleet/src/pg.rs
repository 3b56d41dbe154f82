//! The PostgreSQL [`Backend`]: the same encoded records as sled, in `mend.records` and
//! `mend.journal`, each write in a transaction that first checks the fence.

use crate::{db_err, Fleet};
use mend_model::{ErrorCode, MendError};
use mend_store::Backend;

/// Who may write: the attempt `attempt` of work item `job`. The check and the write share a
/// transaction, and the check holds the item's row lock (`FOR SHARE`) until commit, so a new
/// lease (which updates that row) waits for a write in flight and every later write of the old
/// attempt sees the new number and is refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Fence {
    pub job: String,
    pub attempt: i64,
}

pub struct PgBackend {
    fleet: Fleet,
    fence: Option<Fence>,
}

impl PgBackend {
    pub fn new(fleet: Fleet, fence: Option<Fence>) -> PgBackend {
        PgBackend { fleet, fence }
    }

    fn write(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Option<i64>, MendError> {
        self.fleet.block_on(async {
            let mut c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            if let Some(f) = &self.fence {
                let row = tx
                    .query_opt(
                        "SELECT attempt, status FROM mend.work WHERE key = $1 FOR SHARE",
                        &[&f.job],
                    )
                    .await
                    .map_err(db_err)?;
                let (attempt, status): (i64, String) = match &row {
                    Some(r) => (r.get(0), r.get(1)),
                    None => (-1, "removed".into()),
                };
                if attempt != f.attempt || status != "running" {
                    return Err(MendError::new(
                        ErrorCode::LeaseLost,
                        format!(
                            "job {} attempt {} no longer holds its lease (now attempt {attempt}, {status}); nothing written",
                            f.job, f.attempt
                        ),
                    ));
                }
            }
            let row = tx.query_opt(sql, params).await.map_err(db_err)?;
            tx.commit().await.map_err(db_err)?;
            Ok(row.map(|r| r.get::<_, i64>(0)))
        })
    }
}

/// A record written or replaced (`Backend::put`; a job moved to another seat, relocate.rs).
pub(crate) const UPSERT_RECORD: &str =
    "INSERT INTO mend.records (tbl, key, body) VALUES ($1, $2, $3)
     ON CONFLICT (tbl, key) DO UPDATE SET body = EXCLUDED.body";

impl Backend for PgBackend {
    fn put(&self, table: &str, key: &str, record: Vec<u8>) -> Result<(), MendError> {
        self.write(
            &format!("{UPSERT_RECORD} RETURNING 0::bigint"),
            &[&table, &key, &record],
        )?;
        Ok(())
    }

    fn get(&self, table: &str, key: &str) -> Result<Option<Vec<u8>>, MendError> {
        self.fleet.block_on(async {
            let c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let row = c
                .query_opt(
                    "SELECT body FROM mend.records WHERE tbl = $1 AND key = $2",
                    &[&table, &key],
                )
                .await
                .map_err(db_err)?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn list(&self, table: &str) -> Result<Vec<(String, Vec<u8>)>, MendError> {
        self.fleet.block_on(async {
            let c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let rows = c
                .query(
                    "SELECT key, body FROM mend.records WHERE tbl = $1 ORDER BY key COLLATE \"C\"",
                    &[&table],
                )
                .await
                .map_err(db_err)?;
            Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn append(&self, run: &str, record: Vec<u8>) -> Result<u64, MendError> {
        let seq = self.write(
            "INSERT INTO mend.journal (run, body) VALUES ($1, $2) RETURNING seq",
            &[&run, &record],
        )?;
        Ok(seq.unwrap_or(0) as u64)
    }

    fn journal(&self, run: &str) -> Result<Vec<Vec<u8>>, MendError> {
        self.fleet.block_on(async {
            let c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let rows = c
                .query(
                    "SELECT body FROM mend.journal WHERE run = $1 ORDER BY seq",
                    &[&run],
                )
                .await
                .map_err(db_err)?;
            Ok(rows.into_iter().map(|r| r.get(0)).collect())
        })
    }
}
