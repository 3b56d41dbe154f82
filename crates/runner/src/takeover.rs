//! Handing over to a person: the stored request, the resolutions, and the flow changes a
//! person's pick proposes.

use crate::edit::{edit_targets, target_line, TargetEdit};
use mend_model::{Candidate, ErrorCode, MendError, TargetSpec};
use mend_store::Store;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const TAKEOVERS: &str = "takeovers";
pub const CHANGES: &str = "changes";

/// Everything a person needs to pick up where the run stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Takeover {
    pub id: String,
    pub run: String,
    pub flow: String,
    pub row: usize,
    pub step: usize,
    pub step_id: String,
    pub action: String,
    pub code: ErrorCode,
    pub message: String,
    /// The window when the run stopped (frame pixels: what `--pick X,Y` refers to).
    pub screenshot: Option<String>,
    pub candidates: Vec<Candidate>,
    /// Side effects so far: the write / irreversible steps that completed.
    pub effects: Vec<String>,
    pub suggestion: String,
    /// `open`; `decided` (a fleet job's answer, recorded and waiting for a worker on the job's
    /// seat to apply it); `resolved`.
    pub status: String,
    pub resolution: Option<String>,
    pub created_ms: u64,
}

/// What the person decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resolution {
    /// The right control is at this point of the screenshot (frame pixels): act there.
    Pick {
        x: i32,
        y: i32,
    },
    /// The person did the step by hand; Mend checks its `verify`.
    Done,
    Skip,
    Retry,
    /// Undo: compensations of the completed steps in reverse, each exactly once.
    Abort,
}

impl Resolution {
    pub fn name(&self) -> String {
        match self {
            Resolution::Pick { x, y } => format!("pick {x},{y}"),
            Resolution::Done => "done".into(),
            Resolution::Skip => "skip".into(),
            Resolution::Retry => "retry".into(),
            Resolution::Abort => "abort".into(),
        }
    }

    /// `"pick 120,40"`, `"p 120,40"`, `"done"`, `"skip"`, `"retry"`, `"abort"` (the attended prompt).
    pub fn parse(s: &str) -> Result<Resolution, MendError> {
        let s = s.trim();
        let bad = || {
            MendError::new(
                ErrorCode::InvalidArgument,
                format!("'{s}': answer pick X,Y | done | skip | retry | abort"),
            )
        };
        let (word, rest) = s.split_once(' ').unwrap_or((s, ""));
        Ok(match word {
            "pick" | "p" => {
                let (x, y) = rest.split_once(',').ok_or_else(bad)?;
                Resolution::Pick {
                    x: x.trim().parse().map_err(|_| bad())?,
                    y: y.trim().parse().map_err(|_| bad())?,
                }
            }
            "done" | "d" => Resolution::Done,
            "skip" | "s" => Resolution::Skip,
            "retry" | "r" => Resolution::Retry,
            "abort" | "a" => Resolution::Abort,
            _ => return Err(bad()),
        })
    }
}

pub fn suggestion(code: ErrorCode) -> String {
    match code {
        ErrorCode::LocatorNotFound => "the control is not on the screen: point at it on the screenshot (pick X,Y), do the step by hand (done), skip it, or abort",
        ErrorCode::LocatorAmbiguous => "several controls could be meant: pick the right one (the candidates' boxes are listed)",
        ErrorCode::WindowBlocked => "another window is in front: close or answer it, then retry",
        ErrorCode::ResumeUnverified => "check the application: if the step happened, answer done; if not, retry",
        ErrorCode::BreakerOpen => "too many steps failed on this application: look at it, then retry, skip or abort",
        ErrorCode::FieldNotCleared => "the field would not empty from the keyboard: empty it by hand, then retry; or type the value by hand and answer done",
        ErrorCode::FieldNotFilled => "the typed text did not show in its field and may have gone to another one: check every field of the form, correct it by hand, then answer done or retry",
        ErrorCode::FieldValueWrong => "the field reads more than the typed text (what it held before, or a completion): correct it by hand so it holds exactly the flow's value, then answer done; nothing after it was done",
        ErrorCode::LoopDetected => "the same action kept repeating on an unchanged screen: do the step by hand (done) or abort",
        _ => "look at the screenshot: retry, do the step by hand (done), skip it, or abort",
    }
    .to_string()
}

/// A flow change proposed by a person's pick, kept for review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub id: String,
    pub run: String,
    pub takeover: String,
    pub flow_path: String,
    pub step: usize,
    pub step_id: String,
    pub old: TargetSpec,
    pub new: TargetSpec,
    /// The picked control's pixels (PNG), becomes the step's crop when accepted.
    pub crop: Option<String>,
    /// `proposed`, `accepted`, `rejected`.
    pub status: String,
    pub created_ms: u64,
}

impl Change {
    /// A unified diff of the flow line that changes.
    pub fn diff(&self) -> String {
        format!(
            "--- {f}\n+++ {f} (proposed by takeover {t})\n@@ step {n} ({id}) @@\n-{old}\n+{new}\n",
            f = self.flow_path,
            t = self.takeover,
            n = self.step + 1,
            id = self.step_id,
            old = target_line(&self.old),
            new = target_line(&self.new),
        )
    }
}

/// No takeover `id` (`TAKEOVER_NOT_FOUND`).
pub fn not_found(id: &str) -> MendError {
    MendError::new(
        ErrorCode::TakeoverNotFound,
        format!("no takeover '{id}'; `mend takeover list` shows the open ones"),
    )
}

pub fn takeover(store: &Store, id: &str) -> Result<Takeover, MendError> {
    store.get(TAKEOVERS, id)?.ok_or_else(|| not_found(id))
}

/// A person may answer only an open request (`TAKEOVER_STALE` otherwise): one answer each.
pub fn check_open(t: &Takeover) -> Result<(), MendError> {
    if t.status == "open" {
        return Ok(());
    }
    Err(MendError::new(
        ErrorCode::TakeoverStale,
        format!(
            "takeover {} is already {} ({}); `mend takeover list` shows the open ones",
            t.id,
            t.status,
            t.resolution.clone().unwrap_or_default()
        ),
    ))
}

/// The answer a fleet recorded for `t` (status `decided`), to be applied by a worker.
pub fn decision(t: &Takeover) -> Result<Option<Resolution>, MendError> {
    if t.status != "decided" {
        return Ok(None);
    }
    Resolution::parse(t.resolution.as_deref().unwrap_or_default()).map(Some)
}

pub fn change(store: &Store, id: &str) -> Result<Change, MendError> {
    store.get(CHANGES, id)?.ok_or_else(|| {
        MendError::new(
            ErrorCode::InvalidArgument,
            format!("no change '{id}'; list them with `mend changes list`"),
        )
    })
}

/// Accept: write the new target (text, recorded box, crop) into the flow; the next run finds
/// the control by the exact rung.
pub fn accept(store: &Store, id: &str) -> Result<Change, MendError> {
    let mut c = change(store, id)?;
    if c.status != "proposed" {
        return Err(MendError::new(
            ErrorCode::InvalidArgument,
            format!("change {id} is already {}", c.status),
        ));
    }
    let crop = match &c.crop {
        Some(p) => Some((
            c.step_id.clone(),
            image::open(p)
                .map_err(|e| MendError::new(ErrorCode::InvalidArgument, format!("crop {p}: {e}")))?
                .to_rgba8(),
        )),
        None => None,
    };
    let edit = TargetEdit {
        text: (c.new.text != c.old.text)
            .then(|| c.new.text.clone())
            .flatten(),
        recorded: c.new.recorded,
        crop,
        // The control the person picked may not be the one the tree's place named.
        tree: Some(None),
    };
    edit_targets(Path::new(&c.flow_path), &[(c.step, edit)])?;
    c.status = "accepted".into();
    store.put(CHANGES, id, &c)?;
    Ok(c)
}

pub fn reject(store: &Store, id: &str) -> Result<Change, MendError> {
    let mut c = change(store, id)?;
    c.status = "rejected".into();
    store.put(CHANGES, id, &c)?;
    Ok(c)
}
