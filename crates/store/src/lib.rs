//! Mend's durable state in sled: runs and their journal, as versioned, checksummed records.
//!
//! Every record is `[format version: u16 LE][crc32 of the body: u32 LE][JSON body]`. A record
//! whose checksum does not match is `STORE_CORRUPT`, never silently read. Journal appends are
//! flushed before they return: an intent that was acknowledged survives `kill -9`.
//! Only one process opens a database: sled locks its files, and we add a `holder` file so the
//! second process is told who holds it (`STORE_LOCKED`).

use mend_model::{ErrorCode, MendError};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const RECORD_VERSION: u16 = 1;

fn corrupt(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::StoreCorrupt, msg)
}

fn io(e: impl std::fmt::Display) -> MendError {
    MendError::new(ErrorCode::StoreCorrupt, format!("store: {e}"))
}

/// Encode a record: version, checksum, JSON.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    let body = serde_json::to_vec(value).expect("records serialize");
    let mut out = Vec::with_capacity(body.len() + 6);
    out.extend_from_slice(&RECORD_VERSION.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// Decode and verify a record.
pub fn decode<T: DeserializeOwned>(what: &str, bytes: &[u8]) -> Result<T, MendError> {
    if bytes.len() < 6 {
        return Err(corrupt(format!(
            "{what}: record is {} bytes, shorter than its header",
            bytes.len()
        )));
    }
    let version = u16::from_le_bytes([bytes[0], bytes[1]]);
    if version != RECORD_VERSION {
        return Err(corrupt(format!(
            "{what}: record format {version}, this Mend reads {RECORD_VERSION}"
        )));
    }
    let crc = u32::from_le_bytes([bytes[2], bytes[3], bytes[4], bytes[5]]);
    let body = &bytes[6..];
    if crc32fast::hash(body) != crc {
        return Err(corrupt(format!(
            "{what}: checksum mismatch; the record was damaged on disk"
        )));
    }
    serde_json::from_slice(body).map_err(|e| corrupt(format!("{what}: {e}")))
}

/// What the journal says happened at one step of one data row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum JournalEntry {
    /// About to act: written and flushed before any input.
    Intent {
        #[serde(default)]
        row: usize,
        step: usize,
        attempt: u32,
        action: String,
    },
    /// The step's input went out in full (sent and confirmed by the server): written and
    /// flushed right after it. A crash after this and before the result must not send it again.
    Acted {
        #[serde(default)]
        row: usize,
        step: usize,
        attempt: u32,
    },
    /// The step's outcome: `code` is `None` on success.
    Result {
        #[serde(default)]
        row: usize,
        step: usize,
        attempt: u32,
        code: Option<ErrorCode>,
        strategy: Option<String>,
        #[serde(default)]
        detail: StepDetail,
    },
}

/// What a report needs of a finished step. Never holds typed text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepDetail {
    #[serde(default)]
    pub step_id: String,
    #[serde(default)]
    pub action: String,
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Frame pixels of the control acted on.
    #[serde(default)]
    pub rect: Option<mend_model::Rect>,
    #[serde(default)]
    pub locate_ms: u64,
    #[serde(default)]
    pub act_ms: u64,
    #[serde(default)]
    pub settle_ms: u64,
    /// How the screen settled on the X server's damage events; `None` on window fingerprints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<Settled>,
    #[serde(default)]
    pub message: Option<String>,
    /// Screenshot written on failure.
    #[serde(default)]
    pub screenshot: Option<String>,
}

/// How a step settled on damage events (runner `settle.rs`); times in ms after the watch
/// began, just before the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Settled {
    /// Nothing was painted within the grace: the input had no visible effect; the checks decide.
    Unchanged,
    /// Painted from `first_ms` to `last_ms`, then quiet.
    Painted { first_ms: u32, last_ms: u32 },
}

/// A run as stored: enough to resume it in another process and to report on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub id: String,
    pub flow: String,
    /// `running`, `passed`, `failed`, `paused`.
    pub status: String,
    pub started_ms: u64,
    #[serde(default)]
    pub finished_ms: Option<u64>,
    /// Absolute path of the flow file, and a hash of its text: resume refuses a changed flow.
    #[serde(default)]
    pub flow_path: String,
    #[serde(default)]
    pub flow_hash: String,
    /// `--var` values (never secrets: those are resolved at the step and never stored).
    #[serde(default)]
    pub vars: std::collections::BTreeMap<String, String>,
    /// Data rows (from `--data`); one empty row when there is no data file.
    #[serde(default)]
    pub rows: Vec<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    pub code: Option<ErrorCode>,
    #[serde(default)]
    pub message: Option<String>,
    /// OCR languages the run used.
    #[serde(default)]
    pub lang: String,
}

impl RunRecord {
    pub fn new(id: &str, flow: &str, started_ms: u64) -> Self {
        RunRecord {
            id: id.into(),
            flow: flow.into(),
            status: "running".into(),
            started_ms,
            finished_ms: None,
            flow_path: String::new(),
            flow_hash: String::new(),
            vars: Default::default(),
            rows: vec![Default::default()],
            code: None,
            message: None,
            lang: String::new(),
        }
    }
}

/// Where records live. The journal and every named table go through this seam: sled embedded
/// (`Store::open`, one machine) or PostgreSQL in fleet mode (`mend-fleet`), with the same
/// record bytes — `Store` encodes and checks them, a backend only keeps them. A fleet backend
/// refuses writes from an attempt that lost its job's lease (`LEASE_LOST`).
pub trait Backend: Send + Sync {
    /// Keep `record` under `key` of `table`, durable before returning (replaces).
    fn put(&self, table: &str, key: &str, record: Vec<u8>) -> Result<(), MendError>;
    fn get(&self, table: &str, key: &str) -> Result<Option<Vec<u8>>, MendError>;
    /// Every `(key, record)` of a table, in key order.
    fn list(&self, table: &str) -> Result<Vec<(String, Vec<u8>)>, MendError>;
    /// Append to a run's journal, durable before returning; returns its sequence number.
    fn append(&self, run: &str, record: Vec<u8>) -> Result<u64, MendError>;
    /// A run's journal records in the order they were appended.
    fn journal(&self, run: &str) -> Result<Vec<Vec<u8>>, MendError>;
}

/// The table of run records.
pub const RUNS: &str = "runs";

/// Mend's durable state: runs, their journals and named tables of records, over a [`Backend`].
pub struct Store {
    backend: Box<dyn Backend>,
}

impl Store {
    /// Open (or create) the sled database in `dir`. A database another process holds is
    /// `STORE_LOCKED`, naming that process.
    pub fn open(dir: &Path) -> Result<Store, MendError> {
        Ok(Store::with_backend(Box::new(Sled::open(dir)?)))
    }

    /// A store over another backend (PostgreSQL in fleet mode).
    pub fn with_backend(backend: Box<dyn Backend>) -> Store {
        Store { backend }
    }

    pub fn put_run(&self, run: &RunRecord) -> Result<(), MendError> {
        self.backend.put(RUNS, &run.id, encode(run))
    }

    pub fn run(&self, id: &str) -> Result<Option<RunRecord>, MendError> {
        self.get(RUNS, id)
    }

    /// Newest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>, MendError> {
        let mut out: Vec<RunRecord> = self.list(RUNS)?;
        out.sort_by(|a, b| b.started_ms.cmp(&a.started_ms).then(b.id.cmp(&a.id)));
        Ok(out)
    }

    /// Append to a run's journal; durable before returning.
    pub fn append(&self, run: &str, entry: &JournalEntry) -> Result<u64, MendError> {
        self.backend.append(run, encode(entry))
    }

    /// A run's journal in the order it was written.
    pub fn journal(&self, run: &str) -> Result<Vec<JournalEntry>, MendError> {
        self.backend
            .journal(run)?
            .iter()
            .map(|v| decode(&format!("journal of {run}"), v))
            .collect()
    }

    /// Store a record under `key` in a named table (breakers, takeovers, changes, …), durable.
    pub fn put<T: Serialize>(&self, table: &str, key: &str, value: &T) -> Result<(), MendError> {
        self.backend.put(table, key, encode(value))
    }

    pub fn get<T: DeserializeOwned>(&self, table: &str, key: &str) -> Result<Option<T>, MendError> {
        self.backend
            .get(table, key)?
            .map(|b| decode(&format!("{table} {key}"), &b))
            .transpose()
    }

    /// Every record of a table, in key order.
    pub fn list<T: DeserializeOwned>(&self, table: &str) -> Result<Vec<T>, MendError> {
        self.backend
            .list(table)?
            .iter()
            .map(|(k, v)| decode(&format!("{table} {k}"), v))
            .collect()
    }
}

/// The embedded backend: one sled database, one process.
pub struct Sled {
    db: sled::Db,
    journal: sled::Tree,
    holder: PathBuf,
}

impl Sled {
    pub fn open(dir: &Path) -> Result<Sled, MendError> {
        std::fs::create_dir_all(dir).map_err(io)?;
        let holder = dir.join("holder");
        // A holder that closed the database removed its note first; sled lets go of the file
        // lock only when its flusher thread ends, a moment later. With no holder named, the
        // lock is that lag (a run reopened in the same process), waited out for a second; a
        // live holder's name refuses at once.
        let mut tries = 0;
        let opened = loop {
            match sled::Config::new().path(dir.join("db")).open() {
                Err(_) if !holder.exists() && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                r => break r,
            }
        };
        let db = opened.map_err(|e| {
            let who = std::fs::read_to_string(&holder).unwrap_or_else(|_| "another process".into());
            MendError::new(
                ErrorCode::StoreLocked,
                format!(
                    "{} is in use by {} ({e}); wait for it to finish or stop it",
                    dir.display(),
                    who.trim()
                ),
            )
        })?;
        let me = format!(
            "pid {} ({})",
            std::process::id(),
            std::env::args().collect::<Vec<_>>().join(" ")
        );
        std::fs::write(&holder, me).map_err(io)?;
        Ok(Sled {
            journal: db.open_tree("journal").map_err(io)?,
            db,
            holder,
        })
    }

    #[doc(hidden)]
    /// Tests only: damage one stored journal record in place.
    pub fn damage_journal_for_test(&self, run: &str) -> Result<(), MendError> {
        let mut prefix = run.as_bytes().to_vec();
        prefix.push(0);
        if let Some(kv) = self.journal.scan_prefix(prefix).next() {
            let (k, v) = kv.map_err(io)?;
            let mut v = v.to_vec();
            let last = v.len() - 1;
            v[last] ^= 0x55;
            self.journal.insert(k, v).map_err(io)?;
        }
        Ok(())
    }
}

impl Backend for Sled {
    fn put(&self, table: &str, key: &str, record: Vec<u8>) -> Result<(), MendError> {
        let t = self.db.open_tree(table).map_err(io)?;
        t.insert(key.as_bytes(), record).map_err(io)?;
        t.flush().map_err(io)?;
        Ok(())
    }

    fn get(&self, table: &str, key: &str) -> Result<Option<Vec<u8>>, MendError> {
        let t = self.db.open_tree(table).map_err(io)?;
        Ok(t.get(key.as_bytes()).map_err(io)?.map(|v| v.to_vec()))
    }

    fn list(&self, table: &str) -> Result<Vec<(String, Vec<u8>)>, MendError> {
        let t = self.db.open_tree(table).map_err(io)?;
        t.iter()
            .map(|kv| {
                let (k, v) = kv.map_err(io)?;
                Ok((String::from_utf8_lossy(&k).into_owned(), v.to_vec()))
            })
            .collect()
    }

    fn append(&self, run: &str, record: Vec<u8>) -> Result<u64, MendError> {
        let seq = self.db.generate_id().map_err(io)?;
        let mut key = run.as_bytes().to_vec();
        key.push(0);
        key.extend_from_slice(&seq.to_be_bytes());
        self.journal.insert(key, record).map_err(io)?;
        self.journal.flush().map_err(io)?;
        Ok(seq)
    }

    fn journal(&self, run: &str) -> Result<Vec<Vec<u8>>, MendError> {
        let mut prefix = run.as_bytes().to_vec();
        prefix.push(0);
        self.journal
            .scan_prefix(prefix)
            .map(|kv| Ok(kv.map_err(io)?.1.to_vec()))
            .collect()
    }
}

impl Drop for Sled {
    fn drop(&mut self) {
        let _ = self.db.flush();
        let _ = std::fs::remove_file(&self.holder);
    }
}

/// The checks every [`Backend`] must pass (the sled tests and the PostgreSQL tests run the
/// same ones): records round-trip byte for byte, a journal keeps its order and only its run's
/// entries, tables replace by key and list in key order, and a damaged record read through
/// `Store` is `STORE_CORRUPT`. Panics on the first difference.
#[doc(hidden)]
pub mod conformance {
    use super::*;

    pub fn check(b: Box<dyn Backend>) {
        let intent = |step| JournalEntry::Intent {
            row: 0,
            step,
            attempt: 1,
            action: "click".into(),
        };
        for step in 0..5 {
            b.append("c1", encode(&intent(step))).unwrap();
            b.append("c10", encode(&intent(100 + step))).unwrap();
        }
        let got: Vec<JournalEntry> = b
            .journal("c1")
            .unwrap()
            .iter()
            .map(|v| decode("j", v).unwrap())
            .collect();
        assert_eq!(
            got,
            (0..5).map(intent).collect::<Vec<_>>(),
            "c1's journal in order, without c10's"
        );
        assert!(b.journal("nothing").unwrap().is_empty());
        b.put("t", "b", encode(&2u32)).unwrap();
        b.put("t", "a", encode(&1u32)).unwrap();
        b.put("t", "b", encode(&3u32)).unwrap();
        b.put("u", "a", encode(&9u32)).unwrap();
        let keys: Vec<String> = b.list("t").unwrap().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"], "key order, replaced not doubled");
        assert_eq!(b.get("t", "b").unwrap(), Some(encode(&3u32)));
        assert_eq!(b.get("t", "zz").unwrap(), None);
        let mut bad = encode(&RunRecord::new("c2", "f.toml", 5));
        let last = bad.len() - 1;
        bad[last] ^= 0x55;
        b.put(RUNS, "c2", bad.clone()).unwrap();
        b.append("c2", bad).unwrap();
        let store = Store::with_backend(b);
        assert_eq!(store.run("c2").unwrap_err().code, ErrorCode::StoreCorrupt);
        assert_eq!(
            store.journal("c2").unwrap_err().code,
            ErrorCode::StoreCorrupt
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_journal_round_trip_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = Store::open(dir.path()).unwrap();
            for (id, t) in [("r1", 10), ("r2", 20)] {
                s.put_run(&RunRecord::new(id, "f.toml", t)).unwrap();
            }
            s.append(
                "r1",
                &JournalEntry::Intent {
                    row: 0,
                    step: 0,
                    attempt: 1,
                    action: "click".into(),
                },
            )
            .unwrap();
            s.append(
                "r1",
                &JournalEntry::Result {
                    row: 0,
                    step: 0,
                    attempt: 1,
                    code: None,
                    strategy: Some("exact".into()),
                    detail: StepDetail::default(),
                },
            )
            .unwrap();
            s.append(
                "r10",
                &JournalEntry::Intent {
                    row: 0,
                    step: 5,
                    attempt: 1,
                    action: "type".into(),
                },
            )
            .unwrap();
        }
        let s = Store::open(dir.path()).unwrap();
        let ids: Vec<String> = s.runs().unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(ids, vec!["r2", "r1"], "newest first");
        let j = s.journal("r1").unwrap();
        assert_eq!(j.len(), 2, "r10's entries are not r1's: {j:?}");
        assert!(matches!(j[0], JournalEntry::Intent { step: 0, .. }));
        assert!(matches!(j[1], JournalEntry::Result { code: None, .. }));
    }

    #[test]
    fn a_damaged_record_is_store_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let sled = Sled::open(dir.path()).unwrap();
        sled.append(
            "r",
            encode(&JournalEntry::Intent {
                row: 0,
                step: 0,
                attempt: 1,
                action: "click".into(),
            }),
        )
        .unwrap();
        sled.damage_journal_for_test("r").unwrap();
        let s = Store::with_backend(Box::new(sled));
        assert_eq!(s.journal("r").unwrap_err().code, ErrorCode::StoreCorrupt);
        assert_eq!(
            decode::<RunRecord>("x", &[1, 0]).unwrap_err().code,
            ErrorCode::StoreCorrupt
        );
        let mut future = encode(&1u32);
        future[0] = 9;
        assert!(decode::<u32>("x", &future)
            .unwrap_err()
            .message
            .contains("format 9"));
    }

    #[test]
    fn sled_passes_the_backend_conformance_checks() {
        let dir = tempfile::tempdir().unwrap();
        conformance::check(Box::new(Sled::open(dir.path()).unwrap()));
    }

    #[test]
    fn named_tables_keep_records_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = Store::open(dir.path()).unwrap();
            s.put("breakers", "app", &vec![1u32, 2]).unwrap();
            s.put("breakers", "b", &vec![3u32]).unwrap();
        }
        let s = Store::open(dir.path()).unwrap();
        assert_eq!(
            s.get::<Vec<u32>>("breakers", "app").unwrap(),
            Some(vec![1, 2])
        );
        assert_eq!(s.get::<Vec<u32>>("breakers", "x").unwrap(), None);
        assert_eq!(s.list::<Vec<u32>>("breakers").unwrap().len(), 2);
    }

    #[test]
    fn a_second_opener_is_told_who_holds_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let _first = Store::open(dir.path()).unwrap();
        let second = Store::open(dir.path()).err().expect("second open refused");
        assert_eq!(second.code, ErrorCode::StoreLocked);
        assert!(
            second
                .message
                .contains(&format!("pid {}", std::process::id())),
            "{}",
            second.message
        );
    }
}
