use crate::text::label_match;
use crate::SeenLabel;
use mend_model::{MendError, Target};

/// The semantic rung's seam: given the target and what is on screen, pick one candidate or none.
/// Returns `(index, confidence)`. An implementation must refuse (None) rather than guess.
pub trait SemanticMatcher {
    fn choose(
        &self,
        target: &Target,
        seen: &[SeenLabel],
    ) -> Result<Option<(usize, f64)>, MendError>;

    /// What it decided since the last call, one JSON object per question, for the run's audit
    /// (a model's answer and its reason). The offline matcher has nothing to add.
    fn drain_log(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Words that name the same action on legacy screens, across Chinese and English. Kept small
/// and exact: every entry is a meaning an operator would accept without being asked.
const SYNONYMS: &[&[&str]] = &[
    &["查询", "检索", "搜索", "查找", "Search", "Find", "Query"],
    &["保存", "存盘", "Save"],
    &["登录", "登入", "Login", "Sign in", "Log on"],
    &["删除", "Delete", "Remove"],
    &["确定", "确认", "OK"],
    &["取消", "Cancel"],
    &["返回", "Back"],
    &["编辑", "修改", "Edit", "Modify"],
    &["新增", "新建", "添加", "New", "Add"],
    &["用户名", "用户", "User name", "Username", "User"],
    &["密码", "Password"],
    &["客户编号", "Customer ID", "Customer No"],
    &["姓名", "Name"],
    &["电话", "Phone"],
    &["余额", "Balance"],
    &["编号", "ID"],
];

/// The built-in offline matcher: a target's label or its synonyms (including the other
/// language), with the role checked. Two different controls that both fit → no answer.
#[derive(Debug, Default, Clone, Copy)]
pub struct OfflineMatcher;

fn meanings(text: &str) -> Vec<&'static str> {
    SYNONYMS
        .iter()
        .filter(|group| group.iter().any(|w| label_match(w, text) == Some(1.0)))
        .flat_map(|g| g.iter().copied())
        .collect()
}

impl SemanticMatcher for OfflineMatcher {
    fn choose(
        &self,
        target: &Target,
        seen: &[SeenLabel],
    ) -> Result<Option<(usize, f64)>, MendError> {
        let Some(text) = target.text.as_deref() else {
            return Ok(None);
        };
        let words = meanings(text);
        let hits: Vec<usize> = seen
            .iter()
            .enumerate()
            .filter(|(_, s)| target.role.accepts(s.role()) || s.control.is_none())
            .filter(|(_, s)| words.iter().any(|w| label_match(w, &s.text) == Some(1.0)))
            .map(|(i, _)| i)
            .collect();
        Ok(match hits.as_slice() {
            [i] => Some((*i, 0.85)),
            _ => None,
        })
    }
}
