//! What the X server says was painted (the DAMAGE extension), so a step can settle when the
//! application stops painting instead of after a fixed quiet period of identical frames.
//!
//! One damage object on the root window at the raw-rectangle level: every drawing request that
//! reaches the screen is one event with its rectangle, nothing accumulates on the server, and
//! there is no subtract round trip that could swallow a paint arriving meanwhile. Only paints
//! that touch the *watched area* count: the top-level frames of the watched windows, the
//! override-redirect popups of their client hanging on them (menus, drop-downs), and every
//! window mapped since the watch began (a dialog the input opened, wherever it appears). A
//! clock or a terminal elsewhere on the screen never keeps a step from settling. A window
//! mapped or unmapped in the area counts as a paint too (the window set changed).

use crate::area::{attached, Popup};
use crate::DamageStream;
use mend_model::{ErrorCode, MendError, Rect};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::damage::{self, ConnectionExt as _, ReportLevel};
use x11rb::protocol::xproto::{ConnectionExt as _, EventMask, MapState, Window, WindowClass};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// The settle a live run uses, from `MEND_SETTLE`: unset or `damage` (the default) settles on
/// the X server's damage events, falling back — said once on stderr — to window fingerprints
/// when the server has no DAMAGE; `fingerprints` settles on fingerprints (a quiet period of
/// identical frames). Anything else is `INVALID_ARGUMENT`, before anything is sent.
pub fn damage_from_env() -> Result<Option<XDamage>, MendError> {
    match std::env::var("MEND_SETTLE").unwrap_or_default().as_str() {
        "" | "damage" => match XDamage::connect() {
            Ok(d) => Ok(Some(d)),
            Err(e) => {
                eprintln!("settle: {}; settling on window fingerprints", e.message);
                Ok(None)
            }
        },
        "fingerprints" | "fingerprint" => Ok(None),
        other => Err(MendError::new(
            ErrorCode::InvalidArgument,
            format!("MEND_SETTLE='{other}': use damage (the default) or fingerprints"),
        )),
    }
}

/// The live stream: its own X connection, so its events never mix with the capture's replies.
pub struct XDamage {
    conn: RustConnection,
    root: Window,
    id_mask: u32,
    /// Watched windows (top-level frames, popups, windows mapped since the watch) and their
    /// screen rects.
    area: Vec<(Window, Rect)>,
    /// Paints read off the connection and not yet taken.
    pending: u32,
    /// Where the paints since the watch fell (screen rects; a map counts as its window's rect).
    painted: Vec<Rect>,
}

fn unavailable(msg: impl std::fmt::Display) -> MendError {
    MendError::new(ErrorCode::CaptureFailed, format!("X DAMAGE: {msg}"))
}

impl XDamage {
    /// Connect to `$DISPLAY` and subscribe; an error when the server has no DAMAGE extension
    /// (the runner then settles on fingerprints).
    pub fn connect() -> Result<Self, MendError> {
        let (conn, n) = x11rb::connect(None).map_err(unavailable)?;
        let root = conn.setup().roots[n].root;
        let id_mask = conn.setup().resource_id_mask;
        if conn
            .extension_information(damage::X11_EXTENSION_NAME)
            .map_err(unavailable)?
            .is_none()
        {
            return Err(unavailable("the X server has no DAMAGE extension"));
        }
        conn.damage_query_version(1, 1)
            .map_err(unavailable)?
            .reply()
            .map_err(unavailable)?;
        let id = conn.generate_id().map_err(unavailable)?;
        conn.damage_create(id, root, ReportLevel::RAW_RECTANGLES)
            .map_err(unavailable)?
            .check()
            .map_err(unavailable)?;
        // Windows mapped and unmapped: the window set changing is a paint of its own.
        conn.change_window_attributes(
            root,
            &x11rb::protocol::xproto::ChangeWindowAttributesAux::new()
                .event_mask(EventMask::SUBSTRUCTURE_NOTIFY),
        )
        .map_err(unavailable)?
        .check()
        .map_err(unavailable)?;
        Ok(XDamage {
            conn,
            root,
            id_mask,
            area: Vec::new(),
            pending: 0,
            painted: Vec::new(),
        })
    }

    fn rect_of(&self, w: Window) -> Option<Rect> {
        let g = self.conn.get_geometry(w).ok()?.reply().ok()?;
        let bw = g.border_width as i32;
        Some(Rect::new(
            g.x as i32,
            g.y as i32,
            g.width as i32 + 2 * bw,
            g.height as i32 + 2 * bw,
        ))
    }

    fn toplevel_of(&self, id: Window) -> Option<Window> {
        let mut w = id;
        for _ in 0..16 {
            let t = self.conn.query_tree(w).ok()?.reply().ok()?;
            if t.parent == self.root || t.parent == 0 {
                return Some(w);
            }
            w = t.parent;
        }
        Some(w)
    }

    /// The viewable override-redirect children of the root, marked by whether `window`'s
    /// client made them.
    fn popups_of(&self, window: Window) -> Vec<Popup> {
        let Some(tree) = self
            .conn
            .query_tree(self.root)
            .ok()
            .and_then(|c| c.reply().ok())
        else {
            return Vec::new();
        };
        let base = window & !self.id_mask;
        tree.children
            .iter()
            .filter_map(|&c| {
                let a = self.conn.get_window_attributes(c).ok()?.reply().ok()?;
                let viewable = a.map_state == MapState::VIEWABLE
                    && a.class != WindowClass::INPUT_ONLY
                    && a.override_redirect;
                viewable.then_some(())?;
                Some(Popup {
                    id: c,
                    rect: self.rect_of(c)?,
                    same_client: c & !self.id_mask == base,
                })
            })
            .collect()
    }

    fn touches(&self, r: Rect) -> bool {
        self.area.iter().any(|(_, a)| a.intersect(&r).is_some())
    }

    /// Read what the server sent so far into `pending` and `painted`.
    fn read_events(&mut self) -> Result<(), MendError> {
        while let Some(e) = self.conn.poll_for_event().map_err(unavailable)? {
            match e {
                Event::DamageNotify(d) => {
                    let a = d.area;
                    let r = Rect::new(a.x as i32, a.y as i32, a.width as i32, a.height as i32);
                    if self.touches(r) {
                        self.paint(r);
                    }
                }
                Event::MapNotify(m) if m.event == self.root => {
                    // A window the input opened: watched from now on, wherever it is.
                    if let Some(r) = self.rect_of(m.window) {
                        self.area.push((m.window, r));
                        self.paint(r);
                    } else {
                        self.pending += 1;
                    }
                }
                Event::UnmapNotify(u) if u.event == self.root => {
                    if let Some(&(_, r)) = self.area.iter().find(|(w, _)| *w == u.window) {
                        self.paint(r);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn paint(&mut self, r: Rect) {
        self.pending += 1;
        // A bound on what one step keeps: a window painting all along is one rect.
        if self.painted.len() < 256 {
            self.painted.push(r);
        } else if let Some(last) = self.painted.last_mut() {
            *last = last.union(&r);
        }
    }
}

impl DamageStream for XDamage {
    fn watch(&mut self, windows: &[u32]) -> Result<(), MendError> {
        // What was painted before the watch is not the input's doing.
        while self.conn.poll_for_event().map_err(unavailable)?.is_some() {}
        self.area.clear();
        self.pending = 0;
        self.painted.clear();
        for &w in windows {
            let Some(top) = self.toplevel_of(w) else {
                continue; // gone: nothing of it to watch
            };
            let Some(rect) = self.rect_of(top) else {
                continue;
            };
            self.area.push((top, rect));
            let popups = self.popups_of(w);
            for i in attached(rect, &popups) {
                self.area.push((popups[i].id, popups[i].rect));
            }
        }
        if self.area.is_empty() {
            return Err(unavailable("none of the windows to watch is on the screen"));
        }
        Ok(())
    }

    fn take(&mut self) -> Result<u32, MendError> {
        self.read_events()?;
        Ok(std::mem::take(&mut self.pending))
    }

    fn painted_over(&mut self, area: Rect) -> Result<bool, MendError> {
        self.read_events()?;
        Ok(self.painted.iter().any(|p| p.intersect(&area).is_some()))
    }
}
