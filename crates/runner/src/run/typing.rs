//! Typing into a field under the guard (the focus checked with every key), a stop telling how
//! many characters went out; an interrupt that came up in front before the first key dismissed
//! and the field clicked again.

use super::*;

impl Runner<'_> {
    /// Type the text, the guard checked before it and the focus with every key (the backend's
    /// promise, per character or per batch under a server grab): a window that steals the
    /// focus mid-text receives nothing.
    pub(super) fn type_guarded(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        text: &str,
    ) -> Result<(), MendError> {
        self.type_counted(lf, frame, text)
            .map_err(|(n, e)| stopped_after(n, text, e))
    }

    /// Click a field again after an interrupt was dismissed, and wait for it to take the click.
    pub(super) fn click_field_again(
        &mut self,
        frame: &Frame,
        field: Rect,
        click: &Input_,
    ) -> Result<(), MendError> {
        self.send(click)?;
        self.await_change(frame, field, FOCUS_WAIT_MS);
        Ok(())
    }

    /// The title of a window on the screen now that was not at the last input.
    pub(super) fn window_opened_since_input(&self) -> Option<String> {
        let known = self.known_windows.as_ref()?;
        let now = self.capture.windows().ok()?;
        now.into_iter()
            .find(|w| !known.contains(&w.id))
            .map(|w| w.title)
    }

    /// [`Runner::type_guarded`], a stop with how many characters went out before it.
    pub(super) fn type_counted(
        &mut self,
        lf: &LoadedFlow,
        frame: &Frame,
        text: &str,
    ) -> Result<(), (usize, MendError)> {
        let window = frame
            .info
            .window
            .as_ref()
            .map(|w| w.id)
            .ok_or_else(|| (0, err(ErrorCode::WindowNotFound, "the frame has no window")))?;
        self.check_guard(lf, frame).map_err(|e| (0, e))?;
        // The backend checks the focus and sends the keys atomically: a window that takes the
        // focus mid-text gets nothing.
        if !self.paced {
            return self.input.type_text_into(window, text);
        }
        // A redo: one key at a time, each with the same focus check, at a typist's pace.
        for (n, c) in text.chars().enumerate() {
            if n > 0 {
                self.clock.sleep_ms(crate::run::KEY_PACE_MS);
            }
            self.input.type_into(window, c).map_err(|e| (n, e))?;
        }
        Ok(())
    }

    /// Type into the field clicked by `click`: when an interrupt (a session notice) came up
    /// in front before the first key went out, it is dismissed, the field clicked again and
    /// the text typed then. A stop after some keys went out stays a stop: re-typing part of
    /// a text needs the field emptied first, and a person decides.
    pub(super) fn type_into_field(
        &mut self,
        lf: &LoadedFlow,
        vars: &Row,
        frame: &Frame,
        field: Rect,
        click: &Input_,
        text: &str,
    ) -> Result<(), MendError> {
        // A window that opened since the click (a session notice mapping) may hold the
        // application's keyboard grab before the window manager gives it the focus: keys
        // sent to the field then are dropped, or reach the new window once it is in front.
        // None is sent until it is handled or gone. An interrupt's window that is up already
        // (mapped just before the click, and not in front yet) is handled first.
        if self.handle_interrupts(lf, vars)? {
            self.click_field_again(frame, field, click)?;
        }
        let first = match self.window_opened_since_input() {
            Some(title) => Err((
                0,
                err(
                    ErrorCode::WindowBlocked,
                    format!("'{title}' opened after the field was clicked; no key sent"),
                ),
            )),
            None => self.type_counted(lf, frame, text),
        };
        match first {
            Err((0, e))
                if e.code == ErrorCode::WindowBlocked && self.handle_interrupts(lf, vars)? =>
            {
                self.click_field_again(frame, field, click)?;
                self.type_guarded(lf, frame, text)
            }
            Ok(()) => Ok(()),
            Err((n, e)) => Err(stopped_after(n, text, e)),
        }
    }
}

/// A type step's stop after `n` characters of `text` went out.
fn stopped_after(n: usize, text: &str, e: MendError) -> MendError {
    err(
        e.code,
        format!(
            "typing stopped after {n} of {} characters: {}",
            text.chars().count(),
            e.message
        ),
    )
}
