//! The step loop (shared/DESIGN.md steps 4–6): locate → guard → journal the intent (flushed) →
//! act → settle → check → journal the result (flushed); retries, compensation, interrupts,
//! budget, loop detection; and resume from the journal.

use crate::breaker::{Breaker, Outcome};
use crate::clock::Clock;
use crate::load::{row_vars, substitute, target_of, LoadedFlow, Row};
use crate::report::{self, summary, Summary};
use crate::takeover::{self, suggestion, Change, Resolution, Takeover, CHANGES, TAKEOVERS};
use mend_capture::{save_frame, Capture, DamageStream, Frame};
use mend_input::{parse_keys, Action as Input_, Guard, Input, MouseButton};
use mend_locate::{Locator, Recorded, Refusal};
use mend_model::{
    Candidate, ErrorCode, Located, MendError, Point, Rect, Role, Target, WindowQuery,
};
use mend_model::{Check, FlowAction as Action, Redo, Risk, Step, TargetSpec};
use mend_store::{JournalEntry, RunRecord, StepDetail, Store};
use mend_vision::{Fingerprint, Fingerprinter};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

mod attempt;
mod check;
mod field;
mod journal;
mod locating;
mod read_back;
mod resolve;
mod screen;
mod step;
mod typing;
mod window;
use locating::*;
use screen::WindowWatch;
use step::Pending;
use window::*;

/// What settling compares: the main window's fingerprint (none if it is gone) and the windows.
type ScreenState = (Option<Fingerprint>, Vec<(u32, String)>);

/// The locator seam: the real chain, or a fake in unit tests.
pub trait Finder {
    fn find(
        &mut self,
        frame: &Frame,
        target: &Target,
        recorded: &Recorded,
    ) -> Result<Located, Refusal>;
    /// The caption inside a box (for a person's pick); `None` when nothing is legible.
    fn read_text(&mut self, _frame: &Frame, _rect: Rect) -> Option<String> {
        None
    }
    /// What a field reads, one reading per reader (two when a second reader witnesses).
    fn read_field(&mut self, frame: &Frame, rect: Rect) -> Vec<String> {
        self.read_text(frame, rect).into_iter().collect()
    }
    /// Notes for the audit since the last call (a language model's answers and reasons).
    fn notes(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// What `mend record` keeps as the crop of a control located at `at` (frame pixels);
    /// `None`: no crop. By default the control's own box.
    fn crop_for(&mut self, _frame: &Frame, _target: &Target, at: Rect) -> Option<Rect> {
        Some(at)
    }
    /// The flow's own names for its controls ([`mend_model::Flow::target_names`]), told once
    /// per run: a guess by meaning never lands on a control the flow names otherwise.
    fn set_flow_names(&mut self, _names: Vec<String>) {}
    /// The state the window's accessibility tree gives the check box captioned `caption`
    /// whose indicator is at `indicator` (frame pixels): one more witness beside the pixels'
    /// reading. `None`: no tree, no checkable node there, or a node named otherwise.
    fn tree_checked(&mut self, _frame: &Frame, _caption: &str, _indicator: Rect) -> Option<bool> {
        None
    }
    /// The place in the window's accessibility tree of the control found at `at` (frame
    /// pixels) with the caption `text`, for `mend record`; `None`: no tree, or it does not name
    /// the caption there.
    fn tree_place(&mut self, _frame: &Frame, _at: Rect, _text: &str) -> Option<mend_model::TreeId> {
        None
    }
    /// How long (ms) `frame`'s window had shown these very pixels when it was last looked
    /// at: from the first look at them to the latest. 0 when unknown (the default: a check
    /// then looks twice, a fresh frame apart).
    fn steady_ms(&self, _frame: &Frame) -> u64 {
        0
    }
}

impl Finder for Locator {
    fn find(
        &mut self,
        frame: &Frame,
        target: &Target,
        recorded: &Recorded,
    ) -> Result<Located, Refusal> {
        self.locate(frame, target, recorded)
    }

    fn notes(&mut self) -> Vec<String> {
        self.semantic.drain_log()
    }

    fn crop_for(&mut self, frame: &Frame, target: &Target, at: Rect) -> Option<Rect> {
        Locator::crop_for(self, frame, target, at)
    }

    fn set_flow_names(&mut self, names: Vec<String>) {
        self.flow_names = names;
    }

    fn tree_checked(&mut self, frame: &Frame, caption: &str, indicator: Rect) -> Option<bool> {
        Locator::tree_checked(self, frame, caption, indicator)
    }

    fn tree_place(&mut self, frame: &Frame, at: Rect, text: &str) -> Option<mend_model::TreeId> {
        Locator::tree_place(self, frame, at, text)
    }

    fn read_field(&mut self, frame: &Frame, rect: Rect) -> Vec<String> {
        Locator::read_field(self, frame, rect)
    }

    fn read_text(&mut self, frame: &Frame, rect: Rect) -> Option<String> {
        self.read_line(frame, rect)
    }

    fn steady_ms(&self, frame: &Frame) -> u64 {
        Locator::steady_ms(self, frame)
    }
}

/// What `mend record` keeps of a step's control, found in the run's first row.
#[derive(Debug, Clone)]
pub struct RecordedTarget {
    /// Its box, frame pixels.
    pub rect: Rect,
    /// Its crop ([`Finder::crop_for`]: a field's holds its caption; none when it cannot).
    pub pixels: Option<image::RgbaImage>,
    /// Its place in the window's accessibility tree ([`Finder::tree_place`]).
    pub tree: Option<mend_model::TreeId>,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Input actions one process may send in a run (every click, key chord, typed text).
    pub budget: u32,
    pub poll_ms: u64,
    /// The screen counts as settled after this long without change (fingerprint settle: no
    /// damage stream, or the stream failed).
    pub quiet_ms: u64,
    /// Settling on damage events ([`Runner::damage`]): grace and quiet period.
    pub settle: crate::settle::SettleRule,
    /// Per-step timeout when the step gives none.
    pub timeout_ms: u64,
    pub max_retries: u32,
    /// Keep, for each step of the first row, where its control was and its pixels
    /// ([`Runner::recorded`]): `mend record` writes them into the flow for the exact rung.
    pub record: bool,
    /// Where each run's audit, screenshots and report go (`<runs_dir>/<run id>/`).
    pub runs_dir: PathBuf,
}

impl Options {
    pub fn new(runs_dir: PathBuf) -> Self {
        Options {
            budget: 1000,
            poll_ms: 50,
            quiet_ms: 250,
            settle: crate::settle::SettleRule::default(),
            timeout_ms: 8000,
            max_retries: 2,
            record: false,
            runs_dir,
        }
    }
}

/// Progress, one event per step start and end (and per interrupt handled).
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub row: usize,
    pub rows: usize,
    pub step: usize,
    pub steps: usize,
    pub id: String,
    pub action: String,
    /// `start`, `passed`, `verified`, `retry`, `failed`, `interrupt`.
    pub status: String,
    pub strategy: Option<String>,
    pub confidence: Option<f64>,
    pub ms: u64,
    pub code: Option<ErrorCode>,
    pub message: Option<String>,
    /// The control acted on, in window pixels (the monitor draws it on the frame).
    pub rect: Option<Rect>,
}

/// A failed attempt: the error, whether input had been sent, and what to report.
struct Fail {
    err: MendError,
    acted: bool,
    frame: Option<Box<Frame>>,
    candidates: Vec<Candidate>,
}

impl From<MendError> for Fail {
    fn from(err: MendError) -> Self {
        Fail {
            err,
            acted: false,
            frame: None,
            candidates: vec![],
        }
    }
}

fn err(code: ErrorCode, msg: impl Into<String>) -> MendError {
    MendError::new(code, msg)
}

fn action_name(a: &Action) -> String {
    serde_json::to_value(a)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{a:?}"))
}

/// Which step of which row an attempt belongs to, for the journal.
#[derive(Clone, Copy)]
struct At<'r> {
    run: &'r str,
    row: usize,
    step: usize,
    attempt: u32,
}

pub struct Runner<'a> {
    pub capture: &'a dyn Capture,
    pub input: &'a mut dyn Input,
    pub finder: &'a mut dyn Finder,
    pub clock: &'a dyn Clock,
    pub store: &'a Store,
    /// Resolves `${secret:NAME}` at the step (the environment in the CLI).
    pub secrets: &'a dyn Fn(&str) -> Option<String>,
    pub on_progress: &'a mut dyn FnMut(&Progress),
    pub opts: Options,
    /// What the X server says was painted: with it a step settles when the application stops
    /// painting (`settle.rs`); without it (or when it fails) on window fingerprints.
    pub damage: Option<&'a mut dyn DamageStream>,
    /// When the damage stream began watching for the current step's input (clock ms).
    armed: Option<u64>,
    /// How the last step settled on damage (`None`: on fingerprints).
    pub last_settle: Option<crate::settle::Settled>,
    /// With `opts.record`: step index → where its control was found.
    pub recorded: BTreeMap<usize, RecordedTarget>,
    /// The inputs spent of [`Options::budget`], and the loop detection.
    budget: ActionBudget,
    fp: Fingerprinter,
    run_dir: PathBuf,
    run_id: String,
    last_failure: Option<(Option<String>, Vec<Candidate>)>,
    rows: usize,
    /// How long the current step waited on the application (its target to appear, the screen
    /// to settle, its checks to hold): what makes a passing step *slow* for the breaker. Mend's
    /// own reading time is not the application's slowness, and a loaded machine must not open
    /// the breaker on steps that passed.
    app_wait_ms: u64,
    /// The last click sent: clock ms and screen point ([`Runner::space_click`]).
    last_click: Option<(u64, Point)>,
    /// The windows on the screen at the last input ([`WindowWatch`]).
    window_watch: WindowWatch,
    /// Where each target (by [`seen_key`]) was last found: the frame and the answer. A
    /// `not_exists` that reads nothing there still holds only where those pixels changed
    /// (`run/screen.rs`, `still_shown`): unread is not gone.
    last_seen: HashMap<String, (Frame, Located)>,
    /// Type the next text one key at a time, [`KEY_PACE_MS`] apart (a redo of a `type`: the
    /// first keys, sent at once, may have raced an application's completion).
    paced: bool,
    /// A menu item (row, step) already chosen by releasing the button on it, the step before
    /// having held its menu open (a menu that lives only while the button is held).
    held_through: Option<(usize, usize)>,
    /// The frame a menu target was last found in, before it was clicked, while the targets
    /// found since are menus too: where an item is ambiguous, the one in pixels that changed
    /// since that frame is the item of the menu the click opened ([`opened_by_the_menu`]).
    menu_before: Option<Frame>,
    /// By target ([`seen_key`]): the twins passed over when the menu just opened told its
    /// item apart. A retry that finds the target only at one of them (the menu closed) is
    /// refused: the twin was not the control chosen.
    passed_over: HashMap<String, Vec<Rect>>,
}

/// The key a target is remembered by between a step that found it and a check about it.
pub(crate) fn seen_key(spec: &TargetSpec, target: &Target) -> String {
    format!(
        "{:?}|{:?}|{:?}|{:?}",
        target.text, target.role, target.near, spec.window
    )
}

pub const BREAKERS: &str = "breakers";
const COMPENSATED: &str = "compensated";

/// How long a type step waits for the clicked field to show it took the focus.
const FOCUS_WAIT_MS: u64 = 300;

/// How long a field that was empty may take to show the text typed into it.
const FILLED_WAIT_MS: u64 = 2000;

/// How long a step waits for the focus to land somewhere when no window has it (the window
/// manager between a closing window and a mapping one), polling every [`FOCUS_POLL_MS`].
const FOCUS_LAND_MS: u64 = 1500;
const FOCUS_POLL_MS: u64 = 100;

/// A click a toolkit could take for part of the click before it is held this long after that
/// click ([`Runner::space_click`]). A GTK menu opened by a press takes a release on one of its
/// items within 500 ms of that press for the end of the opening click (`MENU_SHELL_TIMEOUT`):
/// the item is not activated and the step's effect never comes (the GTK Save As replay lost it
/// once steps settled on damage events, ~300 ms after the menu's click). Two clicks on one spot
/// within the double-click time (Win32 500 ms, GTK 400 ms) are one double click.
const CLICK_APART_MS: u64 = 500;
/// How long a window that opened since the last input must go without painting before it is
/// acted on (settling on damage events; fingerprints already wait this long after every
/// input). A new window is filled in bursts: a file chooser's list, a Motif file box writing
/// its path when its directory scan ends, well after the 40 ms quiet that ends a click's
/// repaint, and after the step that opened it settled.
const NEW_WINDOW_QUIET_MS: u64 = 250;
/// Two clicks this close (screen px, each axis) are on one spot (GTK's double-click distance
/// is 5 px, Win32's 4).
const SAME_SPOT_PX: i32 = 8;

/// Between two keys of a paced text: about a quick typist's pace, time for an application's
/// completion (a file box completing a path as it is typed) to catch up with each key.
pub(crate) const KEY_PACE_MS: u64 = 60;

/// How many times the same action may hit the same control on the same screen in one row.
const MAX_SAME: u32 = 3;

impl<'a> Runner<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        capture: &'a dyn Capture,
        input: &'a mut dyn Input,
        finder: &'a mut dyn Finder,
        clock: &'a dyn Clock,
        store: &'a Store,
        secrets: &'a dyn Fn(&str) -> Option<String>,
        on_progress: &'a mut dyn FnMut(&Progress),
        opts: Options,
    ) -> Self {
        Runner {
            capture,
            input,
            finder,
            clock,
            store,
            secrets,
            on_progress,
            run_dir: opts.runs_dir.clone(),
            opts,
            damage: None,
            armed: None,
            last_settle: None,
            recorded: BTreeMap::new(),
            budget: ActionBudget::default(),
            fp: Fingerprinter::new(),
            run_id: String::new(),
            last_failure: None,
            app_wait_ms: 0,
            last_click: None,
            window_watch: WindowWatch::default(),
            last_seen: HashMap::new(),
            menu_before: None,
            passed_over: HashMap::new(),
            paced: false,
            held_through: None,
            rows: 1,
        }
    }

    /// Start a new run of `lf`, once per row (one empty row when there is no data file).
    pub fn start(
        &mut self,
        lf: &LoadedFlow,
        vars: BTreeMap<String, String>,
        rows: Vec<Row>,
        lang: &str,
    ) -> Result<Summary, MendError> {
        self.start_as(None, lf, vars, rows, lang)
    }

    /// [`Runner::start`] under a run id chosen by the caller (a fleet job's key, so the
    /// worker that picks the job up again finds its journal); `None` picks a fresh one.
    pub fn start_as(
        &mut self,
        id: Option<&str>,
        lf: &LoadedFlow,
        vars: BTreeMap<String, String>,
        rows: Vec<Row>,
        lang: &str,
    ) -> Result<Summary, MendError> {
        let rows = if rows.is_empty() {
            vec![Row::new()]
        } else {
            rows
        };
        // Every secret the flow types must be available before the first input.
        for s in lf
            .flow
            .steps
            .iter()
            .flat_map(|s| std::iter::once(s).chain(s.compensation.iter()))
        {
            if let Some(t) = &s.text {
                for r in mend_model::references(t) {
                    if let Some(name) = r.strip_prefix("secret:") {
                        if (self.secrets)(name).is_none() {
                            return Err(err(
                                ErrorCode::InvalidArgument,
                                format!("secret '{name}' is not set: export {name}=… or store it in the keyring with `mend secret set {name}` before the run (secrets are read at the step and never stored by Mend)"),
                            ));
                        }
                    }
                }
            }
        }
        let started = self.clock.unix_ms();
        let id = match id {
            Some(id) => id.to_string(),
            None => {
                let mut id = format!("r{started}");
                while self.store.run(&id)?.is_some() {
                    id.push('x');
                }
                id
            }
        };
        let mut rec = RunRecord::new(&id, &lf.flow.name, started);
        rec.flow_path = lf.path.display().to_string();
        rec.flow_hash = lf.hash.clone();
        rec.vars = vars;
        rec.rows = rows;
        rec.lang = lang.to_string();
        self.store.put_run(&rec)?;
        self.drive(lf, rec)
    }

    /// Continue a run from its journal.
    pub fn resume(&mut self, lf: &LoadedFlow, run: &str) -> Result<Summary, MendError> {
        let mut rec = self.store.run(run)?.ok_or_else(|| {
            err(
                ErrorCode::InvalidArgument,
                format!("no run '{run}' in this database; `mend runs` lists them"),
            )
        })?;
        if rec.status == "passed" {
            return summary(self.store, &rec, lf);
        }
        if rec.flow_hash != lf.hash {
            return Err(err(
                ErrorCode::FlowInvalid,
                format!(
                    "{} changed since run {run} started; resuming would mix two flows. Start a new run",
                    rec.flow_path
                ),
            ));
        }
        rec.status = "running".into();
        rec.code = None;
        rec.message = None;
        self.store.put_run(&rec)?;
        // A plain resume answers the run's open requests: it tries again from the journal.
        for mut t in self.store.list::<Takeover>(TAKEOVERS)? {
            if t.run == rec.id && t.status == "open" {
                t.status = "resolved".into();
                t.resolution = Some("resumed".into());
                self.store.put(TAKEOVERS, &t.id.clone(), &t)?;
            }
        }
        self.drive(lf, rec)
    }

    fn drive(&mut self, lf: &LoadedFlow, rec: RunRecord) -> Result<Summary, MendError> {
        self.finder.set_flow_names(lf.flow.target_names());
        self.run_dir = self.opts.runs_dir.join(&rec.id);
        self.run_id = rec.id.clone();
        std::fs::create_dir_all(&self.run_dir).map_err(|e| {
            err(
                ErrorCode::InvalidArgument,
                format!("cannot create {}: {e}", self.run_dir.display()),
            )
        })?;
        self.rows = rec.rows.len();
        let (done, pending) = self.journaled(&rec.id)?;
        self.bring_to_front(lf);
        let scope = lf.flow.window.title.clone();
        let mut breaker: Breaker = self
            .store
            .get(BREAKERS, &scope)?
            .unwrap_or_else(|| Breaker::new(&scope));
        let mut outcome: Result<(), (MendError, usize, usize)> = Ok(());
        'rows: for r in 0..rec.rows.len() {
            let vars = row_vars(&lf.flow, &rec.vars, &rec.rows[r]);
            self.budget.new_row();
            for i in 0..lf.flow.steps.len() {
                if done.contains(&(r, i)) {
                    continue;
                }
                self.last_failure = None;
                if let Err(e) = breaker.allow(self.clock.now_ms()) {
                    self.store.put(BREAKERS, &scope, &breaker)?;
                    outcome = Err((e, r, i));
                    break 'rows;
                }
                let res = self.step(lf, &rec.id, r, i, &vars, pending.get(&(r, i)).copied());
                let step = &lf.flow.steps[i];
                let o = match &res {
                    Ok(()) if self.app_wait_ms > self.timeout(step) => Outcome::Slow,
                    Ok(()) => Outcome::Passed,
                    Err(e) if e.code == ErrorCode::AssertionFailed => Outcome::AssertionFailed,
                    Err(_) => Outcome::Failed,
                };
                breaker.record(step.risk, o, self.clock.now_ms());
                self.store.put(BREAKERS, &scope, &breaker)?;
                if let Err(e) = res {
                    outcome = Err((e, r, i));
                    break 'rows;
                }
            }
        }
        self.finish_run(lf, rec, outcome)
    }

    /// What the journal of run `id` says: the steps done (row, step), and the steps whose
    /// intent has no result (a crash cut them short).
    #[allow(clippy::type_complexity)]
    fn journaled(
        &self,
        id: &str,
    ) -> Result<(HashSet<(usize, usize)>, HashMap<(usize, usize), Pending>), MendError> {
        let mut done = HashSet::new();
        let mut pending: HashMap<(usize, usize), Pending> = HashMap::new();
        for e in self.store.journal(id)? {
            match e {
                JournalEntry::Intent {
                    row, step, attempt, ..
                } => {
                    pending.insert(
                        (row, step),
                        Pending {
                            attempt,
                            sent: false,
                        },
                    );
                }
                JournalEntry::Acted { row, step, attempt } => {
                    if let Some(p) = pending.get_mut(&(row, step)) {
                        p.sent |= p.attempt == attempt;
                    }
                }
                JournalEntry::Result {
                    row,
                    step,
                    attempt,
                    code,
                    ..
                } => {
                    if code.is_none() {
                        pending.remove(&(row, step));
                        done.insert((row, step));
                    } else if pending.get(&(row, step)).map(|p| p.attempt) != Some(attempt) {
                        // Failed before its intent: no input went out.
                        pending.remove(&(row, step));
                    }
                    // Failed after its intent: input may have gone out. It stays pending, so
                    // a resume verifies it (or asks a person) instead of sending it again.
                }
            }
        }
        Ok((done, pending))
    }

    /// The run's end: its record stored as passed, failed or paused (a takeover requested for
    /// a person), its summary and the report written beside the run.
    fn finish_run(
        &mut self,
        lf: &LoadedFlow,
        mut rec: RunRecord,
        outcome: Result<(), (MendError, usize, usize)>,
    ) -> Result<Summary, MendError> {
        rec.finished_ms = Some(self.clock.unix_ms());
        let mut takeover_id = None;
        match outcome {
            Ok(()) => rec.status = "passed".into(),
            Err((e, r, i)) => {
                // Bad input and a screen that contradicts an assertion end the run; every
                // other stop is handed to a person, and the run waits, resumable.
                let person = !matches!(
                    e.code,
                    ErrorCode::AssertionFailed
                        | ErrorCode::InvalidArgument
                        | ErrorCode::FlowInvalid
                );
                rec.status = if person { "paused" } else { "failed" }.into();
                rec.code = Some(e.code);
                rec.message = Some(e.message.clone());
                if person {
                    takeover_id = Some(self.request_takeover(lf, &rec, r, i, &e)?);
                }
            }
        }
        self.store.put_run(&rec)?;
        let mut s = summary(self.store, &rec, lf)?;
        s.takeover = takeover_id;
        let path = self.run_dir.join("report.md");
        std::fs::write(&path, report::markdown(&s, &rec)).map_err(|e| {
            err(
                ErrorCode::InvalidArgument,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
        s.report = Some(path.display().to_string());
        Ok(s)
    }

    /// Starting (or resuming) a run is the operator's request to drive this application: if
    /// its main window is not in front (the terminal or the studio is), ask for it once. The
    /// guard still decides before every input.
    fn bring_to_front(&mut self, lf: &LoadedFlow) {
        let Ok(q) = self.main_query(lf) else { return };
        let Ok(w) = self.capture.find_window(&q) else {
            return;
        };
        if self
            .capture
            .foreground()
            .ok()
            .flatten()
            .is_some_and(|f| f.id == w.id)
        {
            return;
        }
        // Not when a window the flow expects (a dialog, an interrupt) is in front.
        if let (Ok(guard), Ok(Some(fg))) = (self.guard(lf), self.capture.foreground()) {
            if guard.allow.iter().any(|a| a.matches(&fg)) {
                return;
            }
        }
        if self.input.activate(w.id).is_err() {
            return;
        }
        let deadline = self.clock.now_ms() + 2000;
        while self.clock.now_ms() < deadline {
            if self
                .capture
                .foreground()
                .ok()
                .flatten()
                .is_some_and(|f| f.id == w.id)
            {
                return;
            }
            self.clock.sleep_ms(self.opts.poll_ms);
        }
    }
}

pub fn describe_check(c: &Check) -> String {
    let t = |t: &TargetSpec| {
        format!(
            "{} '{}'",
            t.role.as_deref().unwrap_or("any"),
            t.text.as_deref().or(t.near.as_deref()).unwrap_or("")
        )
    };
    match c {
        Check::Exists(x) => format!("{} exists", t(x)),
        Check::NotExists(x) => format!("{} does not exist", t(x)),
        Check::WindowTitle(p) => format!("a window titled '{p}' is open"),
        Check::TextMatches { target, pattern } => format!("{} reads /{pattern}/", t(target)),
    }
}
