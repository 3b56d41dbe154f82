//! Typing into a field under the guard (the focus checked with every key), a stop telling how
//! many characters went out; an interrupt that came up in front before the first key dismissed
//! and the field clicked again; a type step's text once its field was clicked (emptied first
//! when asked or redone, then seen to land).

use super::attempt::failed_after_input;
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
        if !self.window_watch.watching() {
            return None;
        }
        let now = self.capture.windows().ok()?;
        self.window_watch.opened_since(now)
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

    /// A type step once its field was clicked (`first`, at `field` in `frame`): the field seen
    /// taking the click, an interrupt that came up before the first key dismissed (the field
    /// clicked again), a redo's compensation; then the text typed ([`Runner::fill_field`])
    /// unless a redo finds the field holding it already.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn type_after_click(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        compensate: bool,
        frame: &Frame,
        field: Rect,
        first: &Input_,
        d: &mut StepDetail,
    ) -> Result<(), Fail> {
        // The application moves its keyboard focus when it handles the click, not when the
        // server delivers it: keys sent at once can reach the old focus (ctrl+a did, in
        // the practice app). Wait until the field shows the click (its caret), briefly.
        self.await_change(frame, field, FOCUS_WAIT_MS);
        // An interrupt (a session notice) that came up between the click and the first
        // key: dismissed, and the field clicked again, before any key goes out. Looked for
        // here when keys go out before the text (a compensation, emptying the field);
        // else typing the text checks it first (`type_into_field`).
        if (compensate || step.clear)
            && self.check_guard(lf, frame).is_err()
            && self
                .handle_interrupts(lf, vars)
                .map_err(failed_after_input)?
        {
            self.click_field_again(frame, field, first)
                .map_err(failed_after_input)?;
        }
        if compensate {
            self.compensate(lf, step, vars)
                .map_err(|f| Fail { acted: true, ..f })?;
        }
        let text = substitute(step.text.as_deref().unwrap_or_default(), vars, self.secrets)
            .map_err(failed_after_input)?;
        // A redo leaves the field holding exactly the text (run/field.rs): read it first,
        // else empty it and see it empty before typing.
        let replace = compensate && step.types_into_field();
        // Typed again at a typist's pace: keys sent at once can race a completion that
        // lost one of them the first time (a file box completing `/r` to `/root/`).
        self.paced = replace;
        let was_blank = mend_vision::field_is_blank(&frame.image, field);
        if replace && self.field_holds(frame, field, &text) {
            d.message = Some("the field already held the text: not typed again".into());
            return Ok(());
        }
        let fresh = was_blank || step.clear || replace;
        self.fill_field(
            lf, step, vars, at, frame, field, first, &text, replace, fresh, d,
        )
    }

    /// Type `text` into the field clicked, emptied first for `clear` or a redo (`replace`, at
    /// a typist's pace), and see it land: `acted` journaled once it went out; a field meant to
    /// hold only the text (`fresh`: it was empty, or emptied for it) shows something, then
    /// reads the text (a secret is never read back).
    #[allow(clippy::too_many_arguments)]
    fn fill_field(
        &mut self,
        lf: &LoadedFlow,
        step: &Step,
        vars: &Row,
        at: Option<At>,
        frame: &Frame,
        field: Rect,
        first: &Input_,
        text: &str,
        replace: bool,
        fresh: bool,
        d: &mut StepDetail,
    ) -> Result<(), Fail> {
        if step.clear || replace {
            let emptied = self
                .empty_field(lf, frame, field, text.chars().count())
                .map_err(failed_after_input)?;
            if replace {
                d.message = Some(
                    if emptied {
                        "redone: the field held other text, emptied before typing"
                    } else {
                        "redone: the field was empty"
                    }
                    .into(),
                );
            }
        }
        let typed = self.type_into_field(lf, vars, frame, field, first, text);
        self.paced = false;
        typed.map_err(failed_after_input)?;
        self.acted(at).map_err(failed_after_input)?;
        // An empty field that was typed into shows something, or the keys went astray.
        if step.types_into_field() && !text.is_empty() && fresh {
            self.expect_filled(frame, field, FILLED_WAIT_MS)
                .map_err(failed_after_input)?;
        }
        // A field meant to hold only the text (it was empty, or emptied for it) reads
        // the text, not more (something written into it after the emptying, a
        // completion). Without `clear` the text is added to what a field held, by the
        // flow's word. A secret is never read back (nor written into a message).
        let secret = step.text.as_deref().is_some_and(|t| {
            mend_model::references(t)
                .iter()
                .any(|r| r.starts_with("secret:"))
        });
        if step.types_into_field() && !text.trim().is_empty() && fresh && !secret {
            self.expect_value(lf, frame, field, text)
                .map_err(failed_after_input)?;
        }
        Ok(())
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
