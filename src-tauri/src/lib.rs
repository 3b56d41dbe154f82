//! Mend Studio: the Tauri shell over the Mend engine.
//!
//! **Architecture Invariant:** this is the only crate that depends on `tauri`. Each command is a
//! thin call into the engine; a failing one returns the engine's own `mend_model::MendError`,
//! which serializes as `{code, message}` with the stable code (`LOCATOR_NOT_FOUND`, …), never a
//! bare string, so the UI branches on codes instead of matching text. (The one command so far,
//! `studio_info`, cannot fail.)
//!
//! The UI is embedded from `ui/dist` at compile time (`frontendDist` in `tauri.conf.json`): the
//! app needs no dev server and no network at run time.

pub mod commands;

/// Builds the app with its commands and runs the event loop until the last window closes.
pub fn run() -> tauri::Result<()> {
    tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![commands::studio_info])
        .run(tauri::generate_context!())
}
