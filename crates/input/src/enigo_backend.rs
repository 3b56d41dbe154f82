use crate::{Action, Input, Key, MouseButton};
use enigo::{Axis, Button, Coordinate, Direction, Enigo, Keyboard, Mouse, Settings};
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
        let enigo = Enigo::new(&Settings::default()).map_err(|e| {
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

fn button(b: MouseButton) -> Button {
    match b {
        MouseButton::Left => Button::Left,
        MouseButton::Right => Button::Right,
        MouseButton::Middle => Button::Middle,
    }
}

fn key(k: &Key) -> enigo::Key {
    use enigo::Key as E;
    match k {
        Key::Ctrl => E::Control,
        Key::Shift => E::Shift,
        Key::Alt => E::Alt,
        Key::Meta => E::Meta,
        Key::Return => E::Return,
        Key::Tab => E::Tab,
        Key::Escape => E::Escape,
        Key::Backspace => E::Backspace,
        Key::Delete => E::Delete,
        Key::Home => E::Home,
        Key::End => E::End,
        Key::Up => E::UpArrow,
        Key::Down => E::DownArrow,
        Key::Left => E::LeftArrow,
        Key::Right => E::RightArrow,
        Key::PageUp => E::PageUp,
        Key::PageDown => E::PageDown,
        Key::Space => E::Space,
        Key::F(n) => match n {
            1 => E::F1,
            2 => E::F2,
            3 => E::F3,
            4 => E::F4,
            5 => E::F5,
            6 => E::F6,
            7 => E::F7,
            8 => E::F8,
            9 => E::F9,
            10 => E::F10,
            11 => E::F11,
            _ => E::F12,
        },
        Key::Char(c) => E::Unicode(*c),
    }
}

impl Input for EnigoInput {
    fn type_into(&mut self, window: u32, c: char) -> Result<(), MendError> {
        if self.keys.is_none() {
            self.keys = Some(crate::X11Keys::new()?);
        }
        self.keys.as_mut().expect("opened").type_into(window, c)
    }

    fn perform(&mut self, action: &Action) -> Result<(), MendError> {
        match action {
            Action::Click {
                at,
                button: b,
                count,
            } => {
                self.move_to(*at)?;
                for _ in 0..(*count).max(1) {
                    self.enigo
                        .button(button(*b), Direction::Click)
                        .map_err(input_err)?;
                }
                Ok(())
            }
            Action::Type { text } => self.enigo.text(text).map_err(input_err),
            Action::Keys { keys } => {
                for k in keys {
                    self.enigo
                        .key(key(k), Direction::Press)
                        .map_err(input_err)?;
                }
                for k in keys.iter().rev() {
                    self.enigo
                        .key(key(k), Direction::Release)
                        .map_err(input_err)?;
                }
                Ok(())
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
            Action::MoveTo { at } => self.move_to(*at),
        }
    }
}
