//! A person does a task once in a window; Mend writes the flow. `mend teach` and the studio's
//! Record both drive [`teach`]: the CLI prints what it is told, the studio pushes it to the UI.
//!
//! Input is only watched (the X RECORD extension, `mend_input::observe`), never intercepted.
//! A ring of recent frames of the windows in front lets each click be described on the frame
//! taken *before* it landed (`teacher.rs`). Each step is handed to the caller as soon as it is
//! proposed, and again whenever later input changes it (a click on a field becomes a `type`
//! when the typing ends; a second click makes a double click; a commit gets its `verify` ~1 s
//! later): [`Event::Step`] carries the step's index and its whole current state, so a viewer
//! just replaces that row. A masked field's text never enters a step, so it never reaches an
//! event, the flow file or the terminal: the step holds `${secret:NAME}` from the moment it
//! becomes a `type`.
//!
//! **Stopping.** Recording ends when `stop` is set (Ctrl+C in the CLI, Stop in the studio) or
//! when the person presses [`STOP_CHORD`] anywhere: the chord is seen on the same RECORD stream
//! (the application receives it too; nothing is intercepted) and never becomes a step. Either
//! way the flow so far is written and validated; an input that cannot be described becomes a
//! note instead of ending the recording.

mod describe;
mod teacher;
mod words;

pub use describe::{describe_click, Described};

use mend_capture::{Capture, WindowQuery, XcapCapture};
use mend_input::observe::{Observed, Observer};
use mend_model::{Flow, MendError, Step};
use serde::Serialize;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use teacher::{Ring, Stacking, Teacher, Trees, RING_EVERY, RING_KEEP};

/// The chord that ends a recording from inside the application being recorded, in `key`
/// steps' syntax. Ctrl+Alt+End: no toolkit binds it and it types nothing.
pub const STOP_CHORD: &str = "ctrl+alt+End";
const END: u32 = 0xff57;

/// Is this press the stop chord (any other modifiers aside from shift make it another chord)?
pub fn is_stop_chord(ev: &Observed) -> bool {
    matches!(
        ev,
        Observed::Key {
            keysym: END,
            ctrl: true,
            alt: true,
            ..
        }
    )
}

/// What to record and where to write it.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where the flow (TOML) goes; crops go to `<flow>.crops/`.
    pub flow: PathBuf,
    /// Anchored regex of the application's main window title.
    pub window: String,
    /// OCR languages.
    pub lang: String,
    /// The flow's name (default: the file's stem).
    pub name: Option<String>,
    /// A process whose own windows are never recorded (the studio that drives the recording:
    /// its Stop button is clicked while the recording runs).
    pub skip_pid: Option<u32>,
}

/// What happens while recording, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// Input is being watched from now on (a press before this was not seen).
    Started { title: String, stop_chord: String },
    /// Step `index` (0-based) is new, or changed: its whole current state.
    Step { index: usize, step: Box<Step> },
    /// Something the person should know (a click outside the window, a target that does not
    /// lead back to its control).
    Note { message: String },
}

/// Why the recording ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// The caller's `stop` flag (Ctrl+C, the studio's Stop).
    Asked,
    /// The person pressed [`STOP_CHORD`].
    Chord,
    /// The X server ended the input stream.
    InputEnded,
}

/// A finished recording.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub flow_path: PathBuf,
    /// The flow as written and parsed back; `None` when nothing was recorded (nothing written).
    pub flow: Option<Flow>,
    /// Secrets the flow uses for masked fields: the person sets them before running.
    pub secrets: Vec<String>,
    pub notes: Vec<String>,
    /// `flow_warnings` of the written flow (steps a crash would pause at).
    pub warnings: Vec<String>,
    pub stopped: Stopped,
}

/// Record until `stop` is set, the stop chord is pressed or the input stream ends; every step
/// goes to `on` as it is captured. The flow is then written and validated.
pub fn teach(
    opts: &Options,
    stop: &Arc<AtomicBool>,
    on: &mut dyn FnMut(Event),
) -> Result<Outcome, MendError> {
    let capture = XcapCapture;
    let main = capture.find_window(&WindowQuery::title(&opts.window)?)?;
    let ring: Ring = Arc::new(Mutex::new(VecDeque::new()));
    let stacking: Stacking = Arc::new(Mutex::new(VecDeque::new()));
    let trees: Trees = Arc::new(Mutex::new(VecDeque::new()));
    // Up to when input has been described: frames are kept RING_KEEP before it, so a press
    // that waits its turn behind a slow description still finds the frame taken before it.
    let described = Arc::new(Mutex::new(Instant::now()));
    let watching = Arc::new(AtomicBool::new(true));
    let watcher = {
        let (ring, stacking, watching, main_id, skip, described) = (
            ring.clone(),
            stacking.clone(),
            watching.clone(),
            main.id,
            opts.skip_pid,
            described.clone(),
        );
        std::thread::spawn(move || {
            let capture = XcapCapture;
            while watching.load(Ordering::SeqCst) {
                if let Ok(ws) = capture.windows() {
                    let mut s = stacking.lock().unwrap();
                    s.push_back((Instant::now(), ws.iter().map(|w| w.id).collect()));
                    prune(&mut s, *described.lock().unwrap());
                }
                let front = capture
                    .foreground()
                    .ok()
                    .flatten()
                    .filter(|w| w.id != main_id && skip.is_none_or(|p| p != w.pid))
                    .map(|w| w.id);
                for id in [Some(main_id), front].into_iter().flatten() {
                    if let Ok(f) = capture.capture_window(id) {
                        let mut r = ring.lock().unwrap();
                        r.push_back((Instant::now(), f));
                        prune(&mut r, *described.lock().unwrap());
                    }
                }
                std::thread::sleep(RING_EVERY);
            }
        })
    };
    let tree_watcher = mend_structure::AtSpi::desktop().map(|tree| {
        let (ring, trees, watching, described) = (
            ring.clone(),
            trees.clone(),
            watching.clone(),
            described.clone(),
        );
        std::thread::spawn(move || watch_trees(tree, &ring, &trees, &watching, &described))
    });
    let result = (|| {
        // Let the ring hold a frame before the first press can come.
        std::thread::sleep(RING_EVERY * 3);
        let (observer, events) = Observer::start()?;
        let mut t = Teacher::new(opts, &main.title, ring.clone(), stacking.clone())?;
        t.trees = tree_watcher.is_some().then(|| trees.clone());
        on(Event::Started {
            title: main.title.clone(),
            stop_chord: STOP_CHORD.into(),
        });
        let mut shown = Shown::default();
        let stopped = loop {
            if stop.load(Ordering::SeqCst) {
                break Stopped::Asked;
            }
            match events.recv_timeout(Duration::from_millis(100)) {
                Ok(ev) if is_stop_chord(&ev) => break Stopped::Chord,
                Ok(ev) => {
                    *described.lock().unwrap() = ev.at();
                    t.on_or_note(ev)
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    *described.lock().unwrap() = Instant::now();
                    t.idle()
                }
                Err(_) => break Stopped::InputEnded,
            }
            shown.tell(t.steps(), t.notes(), on);
        };
        observer.stop();
        // Presses already on their way are part of the task, up to a stop chord.
        while let Ok(ev) = events.try_recv() {
            if is_stop_chord(&ev) {
                break;
            }
            t.on_or_note(ev);
        }
        t.flush();
        shown.tell(t.steps(), t.notes(), on);
        t.finish(stopped)
    })();
    watching.store(false, Ordering::SeqCst);
    let _ = watcher.join();
    if let Some(w) = tree_watcher {
        let _ = w.join();
    }
    result
}

/// Keep a snapshot of each watched window's accessibility tree as it was after its pixels last
/// changed (a menu opened, a dialog drawn), so a press is given the control's place in the tree
/// as it was before the press (`teacher.rs`). A window whose pixels stay the same is not
/// walked again; one with no tree is asked again only when it changes.
fn watch_trees(
    mut tree: mend_structure::AtSpi,
    ring: &Ring,
    trees: &Trees,
    watching: &AtomicBool,
    described: &Mutex<Instant>,
) {
    use mend_structure::Structure;
    let fp = mend_vision::Fingerprinter::new();
    let mut walked: std::collections::HashMap<u32, mend_vision::Fingerprint> =
        std::collections::HashMap::new();
    while watching.load(Ordering::SeqCst) {
        // The newest frame of each window in the ring.
        let newest: Vec<mend_capture::Frame> = {
            let r = ring.lock().unwrap();
            let mut seen = std::collections::HashSet::new();
            r.iter()
                .rev()
                .filter(|(_, f)| f.info.window.as_ref().is_some_and(|w| seen.insert(w.id)))
                .map(|(_, f)| f.clone())
                .collect()
        };
        for f in newest {
            let Some(win) = f.info.window.clone() else {
                continue;
            };
            // By the window's fingerprint: a caret's blink is no change, a menu opened is.
            let look = fp.hash(&f.image);
            if walked.get(&win.id).is_some_and(|w| w.distance(&look) == 0) {
                continue;
            }
            walked.insert(win.id, look);
            if let Ok(Some(snap)) = tree.window(&win) {
                let mut t = trees.lock().unwrap();
                t.push_back((Instant::now(), (win.id, snap)));
                prune_trees(&mut t, *described.lock().unwrap());
            }
        }
        std::thread::sleep(RING_EVERY);
    }
}

/// Drop the snapshots taken more than RING_KEEP before `described`, except each window's
/// newest: a window whose pixels have not changed since is still as that snapshot saw it.
fn prune_trees<T>(trees: &mut VecDeque<(Instant, (u32, T))>, described: Instant) {
    let mut i = 0;
    while i < trees.len() {
        let (t, (id, _)) = &trees[i];
        let old = described.saturating_duration_since(*t) > RING_KEEP;
        if old && trees.iter().skip(i + 1).any(|(_, (other, _))| other == id) {
            trees.remove(i);
        } else {
            i += 1;
        }
    }
}

/// Drop the frames taken more than RING_KEEP before `described` (the time of the last input
/// described, or now when none waits): a frame a waiting press may need is never dropped.
fn prune<T>(ring: &mut VecDeque<(Instant, T)>, described: Instant) {
    while ring
        .front()
        .is_some_and(|(t, _)| described.saturating_duration_since(*t) > RING_KEEP)
    {
        ring.pop_front();
    }
}

/// What the caller has been told so far: each step as last sent, and how many notes.
#[derive(Default)]
struct Shown {
    steps: Vec<Step>,
    notes: usize,
}

impl Shown {
    fn tell(&mut self, steps: &[Step], notes: &[String], on: &mut dyn FnMut(Event)) {
        for (index, step) in steps.iter().enumerate() {
            if self.steps.get(index) != Some(step) {
                on(Event::Step {
                    index,
                    step: Box::new(step.clone()),
                });
                if index < self.steps.len() {
                    self.steps[index] = step.clone();
                } else {
                    self.steps.push(step.clone());
                }
            }
        }
        for message in &notes[self.notes.min(notes.len())..] {
            on(Event::Note {
                message: message.clone(),
            });
        }
        self.notes = notes.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_a_waiting_press_needs_is_kept_however_late_it_is_described() {
        let now = Instant::now();
        let ago = |ms: u64| now - Duration::from_millis(ms);
        let mut ring: VecDeque<(Instant, u32)> =
            [(ago(9000), 0), (ago(6000), 1), (ago(5000), 2), (ago(10), 3)].into();
        // Described up to a press 5.5 s ago: the frames 3 s before it stay.
        prune(&mut ring, ago(5500));
        assert_eq!(ring.iter().map(|(_, f)| *f).collect::<Vec<_>>(), [1, 2, 3]);
        // Nothing waits: only the last 3 s stay.
        prune(&mut ring, now);
        assert_eq!(ring.iter().map(|(_, f)| *f).collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn each_window_keeps_its_newest_tree_however_old() {
        let now = Instant::now();
        let ago = |ms| now - Duration::from_millis(ms);
        let mut trees: VecDeque<(Instant, (u32, &str))> = [
            (ago(9000), (1, "main at start")),
            (ago(8000), (2, "dialog")),
            (ago(7000), (2, "dialog again")),
            (ago(100), (2, "dialog now")),
        ]
        .into();
        prune_trees(&mut trees, now);
        let kept: Vec<&str> = trees.iter().map(|(_, (_, s))| *s).collect();
        assert_eq!(kept, ["main at start", "dialog now"]);
    }

    fn key(keysym: u32, shift: bool, ctrl: bool, alt: bool) -> Observed {
        Observed::Key {
            keysym,
            shift,
            ctrl,
            alt,
            at: Instant::now(),
        }
    }

    #[test]
    fn only_ctrl_alt_end_stops() {
        assert!(is_stop_chord(&key(END, false, true, true)));
        assert!(is_stop_chord(&key(END, true, true, true)));
        assert!(!is_stop_chord(&key(END, false, true, false)), "ctrl+End");
        assert!(!is_stop_chord(&key(END, false, false, true)), "alt+End");
        assert!(!is_stop_chord(&key(END, false, false, false)), "End");
        assert!(
            !is_stop_chord(&key(0xff50, false, true, true)),
            "ctrl+alt+Home"
        );
        let press = Observed::Press {
            button: 1,
            x: 0,
            y: 0,
            at: Instant::now(),
        };
        assert!(!is_stop_chord(&press));
        assert!(mend_input::parse_keys(STOP_CHORD).is_ok());
    }

    fn key_step(keys: &str) -> Step {
        toml::from_str(&format!("action = \"key\"\nkeys = \"{keys}\"")).unwrap()
    }

    #[test]
    fn each_step_is_told_when_new_and_again_only_when_it_changed() {
        let mut shown = Shown::default();
        let mut told = vec![];
        let mut steps = vec![key_step("Return")];
        shown.tell(&steps, &[], &mut |e| told.push(e));
        shown.tell(&steps, &[], &mut |e| told.push(e));
        assert_eq!(told.len(), 1, "an unchanged step is not told again");
        steps.push(key_step("Tab"));
        steps[0].keys = Some("ctrl+s".into());
        let notes = vec!["n1".to_string()];
        shown.tell(&steps, &notes, &mut |e| told.push(e));
        shown.tell(&steps, &notes, &mut |e| told.push(e));
        assert_eq!(
            told,
            vec![
                Event::Step {
                    index: 0,
                    step: Box::new(key_step("Return"))
                },
                Event::Step {
                    index: 0,
                    step: Box::new(key_step("ctrl+s"))
                },
                Event::Step {
                    index: 1,
                    step: Box::new(key_step("Tab"))
                },
                Event::Note {
                    message: "n1".into()
                },
            ]
        );
    }

    #[test]
    fn events_serialize_with_their_kind() {
        let e = Event::Note {
            message: "m".into(),
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"kind": "note", "message": "m"})
        );
    }
}
