//! What "do it again" means for each kind of step. A step is redone when a crash cut it short
//! (its intent is journaled, its result is not) or when a read step acted and its effect did
//! not show. Input is not idempotent: a `type` redone blindly appends (`adminadmin`), a key
//! chord or a scroll moves twice, a drag drops twice. So every kind says how it may be redone,
//! and a kind that cannot be redone safely waits for its `verify` or for a person.
//! docs/flow-format.md has the table.

use crate::flow::{Action, Flow, Risk, Step};
use crate::Role;

/// How a step may be redone when its first attempt may have acted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redo {
    /// Doing it again changes nothing the first attempt did not: focus, wait_for, assert, and
    /// a click on a `read` step (the author declares it navigates and writes nothing).
    Again,
    /// A `type` into a field: the field is read first; if it already holds the text nothing is
    /// typed, otherwise it is emptied (and seen empty) before the text is typed, so it ends
    /// holding exactly the text.
    ReplaceField,
    /// Cannot be redone safely without a `verify` to tell whether it already acted: a write,
    /// a key chord, a scroll, a drag, or a type into something that is not a field.
    NeedsVerify(&'static str),
}

impl Step {
    /// A `type` whose target is a field: its redo can empty the field first.
    pub fn types_into_field(&self) -> bool {
        self.action == Action::Type
            && self
                .target
                .as_ref()
                .and_then(|t| t.role.as_deref())
                .and_then(Role::parse)
                == Some(Role::Field)
    }

    /// How this step may be redone (ignoring its `verify`, which is consulted first).
    pub fn redo(&self) -> Redo {
        match self.action {
            // A check box is read before it is clicked: redone, it is left as it is.
            Action::Focus | Action::WaitFor | Action::Assert | Action::Check | Action::Uncheck => {
                return Redo::Again
            }
            _ => {}
        }
        match self.risk {
            Risk::Write => {
                return Redo::NeedsVerify("a `write` step may have committed its effect")
            }
            Risk::Irreversible => {
                return Redo::NeedsVerify("an `irreversible` step may have committed its effect")
            }
            Risk::Read => {}
        }
        match self.action {
            Action::Click | Action::DoubleClick | Action::RightClick => Redo::Again,
            Action::Type => {
                if self.types_into_field() {
                    Redo::ReplaceField
                } else {
                    Redo::NeedsVerify(
                        "a `type` whose target is not `role = \"field\"` cannot be emptied safely before retyping (Delete on a list deletes a row)",
                    )
                }
            }
            Action::Key => Redo::NeedsVerify("a key chord sent twice acts twice"),
            Action::Scroll => Redo::NeedsVerify(
                "a scroll sent twice moves twice (a spin box or a list changes value)",
            ),
            Action::Drag => Redo::NeedsVerify("a drag sent twice moves twice"),
            Action::Focus | Action::WaitFor | Action::Assert | Action::Check | Action::Uncheck => {
                Redo::Again
            }
        }
    }
}

impl Step {
    /// Whether this step, once the journal says its input went out in full (`acted`), is
    /// finished by its checks after a crash instead of being sent again: a click, a key chord,
    /// a scroll, a drag or a type into a non-field acts twice when sent twice (a calculator
    /// key entered twice, a menu opened and shut again). Not a `write` or `irreversible` step:
    /// input that went out does not say it committed, so it waits for its `verify` or a
    /// person. Not a type into a field: that is read instead (`Redo::ReplaceField`). Not a
    /// check box step: it reads the box first.
    pub fn done_once_sent(&self) -> bool {
        self.risk == Risk::Read
            && !self.types_into_field()
            && matches!(
                self.action,
                Action::Click
                    | Action::DoubleClick
                    | Action::RightClick
                    | Action::Key
                    | Action::Scroll
                    | Action::Drag
                    | Action::Type
            )
    }
}

/// A warning about a valid flow: it runs, but a crash or a retry at this step needs a person.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FlowWarning {
    /// 0-based step.
    pub step: usize,
    pub message: String,
}

/// Steps that cannot be redone safely and have no `verify`: after a crash there, the resume
/// pauses with `RESUME_UNVERIFIED` and a person decides.
pub fn flow_warnings(flow: &Flow) -> Vec<FlowWarning> {
    flow.steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.verify.is_none())
        .filter_map(|(i, s)| match s.redo() {
            Redo::NeedsVerify(why) => Some(FlowWarning {
                step: i,
                message: format!(
                    "step {} ('{}'): no `verify`, and {why}; a crash or failure after it acted pauses the run (RESUME_UNVERIFIED) for a person. Add a `verify` that tells whether it took effect",
                    i + 1,
                    s.id.clone().unwrap_or_else(|| format!("{}", i + 1)),
                ),
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_flow;

    fn steps(body: &str) -> Flow {
        let src = format!("version = 1\nname = \"t\"\n[window]\ntitle = \"T\"\n{body}");
        parse_flow("t.toml", &src, &[]).unwrap()
    }

    #[test]
    fn each_kind_says_how_it_is_redone() {
        let f = steps(
            r#"
[[step]]
action = "type"
target = { text = "User", role = "field" }
text = "admin"
[[step]]
action = "type"
target = { text = "Notes" }
text = "x"
[[step]]
action = "click"
target = { text = "Search", role = "button" }
[[step]]
action = "click"
target = { text = "Save", role = "button" }
risk = "write"
[[step]]
action = "key"
keys = "Return"
[[step]]
action = "scroll"
target = { text = "List" }
[[step]]
action = "assert"
check = [{ exists = { text = "Done" } }]
[[step]]
action = "type"
target = { text = "Amount", role = "field" }
text = "5"
risk = "write"
"#,
        );
        let kinds: Vec<Redo> = f.steps.iter().map(Step::redo).collect();
        assert_eq!(kinds[0], Redo::ReplaceField);
        assert!(matches!(kinds[1], Redo::NeedsVerify(_)));
        assert_eq!(kinds[2], Redo::Again);
        assert!(matches!(kinds[3], Redo::NeedsVerify(_)));
        assert!(matches!(kinds[4], Redo::NeedsVerify(_)));
        assert!(matches!(kinds[5], Redo::NeedsVerify(_)));
        assert_eq!(kinds[6], Redo::Again);
        assert!(matches!(kinds[7], Redo::NeedsVerify(_)));
        let w: Vec<usize> = flow_warnings(&f).iter().map(|w| w.step).collect();
        assert_eq!(w, vec![1, 3, 4, 5, 7]);
    }

    #[test]
    fn a_check_box_step_is_redone_even_as_a_write_and_needs_its_caption() {
        let f = steps(
            r#"
[[step]]
action = "check"
target = { text = "Replace all" }
risk = "write"
[[step]]
action = "uncheck"
target = { text = "Decorate", role = "label" }
"#,
        );
        assert!(f.steps.iter().all(|s| s.redo() == Redo::Again));
        assert!(flow_warnings(&f).is_empty());
        for bad in [
            "target = { near = \"Replace all\", offset = [-20, 0] }",
            "target = { text = \"Replace all\", role = \"button\" }",
            "",
        ] {
            let src = format!(
                "version = 1\nname = \"t\"\n[window]\ntitle = \"T\"\n[[step]]\naction = \"check\"\n{bad}\n"
            );
            let e = parse_flow("t.toml", &src, &[]).unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::FlowInvalid, "{bad}");
        }
    }

    #[test]
    fn a_verify_silences_the_warning() {
        let f = steps(
            r#"
[[step]]
action = "click"
target = { text = "Save", role = "button" }
risk = "write"
verify = { exists = { text = "Saved" } }
"#,
        );
        assert!(flow_warnings(&f).is_empty());
    }

    #[test]
    fn the_sample_flows_have_no_warnings() {
        for (name, src) in [
            (
                "login_edit_save",
                include_str!("../../../fixtures/flows/login_edit_save.toml"),
            ),
            (
                "new_customers",
                include_str!("../../../fixtures/flows/new_customers.toml"),
            ),
            (
                "delete_with_confirm",
                include_str!("../../../fixtures/flows/delete_with_confirm.toml"),
            ),
            (
                "login_search",
                include_str!("../../../fixtures/flows/login_search.toml"),
            ),
        ] {
            let cols: Vec<String> = ["name", "phone", "balance"].map(String::from).to_vec();
            let f = parse_flow(name, src, &cols).unwrap();
            assert_eq!(flow_warnings(&f), vec![], "{name}");
        }
    }
}
