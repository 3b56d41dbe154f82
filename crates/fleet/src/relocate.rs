//! `mend queue move`: a job whose seat is gone for good (the robot's machine died, its desktop
//! was rebuilt) goes to another seat, by a person's decision.
//!
//! A job stays with its seat because what it did on screen is there (`worker.rs`). Once that
//! desktop is gone, so is that progress: the job can only start over, from its first step, on
//! the new seat. What it did *beyond* the screen may not be gone: a `write` or `irreversible`
//! step that acted on the old seat may have committed (the record saved on the shared server).
//! Mend cannot see that from another desktop, so such a move is refused (`RESUME_UNVERIFIED`,
//! naming the steps) unless the person says they checked (`--start-over`); steps that only
//! read (navigation, typing into a form that was never saved) start over without asking.
//!
//! The move refuses while the old seat has a live worker (`SEAT_IN_USE`: its advisory lock is
//! taken in the move's own transaction, so no worker can start there meanwhile). The old
//! attempt is fenced off (the attempt is bumped), its journal and run record are kept under
//! `KEY@SEAT#ATTEMPT` for the audit, its open request is closed, and the item is `pending` for
//! the new seat (or any seat), queued again — all in one transaction under the item's row lock.

use crate::{db_err, queue::enqueue, worker::seat_holder, Fleet};
use mend_model::{ErrorCode, MendError, Risk};
use mend_runner::takeover::{Takeover, TAKEOVERS};
use mend_runner::LoadedFlow;
use mend_store::{JournalEntry, RunRecord, RUNS};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// A job moved to another seat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moved {
    pub job: String,
    pub from: String,
    /// `None`: any seat's worker may take it.
    pub to: Option<String>,
    /// Where the old attempt's journal and run record are kept.
    pub archive: String,
    /// Steps that acted on the old seat and may have committed (the person said they checked).
    pub acted: Vec<String>,
}

/// Steps of the journal that acted (an intent was written) and do more than read, described
/// for a person; every acted step when the flow cannot be read.
fn committing_steps(journal: &[JournalEntry], flow: Result<LoadedFlow, MendError>) -> Vec<String> {
    let mut acted: BTreeMap<usize, bool> = BTreeMap::new();
    for e in journal {
        match e {
            JournalEntry::Intent { step, .. } => {
                acted.entry(*step).or_insert(false);
            }
            JournalEntry::Result {
                step, code: None, ..
            } => {
                acted.insert(*step, true);
            }
            _ => {}
        }
    }
    acted
        .into_iter()
        .filter_map(|(i, done)| {
            let how = if done { "done" } else { "cut short" };
            match &flow {
                Ok(lf) => {
                    let step = lf.flow.steps.get(i)?;
                    (step.risk != Risk::Read).then(|| {
                        format!(
                            "step {} '{}' ({:?}, {how})",
                            i + 1,
                            step.id.clone().unwrap_or_else(|| format!("{}", i + 1)),
                            step.risk
                        )
                    })
                }
                Err(e) => Some(format!(
                    "step {} ({how}; the flow cannot be read: {})",
                    i + 1,
                    e.message
                )),
            }
        })
        .collect()
}

impl Fleet {
    /// Move work item `job` off its seat to `to` (a seat name; `None`: any seat), to start over
    /// there. `start_over` is the person's word that what committing steps did on the old seat
    /// was checked (not committed, or undone).
    pub fn move_item(
        &self,
        job: &str,
        to: Option<&str>,
        start_over: bool,
    ) -> Result<Moved, MendError> {
        let item = self.item(job)?;
        let journal = self.store(None).journal(job)?;
        let acted = committing_steps(
            &journal,
            LoadedFlow::load(Path::new(&item.spec.flow_path), &item.spec.columns()),
        );
        let invalid = |m: String| MendError::new(ErrorCode::InvalidArgument, m);
        self.block_on(async {
            let mut c = self.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            let row = tx
                .query_one(
                    "SELECT status, attempt, seat FROM mend.work WHERE key = $1 FOR UPDATE",
                    &[&job],
                )
                .await
                .map_err(db_err)?;
            let (status, attempt, seat): (String, i64, Option<String>) =
                (row.get(0), row.get(1), row.get(2));
            if attempt != item.attempt {
                return Err(invalid(format!(
                    "work item {job} changed while it was being moved (attempt {} → {attempt}); look at `mend queue status` and try again",
                    item.attempt
                )));
            }
            if matches!(status.as_str(), "done" | "cancelled") {
                return Err(invalid(format!(
                    "work item {job} is {status}; there is nothing to move"
                )));
            }
            let Some(from) = seat else {
                return Err(invalid(format!(
                    "work item {job} has not run on any seat: any worker takes it, nothing to move"
                )));
            };
            if to == Some(from.as_str()) {
                return Err(invalid(format!("work item {job} is on seat {from} already")));
            }
            // Held until commit: no worker takes the old seat while its job moves.
            let free: bool = tx
                .query_one(
                    "SELECT pg_try_advisory_xact_lock(hashtext('mend-seat:' || $1))",
                    &[&from],
                )
                .await
                .map_err(db_err)?
                .get(0);
            if !free {
                let holder = seat_holder(&*tx, &from).await?;
                return Err(MendError::new(
                    ErrorCode::SeatInUse,
                    format!(
                        "seat {from} is held by {holder}: a job moves only off a seat that is gone; stop that worker first, or let it finish the job"
                    ),
                ));
            }
            if !acted.is_empty() && !start_over {
                return Err(MendError::new(
                    ErrorCode::ResumeUnverified,
                    format!(
                        "{} acted on seat {from}, which is gone, and may have committed: another desktop cannot check it. Look in the system they write to; if nothing was committed, `mend queue move {job}{} --start-over`; if it was, `mend queue cancel {job}`",
                        acted.join(", "),
                        to.map(|t| format!(" --to {t}")).unwrap_or_default()
                    ),
                ));
            }
            let archive = format!("{job}@{from}#{attempt}");
            let to_say = to.map(|t| format!("seat {t}")).unwrap_or_else(|| "any seat".into());
            tx.execute(
                "UPDATE mend.journal SET run = $2 WHERE run = $1",
                &[&job, &archive],
            )
            .await
            .map_err(db_err)?;
            let run = tx
                .query_opt(
                    "DELETE FROM mend.records WHERE tbl = $2 AND key = $1 RETURNING body",
                    &[&job, &RUNS],
                )
                .await
                .map_err(db_err)?;
            if let Some(r) = run {
                let mut rec: RunRecord =
                    mend_store::decode(&format!("run {job}"), r.get::<_, &[u8]>(0))?;
                rec.id = archive.clone();
                rec.status = "moved".into();
                rec.message = Some(format!(
                    "its seat {from} is gone; moved by a person to {to_say}, started over as {job}"
                ));
                put(&*tx, RUNS, &archive, mend_store::encode(&rec)).await?;
            }
            let requests = tx
                .query(
                    "SELECT key, body FROM mend.records WHERE tbl = $1",
                    &[&TAKEOVERS],
                )
                .await
                .map_err(db_err)?;
            for r in requests {
                let id: String = r.get(0);
                let mut t: Takeover =
                    mend_store::decode(&format!("takeover {id}"), r.get::<_, &[u8]>(1))?;
                if t.run != job || t.status == "resolved" {
                    continue;
                }
                t.status = "resolved".into();
                t.run = archive.clone();
                t.suggestion = format!(
                    "not answered: its seat {from} is gone; the job was moved to {to_say} and started over"
                );
                put(&*tx, TAKEOVERS, &id, mend_store::encode(&t)).await?;
            }
            tx.execute(
                "UPDATE mend.work SET status = 'pending', seat = $2, attempt = attempt + 1,
                 recoveries = 0, reason = $3, updated = now() WHERE key = $1",
                &[
                    &job,
                    &to,
                    &format!("moved off seat {from} by a person; starts over"),
                ],
            )
            .await
            .map_err(db_err)?;
            enqueue(&*tx, job).await?;
            tx.commit().await.map_err(db_err)?;
            Ok(Moved {
                job: job.to_string(),
                from,
                to: to.map(str::to_string),
                archive,
                acted,
            })
        })
    }
}

async fn put(
    tx: &impl tokio_postgres::GenericClient,
    table: &str,
    key: &str,
    body: Vec<u8>,
) -> Result<(), MendError> {
    tx.execute(crate::pg::UPSERT_RECORD, &[&table, &key, &body])
        .await
        .map_err(db_err)?;
    Ok(())
}
