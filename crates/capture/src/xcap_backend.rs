use crate::{capture_err, next_frame_id, Capture, Frame};
use mend_model::{FrameInfo, MendError, Point, Rect, WindowInfo};

/// The live backend: X11 through `xcap`. Needs a window manager (`_NET_CLIENT_LIST_STACKING`).
#[derive(Debug, Default, Clone, Copy)]
pub struct XcapCapture;

impl XcapCapture {
    /// The whole primary screen.
    pub fn capture_screen(&self) -> Result<Frame, MendError> {
        let monitors =
            xcap::Monitor::all().map_err(|e| capture_err(format!("list monitors: {e}")))?;
        let m = monitors
            .into_iter()
            .next()
            .ok_or_else(|| capture_err("no monitor: is DISPLAY set to a running X server?"))?;
        let image = m
            .capture_image()
            .map_err(|e| capture_err(format!("capture screen: {e}")))?;
        let info = FrameInfo {
            id: next_frame_id(),
            monitor: m.name().unwrap_or_default(),
            scale_factor: m.scale_factor().unwrap_or(1.0),
            origin: Point {
                x: m.x().unwrap_or(0),
                y: m.y().unwrap_or(0),
            },
            width: image.width(),
            height: image.height(),
            window: None,
        };
        Ok(Frame { info, image })
    }
}

fn window_info(w: &xcap::Window) -> Result<WindowInfo, xcap::XCapError> {
    Ok(WindowInfo {
        id: w.id()?,
        title: w.title()?,
        app_name: w.app_name().unwrap_or_default(),
        pid: w.pid().unwrap_or(0),
        rect: Rect::new(w.x()?, w.y()?, w.width()? as i32, w.height()? as i32),
        focused: w.is_focused().unwrap_or(false),
    })
}

/// Listing windows races with windows being created and destroyed (a dialog closing while
/// xcap reads its properties fails the whole list). Such failures pass in milliseconds: try a
/// few times before calling capture failed.
fn all_windows() -> Result<Vec<xcap::Window>, xcap::XCapError> {
    let mut last = None;
    for _ in 0..4 {
        match xcap::Window::all() {
            Ok(w) => return Ok(w),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    Err(last.expect("tried"))
}

impl Capture for XcapCapture {
    fn windows(&self) -> Result<Vec<WindowInfo>, MendError> {
        let all = all_windows().map_err(|e| {
            capture_err(format!(
                "list windows: {e} (a window manager must be running on the display)"
            ))
        })?;
        // Windows can vanish between listing and reading: skip those that do.
        Ok(all
            .iter()
            .filter(|w| !w.is_minimized().unwrap_or(false))
            .filter_map(|w| window_info(w).ok())
            .collect())
    }

    fn capture_window(&self, id: u32) -> Result<Frame, MendError> {
        let all = all_windows().map_err(|e| capture_err(format!("list windows: {e}")))?;
        let w = all
            .into_iter()
            .find(|w| w.id().ok() == Some(id))
            .ok_or_else(|| {
                MendError::new(
                    mend_model::ErrorCode::WindowNotFound,
                    format!("window {id} is gone"),
                )
            })?;
        let info = window_info(&w).map_err(|e| capture_err(format!("read window {id}: {e}")))?;
        let image = w
            .capture_image()
            .map_err(|e| capture_err(format!("capture window '{}': {e}", info.title)))?;
        let (monitor, scale_factor) = match w.current_monitor() {
            Ok(m) => (
                m.name().unwrap_or_default(),
                m.scale_factor().unwrap_or(1.0),
            ),
            Err(_) => (String::new(), 1.0),
        };
        Ok(Frame {
            info: FrameInfo {
                id: next_frame_id(),
                monitor,
                scale_factor,
                origin: Point {
                    x: info.rect.x,
                    y: info.rect.y,
                },
                width: image.width(),
                height: image.height(),
                window: Some(info),
            },
            image,
        })
    }
}
