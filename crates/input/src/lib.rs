//! Input: what Mend sends to the desktop, the guard that decides whether it may, and the
//! enigo backend.
//!
//! The [`Input`] trait has one required method so a test can record actions instead of sending
//! them ([`RecordingInput`]). The [`Guard`] is separate from the backend on purpose: it is checked
//! on the frame the target was located in, before any input, and no backend can skip it.

mod action;
mod enigo_backend;
mod guard;
mod x11_keys;

pub mod observe;
pub use action::{parse_keys, Action, Key, MouseButton};
pub use enigo_backend::EnigoInput;
pub use guard::Guard;
pub use x11_keys::X11Keys;

use mend_model::MendError;

/// The input seam.
pub trait Input {
    fn perform(&mut self, action: &Action) -> Result<(), MendError>;

    /// Type one character into `window` only if it has the keyboard focus when the key is
    /// sent — atomically, not check-then-send. `WINDOW_BLOCKED` (nothing sent) otherwise.
    fn type_into(&mut self, window: u32, c: char) -> Result<(), MendError>;

    /// Type `text` into `window` with the same promise as [`Input::type_into`] for every key;
    /// on a stop, how many characters were sent before it. One character at a time unless a
    /// backend can check once for several keys atomically (the live one: a batch under one
    /// server grab).
    fn type_text_into(&mut self, window: u32, text: &str) -> Result<(), (usize, MendError)> {
        for (n, c) in text.chars().enumerate() {
            self.type_into(window, c).map_err(|e| (n, e))?;
        }
        Ok(())
    }

    /// Ask for `window` to come to the front (the run's own application, once, at the start).
    /// Whether it did is for the guard to see; backends that cannot, do nothing.
    fn activate(&mut self, _window: u32) -> Result<(), MendError> {
        Ok(())
    }
}

/// A fake that records what would have been sent. For unit tests of code above input.
#[derive(Debug, Default)]
pub struct RecordingInput {
    pub sent: Vec<Action>,
}

impl Input for RecordingInput {
    fn perform(&mut self, action: &Action) -> Result<(), MendError> {
        self.sent.push(action.clone());
        Ok(())
    }

    fn type_into(&mut self, _window: u32, c: char) -> Result<(), MendError> {
        self.sent.push(Action::Type { text: c.into() });
        Ok(())
    }
}
