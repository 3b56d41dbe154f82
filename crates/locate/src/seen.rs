//! What the locator already knows of the screens it has looked at: for each window, the pixels
//! of its last frame, since when the window has shown those very pixels, and the targets proven
//! absent on them.
//!
//! Absence is the answer a check trusts most and the chain's slowest (every rung of both
//! readers runs before a control is called not there). On the very pixels it was proven on, the
//! same chain gives the same answer, so it is not asked again; and a window seen showing the
//! same pixels across two looks some time apart was steady between them — what a `not_exists`
//! check otherwise waits out before it believes a first look (issue 35, `run/screen.rs`).
//! Identity is exact (every pixel, the frame's size and its popups): a caret's blink is
//! another screen.

use crate::chain::{Recorded, Refusal};
use image::RgbaImage;
use mend_capture::Frame;
use mend_model::{Rect, Target};
use std::time::Instant;

/// Windows remembered (the least recently looked at is forgotten): a flow's main window and
/// its dialogs. Each holds one frame's pixels (~4 MB for 1280×800).
const WINDOWS: usize = 4;
/// Absent targets remembered per screen.
const ABSENT: usize = 16;

#[derive(Default)]
pub(crate) struct SeenScreens {
    /// Most recently looked at last.
    windows: Vec<Seen>,
}

struct Seen {
    window: Option<u32>,
    popups: Vec<Rect>,
    image: RgbaImage,
    /// When these pixels were first looked at, and how long they had been shown at the
    /// latest look.
    first: Instant,
    steady_ms: u64,
    /// Targets (with their recorded crop and the flow's names the chain was told) the chain
    /// found nowhere on these pixels, with its refusal.
    absent: Vec<Absent>,
}

struct Absent {
    target: Target,
    template: Option<RgbaImage>,
    names: Vec<String>,
    refusal: Refusal,
}

fn window_of(frame: &Frame) -> Option<u32> {
    frame.info.window.as_ref().map(|w| w.id)
}

impl Seen {
    fn shows(&self, frame: &Frame) -> bool {
        self.popups == frame.info.popups && self.image == frame.image
    }
}

impl SeenScreens {
    /// Note a look at `frame` (a locate's start): its window's pixels either are the ones
    /// already seen (the window has been steady since their first look) or become them.
    pub(crate) fn look(&mut self, frame: &Frame) {
        let window = window_of(frame);
        let now = Instant::now();
        let at = self.windows.iter().position(|s| s.window == window);
        let mut seen = match at {
            Some(i) => self.windows.remove(i),
            None => {
                if self.windows.len() >= WINDOWS {
                    self.windows.remove(0);
                }
                Seen {
                    window,
                    popups: Vec::new(),
                    image: RgbaImage::new(0, 0),
                    first: now,
                    steady_ms: 0,
                    absent: Vec::new(),
                }
            }
        };
        if seen.shows(frame) {
            seen.steady_ms = now.duration_since(seen.first).as_millis() as u64;
        } else {
            seen.popups = frame.info.popups.clone();
            seen.image = frame.image.clone();
            seen.first = now;
            seen.steady_ms = 0;
            seen.absent.clear();
        }
        self.windows.push(seen);
    }

    /// Where `frame`'s window is remembered, if showing these very pixels.
    fn at(&self, frame: &Frame) -> Option<usize> {
        let window = window_of(frame);
        self.windows
            .iter()
            .position(|s| s.window == window && s.shows(frame))
    }

    fn on(&self, frame: &Frame) -> Option<&Seen> {
        self.at(frame).map(|i| &self.windows[i])
    }

    /// The refusal the chain gave `target` on these very pixels, if it proved it absent here.
    pub(crate) fn absent(
        &self,
        frame: &Frame,
        target: &Target,
        recorded: &Recorded,
        names: &[String],
    ) -> Option<Refusal> {
        self.on(frame)?
            .absent
            .iter()
            .find(|a| &a.target == target && a.template == recorded.template && a.names == names)
            .map(|a| a.refusal.clone())
    }

    /// Remember that the chain found `target` nowhere on `frame` (already looked at).
    pub(crate) fn proven_absent(
        &mut self,
        frame: &Frame,
        target: &Target,
        recorded: &Recorded,
        names: &[String],
        refusal: &Refusal,
    ) {
        let Some(seen) = self.at(frame).map(|i| &mut self.windows[i]) else {
            return;
        };
        if seen.absent.len() >= ABSENT {
            seen.absent.remove(0);
        }
        seen.absent.push(Absent {
            target: target.clone(),
            template: recorded.template.clone(),
            names: names.to_vec(),
            refusal: refusal.clone(),
        });
    }

    /// How long (ms) `frame`'s window had shown these very pixels when it was last looked at:
    /// between the first look at them and the latest. 0 for pixels never looked at before.
    pub(crate) fn steady_ms(&self, frame: &Frame) -> u64 {
        self.on(frame).map_or(0, |s| s.steady_ms)
    }

    pub(crate) fn clear(&mut self) {
        self.windows.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mend_model::{ErrorCode, FrameInfo, MendError, Point, WindowInfo};

    fn frame(window: u32, shade: u8) -> Frame {
        Frame {
            info: FrameInfo {
                id: 1,
                monitor: "t".into(),
                scale_factor: 1.0,
                origin: Point { x: 0, y: 0 },
                width: 8,
                height: 8,
                window: Some(WindowInfo {
                    id: window,
                    title: "w".into(),
                    app_name: "t".into(),
                    pid: 0,
                    rect: Rect::new(0, 0, 8, 8),
                    focused: true,
                    owner: None,
                    takes_no_focus: false,
                }),
                popups: vec![],
            },
            image: RgbaImage::from_pixel(8, 8, image::Rgba([shade, shade, shade, 255])),
        }
    }

    fn not_found() -> Refusal {
        Refusal::from(MendError::new(ErrorCode::LocatorNotFound, "not here"))
    }

    fn target(text: &str) -> Target {
        Target {
            text: Some(text.into()),
            ..Default::default()
        }
    }

    #[test]
    fn absence_holds_on_the_same_pixels_only() {
        let mut s = SeenScreens::default();
        let (a, b) = (frame(1, 10), frame(1, 11));
        let rec = Recorded::default();
        s.look(&a);
        s.proven_absent(&a, &target("Save"), &rec, &[], &not_found());
        assert!(s.absent(&a, &target("Save"), &rec, &[]).is_some());
        // Another target, another crop, other names: not proven.
        assert!(s.absent(&a, &target("Open"), &rec, &[]).is_none());
        let crop = Recorded {
            template: Some(RgbaImage::new(2, 2)),
        };
        assert!(s.absent(&a, &target("Save"), &crop, &[]).is_none());
        assert!(s
            .absent(&a, &target("Save"), &rec, &["Open".into()])
            .is_none());
        // One pixel changed: another screen, nothing known of it; and the old is forgotten.
        let mut c = frame(1, 10);
        c.image.put_pixel(3, 3, image::Rgba([0, 0, 0, 255]));
        assert!(s.absent(&c, &target("Save"), &rec, &[]).is_none());
        s.look(&b);
        assert!(s.absent(&b, &target("Save"), &rec, &[]).is_none());
        s.look(&a);
        assert!(s.absent(&a, &target("Save"), &rec, &[]).is_none());
        // The same pixels in another window: not proven there.
        assert!(s
            .absent(&frame(2, 10), &target("Save"), &rec, &[])
            .is_none());
    }

    #[test]
    fn steady_counts_from_the_first_look_at_the_same_pixels() {
        let mut s = SeenScreens::default();
        let a = frame(1, 10);
        s.look(&a);
        assert_eq!(s.steady_ms(&a), 0);
        std::thread::sleep(std::time::Duration::from_millis(30));
        s.look(&a);
        assert!(s.steady_ms(&a) >= 30, "{}", s.steady_ms(&a));
        // Changed and back: steady again from the change back, not from the first look.
        s.look(&frame(1, 11));
        s.look(&a);
        assert!(s.steady_ms(&a) < 30, "{}", s.steady_ms(&a));
        // Pixels not being shown now are not steady.
        assert_eq!(s.steady_ms(&frame(1, 12)), 0);
        // A popup opened over the same pixels: another screen.
        let mut p = frame(1, 10);
        p.info.popups.push(Rect::new(0, 0, 2, 2));
        assert_eq!(s.steady_ms(&p), 0);
    }

    #[test]
    fn few_windows_are_remembered() {
        let mut s = SeenScreens::default();
        for w in 0..(WINDOWS as u32 + 1) {
            s.look(&frame(w, 10));
        }
        s.look(&frame(1, 10));
        // Window 0 was forgotten (the least recently looked at); window 1 was kept.
        assert_eq!(s.windows.len(), WINDOWS);
        assert!(s.windows.iter().all(|x| x.window != Some(0)));
        assert!(s.steady_ms(&frame(1, 10)) < 1000);
        assert!(s.on(&frame(1, 10)).is_some());
    }
}
