//! IPC commands. Names are the snake_case strings the UI passes to `invoke`
//! (see `ui/src/backend/tauri.ts`); payloads are serde structs mirrored in `ui/src/backend/types.ts`.
//! Each is a thin call into the application crate (`mend_app::studio`, `mend_app::recording`);
//! failures are the engine's `MendError` (`{code, message}`).

use mend_app::recording::{self, RecaptureRequest, RecordRequest, Recorded};
use mend_app::studio::{self, Studio};
use mend_app::{Progress, Summary, Takeover};
use mend_model::{Flow, MendError, TargetSpec};
use serde::Serialize;
use tauri::{AppHandle, Emitter, State};

/// What the shell reports about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StudioInfo {
    /// The studio's crate version, which is the workspace version.
    pub version: String,
    /// Which automation engine the studio drives.
    pub engine: String,
    /// A flow to open at start (`MEND_OPEN`, a file in the flows folder).
    pub open: Option<String>,
}

#[tauri::command]
pub fn studio_info() -> StudioInfo {
    StudioInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        engine: "mend".to_owned(),
        open: std::env::var("MEND_OPEN").ok().filter(|f| !f.is_empty()),
    }
}

/// Run events pushed to the UI: `run-event` (a step started / ended / an interrupt) and
/// `run-finished` (the summary, or the error that stopped the worker).
struct Emit(AppHandle);

#[derive(Serialize, Clone)]
struct Finished {
    summary: Option<Summary>,
    error: Option<MendError>,
}

impl studio::Sink for Emit {
    fn progress(&self, p: &Progress) {
        let _ = self.0.emit("run-event", p);
    }
    fn finished(&self, s: Result<Summary, MendError>) {
        let f = match s {
            Ok(s) => Finished {
                summary: Some(s),
                error: None,
            },
            Err(e) => Finished {
                summary: None,
                error: Some(e),
            },
        };
        let _ = self.0.emit("run-finished", f);
    }
}

#[tauri::command]
pub fn list_flows(s: State<Studio>) -> Result<Vec<studio::FlowEntry>, MendError> {
    studio::list_flows(&s)
}

#[tauri::command]
pub fn load_flow(s: State<Studio>, file: String) -> Result<studio::FlowDoc, MendError> {
    studio::load_flow(&s, &file)
}

#[tauri::command]
pub fn save_flow(s: State<Studio>, file: String, flow: Flow) -> Result<studio::FlowDoc, MendError> {
    studio::save_flow(&s, &file, &flow)
}

#[tauri::command]
pub fn create_flow(
    s: State<Studio>,
    file: String,
    name: String,
    title: String,
) -> Result<studio::FlowDoc, MendError> {
    studio::create_flow(&s, &file, &name, &title)
}

#[tauri::command]
pub fn duplicate_flow(
    s: State<Studio>,
    file: String,
    new_file: String,
) -> Result<studio::FlowDoc, MendError> {
    studio::duplicate_flow(&s, &file, &new_file)
}

#[tauri::command]
pub async fn capture_window(title: String) -> Result<studio::Shot, MendError> {
    studio::capture_window(&title)
}

#[tauri::command]
pub fn read_image(s: State<Studio>, path: String) -> Result<String, MendError> {
    studio::read_image(&s, &path)
}

#[tauri::command]
pub async fn propose_target(title: String, x: i32, y: i32) -> Result<studio::Proposal, MendError> {
    studio::propose_target(&title, x, y, mend_app::DEFAULT_LANG)
}

#[tauri::command]
pub async fn test_locate(
    title: String,
    target: TargetSpec,
) -> Result<studio::LocateResult, MendError> {
    studio::test_locate(&title, &target, mend_app::DEFAULT_LANG)
}

#[tauri::command]
pub fn start_run(
    app: AppHandle,
    s: State<Studio>,
    request: studio::RunRequest,
) -> Result<(), MendError> {
    studio::start_run(&s, request, Emit(app))
}

/// Recording events pushed to the UI: `record-event` (started, a step new or changed, a note)
/// and `record-finished` (the flow written and validated, or the error that ended it).
struct RecordEmit(AppHandle);

#[derive(Serialize, Clone)]
struct RecordFinished {
    recorded: Option<Recorded>,
    error: Option<MendError>,
}

impl recording::RecordSink for RecordEmit {
    fn event(&self, e: &mend_app::RecordEvent) {
        let _ = self.0.emit("record-event", e);
    }
    fn finished(&self, r: Result<Recorded, MendError>) {
        let (recorded, error) = match r {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e)),
        };
        let _ = self
            .0
            .emit("record-finished", RecordFinished { recorded, error });
    }
}

#[tauri::command]
pub fn start_recording(
    app: AppHandle,
    s: State<Studio>,
    request: RecordRequest,
) -> Result<(), MendError> {
    recording::start_recording(&s, request, RecordEmit(app))
}

#[tauri::command]
pub fn stop_recording(s: State<Studio>) -> Result<(), MendError> {
    recording::stop_recording(&s)
}

#[tauri::command]
pub async fn recapture_crop(
    s: State<'_, Studio>,
    request: RecaptureRequest,
) -> Result<TargetSpec, MendError> {
    recording::recapture_crop(&s, request)
}

#[tauri::command]
pub fn list_takeovers(s: State<Studio>, all: bool) -> Result<Vec<Takeover>, MendError> {
    studio::list_takeovers(&s, all)
}

#[tauri::command]
pub fn resolve_takeover(
    app: AppHandle,
    s: State<Studio>,
    id: String,
    resolution: String,
) -> Result<(), MendError> {
    studio::resolve_takeover(&s, &id, &resolution, Emit(app))
}

#[tauri::command]
pub fn list_changes(s: State<Studio>) -> Result<Vec<studio::ChangeView>, MendError> {
    studio::list_changes(&s)
}

#[tauri::command]
pub fn decide_change(
    s: State<Studio>,
    id: String,
    accept: bool,
) -> Result<mend_app::Change, MendError> {
    studio::decide_change(&s, &id, accept)
}

#[derive(Serialize)]
pub struct Report {
    summary: Summary,
    markdown: String,
}

#[tauri::command]
pub fn run_report(s: State<Studio>, id: String) -> Result<Report, MendError> {
    let (summary, markdown) = studio::run_report(&s, &id)?;
    Ok(Report { summary, markdown })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn studio_info_serializes_to_the_shape_the_ui_reads() {
        let json = serde_json::to_value(studio_info()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "version": env!("CARGO_PKG_VERSION"),
                "engine": "mend",
                "open": std::env::var("MEND_OPEN").ok().filter(|f| !f.is_empty()),
            })
        );
    }
}
