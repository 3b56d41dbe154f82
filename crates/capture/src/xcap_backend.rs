use crate::area::{self, Popup};
use crate::x11::{self, with_session, Session, X11Window, XErr};
use crate::{capture_err, next_frame_id, Capture, Frame};
use mend_model::{ErrorCode, FrameInfo, MendError, Point, Rect, WindowInfo};

/// The live backend on an X server. Windows are read through x11rb (names as every toolkit
/// sets them: `_NET_WM_NAME`, else `WM_NAME` as STRING, COMPOUND_TEXT or UTF8_STRING; the class
/// from `WM_CLASS`); a window's frame is read from the root window over the window's area grown
/// by its open popups (see [`XcapCapture::capture_window`]); the whole screen through `xcap`.
/// Needs a window manager (`_NET_CLIENT_LIST_STACKING`).
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
            popups: vec![],
        };
        Ok(Frame { info, image })
    }

    /// Any area of the screen as the operator sees it (clipped to the screen); no window.
    pub fn capture_region(&self, r: Rect) -> Result<Frame, MendError> {
        with_session("capture a region", |s| {
            let area = r
                .clamp_to(&s.screen)
                .ok_or_else(|| XErr::Coded(capture_err(format!("{r:?} is outside the screen"))))?;
            let image = s.root_image(area)?;
            Ok(frame(s, area, image, None, vec![]))
        })
    }

    /// Top-level windows with their X details (class instance, transient-for, client),
    /// topmost first; minimized ones included.
    pub fn x11_windows(&self) -> Result<Vec<X11Window>, MendError> {
        with_session("list windows", |s| {
            let ids = s.client_list()?;
            let active = s.active()?;
            let mut all: Vec<X11Window> = s
                .read_windows(&ids, active)?
                .into_iter()
                .flatten()
                .collect();
            all.reverse();
            Ok(all)
        })
    }

    /// The popups (override-redirect windows: menus, drop-downs, tooltips) of window `id`'s
    /// client that are open over or beside it: the ones its frame grows to include. Their
    /// `rect`s are screen pixels, border included.
    pub fn open_popups(&self, id: u32) -> Result<Vec<WindowInfo>, MendError> {
        with_session("list popups", |s| {
            let w = read_or_gone(s, id)?;
            let popups = s.popups(id, &s.root_children()?)?;
            let own: Vec<&Popup> = area::attached(w.info.rect, &popups)
                .into_iter()
                .map(|i| &popups[i])
                .collect();
            own.into_iter()
                .map(|p| popup_info(s, p, None))
                .collect::<Result<Vec<_>, XErr>>()
        })
    }
}

/// [`XcapCapture::capture_window`]'s requests, on one session.
fn capture_window_in(s: &Session, id: u32) -> Result<Frame, XErr> {
    let w = read_or_gone(s, id)?;
    // Not on the screen (minimized, or mapped and unmapped again between the listing
    // and this read): not there, which a step waits out like a window not open yet.
    if !s.viewable(id)? {
        return Err(XErr::Coded(MendError::new(
            ErrorCode::WindowNotFound,
            format!(
                "window '{}' is not shown (minimized, or not mapped yet): restore it or wait for it to open",
                w.info.title
            ),
        )));
    }
    let popups = s.popups(id, &s.root_children()?)?;
    let area = area::frame_area(w.info.rect, &popups, s.screen).ok_or_else(|| {
        XErr::Coded(capture_err(format!(
            "window '{}' is outside the screen ({:?})",
            w.info.title, w.info.rect
        )))
    })?;
    let image = s.root_image(area)?;
    let bounds = Rect::new(0, 0, image.width() as i32, image.height() as i32);
    let own: Vec<Rect> = area::attached(w.info.rect, &popups)
        .into_iter()
        .filter_map(|i| {
            popups[i]
                .rect
                .translate(-area.x, -area.y)
                .intersect(&bounds)
        })
        .collect();
    Ok(frame(s, area, image, Some(w.info), own))
}

fn read_or_gone(s: &Session, id: u32) -> Result<X11Window, XErr> {
    let active = s.active()?;
    s.read_window(id, active).map_err(|e| {
        if e.is_gone() {
            XErr::Coded(x11::gone(id))
        } else {
            e
        }
    })
}

fn frame(
    s: &Session,
    area: Rect,
    image: image::RgbaImage,
    window: Option<WindowInfo>,
    popups: Vec<Rect>,
) -> Frame {
    Frame {
        info: FrameInfo {
            id: next_frame_id(),
            monitor: s.monitor_of(&area),
            scale_factor: s.scale_factor,
            origin: Point {
                x: area.x,
                y: area.y,
            },
            width: image.width(),
            height: image.height(),
            window,
            popups,
        },
        image,
    }
}

/// A popup as a window: its own name and class when it has them; else named after its owner.
fn popup_info(s: &Session, p: &Popup, owner: Option<&str>) -> Result<WindowInfo, XErr> {
    let mut info = match s.read_window(p.id, None) {
        Ok(w) => w.info,
        Err(e) if e.is_gone() => WindowInfo {
            id: p.id,
            title: String::new(),
            app_name: String::new(),
            pid: 0,
            rect: p.rect,
            focused: false,
            owner: None,
            takes_no_focus: false,
        },
        Err(e) => return Err(e),
    };
    info.rect = p.rect;
    if info.title.is_empty() {
        info.title = match owner {
            Some(o) => format!("a popup of '{o}' (window {})", x11::hex(p.id)),
            None => format!("a popup (window {})", x11::hex(p.id)),
        };
    }
    Ok(info)
}

impl Capture for XcapCapture {
    /// Managed top-level windows on the screen, topmost first: minimized ones, and ones the
    /// window manager lists but has not mapped yet (a dialog that is opening), left out — a
    /// step waits for such a window as for one not there yet.
    fn windows(&self) -> Result<Vec<WindowInfo>, MendError> {
        Ok(self
            .x11_windows()?
            .into_iter()
            .filter(|w| !w.minimized && w.viewable)
            .map(|w| w.info)
            .collect())
    }

    /// What the operator sees of window `id`: its area read from the root window (so menus,
    /// drop-downs and tooltips over it are in the picture), grown to include the popups of the
    /// same client that hang outside it (a menu below a small window). The frame's origin is the
    /// grown area's top-left; `window.rect` stays the window's own rect.
    fn capture_window(&self, id: u32) -> Result<Frame, MendError> {
        // A window that vanishes at any request of the capture (a dialog closing under a check:
        // `BadWindow` on its mapping or its popups) is gone, which a check takes as absent and
        // a step waits out — never a capture that failed.
        with_session("capture a window", |s| {
            capture_window_in(s, id).map_err(|e| {
                if e.is_gone() {
                    XErr::Coded(x11::gone(id))
                } else {
                    e
                }
            })
        })
    }

    /// The window in front: the one with the focus, its own open popups counting as part of
    /// it — unless a popup of another client covers part of it: then that popup, which is
    /// what a click there would reach.
    fn foreground(&self) -> Result<Option<WindowInfo>, MendError> {
        with_session("read the foreground window", |s| {
            let Some(active) = s.active()? else {
                return popup_holder(s);
            };
            let w = match s.read_window(active, Some(active)) {
                Ok(w) => w,
                Err(e) if e.is_gone() => return Ok(None),
                Err(e) => return Err(e),
            };
            let children = s.root_children()?;
            let top = match s.toplevel_of(active) {
                Ok(t) => t,
                Err(e) if e.is_gone() => return Ok(None),
                Err(e) => return Err(e),
            };
            // Only what is stacked above the window's frame can cover it.
            let above = children
                .iter()
                .position(|c| c.id == top)
                .map_or(&children[..], |i| &children[i + 1..]);
            let popups = s.popups(active, above)?;
            match area::foreign_in_front(w.info.rect, &popups) {
                None => Ok(Some(w.info)),
                Some(p) => {
                    let owner = owner_title(s, p.id)?;
                    Ok(Some(popup_info(s, p, owner.as_deref())?))
                }
            }
        })
    }
}

/// No window has the focus: while a posted menu holds the pointer and keyboard (Motif and
/// Athena menus grab; the window manager then marks no window active), what is in front is the
/// managed window whose own popup is topmost — input goes to that popup, which is part of it.
/// Any other topmost popup (another client's, or none) leaves no window in front.
fn popup_holder(s: &Session) -> Result<Option<WindowInfo>, XErr> {
    let children = s.root_children()?;
    let Some(top) = children.iter().rev().find(|c| c.override_redirect) else {
        return Ok(None);
    };
    let ids = s.client_list()?;
    for w in s.read_windows(&ids, None)?.into_iter().flatten() {
        if w.minimized || !w.viewable {
            continue;
        }
        let popups = s.popups(w.info.id, &children)?;
        if area::attached(w.info.rect, &popups)
            .into_iter()
            .any(|i| popups[i].id == top.id)
        {
            return Ok(Some(w.info));
        }
    }
    Ok(None)
}

/// The title of a managed window of the same client as `id`, to name a popup that has none.
fn owner_title(s: &Session, id: u32) -> Result<Option<String>, XErr> {
    let client = s.client_of(id);
    let ids: Vec<u32> = s
        .client_list()?
        .into_iter()
        .filter(|&w| s.client_of(w) == client)
        .collect();
    Ok(s.read_windows(&ids, None)?
        .into_iter()
        .flatten()
        .map(|w| w.info.title)
        .find(|t| !t.is_empty()))
}
