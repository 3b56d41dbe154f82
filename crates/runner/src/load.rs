//! A flow file with what it needs to run: its crops, its data rows, its variables.

use image::RgbaImage;
use mend_model::{parse_flow, references, Flow, TargetSpec};
use mend_model::{ErrorCode, MendError, Role, Target};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub type Row = BTreeMap<String, String>;

/// A parsed, validated flow and the template crops its targets name.
pub struct LoadedFlow {
    pub flow: Flow,
    pub path: PathBuf,
    /// crc32 of the file's text: a resume refuses a flow that changed under it.
    pub hash: String,
    pub templates: HashMap<String, RgbaImage>,
}

fn invalid(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::InvalidArgument, msg)
}

/// Read a `--data` CSV: a header row of column names, then one work item per line.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, MendError> {
    let mut rdr =
        csv::Reader::from_path(path).map_err(|e| invalid(format!("{}: {e}", path.display())))?;
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| invalid(format!("{}: {e}", path.display())))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut rows = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| {
            MendError::new(
                ErrorCode::FlowInvalid,
                format!("{}:{}: {e}", path.display(), i + 2),
            )
        })?;
        rows.push(
            headers
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect(),
        );
    }
    if rows.is_empty() {
        return Err(MendError::new(
            ErrorCode::FlowInvalid,
            format!("{}: no data rows below the header", path.display()),
        ));
    }
    Ok(rows)
}

impl LoadedFlow {
    /// Parse and validate `path` (with the data columns it may use) and load its crops.
    pub fn load(path: &Path, columns: &[String]) -> Result<LoadedFlow, MendError> {
        let src = std::fs::read_to_string(path)
            .map_err(|e| invalid(format!("cannot read flow {}: {e}", path.display())))?;
        let name = path.display().to_string();
        let flow = parse_flow(&name, &src, columns)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut templates = HashMap::new();
        let mut specs: Vec<&TargetSpec> = Vec::new();
        for s in &flow.steps {
            specs.extend(s.target.iter().chain(s.to.iter()));
        }
        for spec in specs {
            if let Some(c) = &spec.crop {
                let p = dir.join(c);
                let img = image::open(&p)
                    .map_err(|e| {
                        MendError::new(
                            ErrorCode::FlowInvalid,
                            format!(
                                "{name}: crop '{c}' cannot be read ({e}); re-record the flow or remove `crop`"
                            ),
                        )
                    })?
                    .to_rgba8();
                templates.insert(c.clone(), img);
            }
        }
        Ok(LoadedFlow {
            flow,
            path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            hash: format!("{:08x}", crc32fast::hash(src.as_bytes())),
            templates,
        })
    }
}

impl LoadedFlow {
    /// The flow a stored run was started with (its `--var`s and data columns defined), for
    /// resuming it or resolving its takeover. The hash check is the runner's.
    pub fn for_run(rec: &mend_store::RunRecord) -> Result<LoadedFlow, MendError> {
        let mut columns: Vec<String> = rec.vars.keys().cloned().collect();
        if let Some(r) = rec.rows.first() {
            columns.extend(r.keys().cloned());
        }
        LoadedFlow::load(Path::new(&rec.flow_path), &columns)
    }
}

/// Variables for one row: the flow's `[vars]`, then `--var`, then the row's columns.
pub fn row_vars(flow: &Flow, vars: &BTreeMap<String, String>, row: &Row) -> Row {
    let mut all = flow.vars.clone();
    all.extend(vars.clone());
    all.extend(row.clone());
    all
}

/// Replace `${name}` and `${secret:NAME}`. `secret` resolves a secret by name; `None` from it is
/// an error that says how to provide it.
pub fn substitute(
    text: &str,
    vars: &Row,
    secret: &dyn Fn(&str) -> Option<String>,
) -> Result<String, MendError> {
    let mut out = text.to_string();
    for r in references(text) {
        let value = if let Some(name) = r.strip_prefix("secret:") {
            secret(name).ok_or_else(|| {
                invalid(format!(
                    "secret '{name}' is not set: export {name}=… before the run (secrets are read from the environment at the step and never stored)"
                ))
            })?
        } else {
            vars.get(r).cloned().ok_or_else(|| {
                invalid(format!(
                    "`${{{r}}}` has no value: pass --var {r}=… or a --data column '{r}'"
                ))
            })?
        };
        out = out.replace(&format!("${{{r}}}"), &value);
    }
    Ok(out)
}

/// The locator's target for a flow target, variables substituted. Secrets never go into a
/// target (they would reach OCR logs, reports and prompts).
pub fn target_of(spec: &TargetSpec, vars: &Row) -> Result<Target, MendError> {
    let no_secret = |_: &str| None;
    let sub = |t: &Option<String>| -> Result<Option<String>, MendError> {
        match t {
            Some(t) if references(t).iter().any(|r| r.starts_with("secret:")) => Err(invalid(
                "a target may not name a secret: secrets are only typed, never searched for",
            )),
            Some(t) => substitute(t, vars, &no_secret).map(Some),
            None => Ok(None),
        }
    };
    Ok(Target {
        text: sub(&spec.text)?,
        role: spec
            .role
            .as_deref()
            .map_or(Some(Role::Any), Role::parse)
            .unwrap_or(Role::Any),
        near: sub(&spec.near)?,
        offset: spec.offset.map(|[x, y]| (x, y)),
        recorded: spec.recorded,
        context: spec.context.clone(),
        synonyms: spec.synonyms.clone(),
        tree: spec.tree.clone(),
    })
}
