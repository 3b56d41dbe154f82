//! Typing that a focus thief cannot intercept. Checking the focus and then sending a key is a
//! race: a window can take the focus in between and receive the key. Here the X server is
//! grabbed from the focus check to the key release, so no other client — no window manager, no
//! thief — runs in between: the key goes to the checked window or is not sent at all.
//!
//! Clicks and key chords go through the same connection, each confirmed by a round trip, so
//! the server processes them in the order Mend sent them. (enigo delays each XTEST event 12 ms
//! on the server and uses a connection of its own: text typed right after an enigo click could
//! overtake it and land in the previously focused field — the crash soak caught a balance typed
//! into the phone field that way.)
//!
//! Keys come from the server's own keymap (ASCII and what the layout has); any other character
//! (CJK) is bound to a spare keycode first, outside the grab, as enigo does — but each
//! character to a keycode of its own, taken in turn from every unused keycode, never one
//! keycode rebound per character. An application translates a key press with the keymap it
//! holds when it reads the event: rebinding the one spare keycode for the next character while
//! the previous press is still queued made 吴八 arrive as 八八 under load (the crash test's
//! value-for-value ledger caught it). XTEST on x11rb, the same stack enigo uses.

use mend_model::{ErrorCode, MendError};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt as _;
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// How far off the control the pointer's arrival starts, and how long each part of it lasts
/// (measured on FOX 1.6's menus under Xvfb: a press at once after one jump onto an item was
/// dropped, one after this arrival took).
const ARRIVE_PX: i32 = 4;
const ARRIVE_STEP: std::time::Duration = std::time::Duration::from_millis(15);
const ARRIVE_REST: std::time::Duration = std::time::Duration::from_millis(35);

const KEY_PRESS: u8 = 2;
const KEY_RELEASE: u8 = 3;
const BUTTON_PRESS: u8 = 4;
const BUTTON_RELEASE: u8 = 5;
const MOTION: u8 = 6;
const XK_SHIFT_L: u32 = 0xffe1;

fn x_err(e: impl std::fmt::Display) -> MendError {
    MendError::new(ErrorCode::InputFailed, format!("X11 typing: {e}"))
}

pub struct X11Keys {
    conn: RustConnection,
    root: u32,
    min: u8,
    per: usize,
    syms: Vec<u32>,
    shift: u8,
    /// Unused keycodes, bound in turn to characters the keymap lacks.
    spare: Vec<u8>,
    /// Characters bound so far: keysym → keycode (a keycode is reused only after every other
    /// spare one was).
    bound: Vec<(u32, u8)>,
    next: usize,
    /// When each spare keycode was last pressed in this run.
    pressed: std::collections::HashMap<u8, std::time::Instant>,
}

/// How long a spare keycode keeps its binding after a press before it is bound to another
/// character (only when a text has more distinct characters outside the keymap than there
/// are spare keycodes: ~13 on Xvfb's default map).
const REBIND_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// The X keysym of a character: Latin-1 maps to itself, everything else to 0x0100_0000 + code.
pub fn keysym(c: char) -> u32 {
    let cp = c as u32;
    match cp {
        0x20..=0x7e | 0xa0..=0xff => cp,
        _ => 0x0100_0000 | cp,
    }
}

impl X11Keys {
    pub fn new() -> Result<Self, MendError> {
        let (conn, screen) = x11rb::connect(None).map_err(x_err)?;
        let root = conn.setup().roots[screen].root;
        let (min, max) = (conn.setup().min_keycode, conn.setup().max_keycode);
        let map = conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let per = map.keysyms_per_keycode as usize;
        let syms = map.keysyms;
        let code_of = |want: u32| {
            (0..syms.len() / per.max(1))
                .find(|&i| syms[i * per] == want)
                .map(|i| min + i as u8)
        };
        let shift = code_of(XK_SHIFT_L).ok_or_else(|| x_err("the keymap has no Shift_L"))?;
        // Spare keycodes: unused ones but the first (enigo refuses to start without one
        // unused keycode, and it runs in this process and the next), then those an earlier
        // run bound to one Unicode character on every level (ours, or enigo's), reused, so
        // runs do not use up the keymap.
        let levels = |i: usize| &syms[i * per..(i + 1) * per];
        let codes = 0..syms.len() / per.max(1);
        let unused = codes
            .clone()
            .rev()
            .filter(|&i| levels(i).iter().all(|s| *s == 0))
            .skip(1);
        let earlier: Vec<usize> = codes
            .filter(|&i| {
                let l = levels(i);
                // The server keeps the first groups only; the rest read back as NoSymbol.
                (0x0100_0100..=0x0110_ffff).contains(&l[0])
                    && l.len() >= 2
                    && l[1] == l[0]
                    && l.iter().all(|s| *s == l[0] || *s == 0)
            })
            .collect();
        let bound: Vec<(u32, u8)> = earlier
            .iter()
            .map(|&i| (levels(i)[0], min + i as u8))
            .collect();
        let spare: Vec<u8> = unused
            .chain(earlier.iter().copied())
            .map(|i| min + i as u8)
            .collect();
        if spare.is_empty() {
            return Err(x_err(
                "no unused keycode to bind characters outside the keymap",
            ));
        }
        let keys = X11Keys {
            conn,
            root,
            min,
            per,
            syms,
            shift,
            spare,
            bound,
            next: 0,
            pressed: Default::default(),
        };
        keys.release_held()?;
        Ok(keys)
    }

    /// Release every key and mouse button the server holds down. A run killed between a
    /// press and its release (mid-chord, mid-character under shift) leaves it down, and the
    /// next run's keys would all be read with it (shift+End selecting instead of moving, a
    /// field that will not empty). Nothing Mend sends goes out before this.
    pub fn release_held(&self) -> Result<(), MendError> {
        let map = self
            .conn
            .query_keymap()
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .keys;
        for (byte, bits) in map.iter().enumerate() {
            for bit in 0..8 {
                if bits & (1 << bit) != 0 {
                    let code = (byte * 8 + bit) as u8;
                    self.conn
                        .xtest_fake_input(KEY_RELEASE, code, 0, self.root, 0, 0, 0)
                        .map_err(x_err)?;
                }
            }
        }
        let mask = u16::from(
            self.conn
                .query_pointer(self.root)
                .map_err(x_err)?
                .reply()
                .map_err(x_err)?
                .mask,
        );
        for button in 1u8..=5 {
            if mask & (0x80 << button) != 0 {
                self.conn
                    .xtest_fake_input(BUTTON_RELEASE, button, 0, self.root, 0, 0, 0)
                    .map_err(x_err)?;
            }
        }
        self.conn.sync().map_err(x_err)
    }

    /// Keycode and shift level of a keysym on the current map.
    fn find(&self, sym: u32) -> Option<(u8, bool)> {
        for level in 0..2.min(self.per) {
            for i in 0..self.syms.len() / self.per {
                if self.syms[i * self.per + level] == sym
                    && !self.spare.contains(&(self.min + i as u8))
                {
                    return Some((self.min + i as u8, level == 1));
                }
            }
        }
        None
    }

    /// Whether `w` is `window` or inside it.
    fn within(&self, mut w: u32, window: u32) -> Result<bool, MendError> {
        for _ in 0..32 {
            if w == window {
                return Ok(true);
            }
            if w == self.root || w <= 1 {
                return Ok(false);
            }
            w = self
                .conn
                .query_tree(w)
                .map_err(x_err)?
                .reply()
                .map_err(x_err)?
                .parent;
        }
        Ok(false)
    }

    fn fake(&self, kind: u8, code: u8) -> Result<(), MendError> {
        self.conn
            .xtest_fake_input(kind, code, 0, self.root, 0, 0, 0)
            .map_err(x_err)?;
        Ok(())
    }

    fn note_press(&mut self, code: u8) {
        if self.spare.contains(&code) {
            self.pressed.insert(code, std::time::Instant::now());
        }
    }

    /// One key pressed and released (inside shift when `shifted`), not yet synced.
    fn stroke(&mut self, code: u8, shifted: bool) -> Result<(), MendError> {
        if shifted {
            self.fake(KEY_PRESS, self.shift)?;
        }
        self.fake(KEY_PRESS, code)?;
        self.note_press(code);
        self.fake(KEY_RELEASE, code)?;
        if shifted {
            self.fake(KEY_RELEASE, self.shift)?;
        }
        Ok(())
    }

    /// Keycode (and shift) for a keysym, and whether it was bound just now: a character the
    /// map lacks gets a spare keycode of its own (the least recently bound one).
    fn code_for(&mut self, sym: u32) -> Result<(u8, bool, bool), MendError> {
        if let Some((code, shifted)) = self.find(sym) {
            return Ok((code, shifted, false));
        }
        if let Some(&(_, code)) = self.bound.iter().find(|(s, _)| *s == sym) {
            return Ok((code, false, false));
        }
        let code = self.spare[self.next % self.spare.len()];
        self.next += 1;
        // Past the first round, the keycode was pressed in this run: the application may not
        // have read that press yet. Give it REBIND_GRACE since then before the binding changes.
        if let Some(at) = self.pressed.get(&code) {
            let since = at.elapsed();
            if since < REBIND_GRACE {
                std::thread::sleep(REBIND_GRACE - since);
            }
        }
        let syms = vec![sym; self.per];
        self.conn
            .change_keyboard_mapping(1, code, self.per as u8, &syms)
            .map_err(x_err)?
            .check()
            .map_err(x_err)?;
        self.bound.retain(|(_, c)| *c != code);
        self.bound.push((sym, code));
        Ok((code, false, true))
    }

    /// Move the pointer to screen `x, y` and click `button` (1 left, 2 middle, 3 right)
    /// `count` times; returns once the server has processed it.
    ///
    /// The pointer arrives as a hand's does: it moves onto the control from a few pixels away
    /// and rests there a moment before the press. Toolkits that activate a menu item on the
    /// pointer's motion inside it (FOX's menu panes, GNUstep's menus) drop a press that lands
    /// with the pointer's one jump onto the item: the click went out and nothing happened.
    pub fn click(&mut self, x: i32, y: i32, button: u8, count: u8) -> Result<(), MendError> {
        self.arrive(((x - ARRIVE_PX).max(0), y), (x, y))?;
        for _ in 0..count.max(1) {
            self.conn
                .xtest_fake_input(BUTTON_PRESS, button, 0, self.root, 0, 0, 0)
                .map_err(x_err)?;
            self.conn
                .xtest_fake_input(BUTTON_RELEASE, button, 0, self.root, 0, 0, 0)
                .map_err(x_err)?;
        }
        self.conn.sync().map_err(x_err)
    }

    /// Move the pointer as a hand arrives: to `from` (a few pixels off), then onto `to`,
    /// resting there before anything is pressed or released.
    fn arrive(&mut self, from: (i32, i32), to: (i32, i32)) -> Result<(), MendError> {
        for ((x, y), rest) in [(from, ARRIVE_STEP), (to, ARRIVE_REST)] {
            self.conn
                .xtest_fake_input(MOTION, 0, 0, self.root, x as i16, y as i16, 0)
                .map_err(x_err)?;
            self.conn.sync().map_err(x_err)?;
            std::thread::sleep(rest);
        }
        Ok(())
    }

    /// Arrive at `x, y` as [`Self::click`] does and press `button`, keeping it down: a menu
    /// that lives only while the button is held (Athena's, XForms') opens and stays.
    pub fn press(&mut self, x: i32, y: i32, button: u8) -> Result<(), MendError> {
        self.arrive(((x - ARRIVE_PX).max(0), y), (x, y))?;
        self.conn
            .xtest_fake_input(BUTTON_PRESS, button, 0, self.root, 0, 0, 0)
            .map_err(x_err)?;
        self.conn.sync().map_err(x_err)
    }

    /// With the button held, move onto `x, y` (from just above it, resting there, so a menu
    /// highlights the item under the pointer) and release `button` there.
    pub fn release(&mut self, x: i32, y: i32, button: u8) -> Result<(), MendError> {
        self.arrive((x, (y - ARRIVE_PX).max(0)), (x, y))?;
        self.conn
            .xtest_fake_input(BUTTON_RELEASE, button, 0, self.root, 0, 0, 0)
            .map_err(x_err)?;
        self.conn.sync().map_err(x_err)
    }

    /// Ask the window manager to bring `window` to the front with the focus (EWMH
    /// `_NET_ACTIVE_WINDOW`, as a pager would).
    pub fn activate(&mut self, window: u32) -> Result<(), MendError> {
        use x11rb::protocol::xproto::{ClientMessageEvent, EventMask};
        let atom = self
            .conn
            .intern_atom(false, b"_NET_ACTIVE_WINDOW")
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?
            .atom;
        let ev = ClientMessageEvent::new(32, window, atom, [2u32, 0, 0, 0, 0]);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                ev,
            )
            .map_err(x_err)?;
        self.conn.sync().map_err(x_err)
    }

    /// Move and size `window` by a configure request, as a pager or `xdotool` does: the window
    /// manager places its frame's top-left at `to.x, to.y` (north-west gravity) and keeps the
    /// window's own least size. The caller looks again to see what it did.
    pub fn move_resize(&mut self, window: u32, to: mend_model::Rect) -> Result<(), MendError> {
        use x11rb::protocol::xproto::ConfigureWindowAux;
        let aux = ConfigureWindowAux::new()
            .x(to.x)
            .y(to.y)
            .width(to.w.max(1) as u32)
            .height(to.h.max(1) as u32);
        self.conn.configure_window(window, &aux).map_err(x_err)?;
        self.conn.sync().map_err(x_err)
    }

    /// Move the pointer only.
    pub fn move_to(&mut self, x: i32, y: i32) -> Result<(), MendError> {
        self.conn
            .xtest_fake_input(MOTION, 0, 0, self.root, x as i16, y as i16, 0)
            .map_err(x_err)?;
        self.conn.sync().map_err(x_err)
    }

    /// Press keysyms together (a chord such as ctrl+a), release them in reverse; returns once
    /// the server has processed it.
    pub fn chord(&mut self, syms: &[u32]) -> Result<(), MendError> {
        let mut codes = Vec::new();
        for &s in syms {
            let (code, shifted, _) = self.code_for(s)?;
            if shifted && !codes.contains(&self.shift) {
                codes.push(self.shift);
            }
            codes.push(code);
        }
        for &c in &codes {
            self.fake(KEY_PRESS, c)?;
        }
        for &c in codes.iter().rev() {
            self.fake(KEY_RELEASE, c)?;
        }
        self.conn.sync().map_err(x_err)
    }

    /// Type text on the ordered stream without a focus check (the guard checked before).
    pub fn type_text(&mut self, text: &str) -> Result<(), MendError> {
        for c in text.chars() {
            let (code, shifted, rebound) = self.code_for(keysym(c))?;
            self.stroke(code, shifted)?;
            self.conn.sync().map_err(x_err)?;
            if rebound {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        Ok(())
    }

    /// Type `c` into `window` (an X top-level id) if, and only if, the keyboard focus is in it
    /// at the moment the key is generated. `WINDOW_BLOCKED` otherwise, with nothing sent.
    pub fn type_into(&mut self, window: u32, c: char) -> Result<(), MendError> {
        let (code, shifted, rebound) = self.code_for(keysym(c))?;
        self.keys_under_grab(window, &[(code, shifted)])?;
        if rebound {
            // The application reads the new binding when it handles the key; give it that
            // moment before the spare keycode is bound to the next character.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        Ok(())
    }

    /// Type `text` into `window`, a batch of up to [`BATCH`] characters under one server grab
    /// with one focus check: while the server is grabbed no other client runs, so no window can
    /// take the focus between the check and the batch's last key, exactly as between the check
    /// and one key. A character the keymap lacks is bound first, outside any grab, and typed
    /// alone ([`X11Keys::type_into`]). On a stop: how many characters went out before it.
    pub fn type_all(&mut self, window: u32, text: &str) -> Result<(), (usize, MendError)> {
        let chars: Vec<char> = text.chars().collect();
        let mut n = 0;
        while n < chars.len() {
            let mut keys = Vec::new();
            while keys.len() < BATCH {
                let Some(&c) = chars.get(n + keys.len()) else {
                    break;
                };
                match self.bound_code(keysym(c)) {
                    Some(k) => keys.push(k),
                    None => break,
                }
            }
            if keys.is_empty() {
                self.type_into(window, chars[n]).map_err(|e| (n, e))?;
                n += 1;
            } else {
                self.keys_under_grab(window, &keys).map_err(|e| (n, e))?;
                n += keys.len();
            }
        }
        Ok(())
    }

    /// The keycode (and shift) of a keysym the keymap has now, without binding anything.
    fn bound_code(&self, sym: u32) -> Option<(u8, bool)> {
        self.find(sym).or_else(|| {
            self.bound
                .iter()
                .find(|(s, _)| *s == sym)
                .map(|&(_, code)| (code, false))
        })
    }

    /// Press and release `keys` in order, the server grabbed from the focus check to the last
    /// release: all of them reach `window`, or none is sent (`WINDOW_BLOCKED`).
    fn keys_under_grab(&mut self, window: u32, keys: &[(u8, bool)]) -> Result<(), MendError> {
        self.conn.grab_server().map_err(x_err)?;
        let sent = (|| {
            let focus = self
                .conn
                .get_input_focus()
                .map_err(x_err)?
                .reply()
                .map_err(x_err)?
                .focus;
            if !self.within(focus, window)? {
                return Err(MendError::new(
                    ErrorCode::WindowBlocked,
                    "the keyboard focus left the window; the key was not sent",
                ));
            }
            for &(code, shifted) in keys {
                self.stroke(code, shifted)?;
            }
            Ok(())
        })();
        let ungrab = self.conn.ungrab_server().map_err(x_err);
        self.conn.sync().map_err(x_err)?;
        ungrab?;
        sent
    }
}

/// Characters typed under one server grab ([`X11Keys::type_all`]). The grab holds every other
/// client for as long as the batch takes to generate (4 requests a character, pipelined, one
/// round trip for the focus check and one for the sync): short enough that no application
/// notices, long enough that a text's round trips are paid once per batch, not per character.
pub const BATCH: usize = 32;
