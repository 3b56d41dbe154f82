//! Control boxes from pixels alone, so owner-drawn controls and unlabeled fields have
//! candidates. Buttons and fields in legacy UIs are framed: a border line differs from its
//! surroundings on all four sides. We find long horizontal edge runs, pair a top and a bottom run
//! that span the same columns, and keep the pair when both vertical sides are edges too.
//! O(pixels) for the edge maps plus O(runs²) for pairing, on an 800×560 window a few ms.
//!
//! Frames come in three shapes and all are boxes: bevels (nested 2–3 px lines), a plain 1 px
//! line (Athena command buttons, calculator keys), and rounded or oval ends (Athena's
//! `shapeStyle`, themed toolkits), where the top and bottom runs stop short of the sides: the
//! side is then looked for up to a third of the height outside the runs' ends. A side must be
//! closed — no gap of more than a row from top to bottom — so two keys of a grid, one above the
//! other, never pair into one box across the gap between them.

use crate::ink::luma;
use image::{GrayImage, RgbaImage};
use mend_model::{Point, Rect, Role};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlBox {
    #[serde(rename = "box")]
    pub rect: Rect,
    /// A guess from shape and fill: `Field` for wide, flat, light-or-uniform interiors,
    /// `Button` otherwise. Text placement refines it later.
    pub role: Role,
}

const EDGE: i16 = 14;
const MIN_W: i32 = 24;
const MIN_H: i32 = 14;
const MAX_H: i32 = 90;
/// A line across a pair this far from both its top and its bottom is no bevel: it cuts it.
const CUT_MARGIN: i32 = 6;

pub(crate) fn gray(img: &RgbaImage) -> GrayImage {
    image::DynamicImage::ImageRgba8(img.clone()).to_luma8()
}

/// The grey control frames are looked for in: the mean of the three channels. For grey pixels it is
/// their grey; on a coloured ground it keeps the contrast a person sees and luma loses. A
/// black key frame on navy (`-bg navy`) differs by 9 in luma, under any edge threshold that
/// ignores antialiasing, and by 43 in the mean.
fn frame_gray(img: &RgbaImage) -> GrayImage {
    GrayImage::from_fn(img.width(), img.height(), |x, y| {
        let [r, g, b, _] = img.get_pixel(x, y).0;
        image::Luma([((r as u16 + g as u16 + b as u16) / 3) as u8])
    })
}

struct Run {
    y: i32,
    x0: i32,
    x1: i32,
}

fn h_runs(g: &GrayImage, min_w: i32) -> Vec<Run> {
    let (w, h) = (g.width() as i32, g.height() as i32);
    let mut runs = Vec::new();
    for y in 0..h - 1 {
        let mut start: Option<i32> = None;
        for x in 0..=w {
            let edge = x < w && {
                let a = g.get_pixel(x as u32, y as u32).0[0] as i16;
                let b = g.get_pixel(x as u32, (y + 1) as u32).0[0] as i16;
                (a - b).abs() >= EDGE
            };
            match (edge, start) {
                (true, None) => start = Some(x),
                (false, Some(s)) => {
                    if x - s >= min_w {
                        runs.push(Run {
                            y,
                            x0: s,
                            x1: x - 1,
                        });
                    }
                    start = None;
                }
                _ => {}
            }
        }
    }
    runs
}

/// Fraction of rows in y0..=y1 where column x (±1) has a horizontal-contrast edge.
fn v_cover(g: &GrayImage, x: i32, y0: i32, y1: i32) -> f64 {
    let w = g.width() as i32;
    let mut hit = 0;
    for y in y0..=y1 {
        let found = (x - 2..=x + 1).any(|xx| {
            xx >= 0 && xx + 1 < w && {
                let a = g.get_pixel(xx as u32, y as u32).0[0] as i16;
                let b = g.get_pixel((xx + 1) as u32, y as u32).0[0] as i16;
                (a - b).abs() >= EDGE
            }
        });
        hit += usize::from(found);
    }
    hit as f64 / (y1 - y0 + 1).max(1) as f64
}

/// Whether row `y` has a horizontal-contrast edge between some column pair in `lo..=hi`.
fn h_edge(g: &GrayImage, lo: i32, hi: i32, y: i32) -> bool {
    let w = g.width() as i32;
    (lo.max(0)..=hi.min(w - 2)).any(|xx| {
        let a = g.get_pixel(xx as u32, y as u32).0[0] as i16;
        let b = g.get_pixel((xx + 1) as u32, y as u32).0[0] as i16;
        (a - b).abs() >= EDGE
    })
}

/// The vertical side of a frame whose top and bottom runs end at column `x` (`dir` −1 for the
/// left side, +1 for the right): the column just outside the side line, or `None` when there is
/// no closed side. A square frame has its side right there (edges down the column); a rounded
/// or oval one is traced from the run's end along its line, row by row, as far out as it goes.
fn side(g: &GrayImage, x: i32, dir: i32, y0: i32, y1: i32, max_out: i32) -> Option<i32> {
    if v_cover(g, x, y0, y1) >= 0.8 && closed(g, x - 2, x + 1, y0, y1) {
        return Some(x);
    }
    let reach = ((y1 - y0 + 1) / 2).min(max_out).min(16);
    let end = if dir < 0 { x } else { x - 1 };
    if let Some(out) = trace_side(g, end, dir, y0, y1, reach) {
        return Some(if dir < 0 { out } else { out + 1 });
    }
    // A small corner radius ends the runs a pixel or two short of a straight side, and on a
    // dark theme the corner's antialiased pixels are too faint to trace (Adwaita dark's field
    // border is 18 levels from its inside): a straight side just there.
    // The line must end at the pair: one that runs on unbroken past both its ends (a popup
    // menu's side beside two of its separators) is another frame's side. A grid of keys has a
    // gap between a key and the next, so its sides break.
    let h = g.height() as i32;
    let runs_on = |at: i32| {
        y0 >= 6
            && y1 + 6 < h
            && v_cover(g, at, y0 - 5, y0 - 2) >= 1.0
            && v_cover(g, at, y1 + 2, y1 + 5) >= 1.0
    };
    (1..=2).map(|k| x + dir * k).find(|&at| {
        v_cover(g, at, y0, y1) >= 0.8 && closed(g, at - 2, at + 1, y0, y1) && !runs_on(at)
    })
}

/// Every row of `y0..=y1` has a horizontal-contrast edge between columns `lo..=hi`, allowing a
/// one-row break: a closed side, not two keys of a grid stacked across the gap between them.
fn closed(g: &GrayImage, lo: i32, hi: i32, y0: i32, y1: i32) -> bool {
    let mut gap = 0;
    for y in y0..=y1 {
        if h_edge(g, lo, hi, y) {
            gap = 0;
        } else {
            gap += 1;
            if gap > 1 {
                return false;
            }
        }
    }
    true
}

/// Follow a rounded frame's line from the end of its top run (column `end`) down to the bottom
/// run: in each row, the stretch of line-coloured pixels touching the previous row's stretch.
/// The outermost column reached is the side; a row where the line breaks means no frame (text
/// inside and a neighbour outside never touch the line, so neither is taken for the side).
fn trace_side(g: &GrayImage, end: i32, dir: i32, y0: i32, y1: i32, reach: i32) -> Option<i32> {
    let (w, h) = (g.width() as i32, g.height() as i32);
    let px = |x: i32, y: i32| -> Option<i16> {
        (x >= 0 && y >= 0 && x < w && y < h).then(|| g.get_pixel(x as u32, y as u32).0[0] as i16)
    };
    // The interior's grey just under the top line (captions sit lower: the middle row may be
    // text), and the line's on the run's own row (the top line may be the row above y0).
    let mut under: Vec<i16> = (0..7).filter_map(|k| px(end - dir * k, y0 + 2)).collect();
    under.sort_unstable();
    let inside = *under.get(under.len() / 2)?;
    // Two pixels in from the run's end: the end itself may be a dot of a stippled background.
    let (start, line) = [y0 - 1, y0]
        .into_iter()
        .filter_map(|y| Some((y, px(end - 2 * dir, y)?)))
        .max_by_key(|(_, v)| (v - inside).abs())?;
    if (line - inside).abs() < EDGE {
        return None;
    }
    let is_line = |x: i32, y: i32| {
        px(x, y).is_some_and(|v| {
            (v - inside).abs() >= EDGE && 2 * (v - line).abs() <= (line - inside).abs()
        })
    };
    let limit = end + dir * reach;
    let (mut lo, mut hi) = (end, end);
    let mut outer = end;
    let mut rows_out: Vec<i32> = Vec::new();
    let mid = (y0 + (y1 - y0) / 4, y1 - (y1 - y0) / 4);
    for y in start + 1..=y1 {
        // Stretches of line pixels in this row within reach that touch the previous row's.
        let (a, b) = (end.min(limit), end.max(limit));
        let mut best: Option<(i32, i32)> = None;
        let mut x = a;
        while x <= b {
            if !is_line(x, y) {
                x += 1;
                continue;
            }
            let s = x;
            while x < b && is_line(x + 1, y) {
                x += 1;
            }
            // The outermost stretch touching: text inside may touch the line too.
            if s <= hi + 1 && x >= lo - 1 && (best.is_none() || dir > 0) {
                best = Some((s, x));
            }
            x += 1;
        }
        let (s, e) = best?;
        // Down the middle the side is a line, not a filled area.
        if (mid.0..=mid.1).contains(&y) {
            if e - s > 3 {
                return None;
            }
            rows_out.push(if dir < 0 { s } else { e });
        }
        (lo, hi) = (s, e);
        outer = if dir < 0 { outer.min(s) } else { outer.max(e) };
    }
    // A side runs straight for a while at its outermost column: a quarter of the height.
    let straight = rows_out.iter().filter(|&&c| (c - outer).abs() <= 1).count() as i32;
    (outer != end && 4 * straight > y1 - y0).then_some(outer)
}

/// Framed rectangles that look like controls, in image pixels, outermost first; then the cells
/// of bars ([`bar_cells`]) no frame already holds.
pub fn find_control_boxes(img: &RgbaImage) -> Vec<ControlBox> {
    let g = frame_gray(img);
    let mut rects = control_rects(&g);
    for cell in bar_cells(&g) {
        if !rects.iter().any(|r| r.iou(&cell) > 0.6) {
            rects.push(cell);
        }
    }
    rects
        .into_iter()
        .map(|rect| ControlBox {
            role: guess_role(&g, rect),
            rect,
        })
        .collect()
}

/// The framed text area under the caption `label` (a commit message's, a note's: `Initial
/// Commit Message:` over a box many lines tall), too tall for a control's box: a frame whose
/// top lies within two text heights under the caption, whose left edge is within two text
/// heights of the caption's start, at least ten text heights wide and three tall. Found on
/// the part of the window under the caption only. The box inside the frame, or `None`.
pub fn framed_area_below(img: &RgbaImage, label: Rect) -> Option<Rect> {
    let h = label.h.max(8);
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let x0 = (label.x - 2 * h).max(0);
    let region = Rect::new(x0, label.bottom(), bounds.right() - x0, 40 * h).intersect(&bounds)?;
    let g = frame_gray(&crate::crop(img, region)?);
    let frame = frames(&g, 10 * h, 3 * h, region.h, false)
        .into_iter()
        .map(|r| r.translate(region.x, region.y))
        .filter(|r| r.y - label.bottom() <= 2 * h && (r.x - label.x).abs() <= 2 * h)
        .filter(|r| r.w >= 10 * h && r.h >= 3 * h)
        .min_by_key(|r| (r.y, -r.area()))?;
    // The area is the ground met at the frame's middle, out to where it ends on the middle
    // row and column: a scroll bar drawn inside the frame is no part of it.
    let c = frame.center();
    let ground = luma(img, c.x, c.y);
    let same =
        |x: i32, y: i32| frame.contains(Point { x, y }) && (luma(img, x, y) - ground).abs() <= 6;
    let (mut l, mut r, mut t, mut b) = (c.x, c.x, c.y, c.y);
    while same(l - 1, c.y) {
        l -= 1;
    }
    while same(r + 1, c.y) {
        r += 1;
    }
    while same(c.x, t - 1) {
        t -= 1;
    }
    while same(c.x, b + 1) {
        b += 1;
    }
    let area = Rect::new(l, t, r - l + 1, b - t + 1);
    // The ground reaches the frame's top and bottom: where something stands across the middle
    // column (a list's first row, selected), the white under it is no area of its own but
    // the rest of a list — KIO's file list under its `Name` column header; a bevel of a few
    // pixels is no row (ttk's clam draws 4). Under it, the ground may stop at a horizontal
    // scroll bar inside the frame, two text heights at most (Tk's commit message box in git
    // gui).
    let whole_height = t - frame.y <= 3.max(h / 3) && frame.bottom() - 1 - b <= 3.max(2 * h);
    (whole_height && area.w >= 10 * h && area.h >= 3 * h).then_some(area)
}

/// Whether column `x` holds a thin vertical line (one or two pixels wide, differing from both
/// its neighbours) down every row of `y0..=y1` but one: the rule between two cells of a bar.
/// The width of the line, if so. A letter's stroke never spans a band from its top to its
/// bottom: captions sit inside with a margin.
fn rule_at(g: &GrayImage, x: i32, y0: i32, y1: i32) -> Option<i32> {
    let w = g.width() as i32;
    let px = |x: i32, y: i32| g.get_pixel(x as u32, y as u32).0[0] as i16;
    (1..=2).find(|&k| {
        if x < 1 || x + k >= w {
            return false;
        }
        let mut missed = 0;
        for y in y0..=y1 {
            let line = (x..x + k).all(|c| {
                (px(c, y) - px(x - 1, y)).abs() >= EDGE && (px(c, y) - px(x + k, y)).abs() >= EDGE
            });
            if !line {
                missed += 1;
                if missed > 1 {
                    return false;
                }
            }
        }
        true
    })
}

/// Cells of a bar: captions packed side by side in a band between two rules, parted by thin
/// vertical lines from the band's top to its bottom — Athena command buttons drawn edge to edge
/// with one-pixel lines between them (`Quit | Save | Load | name`), a row of a property grid,
/// a status bar's panes. No cell has a top and a bottom line of its own (the band's rules run on
/// across the row), so no pair of runs frames it; the band lies against the window's edge, which
/// is its rule there: the toolkit drew none. (Bands inside a window — tab rows, a terminal's
/// line-drawn boxes — are not taken: their cells made wrong boxes on the real-app suite.) A band cut by two lines or more
/// (three cells) is a bar; each cell at least as wide as the band is tall is a box. A cell
/// holding several items apart is still no item's control (the scene's bar test).
fn bar_cells(g: &GrayImage) -> Vec<Rect> {
    let (w, h) = (g.width() as i32, g.height() as i32);
    // The rules: long horizontal edge runs, and the window's top and bottom edges. Where a
    // cell's side meets the rule, the rule's edge breaks for a pixel or two (the side's line
    // and the rule are one colour): such breaks are bridged.
    let mut rules: Vec<Run> = Vec::new();
    for r in h_runs(g, MIN_W / 3) {
        match rules.last_mut() {
            Some(last) if last.y == r.y && r.x0 - last.x1 <= 3 => last.x1 = r.x1,
            _ => rules.push(r),
        }
    }
    rules.retain(|r| r.x1 - r.x0 + 1 >= 3 * MIN_W);
    rules.push(Run {
        y: -1,
        x0: 0,
        x1: w - 1,
    });
    rules.push(Run {
        y: h - 1,
        x0: 0,
        x1: w - 1,
    });
    rules.sort_by_key(|r| r.y);
    let mut cells = Vec::new();
    for (j, bot) in rules.iter().enumerate() {
        // Each rule above that overlaps this one by a bar's length, nearest first (a bevel's
        // line over some of the cells stands nearer than the rule over them all), until a
        // rule cuts across the band's middle: two rows stacked are no one cell.
        for (i, top) in rules[..j].iter().enumerate().rev() {
            let (y0, y1) = (top.y + 1, bot.y);
            let tall = y1 - y0 + 1;
            if tall > MAX_H {
                break;
            }
            let (x0, x1) = (top.x0.max(bot.x0), top.x1.min(bot.x1));
            // Only a band against the window's top or bottom edge: inside a window, a row of
            // tabs or a terminal's boxes drawn in line characters is cut the same way, and its
            // cells are no controls of their own.
            let at_edge = top.y == -1 || bot.y == h - 1;
            if !at_edge || tall < MIN_H || x1 - x0 < 3 * MIN_W {
                continue;
            }
            let cut = rules[i + 1..j].iter().any(|m| {
                m.y >= y0 + CUT_MARGIN
                    && m.y <= y1 - CUT_MARGIN
                    && 2 * (m.x1.min(x1) - m.x0.max(x0)) >= x1 - x0
            });
            if cut {
                break;
            }
            cells.extend(band_cells(g, x0, x1, y0, y1));
        }
    }
    cells
}

/// The cells of one band, `x0..=x1` by `y0..=y1`: none unless thin lines cut it in three or more.
fn band_cells(g: &GrayImage, x0: i32, x1: i32, y0: i32, y1: i32) -> Vec<Rect> {
    let tall = y1 - y0 + 1;
    let mut cuts = vec![(x0 - 1, 0)];
    let mut x = x0 + 1;
    while x < x1 {
        match rule_at(g, x, y0, y1) {
            Some(k) => {
                cuts.push((x, k));
                x += k + 1;
            }
            None => x += 1,
        }
    }
    if cuts.len() < 3 {
        return Vec::new();
    }
    cuts.push((x1 + 1, 0));
    cuts.windows(2)
        .filter_map(|pair| {
            let ((a, k), (b, _)) = (pair[0], pair[1]);
            let (left, right) = (a + k.max(1), b - 1);
            (right - left + 1 >= tall.min(MIN_W))
                .then(|| Rect::new(left, y0, right - left + 1, tall))
        })
        .collect()
}

/// Closed frames whose top and bottom lines are at least `min_w` long and `min_h..=max_h`
/// apart, largest first, near-duplicates (nested bevel lines) merged.
pub(crate) fn framed_rects(g: &GrayImage, min_w: i32, min_h: i32, max_h: i32) -> Vec<Rect> {
    frames(g, min_w, min_h, max_h, false)
}

/// [`framed_rects`] for controls: a pair cut through by a line across its middle is two boxes
/// stacked, not one.
fn control_rects(g: &GrayImage) -> Vec<Rect> {
    frames(g, MIN_W, MIN_H, MAX_H, true)
}

fn frames(g: &GrayImage, min_w: i32, min_h: i32, max_h: i32, cut_through: bool) -> Vec<Rect> {
    // A control's frame may be an oval (Athena's `shapeStyle: oval` around a short caption:
    // `OK` in a 24×19 ellipse whose flat top is 12 px): for controls, runs half as long pair
    // too, when both sides curve out from their ends and the whole is `min_w` wide.
    let runs = h_runs(g, if cut_through { min_w / 2 } else { min_w });
    let mut rects: Vec<Rect> = Vec::new();
    for (i, top) in runs.iter().enumerate() {
        for (j, bot) in runs.iter().enumerate().skip(i + 1) {
            let dy = bot.y - top.y;
            if dy < min_h {
                continue;
            }
            if dy > max_h {
                break; // runs are sorted by y
            }
            if (top.x0 - bot.x0).abs() > 3 || (top.x1 - bot.x1).abs() > 3 {
                continue;
            }
            let (x0, x1) = (top.x0.min(bot.x0), top.x1.max(bot.x1));
            // A line right across the middle cuts the pair into two boxes stacked (two
            // one-row fields of a terminal form in colours of their own, two rows of a
            // table), each found by its own pair; together they are no control. Bevel lines
            // lie within a few pixels of the top or the bottom.
            let cut = cut_through
                && runs[i + 1..j].iter().any(|m| {
                    m.y >= top.y + CUT_MARGIN
                        && m.y <= bot.y - CUT_MARGIN
                        && m.x0 <= x0 + 3
                        && m.x1 >= x1 - 3
                });
            if cut {
                continue;
            }
            let (y0, y1) = (top.y + 1, bot.y);
            if x1 - x0 + 1 < min_w {
                // Short lines: an oval's, or nothing. Both ends are arcs traced out as far as
                // half the height, and what they close is a control's width.
                let reach = ((y1 - y0 + 1) / 2).min(16);
                let (Some(left), Some(right)) = (
                    trace_side(g, x0, -1, y0, y1, reach),
                    trace_side(g, x1, 1, y0, y1, reach).map(|x| x + 1),
                ) else {
                    continue;
                };
                if right - left >= min_w && x0 - left >= 2 && right - x1 >= 3 {
                    rects.push(Rect::new(left, y0, right - left, y1 - y0 + 1));
                }
                continue;
            }
            // Rounded corners cut a small frame's lines short by a larger share of its width.
            let reach = if x1 - x0 < MIN_W { 4 } else { (x1 - x0) / 4 };
            let (Some(left), Some(right)) = (
                side(g, x0, -1, y0, y1, reach),
                side(g, x1 + 1, 1, y0, y1, reach),
            ) else {
                continue;
            };
            rects.push(Rect::new(left, y0, right - left, y1 - y0 + 1));
        }
    }
    // Nested bevel lines give near-duplicates: keep the largest of each cluster.
    rects.sort_by_key(|r| std::cmp::Reverse(r.area()));
    let mut kept: Vec<Rect> = Vec::new();
    for r in rects {
        if !kept.iter().any(|k| {
            k.iou(&r) > 0.6 || (k.inflate(4).contains_rect(&r) && r.area() * 10 > k.area() * 6)
        }) {
            kept.push(r);
        }
    }
    kept
}

/// Fields are wide and their interior is mostly one flat colour with text (if any) on the left;
/// buttons are shorter and carry centred text. Without OCR we only look at the ink's spread.
fn guess_role(g: &GrayImage, r: Rect) -> Role {
    // Much wider than tall: an input field (captions of buttons are short).
    if r.w >= 4 * r.h {
        return Role::Field;
    }
    // Skip the bevel: 2–3 px borders, scaled with the font.
    let inner = r.inflate(-(4.max(r.h / 8)));
    if inner.w <= 0 || inner.h <= 0 {
        return Role::Any;
    }
    let bg = g
        .get_pixel((inner.x + 1) as u32, (inner.y + inner.h / 2) as u32)
        .0[0] as i16;
    let (mut minx, mut maxx) = (i32::MAX, i32::MIN);
    for y in inner.y..inner.bottom() {
        for x in inner.x..inner.right() {
            if (g.get_pixel(x as u32, y as u32).0[0] as i16 - bg).abs() > 60 {
                minx = minx.min(x);
                maxx = maxx.max(x);
            }
        }
    }
    if minx > maxx {
        // Empty: an empty field or a blank panel.
        return if r.w >= 2 * r.h {
            Role::Field
        } else {
            Role::Any
        };
    }
    let ink_center = (minx + maxx) / 2 - inner.x;
    let centred = (ink_center - inner.w / 2).abs() <= inner.w / 8;
    let left = minx - inner.x <= inner.w / 6 && !centred;
    if left && r.w >= 3 * r.h {
        Role::Field
    } else if centred {
        Role::Button
    } else {
        Role::Any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    fn frame(img: &mut RgbaImage, r: Rect, c: [u8; 4]) {
        for x in r.x..r.right() {
            img.put_pixel(x as u32, r.y as u32, Rgba(c));
            img.put_pixel(x as u32, (r.bottom() - 1) as u32, Rgba(c));
        }
        for y in r.y..r.bottom() {
            img.put_pixel(r.x as u32, y as u32, Rgba(c));
            img.put_pixel((r.right() - 1) as u32, y as u32, Rgba(c));
        }
    }

    #[test]
    fn a_black_frame_on_a_navy_ground_is_a_frame() {
        // Luma tells black from navy by 9 levels; a person sees the keys plainly.
        let mut img = RgbaImage::from_pixel(200, 100, Rgba([0, 0, 128, 255]));
        let key = Rect::new(40, 30, 42, 28);
        frame(&mut img, key, [0, 0, 0, 255]);
        for y in 40..48 {
            for x in 58..64 {
                img.put_pixel(x, y, Rgba([255, 255, 255, 255]));
            }
        }
        let boxes = find_control_boxes(&img);
        assert!(
            boxes.iter().any(|b| b.rect.iou(&key) > 0.8),
            "no frame in {boxes:?}"
        );
    }

    /// Athena's `OK` in its oval (`shapeStyle: oval`), as bitmap draws it: 24×19, the flat
    /// top and bottom 12 px. Its top-left at (x + 1, y + 1).
    const OVAL_OK: [&str; 21] = [
        "..........................",
        ".......############.......",
        ".....###..........###.....",
        "....##..............##....",
        "...#..................#...",
        "..##..................##..",
        "..#....####..##...#....#..",
        ".##...##..##.##..##....##.",
        ".#....##..##.##.##......#.",
        ".#....##..##.####.......#.",
        ".#....##..##.###........#.",
        ".#....##..##.####.......#.",
        ".#....##..##.##.##......#.",
        ".##...##..##.##..##....##.",
        "..#....####..##...#....#..",
        "..##..................##..",
        "...#..................#...",
        "....##..............##....",
        ".....###..........###.....",
        ".......############.......",
        "..........................",
    ];

    fn draw(img: &mut RgbaImage, x: u32, y: u32, art: &[&str]) {
        for (dy, row) in art.iter().enumerate() {
            for (dx, c) in row.chars().enumerate() {
                if c == '#' {
                    img.put_pixel(x + dx as u32, y + dy as u32, Rgba([0, 0, 0, 255]));
                }
            }
        }
    }

    #[test]
    fn a_short_caption_in_an_oval_is_a_box_and_a_small_ring_or_two_short_lines_are_not() {
        let mut img = RgbaImage::from_pixel(200, 80, Rgba([255, 255, 255, 255]));
        // `OK` in its 24×19 oval: its flat top and bottom are 12 px, half a frame's line.
        draw(&mut img, 9, 19, &OVAL_OK);
        let ok = Rect::new(10, 20, 24, 19);
        // A radio button's ring, 13 px: no control box (too small for a caption's frame).
        draw(
            &mut img,
            60,
            22,
            &[
                "....#####....",
                "..##.....##..",
                ".#.........#.",
                ".#.........#.",
                "#...........#",
                "#...........#",
                "#...........#",
                "#...........#",
                "#...........#",
                ".#.........#.",
                ".#.........#.",
                "..##.....##..",
                "....#####....",
            ],
        );
        // An oval's top and bottom lines with no curved ends (a big `=`, two rules): no box.
        for x in 100..112 {
            img.put_pixel(x, 20, Rgba([0, 0, 0, 255]));
            img.put_pixel(x, 38, Rgba([0, 0, 0, 255]));
        }
        let boxes = find_control_boxes(&img);
        assert!(
            boxes.iter().any(|b| b.rect.iou(&ok) > 0.8),
            "the oval: {boxes:?}"
        );
        assert!(
            boxes.iter().all(|b| b.rect.x < 50),
            "a ring or two short lines taken for a control: {boxes:?}"
        );
    }

    #[test]
    fn framed_rectangles_are_found_and_roles_guessed() {
        let mut img = RgbaImage::from_pixel(400, 200, Rgba([236, 236, 236, 255]));
        let button = Rect::new(40, 40, 100, 34);
        let field = Rect::new(180, 40, 200, 30);
        frame(&mut img, button, [60, 60, 60, 255]);
        frame(&mut img, field, [60, 60, 60, 255]);
        for y in field.y + 1..field.bottom() - 1 {
            for x in field.x + 1..field.right() - 1 {
                img.put_pixel(x as u32, y as u32, Rgba([255, 255, 255, 255]));
            }
        }
        // Caption ink in the button's middle.
        for y in 52..62 {
            for x in 75..105 {
                img.put_pixel(x, y, Rgba([0, 0, 0, 255]));
            }
        }
        let boxes = find_control_boxes(&img);
        let b = boxes
            .iter()
            .find(|b| b.rect.iou(&button) > 0.8)
            .expect("button found");
        let f = boxes
            .iter()
            .find(|b| b.rect.iou(&field) > 0.8)
            .expect("field found");
        assert_eq!(b.role, Role::Button);
        assert_eq!(f.role, Role::Field);
    }

    /// Two one-row fields of a terminal form, bars of two colours one on the other with no
    /// frame: each is a box of its own (at 24 px cells), never the two as one box whose
    /// middle is where the two meet (a click there went to the wrong field).
    #[test]
    fn two_bars_stacked_are_two_boxes_not_one() {
        let mut img = RgbaImage::from_pixel(500, 200, Rgba([229, 229, 229, 255]));
        let name = Rect::new(100, 50, 360, 24);
        let phone = Rect::new(100, 74, 360, 24);
        for (r, c) in [(name, [0, 0, 238, 255]), (phone, [0, 205, 205, 255])] {
            for y in r.y..r.bottom() {
                for x in r.x..r.right() {
                    img.put_pixel(x as u32, y as u32, Rgba(c));
                }
            }
        }
        let boxes = find_control_boxes(&img);
        assert!(boxes.iter().any(|b| b.rect.iou(&name) > 0.8), "{boxes:?}");
        assert!(boxes.iter().any(|b| b.rect.iou(&phone) > 0.8), "{boxes:?}");
        let both = name.union(&phone);
        assert!(!boxes.iter().any(|b| b.rect.iou(&both) > 0.8), "{boxes:?}");
    }

    fn fill(img: &mut RgbaImage, r: Rect, c: [u8; 4]) {
        for y in r.y..r.bottom() {
            for x in r.x..r.right() {
                img.put_pixel(x as u32, y as u32, Rgba(c));
            }
        }
    }

    /// A commit message's box under its caption (git gui's `Initial Commit Message:`): a frame
    /// 160 px tall on the window's grey, a white area inside with a scroll bar down its right
    /// edge. The area is the white inside without the scroll bar; a frame far below the
    /// caption or far to its right is none of it.
    #[test]
    fn a_framed_text_area_under_its_caption_is_found_without_its_scroll_bar() {
        let mut img = RgbaImage::from_pixel(700, 300, Rgba([217, 217, 217, 255]));
        let label = Rect::new(40, 20, 160, 14);
        fill(&mut img, label, [0, 0, 0, 255]);
        fill(&mut img, Rect::new(38, 38, 602, 162), [120, 120, 120, 255]);
        fill(&mut img, Rect::new(39, 39, 600, 160), [255, 255, 255, 255]);
        fill(&mut img, Rect::new(624, 39, 15, 160), [200, 200, 200, 255]);
        let area = framed_area_below(&img, label).expect("the area");
        assert!(area.x <= 41 && area.y <= 41, "{area:?}");
        assert!(area.right() <= 624 && area.right() >= 620, "{area:?}");
        assert!(area.bottom() >= 196, "{area:?}");
        // The caption far to the right of the frame: not its area.
        assert_eq!(framed_area_below(&img, Rect::new(400, 20, 100, 14)), None);
        // The frame far below the caption: none.
        let mut far = RgbaImage::from_pixel(700, 400, Rgba([217, 217, 217, 255]));
        fill(&mut far, label, [0, 0, 0, 255]);
        fill(&mut far, Rect::new(38, 138, 602, 162), [120, 120, 120, 255]);
        fill(&mut far, Rect::new(39, 139, 600, 160), [255, 255, 255, 255]);
        assert_eq!(framed_area_below(&far, label), None);
        // A list under a column header, its first row selected: the white under the row is
        // the rest of the list, no area.
        let mut list = img.clone();
        fill(&mut list, Rect::new(60, 41, 400, 18), [180, 210, 240, 255]);
        assert_eq!(framed_area_below(&list, label), None);
    }

    /// A row of captions drawn edge to edge against the window's top, parted by one-pixel lines
    /// and closed by a rule under them (Athena command buttons packed in a Paned: `Quit | Save |
    /// Load | name`): each cell is a box, the captions' cells buttons and the wide blank one
    /// right of them a field — though no cell has a top line, and the rule under them runs on
    /// across the row. A stroke of a letter, which never spans the band, parts nothing.
    #[test]
    fn captions_packed_in_a_row_between_lines_are_a_bar_of_cells() {
        let black = [0, 0, 0, 255];
        let mut img = RgbaImage::from_pixel(400, 120, Rgba([255, 255, 255, 255]));
        fill(&mut img, Rect::new(0, 18, 400, 1), black);
        for x in [36, 73, 110] {
            fill(&mut img, Rect::new(x, 0, 1, 18), black);
        }
        // Captions: letters with tall strokes, centred in their cells.
        for cx in [18, 55, 92] {
            fill(&mut img, Rect::new(cx - 10, 4, 2, 10), black);
            fill(&mut img, Rect::new(cx - 6, 7, 14, 6), black);
            fill(&mut img, Rect::new(cx + 9, 4, 2, 10), black);
        }
        let boxes = find_control_boxes(&img);
        let at = |r: Rect| boxes.iter().find(|b| b.rect.iou(&r) > 0.8);
        for (x0, x1) in [(0, 35), (37, 72), (74, 109)] {
            let cell = Rect::new(x0, 0, x1 - x0 + 1, 18);
            let b = at(cell).unwrap_or_else(|| panic!("no cell {cell:?} in {boxes:?}"));
            assert_eq!(b.role, Role::Button, "{b:?}");
        }
        let name = at(Rect::new(111, 0, 289, 18)).expect("the field right of the buttons");
        assert_eq!(name.role, Role::Field);
        assert!(boxes.iter().all(|b| b.rect.w >= 18), "{boxes:?}");
    }

    /// One line across a band makes two panes, not a bar of packed items: no cells.
    #[test]
    fn a_band_parted_once_is_no_bar() {
        let black = [0, 0, 0, 255];
        let mut img = RgbaImage::from_pixel(400, 120, Rgba([255, 255, 255, 255]));
        fill(&mut img, Rect::new(0, 18, 400, 1), black);
        fill(&mut img, Rect::new(120, 0, 1, 18), black);
        assert!(find_control_boxes(&img).is_empty());
    }

    #[test]
    fn a_blank_screen_has_no_controls() {
        let img = RgbaImage::from_pixel(300, 200, Rgba([236, 236, 236, 255]));
        assert!(find_control_boxes(&img).is_empty());
    }
}
