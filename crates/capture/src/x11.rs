//! The X server through x11rb: windows with their names read the way every toolkit sets them,
//! override-redirect popups, and pixels read from the root window (what the operator sees).
//!
//! One connection per process and display, made on first use and remade when it breaks;
//! requests are pipelined (all sent, then all replies read), so listing windows costs about one
//! round trip however many there are.

use crate::area::Popup;
use crate::text::{self, TextType};
use image::RgbaImage;
use mend_model::{ErrorCode, MendError, Rect, WindowInfo};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::cookie::Cookie;
use x11rb::errors::{ConnectionError, ReplyError};
use x11rb::protocol::res::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, GetPropertyReply, ImageFormat, ImageOrder, MapState, Window,
    WindowClass,
};
use x11rb::protocol::ErrorKind;
use x11rb::rust_connection::RustConnection;
use x11rb::x11_utils::X11Error;

x11rb::atom_manager! {
    pub(crate) Atoms: AtomsCookie {
        _NET_CLIENT_LIST_STACKING,
        _NET_ACTIVE_WINDOW,
        _NET_WM_NAME,
        _NET_WM_PID,
        _NET_WM_WINDOW_TYPE,
        _NET_WM_WINDOW_TYPE_DOCK,
        _NET_WM_WINDOW_TYPE_TOOLBAR,
        _NET_WM_WINDOW_TYPE_MENU,
        _NET_WM_STATE,
        _NET_WM_STATE_HIDDEN,
        UTF8_STRING,
        COMPOUND_TEXT,
    }
}

/// What went wrong talking to X.
#[derive(Debug)]
pub(crate) enum XErr {
    /// The connection broke (the server went away): make a new one.
    Connection(String),
    /// The server refused a request: `BadWindow` when a window vanished meanwhile.
    Protocol(X11Error),
    /// A coded refusal decided here.
    Coded(MendError),
}

impl From<ConnectionError> for XErr {
    fn from(e: ConnectionError) -> Self {
        XErr::Connection(e.to_string())
    }
}

impl From<ReplyError> for XErr {
    fn from(e: ReplyError) -> Self {
        match e {
            ReplyError::ConnectionError(e) => e.into(),
            ReplyError::X11Error(e) => XErr::Protocol(e),
        }
    }
}

impl From<MendError> for XErr {
    fn from(e: MendError) -> Self {
        XErr::Coded(e)
    }
}

impl XErr {
    /// The window asked about no longer exists.
    pub(crate) fn is_gone(&self) -> bool {
        matches!(self, XErr::Protocol(e) if matches!(e.error_kind, ErrorKind::Window | ErrorKind::Drawable))
    }

    fn into_mend(self, what: &str) -> MendError {
        match self {
            XErr::Coded(e) => e,
            XErr::Connection(e) => crate::capture_err(format!("{what}: X connection: {e}")),
            XErr::Protocol(e) => crate::capture_err(format!(
                "{what}: the X server refused a request ({:?})",
                e.error_kind
            )),
        }
    }
}

/// A top-level window with what X says about it beyond [`WindowInfo`].
#[derive(Debug, Clone, PartialEq)]
pub struct X11Window {
    pub info: WindowInfo,
    /// The instance half of `WM_CLASS` (the class half is `info.app_name`).
    pub instance: String,
    /// The X client that created the window, as its resource-id base: windows with the same
    /// value come from one connection.
    pub client: u32,
    /// `_NET_WM_STATE_HIDDEN` (minimized).
    pub minimized: bool,
    /// Mapped with all its ancestors (the window manager's frame): on the screen. A window is
    /// listed by the window manager before it maps it, and a dialog being built or hidden
    /// again is listed but not shown.
    pub viewable: bool,
}

/// A child of the root window (a window manager frame or an override-redirect window).
#[derive(Debug, Clone)]
pub(crate) struct RootChild {
    pub id: u32,
    /// Screen pixels, border included.
    pub rect: Rect,
    pub override_redirect: bool,
}

pub(crate) struct Session {
    display: String,
    conn: RustConnection,
    root: Window,
    /// The root window's area: every capture is clipped to it.
    pub screen: Rect,
    id_mask: u32,
    atoms: Atoms,
    has_res: bool,
    /// Monitor names and areas (RandR, through xcap), read once per connection.
    monitors: Vec<(String, Rect)>,
    pub scale_factor: f32,
}

static SESSION: Mutex<Option<Arc<Session>>> = Mutex::new(None);

fn display_name() -> String {
    std::env::var("DISPLAY").unwrap_or_default()
}

fn connect() -> Result<Session, MendError> {
    let display = display_name();
    let (conn, n) = x11rb::connect(None).map_err(|e| {
        crate::capture_err(format!(
            "connect to the X server '{display}': {e} (is DISPLAY set to a running X server?)"
        ))
    })?;
    let fail = |e: XErr| e.into_mend("set up the X connection");
    let (root, screen) = {
        let s = &conn.setup().roots[n];
        (
            s.root,
            Rect::new(0, 0, s.width_in_pixels as i32, s.height_in_pixels as i32),
        )
    };
    let id_mask = conn.setup().resource_id_mask;
    let atoms = Atoms::new(&conn)
        .map_err(|e| fail(e.into()))?
        .reply()
        .map_err(|e| fail(e.into()))?;
    let has_res = conn
        .extension_information(res::X11_EXTENSION_NAME)
        .map_err(|e| fail(e.into()))?
        .is_some();
    let (monitors, scale_factor) = monitors();
    Ok(Session {
        display,
        conn,
        root,
        screen,
        id_mask,
        atoms,
        has_res,
        monitors,
        scale_factor,
    })
}

fn monitors() -> (Vec<(String, Rect)>, f32) {
    let Ok(all) = xcap::Monitor::all() else {
        return (Vec::new(), 1.0);
    };
    let scale = all
        .first()
        .and_then(|m| m.scale_factor().ok())
        .unwrap_or(1.0);
    let list = all
        .iter()
        .map(|m| {
            (
                m.name().unwrap_or_default(),
                Rect::new(
                    m.x().unwrap_or(0),
                    m.y().unwrap_or(0),
                    m.width().unwrap_or(0) as i32,
                    m.height().unwrap_or(0) as i32,
                ),
            )
        })
        .collect();
    (list, scale)
}

fn session() -> Result<Arc<Session>, MendError> {
    let mut slot = SESSION.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = slot.as_ref() {
        if s.display == display_name() {
            return Ok(s.clone());
        }
    }
    let s = Arc::new(connect()?);
    *slot = Some(s.clone());
    Ok(s)
}

fn forget(s: &Arc<Session>) {
    let mut slot = SESSION.lock().unwrap_or_else(|p| p.into_inner());
    if slot.as_ref().is_some_and(|cur| Arc::ptr_eq(cur, s)) {
        *slot = None;
    }
}

/// Run `f` on the session; a broken connection is remade once. `what` names the operation
/// in errors.
pub(crate) fn with_session<T>(
    what: &str,
    f: impl Fn(&Session) -> Result<T, XErr>,
) -> Result<T, MendError> {
    let mut last = None;
    for _ in 0..2 {
        let s = session()?;
        match f(&s) {
            Ok(v) => return Ok(v),
            Err(XErr::Connection(e)) => {
                forget(&s);
                last = Some(XErr::Connection(e));
            }
            Err(e) => return Err(e.into_mend(what)),
        }
    }
    Err(last.expect("tried").into_mend(what))
}

/// The text of a name property, decoded by its type.
fn text_of(s: &Session, r: &GetPropertyReply) -> String {
    let kind = if r.type_ == s.atoms.UTF8_STRING {
        TextType::Utf8
    } else if r.type_ == u32::from(AtomEnum::STRING) {
        TextType::Latin1
    } else if r.type_ == s.atoms.COMPOUND_TEXT {
        TextType::Compound
    } else {
        TextType::Unknown
    };
    if r.format != 8 {
        return String::new();
    }
    text::decode(kind, &r.value)
}

fn first32(r: &GetPropertyReply) -> Option<u32> {
    r.value32().and_then(|mut v| v.next())
}

type C<'a, R> = Cookie<'a, RustConnection, R>;

/// Requests in flight for one window.
struct Pending<'a> {
    id: u32,
    net_name: C<'a, GetPropertyReply>,
    name: C<'a, GetPropertyReply>,
    class: C<'a, GetPropertyReply>,
    pid: C<'a, GetPropertyReply>,
    state: C<'a, GetPropertyReply>,
    transient: C<'a, GetPropertyReply>,
    hints: C<'a, GetPropertyReply>,
    kind: C<'a, GetPropertyReply>,
    geometry: C<'a, x11rb::protocol::xproto::GetGeometryReply>,
    origin: C<'a, x11rb::protocol::xproto::TranslateCoordinatesReply>,
    attributes: C<'a, x11rb::protocol::xproto::GetWindowAttributesReply>,
    client_pid: Option<C<'a, res::QueryClientIdsReply>>,
}

impl Session {
    /// The client's resource-id base: the same for every window one connection creates.
    pub(crate) fn client_of(&self, id: u32) -> u32 {
        id & !self.id_mask
    }

    fn root_property(&self, atom: u32) -> Result<GetPropertyReply, XErr> {
        Ok(self
            .conn
            .get_property(false, self.root, atom, AtomEnum::ANY, 0, 4096)?
            .reply()?)
    }

    /// A window that never takes the focus: its WM_HINTS say it accepts no input (the flag
    /// InputHint set, input false) or it is a dock, a tool bar or a menu by its EWMH type —
    /// GNUstep's floating main menu, a palette.
    fn takes_no_focus(&self, hints: &GetPropertyReply, kind: &GetPropertyReply) -> bool {
        const INPUT_HINT: u32 = 1;
        let no_input = hints
            .value32()
            .map(|v| v.take(2).collect::<Vec<u32>>())
            .is_some_and(|v| v.len() == 2 && v[0] & INPUT_HINT != 0 && v[1] == 0);
        let a = &self.atoms;
        let side = [
            a._NET_WM_WINDOW_TYPE_DOCK,
            a._NET_WM_WINDOW_TYPE_TOOLBAR,
            a._NET_WM_WINDOW_TYPE_MENU,
        ];
        no_input
            || kind
                .value32()
                .is_some_and(|mut v| v.any(|t| side.contains(&t)))
    }

    /// The window that has the focus by the window manager's account (`_NET_ACTIVE_WINDOW`).
    pub(crate) fn active(&self) -> Result<Option<u32>, XErr> {
        let r = self.root_property(self.atoms._NET_ACTIVE_WINDOW)?;
        Ok(first32(&r).filter(|&w| w != 0))
    }

    /// Managed top-level windows, bottom to top (`_NET_CLIENT_LIST_STACKING`).
    pub(crate) fn client_list(&self) -> Result<Vec<u32>, XErr> {
        let r = self.root_property(self.atoms._NET_CLIENT_LIST_STACKING)?;
        let ids: Option<Vec<u32>> = r.value32().map(|v| v.collect());
        match ids {
            Some(ids) if r.type_ != u32::from(AtomEnum::NONE) => Ok(ids),
            _ => Err(XErr::Coded(crate::capture_err(
                "_NET_CLIENT_LIST_STACKING not supported (a window manager must be running on the display)",
            ))),
        }
    }

    fn send(&self, id: u32) -> Result<Pending<'_>, XErr> {
        let c = &self.conn;
        let prop = |atom: u32| c.get_property(false, id, atom, AtomEnum::ANY, 0, 1024);
        Ok(Pending {
            id,
            net_name: prop(self.atoms._NET_WM_NAME)?,
            name: prop(AtomEnum::WM_NAME.into())?,
            class: prop(AtomEnum::WM_CLASS.into())?,
            pid: prop(self.atoms._NET_WM_PID)?,
            state: prop(self.atoms._NET_WM_STATE)?,
            transient: prop(AtomEnum::WM_TRANSIENT_FOR.into())?,
            hints: prop(AtomEnum::WM_HINTS.into())?,
            kind: prop(self.atoms._NET_WM_WINDOW_TYPE)?,
            geometry: c.get_geometry(id)?,
            origin: c.translate_coordinates(id, self.root, 0, 0)?,
            attributes: c.get_window_attributes(id)?,
            client_pid: if self.has_res {
                Some(c.res_query_client_ids(&[res::ClientIdSpec {
                    client: id,
                    mask: res::ClientIdMask::LOCAL_CLIENT_PID,
                }])?)
            } else {
                None
            },
        })
    }

    fn receive(&self, p: Pending<'_>, active: Option<u32>) -> Result<X11Window, XErr> {
        let net_name = p.net_name.reply()?;
        let name = p.name.reply()?;
        let class = p.class.reply()?;
        let pid = p.pid.reply()?;
        let state = p.state.reply()?;
        let transient = p.transient.reply()?;
        let hints = p.hints.reply()?;
        let kind = p.kind.reply()?;
        let geometry = p.geometry.reply()?;
        let origin = p.origin.reply()?;
        let attributes = p.attributes.reply()?;
        // XRes answers for local clients only; a failure there is no reason to lose the window.
        let client_pid = p
            .client_pid
            .and_then(|c| c.reply().ok())
            .and_then(|r| r.ids.into_iter().find_map(|v| v.value.first().copied()));
        let mut title = text_of(self, &net_name);
        if title.is_empty() {
            title = text_of(self, &name);
        }
        let (instance, app_name) = text::wm_class(&class.value);
        let hidden = self.atoms._NET_WM_STATE_HIDDEN;
        Ok(X11Window {
            info: WindowInfo {
                id: p.id,
                title,
                app_name,
                pid: first32(&pid).or(client_pid).unwrap_or(0),
                rect: Rect::new(
                    origin.dst_x as i32,
                    origin.dst_y as i32,
                    geometry.width as i32,
                    geometry.height as i32,
                ),
                focused: active == Some(p.id),
                owner: first32(&transient).filter(|&w| w != 0),
                takes_no_focus: self.takes_no_focus(&hints, &kind),
            },
            instance,
            client: self.client_of(p.id),
            minimized: state.value32().is_some_and(|mut v| v.any(|a| a == hidden)),
            viewable: attributes.map_state == MapState::VIEWABLE,
        })
    }

    /// Read several windows in one round trip; a window that vanished meanwhile is `None`.
    pub(crate) fn read_windows(
        &self,
        ids: &[u32],
        active: Option<u32>,
    ) -> Result<Vec<Option<X11Window>>, XErr> {
        let pending = ids
            .iter()
            .map(|&id| self.send(id))
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::with_capacity(pending.len());
        for p in pending {
            match self.receive(p, active) {
                Ok(w) => out.push(Some(w)),
                Err(XErr::Protocol(_)) => out.push(None),
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// One window; `XErr::Protocol` (BadWindow) when it does not exist.
    pub(crate) fn read_window(&self, id: u32, active: Option<u32>) -> Result<X11Window, XErr> {
        let p = self.send(id)?;
        self.receive(p, active)
    }

    /// Whether the window is shown (mapped, and its ancestors too).
    pub(crate) fn viewable(&self, id: u32) -> Result<bool, XErr> {
        let a = self.conn.get_window_attributes(id)?.reply()?;
        Ok(a.map_state == MapState::VIEWABLE)
    }

    /// The viewable children of the root window, bottom to top: window manager frames and
    /// override-redirect windows (menus, drop-downs, tooltips). Input-only windows are left out.
    pub(crate) fn root_children(&self) -> Result<Vec<RootChild>, XErr> {
        let tree = self.conn.query_tree(self.root)?.reply()?;
        let pending = tree
            .children
            .iter()
            .map(|&w| {
                Ok((
                    w,
                    self.conn.get_window_attributes(w)?,
                    self.conn.get_geometry(w)?,
                ))
            })
            .collect::<Result<Vec<_>, XErr>>()?;
        let mut out = Vec::new();
        for (id, attrs, geometry) in pending {
            let (Ok(a), Ok(g)) = (attrs.reply(), geometry.reply()) else {
                continue; // destroyed meanwhile
            };
            if a.map_state != MapState::VIEWABLE || a.class == WindowClass::INPUT_ONLY {
                continue;
            }
            let bw = g.border_width as i32;
            out.push(RootChild {
                id,
                rect: Rect::new(
                    g.x as i32,
                    g.y as i32,
                    g.width as i32 + 2 * bw,
                    g.height as i32 + 2 * bw,
                ),
                override_redirect: a.override_redirect,
            });
        }
        Ok(out)
    }

    /// The child of the root that holds `id` (its window manager frame, or itself).
    pub(crate) fn toplevel_of(&self, id: u32) -> Result<u32, XErr> {
        let mut w = id;
        for _ in 0..16 {
            let t = self.conn.query_tree(w)?.reply()?;
            if t.parent == self.root || t.parent == 0 {
                return Ok(w);
            }
            w = t.parent;
        }
        Ok(w)
    }

    /// The process of the client that created `id` (X-Resource), for local clients.
    fn pids(&self, ids: &[u32]) -> Result<HashMap<u32, u32>, XErr> {
        let mut out = HashMap::new();
        if !self.has_res {
            return Ok(out);
        }
        let pending = ids
            .iter()
            .map(|&id| {
                Ok((
                    id,
                    self.conn.res_query_client_ids(&[res::ClientIdSpec {
                        client: id,
                        mask: res::ClientIdMask::LOCAL_CLIENT_PID,
                    }])?,
                ))
            })
            .collect::<Result<Vec<_>, XErr>>()?;
        for (id, c) in pending {
            if let Some(pid) = c
                .reply()
                .ok()
                .and_then(|r| r.ids.into_iter().find_map(|v| v.value.first().copied()))
            {
                out.insert(id, pid);
            }
        }
        Ok(out)
    }

    /// The override-redirect windows among `children`, each marked with whether it belongs
    /// to the client of `window`: the same resource-id base (the same connection), or else the
    /// same process (a toolkit that opens one connection per thread).
    pub(crate) fn popups(&self, window: u32, children: &[RootChild]) -> Result<Vec<Popup>, XErr> {
        let base = self.client_of(window);
        let others: Vec<u32> = children
            .iter()
            .filter(|c| c.override_redirect && self.client_of(c.id) != base)
            .map(|c| c.id)
            .collect();
        let pids = if others.is_empty() {
            HashMap::new()
        } else {
            let mut ask = others.clone();
            ask.push(window);
            self.pids(&ask)?
        };
        let own_pid = pids.get(&window).copied();
        Ok(children
            .iter()
            .filter(|c| c.override_redirect)
            .map(|c| Popup {
                id: c.id,
                rect: c.rect,
                same_client: self.client_of(c.id) == base
                    || (own_pid.is_some() && pids.get(&c.id).copied() == own_pid),
            })
            .collect())
    }

    /// The monitor that shows most of `r`: its name.
    pub(crate) fn monitor_of(&self, r: &Rect) -> String {
        self.monitors
            .iter()
            .max_by_key(|(_, m)| m.intersect(r).map_or(0, |i| i.area()))
            .map(|(n, _)| n.clone())
            .unwrap_or_default()
    }

    /// The pixels of `r` (screen pixels, inside the screen) as the operator sees them: read
    /// from the root window, so every window over the area — popups included — is in them.
    pub(crate) fn root_image(&self, r: Rect) -> Result<RgbaImage, XErr> {
        let reply = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                self.root,
                r.x as i16,
                r.y as i16,
                r.w as u16,
                r.h as u16,
                !0,
            )?
            .reply()?;
        let setup = self.conn.setup();
        let format = setup
            .pixmap_formats
            .iter()
            .find(|f| f.depth == reply.depth)
            .ok_or_else(|| {
                XErr::Coded(crate::capture_err(format!(
                    "no pixmap format for depth {}",
                    reply.depth
                )))
            })?;
        let visual = setup
            .roots
            .iter()
            .flat_map(|s| s.allowed_depths.iter())
            .flat_map(|d| d.visuals.iter())
            .find(|v| v.visual_id == reply.visual)
            .ok_or_else(|| XErr::Coded(crate::capture_err("the root's visual is unknown")))?;
        to_rgba(
            &reply.data,
            r.w as u32,
            r.h as u32,
            PixelLayout {
                bits_per_pixel: format.bits_per_pixel as u32,
                scanline_pad: format.scanline_pad as u32,
                lsb_first: setup.image_byte_order == ImageOrder::LSB_FIRST,
                masks: [visual.red_mask, visual.green_mask, visual.blue_mask],
            },
        )
        .map_err(|e| XErr::Coded(crate::capture_err(e)))
    }
}

/// How a ZPixmap's pixels are laid out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PixelLayout {
    pub bits_per_pixel: u32,
    pub scanline_pad: u32,
    pub lsb_first: bool,
    /// Red, green and blue masks of the visual.
    pub masks: [u32; 3],
}

/// ZPixmap bytes → RGBA. The common case (32 bits a pixel, BGRX in memory) is a byte shuffle.
pub(crate) fn to_rgba(data: &[u8], w: u32, h: u32, l: PixelLayout) -> Result<RgbaImage, String> {
    let bpp = l.bits_per_pixel;
    if !matches!(bpp, 16 | 24 | 32) {
        return Err(format!("{bpp} bits a pixel is not supported"));
    }
    let pad = l.scanline_pad.max(8);
    let stride = ((w * bpp).div_ceil(pad) * pad / 8) as usize;
    let need = stride * h as usize;
    if data.len() < need {
        return Err(format!(
            "short image: {} bytes for {w}×{h} (need {need})",
            data.len()
        ));
    }
    let (w, h) = (w as usize, h as usize);
    let mut out = vec![0u8; w * h * 4];
    if bpp == 32 && l.lsb_first && l.masks == [0xff0000, 0xff00, 0xff] {
        for (row_in, row_out) in data
            .chunks_exact(stride)
            .zip(out.chunks_exact_mut(w * 4))
            .take(h)
        {
            for (px, o) in row_in[..w * 4]
                .chunks_exact(4)
                .zip(row_out.chunks_exact_mut(4))
            {
                o.copy_from_slice(&[px[2], px[1], px[0], 255]);
            }
        }
    } else {
        let bytes = (bpp / 8) as usize;
        let channel = |v: u32, mask: u32| -> u8 {
            if mask == 0 {
                return 0;
            }
            let bits = mask.count_ones();
            let c = (v & mask) >> mask.trailing_zeros();
            let max = (1u64 << bits) - 1;
            ((c as u64 * 255 + max / 2) / max) as u8
        };
        for y in 0..h {
            let row = &data[y * stride..];
            for x in 0..w {
                let b = &row[x * bytes..x * bytes + bytes];
                let v = if l.lsb_first {
                    b.iter().rev().fold(0u32, |a, &c| (a << 8) | c as u32)
                } else {
                    b.iter().fold(0u32, |a, &c| (a << 8) | c as u32)
                };
                let o = &mut out[(y * w + x) * 4..(y * w + x) * 4 + 4];
                o[0] = channel(v, l.masks[0]);
                o[1] = channel(v, l.masks[1]);
                o[2] = channel(v, l.masks[2]);
                o[3] = 255;
            }
        }
    }
    Ok(RgbaImage::from_raw(w as u32, h as u32, out).expect("sized"))
}

/// An X id as people write it.
pub(crate) fn hex(id: u32) -> String {
    format!("0x{id:x}")
}

pub(crate) fn gone(id: u32) -> MendError {
    MendError::new(ErrorCode::WindowNotFound, format!("window {id} is gone"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgrx_and_16_bit_pixels_become_rgba() {
        let bgrx = [10u8, 20, 30, 0, 1, 2, 3, 0];
        let img = to_rgba(
            &bgrx,
            2,
            1,
            PixelLayout {
                bits_per_pixel: 32,
                scanline_pad: 32,
                lsb_first: true,
                masks: [0xff0000, 0xff00, 0xff],
            },
        )
        .unwrap();
        assert_eq!(img.get_pixel(0, 0).0, [30, 20, 10, 255]);
        assert_eq!(img.get_pixel(1, 0).0, [3, 2, 1, 255]);
        // RGB 565, one pixel a row padded to 32 bits: pure red, then pure blue.
        let rgb565 = [0x00u8, 0xf8, 0, 0, 0x1f, 0x00, 0, 0];
        let img = to_rgba(
            &rgb565,
            1,
            2,
            PixelLayout {
                bits_per_pixel: 16,
                scanline_pad: 32,
                lsb_first: true,
                masks: [0xf800, 0x07e0, 0x001f],
            },
        )
        .unwrap();
        assert_eq!(img.get_pixel(0, 0).0, [255, 0, 0, 255]);
        assert_eq!(img.get_pixel(0, 1).0, [0, 0, 255, 255]);
        assert!(to_rgba(
            &[0; 3],
            2,
            1,
            PixelLayout {
                bits_per_pixel: 32,
                scanline_pad: 32,
                lsb_first: true,
                masks: [0xff0000, 0xff00, 0xff]
            }
        )
        .is_err());
    }
}
