//! Pure helpers: role-number mapping and role-path segments.

/// at-spi2-core's role names (`atspi_role_get_name`), indexed by `AtspiRole`.
const ROLE_NAMES: [&str; 130] = [
    "invalid",
    "accelerator label",
    "alert",
    "animation",
    "arrow",
    "calendar",
    "canvas",
    "check box",
    "check menu item",
    "color chooser",
    "column header",
    "combo box",
    "date editor",
    "desktop icon",
    "desktop frame",
    "dial",
    "dialog",
    "directory pane",
    "drawing area",
    "file chooser",
    "filler",
    "focus traversable",
    "font chooser",
    "frame",
    "glass pane",
    "html container",
    "icon",
    "image",
    "internal frame",
    "label",
    "layered pane",
    "list",
    "list item",
    "menu",
    "menu bar",
    "menu item",
    "option pane",
    "page tab",
    "page tab list",
    "panel",
    "password text",
    "popup menu",
    "progress bar",
    "push button",
    "radio button",
    "radio menu item",
    "root pane",
    "row header",
    "scroll bar",
    "scroll pane",
    "separator",
    "slider",
    "spin button",
    "split pane",
    "status bar",
    "table",
    "table cell",
    "table column header",
    "table row header",
    "tearoff menu item",
    "terminal",
    "text",
    "toggle button",
    "tool bar",
    "tool tip",
    "tree",
    "tree table",
    "unknown",
    "viewport",
    "window",
    "extended",
    "header",
    "footer",
    "paragraph",
    "ruler",
    "application",
    "autocomplete",
    "edit bar",
    "embedded",
    "entry",
    "chart",
    "caption",
    "document frame",
    "heading",
    "page",
    "section",
    "redundant object",
    "form",
    "link",
    "input method window",
    "table row",
    "tree item",
    "document spreadsheet",
    "document presentation",
    "document text",
    "document web",
    "document email",
    "comment",
    "list box",
    "grouping",
    "image map",
    "notification",
    "info bar",
    "level bar",
    "title bar",
    "block quote",
    "audio",
    "video",
    "definition",
    "article",
    "landmark",
    "log",
    "marquee",
    "math",
    "rating",
    "timer",
    "static",
    "math fraction",
    "math root",
    "subscript",
    "superscript",
    "description list",
    "description term",
    "description value",
    "footnote",
    "content deletion",
    "content insertion",
    "mark",
    "suggestion",
    "push button menu",
];

/// The AT-SPI role name for a role number (`Accessible.GetRole`), as the registry's
/// `GetRoleName` spells it ("push button", "menu item", ...); "unknown" when out of range.
pub fn role_name(role: u32) -> &'static str {
    ROLE_NAMES.get(role as usize).copied().unwrap_or("unknown")
}

/// Roles whose `checked` state is meaningful.
pub fn is_checkable_role(role: &str) -> bool {
    matches!(
        role,
        "check box"
            | "toggle button"
            | "radio button"
            | "check menu item"
            | "radio menu item"
            | "switch"
    )
}

/// Roles that hold controls rather than being one: never a target (a frame or a panel is named
/// by its title, and its box holds every control in it), and a click inside one means a control
/// in it.
pub fn is_container_role(role: &str) -> bool {
    matches!(
        role,
        "frame"
            | "dialog"
            | "window"
            | "file chooser"
            | "panel"
            | "filler"
            | "scroll pane"
            | "split pane"
            | "layered pane"
            | "root pane"
            | "viewport"
            | "page tab list"
            | "tool bar"
            | "menu bar"
            | "application"
            | "unknown"
            | "popup menu"
            | "option pane"
            | "internal frame"
            | "glass pane"
    )
}

/// Path segments for a node's children in order: `role[i]` with `i` counting earlier
/// siblings of the same role.
pub fn sibling_segments<S: AsRef<str>>(roles: &[S]) -> Vec<String> {
    let mut seen: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    roles
        .iter()
        .map(|r| {
            let r = r.as_ref();
            let i = seen.entry(r).or_insert(0);
            let seg = format!("{r}[{i}]");
            *i += 1;
            seg
        })
        .collect()
}

/// `parent/segment`.
pub fn join(parent: &str, seg: &str) -> String {
    let mut s = String::with_capacity(parent.len() + seg.len() + 1);
    s.push_str(parent);
    s.push('/');
    s.push_str(seg);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_map_to_registry_names() {
        // Numbers from at-spi2-core's AtspiRole enum.
        assert_eq!(role_name(23), "frame");
        assert_eq!(role_name(43), "push button");
        assert_eq!(role_name(35), "menu item");
        assert_eq!(role_name(34), "menu bar");
        assert_eq!(role_name(33), "menu");
        assert_eq!(role_name(61), "text");
        assert_eq!(role_name(7), "check box");
        assert_eq!(role_name(29), "label");
        assert_eq!(role_name(37), "page tab");
        assert_eq!(role_name(16), "dialog");
        assert_eq!(role_name(69), "window");
        assert_eq!(role_name(10_000), "unknown");
        // Same numbering as the atspi crate's enum (whose names differ a little: "button").
        for i in 0..ROLE_NAMES.len() as u32 {
            let theirs = atspi::Role::try_from(i).unwrap().name();
            if theirs != role_name(i) {
                assert!(
                    matches!((i, theirs), (43, "button") | (77, "editbar")),
                    "{i}: {theirs}"
                );
            }
        }
        assert!(atspi::Role::try_from(ROLE_NAMES.len() as u32).is_err());
        assert!(is_checkable_role("check box"));
        assert!(is_checkable_role("radio menu item"));
        assert!(!is_checkable_role("push button"));
    }

    #[test]
    fn segments_count_same_role_siblings() {
        let segs = sibling_segments(&[
            "menu item",
            "separator",
            "menu item",
            "menu item",
            "separator",
        ]);
        assert_eq!(
            segs,
            [
                "menu item[0]",
                "separator[0]",
                "menu item[1]",
                "menu item[2]",
                "separator[1]"
            ]
        );
        assert!(sibling_segments::<&str>(&[]).is_empty());
        assert_eq!(
            join("frame/filler[0]", "menu bar[0]"),
            "frame/filler[0]/menu bar[0]"
        );
    }
}
