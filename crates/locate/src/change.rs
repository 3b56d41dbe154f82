//! Change detection against a recorded baseline: is this the screen we recorded, and if not,
//! what changed? The cheap answer comes first: an identical window fingerprint (same size,
//! dHash within a few bits) is the fast path and reads no text. Otherwise each recorded element
//! is checked by its neighbourhood's fingerprint and, where that moved, found again through the
//! chain, which tells missing / text changed / moved by (dx, dy); the framed-box layout tells a
//! layout change.

use crate::{Locator, Recorded};
use image::RgbaImage;
use mend_capture::Frame;
use mend_model::{Rect, Role, Target};
use mend_vision::{crop, find_control_boxes, pixel_diff, Fingerprint, Fingerprinter};
use serde::{Deserialize, Serialize};

/// Bits of dHash distance still counted as "the same picture" (anti-aliasing, a caret).
const SAME: u32 = 3;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ElementBaseline {
    pub text: String,
    pub role: Role,
    /// Window pixels.
    pub rect: Rect,
    /// The element's box grown by its own height on every side: what is around it too.
    pub neighbourhood: Fingerprint,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScreenBaseline {
    pub width: u32,
    pub height: u32,
    pub window: Fingerprint,
    pub elements: Vec<ElementBaseline>,
    /// The framed boxes, sorted: the layout signature.
    pub layout: Vec<Rect>,
    #[serde(skip)]
    pub crops: Vec<RgbaImage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "change")]
pub enum ElementChange {
    Unchanged,
    Missing,
    TextChanged {
        from: String,
        to: String,
    },
    Moved {
        dx: i32,
        dy: i32,
    },
    MovedAndTextChanged {
        dx: i32,
        dy: i32,
        from: String,
        to: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangeReport {
    /// The fast path: nothing needs locating again.
    pub unchanged: bool,
    pub layout_changed: bool,
    pub elements: Vec<(String, ElementChange)>,
}

fn neighbourhood(r: Rect) -> Rect {
    r.inflate(r.h.max(8))
}

fn layout_of(img: &RgbaImage) -> Vec<Rect> {
    let mut l: Vec<Rect> = find_control_boxes(img)
        .into_iter()
        .map(|b| b.rect)
        .collect();
    l.sort_by_key(|r| (r.y, r.x));
    l
}

impl ScreenBaseline {
    /// Record a screen and the elements a flow uses on it (text, role, box in window pixels).
    pub fn record(frame: &Frame, elements: &[(String, Role, Rect)]) -> ScreenBaseline {
        let fp = Fingerprinter::new();
        let img = &frame.image;
        ScreenBaseline {
            width: img.width(),
            height: img.height(),
            window: fp.hash(img),
            elements: elements
                .iter()
                .map(|(text, role, rect)| ElementBaseline {
                    text: text.clone(),
                    role: *role,
                    rect: *rect,
                    neighbourhood: fp
                        .hash_region(img, neighbourhood(*rect))
                        .unwrap_or_else(|| fp.hash(img)),
                })
                .collect(),
            layout: layout_of(img),
            crops: elements
                .iter()
                .map(|(_, _, r)| crop(img, *r).unwrap_or_else(|| RgbaImage::new(1, 1)))
                .collect(),
        }
    }

    pub fn compare(&self, locator: &mut Locator, frame: &Frame) -> ChangeReport {
        let fp = Fingerprinter::new();
        let img = &frame.image;
        let same_size = img.width() == self.width && img.height() == self.height;
        // The window's dHash alone cannot see a caption gain "(Q)": the fast path also needs
        // every recorded element's own pixels unchanged (a crop comparison, no OCR).
        let same_pixels: Vec<bool> = self
            .elements
            .iter()
            .zip(&self.crops)
            .map(|(e, c)| crop(img, e.rect).is_some_and(|here| pixel_diff(c, &here) < 2.0))
            .collect();
        let all_same = same_pixels.len() == self.elements.len() && same_pixels.iter().all(|s| *s);
        if same_size && all_same && fp.hash(img).distance(&self.window) <= SAME {
            return ChangeReport {
                unchanged: true,
                layout_changed: false,
                elements: self
                    .elements
                    .iter()
                    .map(|e| (e.text.clone(), ElementChange::Unchanged))
                    .collect(),
            };
        }
        let layout = layout_of(img);
        let kept = self
            .layout
            .iter()
            .filter(|r| layout.iter().any(|n| n.iou(r) > 0.8))
            .count();
        let layout_changed = layout.len() != self.layout.len() || kept * 10 < self.layout.len() * 9;
        let elements = self
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| {
                // The neighbourhood's hash is the coarse test; a caption gaining "(Q)" moves a
                // dHash by a bit or two, so the element's own pixels must match too.
                let here = fp.hash_region(img, neighbourhood(e.rect));
                let same = same_pixels.get(i).copied().unwrap_or(false);
                if here.is_some_and(|h| h.distance(&e.neighbourhood) <= SAME) && same {
                    return (e.text.clone(), ElementChange::Unchanged);
                }
                let target = Target {
                    text: Some(e.text.clone()),
                    role: e.role,
                    recorded: Some(e.rect),
                    ..Target::default()
                };
                let rec = Recorded {
                    template: self.crops.get(i).cloned(),
                };
                let change = match locator.locate(frame, &target, &rec) {
                    Err(_) => ElementChange::Missing,
                    Ok(l) => {
                        let (dx, dy) = (
                            l.rect.center().x - e.rect.center().x,
                            l.rect.center().y - e.rect.center().y,
                        );
                        let moved = dx.abs() > 3 || dy.abs() > 3;
                        // Same meaning (the chain matched it) but not the same letters: 查询 → 查询(Q).
                        let compact = |s: &str| s.split_whitespace().collect::<String>();
                        let text_changed = compact(&l.text) != compact(&e.text);
                        match (moved, text_changed) {
                            (false, false) => ElementChange::Unchanged,
                            (true, false) => ElementChange::Moved { dx, dy },
                            (false, true) => ElementChange::TextChanged {
                                from: e.text.clone(),
                                to: l.text.clone(),
                            },
                            (true, true) => ElementChange::MovedAndTextChanged {
                                dx,
                                dy,
                                from: e.text.clone(),
                                to: l.text.clone(),
                            },
                        }
                    }
                };
                (e.text.clone(), change)
            })
            .collect();
        ChangeReport {
            unchanged: false,
            layout_changed,
            elements,
        }
    }
}
