//! Changing a flow file in place — `mend record` and accepted takeover changes — with
//! `toml_edit`, so the operator's comments and layout survive.

use image::RgbaImage;
use mend_model::{ErrorCode, MendError, Rect, TargetSpec};
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
        if let Some(t) = item.as_inline_table_mut() {
            t.fmt();
        }
    }
    std::fs::write(path, doc.to_string()).map_err(|e| bad(format!("{}: {e}", path.display())))
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
    table.fmt();
    format!("target = {table}")
}
