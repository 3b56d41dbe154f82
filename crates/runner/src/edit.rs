//! Changing a flow file in place — `mend record` and accepted takeover changes — with
//! `toml_edit`, so the operator's comments and layout survive.

use image::RgbaImage;
use mend_model::{ErrorCode, MendError, Rect, TargetSpec, TreeId};
use std::path::Path;

fn bad(e: String) -> MendError {
    MendError::new(ErrorCode::InvalidArgument, e)
}

/// What to set on one step's target.
#[derive(Debug, Clone, Default)]
pub struct TargetEdit {
    pub text: Option<String>,
    pub recorded: Option<Rect>,
    /// Pixels to save as the step's crop (into `<flow>.crops/<name>.png`).
    pub crop: Option<(String, RgbaImage)>,
    /// The control's place in its window's accessibility tree: `Some(None)` removes the one
    /// the target had (a person's pick supersedes a taught place), `None` leaves it.
    pub tree: Option<Option<TreeId>>,
}

/// Apply edits to steps' targets (by step index) and write the file back.
pub fn edit_targets(path: &Path, edits: &[(usize, TargetEdit)]) -> Result<(), MendError> {
    let src = std::fs::read_to_string(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    let mut doc: toml_edit::DocumentMut = src
        .parse()
        .map_err(|e| bad(format!("{}: {e}", path.display())))?;
    let stem = path
        .file_stem()
        .map_or("flow".into(), |s| s.to_string_lossy().into_owned());
    let crops = format!("{stem}.crops");
    let dir = path.parent().unwrap_or(Path::new("."));
    let steps = doc["step"]
        .as_array_of_tables_mut()
        .ok_or_else(|| bad("the flow has no [[step]] tables".into()))?;
    for (i, edit) in edits {
        let item = steps
            .get_mut(*i)
            .and_then(|t| t.get_mut("target"))
            .ok_or_else(|| bad(format!("step {} has no target", i + 1)))?;
        let target = item
            .as_table_like_mut()
            .ok_or_else(|| bad(format!("step {}'s target is not a table", i + 1)))?;
        if let Some(t) = &edit.text {
            target.insert("text", toml_edit::value(t.as_str()));
        }
        if let Some(r) = edit.recorded {
            let mut t = toml_edit::InlineTable::new();
            for (k, v) in [("x", r.x), ("y", r.y), ("w", r.w), ("h", r.h)] {
                t.insert(k, (v as i64).into());
            }
            target.insert("recorded", toml_edit::value(t));
        }
        if let Some((name, img)) = &edit.crop {
            let rel = format!("{crops}/{name}.png");
            std::fs::create_dir_all(dir.join(&crops)).map_err(|e| bad(format!("{crops}: {e}")))?;
            img.save(dir.join(&rel))
                .map_err(|e| bad(format!("{rel}: {e}")))?;
            target.insert("crop", toml_edit::value(rel));
        }
        match &edit.tree {
            Some(Some(id)) => {
                target.insert("tree", toml_edit::value(tree_table(id)));
            }
            Some(None) => {
                target.remove("tree");
            }
            None => {}
        }
        if let Some(t) = item.as_inline_table_mut() {
            t.fmt();
        }
    }
    std::fs::write(path, doc.to_string()).map_err(|e| bad(format!("{}: {e}", path.display())))
}

/// `{ path = "…", of = N }`.
fn tree_table(id: &TreeId) -> toml_edit::InlineTable {
    let mut t = toml_edit::InlineTable::new();
    t.insert("path", id.path.as_str().into());
    t.insert("of", (id.of as i64).into());
    t
}

/// A target as one TOML line, keys in the flow format's order, for diffs a person reviews.
pub fn target_line(t: &TargetSpec) -> String {
    let mut table = toml_edit::InlineTable::new();
    let mut put = |k: &str, v: Option<toml_edit::Value>| {
        if let Some(v) = v {
            table.insert(k, v);
        }
    };
    put("text", t.text.as_deref().map(Into::into));
    put("role", t.role.as_deref().map(Into::into));
    put("near", t.near.as_deref().map(Into::into));
    put(
        "offset",
        t.offset.map(|[x, y]| {
            let mut a = toml_edit::Array::new();
            a.push(x as i64);
            a.push(y as i64);
            toml_edit::Value::Array(a)
        }),
    );
    put(
        "recorded",
        t.recorded.map(|r| {
            let mut it = toml_edit::InlineTable::new();
            for (k, v) in [("x", r.x), ("y", r.y), ("w", r.w), ("h", r.h)] {
                it.insert(k, (v as i64).into());
            }
            toml_edit::Value::InlineTable(it)
        }),
    );
    put("crop", t.crop.as_deref().map(Into::into));
    put("context", t.context.as_deref().map(Into::into));
    put("window", t.window.as_deref().map(Into::into));
    put(
        "tree",
        t.tree
            .as_ref()
            .map(|id| toml_edit::Value::InlineTable(tree_table(id))),
    );
    table.fmt();
    format!("target = {table}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_place_is_written_beside_the_target_and_removed_by_a_person_s_pick() {
        let dir = tempfile::tempdir().unwrap();
        let flow = dir.path().join("f.toml");
        let src = "# kept\nversion = 1\nname = \"f\"\n[window]\ntitle = \"^W$\"\n\n[[step]]\naction = \"click\"\ntarget = { text = \"Save\", role = \"button\" }\n\n[[step]]\naction = \"click\"\ntarget = { text = \"Open\", tree = { path = \"frame/push button[0]\", of = 2 } }\n";
        std::fs::write(&flow, src).unwrap();
        let place = TreeId {
            path: "frame/filler[0]/push button[1]".into(),
            of: 2,
        };
        let edits = [
            (
                0,
                TargetEdit {
                    tree: Some(Some(place.clone())),
                    ..Default::default()
                },
            ),
            (
                1,
                TargetEdit {
                    recorded: Some(Rect::new(1, 2, 3, 4)),
                    tree: Some(None),
                    ..Default::default()
                },
            ),
        ];
        edit_targets(&flow, &edits).unwrap();
        let out = std::fs::read_to_string(&flow).unwrap();
        assert!(out.starts_with("# kept"), "{out}");
        let parsed = mend_model::parse_flow("f.toml", &out, &[]).unwrap();
        let t0 = parsed.steps[0].target.as_ref().unwrap();
        let t1 = parsed.steps[1].target.as_ref().unwrap();
        assert_eq!(t0.tree.as_ref(), Some(&place), "{out}");
        assert_eq!(t1.tree, None, "{out}");
        assert_eq!(t1.recorded, Some(Rect::new(1, 2, 3, 4)));
        assert!(
            target_line(t0)
                .contains("tree = { path = \"frame/filler[0]/push button[1]\", of = 2 }"),
            "{}",
            target_line(t0)
        );
    }
}
