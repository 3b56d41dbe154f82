use mend_model::{ErrorCode, MendError, Point, Rect};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    Left,
    Right,
    Middle,
}

/// A named key or a character.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    Ctrl,
    Shift,
    Alt,
    Meta,
    Return,
    Tab,
    Escape,
    Backspace,
    Delete,
    Home,
    End,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Space,
    F(u8),
    Char(char),
}

/// One input, in screen pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Action {
    Click {
        at: Point,
        button: MouseButton,
        count: u8,
    },
    Type {
        text: String,
    },
    /// Keys pressed together (a hotkey), released in reverse order.
    Keys {
        keys: Vec<Key>,
    },
    Scroll {
        at: Point,
        lines: i32,
    },
    Drag {
        from: Point,
        to: Point,
    },
    MoveTo {
        at: Point,
    },
    /// Press the left button at `at` and keep it down (a menu that lives only while the
    /// button is held); a [`Action::Release`] ends it.
    Press {
        at: Point,
    },
    /// With the left button held, move onto `at` and release it there.
    Release {
        at: Point,
    },
    /// Move and size a top-level window (X id): its frame's top-left to `to.x, to.y` (above
    /// the screen's top when `to.y` is negative), its own size `to.w × to.h` — a window
    /// reaching past the screen's edge brought onto it. Nothing is pressed.
    Fit {
        window: u32,
        to: Rect,
    },
}

impl Action {
    pub fn click(at: Point) -> Self {
        Action::Click {
            at,
            button: MouseButton::Left,
            count: 1,
        }
    }

    /// What an audit line may show: typed text is never included (it may be a secret).
    pub fn describe(&self) -> String {
        match self {
            Action::Click { at, button, count } => {
                format!("click {button:?} x{count} at {},{}", at.x, at.y)
            }
            Action::Type { text } => format!("type {} chars", text.chars().count()),
            Action::Keys { keys } => format!("keys {keys:?}"),
            Action::Scroll { at, lines } => format!("scroll {lines} at {},{}", at.x, at.y),
            Action::Drag { from, to } => {
                format!("drag {},{} -> {},{}", from.x, from.y, to.x, to.y)
            }
            Action::MoveTo { at } => format!("move to {},{}", at.x, at.y),
            Action::Press { at } => format!("press at {},{}", at.x, at.y),
            Action::Release { at } => format!("release at {},{}", at.x, at.y),
            Action::Fit { window, to } => {
                format!("fit window {window} to {},{} {}x{}", to.x, to.y, to.w, to.h)
            }
        }
    }
}

/// Parse `"ctrl+a"`, `"Return"`, `"shift+Tab"`, `"F5"` into keys pressed together.
pub fn parse_keys(spec: &str) -> Result<Vec<Key>, MendError> {
    let bad = |part: &str| {
        MendError::new(
            ErrorCode::InvalidArgument,
            format!("'{part}' in key spec '{spec}' is not a key; use names like ctrl, shift, alt, Return, Tab, Escape, F5, or one character"),
        )
    };
    if spec.trim().is_empty() {
        return Err(bad(spec));
    }
    spec.split('+')
        .map(|part| {
            let p = part.trim();
            let lower = p.to_ascii_lowercase();
            Ok(match lower.as_str() {
                "ctrl" | "control" => Key::Ctrl,
                "shift" => Key::Shift,
                "alt" => Key::Alt,
                "meta" | "super" | "win" => Key::Meta,
                "return" | "enter" => Key::Return,
                "tab" => Key::Tab,
                "esc" | "escape" => Key::Escape,
                "backspace" => Key::Backspace,
                "delete" | "del" => Key::Delete,
                "home" => Key::Home,
                "end" => Key::End,
                "up" => Key::Up,
                "down" => Key::Down,
                "left" => Key::Left,
                "right" => Key::Right,
                "pageup" => Key::PageUp,
                "pagedown" => Key::PageDown,
                "space" => Key::Space,
                _ => {
                    let mut cs = p.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) => Key::Char(c),
                        _ => match lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                            Some(n @ 1..=24) => Key::F(n),
                            _ => return Err(bad(p)),
                        },
                    }
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hotkeys_parse_and_nonsense_is_refused() {
        assert_eq!(
            parse_keys("ctrl+a").unwrap(),
            vec![Key::Ctrl, Key::Char('a')]
        );
        assert_eq!(parse_keys("Return").unwrap(), vec![Key::Return]);
        assert_eq!(parse_keys("shift+F5").unwrap(), vec![Key::Shift, Key::F(5)]);
        assert_eq!(
            parse_keys("ctrl+banana").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert!(parse_keys("").is_err());
        assert!(parse_keys("F99").is_err());
    }

    #[test]
    fn typed_text_never_shows_in_descriptions() {
        let a = Action::Type {
            text: "hunter2".into(),
        };
        assert!(!a.describe().contains("hunter2"));
    }
}
