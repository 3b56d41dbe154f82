//! `mend worker`: one desktop (a *seat*), one job at a time.
//!
//! **Seats.** A job's progress that is not yet journaled as done lives on the desktop it ran
//! on (a form half filled, a dialog open). So a job cut short stays with its seat: each worker
//! holds its seat's PostgreSQL advisory lock for its whole life (released by the server the
//! moment the process dies), and a worker that takes a seat first *adopts* the items its dead
//! predecessor left `running` there, resuming each from the journal like `mend resume` (a step
//! with an intent and no result is verified on that same screen before it is redone). Only
//! then does it lease new jobs from graphile_worker — one at a time, no local queue.
//! graphile_worker's heartbeat recovery gives a dead worker's job back to the queue; whoever
//! leases it and finds the item `running` on another seat leaves it to that seat.
//!
//! **Fencing.** Every lease bumps the item's attempt; every journal, run and takeover write of
//! the job checks that attempt in the same transaction (`Fence`), so a worker that lost its
//! lease (cancelled, or its seat adopted by a successor) writes nothing — and since the intent
//! is journaled before any input, it sends nothing after the next step boundary either.
//!
//! **Back to its seat.** An item retried or answered by a person (`takeover.rs`) after it ran
//! keeps its seat: the queue may hand its job to any worker, who leaves it, and the seat's own
//! worker, which looks for such items every heartbeat, runs it — the queue's jobs and these
//! take turns on the one desktop.
//!
//! **Poison jobs.** Each adoption counts a recovery; past `max_recoveries` the item is parked
//! `paused` with a takeover request (`POISON_JOB`) instead of killing workers forever.
//!
//! **Stopping.** SIGTERM or SIGINT: no new lease; the job in hand finishes; exit 0. Losing the
//! database (the seat lock's connection) exits 1 at once — the seat's next worker adopts.

use crate::{db_err, queue::WorkSpec, Fence, Fleet, TASK};
use graphile_worker::{IntoTaskHandlerResult, TaskHandler, WorkerContext, WorkerOptions};
use mend_model::{ErrorCode, MendError};
use mend_runner::takeover::{Takeover, TAKEOVERS};
use mend_runner::Summary;
use mend_store::{JournalEntry, Store};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct WorkerOpts {
    /// The desktop this worker drives (`host:display` by default).
    pub seat: String,
    pub heartbeat: Duration,
    /// A heartbeat older than this makes graphile_worker's sweeper give the job back.
    pub stale: Duration,
    /// Adoptions of one item (its worker lost mid-job) before it is parked for a person.
    pub max_recoveries: i32,
}

/// A leased work item, as handed to [`Exec`].
#[derive(Debug, Clone)]
pub struct Job {
    pub key: String,
    pub attempt: i64,
    pub spec: WorkSpec,
    /// Taken over from a worker that died on this seat.
    pub recovered: bool,
}

/// Runs a job on this worker's desktop: start the run `job.key` or resume it from `store`.
pub trait Exec: Send + Sync {
    fn run(&self, job: &Job, store: &Store) -> Result<Summary, MendError>;
}

struct Inner {
    fleet: Fleet,
    opts: WorkerOpts,
    exec: Arc<dyn Exec>,
    current: Arc<Mutex<Option<String>>>,
    /// Held while a job runs: the queue's handler and the seat's own poll (jobs that must run
    /// here) take turns on the one desktop.
    desk: Mutex<()>,
    /// Set on SIGTERM/SIGINT: no new job is started.
    stop: tokio::sync::watch::Receiver<bool>,
}

#[derive(Clone)]
struct Shared(Arc<Inner>);

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "mend worker on {}", self.0.opts.seat)
    }
}

/// The graphile_worker task: the payload names the work item.
#[derive(Debug, Serialize, Deserialize)]
struct MendRun {
    key: String,
}

impl TaskHandler for MendRun {
    const IDENTIFIER: &'static str = TASK;

    async fn run(self, ctx: WorkerContext) -> impl IntoTaskHandlerResult {
        let Some(shared) = ctx.get_ext::<Shared>().cloned() else {
            return Err("mend worker state missing".to_string());
        };
        let key = self.key;
        tokio::task::spawn_blocking(move || shared.0.run_item(&key))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())
    }
}

fn log(seat: &str, msg: impl std::fmt::Display) {
    eprintln!(
        "{}",
        serde_json::json!({
            "ts_ms": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0),
            "seat": seat,
            "pid": std::process::id(),
            "msg": msg.to_string(),
        })
    );
}

enum Lease {
    Run(Job),
    Skip(String),
}

/// A poison job to park, as its row read when it was leased.
struct Park {
    spec: WorkSpec,
    reason: String,
    status: String,
    attempt: i64,
    recoveries: i32,
}

impl Inner {
    fn log(&self, msg: impl std::fmt::Display) {
        log(&self.opts.seat, msg)
    }

    /// Take the item for this seat, or say why not.
    fn lease(&self, key: &str) -> Result<Lease, MendError> {
        let seat = &self.opts.seat;
        let (lease, park) = self.fleet.block_on(async {
            let mut c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let tx = c.transaction().await.map_err(db_err)?;
            let Some(r) = tx
                .query_opt(
                    "SELECT status, attempt, recoveries, seat, spec::text FROM mend.work
                     WHERE key = $1 FOR UPDATE",
                    &[&key],
                )
                .await
                .map_err(db_err)?
            else {
                return Ok((Lease::Skip(format!("{key}: not on the work list")), None));
            };
            let (status, attempt, recoveries, on): (String, i64, i32, Option<String>) =
                (r.get(0), r.get(1), r.get(2), r.get(3));
            let spec: WorkSpec = serde_json::from_str(&r.get::<_, String>(4)).map_err(|e| {
                MendError::new(ErrorCode::StoreCorrupt, format!("work item {key}: {e}"))
            })?;
            let recovered = status == "running";
            match (status.as_str(), on.as_deref()) {
                ("pending", None) => {}
                ("pending", Some(s)) if s == seat => {}
                // Retried or answered by a person after it ran on a seat: what it left on
                // screen is there, and that seat's worker polls for it.
                ("pending", Some(s)) => {
                    return Ok((
                        Lease::Skip(format!("{key}: waits for seat {s}, where it ran")),
                        None,
                    ))
                }
                ("running", Some(s)) if s == seat => {}
                ("running", Some(s)) => {
                    return Ok((
                        Lease::Skip(format!(
                            "{key}: cut short on seat {s}; left to that seat's next worker"
                        )),
                        None,
                    ))
                }
                (st, _) => return Ok((Lease::Skip(format!("{key}: {st}, nothing to do")), None)),
            }
            let recoveries = recoveries + recovered as i32;
            if recoveries > self.opts.max_recoveries {
                let reason = format!(
                    "POISON_JOB: its worker was lost {recoveries} times running it (cap {}); look at seat {seat}, then `mend queue retry {key}` or cancel it",
                    self.opts.max_recoveries
                );
                // Nothing changes here: the request is written first (below), so a worker
                // killed in between leaves the item as it was, never paused with no one asked.
                tx.rollback().await.map_err(db_err)?;
                let park = Park {
                    spec,
                    reason: reason.clone(),
                    status,
                    attempt,
                    recoveries,
                };
                return Ok((Lease::Skip(format!("{key}: parked, {reason}")), Some(park)));
            }
            let attempt: i64 = tx
                .query_one(
                    "UPDATE mend.work SET status = 'running', attempt = attempt + 1,
                     recoveries = $2, seat = $3, reason = NULL, updated = now()
                     WHERE key = $1 RETURNING attempt",
                    &[&key, &recoveries, &seat],
                )
                .await
                .map_err(db_err)?
                .get(0);
            tx.commit().await.map_err(db_err)?;
            Ok((
                Lease::Run(Job {
                    key: key.to_string(),
                    attempt,
                    spec,
                    recovered,
                }),
                None,
            ))
        })?;
        if let Some(p) = park {
            // The person's request first, then the item paused — and only if no one touched
            // it meanwhile. Killed between the two, the item is still as it was: its next
            // worker parks it again and writes the same request (one id per job).
            self.park(key, &p.spec, &p.reason)?;
            let n = self.fleet.block_on(async {
                let c = self.fleet.db.pool().get().await.map_err(db_err)?;
                c.execute(
                    "UPDATE mend.work SET status = 'paused', attempt = attempt + 1,
                     recoveries = $2, reason = $3, updated = now()
                     WHERE key = $1 AND status = $4 AND attempt = $5",
                    &[&key, &p.recoveries, &p.reason, &p.status, &p.attempt],
                )
                .await
                .map_err(db_err)
            })?;
            if n == 0 {
                self.log(format!("{key}: changed while being parked; left as it is"));
            }
        }
        Ok(lease)
    }

    /// A poison job's takeover request and run status, so `mend takeover list` shows it.
    fn park(&self, key: &str, spec: &WorkSpec, reason: &str) -> Result<(), MendError> {
        let store = self.fleet.store(None);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let step = store
            .journal(key)?
            .iter()
            .rev()
            .find_map(|e| match e {
                JournalEntry::Intent { step, .. } => Some(*step),
                _ => None,
            })
            .unwrap_or(0);
        // A run that never got its record (killed before the first step) keeps none: the
        // retry starts it afresh, with the flow's hash.
        if let Some(mut rec) = store.run(key)? {
            rec.status = "paused".into();
            rec.code = Some(ErrorCode::PoisonJob);
            rec.message = Some(reason.to_string());
            store.put_run(&rec)?;
        }
        let t = Takeover {
            id: format!("t-{key}"),
            run: key.to_string(),
            flow: spec.flow_path.clone(),
            row: 0,
            step,
            step_id: format!("{}", step + 1),
            action: "job".into(),
            code: ErrorCode::PoisonJob,
            message: reason.to_string(),
            screenshot: None,
            candidates: vec![],
            effects: vec![],
            suggestion: format!(
                "look at seat {}: then `mend queue retry {key}` or `mend queue cancel {key}`",
                self.opts.seat
            ),
            status: "open".into(),
            resolution: None,
            created_ms: now,
        };
        store.put(TAKEOVERS, &t.id, &t)
    }

    /// Record how the attempt ended, if it still holds the lease.
    fn finish(&self, job: &Job, status: &str, reason: Option<String>) -> Result<bool, MendError> {
        self.fleet.block_on(async {
            let c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let n = c
                .execute(
                    "UPDATE mend.work SET status = $3, reason = $4, updated = now()
                     WHERE key = $1 AND attempt = $2 AND status = 'running'",
                    &[&job.key, &job.attempt, &status, &reason],
                )
                .await
                .map_err(db_err)?;
            Ok(n == 1)
        })
    }

    fn run_item(&self, key: &str) -> Result<(), MendError> {
        let _desk = self.desk.lock().unwrap_or_else(|e| e.into_inner());
        self.run_leased(key)
    }

    /// Items queued again for this seat (`mend queue retry`, a person's answer to a takeover):
    /// the queue may hand their jobs to any worker, who leaves them; this seat runs them.
    fn run_pinned(&self) -> Result<(), MendError> {
        let keys: Vec<String> = self.fleet.block_on(async {
            let c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let rows = c
                .query(
                    "SELECT key FROM mend.work WHERE status = 'pending' AND seat = $1 ORDER BY updated",
                    &[&self.opts.seat],
                )
                .await
                .map_err(db_err)?;
            Ok::<_, MendError>(rows.iter().map(|r| r.get(0)).collect())
        })?;
        for key in keys {
            let _desk = self.desk.lock().unwrap_or_else(|e| e.into_inner());
            if *self.stop.borrow() {
                break;
            }
            self.run_leased(&key)?;
        }
        Ok(())
    }

    fn run_leased(&self, key: &str) -> Result<(), MendError> {
        let job = match self.lease(key) {
            Ok(Lease::Run(job)) => job,
            Ok(Lease::Skip(why)) => {
                self.log(why);
                return Ok(());
            }
            Err(e) => return Err(self.fatal(e)),
        };
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(key.to_string());
        self.log(format!(
            "{key}: attempt {} started{}",
            job.attempt,
            if job.recovered { " (recovered)" } else { "" }
        ));
        let store = self.fleet.store(Some(Fence {
            job: key.to_string(),
            attempt: job.attempt,
        }));
        let res = self.exec.run(&job, &store);
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let (status, reason) = match res {
            Ok(s) => (
                match s.status.as_str() {
                    "passed" => "done",
                    "paused" => "paused",
                    // A person's abort: its completed steps were undone.
                    "aborted" => "cancelled",
                    _ => "failed",
                },
                s.code
                    .map(|c| format!("{c}: {}", s.message.unwrap_or_default())),
            ),
            Err(e) if e.code == ErrorCode::LeaseLost => {
                self.log(format!("{key}: {}", e.message));
                return Ok(());
            }
            Err(e) if e.code == ErrorCode::DatabaseUnavailable => return Err(self.fatal(e)),
            Err(e) => ("failed", Some(e.to_string())),
        };
        match self.finish(&job, status, reason) {
            Ok(true) => self.log(format!("{key}: attempt {} {status}", job.attempt)),
            Ok(false) => self.log(format!("{key}: attempt {} lost its lease", job.attempt)),
            Err(e) => return Err(self.fatal(e)),
        }
        Ok(())
    }

    /// The database went away under a job: stop here, like a crash; the seat's next worker
    /// adopts what was in hand.
    fn fatal(&self, e: MendError) -> MendError {
        self.log(format!("stopping: {e}"));
        std::process::exit(1);
    }

    /// Items this seat's dead predecessor left running.
    fn orphans(&self) -> Result<Vec<String>, MendError> {
        self.fleet.block_on(async {
            let c = self.fleet.db.pool().get().await.map_err(db_err)?;
            let rows = c
                .query(
                    "SELECT key FROM mend.work WHERE status = 'running' AND seat = $1 ORDER BY updated",
                    &[&self.opts.seat],
                )
                .await
                .map_err(db_err)?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }
}

/// Who holds `seat`, as its worker last said ("pid N on HOST"), for a refusal's message.
pub(crate) async fn seat_holder(
    c: &impl tokio_postgres::GenericClient,
    seat: &str,
) -> Result<String, MendError> {
    Ok(c.query_opt(
        "SELECT pid, host FROM mend.workers WHERE seat = $1",
        &[&seat],
    )
    .await
    .map_err(db_err)?
    .map(|r| format!("pid {} on {}", r.get::<_, i32>(0), r.get::<_, String>(1)))
    .unwrap_or_else(|| "a live worker".into()))
}

/// Run a worker until SIGTERM/SIGINT (exit cleanly after the job in hand) or until the
/// database is lost (the process exits 1).
pub fn run_worker(fleet: &Fleet, opts: WorkerOpts, exec: Arc<dyn Exec>) -> Result<(), MendError> {
    let seat = opts.seat.clone();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    // Signals first: a SIGTERM during adoption must not kill the process mid-job.
    fleet.rt.block_on(async {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).map_err(db_err)?;
        let mut int = signal(SignalKind::interrupt()).map_err(db_err)?;
        let seat = seat.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            log(
                &seat,
                "stop asked: finishing the job in hand, leasing no more",
            );
            let _ = stop_tx.send(true);
        });
        Ok::<_, MendError>(())
    })?;
    let current = Arc::new(Mutex::new(None::<String>));
    // The seat lock, on a connection of its own for the worker's life.
    let lock_client = fleet.rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&fleet.url, tokio_postgres::NoTls)
            .await
            .map_err(db_err)?;
        let seat2 = seat.clone();
        tokio::spawn(async move {
            let e = conn.await;
            log(
                &seat2,
                format!("stopping: lost the database connection holding the seat ({e:?})"),
            );
            std::process::exit(1);
        });
        let got: bool = client
            .query_one(
                "SELECT pg_try_advisory_lock(hashtext('mend-seat:' || $1))",
                &[&seat],
            )
            .await
            .map_err(db_err)?
            .get(0);
        if !got {
            let holder = seat_holder(&client, &seat).await?;
            return Err(MendError::new(
                ErrorCode::SeatInUse,
                format!("seat {seat} is held by {holder}; one worker per desktop"),
            ));
        }
        let host = std::fs::read_to_string("/etc/hostname")
            .unwrap_or_default()
            .trim()
            .to_string();
        client
            .execute(
                "INSERT INTO mend.workers (seat, pid, host, started, heartbeat, job)
                 VALUES ($1, $2, $3, now(), now(), NULL)
                 ON CONFLICT (seat) DO UPDATE SET pid = $2, host = $3, started = now(),
                 heartbeat = now(), job = NULL",
                &[&seat, &(std::process::id() as i32), &host],
            )
            .await
            .map_err(db_err)?;
        Ok::<_, MendError>(Arc::new(client))
    })?;
    // Our heartbeat, with the job in hand (graphile_worker keeps its own for recovery).
    {
        let (client, seat, current, every) = (
            lock_client.clone(),
            seat.clone(),
            current.clone(),
            opts.heartbeat,
        );
        fleet.rt.spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let job = current.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let _ = client
                    .execute(
                        "UPDATE mend.workers SET heartbeat = now(), job = $2 WHERE seat = $1",
                        &[&seat, &job],
                    )
                    .await;
            }
        });
    }
    let inner = Arc::new(Inner {
        fleet: fleet.clone(),
        opts: opts.clone(),
        exec,
        current,
        desk: Mutex::new(()),
        stop: stop_rx.clone(),
    });
    log(&seat, "worker up");
    for key in inner.orphans()? {
        if *stop_rx.borrow() {
            break;
        }
        inner.log(format!("{key}: adopting (its worker on this seat died)"));
        inner.run_item(&key)?;
    }
    if *stop_rx.borrow() {
        log(&seat, "stopped");
        return Ok(());
    }
    // This seat's own items (retried or answered), every heartbeat.
    {
        let (inner, mut stop, every) = (inner.clone(), stop_rx.clone(), opts.heartbeat);
        fleet.rt.spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = stop.wait_for(|v| *v) => break,
                }
                let i = inner.clone();
                match tokio::task::spawn_blocking(move || i.run_pinned()).await {
                    Ok(Err(e)) => inner.log(format!("this seat's items: {e}")),
                    Err(e) => inner.log(format!("this seat's items: {e}")),
                    Ok(Ok(())) => {}
                }
            }
        });
    }
    let shared = Shared(inner.clone());
    fleet.rt.block_on(async {
        let mut rx = stop_rx.clone();
        let worker = WorkerOptions::default()
            .database(fleet.db.clone())
            .schema(crate::QUEUE_SCHEMA)
            .concurrency(1)
            .poll_interval(Duration::from_millis(500))
            .heartbeat_interval(opts.heartbeat)
            .sweep_interval(opts.heartbeat * 2)
            .sweep_threshold(opts.stale)
            .recovery_delay(Duration::ZERO)
            .listen_os_shutdown_signals(false)
            .shutdown_signal(async move {
                let _ = rx.wait_for(|v| *v).await;
            })
            .shutdown_grace_period(Duration::from_secs(24 * 3600))
            .add_extension(shared)
            .define_job::<MendRun>()
            .init()
            .await
            .map_err(db_err)?;
        worker.run().await.map_err(db_err)
    })?;
    // A job of this seat's own poll may still be running: it finishes first.
    drop(inner.desk.lock().unwrap_or_else(|e| e.into_inner()));
    log(&seat, "stopped");
    Ok(())
}
