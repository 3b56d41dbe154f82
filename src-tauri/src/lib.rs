//! Mend Studio: the Tauri shell over the Mend engine.
//!
//! **Architecture Invariant:** this is the only crate that depends on `tauri`. Each command is a
//! thin call into the engine whose failures leave as [`error::IpcError`] (`{code, message}`), never
//! as a bare string, so the UI can branch on codes instead of matching text.
//!
//! The UI is embedded from `ui/dist` at compile time (`frontendDist` in `tauri.conf.json`): the
//! app needs no dev server and no network at run time.

pub mod commands;
pub mod error;

/// Builds the app with its commands and runs the event loop until the last window closes.
pub fn run() -> tauri::Result<()> {
    tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![commands::studio_info])
        .run(tauri::generate_context!())
}
