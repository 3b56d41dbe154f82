//! A paused job and the person who answers it from any machine.
//!
//! The request is the runner's own [`Takeover`] record in `mend.records`, so `mend takeover
//! list|show` read it exactly as on one machine. An answer is not acted on where it is typed:
//! what the job left on screen (a half-filled form, the window a `pick` points into) is on its
//! seat. So [`Fleet::decide`] only records it — the request becomes `decided` with the answer,
//! the item `pending` again (its attempt bumped) and queued in graphile_worker — in one
//! transaction under the item's row lock, and only while the item is `paused` (no worker holds
//! it) and the request still `open`: an answer to a request that no longer stands is
//! `TAKEOVER_STALE` and changes nothing. The job stays with its seat (`seat` is kept): that
//! seat's worker leases it and [`continue_job`] applies the answer through
//! `Runner::resolve`, exactly as `mend takeover resolve` does on one machine, then goes on
//! like `mend resume`.

use crate::{db_err, queue::enqueue, Fleet, Job};
use mend_model::{ErrorCode, MendError};
use mend_runner::takeover::{self, suggestion, Resolution, Takeover, TAKEOVERS};
use mend_runner::{summary_from, LoadedFlow, Runner, Summary};
use serde::Serialize;

/// An answer recorded for a fleet job.
#[derive(Debug, Clone, Serialize)]
pub struct Decided {
    pub takeover: Takeover,
    pub job: String,
    /// The seat the job paused on: its worker applies the answer.
    pub seat: Option<String>,
}

impl Fleet {
    /// Whether `run` is a work item of this fleet (a run started by `mend run --database-url`
    /// is not: its requests are answered where it runs).
    pub fn is_job(&self, run: &str) -> Result<bool, MendError> {
        self.block_on(async {
            let c = self.db.pool().get().await.map_err(db_err)?;
            let row = c
                .query_opt("SELECT 1 FROM mend.work WHERE key = $1", &[&run])
                .await
                .map_err(db_err)?;
            Ok(row.is_some())
        })
    }

    /// Record a person's answer to the takeover request `id` of a paused job and queue the job
    /// again for its seat. `TAKEOVER_NOT_FOUND` for an unknown id; `TAKEOVER_STALE` when the
    /// request was answered already or its job is no longer paused.
    pub fn decide(&self, id: &str, res: Resolution) -> Result<Decided, MendError> {
        self.block_on(async {
            let mut c = self.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            let job = read(&*tx, id, "").await?.run;
            // The item's row lock first, as every fenced write takes it: no worker writes this
            // job's records while the answer is checked and recorded.
            let item = tx
                .query_opt(
                    "SELECT status, seat FROM mend.work WHERE key = $1 FOR UPDATE",
                    &[&job],
                )
                .await
                .map_err(db_err)?
                .ok_or_else(|| {
                    MendError::new(
                        ErrorCode::JobNotFound,
                        format!("takeover {id} is of run {job}, which is not a work item of this fleet"),
                    )
                })?;
            let (status, seat): (String, Option<String>) = (item.get(0), item.get(1));
            let mut t = read(&*tx, id, "FOR UPDATE").await?;
            takeover::check_open(&t)?;
            if status != "paused" {
                return Err(MendError::new(
                    ErrorCode::TakeoverStale,
                    format!(
                        "takeover {id}: its job {job} is {status}, not paused{}; nothing changed",
                        if status == "running" {
                            " (a worker holds it; answer once it has paused)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            if t.code == ErrorCode::PoisonJob && res != Resolution::Retry {
                return Err(MendError::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "takeover {id} parked a job that kept losing its worker: answer --retry (resumed from the journal on its seat, each cut-short step verified first) or `mend queue cancel {job}`"
                    ),
                ));
            }
            t.status = "decided".into();
            t.resolution = Some(res.name());
            tx.execute(
                "UPDATE mend.records SET body = $3 WHERE tbl = $1 AND key = $2",
                &[&TAKEOVERS, &id, &mend_store::encode(&t)],
            )
            .await
            .map_err(db_err)?;
            let reason = format!(
                "takeover {id} answered '{}': waits for seat {}",
                res.name(),
                seat.as_deref().unwrap_or("any")
            );
            tx.execute(
                "UPDATE mend.work SET status = 'pending', attempt = attempt + 1, recoveries = 0,
                 reason = $2, updated = now() WHERE key = $1",
                &[&job, &reason],
            )
            .await
            .map_err(db_err)?;
            enqueue(&*tx, &job).await?;
            tx.commit().await.map_err(db_err)?;
            Ok(Decided {
                takeover: t,
                job,
                seat,
            })
        })
    }
}

/// The stored request `id`, its row locked with `lock` (`FOR UPDATE`) when given.
async fn read(
    tx: &impl tokio_postgres::GenericClient,
    id: &str,
    lock: &str,
) -> Result<Takeover, MendError> {
    let row = tx
        .query_opt(
            &format!("SELECT body FROM mend.records WHERE tbl = $1 AND key = $2 {lock}"),
            &[&TAKEOVERS, &id],
        )
        .await
        .map_err(db_err)?
        .ok_or_else(|| takeover::not_found(id))?;
    mend_store::decode(&format!("takeover {id}"), row.get::<_, &[u8]>(0))
}

/// Run a leased job on this desktop: start it, or — its run already stored — apply the answer
/// a person recorded ([`Fleet::decide`]) and continue, else resume it from the journal. An
/// answer that cannot be applied here (a `done` whose verify does not hold, a pick outside
/// the window) reopens the request with why, and the job pauses again.
pub fn continue_job(runner: &mut Runner, lf: &LoadedFlow, job: &Job) -> Result<Summary, MendError> {
    let store = runner.store;
    let decided = store
        .list::<Takeover>(TAKEOVERS)?
        .into_iter()
        .find(|t| t.run == job.key && t.status == "decided");
    let Some(mut rec) = store.run(&job.key)? else {
        // Parked before its run was stored (a poison job killed at once): start afresh.
        if let Some(mut t) = decided {
            t.status = "resolved".into();
            store.put(TAKEOVERS, &t.id.clone(), &t)?;
        }
        let s = &job.spec;
        return runner.start_as(
            Some(&job.key),
            lf,
            s.vars.clone(),
            vec![s.row.clone()],
            &s.lang,
        );
    };
    let Some(mut t) = decided else {
        return runner.resume(lf, &job.key);
    };
    let res = takeover::decision(&t)?.unwrap_or(Resolution::Retry);
    if t.code == ErrorCode::PoisonJob {
        // No step failed: a retry is a resume, each cut-short step verified first.
        t.status = "resolved".into();
        store.put(TAKEOVERS, &t.id.clone(), &t)?;
        return runner.resume(lf, &job.key);
    }
    match runner.resolve(lf, &t.id, res) {
        Err(e)
            if !matches!(e.code, ErrorCode::LeaseLost | ErrorCode::DatabaseUnavailable)
                // Applied, and the run failed after: the answer is spent, not asked again.
                && takeover::takeover(store, &t.id)?.status == "decided" =>
        {
            t.status = "open".into();
            t.resolution = None;
            t.suggestion = format!(
                "the answer '{}' could not be applied on the job's seat: {e}. {}",
                res.name(),
                suggestion(t.code)
            );
            store.put(TAKEOVERS, &t.id.clone(), &t)?;
            rec.status = "paused".into();
            rec.code = Some(e.code);
            rec.message = Some(e.message.clone());
            store.put_run(&rec)?;
            let mut s = summary_from(store, &rec, Some(lf))?;
            s.takeover = Some(t.id);
            Ok(s)
        }
        other => other,
    }
}
