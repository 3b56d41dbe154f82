//! Where a step may act and how much: the flow's windows as queries, the guard before any input,
//! the input budget and the sending of each input; a window past the screen's edge fitted onto it.

use super::*;

impl Runner<'_> {
    pub(super) fn main_query(&self, lf: &LoadedFlow) -> Result<WindowQuery, MendError> {
        let mut q = WindowQuery::title(&lf.flow.window.title)?;
        q.class = lf.flow.window.class.clone();
        Ok(q)
    }

    pub(super) fn query_for(
        &self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
    ) -> Result<WindowQuery, MendError> {
        match &spec.window {
            Some(t) => Ok(self.dialog_queries(lf, &[t])?.remove(0)),
            None => self.main_query(lf),
        }
    }

    /// Queries for windows other than the main one (dialogs): each is a dialog of the run's
    /// main window when that window is open (`WM_TRANSIENT_FOR` picks it among look-alikes),
    /// and under a literal title it is also found by the same title in the UI vocabulary's
    /// other wording ("Save As" → 另存为) — only as that window's dialog.
    pub(super) fn dialog_queries(
        &self,
        lf: &LoadedFlow,
        patterns: &[&String],
    ) -> Result<Vec<WindowQuery>, MendError> {
        let main = self
            .main_query(lf)
            .and_then(|q| self.capture.find_window(&q))
            .ok();
        patterns
            .iter()
            .map(|p| {
                let q = WindowQuery::title(p)?;
                Ok(match &main {
                    Some(m) => q.of_owner(m.id, mend_locate::title_meanings(p)),
                    None => q,
                })
            })
            .collect()
    }

    pub(super) fn guard(&self, lf: &LoadedFlow) -> Result<Guard, MendError> {
        let mut allow = vec![self.main_query(lf)?];
        let dialogs: Vec<&String> = lf.flow.window.allow.iter().collect();
        allow.extend(self.dialog_queries(lf, &dialogs)?);
        for int in &lf.flow.interrupts {
            allow.push(WindowQuery::title(&int.window)?);
        }
        Ok(Guard::new(allow))
    }

    /// The guard on the frame the target was located in.
    pub(super) fn check_guard(&self, lf: &LoadedFlow, frame: &Frame) -> Result<(), MendError> {
        let window = frame
            .info
            .window
            .as_ref()
            .ok_or_else(|| err(ErrorCode::WindowNotFound, "the frame has no window"))?;
        self.guard(lf)?
            .check(self.capture.foreground()?.as_ref(), window)
    }

    /// Spend `n` inputs of the run's budget ([`ActionBudget`]).
    pub(super) fn spend(&mut self, n: u32) -> Result<(), MendError> {
        self.budget.spend(n, self.opts.budget)
    }

    /// The same action on the same control on the same screen, again and again, is a loop.
    pub(super) fn note_action(
        &mut self,
        row: usize,
        what: &str,
        at: Rect,
        frame: &Frame,
    ) -> Result<Fingerprint, MendError> {
        let h = self.fp.hash(&frame.image);
        self.budget.note(row, what, at, &h)?;
        Ok(h)
    }

    pub(super) fn send(&mut self, a: &Input_) -> Result<(), MendError> {
        let r = self.input.perform(a);
        if let Input_::Click { at, .. } = a {
            self.last_click = Some((self.clock.now_ms(), *at));
        }
        r
    }
}

/// The run's input budget and its loop detection: how many inputs went out, and how many times
/// each action hit each control on each screen (by fingerprint) in the current row.
#[derive(Default)]
pub(super) struct ActionBudget {
    actions: u32,
    seen: HashMap<(usize, String, Rect, Fingerprint), u32>,
}

impl ActionBudget {
    /// Spend `n` inputs of the run's `budget`; `BUDGET_EXCEEDED`, nothing spent, when fewer
    /// are left.
    fn spend(&mut self, n: u32, budget: u32) -> Result<(), MendError> {
        if self.actions + n > budget {
            return Err(err(
                ErrorCode::BudgetExceeded,
                format!(
                    "the run's action budget ({}) is spent; raise --budget if the flow really needs more",
                    budget
                ),
            ));
        }
        self.actions += n;
        Ok(())
    }

    /// Count `what` at `at` on the screen `h` in `row`: `LOOP_DETECTED` once it is more than
    /// [`MAX_SAME`] times.
    fn note(&mut self, row: usize, what: &str, at: Rect, h: &Fingerprint) -> Result<(), MendError> {
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
        Ok(())
    }

    /// A new row: its loops are counted afresh (the budget is the run's).
    pub(super) fn new_row(&mut self) {
        self.seen.clear();
    }
}

/// Whether the frame's window reaches past the screen's edge: the frame is cut where the screen
/// ends, so a window larger than its frame runs past it (a dialog taller than the screen at a
/// high DPI or scale). `false` for a whole-screen frame.
pub(super) fn past_the_screen(info: &mend_model::FrameInfo) -> bool {
    let Some(w) = info.window.as_ref() else {
        return false;
    };
    let inside = info.from_screen(&w.rect);
    let b = info.bounds();
    inside.x < b.x || inside.y < b.y || inside.right() > b.right() || inside.bottom() > b.bottom()
}

/// A title bar's height, left above a window fitted onto the screen.
pub(super) const TITLE_BAR: i32 = 32;

/// Where to put a window that reaches past the screen's edge so all of it shows (frame
/// top-left, client size): moved onto the screen and, where it runs past the right or bottom
/// edge, sized to the screen. `None` when the whole window is on the screen.
pub(super) fn fit_onto_screen(info: &mend_model::FrameInfo) -> Option<(u32, Rect)> {
    if !past_the_screen(info) {
        return None;
    }
    let w = info.window.as_ref()?;
    let inside = info.from_screen(&w.rect);
    let b = info.bounds();
    let (past_right, past_bottom) = (inside.right() > b.right(), inside.bottom() > b.bottom());
    // The screen's right and bottom edges are where the frame was cut.
    let (screen_r, screen_b) = (
        info.origin.x + info.width as i32,
        info.origin.y + info.height as i32,
    );
    let x = if inside.x < b.x || past_right {
        0
    } else {
        w.rect.x
    };
    let width = if past_right { screen_r - 4 } else { w.rect.w };
    let height = if past_bottom {
        screen_b - TITLE_BAR
    } else {
        w.rect.h
    };
    Some((w.id, Rect::new(x, 0, width.max(1), height.max(1))))
}

/// A window still past the screen's bottom or right edge after [`fit_onto_screen`] (its least
/// size is larger than the screen): slid up so its bottom edge shows, its top past the
/// screen's top; and, `across` (or when it runs past the right edge only), left so its right
/// edge shows (a dialog's OK, the far end of its form), its left part past the screen's left
/// edge. A later target in the part slid away is brought back by the next fit.
pub(super) fn slide_onto_screen(info: &mend_model::FrameInfo, across: bool) -> Option<(u32, Rect)> {
    let w = info.window.as_ref()?;
    let (inside, b) = (info.from_screen(&w.rect), info.bounds());
    let past_bottom = inside.bottom() > b.bottom();
    let past_right = inside.right() > b.right() && (across || !past_bottom);
    if !past_bottom && !past_right {
        return None;
    }
    let (screen_r, screen_b) = (
        info.origin.x + info.width as i32,
        info.origin.y + info.height as i32,
    );
    let x = if past_right {
        screen_r - w.rect.w - 4
    } else {
        w.rect.x
    };
    let y = if past_bottom {
        screen_b - w.rect.h - TITLE_BAR
    } else {
        w.rect.y
    };
    Some((w.id, Rect::new(x, y, w.rect.w, w.rect.h)))
}

/// A refusal in a window that reaches past the screen says so: the control may lie beyond the
/// edge, where no reading can find it, and a person can make the window fit.
pub(super) fn beyond_the_screen(mut f: Fail) -> Fail {
    if f.err.code != ErrorCode::LocatorNotFound {
        return f;
    }
    let Some(info) = f.frame.as_ref().map(|fr| &fr.info) else {
        return f;
    };
    if let (Some(w), true) = (info.window.as_ref(), past_the_screen(info)) {
        f.err.message = format!(
            "{} The window ({}x{} at {},{}) reaches past the screen's edge, also after Mend asked the window manager to fit it: the control may lie beyond it. Make the window fit the screen (move or shrink it, a lower DPI or scale, a larger screen), then resume",
            f.err.message, w.rect.w, w.rect.h, w.rect.x, w.rect.y
        );
    }
    f
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use mend_model::{FrameInfo, Point, WindowInfo};

    fn frame(window: Rect, origin: Point, w: u32, h: u32) -> FrameInfo {
        FrameInfo {
            id: 1,
            monitor: "screen".into(),
            scale_factor: 1.0,
            origin,
            width: w,
            height: h,
            window: Some(WindowInfo {
                id: 42,
                title: "Save File As".into(),
                app_name: "abiword".into(),
                pid: 1,
                rect: window,
                focused: true,
                owner: Some(7),
                takes_no_focus: false,
            }),
            popups: vec![],
        }
    }

    /// AbiWord's Save File As, 822 px tall at y 20 on a 1280×800 screen: the frame is cut at
    /// the screen's bottom (780 px) and its Save button lies below it.
    #[test]
    fn a_window_past_the_screens_edge_is_told_apart() {
        let info = frame(
            Rect::new(93, 20, 1096, 822),
            Point { x: 93, y: 20 },
            1096,
            780,
        );
        assert!(past_the_screen(&info));
        let info = frame(
            Rect::new(300, 20, 2192, 1644),
            Point { x: 300, y: 20 },
            980,
            780,
        );
        assert!(past_the_screen(&info));
        let info = frame(
            Rect::new(10, -40, 300, 200),
            Point { x: 10, y: 0 },
            300,
            160,
        );
        assert!(past_the_screen(&info));
        let refusal = beyond_the_screen(Fail {
            err: MendError::new(ErrorCode::LocatorNotFound, "no control matching 'Save'."),
            acted: false,
            frame: Some(Box::new(Frame {
                info: frame(
                    Rect::new(93, 20, 1096, 822),
                    Point { x: 93, y: 20 },
                    1096,
                    780,
                ),
                image: Default::default(),
            })),
            candidates: vec![],
        });
        assert!(
            refusal
                .err
                .message
                .contains("reaches past the screen's edge"),
            "{}",
            refusal.err.message
        );
    }

    /// A window wider than the screen whose least size the window manager kept (FileZilla's
    /// Site Manager at 1.5× text, 1506 px on a 1280 px screen): slid left so its right edge
    /// shows, its top where it was; one taller and wider, up and left.
    #[test]
    fn a_window_past_the_right_edge_is_slid_left() {
        let info = frame(
            Rect::new(1, 20, 1506, 617),
            Point { x: 1, y: 20 },
            1279,
            617,
        );
        let (id, to) = slide_onto_screen(&info, false).unwrap();
        assert_eq!(id, info.window.as_ref().unwrap().id);
        assert_eq!(to, Rect::new(1280 - 1506 - 4, 20, 1506, 617));
        // Taller and wider: up first (its left part stays), then up and left.
        let info = frame(
            Rect::new(0, 0, 1506, 1100),
            Point { x: 0, y: 0 },
            1280,
            1024,
        );
        let (_, to) = slide_onto_screen(&info, false).unwrap();
        assert_eq!(to, Rect::new(0, 1024 - 1100 - TITLE_BAR, 1506, 1100));
        let (_, to) = slide_onto_screen(&info, true).unwrap();
        assert_eq!(
            to,
            Rect::new(1280 - 1506 - 4, 1024 - 1100 - TITLE_BAR, 1506, 1100)
        );
    }

    #[test]
    fn a_window_on_the_screen_is_not_past_it() {
        let info = frame(
            Rect::new(93, 20, 600, 400),
            Point { x: 93, y: 20 },
            600,
            400,
        );
        assert!(!past_the_screen(&info));
        assert_eq!(fit_onto_screen(&info), None);
        assert_eq!(slide_onto_screen(&info, true), None);
        // A frame grown for a menu hanging outside the window: the window itself is whole.
        let info = frame(
            Rect::new(93, 20, 600, 400),
            Point { x: 80, y: 20 },
            613,
            500,
        );
        assert!(!past_the_screen(&info));
        let mut whole_screen = info.clone();
        whole_screen.window = None;
        assert!(!past_the_screen(&whole_screen));
    }
}
