//! Tesseract OCR for screen text: words and lines with boxes and confidences.
//!
//! Screen UIs are not pages. What STACK-NOTES measured decides the defaults here: sparse-text
//! page segmentation (PSM 11) instead of the page default, the source resolution always set
//! (96 dpi × the upscale factor), crops upscaled before reading (small bitmap fonts and single
//! characters only read cleanly at 2–3×), dark themes inverted to dark-on-light. The engine is
//! created once and kept warm (init costs 50–120 ms), and results are cached by a hash of the
//! exact pixels read, so an unchanged region is never read twice; a large region read again
//! after a change (a window after a step) is read only where it changed (`delta`).
//!
//! A caption of one or two glyphs (a calculator key) is read on its own ([`OcrEngine::read_glyphs`]):
//! cut to its ink, on a clean margin, smoothly upscaled, as a single character (PSM 10) or a
//! single word (PSM 8), punctuation kept. Read in a line or a page, such glyphs vanish or turn
//! into words.

mod delta;
mod engine;
mod lines;
mod ppocr;
mod prep;
mod tsv;

pub use engine::{GlyphRead, OcrEngine, OcrMode, OcrOptions, Reader};
pub use lines::{is_ideograph, join_lines, Line};
pub use ppocr::{available as ppocr_available, PpOcr};
pub use prep::{is_dark, normalize_polarity, prepare, prepare_glyphs, restore_inverted_cells};
pub use tsv::{parse_tsv, parse_tsv_with, Word};
