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
    /// The window this one is a dialog of (`WM_TRANSIENT_FOR`), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<u32>,
    /// The window never takes the focus (WM_HINTS input false; a dock, tool bar or menu by
    /// its EWMH type): a floating menu or a palette of its application, clicked while another
    /// window of that application has the focus ([`crate`]'s guard allows that, clicks only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub takes_no_focus: bool,
}

/// Where a captured image came from. Every box Mend computes is relative to the frame; the
/// frame alone knows how to turn that into screen pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameInfo {
    /// Unique within a process run; increases with every capture.
    pub id: u64,
    pub monitor: String,
    pub scale_factor: f32,
    /// The screen position of the frame's top-left pixel. For a window's frame this is the
    /// window's top-left, or further up/left when the frame grew to include a popup of the
    /// window (a menu or drop-down hanging outside it): map with [`FrameInfo::to_screen`] and
    /// [`FrameInfo::from_screen`], never by the window's rect.
    pub origin: Point,
    pub width: u32,
    pub height: u32,
    /// The window this frame shows (its own rect, not the frame's), `None` for a whole-screen
    /// frame.
    pub window: Option<WindowInfo>,
    /// The window's own popups in the picture (menus, drop-down lists), frame pixels: each is
    /// read on its own, away from the window's other text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub popups: Vec<Rect>,
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

    /// Where the window itself lies in the frame (frame pixels): the whole frame unless the
    /// frame grew to include the window's popups. `None` for a whole-screen frame.
    pub fn window_in_frame(&self) -> Option<Rect> {
        self.window.as_ref().map(|w| self.from_screen(&w.rect))
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
            popups: vec![],
        };
        let r = Rect::new(10, 20, 30, 40);
        assert_eq!(f.to_screen(&r), Rect::new(130, 110, 30, 40));
        assert_eq!(f.from_screen(&f.to_screen(&r)), r);
        assert_eq!(f.window_in_frame(), None);
    }

    #[test]
    fn a_frame_grown_by_a_popup_keeps_the_window_anchored() {
        // A 400×120 window at (300, 200) with its menu hanging from (320, 150) to y = 500: the
        // frame starts at the menu's top, so the window sits 50 px down in it.
        let window = Rect::new(300, 200, 400, 120);
        let f = FrameInfo {
            id: 2,
            monitor: "m".into(),
            scale_factor: 1.0,
            origin: Point { x: 300, y: 150 },
            width: 400,
            height: 350,
            window: Some(WindowInfo {
                id: 7,
                title: "app".into(),
                app_name: "App".into(),
                pid: 0,
                rect: window,
                focused: true,
                owner: None,
                takes_no_focus: false,
            }),
            popups: vec![],
        };
        assert_eq!(f.window_in_frame(), Some(Rect::new(0, 50, 400, 120)));
        // A menu item found at frame (30, 320) is clicked at screen (330, 470).
        assert_eq!(
            f.to_screen(&Rect::new(30, 320, 60, 16)),
            Rect::new(330, 470, 60, 16)
        );
        assert_eq!(f.to_screen(&f.window_in_frame().unwrap()), window);
    }
}
