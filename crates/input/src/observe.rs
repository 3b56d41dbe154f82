//! Watching what a person does, without touching it: the X server's RECORD extension copies
//! every key and button press to us after it was delivered (observe only, never intercept).
//! `mend teach` turns the presses into a flow.

use mend_model::{ErrorCode, MendError};
use std::sync::mpsc::{channel, Receiver};
use std::time::Instant;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::record::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{self, ConnectionExt as _};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::x11_utils::TryParse;

/// One thing the person did, with the moment it reached us.
#[derive(Debug, Clone, PartialEq)]
pub enum Observed {
    /// A mouse button went down at a screen point (1 left, 2 middle, 3 right).
    Press {
        button: u8,
        x: i32,
        y: i32,
        at: Instant,
    },
    /// A key went down: its keysym under the modifiers held, and those modifiers.
    Key {
        keysym: u32,
        shift: bool,
        ctrl: bool,
        alt: bool,
        at: Instant,
    },
}

impl Observed {
    /// The moment it reached us.
    pub fn at(&self) -> Instant {
        match self {
            Observed::Press { at, .. } | Observed::Key { at, .. } => *at,
        }
    }
}

/// A running observation; `stop` ends it (the receiver then closes).
pub struct Observer {
    ctrl: RustConnection,
    context: u32,
}

fn x_err(e: impl std::fmt::Display) -> MendError {
    MendError::new(
        ErrorCode::CaptureFailed,
        format!("cannot watch the X server's input: {e}"),
    )
}

impl Observer {
    /// Start watching key and button presses on `$DISPLAY`.
    pub fn start() -> Result<(Observer, Receiver<Observed>), MendError> {
        let (ctrl, _) = x11rb::connect(None).map_err(x_err)?;
        let (data, _) = x11rb::connect(None).map_err(x_err)?;
        if ctrl
            .extension_information(record::X11_EXTENSION_NAME)
            .map_err(x_err)?
            .is_none()
        {
            return Err(x_err(
                "the X server has no RECORD extension (Xvfb and Xorg have it unless started with -extension RECORD)",
            ));
        }
        let setup = ctrl.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let map = ctrl
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        let per = map.keysyms_per_keycode as usize;
        let keysyms = map.keysyms;
        let keysym_of = move |code: u8, shift: bool| -> u32 {
            let base = (code.saturating_sub(min)) as usize * per;
            let at = |i: usize| keysyms.get(base + i).copied().unwrap_or(0);
            match (shift, at(1)) {
                (true, s) if s != 0 => s,
                _ => at(0),
            }
        };
        let context = ctrl.generate_id().map_err(x_err)?;
        let empty = record::Range8 { first: 0, last: 0 };
        let empty_ext = record::ExtRange {
            major: empty,
            minor: record::Range16 { first: 0, last: 0 },
        };
        let range = record::Range {
            core_requests: empty,
            core_replies: empty,
            ext_requests: empty_ext,
            ext_replies: empty_ext,
            delivered_events: empty,
            device_events: record::Range8 {
                first: xproto::KEY_PRESS_EVENT,
                last: xproto::BUTTON_PRESS_EVENT,
            },
            errors: empty,
            client_started: false,
            client_died: false,
        };
        ctrl.record_create_context(context, 0, &[record::CS::ALL_CLIENTS.into()], &[range])
            .map_err(x_err)?
            .check()
            .map_err(x_err)?;
        let (tx, rx) = channel();
        let (ready_tx, ready) = channel();
        std::thread::spawn(move || {
            const FROM_SERVER: u8 = 0;
            const START_OF_DATA: u8 = 4;
            let Ok(replies) = data.record_enable_context(context) else {
                return;
            };
            for reply in replies {
                let Ok(reply) = reply else { return };
                if reply.category == START_OF_DATA {
                    let _ = ready_tx.send(());
                }
                if reply.category != FROM_SERVER || reply.client_swapped {
                    continue;
                }
                let at = Instant::now();
                let mut rest = &reply.data[..];
                while rest.len() >= 32 {
                    let ev = match rest[0] {
                        xproto::KEY_PRESS_EVENT => {
                            xproto::KeyPressEvent::try_parse(rest).ok().map(|(e, _)| {
                                let state = u16::from(e.state);
                                let shift = state & u16::from(xproto::KeyButMask::SHIFT) != 0;
                                Observed::Key {
                                    keysym: keysym_of(e.detail, shift),
                                    shift,
                                    ctrl: state & u16::from(xproto::KeyButMask::CONTROL) != 0,
                                    alt: state & u16::from(xproto::KeyButMask::MOD1) != 0,
                                    at,
                                }
                            })
                        }
                        xproto::BUTTON_PRESS_EVENT => xproto::ButtonPressEvent::try_parse(rest)
                            .ok()
                            .map(|(e, _)| Observed::Press {
                                button: e.detail,
                                x: e.root_x as i32,
                                y: e.root_y as i32,
                                at,
                            }),
                        _ => None,
                    };
                    rest = &rest[32..];
                    if let Some(ev) = ev {
                        if tx.send(ev).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        // Recording has begun when the server says so: a press before that is not seen.
        ready
            .recv_timeout(std::time::Duration::from_secs(5))
            .map_err(|_| x_err("the RECORD context did not start within 5 s"))?;
        Ok((Observer { ctrl, context }, rx))
    }

    /// Stop watching: the server ends the data stream and the receiver closes.
    pub fn stop(&self) {
        let _ = self.ctrl.record_disable_context(self.context);
        let _ = self.ctrl.sync();
    }
}

impl Drop for Observer {
    fn drop(&mut self) {
        self.stop();
        let _ = self.ctrl.record_free_context(self.context);
        let _ = self.ctrl.flush();
    }
}
