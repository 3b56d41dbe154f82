//! The step loop (shared/DESIGN.md steps 4–6): locate → guard → journal the intent (flushed) →
//! act → settle → check → journal the result (flushed); retries, compensation, interrupts,
//! budget, loop detection; and resume from the journal.

use crate::breaker::{Breaker, Outcome};
use crate::clock::Clock;
use crate::load::{row_vars, substitute, target_of, LoadedFlow, Row};
use crate::report;
use crate::takeover::{self, suggestion, Change, Resolution, Takeover, CHANGES, TAKEOVERS};
use mend_capture::{save_frame, Capture, Frame};
use mend_input::{parse_keys, Action as Input_, Guard, Input, MouseButton};
use mend_locate::{Locator, Recorded, Refusal};
use mend_model::{Candidate, ErrorCode, Located, MendError, Rect, Role, Target, WindowQuery};
use mend_model::{Check, FlowAction as Action, Redo, Risk, Step, TargetSpec};
use mend_store::{JournalEntry, RunRecord, StepDetail, Store};
use mend_vision::{Fingerprint, Fingerprinter};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

mod field;

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
    /// Notes for the audit since the last call (a language model's answers and reasons).
    fn notes(&mut self) -> Vec<String> {
        Vec::new()
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

    fn read_text(&mut self, frame: &Frame, rect: Rect) -> Option<String> {
        let lines = self
            .ocr
            .read_lines(
                &frame.image,
                rect.inflate(-2),
                mend_locate::line_ocr(rect.h),
            )
            .ok()?;
        let text = lines
            .iter()
            .map(|l| l.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        (!text.trim().is_empty()).then_some(text)
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Input actions one process may send in a run (every click, key chord, typed text).
    pub budget: u32,
    pub poll_ms: u64,
    /// The screen counts as settled after this long without change.
    pub quiet_ms: u64,
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

/// What a run ended with, per step from the journal.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub run: String,
    pub flow: String,
    pub status: String,
    pub code: Option<ErrorCode>,
    pub message: Option<String>,
    pub steps: Vec<StepSummary>,
    pub report: Option<String>,
    /// The takeover request when the run paused for a person.
    pub takeover: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepSummary {
    pub row: usize,
    pub step: usize,
    pub id: String,
    pub action: String,
    pub status: String,
    pub strategy: Option<String>,
    pub confidence: Option<f64>,
    /// locate + act + settle.
    pub duration_ms: u64,
    pub locate_ms: u64,
    pub act_ms: u64,
    pub settle_ms: u64,
    pub code: Option<ErrorCode>,
    pub screenshot: Option<String>,
    /// What the step said of itself (a failure's reason; how a redo went).
    pub message: Option<String>,
}

impl Summary {
    /// 0 passed, 1 failed, 3 paused for a person.
    pub fn exit_code(&self) -> u8 {
        match self.status.as_str() {
            "passed" => 0,
            "paused" => 3,
            _ => 1,
        }
    }
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
    /// With `opts.record`: step index → the control's box (frame pixels) and its pixels.
    pub recorded: BTreeMap<usize, (Rect, Option<image::RgbaImage>)>,
    actions: u32,
    seen: HashMap<(usize, String, Rect, Fingerprint), u32>,
    fp: Fingerprinter,
    run_dir: PathBuf,
    run_id: String,
    last_failure: Option<(Option<String>, Vec<Candidate>)>,
    rows: usize,
}

pub const BREAKERS: &str = "breakers";
const COMPENSATED: &str = "compensated";

/// How long a type step waits for the clicked field to show it took the focus.
const FOCUS_WAIT_MS: u64 = 300;

/// How long a field that was empty may take to show the text typed into it.
const FILLED_WAIT_MS: u64 = 2000;

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
            recorded: BTreeMap::new(),
            actions: 0,
            seen: HashMap::new(),
            fp: Fingerprinter::new(),
            run_id: String::new(),
            last_failure: None,
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
        let mut id = format!("r{started}");
        while self.store.run(&id)?.is_some() {
            id.push('x');
        }
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

    fn drive(&mut self, lf: &LoadedFlow, mut rec: RunRecord) -> Result<Summary, MendError> {
        self.run_dir = self.opts.runs_dir.join(&rec.id);
        self.run_id = rec.id.clone();
        std::fs::create_dir_all(&self.run_dir).map_err(|e| {
            err(
                ErrorCode::InvalidArgument,
                format!("cannot create {}: {e}", self.run_dir.display()),
            )
        })?;
        self.rows = rec.rows.len();
        // What the journal says: done steps, and steps whose intent has no result.
        let mut done = HashSet::new();
        let mut pending: HashMap<(usize, usize), u32> = HashMap::new();
        for e in self.store.journal(&rec.id)? {
            match e {
                JournalEntry::Intent {
                    row, step, attempt, ..
                } => {
                    pending.insert((row, step), attempt);
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
                    } else if pending.get(&(row, step)) != Some(&attempt) {
                        // Failed before its intent: no input went out.
                        pending.remove(&(row, step));
                    }
                    // Failed after its intent: input may have gone out. It stays pending, so
                    // a resume verifies it (or asks a person) instead of sending it again.
                }
            }
        }
        self.bring_to_front(lf);
        let scope = lf.flow.window.title.clone();
        let mut breaker: Breaker = self
            .store
            .get(BREAKERS, &scope)?
            .unwrap_or_else(|| Breaker::new(&scope));
        let mut outcome: Result<(), (MendError, usize, usize)> = Ok(());
        'rows: for r in 0..rec.rows.len() {
            let vars = row_vars(&lf.flow, &rec.vars, &rec.rows[r]);
            self.seen.clear();
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
                let t0 = self.clock.now_ms();
                let res = self.step(lf, &rec.id, r, i, &vars, pending.get(&(r, i)).copied());
                let step = &lf.flow.steps[i];
                let took = self.clock.now_ms() - t0;
                let o = match &res {
                    Ok(()) if took > self.timeout(step) => Outcome::Slow,
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

    /// Store what a person needs to take over at step `i` of row `r`.
    fn request_takeover(
        &mut self,
        lf: &LoadedFlow,
        rec: &RunRecord,
        r: usize,
        i: usize,
        e: &MendError,
    ) -> Result<String, MendError> {
        let step = &lf.flow.steps[i];
        let (screenshot, candidates) = match self.last_failure.take() {
            Some((shot, cands)) if shot.is_some() => (shot, cands),
            Some((_, cands)) => (self.screenshot(lf, r, i), cands),
            None => (self.screenshot(lf, r, i), vec![]),
        };
        let effects = self
            .store
            .journal(&rec.id)?
            .into_iter()
            .filter_map(|j| match j {
                JournalEntry::Result {
                    row,
                    step,
                    code: None,
                    strategy,
                    detail,
                    ..
                } if strategy.as_deref() != Some("skipped")
                    && lf
                        .flow
                        .steps
                        .get(step)
                        .is_some_and(|s| s.risk != Risk::Read) =>
                {
                    Some(format!(
                        "row {} step {} '{}' ({:?}, {})",
                        row + 1,
                        step + 1,
                        detail.step_id,
                        lf.flow.steps[step].risk,
                        strategy.unwrap_or_default()
                    ))
                }
                _ => None,
            })
            .collect();
        let mut id = format!("t{}", self.clock.unix_ms());
        while self.store.get::<Takeover>(TAKEOVERS, &id)?.is_some() {
            id.push('x');
        }
        let t = Takeover {
            id: id.clone(),
            run: rec.id.clone(),
            flow: rec.flow_path.clone(),
            row: r,
            step: i,
            step_id: step.id.clone().unwrap_or_else(|| format!("{}", i + 1)),
            action: action_name(&step.action),
            code: e.code,
            message: e.message.clone(),
            screenshot,
            candidates,
            effects,
            suggestion: suggestion(e.code),
            status: "open".into(),
            resolution: None,
            created_ms: self.clock.unix_ms(),
        };
        self.store.put(TAKEOVERS, &id, &t)?;
        Ok(id)
    }

    /// Apply a person's resolution to an open takeover, then continue the run (abort ends it).
    pub fn resolve(
        &mut self,
        lf: &LoadedFlow,
        id: &str,
        res: Resolution,
    ) -> Result<Summary, MendError> {
        let mut t = takeover::takeover(self.store, id)?;
        if t.status != "open" {
            return Err(err(
                ErrorCode::InvalidArgument,
                format!(
                    "takeover {id} is already {} ({})",
                    t.status,
                    t.resolution.clone().unwrap_or_default()
                ),
            ));
        }
        let mut rec = self.store.run(&t.run)?.ok_or_else(|| {
            err(
                ErrorCode::StoreCorrupt,
                format!("takeover {id} names run {} which is not stored", t.run),
            )
        })?;
        if rec.flow_hash != lf.hash {
            return Err(err(
                ErrorCode::FlowInvalid,
                format!(
                    "{} changed since run {} started; start a new run",
                    rec.flow_path, rec.id
                ),
            ));
        }
        self.run_dir = self.opts.runs_dir.join(&rec.id);
        self.run_id = rec.id.clone();
        self.rows = rec.rows.len();
        let vars = row_vars(&lf.flow, &rec.vars, &rec.rows[t.row]);
        let step = &lf.flow.steps[t.step];
        let next = self
            .store
            .journal(&rec.id)?
            .iter()
            .filter_map(|j| match j {
                JournalEntry::Intent {
                    row, step, attempt, ..
                }
                | JournalEntry::Result {
                    row, step, attempt, ..
                } if (*row, *step) == (t.row, t.step) => Some(*attempt),
                _ => None,
            })
            .max()
            .unwrap_or(0)
            + 1;
        let base = StepDetail {
            step_id: t.step_id.clone(),
            action: t.action.clone(),
            ..StepDetail::default()
        };
        match res {
            Resolution::Skip => {
                let d = StepDetail {
                    message: Some("skipped by a person".into()),
                    ..base
                };
                self.journal_result(&rec.id, t.row, t.step, next, None, Some("skipped"), d)?;
            }
            Resolution::Retry => {
                // A result with no intent of its own: the step did not act, run it again.
                let d = StepDetail {
                    message: Some("a person asked to retry".into()),
                    ..base
                };
                self.journal_result(&rec.id, t.row, t.step, next, Some(t.code), None, d)?;
            }
            Resolution::Done => {
                if let Some(v) = &step.verify {
                    let _ = self.settle(lf, self.timeout(step));
                    if !self.check_once(lf, v, &vars)? {
                        return Err(err(
                            ErrorCode::AssertionFailed,
                            format!(
                                "step '{}' is not done: its verify ({}) does not hold. Do it, then answer done again, or retry",
                                t.step_id,
                                describe_check(v)
                            ),
                        ));
                    }
                }
                let d = StepDetail {
                    message: Some("done by a person".into()),
                    ..base
                };
                self.journal_result(&rec.id, t.row, t.step, next, None, Some("person"), d)?;
            }
            Resolution::Pick { x, y } => {
                self.pick(lf, &t, &vars, next, x, y)?;
            }
            Resolution::Abort => {
                self.abort(lf, &rec)?;
                rec.status = "aborted".into();
                rec.finished_ms = Some(self.clock.unix_ms());
                self.store.put_run(&rec)?;
            }
        }
        t.status = "resolved".into();
        t.resolution = Some(res.name());
        self.store.put(TAKEOVERS, id, &t)?;
        let scope = lf.flow.window.title.clone();
        let mut b: Breaker = self
            .store
            .get(BREAKERS, &scope)?
            .unwrap_or_else(|| Breaker::new(&scope));
        b.half_open();
        self.store.put(BREAKERS, &scope, &b)?;
        if res == Resolution::Abort {
            return summary(self.store, &rec, lf);
        }
        self.resume(lf, &t.run)
    }

    /// Act where the person pointed (guarded), record the step, and propose the picked
    /// control as the step's new target.
    fn pick(
        &mut self,
        lf: &LoadedFlow,
        t: &Takeover,
        vars: &Row,
        attempt: u32,
        x: i32,
        y: i32,
    ) -> Result<(), MendError> {
        let step = &lf.flow.steps[t.step];
        let spec = step.target.as_ref().ok_or_else(|| {
            err(
                ErrorCode::InvalidArgument,
                format!(
                    "step '{}' acts on no control: pick does not apply; use done, skip or retry",
                    t.step_id
                ),
            )
        })?;
        if !matches!(
            step.action,
            Action::Click | Action::DoubleClick | Action::RightClick | Action::Type
        ) {
            return Err(err(
                ErrorCode::InvalidArgument,
                "pick applies to click and type steps; use done, skip or retry",
            ));
        }
        let frame = self.capture.capture(&self.query_for(lf, spec)?)?;
        let p = mend_model::Point { x, y };
        if !frame.info.bounds().contains(p) {
            return Err(err(
                ErrorCode::InvalidArgument,
                format!(
                    "{x},{y} is outside the window ({}x{}); give a point on the screenshot",
                    frame.info.width, frame.info.height
                ),
            ));
        }
        self.check_guard(lf, &frame)?;
        let rect = mend_vision::find_control_boxes(&frame.image)
            .into_iter()
            .filter(|b| b.rect.contains(p))
            .min_by_key(|b| b.rect.area())
            .map_or(Rect::new(x - 20, y - 10, 40, 20), |b| b.rect);
        let at = frame.info.to_screen(&Rect::new(x, y, 1, 1));
        let at = mend_model::Point { x: at.x, y: at.y };
        self.spend(1)?;
        self.intent(
            Some(At {
                run: &t.run,
                row: t.row,
                step: t.step,
                attempt,
            }),
            &t.action,
        )?;
        let first = match step.action {
            Action::DoubleClick => Input_::Click {
                at,
                button: MouseButton::Left,
                count: 2,
            },
            Action::RightClick => Input_::Click {
                at,
                button: MouseButton::Right,
                count: 1,
            },
            _ => Input_::click(at),
        };
        self.send(&first)?;
        if step.action == Action::Type {
            self.await_change(&frame, rect, FOCUS_WAIT_MS);
            let text = substitute(step.text.as_deref().unwrap_or_default(), vars, self.secrets)?;
            if step.clear {
                self.empty_field(&frame, rect, text.chars().count())?;
            }
            self.type_guarded(lf, &frame, &text)?;
        }
        let _ = self.settle(lf, self.timeout(step));
        let d = StepDetail {
            step_id: t.step_id.clone(),
            action: t.action.clone(),
            rect: Some(rect),
            confidence: Some(1.0),
            message: Some(format!("a person picked {x},{y}")),
            ..StepDetail::default()
        };
        self.journal_result(&t.run, t.row, t.step, attempt, None, Some("picked"), d)?;
        self.audit(
            &t.run,
            t.row,
            &t.step_id,
            &t.action,
            Some("picked"),
            Some(1.0),
            Some(rect),
            None,
            None,
            0,
            None,
        );

        // The proposal: what the person pointed at, as the step's target.
        let is_field = spec.role.as_deref().and_then(Role::parse) == Some(Role::Field);
        let text = if is_field {
            spec.text.clone()
        } else {
            self.finder
                .read_text(&frame, rect)
                .filter(|s| !s.trim().is_empty())
                .or_else(|| spec.text.clone())
        };
        let mut cid = format!("c{}", self.clock.unix_ms());
        while self.store.get::<Change>(CHANGES, &cid)?.is_some() {
            cid.push('x');
        }
        let crop = if is_field {
            None
        } else {
            mend_vision::crop(&frame.image, rect).and_then(|img| {
                let p = self.run_dir.join(format!("{cid}.png"));
                img.save(&p).ok().map(|_| p.display().to_string())
            })
        };
        let change = Change {
            id: cid.clone(),
            run: t.run.clone(),
            takeover: t.id.clone(),
            flow_path: lf.path.display().to_string(),
            step: t.step,
            step_id: t.step_id.clone(),
            old: spec.clone(),
            new: TargetSpec {
                text,
                recorded: Some(rect),
                crop: None,
                ..spec.clone()
            },
            crop,
            status: "proposed".into(),
            created_ms: self.clock.unix_ms(),
        };
        self.store.put(CHANGES, &cid, &change)?;
        Ok(())
    }

    /// Run the compensations of the completed steps in reverse, each exactly once (a marker
    /// in the store per step: aborting again changes nothing).
    fn abort(&mut self, lf: &LoadedFlow, rec: &RunRecord) -> Result<(), MendError> {
        let mut completed: Vec<(usize, usize)> = Vec::new();
        for j in self.store.journal(&rec.id)? {
            if let JournalEntry::Result {
                row,
                step,
                code: None,
                strategy,
                ..
            } = j
            {
                if strategy.as_deref() != Some("skipped") && !completed.contains(&(row, step)) {
                    completed.push((row, step));
                }
            }
        }
        for (r, i) in completed.into_iter().rev() {
            let step = &lf.flow.steps[i];
            if step.compensation.is_empty() {
                continue;
            }
            let key = format!("{}/{r}/{i}", rec.id);
            if self.store.get::<bool>(COMPENSATED, &key)?.is_some() {
                continue;
            }
            let vars = row_vars(&lf.flow, &rec.vars, &rec.rows[r]);
            self.compensate(lf, step, &vars).map_err(|f| {
                err(
                    f.err.code,
                    format!(
                        "undoing step '{}' failed: {}; the steps undone so far stay undone, abort again to go on",
                        step.id.clone().unwrap_or_default(),
                        f.err.message
                    ),
                )
            })?;
            self.store.put(COMPENSATED, &key, &true)?;
            let sid = step.id.clone().unwrap_or_else(|| format!("{}", i + 1));
            self.audit(
                &rec.id,
                r,
                &sid,
                "compensate",
                None,
                None,
                None,
                None,
                None,
                0,
                None,
            );
            let p = Progress {
                row: r,
                rows: self.rows,
                step: i,
                steps: lf.flow.steps.len(),
                id: sid,
                action: "compensate".into(),
                status: "undone".into(),
                strategy: None,
                confidence: None,
                ms: 0,
                code: None,
                message: None,
                rect: None,
            };
            (self.on_progress)(&p);
        }
        Ok(())
    }

    /// One step of one row, with retries; or, when `pending` (a crash left its intent without a
    /// result), verified first.
    fn step(
        &mut self,
        lf: &LoadedFlow,
        run: &str,
        r: usize,
        i: usize,
        vars: &Row,
        pending: Option<u32>,
    ) -> Result<(), MendError> {
        let step = &lf.flow.steps[i];
        let steps = lf.flow.steps.len();
        let step_id = step.id.clone().unwrap_or_else(|| format!("{}", i + 1));
        let base = StepDetail {
            step_id: step_id.clone(),
            action: action_name(&step.action),
            ..StepDetail::default()
        };
        let progress = |me: &mut Self,
                        status: &str,
                        d: &StepDetail,
                        strategy: Option<&str>,
                        code: Option<ErrorCode>| {
            let p = Progress {
                row: r,
                rows: me.rows,
                step: i,
                steps,
                id: step_id.clone(),
                action: base.action.clone(),
                status: status.into(),
                strategy: strategy.map(str::to_string),
                confidence: d.confidence,
                ms: d.locate_ms + d.act_ms + d.settle_ms,
                code,
                message: d.message.clone(),
                rect: d.rect,
            };
            (me.on_progress)(&p);
        };
        progress(self, "start", &base, None, None);
        // Between steps: dismiss whatever interrupt window is up.
        self.handle_interrupts(lf, vars)?;

        let mut attempt = pending.unwrap_or(0);
        let mut compensate = false;
        if pending.is_some() {
            let t0 = self.clock.now_ms();
            if let Some(v) = &step.verify {
                // Did the step take effect before the crash? Let the screen settle, then look.
                let _ = self.settle(lf, self.timeout(step));
                let already = self.check_once(lf, v, vars)?;
                if already {
                    let d = StepDetail {
                        settle_ms: self.clock.now_ms() - t0,
                        message: Some(
                            "verified after a crash: it had taken effect, not redone".into(),
                        ),
                        ..base.clone()
                    };
                    self.journal_result(run, r, i, attempt, None, Some("verified"), d.clone())?;
                    self.audit(
                        run,
                        r,
                        &step_id,
                        "verify",
                        Some("verified"),
                        None,
                        None,
                        None,
                        None,
                        d.settle_ms,
                        None,
                    );
                    progress(self, "verified", &d, Some("verified"), None);
                    return Ok(());
                }
                compensate = true;
            } else if let Redo::NeedsVerify(why) = step.redo() {
                let e = err(
                    ErrorCode::ResumeUnverified,
                    format!(
                        "step {} ('{step_id}') may have acted before the crash and has no `verify` to tell ({why}); look at the application, then finish the step by hand or add a `verify` to the flow",
                        i + 1,
                    ),
                );
                let shot = self.screenshot(lf, r, i);
                let d = StepDetail {
                    message: Some(e.message.clone()),
                    screenshot: shot,
                    ..base.clone()
                };
                self.journal_result(run, r, i, attempt, Some(e.code), None, d.clone())?;
                progress(self, "failed", &d, None, Some(e.code));
                return Err(e);
            } else {
                compensate = true;
            }
        }
        loop {
            attempt += 1;
            let at = At {
                run,
                row: r,
                step: i,
                attempt,
            };
            let t0 = self.clock.now_ms();
            match self.attempt(lf, step, vars, Some(at), compensate) {
                Ok((located, mut d)) => {
                    d.step_id = step_id.clone();
                    d.action = base.action.clone();
                    let strategy = located.as_ref().map(|l| l.strategy.as_str());
                    self.journal_result(run, r, i, attempt, None, strategy, d.clone())?;
                    progress(self, "passed", &d, strategy, None);
                    return Ok(());
                }
                Err(f) => {
                    // Before any input, a retryable refusal may be tried again; after input, only a
                    // read step whose effect did not show (a click that did not register).
                    let retryable = attempt <= self.opts.max_retries
                        && if f.acted {
                            !matches!(step.redo(), Redo::NeedsVerify(_))
                                && matches!(
                                    f.err.code,
                                    ErrorCode::AssertionFailed | ErrorCode::ActionTimeout
                                )
                        } else {
                            // A control or window that is not there was already waited for.
                            f.err.code.is_retryable()
                                && !matches!(
                                    f.err.code,
                                    ErrorCode::LocatorNotFound | ErrorCode::WindowNotFound
                                )
                        };
                    let mut d = StepDetail {
                        message: Some(f.err.message.clone()),
                        locate_ms: self.clock.now_ms() - t0,
                        ..base.clone()
                    };
                    if !retryable {
                        d.screenshot = match &f.frame {
                            Some(fr) => self.save_shot(fr, r, i),
                            None => self.screenshot(lf, r, i),
                        };
                        if !f.candidates.is_empty() {
                            let _ = std::fs::write(
                                self.run_dir
                                    .join(format!("candidates-r{}-s{}.json", r + 1, i + 1)),
                                serde_json::to_string_pretty(&f.candidates).unwrap_or_default(),
                            );
                        }
                    }
                    if !retryable {
                        self.last_failure = Some((d.screenshot.clone(), f.candidates.clone()));
                    }
                    self.journal_result(run, r, i, attempt, Some(f.err.code), None, d.clone())?;
                    self.audit(
                        run,
                        r,
                        &step_id,
                        &base.action,
                        None,
                        None,
                        None,
                        None,
                        Some(f.err.code),
                        d.locate_ms,
                        d.screenshot.clone(),
                    );
                    if !retryable {
                        progress(self, "failed", &d, None, Some(f.err.code));
                        return Err(f.err);
                    }
                    progress(self, "retry", &d, None, Some(f.err.code));
                    compensate = f.acted;
                }
            }
        }
    }

    fn timeout(&self, step: &Step) -> u64 {
        step.timeout_ms.unwrap_or(self.opts.timeout_ms)
    }

    fn main_query(&self, lf: &LoadedFlow) -> Result<WindowQuery, MendError> {
        let mut q = WindowQuery::title(&lf.flow.window.title)?;
        q.class = lf.flow.window.class.clone();
        Ok(q)
    }

    fn query_for(&self, lf: &LoadedFlow, spec: &TargetSpec) -> Result<WindowQuery, MendError> {
        match &spec.window {
            Some(t) => WindowQuery::title(t),
            None => self.main_query(lf),
        }
    }

    fn guard(&self, lf: &LoadedFlow) -> Result<Guard, MendError> {
        let mut allow = vec![self.main_query(lf)?];
        for t in &lf.flow.window.allow {
            allow.push(WindowQuery::title(t)?);
        }
        for int in &lf.flow.interrupts {
            allow.push(WindowQuery::title(&int.window)?);
        }
        Ok(Guard::new(allow))
    }

    /// The guard on the frame the target was located in.
    fn check_guard(&self, lf: &LoadedFlow, frame: &Frame) -> Result<(), MendError> {
        let window = frame
            .info
            .window
            .as_ref()
            .ok_or_else(|| err(ErrorCode::WindowNotFound, "the frame has no window"))?;
        self.guard(lf)?
            .check(self.capture.foreground()?.as_ref(), window)
    }

    fn spend(&mut self, n: u32) -> Result<(), MendError> {
        if self.actions + n > self.opts.budget {
            return Err(err(
                ErrorCode::BudgetExceeded,
                format!(
                    "the run's action budget ({}) is spent; raise --budget if the flow really needs more",
                    self.opts.budget
                ),
            ));
        }
        self.actions += n;
        Ok(())
    }

    /// The same action on the same control on the same screen, again and again, is a loop.
    fn note_action(
        &mut self,
        row: usize,
        what: &str,
        at: Rect,
        frame: &Frame,
    ) -> Result<Fingerprint, MendError> {
        let h = self.fp.hash(&frame.image);
        let n = self
            .seen
            .entry((row, what.to_string(), at, h.clone()))
            .or_insert(0);
        *n += 1;
        if *n > MAX_SAME {
            return Err(err(
                ErrorCode::LoopDetected,
                format!(
                    "'{what}' at {},{} on an unchanged screen for the {}th time; stopping instead of looping",
                    at.x, at.y, n
                ),
            ));
        }
        Ok(h)
    }

    fn send(&mut self, a: &Input_) -> Result<(), MendError> {
        self.input.perform(a)
    }

    /// Locate a target, waiting (and dismissing interrupts) while it is not there yet.
    fn locate_wait(
        &mut self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
        vars: &Row,
        timeout: u64,
    ) -> Result<(Frame, Located), Fail> {
        let q = self.query_for(lf, spec)?;
        let target = target_of(spec, vars)?;
        let recorded = Recorded {
            template: spec
                .crop
                .as_ref()
                .and_then(|c| lf.templates.get(c).cloned()),
        };
        let deadline = self.clock.now_ms() + timeout;
        loop {
            let frame = self.capture.capture(&q);
            let r = match frame {
                Ok(f) => match self.finder.find(&f, &target, &recorded) {
                    Ok(l) => return Ok((f, l)),
                    Err(refusal) => Fail {
                        err: refusal.error,
                        acted: false,
                        frame: Some(Box::new(f)),
                        candidates: refusal.candidates,
                    },
                },
                Err(e) => Fail::from(e),
            };
            let waitable = matches!(
                r.err.code,
                ErrorCode::LocatorNotFound | ErrorCode::WindowNotFound
            );
            if !waitable || self.clock.now_ms() >= deadline {
                return Err(r);
            }
            self.handle_interrupts(lf, vars)?;
            self.clock.sleep_ms(self.opts.poll_ms * 4);
        }
    }

    /// Locate, guard (dismissing an interrupt that blocks), note the action; the frame and the
    /// control to act on.
    fn locate_guarded(
        &mut self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
        vars: &Row,
        timeout: u64,
        row: usize,
        what: &str,
    ) -> Result<(Frame, Located, Fingerprint), Fail> {
        let mut tries = 0;
        loop {
            let (frame, located) = self.locate_wait(lf, spec, vars, timeout)?;
            match self.check_guard(lf, &frame) {
                Ok(()) => {
                    let h = self.note_action(row, what, located.screen_box, &frame)?;
                    return Ok((frame, located, h));
                }
                Err(e) if e.code == ErrorCode::WindowBlocked && tries < 2 => {
                    tries += 1;
                    if !self.handle_interrupts(lf, vars)? {
                        return Err(Fail {
                            err: e,
                            acted: false,
                            frame: Some(Box::new(frame)),
                            candidates: vec![],
                        });
                    }
                }
                Err(e) => {
                    return Err(Fail {
                        err: e,
                        acted: false,
                        frame: Some(Box::new(frame)),
                        candidates: vec![],
                    })
                }
            }
        }
    }

    /// Type one character at a time, the guard checked before each: a window that steals the
    /// focus mid-text receives nothing.
    fn type_guarded(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        text: &str,
    ) -> Result<(), MendError> {
        let total = text.chars().count();
        let window = frame
            .info
            .window
            .as_ref()
            .map(|w| w.id)
            .ok_or_else(|| err(ErrorCode::WindowNotFound, "the frame has no window"))?;
        let stopped = |n: usize, e: MendError| {
            err(
                e.code,
                format!(
                    "typing stopped after {n} of {total} characters: {}",
                    e.message
                ),
            )
        };
        self.check_guard(lf, frame).map_err(|e| stopped(0, e))?;
        for (n, c) in text.chars().enumerate() {
            // The backend checks the focus and sends the key atomically: a window that takes
            // the focus mid-text gets nothing.
            self.input.type_into(window, c).map_err(|e| stopped(n, e))?;
        }
        Ok(())
    }

    /// One attempt at a step (or a compensation step when `at` is `None`: no journal).
    fn attempt(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        compensate: bool,
    ) -> Result<(Option<Located>, StepDetail), Fail> {
        let timeout = self.timeout(step);
        let t0 = self.clock.now_ms();
        let row = at.map_or(usize::MAX, |a| a.row);
        let mut d = StepDetail::default();
        // Undo a half-done attempt first; for `type`, after focusing the field (below).
        if compensate && step.action != Action::Type {
            self.compensate(lf, step, vars)?;
        }
        let what = action_name(&step.action);
        match step.action {
            Action::WaitFor | Action::Assert => {
                self.intent(at, &what)?;
                // An assertion may wait for a slow screen as long as the step's timeout;
                // what differs from wait_for is the code when it never holds.
                let code = if step.action == Action::Assert {
                    ErrorCode::AssertionFailed
                } else {
                    ErrorCode::ActionTimeout
                };
                self.wait_checks(lf, &step.check, vars, timeout, code)?;
                d.settle_ms = self.clock.now_ms() - t0;
                return Ok((None, d));
            }
            Action::Focus => {
                self.intent(at, &what)?;
                let q = self.main_query(lf)?;
                let deadline = self.clock.now_ms() + timeout;
                loop {
                    let w = self.capture.find_window(&q)?;
                    if self.capture.foreground()?.is_some_and(|f| f.id == w.id) {
                        break;
                    }
                    if self.clock.now_ms() >= deadline {
                        return Err(Fail::from(err(
                            ErrorCode::WindowBlocked,
                            format!(
                                "'{}' did not come to the front within {timeout} ms",
                                w.title
                            ),
                        )));
                    }
                    self.handle_interrupts(lf, vars)?;
                    self.clock.sleep_ms(self.opts.poll_ms);
                }
                d.settle_ms = self.clock.now_ms() - t0;
                return Ok((None, d));
            }
            Action::Key => {
                let keys = parse_keys(step.keys.as_deref().unwrap_or_default())?;
                let q = self.main_query(lf)?;
                let frame = self.capture.capture(&q)?;
                if let Err(e) = self.check_guard(lf, &frame) {
                    if !(e.code == ErrorCode::WindowBlocked && self.handle_interrupts(lf, vars)?) {
                        return Err(e.into());
                    }
                    self.check_guard(lf, &frame)?;
                }
                let h = self.note_action(row, &what, frame.info.bounds(), &frame)?;
                self.spend(1)?;
                self.intent(at, &what)?;
                let t1 = self.clock.now_ms();
                self.send(&Input_::Keys { keys }).map_err(|e| Fail {
                    acted: true,
                    ..Fail::from(e)
                })?;
                d.act_ms = self.clock.now_ms() - t1;
                self.after_act(lf, step, vars, &mut d, at, &what, None, &h)?;
                return Ok((None, d));
            }
            _ => {}
        }
        let spec = step.target.as_ref().ok_or_else(|| {
            Fail::from(err(
                ErrorCode::FlowInvalid,
                format!("{what} needs a target"),
            ))
        })?;
        let located_at = self.locate_guarded(lf, spec, vars, timeout, row, &what);
        self.audit_notes(at);
        let (frame, located, h) = located_at?;
        d.locate_ms = self.clock.now_ms() - t0;
        if let Some(a) = at.filter(|a| self.opts.record && a.row == 0) {
            let pixels = mend_vision::crop(&frame.image, located.rect);
            self.recorded.insert(a.step, (located.rect, pixels));
        }
        d.confidence = Some(located.confidence);
        d.rect = Some(located.rect);
        let c = located.screen_box.center();
        let drop_at = match (&step.action, &step.to) {
            (Action::Drag, Some(to)) => {
                let (_, l) = self.locate_wait(lf, to, vars, timeout)?;
                Some(l.screen_box.center())
            }
            _ => None,
        };
        self.spend(1)?;
        self.intent(at, &what)?;
        let t1 = self.clock.now_ms();
        let acted = |e: MendError| Fail {
            err: e,
            acted: true,
            frame: None,
            candidates: vec![],
        };
        let first = match step.action {
            Action::Click | Action::Type => Input_::click(c),
            Action::DoubleClick => Input_::Click {
                at: c,
                button: MouseButton::Left,
                count: 2,
            },
            Action::RightClick => Input_::Click {
                at: c,
                button: MouseButton::Right,
                count: 1,
            },
            Action::Scroll => Input_::Scroll {
                at: c,
                lines: step.lines.unwrap_or(1),
            },
            Action::Drag => Input_::Drag {
                from: c,
                to: drop_at.unwrap_or(c),
            },
            _ => unreachable!("targetless actions returned above"),
        };
        self.send(&first).map_err(acted)?;
        if step.action == Action::Type {
            // The application moves its keyboard focus when it handles the click, not when the
            // server delivers it: keys sent at once can reach the old focus (ctrl+a did, in
            // the practice app). Wait until the field shows the click (its caret), briefly.
            self.await_change(&frame, located.rect, FOCUS_WAIT_MS);
            if compensate {
                self.compensate(lf, step, vars)
                    .map_err(|f| Fail { acted: true, ..f })?;
            }
            let text = substitute(step.text.as_deref().unwrap_or_default(), vars, self.secrets)
                .map_err(acted)?;
            // A redo leaves the field holding exactly the text (run/field.rs): read it first,
            // else empty it and see it empty before typing.
            let replace = compensate && step.types_into_field();
            let was_blank = mend_vision::field_is_blank(&frame.image, located.rect);
            if replace && self.field_holds(&frame, located.rect, &text) {
                d.message = Some("the field already held the text: not typed again".into());
            } else {
                if step.clear || replace {
                    let emptied = self
                        .empty_field(&frame, located.rect, text.chars().count())
                        .map_err(acted)?;
                    if replace {
                        d.message = Some(
                            if emptied {
                                "redone: the field held other text, emptied before typing"
                            } else {
                                "redone: the field was empty"
                            }
                            .into(),
                        );
                    }
                }
                self.type_guarded(lf, &frame, &text).map_err(acted)?;
                // An empty field that was typed into shows something, or the keys went astray.
                if step.types_into_field()
                    && !text.is_empty()
                    && (was_blank || step.clear || replace)
                {
                    self.expect_filled(&frame, located.rect, FILLED_WAIT_MS)
                        .map_err(acted)?;
                }
            }
        }
        d.act_ms = self.clock.now_ms() - t1;
        self.after_act(lf, step, vars, &mut d, at, &what, Some(&located), &h)?;
        Ok((Some(located), d))
    }

    /// Poll the frame's window until the pixels in `rect` differ from `before`'s, or `max_ms`
    /// pass (a field that had the focus already shows no change).
    fn await_change(&mut self, before: &Frame, rect: Rect, max_ms: u64) {
        let Some(id) = before.info.window.as_ref().map(|w| w.id) else {
            return;
        };
        let old = mend_vision::crop(&before.image, rect);
        let deadline = self.clock.now_ms() + max_ms;
        while self.clock.now_ms() < deadline {
            self.clock.sleep_ms(20);
            let Ok(now) = self.capture.capture_window(id) else {
                return;
            };
            let new = mend_vision::crop(&now.image, rect);
            if old.as_ref().map(|o| o.as_raw()) != new.as_ref().map(|n| n.as_raw()) {
                return;
            }
        }
    }

    fn intent(&mut self, at: Option<At>, what: &str) -> Result<(), MendError> {
        if let Some(a) = at {
            self.store.append(
                a.run,
                &JournalEntry::Intent {
                    row: a.row,
                    step: a.step,
                    attempt: a.attempt,
                    action: what.into(),
                },
            )?;
        }
        Ok(())
    }

    /// Settle, then the step's own checks; one audit line for the action.
    #[allow(clippy::too_many_arguments)]
    fn after_act(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        d: &mut StepDetail,
        at: Option<At>,
        what: &str,
        located: Option<&Located>,
        frame_hash: &Fingerprint,
    ) -> Result<(), Fail> {
        let timeout = self.timeout(step);
        let t2 = self.clock.now_ms();
        let settled = self.settle(lf, timeout);
        d.settle_ms = self.clock.now_ms() - t2;
        let code = settled.as_ref().err().map(|e| e.code);
        if let Some(a) = at {
            self.audit(
                a.run,
                a.row,
                &step.id.clone().unwrap_or_else(|| format!("{}", a.step + 1)),
                what,
                located.map(|l| l.strategy.as_str()),
                located.map(|l| l.confidence),
                located.map(|l| l.rect),
                Some(frame_hash),
                code,
                d.locate_ms + d.act_ms + d.settle_ms,
                None,
            );
        }
        settled.map_err(|e| Fail {
            acted: true,
            ..Fail::from(e)
        })?;
        if !step.check.is_empty() {
            self.wait_checks(lf, &step.check, vars, timeout, ErrorCode::AssertionFailed)
                .map_err(|f| Fail { acted: true, ..f })?;
        }
        Ok(())
    }

    /// Run a step's compensation steps (no journal of their own: they belong to the step).
    fn compensate(&mut self, lf: &LoadedFlow, step: &Step, vars: &Row) -> Result<(), Fail> {
        for c in &step.compensation {
            self.attempt(lf, c, vars, None, false)?;
        }
        Ok(())
    }

    /// Wait until the screen stops changing: the main window's fingerprint and the set of
    /// windows unchanged for `quiet_ms`. `ACTION_TIMEOUT` if it never does.
    fn settle(&mut self, lf: &LoadedFlow, timeout: u64) -> Result<(), MendError> {
        let q = self.main_query(lf)?;
        let start = self.clock.now_ms();
        let mut last: Option<ScreenState> = None;
        let mut since = start;
        loop {
            let wins: Vec<(u32, String)> = self
                .capture
                .windows()?
                .into_iter()
                .map(|w| (w.id, w.title))
                .collect();
            let h = self
                .capture
                .capture(&q)
                .ok()
                .map(|f| self.fp.hash(&f.image));
            let now = self.clock.now_ms();
            let same = last.as_ref().is_some_and(|(lh, lw)| {
                *lw == wins
                    && match (lh, &h) {
                        (Some(a), Some(b)) => a.distance(b) <= 1,
                        (None, None) => true,
                        _ => false,
                    }
            });
            if same {
                if now - since >= self.opts.quiet_ms {
                    return Ok(());
                }
            } else {
                last = Some((h, wins));
                since = now;
            }
            if now - start >= timeout {
                return Err(err(
                    ErrorCode::ActionTimeout,
                    format!("the screen did not settle within {timeout} ms (it kept changing)"),
                ));
            }
            self.clock.sleep_ms(self.opts.poll_ms);
        }
    }

    /// Poll checks until all hold; `code` when the timeout passes first.
    fn wait_checks(
        &mut self,
        lf: &LoadedFlow,
        checks: &[Check],
        vars: &Row,
        timeout: u64,
        code: ErrorCode,
    ) -> Result<(), Fail> {
        let deadline = self.clock.now_ms() + timeout;
        loop {
            let mut failing = None;
            for c in checks {
                if !self.check_once(lf, c, vars)? {
                    failing = Some(c);
                    break;
                }
            }
            let Some(c) = failing else { return Ok(()) };
            if self.clock.now_ms() >= deadline {
                return Err(Fail::from(err(
                    code,
                    format!("not true within {timeout} ms: {}", describe_check(c)),
                )));
            }
            self.handle_interrupts(lf, vars)?;
            self.clock.sleep_ms(self.opts.poll_ms * 4);
        }
    }

    /// One look at the screen: does the check hold?
    fn check_once(&mut self, lf: &LoadedFlow, c: &Check, vars: &Row) -> Result<bool, MendError> {
        let exists = |me: &mut Self, t: &TargetSpec| -> Result<Option<Located>, MendError> {
            let q = me.query_for(lf, t)?;
            let target = target_of(t, vars)?;
            let frame = match me.capture.capture(&q) {
                Ok(f) => f,
                Err(e) if e.code == ErrorCode::WindowNotFound => return Ok(None),
                Err(e) => return Err(e),
            };
            let recorded = Recorded {
                template: t.crop.as_ref().and_then(|c| lf.templates.get(c).cloned()),
            };
            match me.finder.find(&frame, &target, &recorded) {
                Ok(l) => Ok(Some(l)),
                Err(r) if r.error.code == ErrorCode::LocatorNotFound => Ok(None),
                // Two candidates: it exists, whichever it is.
                Err(r) if r.error.code == ErrorCode::LocatorAmbiguous => Ok(Some(Located {
                    strategy: mend_model::Strategy::FuzzyOcr,
                    rect: r.candidates.first().map_or(Rect::default(), |c| c.rect),
                    screen_box: Rect::default(),
                    confidence: 0.0,
                    text: r
                        .candidates
                        .first()
                        .map_or(String::new(), |c| c.text.clone()),
                    frame_id: frame.info.id,
                })),
                Err(r) => Err(r.error),
            }
        };
        match c {
            Check::Exists(t) => Ok(exists(self, t)?.is_some()),
            Check::NotExists(t) => Ok(exists(self, t)?.is_none()),
            Check::WindowTitle(p) => {
                let q = WindowQuery::title(p)?;
                Ok(self.capture.windows()?.iter().any(|w| q.matches(w)))
            }
            Check::TextMatches { target, pattern } => {
                let re = regex::Regex::new(pattern).map_err(|e| {
                    err(
                        ErrorCode::FlowInvalid,
                        format!("text_matches pattern '{pattern}': {e}"),
                    )
                })?;
                Ok(exists(self, target)?.is_some_and(|l| re.is_match(&l.text)))
            }
        }
    }

    /// If an interrupt window is up, click its button. Returns whether one was handled.
    fn handle_interrupts(&mut self, lf: &LoadedFlow, _vars: &Row) -> Result<bool, MendError> {
        if lf.flow.interrupts.is_empty() {
            return Ok(false);
        }
        let windows = self.capture.windows()?;
        for int in &lf.flow.interrupts {
            let q = WindowQuery::title(&int.window)?;
            let Some(w) = windows.iter().find(|w| q.matches(w)) else {
                continue;
            };
            let frame = self.capture.capture_window(w.id)?;
            let target = Target {
                text: Some(int.click.clone()),
                role: Role::Button,
                ..Target::default()
            };
            let located = self
                .finder
                .find(&frame, &target, &Recorded::default())
                .map_err(|r| {
                    err(
                        r.error.code,
                        format!(
                            "interrupt '{}' is up but its '{}' cannot be found: {}",
                            w.title, int.click, r.error.message
                        ),
                    )
                })?;
            self.check_guard(lf, &frame)?;
            let h = self.note_action(usize::MAX, "interrupt", located.screen_box, &frame)?;
            self.spend(1)?;
            self.send(&Input_::click(located.screen_box.center()))?;
            let title = w.title.clone();
            self.audit(
                &self.run_id.clone(),
                0,
                "interrupt",
                &format!("interrupt {title}"),
                Some(located.strategy.as_str()),
                Some(located.confidence),
                Some(located.rect),
                Some(&h),
                None,
                0,
                None,
            );
            let p = Progress {
                row: 0,
                rows: self.rows,
                step: 0,
                steps: 0,
                id: "interrupt".into(),
                action: format!("dismiss '{title}'"),
                status: "interrupt".into(),
                strategy: Some(located.strategy.as_str().into()),
                confidence: Some(located.confidence),
                ms: 0,
                code: None,
                message: None,
                rect: None,
            };
            (self.on_progress)(&p);
            // Wait for it to go away.
            let deadline = self.clock.now_ms() + self.opts.timeout_ms;
            while self.capture.windows()?.iter().any(|x| x.id == w.id) {
                if self.clock.now_ms() >= deadline {
                    return Err(err(
                        ErrorCode::ActionTimeout,
                        format!(
                            "interrupt '{title}' did not close after '{}' was clicked",
                            int.click
                        ),
                    ));
                }
                self.clock.sleep_ms(self.opts.poll_ms);
            }
            return Ok(true);
        }
        Ok(false)
    }

    #[allow(clippy::too_many_arguments)]
    fn journal_result(
        &self,
        run: &str,
        row: usize,
        step: usize,
        attempt: u32,
        code: Option<ErrorCode>,
        strategy: Option<&str>,
        detail: StepDetail,
    ) -> Result<(), MendError> {
        self.store.append(
            run,
            &JournalEntry::Result {
                row,
                step,
                attempt,
                code,
                strategy: strategy.map(str::to_string),
                detail,
            },
        )?;
        Ok(())
    }

    /// The finder's notes (a model's answers and reasons) as audit lines of their own.
    fn audit_notes(&mut self, at: Option<At>) {
        let notes = self.finder.notes();
        if notes.is_empty() {
            return;
        }
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.run_dir.join("audit.jsonl"))
        {
            for n in notes {
                let note: serde_json::Value =
                    serde_json::from_str(&n).unwrap_or(serde_json::Value::String(n));
                let line = serde_json::json!({
                    "ts": self.clock.unix_ms(),
                    "run": self.run_id,
                    "row": at.map(|a| a.row + 1),
                    "step": at.map(|a| a.step + 1),
                    "action": "note",
                    "note": note,
                });
                let _ = writeln!(f, "{line}");
            }
        }
    }

    /// One audit line per action. Never holds typed text: only what `describe` would show.
    #[allow(clippy::too_many_arguments)]
    fn audit(
        &self,
        run: &str,
        row: usize,
        step: &str,
        action: &str,
        strategy: Option<&str>,
        confidence: Option<f64>,
        rect: Option<Rect>,
        frame_hash: Option<&Fingerprint>,
        code: Option<ErrorCode>,
        ms: u64,
        screenshot: Option<String>,
    ) {
        let line = serde_json::json!({
            "ts": self.clock.unix_ms(),
            "run": run,
            "row": row + 1,
            "step": step,
            "action": action,
            "strategy": strategy,
            "confidence": confidence,
            "box": rect,
            "frame_hash": frame_hash.map(|h| h.0.clone()),
            "code": code,
            "ms": ms,
            "screenshot": screenshot,
        });
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.run_dir.join("audit.jsonl"))
        {
            let _ = writeln!(f, "{line}");
        }
    }

    fn save_shot(&self, frame: &Frame, r: usize, i: usize) -> Option<String> {
        let p = self.run_dir.join(format!("fail-r{}-s{}.png", r + 1, i + 1));
        save_frame(frame, &p).ok().map(|_| p.display().to_string())
    }

    fn screenshot(&self, lf: &LoadedFlow, r: usize, i: usize) -> Option<String> {
        let q = self.main_query(lf).ok()?;
        let f = self.capture.capture(&q).ok()?;
        self.save_shot(&f, r, i)
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

/// A run's summary from the store alone (for `mend report`, `runs`, and the end of a run).
pub fn summary(store: &Store, rec: &RunRecord, lf: &LoadedFlow) -> Result<Summary, MendError> {
    summary_from(store, rec, Some(lf))
}

pub fn summary_from(
    store: &Store,
    rec: &RunRecord,
    lf: Option<&LoadedFlow>,
) -> Result<Summary, MendError> {
    let mut last: BTreeMap<(usize, usize), StepSummary> = BTreeMap::new();
    for e in store.journal(&rec.id)? {
        if let JournalEntry::Result {
            row,
            step,
            code,
            strategy,
            detail,
            ..
        } = e
        {
            let status = match (&code, strategy.as_deref()) {
                (None, Some("verified")) => "verified",
                (None, Some("skipped")) => "skipped",
                (None, _) => "passed",
                (Some(ErrorCode::ResumeUnverified), _) => "paused",
                (Some(_), _) => "failed",
            };
            let id = if detail.step_id.is_empty() {
                lf.and_then(|l| l.flow.steps.get(step))
                    .and_then(|s| s.id.clone())
                    .unwrap_or_else(|| format!("{}", step + 1))
            } else {
                detail.step_id.clone()
            };
            last.insert(
                (row, step),
                StepSummary {
                    row,
                    step,
                    id,
                    action: detail.action.clone(),
                    status: status.into(),
                    strategy,
                    confidence: detail.confidence,
                    duration_ms: detail.locate_ms + detail.act_ms + detail.settle_ms,
                    locate_ms: detail.locate_ms,
                    act_ms: detail.act_ms,
                    settle_ms: detail.settle_ms,
                    code,
                    screenshot: detail.screenshot.clone(),
                    message: detail.message.clone(),
                },
            );
        }
    }
    Ok(Summary {
        run: rec.id.clone(),
        flow: rec.flow.clone(),
        status: rec.status.clone(),
        code: rec.code,
        message: rec.message.clone(),
        steps: last.into_values().collect(),
        report: None,
        takeover: None,
    })
}
