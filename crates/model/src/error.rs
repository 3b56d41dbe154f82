use serde::{Deserialize, Serialize};
use std::fmt;

/// Stable failure codes. Extend, never rename: flows, the UI and reports match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    LocatorNotFound,
    LocatorAmbiguous,
    WindowNotFound,
    WindowAmbiguous,
    WindowBlocked,
    BudgetExceeded,
    ActionTimeout,
    AssertionFailed,
    BreakerOpen,
    FlowInvalid,
    LlmUnavailable,
    StoreCorrupt,
    StoreLocked,
    CaptureFailed,
    OcrFailed,
    InputFailed,
    InvalidArgument,
    /// The same action on the same control on an unchanged screen, again: the run stops.
    LoopDetected,
    /// Resume found a step that may have acted and has no verify condition to tell.
    ResumeUnverified,
    /// A field to be typed into (on a redo, or with `clear`) could not be emptied: nothing typed.
    FieldNotCleared,
    /// Text was typed but the field still shows nothing: it went elsewhere (the app moved its
    /// focus). The run stops before any later step can commit it.
    FieldNotFilled,
    /// Text was typed and the field reads it with more beside it (what it held before, or an
    /// application's completion): the value is not the flow's. Tried again by emptying the
    /// field first; then nothing later is done and a person decides.
    FieldValueWrong,
    /// A check step's caption was found but no check box beside it (or two alike): nothing
    /// was clicked.
    CheckboxNotFound,
    /// A check box whose look says neither ticked nor clear: nothing was clicked.
    CheckStateUnknown,
    /// A check box was clicked and does not read as asked afterwards.
    CheckNotSet,
    /// A step acted and its `verify` did not come true within the step's timeout: its input
    /// may not have taken effect (a click the app never took) or the verify is wrong. A step
    /// that writes is not redone: a person looks.
    StepNotVerified,
    /// Fleet: this attempt no longer holds its job's lease (the job was handed to another
    /// worker, or cancelled); nothing it would write is kept.
    LeaseLost,
    /// Fleet: no work item with that key or run id.
    JobNotFound,
    /// Fleet: the job's worker was lost more times than the cap; parked for a person.
    PoisonJob,
    /// Fleet: the PostgreSQL server cannot be reached (or refused the query).
    DatabaseUnavailable,
    /// No takeover request with that id in this database.
    TakeoverNotFound,
    /// The takeover request no longer stands: it was answered already, or (in a fleet) its job
    /// is not paused any more (retried, cancelled, done). Nothing was changed.
    TakeoverStale,
    /// Fleet: the seat (desktop) has a live worker: one worker per seat, and a job moves only
    /// off a seat that is gone.
    SeatInUse,
    /// Mend's own perception failed on this screen (an internal fault in reading or locating,
    /// caught): nothing was done on it. The run stops for a person, like a refusal.
    PerceptionFailed,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 34] = [
        ErrorCode::LocatorNotFound,
        ErrorCode::LocatorAmbiguous,
        ErrorCode::WindowNotFound,
        ErrorCode::WindowAmbiguous,
        ErrorCode::WindowBlocked,
        ErrorCode::BudgetExceeded,
        ErrorCode::ActionTimeout,
        ErrorCode::AssertionFailed,
        ErrorCode::BreakerOpen,
        ErrorCode::FlowInvalid,
        ErrorCode::LlmUnavailable,
        ErrorCode::StoreCorrupt,
        ErrorCode::StoreLocked,
        ErrorCode::CaptureFailed,
        ErrorCode::OcrFailed,
        ErrorCode::InputFailed,
        ErrorCode::InvalidArgument,
        ErrorCode::LoopDetected,
        ErrorCode::ResumeUnverified,
        ErrorCode::FieldNotCleared,
        ErrorCode::FieldNotFilled,
        ErrorCode::FieldValueWrong,
        ErrorCode::CheckboxNotFound,
        ErrorCode::CheckStateUnknown,
        ErrorCode::CheckNotSet,
        ErrorCode::StepNotVerified,
        ErrorCode::LeaseLost,
        ErrorCode::JobNotFound,
        ErrorCode::PoisonJob,
        ErrorCode::DatabaseUnavailable,
        ErrorCode::TakeoverNotFound,
        ErrorCode::TakeoverStale,
        ErrorCode::SeatInUse,
        ErrorCode::PerceptionFailed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::LocatorNotFound => "LOCATOR_NOT_FOUND",
            ErrorCode::LocatorAmbiguous => "LOCATOR_AMBIGUOUS",
            ErrorCode::WindowNotFound => "WINDOW_NOT_FOUND",
            ErrorCode::WindowAmbiguous => "WINDOW_AMBIGUOUS",
            ErrorCode::WindowBlocked => "WINDOW_BLOCKED",
            ErrorCode::BudgetExceeded => "BUDGET_EXCEEDED",
            ErrorCode::ActionTimeout => "ACTION_TIMEOUT",
            ErrorCode::AssertionFailed => "ASSERTION_FAILED",
            ErrorCode::BreakerOpen => "BREAKER_OPEN",
            ErrorCode::FlowInvalid => "FLOW_INVALID",
            ErrorCode::LlmUnavailable => "LLM_UNAVAILABLE",
            ErrorCode::StoreCorrupt => "STORE_CORRUPT",
            ErrorCode::StoreLocked => "STORE_LOCKED",
            ErrorCode::CaptureFailed => "CAPTURE_FAILED",
            ErrorCode::OcrFailed => "OCR_FAILED",
            ErrorCode::InputFailed => "INPUT_FAILED",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::LoopDetected => "LOOP_DETECTED",
            ErrorCode::ResumeUnverified => "RESUME_UNVERIFIED",
            ErrorCode::FieldNotCleared => "FIELD_NOT_CLEARED",
            ErrorCode::FieldNotFilled => "FIELD_NOT_FILLED",
            ErrorCode::FieldValueWrong => "FIELD_VALUE_WRONG",
            ErrorCode::CheckboxNotFound => "CHECKBOX_NOT_FOUND",
            ErrorCode::CheckStateUnknown => "CHECK_STATE_UNKNOWN",
            ErrorCode::CheckNotSet => "CHECK_NOT_SET",
            ErrorCode::StepNotVerified => "STEP_NOT_VERIFIED",
            ErrorCode::LeaseLost => "LEASE_LOST",
            ErrorCode::JobNotFound => "JOB_NOT_FOUND",
            ErrorCode::PoisonJob => "POISON_JOB",
            ErrorCode::DatabaseUnavailable => "DATABASE_UNAVAILABLE",
            ErrorCode::TakeoverNotFound => "TAKEOVER_NOT_FOUND",
            ErrorCode::TakeoverStale => "TAKEOVER_STALE",
            ErrorCode::SeatInUse => "SEAT_IN_USE",
            ErrorCode::PerceptionFailed => "PERCEPTION_FAILED",
        }
    }

    /// Whether trying the same thing again (after the screen settles) can help.
    /// Refusals (ambiguity, a blocked window, a spent budget) are never retried blindly.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::LocatorNotFound
                | ErrorCode::WindowNotFound
                | ErrorCode::ActionTimeout
                | ErrorCode::CaptureFailed
                | ErrorCode::OcrFailed
                | ErrorCode::LlmUnavailable
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure that crosses a crate or process boundary: a stable code plus a sentence that says
/// what happened and what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct MendError {
    pub code: ErrorCode,
    pub message: String,
}

impl MendError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        MendError {
            code,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_stable_strings() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            let back: ErrorCode = serde_json::from_str(&json).unwrap();
            assert_eq!(back, code);
        }
    }

    #[test]
    fn refusals_are_not_retryable() {
        assert!(!ErrorCode::LocatorAmbiguous.is_retryable());
        assert!(!ErrorCode::WindowBlocked.is_retryable());
        assert!(!ErrorCode::BudgetExceeded.is_retryable());
        assert!(ErrorCode::LocatorNotFound.is_retryable());
    }

    #[test]
    fn error_display_leads_with_the_code() {
        let e = MendError::new(ErrorCode::WindowNotFound, "no window titled 'x'");
        assert_eq!(e.to_string(), "WINDOW_NOT_FOUND: no window titled 'x'");
    }
}
