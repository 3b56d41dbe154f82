//! Mend's vocabulary: geometry, frames, windows, locator answers and the stable error codes.
//!
//! This crate does no I/O. Every other crate speaks in these types, so a frame captured by
//! `capture`, read by `ocr` and searched by `locate` keeps one meaning of "where" throughout:
//! boxes are in the frame's own pixels, and `FrameInfo::to_screen` is the only way to screen pixels.

mod error;
mod flow;
mod frame;
mod geometry;
mod locate;
mod query;
mod redo;

pub use error::{ErrorCode, MendError};
pub use flow::{
    parse_flow, references, Action as FlowAction, Check, Flow, Interrupt, Risk, Step, TargetSpec,
    WindowSpec, FLOW_VERSION,
};
pub use frame::{FrameInfo, WindowInfo};
pub use geometry::{Point, Rect};
pub use locate::{Candidate, Located, Role, Strategy, Target, TreeId};
pub use query::WindowQuery;
pub use redo::{flow_warnings, FlowWarning, Redo};
