use crate::{Action, Input, Key, MouseButton};
use enigo::{Axis, Button, Coordinate, Direction, Enigo, Mouse, Settings};
use mend_model::{ErrorCode, MendError, Point};

/// The live backend: `enigo` (XTEST through x11rb under X11).
pub struct EnigoInput {
    enigo: Enigo,
    /// Grabbed-server typing, opened on first use.
    keys: Option<crate::X11Keys>,
}

fn input_err(e: impl std::fmt::Display) -> MendError {
    MendError::new(ErrorCode::InputFailed, format!("input: {e}"))
}

impl EnigoInput {
    pub fn new() -> Result<Self, MendError> {
        let enigo = Enigo::new(&Settings {
            // No server-side delay: scrolls and drags are processed as they are sent.
            linux_delay: 0,
            ..Settings::default()
        })
        .map_err(|e| {
            MendError::new(
                ErrorCode::InputFailed,
                format!(
                    "cannot open the input connection: {e}; is DISPLAY set to a running X server?"
                ),
            )
        })?;
        Ok(EnigoInput { enigo, keys: None })
    }

    fn move_to(&mut self, p: Point) -> Result<(), MendError> {
        self.enigo
            .move_mouse(p.x, p.y, Coordinate::Abs)
            .map_err(input_err)
    }
}

/// X keysyms of Mend's named keys.
fn x_keysym(k: &Key) -> u32 {
    match k {
        Key::Ctrl => 0xffe3,
        Key::Shift => 0xffe1,
        Key::Alt => 0xffe9,
        Key::Meta => 0xffeb,
        Key::Return => 0xff0d,
        Key::Tab => 0xff09,
        Key::Escape => 0xff1b,
        Key::Backspace => 0xff08,
        Key::Delete => 0xffff,
        Key::Home => 0xff50,
        Key::End => 0xff57,
        Key::Up => 0xff52,
        Key::Down => 0xff54,
        Key::Left => 0xff51,
        Key::Right => 0xff53,
        Key::PageUp => 0xff55,
        Key::PageDown => 0xff56,
        Key::Space => 0x20,
        Key::F(n) => 0xffbd + *n as u32,
        Key::Char(c) => crate::x11_keys::keysym(*c),
    }
}

impl EnigoInput {
    fn x11(&mut self) -> Result<&mut crate::X11Keys, MendError> {
        if self.keys.is_none() {
            self.keys = Some(crate::X11Keys::new()?);
        }
        Ok(self.keys.as_mut().expect("opened"))
    }
}

impl Input for EnigoInput {
    fn type_into(&mut self, window: u32, c: char) -> Result<(), MendError> {
        self.x11()?.type_into(window, c)
    }

    fn type_text_into(&mut self, window: u32, text: &str) -> Result<(), (usize, MendError)> {
        self.x11().map_err(|e| (0, e))?.type_all(window, text)
    }

    fn activate(&mut self, window: u32) -> Result<(), MendError> {
        self.x11()?.activate(window)
    }

    fn perform(&mut self, action: &Action) -> Result<(), MendError> {
        match action {
            // Clicks and chords go through the typing connection: one ordered stream, each
            // confirmed, so text typed next never overtakes the click that focuses its field.
            Action::Click {
                at,
                button: b,
                count,
            } => {
                let detail = match b {
                    MouseButton::Left => 1,
                    MouseButton::Middle => 2,
                    MouseButton::Right => 3,
                };
                self.x11()?.click(at.x, at.y, detail, *count)
            }
            // Same ordered stream as clicks (no focus check: that is `type_into`).
            Action::Type { text } => self.x11()?.type_text(text),
            Action::Keys { keys } => {
                let syms: Vec<u32> = keys.iter().map(x_keysym).collect();
                self.x11()?.chord(&syms)
            }
            Action::Scroll { at, lines } => {
                self.move_to(*at)?;
                self.enigo.scroll(*lines, Axis::Vertical).map_err(input_err)
            }
            Action::Drag { from, to } => {
                self.move_to(*from)?;
                self.enigo
                    .button(Button::Left, Direction::Press)
                    .map_err(input_err)?;
                self.move_to(*to)?;
                self.enigo
                    .button(Button::Left, Direction::Release)
                    .map_err(input_err)
            }
            Action::MoveTo { at } => self.x11()?.move_to(at.x, at.y),
            Action::Press { at } => self.x11()?.press(at.x, at.y, 1),
            Action::Release { at } => self.x11()?.release(at.x, at.y, 1),
            Action::Fit { window, to } => self.x11()?.move_resize(*window, *to),
        }
    }
}
