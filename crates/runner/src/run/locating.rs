//! Finding a step's target before acting: the pointer parked off the window, a hover to tell a
//! flat button, the spacing of clicks, waiting for the target (a menu item, a caret, a window
//! past the screen's edge), the locate checked by the guard, an item chosen from a held menu.

use super::*;

impl Runner<'_> {
    /// The pointer left where the last click put it, over the window where a target is not
    /// found: what it hovers may be covered by what hovering shows (a tooltip over the next
    /// key, a highlight that hides a caption). It is moved off the window once, just above its
    /// top edge (the window manager's title bar), or below it when the window touches the
    /// screen's top. Only a move: nothing is pressed, and the pointer is left alone when the
    /// last click was elsewhere.
    pub(super) fn park_pointer(&mut self, frame: &Frame) {
        let Some((_, at)) = self.last_click else {
            return;
        };
        let screen = frame.info.to_screen(&frame.info.bounds());
        if !screen.contains(at) {
            return;
        }
        const OFF: i32 = 8;
        let y = if screen.y >= 2 * OFF {
            screen.y - OFF
        } else {
            screen.bottom() + OFF
        };
        let to = mend_model::Point {
            x: screen.x + screen.w / 2,
            y,
        };
        // A pointer that cannot be moved leaves the look as it was: the wait goes on.
        let _ = self.input.perform(&Input_::MoveTo { at: to });
    }

    /// Move the pointer over `caption` (frame pixels) and look again, for [`HOVER_MS`] at
    /// most: a flat button takes its hover shade the moment the pointer enters it. What lit up
    /// around the caption is the button ([`mend_vision::lit_by_hover`]), with the window's
    /// frame taken then; `None` when nothing did (the pointer is parked next, as for any target
    /// not found). Nothing is clicked or typed to find out.
    pub(super) fn hover_probe(&mut self, frame: &Frame, caption: Rect) -> Option<(Frame, Rect)> {
        let id = frame.info.window.as_ref()?.id;
        let at = frame.info.to_screen(&caption).center();
        self.input.perform(&Input_::MoveTo { at }).ok()?;
        let deadline = self.clock.now_ms() + HOVER_MS;
        while self.clock.now_ms() < deadline {
            self.clock.sleep_ms(self.opts.poll_ms.clamp(10, 50));
            let now = self.capture.capture_window(id).ok()?;
            if let Some(b) = mend_vision::lit_by_hover(&frame.image, &now.image, caption) {
                return Some((now, b));
            }
        }
        None
    }

    /// Hold a click a toolkit could take for part of the click before ([`CLICK_APART_MS`]):
    /// one on an item of a popup (a menu, a drop-down list: the previous click opened it) or
    /// on the spot the previous click hit. Any other click goes at once: spacing every click
    /// would slow every step for a rule that only menus and double clicks have.
    pub(super) fn space_click(&mut self, frame: &Frame, located: &Located) {
        let Some((t, p)) = self.last_click else {
            return;
        };
        let c = located.screen_box.center();
        let in_popup = frame
            .info
            .popups
            .iter()
            .any(|r| r.contains(located.rect.center()));
        let same_spot = (c.x - p.x).abs() <= SAME_SPOT_PX && (c.y - p.y).abs() <= SAME_SPOT_PX;
        let since = self.clock.now_ms().saturating_sub(t);
        if (in_popup || same_spot) && since < CLICK_APART_MS {
            self.clock.sleep_ms(CLICK_APART_MS - since);
        }
    }

    /// Locate a target, waiting (and dismissing interrupts) while it is not there yet.
    pub(super) fn locate_wait(
        &mut self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
        vars: &Row,
        timeout: u64,
    ) -> Result<(Frame, Located), Fail> {
        let q = self.query_for(lf, spec)?;
        let target = target_of(spec, vars)?;
        let recorded = Recorded {
            template: spec
                .crop
                .as_ref()
                .and_then(|c| lf.templates.get(c).cloned()),
        };
        let mut w = Waiting {
            deadline: self.clock.now_ms() + timeout,
            parked: false,
            hovered: false,
            fits: 0,
            caret_on: false,
        };
        loop {
            let t_poll = self.clock.now_ms();
            let frame = self.capture.capture(&q);
            let r = match frame {
                Ok(f) => match self.look(spec, &target, &recorded, f, &mut w) {
                    Ok(found) => return Ok(found),
                    Err(r) => r,
                },
                Err(e) => Fail::from(e),
            };
            let waitable = matches!(
                r.err.code,
                ErrorCode::LocatorNotFound | ErrorCode::WindowNotFound
            );
            // The last look is at a frame taken at the deadline or later: one look can outlast
            // the whole timeout (a file chooser read in a debug build under load), and a target
            // that showed while it ran must not be refused for a frame taken before it did.
            let last_look = t_poll + self.opts.poll_ms * 4 >= w.deadline;
            let moved = self.fit_for_another_look(&r, &mut w.fits);
            if !waitable || (self.clock.now_ms() >= w.deadline && last_look && !moved) {
                return Err(beyond_the_screen(r));
            }
            if self.clock.now_ms() >= w.deadline && !moved {
                continue;
            }
            if !w.parked && r.err.code == ErrorCode::LocatorNotFound {
                w.parked = true;
                if let Some(f) = &r.frame {
                    self.park_pointer(f);
                }
            }
            self.handle_interrupts(lf, vars)?;
            // A caret just seen on is looked at at once: it is on for a blink's half only.
            if !std::mem::take(&mut w.caret_on) {
                self.clock.sleep_ms(self.opts.poll_ms * 4);
            }
            // Not there yet: this poll was spent waiting for the application.
            self.app_wait_ms += self.clock.now_ms() - t_poll;
        }
    }

    /// One look for `target` in the frame `f`: the control found (remembered where it was, and
    /// the frame when it is a menu's), or the refusal to wait on. A twin passed over when its
    /// menu told the item apart is refused; an item the text cannot tell apart is the one the
    /// menu just opened ([`Runner::menu_item_opened`]); a caption awaiting its caret is waited
    /// for, and one read on no control hovered once ([`Runner::found_by_hover`]).
    fn look(
        &mut self,
        spec: &TargetSpec,
        target: &Target,
        recorded: &Recorded,
        f: Frame,
        w: &mut Waiting,
    ) -> Result<(Frame, Located), Fail> {
        match self.finder.find(&f, target, recorded) {
            Ok(l)
                if self
                    .passed_over
                    .get(&seen_key(spec, target))
                    .is_some_and(|twins| twins.iter().any(|t| t.iou(&l.rect) > 0.5)) =>
            {
                Err(Fail {
                    err: MendError::new(
                        ErrorCode::LocatorAmbiguous,
                        format!(
                            "'{}' is found now only at {},{}, the twin passed over when its menu told the item apart: not the control chosen before. Nothing was clicked: open the menu and pick the item, or finish the step by hand",
                            l.text, l.rect.x, l.rect.y
                        ),
                    ),
                    acted: false,
                    frame: Some(Box::new(f)),
                    candidates: vec![],
                })
            }
            Ok(l) => {
                self.last_seen
                    .insert(seen_key(spec, target), (f.clone(), l.clone()));
                self.menu_before = (target.role == Role::Menu).then(|| f.clone());
                Ok((f, l))
            }
            Err(refusal)
                if refusal.error.code == ErrorCode::LocatorAmbiguous
                    && target.role == Role::Menu
                    && self.menu_before.is_some() =>
            {
                self.menu_item_opened(seen_key(spec, target), f, refusal)
            }
            Err(refusal) => {
                if let Some(caption) = refusal.caret_awaited {
                    w.caret_on = self.await_caret(&f, caption, w.deadline);
                }
                // A button's caption read on no control: the pointer over it shows
                // whether it lights up as a flat button does (once per step).
                if let Some(caption) = refusal.hover_asked.filter(|_| !w.hovered) {
                    w.hovered = true;
                    if let Some(found) = self.found_by_hover(spec, target, &f, caption) {
                        return Ok(found);
                    }
                }
                Err(Fail {
                    err: refusal.error,
                    acted: false,
                    frame: Some(Box::new(f)),
                    candidates: refusal.candidates,
                })
            }
        }
    }

    /// A menu item the text could not tell apart (`refusal`, in `f`): the candidate the menu
    /// just opened ([`opened_by_the_menu`]), remembered under `key` with the twins passed over;
    /// else the refusal stands.
    fn menu_item_opened(
        &mut self,
        key: String,
        f: Frame,
        refusal: Refusal,
    ) -> Result<(Frame, Located), Fail> {
        let before = self.menu_before.as_ref().expect("checked");
        match opened_by_the_menu(before, &f, &refusal.candidates) {
            Some(c) => {
                let l = Located {
                    strategy: mend_model::Strategy::FuzzyOcr,
                    rect: c.rect,
                    screen_box: f.info.to_screen(&c.rect),
                    confidence: c.score,
                    text: c.text.clone(),
                    frame_id: f.info.id,
                };
                self.last_seen.insert(key.clone(), (f.clone(), l.clone()));
                self.passed_over.insert(
                    key,
                    refusal
                        .candidates
                        .iter()
                        .map(|o| o.rect)
                        .filter(|r| *r != c.rect)
                        .collect(),
                );
                self.menu_before = Some(f.clone());
                Ok((f, l))
            }
            None => Err(Fail {
                err: refusal.error,
                acted: false,
                frame: Some(Box::new(f)),
                candidates: refusal.candidates,
            }),
        }
    }

    /// The control lit up by hovering `caption` in `f` ([`Runner::hover_probe`]), as a find:
    /// the frame taken then and the button, remembered where it was.
    fn found_by_hover(
        &mut self,
        spec: &TargetSpec,
        target: &Target,
        f: &Frame,
        caption: Rect,
    ) -> Option<(Frame, Located)> {
        let (now, rect) = self.hover_probe(f, caption)?;
        let l = Located {
            strategy: mend_model::Strategy::FuzzyOcr,
            rect,
            screen_box: now.info.to_screen(&rect),
            confidence: 1.0,
            text: target.text.clone().unwrap_or_default(),
            frame_id: now.info.id,
        };
        self.last_seen
            .insert(seen_key(spec, target), (now.clone(), l.clone()));
        self.menu_before = None;
        Some((now, l))
    }

    /// A window reaching past the screen's edge (a dialog taller than the screen) may hold the
    /// target beyond it: after a refusal `r` that found nothing it is fitted onto the screen,
    /// and when its least size is still too large, slid so its bottom edge shows (its
    /// buttons), then its right edge too; `fits`: how many times so far (three at most).
    /// Whether it moved: a window moved is looked at again, past the deadline too.
    fn fit_for_another_look(&mut self, r: &Fail, fits: &mut u32) -> bool {
        let mut moved = false;
        if r.err.code == ErrorCode::LocatorNotFound && *fits < 3 {
            if let Some(f) = r.frame.as_deref() {
                let to = match *fits {
                    0 => fit_onto_screen(&f.info),
                    1 => slide_onto_screen(&f.info, false),
                    _ => slide_onto_screen(&f.info, true),
                };
                *fits = if to.is_some() { *fits + 1 } else { 3 };
                if let Some((window, to)) = to {
                    // A window manager that will not move it leaves the look as it was.
                    moved = self.input.perform(&Input_::Fit { window, to }).is_ok();
                }
            }
        }
        moved
    }

    /// Wait, until `deadline` and [`CARET_BLINK_MS`] at most, for the caret of the prompt
    /// captioned at `caption` in `frame`'s window to show (a blinking caret is off half the
    /// time, and a line with no caret is no input): whether it did. Looks at the window only,
    /// a capture every poll, no reading.
    pub(super) fn await_caret(&mut self, frame: &Frame, caption: Rect, deadline: u64) -> bool {
        let Some(id) = frame.info.window.as_ref().map(|w| w.id) else {
            return false;
        };
        let until = deadline.min(self.clock.now_ms() + CARET_BLINK_MS);
        while self.clock.now_ms() < until {
            self.clock.sleep_ms(self.opts.poll_ms);
            let Ok(now) = self.capture.capture_window(id) else {
                return false;
            };
            if now.image.dimensions() == frame.image.dimensions()
                && mend_vision::prompt_input(&now.image, caption).is_some_and(|p| p.caret)
            {
                return true;
            }
        }
        false
    }

    /// Locate, guard (dismissing an interrupt that blocks, waiting up to [`FOCUS_LAND_MS`] for a
    /// focus that is nowhere), note the action; the frame and the
    /// control to act on.
    pub(super) fn locate_guarded(
        &mut self,
        lf: &LoadedFlow,
        spec: &TargetSpec,
        vars: &Row,
        timeout: u64,
        row: usize,
        what: &str,
    ) -> Result<(Frame, Located, Fingerprint), Fail> {
        let mut tries = 0;
        let mut unfocused_ms = 0;
        loop {
            let (frame, located) = self.locate_wait(lf, spec, vars, timeout)?;
            if self.let_new_window_settle(&frame, timeout) {
                continue; // it may have painted since the frame: look again
            }
            // Before the guard, which reads the live foreground: nothing slips in between the
            // guard and the input, and the wait is no different from a slower locate.
            if sends_a_click(what) {
                self.space_click(&frame, &located);
            }
            match self.check_guard(lf, &frame) {
                Ok(()) => {
                    let h = self.note_action(row, what, located.screen_box, &frame)?;
                    return Ok((frame, located, h));
                }
                // No window has the focus: the window manager is between two windows (one
                // closing, a message box mapping). Nothing is sent; wait a moment for the focus
                // to land, then look again — the new window may be an interrupt's.
                Err(e)
                    if e.code == ErrorCode::WindowBlocked
                        && unfocused_ms < FOCUS_LAND_MS
                        && matches!(self.capture.foreground(), Ok(None)) =>
                {
                    self.clock.sleep_ms(FOCUS_POLL_MS);
                    unfocused_ms += FOCUS_POLL_MS;
                }
                Err(e) if e.code == ErrorCode::WindowBlocked && tries < 2 => {
                    tries += 1;
                    if !self.handle_interrupts(lf, vars)? {
                        return Err(Fail {
                            err: e,
                            acted: false,
                            frame: Some(Box::new(frame)),
                            candidates: vec![],
                        });
                    }
                }
                Err(e) => {
                    return Err(Fail {
                        err: e,
                        acted: false,
                        frame: Some(Box::new(frame)),
                        candidates: vec![],
                    })
                }
            }
        }
    }

    /// A menu bar's title whose menu lives only while the button is held: press on the title
    /// at `title` (screen), and while the menu shows (`menu`: where it drops and how many
    /// pixels must change there, as for a click), find the next step's item (a `read`
    /// click on a `menu` target, found and guarded as any target is) and release the button
    /// on it; the next step is then done (`held_through`). Nothing found, or a window not
    /// allowed in front: the button is released on the title, which chooses nothing. `None`
    /// when the next step is no menu item (nothing is pressed).
    pub(super) fn choose_from_held_menu(
        &mut self,
        lf: &LoadedFlow,
        vars: &Row,
        at: Option<At>,
        frame: &Frame,
        menu: (Rect, usize),
        title: mend_model::Point,
    ) -> Result<Option<String>, Fail> {
        let Some(a) = at else {
            return Ok(None);
        };
        let Some(next) = lf.flow.steps.get(a.step + 1) else {
            return Ok(None);
        };
        let Some(spec) = next.target.as_ref().filter(|t| {
            next.action == Action::Click
                && next.risk == Risk::Read
                && t.role.as_deref().and_then(Role::parse) == Some(Role::Menu)
        }) else {
            return Ok(None);
        };
        self.check_guard(lf, frame)?;
        self.send(&Input_::Press { at: title })?;
        let chosen = if self.shows_change(frame, menu.0, menu.1, MENU_WAIT_MS) {
            match self.locate_wait(lf, spec, vars, MENU_WAIT_MS) {
                Ok((f, l)) if self.check_guard(lf, &f).is_ok() => Some(l),
                _ => None,
            }
        } else {
            None
        };
        let to = chosen.as_ref().map_or(title, |l| l.screen_box.center());
        self.send(&Input_::Release { at: to })?;
        Ok(Some(match chosen {
            Some(l) => {
                self.held_through = Some((a.row, a.step + 1));
                format!(
                    "the menu opened only while the button was held: held open, '{}' chosen by releasing the button on it (the next step)",
                    l.text
                )
            }
            None => "the menu opened neither on a click nor while the button was held (or its item was not there): released on the title, nothing chosen".into(),
        }))
    }
}

/// What [`Runner::locate_wait`] carries from one look to the next.
struct Waiting {
    deadline: u64,
    /// The pointer was moved off the window once ([`Runner::park_pointer`]).
    parked: bool,
    /// A caption was hovered once ([`Runner::found_by_hover`]).
    hovered: bool,
    /// How many times the window was fitted or slid onto the screen.
    fits: u32,
    /// A prompt whose caret was off in the last look: the next look waits for it on.
    caret_on: bool,
}

/// How long a caption under the pointer is watched for a hover shade: toolkits light a flat
/// button on the pointer's entry (Tk, GTK, Qt), well before a tooltip's delay (0.5–0.7 s).
pub(super) const HOVER_MS: u64 = 300;

/// How long a prompt's caret is waited for to show: a cursor blinks on and off within a
/// second or so (Emacs 0.5 s each way, GTK 0.6 s, Windows 0.53 s).
pub(super) const CARET_BLINK_MS: u64 = 1500;

/// Whether a step of this action (by its name) starts its input with a click: a type clicks
/// its field first, a check its box.
fn sends_a_click(what: &str) -> bool {
    matches!(
        what,
        "click" | "double_click" | "right_click" | "type" | "check" | "uncheck"
    )
}

/// Of the candidates for a menu item the text could not tell apart, the one the menu just
/// opened shows: the only one whose pixels changed since `before`, the frame the menu's title
/// was found in (a text UI's open menu holds `Mkdir`, and its function-key bar, there before
/// the click, `7Mkdir`). Another window, another size, none changed or more than one: no
/// answer, the refusal stands.
pub(super) fn opened_by_the_menu<'a>(
    before: &Frame,
    now: &Frame,
    candidates: &'a [Candidate],
) -> Option<&'a Candidate> {
    if !super::screen::same_window(before, now)
        || before.image.dimensions() != now.image.dimensions()
        || before.info.origin != now.info.origin
        || candidates.len() < 2
    {
        return None;
    }
    let changed = |r: &Rect| -> bool {
        match (
            mend_vision::crop(&before.image, *r),
            mend_vision::crop(&now.image, *r),
        ) {
            (Some(a), Some(b)) => {
                let all = (a.width() * a.height()) as usize;
                all > 0 && mend_vision::pixels_changed(&a, &b, 40) * 5 >= all
            }
            _ => false,
        }
    };
    // Only the tied ones: a candidate the text ranked lower is no twin.
    let best = candidates.iter().map(|c| c.score).fold(f64::MIN, f64::max);
    let mut fresh = candidates
        .iter()
        .filter(|c| c.score >= best - 0.15 && changed(&c.rect));
    let one = fresh.next()?;
    fresh.next().is_none().then_some(one)
}

/// How long a menu bar's title has to show its menu before it is clicked again.
pub(super) const MENU_WAIT_MS: u64 = 1500;
