use clap::Args;
use mend_model::{parse_flow, ErrorCode, MendError};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// The flow file (TOML).
    pub flow: PathBuf,
    /// A CSV work-list whose header names the `${column}` variables rows provide.
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Variables given on the command line, `K=V` (only the names matter here).
    #[arg(long = "var", value_name = "K=V")]
    pub vars: Vec<String>,
}

fn flow_err(msg: String) -> MendError {
    MendError::new(ErrorCode::FlowInvalid, msg)
}

/// Read and validate a flow; the error names the file, line and column.
pub fn load_flow(
    path: &std::path::Path,
    data: Option<&std::path::Path>,
    vars: &[String],
) -> Result<mend_model::Flow, MendError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| flow_err(format!("{name}: cannot read: {e}")))?;
    let src = String::from_utf8(bytes).map_err(|e| {
        flow_err(format!(
            "{name}: not UTF-8 text (byte {}); save the flow as UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let mut columns: Vec<String> = vars
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map_or(kv.as_str(), |(k, _)| k)
                .to_string()
        })
        .collect();
    if let Some(d) = data {
        let csv = std::fs::read_to_string(d)
            .map_err(|e| flow_err(format!("{}: cannot read the data file: {e}", d.display())))?;
        let header = csv.lines().next().unwrap_or_default();
        columns.extend(
            header
                .split(',')
                .map(|c| c.trim().trim_matches('"').to_string()),
        );
    }
    parse_flow(&name, &src, &columns)
}

pub fn run_validate(a: ValidateArgs) -> Result<ExitCode, MendError> {
    let flow = load_flow(&a.flow, a.data.as_deref(), &a.vars)?;
    println!(
        "{}: valid — '{}', {} steps, {} interrupt handlers",
        a.flow.display(),
        flow.name,
        flow.steps.len(),
        flow.interrupts.len()
    );
    // Valid, but a crash or a failure after acting at these steps needs a person: say so now.
    for w in mend_model::flow_warnings(&flow) {
        eprintln!("warning: {}: {}", a.flow.display(), w.message);
    }
    Ok(ExitCode::SUCCESS)
}
