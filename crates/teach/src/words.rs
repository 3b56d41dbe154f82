//! Words and keys: which captions commit, what a secret is called, how a key is named.

use mend_model::{FlowAction as Action, Risk, Role, Step};

/// Captions that commit something: a click on one is proposed as `risk = "write"`.
const COMMIT_WORDS: &[&str] = &[
    "save", "delete", "remove", "submit", "apply", "ok", "confirm", "send", "post", "pay", "login",
    "log in", "保存", "删除", "确定", "提交", "确认", "应用", "发送", "登录",
];

/// The longest run of characters `a` and `b` share.
pub(crate) fn common_run(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut best = 0;
    let mut prev = vec![0usize; b.len() + 1];
    for x in &a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            if x == y {
                cur[j + 1] = prev[j] + 1;
                best = best.max(cur[j + 1]);
            }
        }
        prev = cur;
    }
    best
}

pub(crate) fn key_step(n: usize, keys: &str) -> Step {
    Step {
        id: Some(format!("s{n}")),
        action: Action::Key,
        target: None,
        text: None,
        clear: false,
        keys: Some(keys.to_string()),
        lines: None,
        to: None,
        check: vec![],
        risk: Risk::Read,
        verify: None,
        compensation: vec![],
        timeout_ms: None,
    }
}

pub(crate) fn role_name(r: Role) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "any".into())
}

pub(crate) fn reads_like_commit(caption: &str) -> bool {
    let c = caption.trim().to_lowercase();
    // "Save As…", "Delete…": an ellipsis says more input follows (a dialog), not a commit.
    if c.ends_with("...") || c.ends_with('…') {
        return false;
    }
    // "保存(S)", "&Save", "Save As…" are commits too; "Saved" is not a caption to click.
    let c: String = c
        .chars()
        .take_while(|ch| !matches!(ch, '(' | '（' | '.' | '…'))
        .filter(|ch| *ch != '&')
        .collect();
    COMMIT_WORDS
        .iter()
        .any(|w| c.trim() == *w || c.starts_with(&format!("{w} ")))
}

/// A secret's name from its field's label: ASCII letters and digits, upper case; a label in
/// another script by its English word in the UI vocabulary (密码 → PASSWORD), else
/// SECRET_<step>; never one already used.
pub(crate) fn secret_name(label: &str, step: usize, used: &[String]) -> String {
    let label = if label.chars().any(|c| c.is_ascii_alphabetic()) {
        label
    } else {
        mend_locate::english_meaning(label).unwrap_or(label)
    };
    let ascii: String = label
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == ' ')
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("_")
        .to_uppercase();
    let base = if ascii.is_empty() || ascii.starts_with(|c: char| c.is_ascii_digit()) {
        format!("SECRET_{step}")
    } else {
        ascii
    };
    if used.contains(&base) {
        format!("{base}_{step}")
    } else {
        base
    }
}

/// The secret names the other flows of `dir` type (`${secret:NAME}` in any `*.toml` there but
/// `own`): a taught secret named like one of them would be set once for two applications.
pub(crate) fn secrets_of_other_flows(dir: &std::path::Path, own: &std::path::Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![];
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.file_name() != own.file_name())
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|src| {
            mend_model::references(&src)
                .into_iter()
                .filter_map(|r| r.strip_prefix("secret:").map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `name`, or, when another flow already uses it, prefixed with this flow's file name in the
/// same form (`bank_login.toml` → `BANK_LOGIN_PASSWORD`).
pub(crate) fn apart_from(name: &str, stem: &str, elsewhere: &[String]) -> String {
    if !elsewhere.iter().any(|n| n == name) {
        return name.to_string();
    }
    let prefix: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    let prefix = prefix.trim_matches('_');
    if prefix.is_empty() || prefix.starts_with(|c: char| c.is_ascii_digit()) {
        format!("FLOW_{prefix}_{name}")
    } else {
        format!("{prefix}_{name}")
    }
}

/// The character a keysym types, for the printable ones (Latin-1 and Unicode keysyms).
pub(crate) fn printable(keysym: u32) -> Option<char> {
    match keysym {
        0x20..=0x7e | 0xa0..=0xff => char::from_u32(keysym),
        0x0100_0000..=0x0110_ffff => char::from_u32(keysym - 0x0100_0000),
        _ => None,
    }
}

/// A key's name in `key` steps' syntax (see `parse_keys`).
pub(crate) fn key_name(keysym: u32) -> Option<String> {
    Some(
        match keysym {
            0xff0d | 0xff8d => "Return",
            0xff09 | 0xfe20 => "Tab",
            0xff1b => "Escape",
            0xff08 => "BackSpace",
            0xffff => "Delete",
            0xff50 => "Home",
            0xff57 => "End",
            0xff51 => "Left",
            0xff52 => "Up",
            0xff53 => "Right",
            0xff54 => "Down",
            0xff55 => "PageUp",
            0xff56 => "PageDown",
            0x20 => "space",
            0xffbe..=0xffd5 => return Some(format!("F{}", keysym - 0xffbe + 1)),
            _ => return printable(keysym).map(|c| c.to_lowercase().to_string()),
        }
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_captions_and_others() {
        for c in ["Save", "保存(S)", "&Delete", "确定", "OK", "Log in"] {
            assert!(reads_like_commit(c), "{c}");
        }
        for c in [
            "Search",
            "查询",
            "Cancel",
            "File",
            "Saved items",
            "Okay then",
        ] {
            assert!(!reads_like_commit(c), "{c}");
        }
    }

    #[test]
    fn a_part_of_the_text_is_shown_text_and_bullets_are_not() {
        assert_eq!(common_run("tmp/.tmpzcro/co", "/tmp/.tmpzcro/copy.txt"), 15);
        assert!(common_run("eeeeeeee", "pw-s3cret") < 4);
        assert!(common_run("********", "pw-s3cret") < 4);
    }

    #[test]
    fn a_secret_another_flow_uses_takes_this_flow_s_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("bank.toml"),
            "[[step]]\naction = \"type\"\ntext = \"${secret:PASSWORD}\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "${secret:PIN}").unwrap();
        let own = dir.path().join("hr-login.toml");
        std::fs::write(&own, "text = \"${secret:OWN}\"").unwrap();
        let elsewhere = secrets_of_other_flows(dir.path(), &own);
        assert_eq!(elsewhere, vec!["PASSWORD".to_string()]);
        assert_eq!(
            apart_from("PASSWORD", "hr-login", &elsewhere),
            "HR_LOGIN_PASSWORD"
        );
        assert_eq!(apart_from("PIN_CODE", "hr-login", &elsewhere), "PIN_CODE");
        assert_eq!(
            apart_from("PASSWORD", "2024", &elsewhere),
            "FLOW_2024_PASSWORD"
        );
    }

    #[test]
    fn secret_names_are_ascii_and_never_reused() {
        assert_eq!(secret_name("Password:", 2, &[]), "PASSWORD");
        assert_eq!(secret_name("密码", 2, &[]), "PASSWORD");
        assert_eq!(secret_name("密码：", 2, &[]), "PASSWORD");
        assert_eq!(secret_name("口令", 2, &[]), "SECRET_2");
        assert_eq!(
            secret_name("PIN code", 5, &["PIN_CODE".into()]),
            "PIN_CODE_5"
        );
    }

    #[test]
    fn keys_are_named_as_key_steps_write_them() {
        assert_eq!(key_name(0xff0d).as_deref(), Some("Return"));
        assert_eq!(key_name(0xffc2).as_deref(), Some("F5"));
        assert_eq!(key_name('S' as u32).as_deref(), Some("s"));
        assert_eq!(printable('a' as u32), Some('a'));
        assert_eq!(printable(0x0100_4E2D), Some('中'));
        assert_eq!(printable(0xff0d), None);
        for k in ["Return", "F5", "ctrl+s", "shift+Tab", "space"] {
            assert!(mend_input::parse_keys(k).is_ok(), "{k}");
        }
    }
}
