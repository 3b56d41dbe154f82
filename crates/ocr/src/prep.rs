use image::{imageops, GrayImage, RgbaImage};
use mend_model::Rect;
use std::collections::{HashMap, VecDeque};

/// Mean luminance below this reads as a dark theme (light text on dark).
const DARK_MEAN: f64 = 110.0;

pub fn is_dark(gray: &GrayImage) -> bool {
    let n = (gray.width() as u64 * gray.height() as u64).max(1);
    let sum: u64 = gray.pixels().map(|p| p.0[0] as u64).sum();
    (sum as f64 / n as f64) < DARK_MEAN
}

/// Grey levels within this of each other are one background shade (a gradient bar drifts by
/// a level or two per pixel).
const FLAT_TOL: i16 = 8;
/// A pixel this far from the shade of the ground it lies on is ink, lighter or darker.
const INK_DIFF: i16 = 48;
/// A region seeded by fewer flat pixels is no background.
const MIN_SEED: usize = 8;
/// A region without ink this large decides by its own shade; a smaller one is part of what
/// lies around it (a bar, a separator, the inside of a thick stroke) and goes with that.
const GROUND_AREA: usize = 2000;

/// Turn every part of `gray` into dark text on a light ground, judged region by region. A
/// window is seldom of one polarity — a terminal's light dialog panel on its dark screen, a
/// selected item's light text on its highlight, a dark editor beside light menus — and one
/// verdict from the mean of the whole inverted the light panel with the rest, whose text
/// Tesseract then misread.
///
/// Regions of ground are seeded where a shade is flat (a pixel's whole 5×5 neighbourhood
/// within [`FLAT_TOL`]: no ink there) and grown through every pixel of the same shade, so a
/// highlight one text row tall is one region however little of it is clear of its text. Ink
/// and edges belong to the nearest region. A region whose ink is mostly lighter than its
/// ground is inverted, one with mostly darker ink is kept; a large one without ink keeps the
/// dark-theme rule on its own shade and a small one goes with the region it borders most.
/// Regions decide only where the whole crop's mean says dark and a large ground of each
/// polarity is there (the terminal's case); otherwise, and with no region at all (a crop of
/// ink alone), the whole crop's mean decides as before.
///
/// Shades are compared in colour where `rgba` (the same pixels) is given: a yellow cell is
/// not the light grey panel it borders, though their greys are close.
pub fn normalize_polarity(gray: &mut GrayImage, rgba: Option<&RgbaImage>) {
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    if w == 0 || h == 0 {
        return;
    }
    let px = gray.as_raw().clone();
    let flat = flat_pixels(&px, w, h, 2);
    const NONE: u32 = u32::MAX;
    let neighbours = |i: usize| {
        let (x, y) = (i % w, i / w);
        [
            (x > 0).then(|| i - 1),
            (x + 1 < w).then_some(i + 1),
            (y > 0).then(|| i - w),
            (y + 1 < h).then_some(i + w),
        ]
        .into_iter()
        .flatten()
    };
    let colour = rgba
        .filter(|c| c.dimensions() == gray.dimensions())
        .map(|c| c.as_raw());
    let similar = |a: usize, b: usize| match colour {
        Some(c) => (0..3).all(|k| (c[4 * a + k] as i16 - c[4 * b + k] as i16).abs() <= FLAT_TOL),
        None => (px[a] as i16 - px[b] as i16).abs() <= FLAT_TOL,
    };
    // Seeds: 4-connected flat pixels of one shade.
    let mut seed = vec![NONE; w * h];
    let mut seeds: Vec<usize> = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if !flat[start] || seed[start] != NONE {
            continue;
        }
        let id = seeds.len() as u32;
        seed[start] = id;
        stack.push(start);
        let mut n = 0;
        while let Some(i) = stack.pop() {
            n += 1;
            for j in neighbours(i) {
                if flat[j] && seed[j] == NONE && similar(i, j) {
                    seed[j] = id;
                    stack.push(j);
                }
            }
        }
        seeds.push(n);
    }
    // Regions: the seeds large enough, grown through their shade.
    let mut label = vec![NONE; w * h];
    let mut region_of = vec![NONE; seeds.len()];
    let mut sizes: Vec<usize> = Vec::new();
    let mut shade_sum: Vec<u64> = Vec::new();
    let mut grow = VecDeque::new();
    for i in 0..w * h {
        let s = seed[i];
        if s == NONE || seeds[s as usize] < MIN_SEED {
            continue;
        }
        if region_of[s as usize] == NONE {
            region_of[s as usize] = sizes.len() as u32;
            sizes.push(0);
            shade_sum.push(0);
        }
        label[i] = region_of[s as usize];
        grow.push_back(i);
    }
    if grow.is_empty() {
        if is_dark(gray) {
            imageops::invert(gray);
        }
        return;
    }
    while let Some(i) = grow.pop_front() {
        let r = label[i] as usize;
        sizes[r] += 1;
        shade_sum[r] += px[i] as u64;
        for j in neighbours(i) {
            if label[j] == NONE && similar(i, j) {
                label[j] = label[i];
                grow.push_back(j);
            }
        }
    }
    // Every other pixel (ink, edges) goes to the nearest region, on the shade of the region
    // pixel it came from.
    let mut ground = px.clone();
    let mut near: VecDeque<usize> = (0..w * h).filter(|&i| label[i] != NONE).collect();
    while let Some(i) = near.pop_front() {
        for j in neighbours(i) {
            if label[j] == NONE {
                label[j] = label[i];
                ground[j] = ground[i];
                near.push_back(j);
            }
        }
    }
    // Each region's ink, lighter and darker than its ground, and the borders between regions.
    let n = sizes.len();
    let mut lighter = vec![0usize; n];
    let mut darker = vec![0usize; n];
    let mut border: HashMap<(u32, u32), usize> = HashMap::new();
    for i in 0..w * h {
        let d = px[i] as i16 - ground[i] as i16;
        if d > INK_DIFF {
            lighter[label[i] as usize] += 1;
        } else if d < -INK_DIFF {
            darker[label[i] as usize] += 1;
        }
        for j in [i + 1, i + w] {
            let right_or_below = (j == i + 1 && (i + 1) % w != 0) || (j == i + w && j < w * h);
            if right_or_below && label[j] != label[i] {
                let key = (label[i].min(label[j]), label[i].max(label[j]));
                *border.entry(key).or_default() += 1;
            }
        }
    }
    let own = |r: usize| (shade_sum[r] as f64 / sizes[r].max(1) as f64) < DARK_MEAN;
    let decided = |r: usize| lighter[r] != darker[r] || sizes[r] >= GROUND_AREA;
    let first = |r: usize| {
        if lighter[r] != darker[r] {
            lighter[r] > darker[r]
        } else {
            own(r)
        }
    };
    let invert: Vec<bool> = (0..n)
        .map(|r| {
            if decided(r) {
                return first(r);
            }
            border
                .iter()
                .filter_map(|(&(a, b), &len)| {
                    let other = if a as usize == r {
                        b as usize
                    } else if b as usize == r {
                        a as usize
                    } else {
                        return None;
                    };
                    decided(other).then_some((len, other))
                })
                .max()
                .map_or_else(|| own(r), |(_, other)| first(other))
        })
        .collect();
    // Only a window judged dark as a whole that holds a large ground of the other polarity is
    // mixed; anything else keeps the verdict for the whole (a light window's highlights and
    // coloured keys read as they always did).
    let large = |keep: bool| (0..n).any(|r| sizes[r] >= GROUND_AREA && invert[r] != keep);
    let whole = is_dark(gray);
    if !whole || !large(true) || !large(false) {
        if whole {
            imageops::invert(gray);
        }
        return;
    }
    for (p, &l) in gray.iter_mut().zip(&label) {
        if invert[l as usize] {
            *p = 255 - *p;
        }
    }
}

/// Pixels whose whole square neighbourhood of radius `r` lies within [`FLAT_TOL`] of them
/// (the square's min and max by separable filters).
fn flat_pixels(px: &[u8], w: usize, h: usize, r: usize) -> Vec<bool> {
    let pass = |src: &[u8], step: usize, len: usize, n: usize, take_max: bool| -> Vec<u8> {
        // `len` pixels a line, `n` lines, `step` between neighbours along a line.
        let mut out = vec![0u8; src.len()];
        let line_step = if step == 1 { w } else { 1 };
        for line in 0..n {
            let base = line * line_step;
            for k in 0..len {
                let (lo, hi) = (k.saturating_sub(r), (k + r).min(len - 1));
                let vals = (lo..=hi).map(|m| src[base + m * step]);
                out[base + k * step] = if take_max {
                    vals.max().unwrap_or(0)
                } else {
                    vals.min().unwrap_or(0)
                };
            }
        }
        out
    };
    let square = |take_max: bool| {
        let rows = pass(px, 1, w, h, take_max);
        pass(&rows, w, h, w, take_max)
    };
    let (max, min) = (square(true), square(false));
    (0..w * h)
        .map(|i| {
            max[i] as i16 - px[i] as i16 <= FLAT_TOL && px[i] as i16 - min[i] as i16 <= FLAT_TOL
        })
        .collect()
}

/// An inverted cell's height in pixels: a text row of a terminal or a dialog, not a panel.
const CELL_H: std::ops::RangeInclusive<usize> = 9..=48;

/// Give back their polarity to inverted cells: a block one glyph wide and one text row tall,
/// filled with one colour, whose glyph is drawn in the colour of the ground around it — a
/// terminal's cursor, a dialog's hotkey letter on its focused button (`< OK >` with the O on a
/// yellow cell and the K yellow on blue). Read as it is, the block is a blot with a hole ("I",
/// "D"), and the word is lost. The block is known by its edges, not by its glyph: a run of its
/// colour across the top and another of the same extent across the bottom, the ground's colour
/// just beside both ends, one glyph wide (0.3–1.1 of its height), at least half its colour,
/// everything else inside it the ground's colour, and taller than the text beside it (whose
/// glyphs stand clear of its top and bottom rows: a bold D in a word is none). The block's colour and the ground's are
/// swapped inside it, so its glyph reads like its neighbours. A framed button (its inside the
/// ground's colour), a solid swatch (nothing inside) or an icon with several colours inside
/// is none of this and is left alone.
pub fn restore_inverted_cells(img: &mut RgbaImage) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w < 3 || h < *CELL_H.start() {
        return;
    }
    let px = |img: &RgbaImage, x: usize, y: usize| img.get_pixel(x as u32, y as u32).0;
    let same =
        |a: [u8; 4], b: [u8; 4]| (0..3).all(|k| (a[k] as i16 - b[k] as i16).abs() <= FLAT_TOL);
    let row_is = |img: &RgbaImage, y: usize, x0: usize, x1: usize, c: [u8; 4]| {
        (x0..=x1).all(|x| same(px(img, x, y), c))
    };
    // (left, top, right, bottom, the cell's colour, the ground's)
    type Cell = (usize, usize, usize, usize, [u8; 4], [u8; 4]);
    let mut cells: Vec<Cell> = Vec::new();
    for y in 1..h.saturating_sub(CELL_H.start() - 1) {
        let mut x = 1;
        while x + 1 < w {
            let c = px(img, x, y);
            let mut x1 = x;
            while x1 + 1 < w && same(px(img, x1 + 1, y), c) {
                x1 += 1;
            }
            let (x0, next) = (x, x1 + 1);
            x = next;
            let cw = x1 - x0 + 1;
            if cw < 3 || cw * 10 > CELL_H.end() * 11 {
                continue;
            }
            // The run's ends must be inside the image, with one ground colour beside both.
            if x0 == 0 || x1 + 1 >= w || same(px(img, x0 - 1, y), c) {
                continue;
            }
            let ground = px(img, x0 - 1, y);
            let none_of =
                |img: &RgbaImage, yy: usize| (x0..=x1).all(|xx| !same(px(img, xx, yy), c));
            if !same(px(img, x1 + 1, y), ground) || !none_of(img, y - 1) {
                continue;
            }
            // Down through the glyph rows to the bottom band of the same extent.
            let mut yb = y;
            while yb + 1 < h && row_is(img, yb + 1, x0, x1, c) {
                yb += 1;
            }
            let mut bottom = None;
            let mut y2 = yb + 1;
            while y2 < h && y2 - y < *CELL_H.end() {
                if row_is(img, y2, x0, x1, c) {
                    let mut end = y2;
                    while end + 1 < h && row_is(img, end + 1, x0, x1, c) {
                        end += 1;
                    }
                    bottom = Some((y2, end));
                    break;
                }
                y2 += 1;
            }
            let Some((band, y3)) = bottom else { continue };
            let ch = y3 - y + 1;
            if band == yb + 1 || !CELL_H.contains(&ch) || cw * 10 < ch * 3 || cw * 10 > ch * 11 {
                continue;
            }
            let ends_ground = |yy: usize| {
                !same(px(img, x0 - 1, yy), c)
                    && same(px(img, x0 - 1, yy), ground)
                    && same(px(img, x1 + 1, yy), ground)
            };
            if !ends_ground(y3) || (y3 + 1 < h && !none_of(img, y3 + 1)) {
                continue;
            }
            // A glyph never cuts its cell in two: no row of the ground's colour right across
            // (two blocks one above the other, a scroll bar's, are no cell).
            if (y..=y3).any(|yy| row_is(img, yy, x0, x1, ground)) {
                continue;
            }
            let (mut filled, mut hole, mut other) = (0usize, 0usize, 0usize);
            for yy in y..=y3 {
                for xx in x0..=x1 {
                    match blend(px(img, xx, yy), c, ground) {
                        Some(t) if t < 0.25 => filled += 1,
                        Some(t) if t > 0.75 => hole += 1,
                        Some(_) => {}
                        None => other += 1,
                    }
                }
            }
            // Taller than the text beside it: the cell is a whole text row, its neighbours'
            // glyphs (at least half its height: a rule line is no glyph) stand inside it, clear
            // of its top and bottom rows. A bold D or O in a word shares its neighbours'
            // baseline and is no cell.
            let (lo, hi) = (x0.saturating_sub(2 * cw), (x1 + 2 * cw).min(w - 1));
            let mut beside: Option<(usize, usize)> = None;
            for yy in y..=y3 {
                for xx in (lo..x0).chain(x1 + 1..=hi) {
                    if !same(px(img, xx, yy), ground) {
                        beside = Some(beside.map_or((yy, yy), |(a, _)| (a, yy)));
                    }
                }
            }
            let glyph_tall = |(top, bottom): (usize, usize)| 2 * (bottom - top + 1) >= ch;
            if !beside
                .is_some_and(|(top, bottom)| top > y && bottom < y3 && glyph_tall((top, bottom)))
            {
                continue;
            }
            let area = cw * ch;
            let overlaps = cells
                .iter()
                .any(|&(a0, b0, a1, b1, ..)| x0 <= a1 && a0 <= x1 && y <= b1 && b0 <= y3);
            if filled * 2 >= area && hole * 10 >= area && other * 20 <= area && !overlaps {
                cells.push((x0, y, x1, y3, c, ground));
            }
        }
    }
    // Inside a cell every pixel on the way from its colour to the ground's (the glyph's
    // smoothed edges too) goes the same way back: c + ground - p.
    for (x0, y0, x1, y1, c, ground) in cells {
        for yy in y0..=y1 {
            for xx in x0..=x1 {
                let p = img.get_pixel_mut(xx as u32, yy as u32);
                if blend(p.0, c, ground).is_some() {
                    for k in 0..3 {
                        p.0[k] =
                            (c[k] as i16 + ground[k] as i16 - p.0[k] as i16).clamp(0, 255) as u8;
                    }
                }
            }
        }
    }
}

/// Where `p` lies on the way from colour `c` (0) to colour `g` (1), if it lies on it: each
/// channel that differs between them gives the same fraction (within 0.15), each that does not
/// is within [`FLAT_TOL`] of both.
fn blend(p: [u8; 4], c: [u8; 4], g: [u8; 4]) -> Option<f32> {
    let mut ts = Vec::with_capacity(3);
    for k in 0..3 {
        let (pk, ck, gk) = (p[k] as f32, c[k] as f32, g[k] as f32);
        if (gk - ck).abs() > 40.0 {
            ts.push((pk - ck) / (gk - ck));
        } else if (pk - ck).abs() > FLAT_TOL as f32 + (gk - ck).abs() {
            return None;
        }
    }
    let (lo, hi) = ts
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &t| (lo.min(t), hi.max(t)));
    (!ts.is_empty() && hi - lo <= 0.15 && lo >= -0.1 && hi <= 1.1)
        .then(|| ((lo + hi) / 2.0).clamp(0.0, 1.0))
}

/// Crop `region` (clamped to the image), grey it, turn light-on-dark parts dark-on-light
/// ([`normalize_polarity`]) and upscale by `scale`.
/// Returns the prepared image and the clamped region, so boxes can be mapped back.
pub fn prepare(img: &RgbaImage, region: Rect, scale: u32) -> Option<(GrayImage, Rect)> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let r = region.clamp_to(&bounds)?;
    let mut crop =
        imageops::crop_imm(img, r.x as u32, r.y as u32, r.w as u32, r.h as u32).to_image();
    restore_inverted_cells(&mut crop);
    let mut gray = image::DynamicImage::ImageRgba8(crop.clone()).to_luma8();
    normalize_polarity(&mut gray, Some(&crop));
    let scale = scale.max(1);
    if scale > 1 {
        gray = imageops::resize(
            &gray,
            gray.width() * scale,
            gray.height() * scale,
            imageops::FilterType::CatmullRom,
        );
    }
    Some((gray, r))
}

/// A caption of one or two glyphs made ready for a single-character or single-word read:
/// the ink box `ink` cut out, set on its own background `bg` with a margin of `pad` pixels
/// (so no frame line or neighbour is in view), dark themes inverted, then upscaled by `scale`
/// smoothly and blurred. Bitmap glyphs upscaled blocky read badly (7 → "?", ( → "¢" at 4×
/// nearest); smoothed, the same glyphs read right.
pub fn prepare_glyphs(
    img: &RgbaImage,
    ink: Rect,
    bg: u8,
    pad: u32,
    scale: u32,
) -> Option<GrayImage> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let r = ink.clamp_to(&bounds)?;
    let crop = imageops::crop_imm(img, r.x as u32, r.y as u32, r.w as u32, r.h as u32).to_image();
    let glyphs = image::DynamicImage::ImageRgba8(crop).to_luma8();
    let mut canvas = GrayImage::from_pixel(
        r.w as u32 + 2 * pad,
        r.h as u32 + 2 * pad,
        image::Luma([bg]),
    );
    imageops::replace(&mut canvas, &glyphs, pad as i64, pad as i64);
    if (bg as f64) < DARK_MEAN {
        imageops::invert(&mut canvas);
    }
    let scale = scale.max(1);
    let big = imageops::resize(
        &canvas,
        canvas.width() * scale,
        canvas.height() * scale,
        imageops::FilterType::Triangle,
    );
    Some(imageops::blur(&big, 0.4 * scale as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A light panel with dark text on a dark screen with light text (a terminal's dialog on
    /// its blue screen: the window's mean is dark). Each part comes out dark text on light:
    /// one verdict for the whole inverted the panel too (its text turned light on dark).
    #[test]
    fn polarity_is_judged_region_by_region() {
        let (screen, panel_c, ink_dark, ink_light) = (27u8, 229u8, 0u8, 255u8);
        let mut img = GrayImage::from_pixel(240, 120, image::Luma([screen]));
        let panel = Rect::new(60, 30, 120, 50);
        let fill = |img: &mut GrayImage, r: Rect, v: u8| {
            for y in r.y..r.bottom() {
                for x in r.x..r.right() {
                    img.put_pixel(x as u32, y as u32, image::Luma([v]));
                }
            }
        };
        fill(&mut img, panel, panel_c);
        // "Text": short strokes, dark on the panel, light on the screen.
        for k in 0..6 {
            fill(&mut img, Rect::new(70 + 12 * k, 45, 2, 10), ink_dark);
            fill(&mut img, Rect::new(10 + 8 * k, 95, 2, 10), ink_light);
        }
        let mut g = img.clone();
        normalize_polarity(&mut g, None);
        let at = |x: u32, y: u32| g.get_pixel(x, y).0[0];
        assert!(at(65, 35) > 200, "the light panel stays light");
        assert!(at(70, 50) < 50, "its dark text stays dark");
        assert!(at(5, 5) > 200, "the dark screen turns light");
        assert!(at(10, 100) < 50, "its light text turns dark");
        // A uniform crop: one region, as before.
        let mut dark = GrayImage::from_pixel(40, 20, image::Luma([30]));
        normalize_polarity(&mut dark, None);
        assert!(dark.get_pixel(3, 3).0[0] > 200);
    }

    /// A highlight one text row tall (a selected item: light text on its bar) on a terminal's
    /// light panel is inverted on its own, whatever little of it is clear of text; the panel
    /// around it is not. A cell of another colour whose grey is close to the panel's (yellow
    /// by light grey) is not taken for the panel.
    #[test]
    fn a_highlight_one_row_tall_is_its_own_region() {
        let grey = image::Rgba([229, 229, 229, 255]);
        let blue = image::Rgba([0, 0, 238, 255]);
        let yellow = image::Rgba([255, 255, 0, 255]);
        let mut img = RgbaImage::from_pixel(300, 160, blue);
        for y in 50..110 {
            for x in 50..250 {
                img.put_pixel(x, y, grey);
            }
        }
        for y in 70..83 {
            for x in 90..180 {
                img.put_pixel(x, y, blue);
            }
        }
        // Glyph-like strokes, a cell apart: yellow on the bar, dark on the panel.
        for k in 0..5u32 {
            for y in 72..81 {
                img.put_pixel(94 + 18 * k, y, yellow);
                img.put_pixel(95 + 18 * k, y, yellow);
                img.put_pixel(94 + 18 * k, y + 25, image::Rgba([0, 0, 0, 255]));
            }
        }
        let mut g = image::DynamicImage::ImageRgba8(img.clone()).to_luma8();
        normalize_polarity(&mut g, Some(&img));
        let at = |x: u32, y: u32| g.get_pixel(x, y).0[0];
        assert!(at(110, 71) > 200, "the bar turns light");
        assert!(at(94, 76) < 60, "its yellow text turns dark");
        assert!(at(60, 60) > 200, "the panel stays light");
        assert!(at(94, 100) < 50, "the panel's text stays dark");
        assert!(at(5, 5) > 200, "the screen turns light");
    }

    /// A light window with a highlight keeps the verdict for the whole: only a window judged
    /// dark that holds a large light ground is read region by region.
    #[test]
    fn a_light_window_is_left_as_it_is() {
        let mut img = GrayImage::from_pixel(200, 100, image::Luma([240]));
        for y in 40..53 {
            for x in 20..120 {
                img.put_pixel(x, y, image::Luma([60]));
            }
        }
        let before = img.clone();
        normalize_polarity(&mut img, None);
        assert_eq!(img, before);
    }

    /// `< OK >` as dialog draws its focused button: yellow text on a blue bar, the hotkey O
    /// blue on a yellow cell, the K's stem touching the cell. The cell is turned back (yellow O
    /// on blue); a framed box (its inside the ground's colour) and a solid swatch are not.
    #[test]
    fn an_inverted_cell_is_turned_back() {
        let blue = image::Rgba([0, 0, 238, 255]);
        let yellow = image::Rgba([255, 255, 0, 255]);
        let mut img = RgbaImage::from_pixel(80, 24, blue);
        let fill = |img: &mut RgbaImage, x0: u32, y0: u32, w: u32, h: u32, c| {
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    img.put_pixel(x, y, c);
                }
            }
        };
        // The cell, 6×13 at (10, 5), and its O in blue: a ring inside it.
        fill(&mut img, 10, 5, 6, 13, yellow);
        fill(&mut img, 11, 7, 3, 1, blue);
        fill(&mut img, 11, 15, 3, 1, blue);
        fill(&mut img, 10, 8, 1, 7, blue);
        fill(&mut img, 14, 8, 1, 7, blue);
        // The K's stem, yellow, touching the cell's right side on the glyph rows.
        fill(&mut img, 16, 7, 2, 9, yellow);
        // A framed box: a yellow outline with blue inside; a solid yellow swatch.
        fill(&mut img, 30, 4, 10, 14, yellow);
        fill(&mut img, 31, 5, 8, 12, blue);
        fill(&mut img, 50, 5, 6, 13, yellow);
        let before = img.clone();
        restore_inverted_cells(&mut img);
        let at = |x: u32, y: u32| img.get_pixel(x, y).0;
        assert_eq!(at(12, 5), blue.0, "the cell's ground is the bar's again");
        assert_eq!(at(12, 11), blue.0, "inside the O too");
        assert_eq!(
            at(10, 10),
            yellow.0,
            "the O's side is yellow like its neighbour"
        );
        assert_eq!(at(12, 7), yellow.0, "and its top");
        assert_eq!(at(16, 10), yellow.0, "the K beside it is untouched");
        for (x, y) in [(30, 4), (35, 10), (50, 5), (53, 10)] {
            assert_eq!(
                at(x, y),
                before.get_pixel(x, y).0,
                "({x}, {y}) is left alone"
            );
        }
    }

    #[test]
    fn dark_crops_are_inverted_and_upscaled() {
        let img = RgbaImage::from_pixel(20, 10, image::Rgba([30, 30, 30, 255]));
        let (g, r) = prepare(&img, Rect::new(5, 0, 100, 10), 3).unwrap();
        assert_eq!(r, Rect::new(5, 0, 15, 10));
        assert_eq!((g.width(), g.height()), (45, 30));
        assert!(g.get_pixel(1, 1).0[0] > 200, "dark background became light");
        assert!(prepare(&img, Rect::new(50, 50, 5, 5), 2).is_none());
    }
}
