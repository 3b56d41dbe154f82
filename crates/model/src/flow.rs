//! The flow file: TOML, one `[[step]]` table per step, so a flow reads top to bottom and diffs
//! line by line. Parsing is strict (unknown keys are errors) and every failure is `FLOW_INVALID`
//! with `line:col` and what to change — a malformed flow never panics and never runs.
//! The format is documented in docs/flow-format.md.

use crate::{ErrorCode, MendError, Rect, Role};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

pub const FLOW_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub version: u32,
    pub name: String,
    pub window: WindowSpec,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    #[serde(default, rename = "interrupt")]
    pub interrupts: Vec<Interrupt>,
    #[serde(rename = "step")]
    pub steps: Vec<Step>,
}

impl Flow {
    /// The texts the flow gives its targets (steps, drag ends, checks, compensations), with no
    /// variable in them: the flow's own names for its controls. A control the flow names one
    /// way is never another target's synonym.
    pub fn target_names(&self) -> Vec<String> {
        fn of_check(c: &Check) -> Option<&TargetSpec> {
            match c {
                Check::Exists(t) | Check::NotExists(t) | Check::TextMatches { target: t, .. } => {
                    Some(t)
                }
                Check::WindowTitle(_) => None,
            }
        }
        fn of_step<'s>(s: &'s Step, out: &mut Vec<&'s TargetSpec>) {
            out.extend(s.target.iter().chain(s.to.iter()));
            out.extend(s.check.iter().chain(s.verify.iter()).filter_map(of_check));
            for c in &s.compensation {
                of_step(c, out);
            }
        }
        let mut specs = Vec::new();
        for s in &self.steps {
            of_step(s, &mut specs);
        }
        let mut names: Vec<String> = specs
            .into_iter()
            .filter_map(|t| t.text.clone())
            .filter(|t| !t.contains("${"))
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// The application the flow drives, and every window it may send input to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowSpec {
    /// Anchored regex of the main window's title.
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Further window titles (dialogs) input may go to. The main title is always allowed.
    #[serde(default)]
    pub allow: Vec<String>,
}

/// "When a window like 会话即将过期 appears, click 确定": checked between steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interrupt {
    /// Title (anchored regex) of the window that interrupts.
    pub window: String,
    /// The button that dismisses it.
    pub click: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    #[default]
    Read,
    Write,
    Irreversible,
}

/// A target as written in a flow: what the locator needs, plus the recorded crop's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TargetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<[i32; 2]>,
    /// Window pixels where it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Rect>,
    /// Template crop, relative to the flow file's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crop: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Title of the window the target is in, when not the main window (a dialog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Other labels that mean this control in the flow's domain (姓名 ↔ Name), used by the
    /// semantic rung when the label itself is not on the screen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// Its place in the window's accessibility tree, written by `mend teach` / `mend run
    /// --record` where the window has a tree: `tree = { path = "…", of = N }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<crate::locate::TreeId>,
}

/// A condition on the screen: assertions, waits and verify conditions all use it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Check {
    Exists(TargetSpec),
    NotExists(TargetSpec),
    WindowTitle(String),
    /// The text read at the target matches this regex.
    TextMatches {
        target: TargetSpec,
        pattern: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Action {
    Focus,
    Click,
    DoubleClick,
    RightClick,
    Type,
    Key,
    Scroll,
    Drag,
    WaitFor,
    Assert,
    /// Tick the check box captioned by the target: read first, clicked only when clear, and
    /// it must read ticked afterwards.
    Check,
    /// Clear the check box captioned by the target (the same, the other way).
    Uncheck,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetSpec>,
    /// For `type`: the text (may hold `${var}` and `${secret:NAME}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// For `type`: select the field's content first (ctrl+a) so the text replaces it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear: bool,
    /// For `key`: "Return", "ctrl+a".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// For `scroll`: lines (negative = up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<i32>,
    /// For `drag`: where to drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<TargetSpec>,
    /// For `wait_for` and `assert`; after any action, checked once it settled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check: Vec<Check>,
    #[serde(default, skip_serializing_if = "is_read")]
    pub risk: Risk,
    /// How to tell this step already took effect: what makes resume safe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<Check>,
    /// Steps that undo this one, run in reverse on abort.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compensation: Vec<Step>,
    /// Per-step timeout for the screen to settle, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

fn is_read(r: &Risk) -> bool {
    *r == Risk::Read
}

fn line_col(src: &str, byte: usize) -> (usize, usize) {
    let before = &src[..byte.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Where the n-th `[[step]]` header is (1-based line), for errors found after parsing.
fn step_line(src: &str, n: usize) -> usize {
    src.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[step]]"))
        .nth(n)
        .map_or(1, |(i, _)| i + 1)
}

fn invalid(name: &str, line: usize, col: usize, msg: impl std::fmt::Display) -> MendError {
    MendError::new(
        ErrorCode::FlowInvalid,
        format!("{name}:{line}:{col}: {msg}"),
    )
}

/// `${name}` and `${secret:NAME}` references in a text.
pub fn references(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) => {
                out.push(&after[..j]);
                rest = &after[j + 1..];
            }
            None => {
                out.push(after);
                break;
            }
        }
    }
    out
}

/// Parse and validate a flow. `name` is used in messages (the file name).
/// `columns` are the data-row columns available as `${name}` (from `--data`), if any.
pub fn parse_flow(name: &str, src: &str, columns: &[String]) -> Result<Flow, MendError> {
    let flow: Flow = toml::from_str(src).map_err(|e| {
        let (l, c) = e.span().map_or((1, 1), |s| line_col(src, s.start));
        invalid(name, l, c, e.message().trim())
    })?;
    if flow.version != FLOW_VERSION {
        let (l, c) = src.find("version").map_or((1, 1), |b| line_col(src, b));
        return Err(invalid(
            name,
            l,
            c,
            format!(
                "version {} is not supported; this Mend reads version {FLOW_VERSION}",
                flow.version
            ),
        ));
    }
    if flow.steps.is_empty() {
        return Err(invalid(name, 1, 1, "the flow has no [[step]]"));
    }
    let mut ids = HashSet::new();
    for (i, step) in flow.steps.iter().enumerate() {
        let at =
            |msg: String| invalid(name, step_line(src, i), 1, format!("step {}: {msg}", i + 1));
        if let Some(id) = &step.id {
            if !ids.insert(id.clone()) {
                return Err(at(format!(
                    "id '{id}' is used twice; step ids must be unique"
                )));
            }
        }
        check_step(step, &flow.vars, columns).map_err(at)?;
    }
    for re in std::iter::once(&flow.window.title).chain(&flow.window.allow) {
        if let Err(e) = regex::Regex::new(re) {
            return Err(invalid(
                name,
                1,
                1,
                format!("window pattern '{re}' is not a regular expression: {e}"),
            ));
        }
    }
    Ok(flow)
}

fn check_target(t: &TargetSpec, what: &str) -> Result<(), String> {
    if t.text.is_none() && t.near.is_none() && t.crop.is_none() {
        return Err(format!(
            "{what} needs `text`, `near` or a recorded `crop` (a control known by its pixels)"
        ));
    }
    if let Some(r) = &t.role {
        if Role::parse(r).is_none() {
            return Err(format!(
                "{what}: role '{r}' is not a role; use button, field, label, text, menu, column_header, row, table, area or any"
            ));
        }
    }
    if t.offset.is_some() && t.near.is_none() {
        return Err(format!("{what}: `offset` needs `near`"));
    }
    if is_area(t) && (t.near.is_none() || t.offset.is_none() || t.text.is_some()) {
        return Err(format!(
            "{what}: an area (a canvas, a picture: no control, no words) is named by `near` and `offset` alone, without `text`"
        ));
    }
    Ok(())
}

fn is_area(t: &TargetSpec) -> bool {
    t.role.as_deref().and_then(Role::parse) == Some(Role::Area)
}

fn check_check(c: &Check) -> Result<(), String> {
    if let Check::Exists(t) | Check::NotExists(t) | Check::TextMatches { target: t, .. } = c {
        if is_area(t) {
            return Err(
                "a check looks for a control or words; an area has neither (check what the click shows)"
                    .into(),
            );
        }
    }
    match c {
        Check::Exists(t) | Check::NotExists(t) => check_target(t, "the check's target"),
        Check::WindowTitle(p) if p.is_empty() => Err("window_title is empty".into()),
        Check::WindowTitle(_) => Ok(()),
        Check::TextMatches { target, pattern } => {
            check_target(target, "text_matches' target")?;
            if pattern.is_empty() {
                return Err("text_matches has an empty pattern".into());
            }
            Ok(())
        }
    }
}

fn check_step(s: &Step, vars: &BTreeMap<String, String>, columns: &[String]) -> Result<(), String> {
    let needs_target = matches!(
        s.action,
        Action::Click
            | Action::DoubleClick
            | Action::RightClick
            | Action::Type
            | Action::Drag
            | Action::Scroll
            | Action::Check
            | Action::Uncheck
    );
    match (&s.target, needs_target) {
        (None, true) => return Err(format!("{:?} needs a `target`", s.action).to_lowercase()),
        (Some(t), _) => check_target(t, "target")?,
        _ => {}
    }
    if s.target.as_ref().is_some_and(is_area)
        && !matches!(
            s.action,
            Action::Click | Action::DoubleClick | Action::RightClick | Action::Scroll
        )
    {
        return Err(format!(
            "{} does not go to an area (a canvas, a picture): click, double_click, right_click or scroll it",
            format!("{:?}", s.action).to_lowercase()
        ));
    }
    match s.action {
        Action::Type if s.text.is_none() => return Err("type needs `text`".into()),
        Action::Key if s.keys.is_none() => {
            return Err("key needs `keys` (\"Return\", \"ctrl+a\")".into())
        }
        Action::Drag if s.to.is_none() => return Err("drag needs `to`".into()),
        Action::Check | Action::Uncheck
            if s.target.as_ref().is_some_and(|t| {
                t.text.is_none()
                    || !matches!(
                        t.role.as_deref().map(Role::parse),
                        None | Some(Some(Role::Any | Role::Label | Role::Text))
                    )
            }) =>
        {
            return Err(format!(
                "{} needs the check box's caption as its target's `text` (role left out, or \"label\")",
                if s.action == Action::Check { "check" } else { "uncheck" }
            ))
        }
        Action::WaitFor | Action::Assert if s.check.is_empty() => {
            return Err("wait_for and assert need at least one `check`".into())
        }
        _ => {}
    }
    if let Some(t) = &s.to {
        check_target(t, "to")?;
    }
    for c in s.check.iter().chain(s.verify.iter()) {
        check_check(c)?;
    }
    if let Some(text) = &s.text {
        for r in references(text) {
            if let Some(secret) = r.strip_prefix("secret:") {
                if secret.is_empty() {
                    return Err("`${secret:}` names no secret".into());
                }
            } else if !vars.contains_key(r) && !columns.iter().any(|c| c == r) {
                return Err(format!(
                    "`${{{r}}}` is not defined: add it under [vars], pass --var {r}=…, or give a --data file with a '{r}' column"
                ));
            }
        }
    }
    for (i, c) in s.compensation.iter().enumerate() {
        check_step(c, vars, columns).map_err(|e| format!("compensation {}: {e}", i + 1))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
version = 1
name = "log in"

[window]
title = "客户管理系统"

[vars]
user = "admin"

[[step]]
action = "type"
target = { text = "用户名", role = "field" }
text = "${user}"

[[step]]
action = "click"
target = { text = "登录", role = "button" }
risk = "write"
verify = { exists = { text = "查询", role = "button" } }
"#;

    #[test]
    fn a_good_flow_parses() {
        let f = parse_flow("f.toml", GOOD, &[]).unwrap();
        assert_eq!(f.steps.len(), 2);
        assert_eq!(f.steps[1].risk, Risk::Write);
    }

    #[test]
    fn errors_carry_line_and_column() {
        let bad = GOOD.replace("action = \"click\"", "acton = \"click\"");
        let e = parse_flow("f.toml", &bad, &[]).unwrap_err();
        assert_eq!(e.code, ErrorCode::FlowInvalid);
        assert!(
            e.message.starts_with("f.toml:17:1: unknown field `acton`"),
            "{}",
            e.message
        );

        let undefined = GOOD.replace("${user}", "${who}");
        let e = parse_flow("f.toml", &undefined, &[]).unwrap_err();
        assert!(
            e.message.starts_with("f.toml:11:1: step 1:"),
            "{}",
            e.message
        );
        assert!(e.message.contains("--var who="), "{}", e.message);
        assert!(parse_flow("f.toml", &undefined, &["who".into()]).is_ok());
    }

    /// A title with a literal bracket escaped (`ScummVM 2.7.0 (Feb 17 2023)`) is a pattern
    /// like any other; one the regex engine cannot compile is refused with its reason.
    #[test]
    fn a_window_pattern_is_checked_by_the_regex_engine() {
        let escaped = GOOD.replace("客户管理系统", r"^ScummVM [0-9.]+ \\(");
        assert!(parse_flow("f.toml", &escaped, &[]).is_ok());
        let open = GOOD.replace("客户管理系统", "^ScummVM (");
        let e = parse_flow("f.toml", &open, &[]).unwrap_err();
        assert_eq!(e.code, ErrorCode::FlowInvalid);
        assert!(
            e.message.contains("not a regular expression"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_target_is_a_text_a_near_label_or_a_recorded_crop() {
        let step = |t: &str| {
            format!("version = 1\nname = \"t\"\n[window]\ntitle = \"T\"\n[[step]]\naction = \"click\"\ntarget = {t}\n")
        };
        assert!(parse_flow("f", &step(r#"{ crop = "f.crops/icon.png" }"#), &[]).is_ok());
        let e = parse_flow("f", &step(r#"{ role = "button" }"#), &[]).unwrap_err();
        assert_eq!(e.code, ErrorCode::FlowInvalid);
        assert!(
            e.message.contains("`text`, `near` or a recorded `crop`"),
            "{}",
            e.message
        );
    }

    /// An area (a canvas, a picture) is a place by an anchor and an offset: clicked, never
    /// typed into or checked for, and never named by words it does not hold.
    #[test]
    fn an_area_is_named_by_an_anchor_and_an_offset_and_only_clicked() {
        let step = |action: &str, t: &str| {
            format!("version = 1\nname = \"t\"\n[window]\ntitle = \"T\"\n[[step]]\naction = \"{action}\"\ntarget = {t}\ntext = \"x\"\n")
        };
        let area = r#"{ near = "Resolution:", offset = [0, -150], role = "area" }"#;
        assert!(parse_flow("f", &step("right_click", area), &[]).is_ok());
        assert!(parse_flow("f", &step("click", area), &[]).is_ok());
        for (action, t, says) in [
            ("type", area, "does not go to an area"),
            (
                "click",
                r#"{ near = "Resolution:", role = "area" }"#,
                "`near` and `offset` alone",
            ),
            (
                "click",
                r#"{ text = "picture", near = "Resolution:", offset = [0, -150], role = "area" }"#,
                "without `text`",
            ),
        ] {
            let e = parse_flow("f", &step(action, t), &[]).unwrap_err();
            assert_eq!(e.code, ErrorCode::FlowInvalid);
            assert!(e.message.contains(says), "{action} {t}: {}", e.message);
        }
        let check = format!(
            "version = 1\nname = \"t\"\n[window]\ntitle = \"T\"\n[[step]]\naction = \"assert\"\ncheck = [{{ exists = {area} }}]\n"
        );
        let e = parse_flow("f", &check, &[]).unwrap_err();
        assert!(e.message.contains("an area has neither"), "{}", e.message);
    }

    #[test]
    fn references_are_found() {
        assert_eq!(references("a ${x} b ${secret:PW}"), vec!["x", "secret:PW"]);
        assert_eq!(references("${open"), vec!["open"]);
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// Every prefix of a valid flow, and every single-byte corruption of it, parses or is
    /// FLOW_INVALID: never a panic. (The cheap, always-on cousin of a fuzz target.)
    #[test]
    fn truncated_and_corrupted_flows_never_panic() {
        let src = include_str!("../../../fixtures/flows/login_edit_save.toml");
        for (i, _) in src.char_indices() {
            if let Err(e) = parse_flow("f", &src[..i], &[]) {
                assert_eq!(e.code, ErrorCode::FlowInvalid);
            }
        }
        let bytes = src.as_bytes();
        for i in (0..bytes.len()).step_by(7) {
            for b in [b'"', b'[', b'=', b'\n', b'}', b'{', b'$'] {
                let mut m = bytes.to_vec();
                m[i] = b;
                if let Ok(s) = String::from_utf8(m) {
                    if let Err(e) = parse_flow("f", &s, &[]) {
                        assert_eq!(e.code, ErrorCode::FlowInvalid);
                    }
                }
            }
        }
    }
}
