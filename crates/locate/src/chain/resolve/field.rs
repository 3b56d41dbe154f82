//! The field a label labels: a framed box right of it or below it, else what a field looks
//! like unframed — a bar of its own colour, a prompt's input, a text area under its caption.

use super::*;

/// The input field right of a label (same row), else just below it. A box whose ink sits
/// centred in it is a button whatever its shape (a wide Swing button right of a caption that
/// labels the field below it: "Replace with:" and "Replace & Find"); a field's text starts at
/// its left.
pub(in crate::chain) fn field_beside(scene: &mut Scene, label: Rect) -> Option<Rect> {
    let frame = scene.frame;
    let img = &frame.image;
    let alone_on_row = alone_on_row(scene, label);
    let read: Vec<Rect> = scene.labels_read().iter().map(|m| m.line).collect();
    let boxes = scene.boxes();
    // A field is a few text heights tall at most, and within reach: both measured in the
    // label's text, so that a UI drawn at twice the scale (GDK_SCALE=2: a 68 px entry beside
    // 20 px text) keeps its fields.
    let (tallest, reach) = (control_height(label.h), (15 * label.h).max(300));
    let right = framed_right(img, boxes, label, tallest, reach);
    let below = framed_below(img, boxes, &read, label).or_else(|| {
        alone_on_row
            .then(|| wide_input_below(img, boxes, &read, label))
            .flatten()
    });
    // No frame there: a bar of its own colour on the row under the caption (a text UI's
    // dialog: its prompt over its input), nearer than any framed field below and overlapping
    // no box but a panel around it. Else a framed box further down would be taken for it (the
    // row of the dialog's buttons under the input). A caption alone on its row only: one in
    // a strip of others is a list's column header, and a bar under it its selected row.
    let bar_below = alone_on_row.then(|| mend_vision::filled_bar_below(img, label));
    let bar_below = bar_below.flatten().filter(|bar| no_face(boxes, bar));
    let below = match (bar_below, below) {
        (Some(bar), Some(b)) if bar.y < b.y => Some(bar),
        (Some(bar), None) => Some(bar),
        (_, b) => b,
    };
    // A caption above its field labels that field, not a box far along its row: the label is
    // the nearest text to its own field (Swing's "Replace with:" stands 3 px above its text
    // area and 290 px left of a wide "Replace & Find" button whose caption nearly fills it).
    // The box right of it keeps the label unless the one below is three times nearer.
    if let (Some(r), Some(b)) = (right, below) {
        let (gap_r, gap_b) = (r.x - label.right(), (b.y - label.bottom()).max(0));
        if 3 * gap_b < gap_r {
            return Some(b);
        }
    }
    // No frame there: a bar filled with a colour of its own (a terminal form's one-row field,
    // drawn in cell colours), never a framed box's face.
    let bar = || filled_bar(img, label, reach).filter(|bar| no_face(boxes, bar));
    // No frame at all: a text area drawn without one under its caption strip (wxGTK's and
    // GTK's text views), where no control's box lies in it, the caption alone on its strip.
    let area = || {
        if !alone_on_row {
            return None;
        }
        mend_vision::area_under_strip(img, label).filter(|a| {
            !boxes
                .iter()
                .any(|b| a.intersect(&b.rect).is_some_and(|i| i.area() > 0))
        })
    };
    let prompt = prompt_beside(img, boxes, label);
    // A caret on the caption's own line is where typed keys go: before a box below it (a
    // terminal's prompt bar over its shortcut rows, whose key badges frame boxes).
    right
        .or_else(bar)
        .or_else(|| prompt.filter(|p| p.caret).map(|p| p.input))
        .or(below)
        .or_else(area)
        .or_else(|| blank_area_below(img, boxes, label))
}

/// Whether `label` is a caption alone on its row (the window's reading known): a strip with
/// other captions set along it is a list's header row, and the area under it the list.
/// Captions along a row share its middle within half the shorter's height: a reading two rows
/// tall beside it (a text UI's history arrow read with the rule under it, 28 px) sets no row.
fn alone_on_row(scene: &Scene, label: Rect) -> bool {
    let lc = label.center();
    let read = scene.labels_read();
    !read.is_empty()
        && !read.iter().any(|m| {
            m.control.is_none()
                && m.line.intersect(&label).is_none()
                && (m.line.center().y - lc.y).abs() * 2 <= label.h.min(m.line.h).max(6)
        })
}

/// The nearest framed box right of `label` on its row, within `reach`, no taller than
/// `tallest`, and neither a button nor a box with its ink centred in it.
fn framed_right(
    img: &RgbaImage,
    boxes: &[ControlBox],
    label: Rect,
    tallest: i32,
    reach: i32,
) -> Option<Rect> {
    let lc = label.center();
    boxes
        .iter()
        .filter(|b| b.role != Role::Button && b.rect.h <= tallest && !centred_ink(img, b.rect))
        .filter(|b| (b.rect.center().y - lc.y).abs() <= label.h.max(b.rect.h) / 2 + 2)
        .filter(|b| b.rect.x >= label.right() - 4 && b.rect.x - label.right() <= reach)
        .min_by_key(|b| b.rect.x - label.right())
        .map(|b| b.rect)
}

/// The nearest framed field just below `label` (within 40 px down, its left within 20 px of
/// the label's), its ink not centred and holding no shortcut item; `read` are the lines read.
fn framed_below(img: &RgbaImage, boxes: &[ControlBox], read: &[Rect], label: Rect) -> Option<Rect> {
    // A box holding a shortcut item (a caption with its key in reverse video before it) is
    // a text UI's shortcut rows, the space between two keys' blocks: no field.
    let shortcuts = |b: &Rect| {
        read.iter().any(|m| {
            b.contains_rect(m)
                && m.intersect(&label).is_none()
                && mend_vision::key_badge(img, *m).is_some()
        })
    };
    boxes
        .iter()
        // Ink centred in it is captions (a row of buttons framed as one: a terminal dialog's
        // `[< OK >] [ Cancel ]` under its input), never a field's text.
        .filter(|b| b.role == Role::Field && !centred_ink(img, b.rect) && !shortcuts(&b.rect))
        .filter(|b| b.rect.y >= label.bottom() - 2 && b.rect.y - label.bottom() <= 40)
        .filter(|b| (b.rect.x - label.x).abs() <= 20)
        .min_by_key(|b| b.rect.y)
        .map(|b| b.rect)
}

/// A wide input under a prompt set over it, its caption anywhere along it (Athena's and
/// Motif's prompt dialogs centre `Save file:` over a box the dialog's width): the field's span
/// holds the whole caption, it lies within two text heights under it, and the caption is the
/// field's only one — no other reading (of `read`) on the field's rows left of it, none
/// between the two. (The caller asks only for a caption alone on its row.)
fn wide_input_below(
    img: &RgbaImage,
    boxes: &[ControlBox],
    read: &[Rect],
    label: Rect,
) -> Option<Rect> {
    boxes
        .iter()
        .filter(|b| b.role == Role::Field && !centred_ink(img, b.rect))
        .filter(|b| b.rect.x <= label.x && b.rect.right() >= label.right())
        .filter(|b| b.rect.y >= label.bottom() - 2 && b.rect.y - label.bottom() <= 2 * label.h)
        .filter(|b| {
            !read.iter().any(|m| {
                let c = m.center();
                m.intersect(&label).is_none()
                    && ((m.right() <= b.rect.x + 4 && c.y >= b.rect.y && c.y < b.rect.bottom())
                        || (c.y > label.bottom() && c.y < b.rect.y))
            })
        })
        .min_by_key(|b| b.rect.y)
        .map(|b| b.rect)
}

/// Whether filled bar `bar` is no framed box's face: it overlaps no box (a button's face is
/// no field of its own) unless the box is a panel around it (twice its size or more).
fn no_face(boxes: &[ControlBox], bar: &Rect) -> bool {
    !boxes.iter().any(|b| {
        let panel = b.rect.contains_rect(bar) && b.rect.area() >= 2 * bar.area();
        b.rect.intersect(bar).is_some_and(|i| i.area() > 0) && !panel
    })
}

/// No box, no bar, no area: a prompt's input, the rest of the caption's line where a text
/// caret stands (a terminal's or a minibuffer's `Write file: ~/█`), its text's rows (3 px
/// inside its box) touching no box.
fn prompt_beside(
    img: &RgbaImage,
    boxes: &[ControlBox],
    label: Rect,
) -> Option<mend_vision::Prompt> {
    mend_vision::prompt_input(img, label).filter(|p| {
        !boxes.iter().any(|b| {
            p.input
                .inflate(-3)
                .intersect(&b.rect)
                .is_some_and(|i| i.area() > 0)
        })
    })
}

/// A framed text area under the caption, many lines tall (a commit message's box): too tall
/// for a control's box, taken only while it is empty (no ink but a caret) — a list under a
/// caption is framed alike, and keys typed into it pick its items. It overlaps no box.
fn blank_area_below(img: &RgbaImage, boxes: &[ControlBox], label: Rect) -> Option<Rect> {
    mend_vision::framed_area_below(img, label)
        .filter(|a| mend_vision::field_is_blank(img, *a))
        .filter(|a| {
            !boxes
                .iter()
                .any(|b| b.rect.intersect(a).is_some_and(|i| i.area() > 0))
        })
}
