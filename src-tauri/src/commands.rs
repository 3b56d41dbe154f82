//! IPC commands. Names are the snake_case strings the UI passes to `invoke`
//! (see `ui/src/backend/tauri.ts`); payloads are serde structs mirrored in `ui/src/backend/types.ts`.

use serde::Serialize;

/// What the shell reports about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StudioInfo {
    /// The studio's crate version, which is the workspace version.
    pub version: String,
    /// Which automation engine the studio drives.
    pub engine: String,
}

/// Cannot fail, so it returns the struct itself; fallible commands return
/// `Result<T, mend_model::MendError>` (`{code, message}` over IPC).
#[tauri::command]
pub fn studio_info() -> StudioInfo {
    StudioInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        engine: "mend".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn studio_info_serializes_to_the_shape_the_ui_reads() {
        let json = serde_json::to_value(studio_info()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "version": env!("CARGO_PKG_VERSION"), "engine": "mend" })
        );
    }
}
