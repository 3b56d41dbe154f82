use crate::Rect;
use serde::{Deserialize, Serialize};

/// What kind of control a target is. `Any` accepts every role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Button,
    Field,
    Label,
    Table,
    ColumnHeader,
    Row,
    Menu,
    Text,
    /// A place with no control of its own — a canvas, a picture, the bare part of a view — named
    /// by an anchor and an offset (`near`, `offset`): only found where the pixels show neither
    /// a control nor words (chain.rs, the anchor rung).
    Area,
    #[default]
    Any,
}

impl Role {
    pub fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "button" | "dialog_button" => Role::Button,
            "field" | "edit" | "input" => Role::Field,
            "label" => Role::Label,
            "table" => Role::Table,
            "column_header" | "header" => Role::ColumnHeader,
            "row" => Role::Row,
            "menu" => Role::Menu,
            "text" => Role::Text,
            "area" => Role::Area,
            "any" => Role::Any,
            _ => return None,
        })
    }

    /// Whether a control seen as `seen` can be what a target of role `self` means.
    /// An area is no control: it accepts none, and no target takes one for a control.
    pub fn accepts(self, seen: Role) -> bool {
        if self == Role::Area || seen == Role::Area {
            return self == seen;
        }
        self == Role::Any || seen == Role::Any || self == seen
    }
}

/// Which rung of the locator chain produced an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// The accessibility tree named it and the pixels agreed.
    Structure,
    Exact,
    FuzzyOcr,
    Semantic,
    Anchor,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Structure => "structure",
            Strategy::Exact => "exact",
            Strategy::FuzzyOcr => "fuzzy_ocr",
            Strategy::Semantic => "semantic",
            Strategy::Anchor => "anchor",
        }
    }
}

/// What a step points at, as data: everything the chain may use to find it again.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Target {
    /// The visible label of the control (for a field: the label beside it, see `near`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default)]
    pub role: Role,
    /// A stable label the target sits next to (the field right of 用户名).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<String>,
    /// Offset from the anchor label's centre to the target's centre, recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<(i32, i32)>,
    /// Where the control was when recorded, in window pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Rect>,
    /// Free text for the semantic rung ("the button that runs the search").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Other words this flow's author accepts for the label (its domain's vocabulary: 姓名 on a
    /// screen that says Name), for the semantic rung.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// Where the control sat in its window's accessibility tree when it was taught.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<TreeId>,
}

/// A control's place in its window's accessibility tree, as taught: the role path from the
/// window down (`frame/filler[0]/menu bar[0]/menu item[2]`, indices among same-role siblings)
/// and how many siblings of its role its parent had then. It names the control where its
/// caption is in another language than the flow's (the same UI translated keeps its shape);
/// the structural rung answers by it only where the pixels read the tree's own name there.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeId {
    pub path: String,
    /// Siblings of the control's role under its parent, itself included.
    pub of: u32,
}

/// A control the chain considered, with its box in frame pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub rect: Rect,
    pub text: String,
    pub role: Role,
    pub score: f64,
}

/// A confident answer of the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Located {
    pub strategy: Strategy,
    /// Frame (window) pixels.
    #[serde(rename = "box")]
    pub rect: Rect,
    /// Screen pixels.
    pub screen_box: Rect,
    pub confidence: f64,
    pub text: String,
    pub frame_id: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_round_trips_through_json() {
        let t = Target {
            text: Some("查询".into()),
            role: Role::Button,
            near: None,
            offset: None,
            recorded: Some(Rect::new(1, 2, 3, 4)),
            context: Some("runs the search".into()),
            synonyms: vec!["Search".into()],
            tree: Some(TreeId {
                path: "frame/push button[1]".into(),
                of: 3,
            }),
        };
        let s = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Target>(&s).unwrap(), t);
    }

    #[test]
    fn any_role_accepts_everything() {
        assert!(Role::Any.accepts(Role::Button));
        assert!(Role::Button.accepts(Role::Any));
        assert!(!Role::Button.accepts(Role::Field));
        assert_eq!(Role::parse("dialog_button"), Some(Role::Button));
        assert_eq!(Role::parse("nonsense"), None);
    }
}
