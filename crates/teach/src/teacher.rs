//! The teacher: input events in, steps out. Each press is described on the newest frame
//! taken before it (the ring), the typing that follows a field click becomes that step's text
//! (or a `${secret:NAME}` when the field masks it), and a commit-like click gets a `verify` from
//! what the screen did next.

use crate::words::{
    apart_from, common_run, key_name, key_step, printable, reads_like_commit, secret_name,
    secrets_of_other_flows,
};
use crate::{Options, Outcome, Stopped};
use mend_capture::{Capture, Frame, XcapCapture};
use mend_input::observe::Observed;
use mend_locate::text::{normalize, similarity};
use mend_locate::{line_ocr, Locator, Scene};
use mend_model::{
    flow_warnings, parse_flow, Check, ErrorCode, Flow, MendError, Rect, Risk, Step, TargetSpec,
    WindowSpec,
};
use mend_model::{FlowAction as Action, Point};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Recent frames of the windows in front, newest last.
pub(crate) type Ring = Arc<Mutex<VecDeque<(Instant, Frame)>>>;
/// The windows' stacking order (topmost first) as it was when each round of the ring was
/// taken, newest last: which window a press landed on is told by the order at the press, not
/// at its description — a click on a dialog's Save is described after it closed the dialog.
pub(crate) type Stacking = Arc<Mutex<VecDeque<(Instant, Vec<u32>)>>>;

/// Snapshots of the watched windows' accessibility trees (window id), newest last, each
/// stamped when it was taken: a press is given the newest one taken before it.
pub(crate) type Trees = Arc<Mutex<VecDeque<(Instant, (u32, mend_structure::Snapshot))>>>;

pub(crate) const RING_KEEP: Duration = Duration::from_secs(3);
pub(crate) const RING_EVERY: Duration = Duration::from_millis(60);
/// A frame counts as "before" a press only if it was taken this long before it reached us.
const BEFORE: Duration = Duration::from_millis(25);
/// How many frames from before the typing ended are read to tell a masked field.
const MASK_LOOKS: usize = 6;
const DOUBLE_CLICK: Duration = Duration::from_millis(400);
/// How long after a commit-like click the screen is looked at for its `verify`.
const PROPOSE_AFTER: Duration = Duration::from_millis(900);

fn err(code: ErrorCode, msg: impl Into<String>) -> MendError {
    MendError::new(code, msg)
}

/// A click whose `verify` is still to be proposed from what the screen does next.
struct Proposal {
    step: usize,
    at: Instant,
    titles: Vec<String>,
    labels: Vec<String>,
    window: u32,
    caption: Option<String>,
}

pub(crate) struct Teacher {
    flow_path: PathBuf,
    crops_dir: PathBuf,
    crops_rel: String,
    name: String,
    main_title: String,
    window: String,
    ring: Ring,
    stacking: Stacking,
    locator: Locator,
    capture: XcapCapture,
    steps: Vec<Step>,
    /// The window each step's frame came from (id, title).
    step_window: Vec<(u32, String)>,
    allow: Vec<String>,
    typed: String,
    /// The step (a click on a field) the typed text belongs to.
    typing_into: Option<usize>,
    last_press: Option<(u8, i32, i32, Instant, usize)>,
    proposal: Option<Proposal>,
    secrets: Vec<String>,
    /// Each secret's field label, for the flow's header.
    secret_labels: Vec<String>,
    /// Secret names the other flows of the flow's folder use.
    secrets_elsewhere: Vec<String>,
    notes: Vec<String>,
    /// Windows of this process are not the application's (see `Options::skip_pid`).
    skip_pid: Option<u32>,
    /// The trees' snapshots, where the desktop has an accessibility bus.
    pub(crate) trees: Option<Trees>,
}

impl Teacher {
    pub(crate) fn new(
        a: &Options,
        main_title: &str,
        ring: Ring,
        stacking: Stacking,
    ) -> Result<Teacher, MendError> {
        let stem = a
            .flow
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "flow".into());
        let crops_rel = format!("{stem}.crops");
        let dir = a.flow.parent().unwrap_or(Path::new("."));
        Ok(Teacher {
            flow_path: a.flow.clone(),
            crops_dir: dir.join(&crops_rel),
            crops_rel,
            name: a.name.clone().unwrap_or(stem),
            main_title: main_title.to_string(),
            window: a.window.clone(),
            ring,
            stacking,
            locator: Locator::new(&a.lang)?,
            capture: XcapCapture,
            steps: vec![],
            step_window: vec![],
            allow: vec![],
            typed: String::new(),
            typing_into: None,
            last_press: None,
            proposal: None,
            secrets: vec![],
            secret_labels: vec![],
            secrets_elsewhere: secrets_of_other_flows(dir, &a.flow),
            notes: vec![],
            skip_pid: a.skip_pid,
            trees: None,
        })
    }

    pub(crate) fn steps(&self) -> &[Step] {
        &self.steps
    }

    pub(crate) fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Take one input; one that cannot be described is told as a note, and recording goes on.
    pub(crate) fn on_or_note(&mut self, ev: Observed) {
        if let Err(e) = self.on(ev) {
            self.notes.push(format!(
                "an input could not be recorded and was left out: {e}"
            ));
        }
    }

    /// Is the point on a window of the process told to skip (topmost managed window there)?
    fn on_skipped_window(&self, x: i32, y: i32) -> bool {
        let Some(pid) = self.skip_pid else {
            return false;
        };
        self.capture.windows().ok().is_some_and(|ws| {
            ws.iter()
                .find(|w| w.rect.contains(Point { x, y }))
                .is_some_and(|w| w.pid == pid)
        })
    }

    /// Is a window of the process told to skip in front (keys go there, not to the app)?
    fn skipped_in_front(&self) -> bool {
        let Some(pid) = self.skip_pid else {
            return false;
        };
        self.capture
            .foreground()
            .ok()
            .flatten()
            .is_some_and(|w| w.pid == pid)
    }

    fn on(&mut self, ev: Observed) -> Result<(), MendError> {
        match ev {
            Observed::Press { button, x, y, at } => self.press(button, x, y, at),
            Observed::Key {
                keysym,
                shift,
                ctrl,
                alt,
                at,
            } => self.key(keysym, shift, ctrl, alt, at),
        }
    }

    pub(crate) fn idle(&mut self) {
        if self
            .proposal
            .as_ref()
            .is_some_and(|p| p.at.elapsed() >= PROPOSE_AFTER)
        {
            self.propose();
        }
    }

    /// The newest frame taken before `at` of the topmost window holding the screen point,
    /// topmost as the windows were stacked just before `at` (now, when no round was taken).
    fn frame_before(&self, x: i32, y: i32, at: Instant) -> Option<Frame> {
        let then = self
            .stacking
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|(t, _)| *t + BEFORE <= at)
            .map(|(_, order)| order.clone());
        let order: Vec<u32> = match then {
            Some(order) => order,
            None => self
                .capture
                .windows()
                .ok()?
                .into_iter()
                .map(|w| w.id)
                .collect(),
        };
        let ring = self.ring.lock().unwrap();
        let mut best: Option<(usize, &Frame)> = None;
        for (t, f) in ring.iter().rev() {
            if *t + BEFORE > at {
                continue;
            }
            let Some(w) = &f.info.window else { continue };
            if !f.info.to_screen(&f.info.bounds()).contains(Point { x, y }) {
                continue;
            }
            let rank = order
                .iter()
                .position(|id| *id == w.id)
                .unwrap_or(usize::MAX);
            if best.is_none_or(|(r, _)| rank < r) {
                best = Some((rank, f));
            }
        }
        best.map(|(_, f)| f.clone())
    }

    fn press(&mut self, button: u8, x: i32, y: i32, at: Instant) -> Result<(), MendError> {
        if !matches!(button, 1 | 3) {
            return Ok(()); // the wheel and the middle button are not recorded
        }
        if self.on_skipped_window(x, y) {
            return Ok(()); // the studio's own Stop, not a step of the task
        }
        self.flush_typing(Some(at));
        if self.proposal.is_some() {
            self.propose();
        }
        if let Some((b, px, py, pt, i)) = self.last_press {
            if b == 1
                && button == 1
                && (px - x).abs() <= 4
                && (py - y).abs() <= 4
                && at.duration_since(pt) <= DOUBLE_CLICK
                && i + 1 == self.steps.len()
            {
                self.steps[i].action = Action::DoubleClick;
                self.last_press = None;
                return Ok(());
            }
        }
        let Some(frame) = self.frame_before(x, y, at) else {
            self.notes.push(format!(
                "a click at {x},{y} landed outside the watched windows and was not recorded"
            ));
            return Ok(());
        };
        let p = frame.info.from_screen(&Rect::new(x, y, 1, 1));
        let n = self.steps.len() + 1;
        let (mut target, caption) = self.describe(&frame, (p.x, p.y), n)?;
        let win = frame.info.window.clone().expect("a window's frame");
        if let Some((place, role)) = self.taught_place(&win, Point { x, y }, at, &target) {
            target.tree = Some(place);
            // The tree's role where it names the control as the pixels read it: a menu item's
            // highlighted row is no field.
            if let Some(r) = role {
                target.role = Some(crate::words::role_name(r));
            }
        }
        if win.title != self.main_title {
            let pat = format!("^{}$", regex::escape(&win.title));
            if !self.allow.contains(&pat) {
                self.allow.push(pat.clone());
            }
            target.window = Some(pat);
        }
        let commit = caption.as_deref().is_some_and(reads_like_commit);
        let is_field = target.role.as_deref() == Some("field");
        self.steps.push(Step {
            id: Some(format!("s{n}")),
            action: if button == 3 {
                Action::RightClick
            } else {
                Action::Click
            },
            target: Some(target),
            text: None,
            clear: false,
            keys: None,
            lines: None,
            to: None,
            check: vec![],
            risk: if commit { Risk::Write } else { Risk::Read },
            verify: None,
            compensation: vec![],
            timeout_ms: None,
        });
        self.step_window.push((win.id, win.title.clone()));
        self.typing_into = is_field.then_some(n - 1);
        self.last_press = Some((button, x, y, at, n - 1));
        if commit {
            let labels = self.labels_of(&frame);
            self.proposal = Some(Proposal {
                step: n - 1,
                at,
                titles: self.titles(),
                labels,
                window: win.id,
                caption,
            });
        }
        Ok(())
    }

    /// The clicked control's place in its window's tree as it was before the press, and the
    /// tree's role for it, where the tree names it as the pixels read it
    /// ([`mend_locate::taught_place`]).
    fn taught_place(
        &self,
        win: &mend_model::WindowInfo,
        at_screen: Point,
        at: Instant,
        target: &TargetSpec,
    ) -> Option<(mend_model::TreeId, Option<mend_model::Role>)> {
        let text = target.text.as_deref()?;
        let trees = self.trees.as_ref()?.lock().unwrap();
        let (_, (_, snap)) = trees
            .iter()
            .rev()
            .find(|(t, (id, _))| *id == win.id && *t + BEFORE <= at)?;
        mend_locate::taught_place(snap, win.rect, at_screen, text)
    }

    fn titles(&self) -> Vec<String> {
        self.capture
            .windows()
            .map(|ws| ws.into_iter().map(|w| w.title).collect())
            .unwrap_or_default()
    }

    fn labels_of(&mut self, frame: &Frame) -> Vec<String> {
        let mut scene = Scene::new(frame);
        scene
            .window_labels(&mut self.locator.ocr)
            .map(|ls| ls.into_iter().map(|l| l.text).collect())
            .unwrap_or_default()
    }

    /// The control under `p` (frame pixels) as a target ([`crate::describe_click`], the
    /// studio's rule too), its crop saved as the step's; its caption when one was read.
    fn describe(
        &mut self,
        frame: &Frame,
        p: (i32, i32),
        n: usize,
    ) -> Result<(TargetSpec, Option<String>), MendError> {
        let d = crate::describe_click(&mut self.locator, frame, p)?;
        let mut spec = d.spec;
        if let Some(r) = d.crop_at {
            spec.crop = self.save_crop(frame, r, n);
        }
        self.notes
            .extend(d.notes.into_iter().map(|m| format!("step {n}: {m}")));
        Ok((spec, d.caption))
    }

    fn save_crop(&self, frame: &Frame, r: Rect, n: usize) -> Option<String> {
        let img = mend_vision::crop(&frame.image, r)?;
        std::fs::create_dir_all(&self.crops_dir).ok()?;
        let file = format!("s{n}.png");
        img.save(self.crops_dir.join(&file)).ok()?;
        Some(format!("{}/{file}", self.crops_rel))
    }

    fn key(
        &mut self,
        keysym: u32,
        shift: bool,
        ctrl: bool,
        alt: bool,
        at: Instant,
    ) -> Result<(), MendError> {
        if (0xffe1..=0xffee).contains(&keysym) || keysym == 0xfe03 {
            return Ok(()); // a modifier alone
        }
        if self.skipped_in_front() {
            return Ok(());
        }
        if !ctrl && !alt {
            if let Some(c) = printable(keysym) {
                self.typed.push(c);
                return Ok(());
            }
            if keysym == 0xff08 && !self.typed.is_empty() {
                self.typed.pop(); // a typo corrected
                return Ok(());
            }
        }
        let Some(name) = key_name(keysym) else {
            return Ok(());
        };
        // Emptying the field just clicked before typing into it (ctrl+a, Home/End, BackSpace,
        // Delete): the `type` step's `clear = true` does that, in a way that works everywhere.
        let clearing = match name.as_str() {
            "a" => ctrl && !alt,
            "Home" | "End" | "BackSpace" | "Delete" => !ctrl && !alt,
            _ => false,
        };
        if clearing && self.typing_into.is_some() && self.typed.is_empty() {
            return Ok(());
        }
        self.flush_typing(Some(at));
        let mut chord = String::new();
        for (on, m) in [
            (ctrl, "ctrl+"),
            (alt, "alt+"),
            (shift && name.len() > 1, "shift+"),
        ] {
            if on {
                chord.push_str(m);
            }
        }
        chord.push_str(&name);
        let n = self.steps.len() + 1;
        self.steps.push(key_step(n, &chord));
        self.step_window.push((0, self.main_title.clone()));
        self.typing_into = None;
        self.last_press = None;
        Ok(())
    }

    /// Typed text ends: into the field clicked before, a `type` step (or a secret when the
    /// field masks it); with no field, one `key` step per character.
    /// `at`: when the event that ends the typing reached us; the field is looked at on the
    /// last frame before it (a Save click may close the dialog the field is in).
    fn flush_typing(&mut self, at: Option<Instant>) {
        if self.typed.is_empty() {
            return;
        }
        let typed = std::mem::take(&mut self.typed);
        let Some(i) = self.typing_into.take() else {
            for c in typed.chars() {
                let n = self.steps.len() + 1;
                let k = if c == ' ' {
                    "space".into()
                } else {
                    c.to_string()
                };
                self.steps.push(key_step(n, &k));
                self.step_window.push((0, self.main_title.clone()));
            }
            self.notes.push(
                "keys typed with no field clicked first became key steps; click the field first for a `type` step"
                    .into(),
            );
            return;
        };
        let masked = self.masked(i, &typed, at);
        let step = &mut self.steps[i];
        step.action = Action::Type;
        step.clear = true;
        step.text = Some(if masked {
            let label = step
                .target
                .as_ref()
                .and_then(|t| t.text.clone())
                .unwrap_or_default();
            let stem = self
                .flow_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = apart_from(
                &secret_name(&label, i + 1, &self.secrets),
                &stem,
                &self.secrets_elsewhere,
            );
            self.secrets.push(name.clone());
            self.secret_labels.push(label);
            format!("${{secret:{name}}}")
        } else {
            typed
        });
    }

    /// Does the field of step `i` show something other than `typed` (bullets, stars)?
    fn masked(&mut self, i: usize, typed: &str, at: Option<Instant>) -> bool {
        let Some(rect) = self.steps[i].target.as_ref().and_then(|t| t.recorded) else {
            return true;
        };
        let id = self.step_window[i].0;
        // The window's last frames from before the input that ended the typing, newest first
        // (a few: the last one may be mid-repaint, or hide the field under a completion popup).
        let before: Vec<Frame> = at.map_or_else(Vec::new, |at| {
            let ring = self.ring.lock().unwrap();
            ring.iter()
                .rev()
                .filter(|(t, f)| {
                    *t + BEFORE <= at && f.info.window.as_ref().is_some_and(|w| w.id == id)
                })
                .take(MASK_LOOKS)
                .map(|(_, f)| f.clone())
                .collect()
        });
        // Not masked when any of them, or the field as it is now (an app slow to paint under
        // load), shows the text. A masked field shows bullets in every one of them, so this
        // never lets a password through.
        for f in &before {
            if self.shows(f, rect, typed) {
                return false;
            }
        }
        match self.capture.capture_window(id) {
            Ok(now) => !self.shows(&now, rect, typed),
            Err(_) => true, // cannot look: treat it as a secret, never store it
        }
    }

    /// Whether the field at `rect` of `frame` shows `typed`, or a part of it (a long text
    /// scrolled in its field). Bullets and stars share no run of 4 characters with the text.
    fn shows(&mut self, frame: &Frame, rect: Rect, typed: &str) -> bool {
        let read = self
            .locator
            .ocr
            .read_lines(&frame.image, rect.inflate(-2), line_ocr(rect.h))
            .map(|ls| {
                ls.iter()
                    .map(|l| l.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        let (read, typed) = (normalize(&read), normalize(typed));
        read.contains(&typed)
            || similarity(&read, &typed) >= 0.8
            || common_run(&read, &typed) >= 4.min(typed.chars().count())
    }

    /// What the screen did after a commit-like click, as its `verify`.
    fn propose(&mut self) {
        let Some(p) = self.proposal.take() else {
            return;
        };
        let now = self.titles();
        let verify = if let Some(t) = now.iter().find(|t| !t.is_empty() && !p.titles.contains(t)) {
            Some(Check::WindowTitle(format!("^{}$", regex::escape(t))))
        } else {
            match self.capture.capture_window(p.window) {
                Err(_) => p.caption.as_ref().map(|c| {
                    Check::NotExists(TargetSpec {
                        text: Some(c.clone()),
                        role: Some("button".into()),
                        window: self.steps[p.step]
                            .target
                            .as_ref()
                            .and_then(|t| t.window.clone()),
                        ..TargetSpec::default()
                    })
                }),
                Ok(frame) => {
                    let after = self.labels_of(&frame);
                    let gone = p
                        .caption
                        .as_ref()
                        .filter(|c| !after.iter().any(|a| normalize(a) == normalize(c)));
                    match gone {
                        Some(c) => Some(Check::NotExists(TargetSpec {
                            text: Some(c.clone()),
                            role: Some("button".into()),
                            ..TargetSpec::default()
                        })),
                        None => after
                            .iter()
                            .filter(|a| a.chars().count() >= 2)
                            .filter(|a| !p.labels.iter().any(|b| normalize(b) == normalize(a)))
                            .max_by_key(|a| a.chars().count())
                            .map(|a| {
                                Check::Exists(TargetSpec {
                                    text: Some(a.trim().to_string()),
                                    ..TargetSpec::default()
                                })
                            }),
                    }
                }
            }
        };
        match verify {
            Some(v) => self.steps[p.step].verify = Some(v),
            None => self.notes.push(format!(
                "step {}: it reads like a commit (risk = \"write\") but the screen showed nothing to verify it by; add a `verify` so a crash there can be resumed",
                p.step + 1
            )),
        }
    }

    /// Input has ended: the typing so far and a pending `verify` are settled.
    pub(crate) fn flush(&mut self) {
        self.flush_typing(None);
        self.propose();
    }

    /// Write the flow and parse it back; nothing is written when nothing was recorded.
    pub(crate) fn finish(self, stopped: Stopped) -> Result<Outcome, MendError> {
        let mut out = Outcome {
            flow_path: self.flow_path.clone(),
            flow: None,
            secrets: self.secrets.clone(),
            notes: self.notes.clone(),
            warnings: vec![],
            stopped,
        };
        if self.steps.is_empty() {
            return Ok(out);
        }
        let flow = Flow {
            version: 1,
            name: self.name.clone(),
            window: WindowSpec {
                title: self.window.clone(),
                class: None,
                allow: self.allow.clone(),
            },
            vars: BTreeMap::new(),
            interrupts: vec![],
            steps: self.steps.clone(),
        };
        let body = toml::to_string(&flow).map_err(|e| {
            err(
                ErrorCode::FlowInvalid,
                format!("cannot write the flow: {e}"),
            )
        })?;
        // Each secret said where the flow is read: which field, and how to set it.
        let secrets: String = self
            .secrets
            .iter()
            .zip(&self.secret_labels)
            .map(|(n, l)| {
                let field = if l.trim().is_empty() {
                    "a masked field".to_string()
                } else {
                    format!("the masked field '{}'", l.trim().replace('\n', " "))
                };
                format!(
                    "# Secret {n}: typed into {field}; set it before running (export {n}=… or `mend secret set {n}`).\n"
                )
            })
            .collect();
        let src = format!(
            "# Recorded by `mend teach` on '{}': check each step, then `mend run {}`.\n{secrets}{body}",
            self.main_title,
            self.flow_path.display()
        );
        std::fs::write(&self.flow_path, &src).map_err(|e| {
            err(
                ErrorCode::InvalidArgument,
                format!("cannot write {}: {e}", self.flow_path.display()),
            )
        })?;
        let parsed = parse_flow(&self.flow_path.display().to_string(), &src, &[])?;
        out.warnings = flow_warnings(&parsed)
            .into_iter()
            .map(|w| w.message)
            .collect();
        out.flow = Some(parsed);
        Ok(out)
    }
}
