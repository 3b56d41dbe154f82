//! The one error shape that crosses IPC.
//!
//! Engine crates keep their own `thiserror` enums with stable codes; a command maps such an error
//! into an [`IpcError`] at the boundary. Serialized as `{"code": …, "message": …}`, which the UI's
//! backend layer (`ui/src/backend/types.ts`, `BackendError`) expects of every rejected `invoke`.

use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IpcError {
    /// Stable, machine-readable (`snake_case`); the UI may branch on it.
    pub code: String,
    /// For people; the UI shows it but never parses it.
    pub message: String,
}

impl IpcError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for IpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for IpcError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_as_code_and_message_only() {
        let json =
            serde_json::to_value(IpcError::new("flow_not_found", "no flow named 'x'")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "code": "flow_not_found", "message": "no flow named 'x'" })
        );
    }
}
