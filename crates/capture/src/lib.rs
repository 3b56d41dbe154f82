//! Window and screen capture behind a narrow trait.
//!
//! Two backends: [`XcapCapture`] for a live X server, and [`ImageFileCapture`], which serves a
//! checked-in screenshot (PNG plus a JSON sidecar with its [`FrameInfo`]) so everything above
//! capture can be tested without a display. Windows are found by title pattern and class, not pid:
//! Tk and xcalc windows set no `_NET_WM_PID` (STACK-NOTES; the live backend asks the X server's
//! X-Resource extension for their process instead).

mod area;
mod damage;
mod file;
mod text;
mod x11;
mod xcap_backend;

pub use damage::{damage_from_env, XDamage};
pub use file::{save_frame, ImageFileCapture};
pub use x11::X11Window;
pub use xcap_backend::XcapCapture;

use image::RgbaImage;
pub use mend_model::WindowQuery;
use mend_model::{ErrorCode, FrameInfo, MendError, WindowInfo};
use std::sync::atomic::{AtomicU64, Ordering};

/// A captured image and where it came from.
#[derive(Debug, Clone)]
pub struct Frame {
    pub info: FrameInfo,
    pub image: RgbaImage,
}

/// The capture seam. Two required methods; finding a window by query is built on them.
pub trait Capture {
    /// Top-level windows, topmost first.
    fn windows(&self) -> Result<Vec<WindowInfo>, MendError>;
    /// Capture what the operator sees of one window, by id: its client area, and in the live
    /// backend the popups (menus, drop-downs) of its own that hang outside it. The frame's
    /// `origin` maps its pixels to the screen; `window.rect` is the window's own rect.
    fn capture_window(&self, id: u32) -> Result<Frame, MendError>;

    /// The one window matching `q`. Several matches is a refusal, not a pick.
    fn find_window(&self, q: &WindowQuery) -> Result<WindowInfo, MendError> {
        q.pick(self.windows()?)
    }

    /// Find and capture in one go.
    fn capture(&self, q: &WindowQuery) -> Result<Frame, MendError> {
        let w = self.find_window(q)?;
        self.capture_window(w.id)
    }

    /// The window in front, if any: the one with the keyboard focus (its own open popups are
    /// part of it); a backend that sees another application's popup covering it reports that
    /// popup instead, so the guard refuses input.
    fn foreground(&self) -> Result<Option<WindowInfo>, MendError> {
        Ok(self.windows()?.into_iter().find(|w| w.focused))
    }
}

/// The damage seam: what was painted on the screen, so the runner settles when the application
/// has stopped painting rather than after a fixed quiet period. The live [`XDamage`] reads the
/// X DAMAGE extension; tests script a fake stream on a fake clock.
pub trait DamageStream {
    /// Watch these windows (with the popups of their own that hang on them, and any window
    /// mapped from now on) and forget what was painted before: called just before an input.
    fn watch(&mut self, windows: &[u32]) -> Result<(), MendError>;
    /// How many paints reached what is watched since the last call (or the watch). Never
    /// blocks.
    fn take(&mut self) -> Result<u32, MendError>;
    /// Whether anything was painted over `area` (screen pixels) since the watch, without
    /// taking those paints: the next [`DamageStream::take`] still counts them. Never blocks.
    fn painted_over(&mut self, area: mend_model::Rect) -> Result<bool, MendError>;
}

static NEXT_FRAME_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_frame_id() -> u64 {
    NEXT_FRAME_ID.fetch_add(1, Ordering::Relaxed)
}

pub(crate) fn capture_err(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::CaptureFailed, msg)
}
