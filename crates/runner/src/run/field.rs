//! Typing that can be redone: a field ends holding exactly its text.
//!
//! A `type` redone after a crash or a failed attempt must not append (`adminadmin`). On a redo
//! the field is read first: if it already holds the text, nothing is typed. Otherwise it is
//! emptied and *seen* empty (its pixels, not OCR: a masked field reads as nothing useful)
//! before the text goes in. There is no one select-all: ctrl+a is line-start in Tk and Emacs
//! bindings, and owner-drawn fields know only what their author wrote. So emptying tries, in
//! order, ways that stay inside the focused field: End then shift+Home then Delete (Win32,
//! GTK, Tk, Motif, Swing select to the line start that way), ctrl+a then Delete, End then as
//! many BackSpaces as the field can show (more batches while each one changes the field: a
//! path longer than the field scrolls), and all three once more (a dialog may fill its field
//! after it opened). A field that still shows content is `FIELD_NOT_CLEARED`: nothing is typed,
//! and a person decides.

use super::read_back::{ends_view, read_back_by, wider_than_field, ReadBack};
use super::{err, LoadedFlow, Runner};
use mend_capture::Frame;
use mend_input::{parse_keys, Action as Input_};
use mend_model::{ErrorCode, MendError, Rect};

/// How long to wait for a field to show the effect of the keys sent to empty it.
const EMPTY_WAIT_MS: u64 = 400;
/// Between two readings of a field after typing: a reading of another value is taken only
/// when the next one agrees (a repaint may be half-way), an unclear one is read again once.
const READ_AGAIN_MS: u64 = 150;

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
        let backspaces = vec!["BackSpace"; backspace_batch(rect, typed)].join(" ");
        let ways: [&[&str]; 3] = [
            &["End", "shift+Home", "Delete"],
            &["ctrl+a", "Delete"],
            &["End", &backspaces],
        ];
        // Twice over: a dialog may fill its field after it opened (Motif's file selection box
        // writes the path when its directory scan ends, under load after the first clearing
        // keys).
        for way in ways.iter().chain(ways.iter()) {
            let backspacing = way.last() == Some(&backspaces.as_str());
            let mut before = self.field_pixels(frame, rect);
            // A batch of BackSpaces empties what the field shows; a path longer than the field
            // scrolls its end into view as it goes (xedit's name field, an S-Lang input line,
            // whose Emacs keys give no select-all). More batches while each changes the field.
            for batch in 0..MAX_BACKSPACE_BATCHES {
                let keys_of_way: Vec<&str> = if batch == 0 {
                    way.iter().flat_map(|c| c.split(' ')).collect()
                } else {
                    backspaces.split(' ').collect()
                };
                for chord in keys_of_way {
                    let keys = parse_keys(chord)?;
                    // Delete and BackSpace sent to another window could delete something there:
                    // the field's window must still be the one in front, before every key.
                    self.check_guard(lf, frame)?;
                    self.input.perform(&Input_::Keys { keys })?;
                }
                if self.wait_blank(frame, rect, EMPTY_WAIT_MS) {
                    return Ok(true);
                }
                if !backspacing {
                    break;
                }
                let after = self.field_pixels(frame, rect);
                let moved_on = match (&before, &after) {
                    (Some(b), Some(a)) => changed_beyond_caret(b, a),
                    _ => false,
                };
                if !moved_on {
                    break;
                }
                before = after;
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

    /// After typing `text` into the field at `rect`: read it back. A field that reads the
    /// text with letters joined to it holds another value than the flow's (leftover text the
    /// emptying missed or was not asked for, an application's completion): `FIELD_VALUE_WRONG`,
    /// before any later step can commit it. A reading that cannot tell (a masked field, text
    /// wider than the field) passes: this is one more witness, never a guess.
    pub(super) fn expect_value(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        rect: Rect,
        text: &str,
    ) -> Result<ReadBack, MendError> {
        let (read, part) = self.expect_value_as_shown(frame, rect, text)?;
        if read != ReadBack::Unsure || !part {
            return Ok(read);
        }
        self.expect_value_at_ends(lf, frame, rect, text)
    }

    /// A text wider than its field, read where the field shows each of its ends: the caret
    /// walked there by arrow keys (they stay in the field: the caret moves, nothing is
    /// typed), each key after the guard, and the field read at each end ([`ends_view`]). A
    /// view that shows the text does not begin or end there is `FIELD_VALUE_WRONG`; the caret
    /// is left at the end, as typing left it.
    fn expect_value_at_ends(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        rect: Rect,
        text: &str,
    ) -> Result<ReadBack, MendError> {
        let Some(id) = frame.info.window.as_ref().map(|w| w.id) else {
            return Ok(ReadBack::Unsure);
        };
        let mut verdict = ReadBack::Unsure;
        // As many arrow keys as the text has characters (and two): the caret walks to the
        // text's start, the field scrolling with it, then back to its end. Home and End are
        // no such keys everywhere: Motif's file selection box hands them to its file list,
        // which puts the first or last file's path into the box.
        let steps = text.chars().count() + 2;
        for (key, start) in [("Left", true), ("Right", false)] {
            let chord = parse_keys(key)?;
            for _ in 0..steps {
                self.check_guard(lf, frame)?;
                self.input.perform(&Input_::Keys {
                    keys: chord.clone(),
                })?;
            }
            self.clock.sleep_ms(READ_AGAIN_MS);
            let Ok(now) = self.capture.capture_window(id) else {
                return Ok(ReadBack::Unsure);
            };
            let seen = self.finder.read_field(&now, moved(frame, &now, rect));
            let views: Vec<ReadBack> = seen.iter().map(|r| ends_view(r, text, start)).collect();
            let holds = views.contains(&ReadBack::Holds);
            let other = views.iter().find_map(|v| match v {
                ReadBack::Other(r) if !holds => Some(r.clone()),
                _ => None,
            });
            if let Some(r) = other {
                let (at, end) = if start {
                    ("start", "begin")
                } else {
                    ("end", "end")
                };
                return Err(err(
                    ErrorCode::FieldValueWrong,
                    format!(
                        "typed {} characters into the field at {rect:?}, wider than the field shows; with the caret moved to its {at} it reads {} characters where the text should {end}, and they are not its own (a completion or what the field held before, joined to it — typed text is never logged). Nothing after it was done: make the field hold exactly the flow's value by hand and answer done, or retry",
                        text.chars().count(),
                        r.chars().count()
                    ),
                ));
            }
            if holds && (start || verdict == ReadBack::Holds) {
                verdict = ReadBack::Holds;
            } else {
                verdict = ReadBack::Unsure;
            }
        }
        Ok(verdict)
    }

    /// The field read as it shows after typing: the verdict, and whether the last reading
    /// showed only part of the text ([`wider_than_field`]).
    fn expect_value_as_shown(
        &mut self,
        frame: &Frame,
        rect: Rect,
        text: &str,
    ) -> Result<(ReadBack, bool), MendError> {
        let mut part = false;
        let Some(id) = frame.info.window.as_ref().map(|w| w.id) else {
            return Ok((ReadBack::Unsure, false));
        };
        let mut last = ReadBack::Unsure;
        // Up to three looks: a verdict of another value stands when the next look agrees; an
        // unclear first look (a repaint half-way) is read again.
        for look in 0..3 {
            let go_on = match &last {
                ReadBack::More(_) | ReadBack::Other(_) => true,
                _ => look < 2,
            };
            if !go_on {
                break;
            }
            if look > 0 {
                self.clock.sleep_ms(READ_AGAIN_MS);
            }
            // The window went away (a dialog closed): nothing to read.
            let Ok(now) = self.capture.capture_window(id) else {
                return Ok((ReadBack::Unsure, false));
            };
            let seen = self.finder.read_field(&now, moved(frame, &now, rect));
            part = wider_than_field(&seen, text);
            let this = read_back_by(&seen, text);
            match (&last, &this) {
                (_, ReadBack::Holds) => return Ok((ReadBack::Holds, part)),
                (ReadBack::More(_), ReadBack::More(seen))
                | (ReadBack::Other(_), ReadBack::Other(seen)) => {
                    return Err(err(
                        ErrorCode::FieldValueWrong,
                        format!(
                            "typed {} characters into the field at {rect:?}, and it reads {} that are not them (more joined to them: what it held before, or a completion; or a letter lost on the way in, read so by every reader that read it — typed text is never logged). Nothing after it was done: make the field hold exactly the flow's value by hand and answer done, or retry",
                            text.chars().count(),
                            seen.chars().count()
                        ),
                    ))
                }
                _ => last = this,
            }
        }
        Ok((ReadBack::Unsure, part))
    }

    /// The field's pixels now (its place in a fresh capture of the frame's window).
    fn field_pixels(&mut self, frame: &Frame, rect: Rect) -> Option<image::RgbaImage> {
        let id = frame.info.window.as_ref().map(|w| w.id)?;
        let now = self.capture.capture_window(id).ok()?;
        mend_vision::crop(&now.image, moved(frame, &now, rect))
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

/// At most this many batches of BackSpaces in one way of emptying a field.
const MAX_BACKSPACE_BATCHES: usize = 6;

/// BackSpaces in one batch: as many characters as the field can show (a character is at least
/// a quarter of the field's height wide) or twice the text to type, at most 200.
fn backspace_batch(rect: Rect, typed: usize) -> usize {
    let shown = rect.w.max(0) as usize / (rect.h / 4).max(2) as usize;
    (typed * 2 + 8).max(shown).min(200)
}

/// Whether a field's pixels changed by more than a caret could (a blinking caret is a line
/// about the field's height): the keys sent did something to its content.
fn changed_beyond_caret(before: &image::RgbaImage, after: &image::RgbaImage) -> bool {
    before.dimensions() != after.dimensions()
        || mend_vision::pixels_changed(before, after, 40) > 3 * before.height() as usize
}

/// `rect` of `before` in the pixels of `now`: a frame's origin moves when a popup of the app
/// grows it up or left, and the same screen place must be looked at.
pub(super) fn moved(before: &Frame, now: &Frame, rect: Rect) -> Rect {
    now.info.from_screen(&before.info.to_screen(&rect))
}
