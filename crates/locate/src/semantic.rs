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

/// General UI words that name the same action on any screen, across Chinese and English. Kept
/// small and exact: every entry is a meaning an operator would accept without being asked.
/// Each English–Chinese pair is the one the zh_CN message catalogs shipped with Debian give:
/// GTK 3 (`gtk30.mo`, package libgtk-3-common: Save 保存, Cancel 取消, OK 确定, Delete 删除,
/// Find 查找, Search 搜索, Back 后退, Edit 编辑, New 新建, Add 添加, Remove 移除, Password 密码,
/// Username 用户名, Open 打开, Close 关闭, Apply 应用, Print 打印, Replace 替换, Help 帮助, Quit
/// 退出, File 文件, Save As 另存为, Name: 名称：), Tk 8.6 (`msgs/zh_cn.msg`, package libtk8.6: File name:
/// 文件名：), gnome-keyring (Login 登录) and apt (Query 查询); `semantic_vocabulary_is_sourced`
/// checks them against the catalogs. The other words of a group are older variants of the same
/// command on legacy screens (存盘, 检索, 登入, 确认, 修改, 新增, 返回). A domain's own vocabulary
/// (a customer number, a balance) is not here: a flow's target carries it (`synonyms`).
const SYNONYMS: &[&[&str]] = &[
    &["查询", "检索", "搜索", "查找", "Search", "Find", "Query"],
    &["保存", "存盘", "Save"],
    &["另存为", "Save As"],
    &["文件", "File"],
    &["名称", "Name"],
    &["文件名", "File name"],
    &["登录", "登入", "Login", "Log in", "Sign in", "Log on"],
    &["删除", "Delete"],
    &["移除", "Remove"],
    &["确定", "确认", "OK"],
    &["取消", "Cancel"],
    &["返回", "后退", "Back"],
    &["编辑", "修改", "Edit", "Modify"],
    &["新增", "新建", "添加", "New", "Add"],
    &["用户名", "用户", "User name", "Username", "User"],
    &["密码", "Password"],
    &["打开", "Open"],
    &["关闭", "Close"],
    &["应用", "Apply"],
    &["打印", "Print"],
    &["替换", "Replace"],
    &["帮助", "Help"],
    &["退出", "Quit", "Exit"],
];

/// The other titles a window pattern means by the same vocabulary: `^Save As$` is also a
/// window titled 另存为. Only for a pattern that is one literal title (escapes allowed); a
/// pattern with wildcards or alternatives means only itself.
pub fn title_meanings(pattern: &str) -> Vec<String> {
    let p = pattern.strip_prefix('^').unwrap_or(pattern);
    let p = p
        .strip_suffix('$')
        .filter(|s| !s.ends_with('\\'))
        .unwrap_or(p);
    let mut literal = String::new();
    let mut cs = p.chars();
    while let Some(c) = cs.next() {
        match c {
            '\\' => match cs.next() {
                Some(e) if !e.is_alphanumeric() => literal.push(e),
                _ => return Vec::new(),
            },
            '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '^' | '$' => {
                return Vec::new()
            }
            c => literal.push(c),
        }
    }
    let literal = literal.trim();
    meanings(literal)
        .into_iter()
        .filter(|m| *m != literal)
        .map(str::to_string)
        .collect()
}

/// The English word the UI vocabulary gives a label (密码 → "Password", 用户名 → "User name"),
/// or `None` when it knows none: for naming things after a caption written in another script.
pub fn english_meaning(label: &str) -> Option<&'static str> {
    meanings(label)
        .into_iter()
        .find(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == ' '))
}

/// Whether the UI vocabulary gives `a` a word that is `b` (Save As and 另存为).
pub(crate) fn same_meaning(a: &str, b: &str) -> bool {
    meanings(a)
        .into_iter()
        .any(|w| label_match(w, b) == Some(1.0))
}

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
        // The label's general meanings, and the flow's own words for it with theirs.
        let mut words: Vec<&str> = meanings(text);
        for s in &target.synonyms {
            words.push(s);
            words.extend(meanings(s));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A GNU message catalog (.mo) as msgid → its msgstrs, mnemonics dropped ("_Save" →
    /// "Save", "保存(_S)" → "保存"; "Find" and "_Find" are two entries of one word).
    type Catalog = HashMap<String, Vec<String>>;

    fn catalog(path: &str) -> Catalog {
        let b = std::fs::read(path).unwrap_or_else(|e| {
            panic!("{path}: {e} (the test command installs libgtk-3-common and gnome-keyring)")
        });
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as usize;
        assert_eq!(u32_at(0), 0x950412de, "{path}: a little-endian .mo file");
        let (n, ids, strs) = (u32_at(8), u32_at(12), u32_at(16));
        let text = |table: usize, i: usize| {
            let (len, off) = (u32_at(table + 8 * i), u32_at(table + 8 * i + 4));
            String::from_utf8_lossy(&b[off..off + len]).into_owned()
        };
        let plain = |s: String| {
            // "Stock label\u{4}_Find": a message context before the id.
            let s = s.rsplit('\u{4}').next().unwrap_or_default().to_string();
            let s = match s.find("(_") {
                Some(i) => s[..i].to_string(),
                None => s,
            };
            s.replace('_', "").trim().to_string()
        };
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for i in 0..n {
            out.entry(plain(text(ids, i)))
                .or_default()
                .push(plain(text(strs, i)));
        }
        out
    }

    /// A Tcl message catalog (`::msgcat::mcset zh_cn "File &name:" "文件&名："`) the same way,
    /// its `&` mnemonics dropped.
    fn tcl_catalog(path: &str) -> Catalog {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{path}: {e} (the test command installs python3-tk)"));
        let mut out: Catalog = HashMap::new();
        for line in text.lines() {
            let parts: Vec<&str> = line.split('"').collect();
            if line.trim_start().starts_with("::msgcat::mcset") && parts.len() >= 5 {
                out.entry(parts[1].replace('&', ""))
                    .or_default()
                    .push(parts[3].replace('&', ""));
            }
        }
        out
    }

    #[test]
    fn semantic_vocabulary_is_sourced() {
        let dir = "/usr/share/locale/zh_CN/LC_MESSAGES";
        let tk = tcl_catalog("/usr/share/tcltk/tk8.6/msgs/zh_cn.msg");
        let gtk = catalog(&format!("{dir}/gtk30.mo"));
        let keyring = catalog(&format!("{dir}/gnome-keyring.mo"));
        let apt = catalog(&format!("{dir}/apt.mo"));
        let claims: [(&Catalog, &str, &str); 26] = [
            (&gtk, "Save", "保存"),
            (&gtk, "Cancel", "取消"),
            (&gtk, "OK", "确定"),
            (&gtk, "Delete", "删除"),
            (&gtk, "Find", "查找"),
            (&gtk, "Search", "搜索"),
            (&gtk, "Back", "后退"),
            (&gtk, "Edit", "编辑"),
            (&gtk, "New", "新建"),
            (&gtk, "Add", "添加"),
            (&gtk, "Remove", "移除"),
            (&gtk, "Password", "密码"),
            (&gtk, "Username", "用户名"),
            (&gtk, "Open", "打开"),
            (&gtk, "Close", "关闭"),
            (&gtk, "Apply", "应用"),
            (&gtk, "Print", "打印"),
            (&gtk, "Replace", "替换"),
            (&gtk, "Help", "帮助"),
            (&gtk, "Quit", "退出"),
            (&gtk, "File", "文件"),
            (&gtk, "Save As", "另存为"),
            (&gtk, "Name:", "名称："),
            (&tk, "File name:", "文件名："),
            (&keyring, "Login", "登录"),
            (&apt, "Query", "查询"),
        ];
        for (cat, en, zh) in claims {
            let given = cat.get(en).cloned().unwrap_or_default();
            assert!(
                given.iter().any(|g| g == zh),
                "{en}: the catalog gives {given:?}"
            );
            // And the table puts them in one group.
            assert!(
                meanings(en).iter().any(|m| label_match(m, zh) == Some(1.0)),
                "{en} ↔ {zh} not in one group"
            );
        }
    }

    #[test]
    fn a_literal_window_title_has_its_meanings_and_a_pattern_has_none() {
        assert_eq!(title_meanings("^Save As$"), vec!["另存为".to_string()]);
        assert_eq!(title_meanings("Save As"), vec!["另存为".to_string()]);
        assert!(title_meanings("^保存$").contains(&"Save".to_string()));
        // "Save As" is not "Save": a word added changes the meaning.
        assert!(!title_meanings("^Save As$").contains(&"保存".to_string()));
        for pattern in [".* - Mousepad", "^Save( As)?$", "Save|Open", "^Save As\\w$"] {
            assert!(title_meanings(pattern).is_empty(), "{pattern}");
        }
        assert!(title_meanings("^Find$").contains(&"查找".to_string()));
        assert!(title_meanings("^Find and Replace$").is_empty());
    }

    #[test]
    fn a_domain_word_comes_from_the_flow_not_the_table() {
        use mend_model::{Rect, Role};
        let seen = vec![SeenLabel {
            text: "Phone".into(),
            line: Rect::new(10, 10, 40, 12),
            control: None,
            conf: 95.0,
        }];
        let mut t = Target {
            text: Some("电话".into()),
            role: Role::Field,
            ..Target::default()
        };
        assert_eq!(OfflineMatcher.choose(&t, &seen).unwrap(), None);
        t.synonyms = vec!["Phone".into()];
        assert_eq!(OfflineMatcher.choose(&t, &seen).unwrap(), Some((0, 0.85)));
    }
}
