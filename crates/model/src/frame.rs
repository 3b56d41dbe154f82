use crate::{Point, Rect};
use serde::{Deserialize, Serialize};

/// A top-level window as the capture backend sees it. `rect` is in screen pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowInfo {
    pub id: u32,
    pub title: String,
    /// WM_CLASS / application name; empty when the toolkit sets none.
    pub app_name: String,
    /// 0 when the window does not say (Tk and xcalc windows report none).
    pub pid: u32,
    pub rect: Rect,
    pub focused: bool,
}

/// Where a captured image came from. Every box Mend computes is relative to the frame; the
/// frame alone knows how to turn that into screen pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameInfo {
    /// Unique within a process run; increases with every capture.
    pub id: u64,
    pub monitor: String,
    pub scale_factor: f32,
    /// The screen position of the frame's top-left pixel.
    pub origin: Point,
    pub width: u32,
    pub height: u32,
    /// The window this frame shows, `None` for a whole-screen frame.
    pub window: Option<WindowInfo>,
}

impl FrameInfo {
    pub fn bounds(&self) -> Rect {
        Rect::new(0, 0, self.width as i32, self.height as i32)
    }

    /// Frame pixels → screen pixels.
    pub fn to_screen(&self, r: &Rect) -> Rect {
        r.translate(self.origin.x, self.origin.y)
    }

    /// Screen pixels → frame pixels.
    pub fn from_screen(&self, r: &Rect) -> Rect {
        r.translate(-self.origin.x, -self.origin.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_round_trip() {
        let f = FrameInfo {
            id: 1,
            monitor: "m".into(),
            scale_factor: 1.0,
            origin: Point { x: 120, y: 90 },
            width: 800,
            height: 560,
            window: None,
        };
        let r = Rect::new(10, 20, 30, 40);
        assert_eq!(f.to_screen(&r), Rect::new(130, 110, 30, 40));
        assert_eq!(f.from_screen(&f.to_screen(&r)), r);
    }
}
