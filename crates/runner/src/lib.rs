//! The runner: a flow's steps against a live window, durably.
//!
//! Per step (shared/DESIGN.md 4–6): wait for and locate the target (dismissing interrupt
//! windows), guard on the frame it was located in, journal the intent (flushed), act, wait for
//! the screen to settle, check, journal the result (flushed). Retries at most twice — never
//! blindly after a write acted — with the step's compensation first. Resume reads the journal:
//! a step with an intent and no result is verified before it is redone, and goes to a person
//! when it cannot be. Time comes from a [`Clock`], so every wait is tested on a fake one.

pub mod breaker;
mod clock;
mod edit;
mod load;
mod report;
mod run;
pub mod secrets;
pub mod settle;
pub mod takeover;

pub use clock::{Clock, FakeClock, SystemClock};
pub use edit::{edit_targets, target_line, TargetEdit};
pub use load::{read_rows, row_vars, substitute, target_of, LoadedFlow, Row};
pub use report::{markdown, summary_from, StepSummary, Summary};
pub use run::{describe_check, Finder, Options, Progress, RecordedTarget, Runner, BREAKERS};
pub use settle::{SettleRule, Settled};

#[cfg(test)]
mod tests;
