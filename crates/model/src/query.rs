use crate::{ErrorCode, MendError, WindowInfo};
use regex::Regex;

/// Which window a flow means: a title pattern (regex), optionally a class and a pid. Capture
/// uses it to find a window; the input guard uses it as the allow-list.
#[derive(Debug, Clone)]
pub struct WindowQuery {
    pub title: Regex,
    pub class: Option<String>,
    pub pid: Option<u32>,
    /// A dialog of this window (`WM_TRANSIENT_FOR`) is the one meant: among several windows the
    /// title fits, the one dialog of `owner` is picked; and a dialog of `owner` titled as one of
    /// `also` (the same title in another wording or language) fits too — those other titles
    /// never fit a window of another owner, or of none.
    pub owner: Option<u32>,
    pub also: Vec<String>,
    /// The pattern as the flow wrote it, for messages.
    pattern: String,
}

/// Whether a pattern anchors itself: it begins with `^` or ends with an unescaped `$`.
fn self_anchored(pattern: &str) -> bool {
    let ends = pattern.ends_with('$')
        && pattern[..pattern.len() - 1]
            .chars()
            .rev()
            .take_while(|&c| c == '\\')
            .count()
            % 2
            == 0;
    pattern.starts_with('^') || ends
}

impl WindowQuery {
    /// `pattern` is a regex matched against the whole title (anchored at both ends) — unless it
    /// anchors itself: a pattern that begins with `^` or ends with `$` is taken as written, so
    /// `^out\.txt - ` is a title that begins so (the main window retitled after a save), as a
    /// reader of the regex expects. A bare `客户管理系统` never fits `客户管理系统 - 副本`.
    pub fn title(pattern: &str) -> Result<Self, MendError> {
        let anchored = if self_anchored(pattern) {
            format!("(?:{pattern})")
        } else {
            format!("^(?:{pattern})$")
        };
        let re = Regex::new(&anchored).map_err(|e| {
            MendError::new(
                ErrorCode::InvalidArgument,
                format!("window pattern '{pattern}' is not a valid regex: {e}"),
            )
        })?;
        Ok(WindowQuery {
            title: re,
            class: None,
            pid: None,
            owner: None,
            also: Vec::new(),
            pattern: pattern.to_string(),
        })
    }

    /// The pattern as a dialog of window `owner`, also under these other titles.
    pub fn of_owner(mut self, owner: u32, also: Vec<String>) -> Self {
        self.owner = Some(owner);
        self.also = also;
        self
    }

    fn owned(&self, w: &WindowInfo) -> bool {
        self.owner.is_some() && w.owner == self.owner
    }

    pub fn matches(&self, w: &WindowInfo) -> bool {
        let title = self.title.is_match(&w.title)
            || (self.owned(w) && self.also.iter().any(|t| t == w.title.trim()));
        title
            && self
                .class
                .as_ref()
                .is_none_or(|c| w.app_name.eq_ignore_ascii_case(c))
            && self.pid.is_none_or(|p| w.pid == p)
    }

    /// Exactly one match, or a coded refusal naming what was seen.
    pub fn pick(&self, windows: Vec<WindowInfo>) -> Result<WindowInfo, MendError> {
        let titles: Vec<String> = windows.iter().map(|w| w.title.clone()).collect();
        let dialogs: Vec<String> = windows
            .iter()
            .filter(|w| self.owned(w))
            .map(|w| w.title.clone())
            .collect();
        let mut hits: Vec<WindowInfo> = windows.into_iter().filter(|w| self.matches(w)).collect();
        if hits.len() > 1 && hits.iter().filter(|w| self.owned(w)).count() == 1 {
            hits.retain(|w| self.owned(w));
        }
        // The main window's own dialog under the main window's title (a message box titled
        // by the app's name) is no second main window: the one that owns the others is meant.
        // Input still goes to it only when it is in front (the guard).
        if hits.len() > 1 && self.owner.is_none() {
            let ids: Vec<u32> = hits.iter().map(|w| w.id).collect();
            let roots: Vec<u32> = hits
                .iter()
                .filter(|w| !w.owner.is_some_and(|o| ids.contains(&o)))
                .map(|w| w.id)
                .collect();
            if let [root] = roots[..] {
                if hits.iter().all(|w| w.id == root || w.owner == Some(root)) {
                    hits.retain(|w| w.id == root);
                }
            }
        }
        match hits.len() {
            1 => Ok(hits.remove(0)),
            0 if !dialogs.is_empty() => Err(MendError::new(
                ErrorCode::WindowNotFound,
                format!(
                    "no window matches '{}'; the main window's own dialogs open: {:?}. If one of them is the one meant (the same dialog in another language or wording), add its title to the flow's pattern ('{}|…').{}",
                    self.describe(),
                    dialogs,
                    self.describe(),
                    self.fits_in_part(&titles).unwrap_or_default()
                ),
            )),
            0 => Err(MendError::new(
                ErrorCode::WindowNotFound,
                match self.fits_in_part(&titles) {
                    Some(hint) => format!(
                        "no window matches '{}'; open windows: {:?}.{hint}",
                        self.describe(),
                        titles
                    ),
                    None => format!(
                        "no window matches '{}'; open windows: {:?}. Start the application or fix the flow's window pattern.",
                        self.describe(),
                        titles
                    ),
                },
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
        self.pattern.clone()
    }

    /// For a pattern anchored at both ends that fits no title whole: the open titles it fits
    /// in part, and a pattern that would take them (`fp.txt` → `.*fp\.txt` for `/tmp/…/fp.txt`).
    fn fits_in_part(&self, titles: &[String]) -> Option<String> {
        if self_anchored(&self.pattern) {
            return None;
        }
        let loose = Regex::new(&self.pattern).ok()?;
        let inside: Vec<&String> = titles.iter().filter(|t| loose.is_match(t)).collect();
        if inside.is_empty() {
            return None;
        }
        // A plain title is suggested escaped (its dots are dots); a regex as it was.
        let plain = !self.pattern.chars().any(|c| "\\^$|?*+()[]{}".contains(c));
        let core = if plain {
            regex::escape(&self.pattern)
        } else {
            self.pattern.clone()
        };
        let t = inside[0];
        let at_start = Regex::new(&format!("^(?:{})", self.pattern)).is_ok_and(|r| r.is_match(t));
        let at_end = Regex::new(&format!("(?:{})$", self.pattern)).is_ok_and(|r| r.is_match(t));
        let p = format!(
            "{}{core}{}",
            if at_start { "" } else { ".*" },
            if at_end { "" } else { ".*" }
        );
        Some(format!(
            " A window pattern matches the whole title; {:?} only contain{} a match. To take a title that contains it, write '{p}' (or begin it with '^' or end it with '$' to anchor one end only).",
            inside,
            if inside.len() == 1 { "s" } else { "" }
        ))
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
            owner: None,
            takes_no_focus: false,
        }
    }

    fn dialog(id: u32, title: &str, owner: u32) -> WindowInfo {
        WindowInfo {
            owner: Some(owner),
            ..w(id, title, "gtk")
        }
    }

    #[test]
    fn a_dialog_is_found_by_its_owner_under_another_title_and_never_another_owners() {
        let q = WindowQuery::title("^Save As$")
            .unwrap()
            .of_owner(7, vec!["另存为".into()]);
        let main = w(7, "draft.txt - Mousepad", "mousepad");
        // The same title in the other language, a dialog of the run's window: found.
        let got = q.pick(vec![main.clone(), dialog(8, "另存为", 7)]).unwrap();
        assert_eq!(got.id, 8);
        // Under that title but another window's dialog, or no dialog at all: not found.
        for other in [dialog(9, "另存为", 3), w(9, "另存为", "gtk")] {
            let e = q.pick(vec![main.clone(), other]).unwrap_err();
            assert_eq!(e.code, ErrorCode::WindowNotFound);
        }
        // A dialog of the run's window under a title the vocabulary does not know: not taken,
        // and the refusal names it so a person can add it to the flow.
        let e = q
            .pick(vec![main.clone(), dialog(9, "查找并替换", 7)])
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WindowNotFound);
        assert!(e.message.contains("查找并替换"), "{}", e.message);
        // Two "Save As" windows: the run's window's dialog is the one, not the other app's.
        let got = q
            .pick(vec![w(4, "Save As", "other"), dialog(5, "Save As", 7)])
            .unwrap();
        assert_eq!(got.id, 5);
        // Two dialogs of the run's window that both fit: still a refusal.
        let e = q
            .pick(vec![dialog(4, "Save As", 7), dialog(5, "另存为", 7)])
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WindowAmbiguous);
        // Without an owner the other titles mean nothing.
        let plain = WindowQuery::title("^Save As$").unwrap();
        assert!(!plain.matches(&dialog(8, "另存为", 7)));
    }

    #[test]
    fn title_pattern_is_anchored() {
        let q = WindowQuery::title("客户管理系统").unwrap();
        let err = q.pick(vec![w(1, "客户管理系统 - 副本", "tk")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::WindowNotFound);
        assert_eq!(q.pick(vec![w(2, "客户管理系统", "tk")]).unwrap().id, 2);
    }

    /// A pattern that anchors one end itself is taken as written: the main window retitled
    /// "out.txt - Notepad" after a save fits `^out\.txt - ` (issue 35: the assert failed on
    /// every look, since `^(?:^out\.txt - )$` fits no title). Unanchored stays whole.
    #[test]
    fn a_pattern_anchored_at_one_end_is_taken_as_written() {
        let saved = w(1, "out.txt - Notepad", "notepad.exe");
        assert!(WindowQuery::title(r"^out\.txt - ").unwrap().matches(&saved));
        assert!(WindowQuery::title(r" - Notepad$").unwrap().matches(&saved));
        assert!(WindowQuery::title(r"^out\.txt - Notepad$")
            .unwrap()
            .matches(&saved));
        assert!(!WindowQuery::title(r"out\.txt - ").unwrap().matches(&saved));
        assert!(!WindowQuery::title(r"^copy\.txt - ")
            .unwrap()
            .matches(&saved));
        // An escaped dollar is a dollar, not an anchor.
        assert!(!WindowQuery::title(r"Notepad\$").unwrap().matches(&saved));
        assert!(WindowQuery::title(r"Cost \$")
            .unwrap()
            .matches(&w(2, "Cost $", "x")));
    }

    /// A whole-title pattern that only a part of an open title fits: the refusal says patterns
    /// are whole-title and suggests one that takes it (issue 35: `fp.txt` on `/tmp/…/fp.txt`).
    #[test]
    fn a_pattern_that_fits_a_title_in_part_says_so_and_suggests_one() {
        let q = WindowQuery::title("fp.txt").unwrap();
        let e = q
            .pick(vec![
                w(1, "/tmp/work/fp.txt", "mousepad"),
                w(2, "Terminal", "x"),
            ])
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WindowNotFound);
        assert!(e.message.contains("whole title"), "{}", e.message);
        assert!(e.message.contains(r"'.*fp\.txt'"), "{}", e.message);
        // In the middle: open on both sides.
        let e = WindowQuery::title("fp")
            .unwrap()
            .pick(vec![w(1, "fp.txt - Mousepad", "m")])
            .unwrap_err();
        assert!(e.message.contains("'fp.*'"), "{}", e.message);
        // Nothing fits even in part: the usual message, no suggestion.
        let e = WindowQuery::title("Calculator")
            .unwrap()
            .pick(vec![w(1, "fp.txt - Mousepad", "m")])
            .unwrap_err();
        assert!(!e.message.contains("whole title"), "{}", e.message);
    }

    /// Wine's File Manager shows "Not yet implemented" in a message box titled like itself:
    /// the main window's pattern takes the main window, not its dialog.
    #[test]
    fn a_dialog_titled_like_its_main_window_is_no_second_main_window() {
        let q = WindowQuery::title("^Wine File Manager").unwrap();
        let main = w(1, "Wine File Manager - [Z:\\]", "winefile.exe");
        assert_eq!(
            q.pick(vec![main.clone(), dialog(4, "Wine File Manager", 1)])
                .unwrap()
                .id,
            1
        );
        // Two main windows (neither owns the other) stay a refusal, with or without dialogs.
        let e = q
            .pick(vec![
                main.clone(),
                w(2, "Wine File Manager", "winefile.exe"),
                dialog(4, "Wine File Manager", 1),
            ])
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WindowAmbiguous);
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
