//! Mend Studio: the Tauri shell over the Mend engine.
//!
//! **Architecture Invariant:** this is the only crate that depends on `tauri`. Each command is a
//! thin call into the application crate (`mend_app::studio`, `mend_app::recording`: the same
//! crate `mend` builds its runner from); a failing one returns the engine's own
//! `mend_model::MendError`, which serializes as `{code, message}` with the stable code
//! (`LOCATOR_NOT_FOUND`, …), never a bare string, so the UI branches on codes instead of
//! matching text. The studio process alone opens the run database.
//!
//! The UI is embedded from `ui/dist` at compile time (`frontendDist` in `tauri.conf.json`): the
//! app needs no dev server and no network at run time.

pub mod commands;

use std::path::PathBuf;

/// Where flows are read from (`MEND_FLOWS`, default `fixtures/flows` of this repository) and
/// where the run database is (`MEND_DB`, default `~/.local/share/mend`; a fleet's PostgreSQL
/// instead when `MEND_DATABASE_URL` is set).
fn dirs() -> (PathBuf, PathBuf) {
    let flows = std::env::var_os("MEND_FLOWS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/flows"));
    let db = std::env::var_os("MEND_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| ".".into()))
                .join(".local/share/mend")
        });
    (std::fs::canonicalize(&flows).unwrap_or(flows), db)
}

/// Builds the app with its commands and runs the event loop until the last window closes.
pub fn run() -> tauri::Result<()> {
    let (flows, db) = dirs();
    let url = std::env::var("MEND_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty());
    let studio = mend_app::studio::Studio::open(flows, db, url.as_deref())
        .map_err(|e| tauri::Error::Anyhow(anyhow::anyhow!("{e}")))?;
    tauri::Builder::default()
        .manage(studio)
        .invoke_handler(tauri::generate_handler![
            commands::studio_info,
            commands::list_flows,
            commands::load_flow,
            commands::save_flow,
            commands::create_flow,
            commands::duplicate_flow,
            commands::capture_window,
            commands::read_image,
            commands::propose_target,
            commands::test_locate,
            commands::start_run,
            commands::start_recording,
            commands::stop_recording,
            commands::recapture_crop,
            commands::list_takeovers,
            commands::resolve_takeover,
            commands::list_changes,
            commands::decide_change,
            commands::run_report,
        ])
        .run(tauri::generate_context!())
}
