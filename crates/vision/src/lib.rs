//! Pixels only: perceptual fingerprints and change detection, template matching, and control
//! boxes found from edges. Nothing here reads text.

mod boxes;
mod check;
mod faint;
mod fingerprint;
mod glyphs;
mod ink;
mod shape;
mod template;

pub use boxes::{find_control_boxes, framed_area_below, ControlBox};
pub use check::{check_state, find_check_indicator};
pub use faint::{faint_text, FaintInk};
pub use fingerprint::{Fingerprint, Fingerprinter};
pub use glyphs::{ink_parts, lone_glyphs, InkPart};
pub use ink::{
    area_under_strip, background, centred_ink, chroma, field_is_blank, filled_bar,
    filled_bar_below, flat_plate, inside_focus_ring, is_ink, key_badge, lit_by_hover, luma,
    mirrors, one_shade, prompt_input, selection_bar, text_after_icon, Prompt,
};
pub use shape::{
    confirm_glyph_at, confirm_short, glyph_stands_out, ink_of, last_glyphs, shape_fit, shape_fonts,
    without_underline, Verdict, OTHER_MARGIN, SHAPE_FLOOR,
};
pub use template::{
    crop, find_template, pixel_diff, pixels_changed, template_places, TemplateHit, SCALES,
};
