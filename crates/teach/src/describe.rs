//! One click, one target: what a press at a point of a window's frame means as a flow's
//! target. `mend teach` describes each press with it and the studio's editor each click on
//! its captured window, so the same click makes the same target in both.

use mend_capture::Frame;
use mend_locate::{Locator, Recorded, Scene, SeenLabel};
use mend_model::{MendError, Point, Rect, Role, TargetSpec};

use crate::words::role_name;

/// A click described.
#[derive(Debug, Clone)]
pub struct Described {
    /// The target; its `crop` is left for the caller to name (where it keeps crops).
    pub spec: TargetSpec,
    /// The control's caption, when one was read on it (a commit-like caption gets a verify).
    pub caption: Option<String>,
    /// Where (frame pixels) the control's pixels are its crop, when it is known by them.
    pub crop_at: Option<Rect>,
    /// What the person should check about this target before running it.
    pub notes: Vec<String>,
}

/// The control under `p` (frame pixels) as a target, read by `locator`'s first reader: a field
/// by the label beside it, any other control by its caption (and its crop), a bare caption as
/// itself, blank space right of a label as that label's field, else the pixels around `p`.
/// The target must lead back to what was clicked on this very frame: else its text is dropped
/// for the pixels alone, and if those fail too a note says so.
pub fn describe_click(
    locator: &mut Locator,
    frame: &Frame,
    p: (i32, i32),
) -> Result<Described, MendError> {
    let (fw, fh) = (frame.image.width() as i32, frame.image.height() as i32);
    let mut scene = Scene::new(frame);
    let boxes = scene.boxes().to_vec();
    let control = boxes
        .iter()
        .filter(|b| b.rect.contains(pt(p)) && b.rect.w * 10 <= fw * 9 && b.rect.h * 2 <= fh)
        .min_by_key(|b| b.rect.area())
        .cloned();
    let labels = scene.window_labels(&mut locator.ocr)?;
    let mut spec = TargetSpec::default();
    let mut caption = None;
    let mut crop_at = None;
    let mut notes = Vec::new();
    match control {
        Some(b) if b.role == Role::Field => {
            spec.role = Some("field".into());
            spec.recorded = Some(b.rect);
            match label_of_field(&labels, b.rect) {
                Some(l) => spec.text = Some(l),
                None => {
                    crop_at = Some(b.rect);
                    notes.push(
                        "no label was read beside the field; it is known by its pixels only (empty fields look alike: give it a `near` label in the editor)".into(),
                    );
                }
            }
        }
        Some(b) => {
            let mut inside: Vec<&SeenLabel> = labels
                .iter()
                .filter(|l| b.rect.contains(l.line.center()))
                .collect();
            inside.sort_by_key(|l| (l.line.y / 8, l.line.x));
            let text = inside
                .iter()
                .map(|l| l.text.trim())
                .collect::<Vec<_>>()
                .join(" ");
            spec.role = Some(role_name(b.role));
            spec.recorded = Some(b.rect);
            crop_at = Some(b.rect);
            if !text.trim().is_empty() {
                spec.text = Some(text.clone());
                caption = Some(text);
            }
        }
        None => {
            let under = labels
                .iter()
                .filter(|l| l.line.inflate(3).contains(pt(p)))
                .min_by_key(|l| l.line.area());
            // Blank space right of a label on its row: a field whose frame is too faint to
            // see (GTK, Swing entries); it is known by that label. (A click lands mid-field:
            // the label may be a wide field's half away.)
            let beside = label_line_beside(&labels, Rect::new(p.0, p.1 - 4, 1, 8), 600)
                .and_then(|l| Some((l, caption_of(l)?)));
            match (under, beside) {
                (Some(l), _) => {
                    spec.text = Some(l.text.trim().to_string());
                    spec.role = Some(role_name(l.role()));
                    spec.recorded = Some(l.rect());
                    caption = spec.text.clone();
                }
                (None, Some((l, text))) => {
                    spec.text = Some(text);
                    spec.role = Some("field".into());
                    // The field as far as can be told: from the label's end, as far again
                    // past the click, a text line tall.
                    let x0 = l.line.x + l.line.w + 4;
                    let h = l.line.h.max(12) + 10;
                    spec.recorded = Some(Rect::new(x0, p.1 - h / 2, 2 * (p.0 - x0).max(20), h));
                }
                (None, None) => {
                    let r = Rect::new(p.0 - 16, p.1 - 16, 32, 32);
                    spec.role = Some("any".into());
                    spec.recorded = Some(r);
                    crop_at = Some(r);
                }
            }
        }
    }
    // The target must lead back to what was clicked, on the very frame: else its text
    // is dropped for the pixels alone, and if those fail too the person is told.
    if !resolves_to(locator, frame, &spec, crop_at, p) {
        if spec.text.is_some() && crop_at.is_some() {
            let mut pixels = spec.clone();
            pixels.text = None;
            if resolves_to(locator, frame, &pixels, crop_at, p) {
                notes.push(format!(
                    "its caption '{}' does not lead back to it (another control reads alike); it is known by its pixels",
                    spec.text.as_deref().unwrap_or_default()
                ));
                return Ok(Described {
                    spec: pixels,
                    caption,
                    crop_at,
                    notes,
                });
            }
        }
        notes.push(
            "the target does not lead back to the control that was clicked on the recorded screen; check it before running the flow".into(),
        );
    }
    Ok(Described {
        spec,
        caption,
        crop_at,
        notes,
    })
}

fn resolves_to(
    locator: &mut Locator,
    frame: &Frame,
    spec: &TargetSpec,
    crop_at: Option<Rect>,
    p: (i32, i32),
) -> bool {
    let Ok(target) = mend_runner::target_of(spec, &mend_runner::Row::new()) else {
        return false;
    };
    let template = crop_at.and_then(|r| mend_vision::crop(&frame.image, r));
    locator
        .locate(frame, &target, &Recorded { template })
        .is_ok_and(|l| l.rect.inflate(2).contains(pt(p)))
}

fn pt(p: (i32, i32)) -> Point {
    Point { x: p.0, y: p.1 }
}

/// The label a field is known by: the nearest text left of it on its row, else just above it.
fn label_of_field(labels: &[SeenLabel], f: Rect) -> Option<String> {
    label_beside(labels, f, 300)
}

/// `label_of_field` with `reach` pixels between the label's end and the field.
fn label_beside(labels: &[SeenLabel], f: Rect, reach: i32) -> Option<String> {
    label_line_beside(labels, f, reach).and_then(caption_of)
}

/// A label's text as a field's caption: its colon left off; `None` when nothing is left.
fn caption_of(l: &SeenLabel) -> Option<String> {
    Some(l.text.trim().trim_end_matches([':', '：']).to_string()).filter(|t| !t.is_empty())
}

/// The label beside a field: the nearest text left of it on its row, else just above it.
fn label_line_beside(labels: &[SeenLabel], f: Rect, reach: i32) -> Option<&SeenLabel> {
    let left = labels
        .iter()
        .filter(|l| l.control.is_none())
        .filter(|l| l.line.x + l.line.w <= f.x + 4 && f.x - (l.line.x + l.line.w) <= reach)
        .filter(|l| l.line.y < f.y + f.h && f.y < l.line.y + l.line.h)
        .min_by_key(|l| f.x - (l.line.x + l.line.w));
    let above = || {
        labels
            .iter()
            .filter(|l| l.control.is_none())
            .filter(|l| l.line.y + l.line.h <= f.y + 2 && f.y - (l.line.y + l.line.h) <= 40)
            .filter(|l| l.line.x < f.x + f.w && f.x < l.line.x + l.line.w)
            .min_by_key(|l| f.y - (l.line.y + l.line.h))
    };
    left.or_else(above)
}
