//! Pixels only: perceptual fingerprints and change detection, template matching, and control
//! boxes found from edges. Nothing here reads text.

mod boxes;
mod fingerprint;
mod template;

pub use boxes::{find_control_boxes, ControlBox};
pub use fingerprint::{Fingerprint, Fingerprinter};
pub use template::{crop, find_template, pixel_diff, TemplateHit, SCALES};
