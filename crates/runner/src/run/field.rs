//! Typing that can be redone: a field ends holding exactly its text.
//!
//! A `type` redone after a crash or a failed attempt must not append (`adminadmin`). On a redo
//! the field is read first: if it already holds the text, nothing is typed. Otherwise it is
//! emptied and *seen* empty (its pixels, not OCR: a masked field reads as nothing useful)
//! before the text goes in. There is no one select-all: ctrl+a is line-start in Tk and Emacs
//! bindings, and owner-drawn fields know only what their author wrote. So emptying tries, in
//! order, ways that stay inside the focused field: End then shift+Home then Delete (Win32,
//! GTK, Tk, Motif, Swing select to the line start that way), ctrl+a then Delete, End then as
//! many BackSpaces as the field can hold, and all three once more (a dialog may fill its field
//! after it opened). A field that still shows content is `FIELD_NOT_CLEARED`: nothing is typed,
//! and a person decides.

use super::{err, LoadedFlow, Runner};
use mend_capture::Frame;
use mend_input::{parse_keys, Action as Input_};
use mend_model::{ErrorCode, MendError, Rect};

/// How long to wait for a field to show the effect of the keys sent to empty it.
const EMPTY_WAIT_MS: u64 = 400;

impl Runner<'_> {
    /// Does the field at `rect` (frame pixels of `frame`'s window) read exactly `text` now?
    pub(super) fn field_holds(&mut self, frame: &Frame, rect: Rect, text: &str) -> bool {
        let Some(id) = frame.info.window.as_ref().map(|w| w.id) else {
            return false;
        };
        let Ok(now) = self.capture.capture_window(id) else {
            return false;
        };
        let here = moved(frame, &now, rect);
        self.finder
            .read_text(&now, here)
            .is_some_and(|seen| seen.trim() == text.trim())
    }

    /// Empty the focused field at `rect` and see it empty: `Ok(false)` when it already was,
    /// `Ok(true)` when keys emptied it. `typed` is how many characters it may hold at most
    /// (the text's length, or more), for the BackSpace way.
    pub(super) fn empty_field(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        rect: Rect,
        typed: usize,
    ) -> Result<bool, MendError> {
        // Empty already only if it was empty in the frame it was found in too: a click cannot
        // empty a field, and a look that finds it blank now may have caught the window
        // mid-repaint (WineMine's Columns field, holding 9, was read blank after its click
        // under load, and 20 went in after the 9: a board of 30 columns). The keys are
        // harmless on a field that is empty.
        if mend_vision::field_is_blank(&frame.image, rect) && self.wait_blank(frame, rect, 0) {
            return Ok(false);
        }
        let backspaces = vec!["BackSpace"; (typed * 2 + 8).min(200)].join(" ");
        let ways: [&[&str]; 3] = [
            &["End", "shift+Home", "Delete"],
            &["ctrl+a", "Delete"],
            &["End", &backspaces],
        ];
        // Twice over: a dialog may fill its field after it opened (Motif's file selection box
        // writes the path when its directory scan ends, under load after the first clearing
        // keys), and the BackSpace way cannot empty a path longer than the text.
        for way in ways.iter().chain(ways.iter()) {
            for chord in way.iter().flat_map(|c| c.split(' ')) {
                let keys = parse_keys(chord)?;
                // Delete and BackSpace sent to another window could delete something there:
                // the field's window must still be the one in front, before every key.
                self.check_guard(lf, frame)?;
                self.input.perform(&Input_::Keys { keys })?;
            }
            if self.wait_blank(frame, rect, EMPTY_WAIT_MS) {
                return Ok(true);
            }
        }
        Err(err(
            ErrorCode::FieldNotCleared,
            format!(
                "the field at {rect:?} still shows content after End+shift+Home+Delete, ctrl+a+Delete and BackSpace: nothing was typed. Empty it by hand and retry, or type the value by hand and answer done"
            ),
        ))
    }

    /// After typing into a field that was empty: it must show something (text, bullets)
    /// within `max_ms`. If it stays empty, the keys went to another field (the application
    /// moved its focus after the click): `FIELD_NOT_FILLED`, so no later step commits them.
    pub(super) fn expect_filled(
        &mut self,
        frame: &Frame,
        rect: Rect,
        max_ms: u64,
    ) -> Result<(), MendError> {
        let Some(id) = frame.info.window.as_ref().map(|w| w.id) else {
            return Ok(());
        };
        let deadline = self.clock.now_ms() + max_ms;
        loop {
            match self.capture.capture_window(id) {
                Ok(now) if !mend_vision::field_is_blank(&now.image, moved(frame, &now, rect)) => {
                    return Ok(())
                }
                Ok(_) => {}
                // The window went away (a dialog closed on Return): nothing to look at.
                Err(_) => return Ok(()),
            }
            if self.clock.now_ms() >= deadline {
                return Err(err(
                    ErrorCode::FieldNotFilled,
                    format!(
                        "typed into the field at {rect:?}, but it still shows nothing after {max_ms} ms: the keys went elsewhere (did the application move its focus?). Look at the form before going on"
                    ),
                ));
            }
            self.clock.sleep_ms(20);
        }
    }

    /// Poll the frame's window until the field at `rect` shows no content, for `max_ms`.
    fn wait_blank(&mut self, frame: &Frame, rect: Rect, max_ms: u64) -> bool {
        let Some(id) = frame.info.window.as_ref().map(|w| w.id) else {
            return false;
        };
        let deadline = self.clock.now_ms() + max_ms;
        loop {
            if let Ok(now) = self.capture.capture_window(id) {
                if mend_vision::field_is_blank(&now.image, moved(frame, &now, rect)) {
                    return true;
                }
            }
            if self.clock.now_ms() >= deadline {
                return false;
            }
            self.clock.sleep_ms(20);
        }
    }
}

/// `rect` of `before` in the pixels of `now`: a frame's origin moves when a popup of the app
/// grows it up or left, and the same screen place must be looked at.
pub(super) fn moved(before: &Frame, now: &Frame, rect: Rect) -> Rect {
    now.info.from_screen(&before.info.to_screen(&rect))
}
