use crate::{ErrorCode, MendError, WindowInfo};
use regex::Regex;

/// Which window a flow means: a title pattern (regex), optionally a class and a pid. Capture
/// uses it to find a window; the input guard uses it as the allow-list.
#[derive(Debug, Clone)]
pub struct WindowQuery {
    pub title: Regex,
    pub class: Option<String>,
    pub pid: Option<u32>,
}

impl WindowQuery {
    /// `pattern` is a regex matched against the whole title (anchored).
    pub fn title(pattern: &str) -> Result<Self, MendError> {
        let re = Regex::new(&format!("^(?:{pattern})$")).map_err(|e| {
            MendError::new(
                ErrorCode::InvalidArgument,
                format!("window pattern '{pattern}' is not a valid regex: {e}"),
            )
        })?;
        Ok(WindowQuery {
            title: re,
            class: None,
            pid: None,
        })
    }

    pub fn matches(&self, w: &WindowInfo) -> bool {
        self.title.is_match(&w.title)
            && self
                .class
                .as_ref()
                .is_none_or(|c| w.app_name.eq_ignore_ascii_case(c))
            && self.pid.is_none_or(|p| w.pid == p)
    }

    /// Exactly one match, or a coded refusal naming what was seen.
    pub fn pick(&self, windows: Vec<WindowInfo>) -> Result<WindowInfo, MendError> {
        let titles: Vec<String> = windows.iter().map(|w| w.title.clone()).collect();
        let mut hits: Vec<WindowInfo> = windows.into_iter().filter(|w| self.matches(w)).collect();
        match hits.len() {
            1 => Ok(hits.remove(0)),
            0 => Err(MendError::new(
                ErrorCode::WindowNotFound,
                format!(
                    "no window matches '{}'; open windows: {:?}. Start the application or fix the flow's window pattern.",
                    self.describe(),
                    titles
                ),
            )),
            n => Err(MendError::new(
                ErrorCode::WindowAmbiguous,
                format!(
                    "{n} windows match '{}': {:?}. Narrow the pattern (add --class or an exact title).",
                    self.describe(),
                    hits.iter().map(|w| (&w.title, w.id)).collect::<Vec<_>>()
                ),
            )),
        }
    }

    fn describe(&self) -> String {
        let p = self.title.as_str();
        let p = p
            .strip_prefix("^(?:")
            .and_then(|s| s.strip_suffix(")$"))
            .unwrap_or(p);
        p.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rect;

    fn w(id: u32, title: &str, class: &str) -> WindowInfo {
        WindowInfo {
            id,
            title: title.into(),
            app_name: class.into(),
            pid: 0,
            rect: Rect::new(0, 0, 10, 10),
            focused: false,
        }
    }

    #[test]
    fn title_pattern_is_anchored() {
        let q = WindowQuery::title("客户管理系统").unwrap();
        let err = q.pick(vec![w(1, "客户管理系统 - 副本", "tk")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::WindowNotFound);
        assert_eq!(q.pick(vec![w(2, "客户管理系统", "tk")]).unwrap().id, 2);
    }

    #[test]
    fn two_matches_are_refused() {
        let q = WindowQuery::title("Customer.*").unwrap();
        let err = q
            .pick(vec![w(1, "Customer Desk", "a"), w(2, "Customer List", "b")])
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::WindowAmbiguous);
        let mut q = q;
        q.class = Some("B".into());
        assert_eq!(
            q.pick(vec![w(1, "Customer Desk", "a"), w(2, "Customer List", "b")])
                .unwrap()
                .id,
            2
        );
    }

    #[test]
    fn bad_regex_is_an_invalid_argument() {
        assert_eq!(
            WindowQuery::title("(").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }
}
