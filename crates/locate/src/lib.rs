//! The locator chain: find the control a step means on a frame, cheapest rung first, and
//! refuse rather than guess.
//!
//! structure (the accessibility tree's node, confirmed by the pixels; `structural.rs`) →
//! exact (recorded box + template crop + text agree) → fuzzy OCR (near the recorded place, then
//! window-wide) → semantic (a [`SemanticMatcher`]: the offline matcher here, an LLM later) →
//! anchor (a stable label plus the recorded offset). Each rung yields scored candidates; the
//! first rung with one clear winner answers. Two plausible winners are `LOCATOR_AMBIGUOUS`,
//! none is `LOCATOR_NOT_FOUND`, and both carry the candidates for the person who takes over.

mod chain;
mod scene;
mod seen;
mod semantic;
mod structural;
pub mod text;

pub use chain::{Locator, Recorded, Refusal};
pub use scene::{line_ocr, Scene, SceneCache, SeenLabel};
pub use semantic::{english_meaning, title_meanings, OfflineMatcher, SemanticMatcher};
pub use structural::taught_place;
