use mend_model::{ErrorCode, MendError, WindowInfo, WindowQuery};

/// Decides, right before input, whether input may be sent.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    pub allow: Vec<WindowQuery>,
}

impl Guard {
    pub fn new(allow: Vec<WindowQuery>) -> Self {
        Guard { allow }
    }

    /// Input may go to `located_in` only if it is the foreground window right now and the flow's
    /// allow-list names it. Anything else — another window in front, a modal dialog, no focus —
    /// is `WINDOW_BLOCKED` and nothing is sent.
    ///
    /// `foreground` is what the capture backend reports as in front (`Capture::foreground`):
    /// the focused window, with the popups of its own client (an open menu, a drop-down, a
    /// tooltip: override-redirect windows) counted as part of it, so an application with its
    /// menu open passes; a popup of another client covering the focused window is reported
    /// instead, and blocks like any other window in front.
    pub fn check(
        &self,
        foreground: Option<&WindowInfo>,
        located_in: &WindowInfo,
    ) -> Result<(), MendError> {
        if !self.allow.iter().any(|q| q.matches(located_in)) {
            return Err(MendError::new(
                ErrorCode::WindowBlocked,
                format!(
                    "window '{}' is not on this flow's allow-list; add it to the flow's windows if it is meant",
                    located_in.title
                ),
            ));
        }
        match foreground {
            Some(fg) if fg.id == located_in.id => Ok(()),
            // A window that never takes the focus (GNUstep's floating menu, a palette) is
            // clicked while a window of its own application that the flow allows has the
            // focus: it can never be in front by the focus. Keys still go only to a focused
            // window (typing checks the focus itself), so nothing is typed into it.
            Some(fg)
                if located_in.takes_no_focus
                    && fg.pid != 0
                    && fg.pid == located_in.pid
                    && self.allow.iter().any(|q| q.matches(fg)) =>
            {
                Ok(())
            }
            Some(fg) => Err(MendError::new(
                ErrorCode::WindowBlocked,
                format!(
                    "'{}' is in front of '{}'; no input sent. Close or handle it (an interrupt handler) and retry",
                    fg.title, located_in.title
                ),
            )),
            None => Err(MendError::new(
                ErrorCode::WindowBlocked,
                format!(
                    "no window has the focus, so '{}' would not receive input; no input sent",
                    located_in.title
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mend_model::Rect;

    fn w(id: u32, title: &str) -> WindowInfo {
        WindowInfo {
            id,
            title: title.into(),
            app_name: "tk".into(),
            pid: 0,
            rect: Rect::new(0, 0, 1, 1),
            focused: true,
            owner: None,
            takes_no_focus: false,
        }
    }

    #[test]
    fn input_goes_only_to_the_allowed_foreground_window() {
        let g = Guard::new(vec![WindowQuery::title("客户管理系统").unwrap()]);
        let app = w(1, "客户管理系统");
        assert!(g.check(Some(&app), &app).is_ok());
        let popup = w(2, "提示");
        assert_eq!(
            g.check(Some(&popup), &app).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
        assert_eq!(
            g.check(None, &app).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
        let other = w(3, "Terminal");
        assert_eq!(
            g.check(Some(&other), &other).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
    }

    #[test]
    fn a_window_that_takes_no_focus_is_clicked_only_while_its_own_allowed_window_has_it() {
        let g = Guard::new(vec![
            WindowQuery::title("draft.txt").unwrap(),
            WindowQuery::title("TextEdit").unwrap(),
        ]);
        let doc = WindowInfo {
            pid: 42,
            ..w(1, "draft.txt")
        };
        let menu = WindowInfo {
            pid: 42,
            takes_no_focus: true,
            ..w(2, "TextEdit")
        };
        assert!(g.check(Some(&doc), &menu).is_ok());
        // The same menu of another process, or while a window the flow does not allow has
        // the focus, or a window that does take the focus: blocked as ever.
        let theirs = WindowInfo {
            pid: 7,
            ..menu.clone()
        };
        assert_eq!(
            g.check(Some(&doc), &theirs).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
        let stranger = WindowInfo {
            pid: 42,
            ..w(3, "Terminal")
        };
        assert_eq!(
            g.check(Some(&stranger), &menu).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
        let normal = WindowInfo {
            takes_no_focus: false,
            ..menu.clone()
        };
        assert_eq!(
            g.check(Some(&doc), &normal).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
        let unknown = WindowInfo {
            pid: 0,
            ..menu.clone()
        };
        let doc0 = WindowInfo {
            pid: 0,
            ..doc.clone()
        };
        assert_eq!(
            g.check(Some(&doc0), &unknown).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
        assert_eq!(
            g.check(None, &menu).unwrap_err().code,
            ErrorCode::WindowBlocked
        );
    }

    #[test]
    fn another_applications_popup_in_front_blocks_and_is_named() {
        let g = Guard::new(vec![WindowQuery::title("xapp").unwrap()]);
        let app = w(1, "xapp");
        // The backend reports a popup of another client over the app as the foreground.
        let popup = WindowInfo {
            rect: Rect::new(10, 10, 80, 40),
            focused: false,
            ..w(0x60_0001, "a popup of 'Clock' (window 0x600001)")
        };
        let e = g.check(Some(&popup), &app).unwrap_err();
        assert_eq!(e.code, ErrorCode::WindowBlocked);
        assert!(e.message.contains("a popup of 'Clock'"), "{}", e.message);
        // With only its own menu open, the app itself is in front.
        assert!(g.check(Some(&app), &app).is_ok());
    }
}
