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
