//! Does this ink show this text? Short captions (one to three glyphs: a keypad's `+`, a column
//! header's `I`, a cell's `60`) are where OCR fails both ways: it reads nothing, or it names a
//! look-alike (`I` read as `1`, and `mend locate --text 1` answered a spreadsheet's column
//! header I). A reading alone cannot be trusted there, so the ink is compared with the text as
//! the machine's own fonts draw it (fontconfig's fonts: sans, serif and monospace families,
//! regular and bold), scaled to the ink's height, by zero-mean correlation — as the crop rung
//! compares a recorded crop.
//!
//! Two rules, both measured on the image suites before they were trusted:
//! - the text must be drawn about as wide as the ink for its height in some font (a bar 2 px
//!   wide is no `1` of 11 px, whose flag and foot make it 5–6 px in every family);
//! - for one glyph, no other printable glyph of another shape may fit the ink clearly better
//!   ([`Verdict::Other`]): `I`, `l` and `|` are one shape in most sans fonts and never refute
//!   each other, `1` is not.
//!
//! Rendering one glyph in every font costs ~0.1 ms (cached after the first time); one verdict on
//! a glyph, against every other printable glyph, a few milliseconds.

use ab_glyph::{Font, FontArc, PxScale, ScaleFont};
use image::imageops::{self, FilterType};
use image::{GrayImage, Luma, RgbaImage};
use mend_model::Rect;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::ink::{background, luma};

/// The families looked up with fontconfig; those missing on the machine are skipped. Sans,
/// serif and monospace shapes, as UI text is drawn in one of them (bitmap UI fonts are close
/// to one of these at their size).
const FAMILIES: &[&str] = &[
    "DejaVu Sans",
    "DejaVu Sans Mono",
    "DejaVu Serif",
    "Nimbus Sans",
    "Nimbus Mono PS",
    "Nimbus Roman",
    "Liberation Sans",
    "Liberation Mono",
    "Noto Sans",
];

/// Rendered once at this size and scaled down to the ink: the downscale draws the same
/// anti-aliased edges a screen font has.
const RENDER_PX: f32 = 64.0;

/// How far the ink may be from the text's width for its height (fonts differ in width: a
/// bitmap "1" is narrower than DejaVu's).
const WIDTH_SLACK: f32 = 0.45;

/// How far the ink's height may be from the glyph's height beside the window's capitals.
const HEIGHT_SLACK: f32 = 0.35;

/// Below this fit the ink is not the text in any font on the machine.
pub const SHAPE_FLOOR: f32 = 0.45;

/// Another glyph that fits the ink at least this much better than the text, with at most half
/// its shortfall from a perfect fit, is what the ink shows (÷ over a plus fits at 0.94, the
/// plus at 0.99; as the crop rung's look-alike rule).
pub const OTHER_MARGIN: f32 = 0.03;

fn clearly_better(other: f32, own: f32) -> bool {
    other >= own + OTHER_MARGIN && 2.0 * (1.0 - other) <= 1.0 - own
}

/// Signs beyond ASCII that UI captions draw (a keypad's ÷ × ± √, arrows), tried as what the
/// ink may show besides every printable ASCII glyph.
const UI_SIGNS: &str = "÷×±√←→↑↓°·•…";

/// Glyphs that share one shape in most fonts: none refutes another of its class.
const SAME_SHAPE: &[&str] = &[
    "lI|!", "oO0", "cC", "sS", "uU", "vV", "wW", "xX", "zZ", "-_",
];

struct Shapes {
    fonts: Vec<FontArc>,
    cache: Mutex<HashMap<(usize, String), Option<GrayImage>>>,
}

fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let mut db = fontdb::Database::new();
        db.load_system_fonts();
        let mut fonts = Vec::new();
        for family in FAMILIES {
            for weight in [fontdb::Weight::NORMAL, fontdb::Weight::BOLD] {
                let q = fontdb::Query {
                    families: &[fontdb::Family::Name(family)],
                    weight,
                    ..fontdb::Query::default()
                };
                let Some(id) = db.query(&q) else { continue };
                // A family missing falls back to nothing (query names it exactly); a bold
                // missing answers the regular face again: kept once.
                let face = db.face(id);
                if face.is_none_or(|f| !f.families.iter().any(|(n, _)| n == family)) {
                    continue;
                }
                let font = db.with_face_data(id, |data, index| {
                    ab_glyph::FontVec::try_from_vec_and_index(data.to_vec(), index)
                        .ok()
                        .map(FontArc::new)
                });
                if let Some(Some(f)) = font {
                    if !fonts.iter().any(|o: &(fontdb::ID, FontArc)| o.0 == id) {
                        fonts.push((id, f));
                    }
                }
            }
        }
        Shapes {
            fonts: fonts.into_iter().map(|(_, f)| f).collect(),
            cache: Mutex::new(HashMap::new()),
        }
    })
}

/// How many fonts the shape check draws with (0 when the machine has none of [`FAMILIES`]).
pub fn shape_fonts() -> usize {
    shapes().fonts.len()
}

/// `text` drawn in `font` at [`RENDER_PX`], as coverage 0..=255 cropped to its ink.
fn render(font: &FontArc, text: &str) -> Option<GrayImage> {
    let scaled = font.as_scaled(PxScale::from(RENDER_PX));
    let width: f32 = text
        .chars()
        .map(|c| scaled.h_advance(font.glyph_id(c)))
        .sum();
    let (w, h) = ((width + RENDER_PX) as u32, (RENDER_PX * 2.0) as u32);
    let mut img = GrayImage::new(w, h);
    let mut x = RENDER_PX / 2.0;
    let baseline = RENDER_PX * 1.4;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if id.0 == 0 && !c.is_whitespace() {
            return None; // the font lacks it: no shape to compare
        }
        let g = id.with_scale_and_position(RENDER_PX, ab_glyph::point(x, baseline));
        x += scaled.h_advance(id);
        if let Some(o) = font.outline_glyph(g) {
            let b = o.px_bounds();
            o.draw(|gx, gy, cov| {
                let (px, py) = (b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32);
                if px >= 0 && py >= 0 && (px as u32) < w && (py as u32) < h {
                    let v = (cov.clamp(0.0, 1.0) * 255.0) as u8;
                    let p = img.get_pixel_mut(px as u32, py as u32);
                    p.0[0] = p.0[0].max(v);
                }
            });
        }
    }
    crop_to_ink(&img, 64)
}

/// The image cropped to the pixels at or above `min`.
fn crop_to_ink(img: &GrayImage, min: u8) -> Option<GrayImage> {
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if p.0[0] >= min {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    (x0 <= x1).then(|| imageops::crop_imm(img, x0, y0, x1 - x0 + 1, y1 - y0 + 1).to_image())
}

fn rendered(font: usize, text: &str) -> Option<GrayImage> {
    let s = shapes();
    let key = (font, text.to_string());
    if let Some(r) = s.cache.lock().ok()?.get(&key) {
        return r.clone();
    }
    let r = render(&s.fonts[font], text);
    if let Ok(mut c) = s.cache.lock() {
        c.insert(key, r.clone());
    }
    r
}

/// The ink of a short text at `r` in a window's pixels: how far each pixel is from the
/// background, 0..=255 (255 the strongest ink), cropped to the ink. `None` when `r` holds none.
pub fn ink_of(img: &RgbaImage, r: Rect) -> Option<GrayImage> {
    let r = r.intersect(&Rect::new(0, 0, img.width() as i32, img.height() as i32))?;
    if r.w < 1 || r.h < 1 {
        return None;
    }
    let bg = background(img, r);
    let mut far = 0;
    for y in r.y..r.bottom() {
        for x in r.x..r.right() {
            far = far.max((luma(img, x, y) - bg).abs());
        }
    }
    if far < 60 {
        return None;
    }
    let mut out = GrayImage::new(r.w as u32, r.h as u32);
    for y in r.y..r.bottom() {
        for x in r.x..r.right() {
            let d = (luma(img, x, y) - bg).abs();
            // Faint pixels are the background's noise or a neighbour's halo.
            let v = if d * 4 < far { 0 } else { d * 255 / far };
            out.put_pixel((x - r.x) as u32, (y - r.y) as u32, Luma([v as u8]));
        }
    }
    crop_to_ink(&out, 64)
}

/// The ink without a mnemonic's underline: one or two rows at the bottom that are each one
/// unbroken bar (four pixels or more) narrower than the ink — it runs under one letter: LCL's
/// `&OK` draws O underlined, right under its bottom — are cut off. A glyph whose own foot is
/// such a bar (L, E) loses it and fits worse: this only ever refuses. Ink with no such rows
/// comes back as it is.
pub fn without_underline(ink: &GrayImage) -> GrayImage {
    let (w, h) = ink.dimensions();
    let bar = |y: u32| -> bool {
        let on: Vec<u32> = (0..w).filter(|&x| ink.get_pixel(x, y).0[0] >= 64).collect();
        match (on.first(), on.last()) {
            (Some(&a), Some(&b)) => {
                let len = b - a + 1;
                len as usize == on.len() && len >= 4 && len * 10 < w * 9
            }
            _ => false,
        }
    };
    let mut y = h;
    while y > 0 && h - y < 3 && bar(y - 1) {
        y -= 1;
    }
    let band = h - y;
    if !(1..=2).contains(&band) || y < 4 {
        return ink.clone();
    }
    let top = imageops::crop_imm(ink, 0, 0, w, y).to_image();
    crop_to_ink(&top, 64).unwrap_or(top)
}

/// The best correlation of `a` over `b`, each centred on one canvas (they may differ in width
/// by a pixel or two: neither is stretched, a narrow bar stays narrow) and `a` shifted by up
/// to a pixel each way, both softened a little: a glyph drawn half a pixel off is the same.
/// Each is softened once; the shifts index into the softened canvas (outside it is blank).
fn aligned(a: &GrayImage, b: &GrayImage) -> f32 {
    const PAD: u32 = 3;
    let (w, h) = (
        a.width().max(b.width()) + 2 * PAD,
        a.height().max(b.height()) + 2 * PAD,
    );
    let place = |img: &GrayImage| {
        let mut c = GrayImage::new(w, h);
        let x = (w - img.width()) as i64 / 2;
        let y = (h - img.height()) as i64 / 2;
        imageops::overlay(&mut c, img, x, y);
        imageproc::filter::gaussian_blur_f32(&c, 0.8)
    };
    let (pa, pb) = (place(a), place(b));
    let mut best = f32::MIN;
    for dy in -1i32..=1 {
        for dx in -1i32..=1 {
            best = best.max(shifted_correlation(&pa, &pb, dx, dy));
        }
    }
    best
}

/// Zero-mean normalised correlation of `a` moved by (dx, dy) over `b` (one size; what moves
/// out of the canvas is gone, what moves in is blank).
fn shifted_correlation(a: &GrayImage, b: &GrayImage, dx: i32, dy: i32) -> f32 {
    let (w, h) = (b.width() as i32, b.height() as i32);
    let at = |x: i32, y: i32| -> f32 {
        let (sx, sy) = (x - dx, y - dy);
        if sx < 0 || sy < 0 || sx >= w || sy >= h {
            0.0
        } else {
            a.get_pixel(sx as u32, sy as u32).0[0] as f32
        }
    };
    let n = (w * h) as f32;
    let (mut sa, mut sb) = (0.0, 0.0);
    for y in 0..h {
        for x in 0..w {
            sa += at(x, y);
            sb += b.get_pixel(x as u32, y as u32).0[0] as f32;
        }
    }
    let (ma, mb) = (sa / n, sb / n);
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for y in 0..h {
        for x in 0..w {
            let (p, q) = (
                at(x, y) - ma,
                b.get_pixel(x as u32, y as u32).0[0] as f32 - mb,
            );
            ab += p * q;
            aa += p * p;
            bb += q * q;
        }
    }
    if aa <= 0.0 || bb <= 0.0 {
        return if aa <= 0.0 && bb <= 0.0 { 1.0 } else { 0.0 };
    }
    ab / (aa * bb).sqrt()
}

/// How well `text` drawn in the machine's fonts fits `ink` (from [`ink_of`]): the best
/// correlation over the fonts where the text, scaled to the ink's height, is about as wide as
/// the ink — and, when the window's text height is known (`text_h`: a capital's height), about
/// as tall as that font draws it beside such capitals (a 2 px bar is a minus, never a plus at
/// 11 px text). 0 when no font draws it so.
pub fn shape_fit(text: &str, ink: &GrayImage, text_h: Option<f32>) -> f32 {
    let (iw, ih) = (ink.width() as f32, ink.height() as f32);
    let near =
        |want: f32, got: f32, slack: f32| (want - got).abs() <= 1.0_f32.max(slack * want.max(got));
    let ink_pieces = pieces(ink);
    let mut best: f32 = 0.0;
    for f in 0..shapes().fonts.len() {
        let Some(r) = rendered(f, text) else { continue };
        if let (Some(th), Some(cap)) = (text_h, rendered(f, "H")) {
            let want_h = r.height() as f32 * th / cap.height() as f32;
            if !near(want_h, ih, HEIGHT_SLACK) {
                continue;
            }
        }
        let want_w = r.width() as f32 * ih / r.height() as f32;
        if !near(want_w, iw, WIDTH_SLACK) {
            continue;
        }
        // Scaled by height alone: the text keeps its own width (a 1 stays wider than a bar).
        let w = (want_w.round() as u32).max(1);
        let small = imageops::resize(&r, w, ink.height(), FilterType::Triangle);
        // What correlation blurs, the count of strokes apart keeps: an i is a bar and a dot,
        // an I one bar; a ÷ three pieces, a + one. Drawn with another count, a fit counts less.
        let apart = if pieces(&small) == ink_pieces {
            1.0
        } else {
            PIECES_OFF
        };
        best = best.max(aligned(&small, ink) * apart);
    }
    best
}

/// A fit drawn with another count of ink pieces is worth this much of itself.
const PIECES_OFF: f32 = 0.9;

/// How many pieces of ink (8-connected, at half strength) an image holds.
fn pieces(img: &GrayImage) -> usize {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let on = |x: i32, y: i32| {
        x >= 0 && y >= 0 && x < w && y < h && img.get_pixel(x as u32, y as u32).0[0] >= 128
    };
    let mut seen = vec![false; (w * h) as usize];
    let mut n = 0;
    for start in 0..w * h {
        let (sx, sy) = (start % w, start / w);
        if seen[start as usize] || !on(sx, sy) {
            continue;
        }
        n += 1;
        seen[start as usize] = true;
        let mut stack = vec![(sx, sy)];
        while let Some((x, y)) = stack.pop() {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny) = (x + dx, y + dy);
                    if on(nx, ny) && !seen[(ny * w + nx) as usize] {
                        seen[(ny * w + nx) as usize] = true;
                        stack.push((nx, ny));
                    }
                }
            }
        }
    }
    n
}

/// The ink cut at its empty columns: one piece per glyph for fonts that space their glyphs.
fn glyph_columns(ink: &GrayImage) -> Vec<GrayImage> {
    column_runs(ink)
        .into_iter()
        .filter_map(|(start, end)| {
            let col = imageops::crop_imm(ink, start, 0, end - start, ink.height());
            crop_to_ink(&col.to_image(), 64)
        })
        .collect()
}

/// The runs of inked columns of `ink`, left to right: (first column, one past the last).
fn column_runs(ink: &GrayImage) -> Vec<(u32, u32)> {
    let inked: Vec<bool> = (0..ink.width())
        .map(|x| (0..ink.height()).any(|y| ink.get_pixel(x, y).0[0] >= 64))
        .collect();
    let mut runs = Vec::new();
    let mut x = 0;
    while x < inked.len() {
        if !inked[x] {
            x += 1;
            continue;
        }
        let start = x;
        while x < inked.len() && inked[x] {
            x += 1;
        }
        runs.push((start as u32, x as u32));
    }
    runs
}

/// The last `n` glyphs of `ink` (pieces parted by empty columns), cropped to their ink: a
/// caption's own glyphs when a picture stands before it (an icon left of OK). The ink as it is
/// when it has `n` pieces or fewer.
pub fn last_glyphs(ink: &GrayImage, n: usize) -> GrayImage {
    let runs = column_runs(ink);
    if n == 0 || runs.len() <= n {
        return ink.clone();
    }
    let (from, to) = (runs[runs.len() - n].0, runs[runs.len() - 1].1);
    let part = imageops::crop_imm(ink, from, 0, to - from, ink.height()).to_image();
    crop_to_ink(&part, 64).unwrap_or(part)
}

/// What the shape check says of a short text and its ink.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The ink fits the text (or the pixels cannot tell it from what fits better).
    Fits(f32),
    /// The ink fits no font's drawing of the text.
    Unlike(f32),
    /// The ink is another glyph: (that glyph, its fit, the text's fit).
    Other(String, f32, f32),
    /// No font on the machine: nothing can be said (the reading stands).
    NoFonts,
}

fn same_shape(a: char, b: char) -> bool {
    a == b
        || SAME_SHAPE
            .iter()
            .any(|class| class.contains(a) && class.contains(b))
}

/// Whether `ink` shows `text` (1–3 glyphs), in a window whose capitals are `text_h` tall
/// (when known). One glyph is tried against every other printable ASCII glyph and UI sign too, and one of
/// another shape that fits clearly better refutes the reading. Several glyphs set apart by
/// empty columns are each judged so; run together, the text is judged whole.
pub fn confirm_short(text: &str, ink: &GrayImage, text_h: Option<f32>) -> Verdict {
    if shapes().fonts.is_empty() {
        return Verdict::NoFonts;
    }
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if let [c] = chars.as_slice() {
        return confirm_glyph(*c, ink, text_h);
    }
    let pieces = glyph_columns(ink);
    if pieces.len() == chars.len() {
        let mut least = f32::MAX;
        for (c, piece) in chars.iter().zip(&pieces) {
            match confirm_glyph(*c, piece, text_h) {
                Verdict::Fits(s) => least = least.min(s),
                other => return other,
            }
        }
        return Verdict::Fits(least);
    }
    let own = shape_fit(text, ink, text_h);
    if own < SHAPE_FLOOR {
        Verdict::Unlike(own)
    } else {
        Verdict::Fits(own)
    }
}

/// Whether the glyph at `index` of a reading of `count` glyphs is `t`: a one-glyph target
/// read with more beside it ("i]": an icon's edge, a bracket, a border). The ink is cut at its
/// empty columns; when that does not give `count` glyphs the place of `t` cannot be told and
/// the reading is not taken ([`Verdict::Unlike`]).
pub fn confirm_glyph_at(
    t: char,
    ink: &GrayImage,
    index: usize,
    count: usize,
    text_h: Option<f32>,
) -> Verdict {
    if shapes().fonts.is_empty() {
        return Verdict::NoFonts;
    }
    let pieces = glyph_columns(ink);
    match pieces.get(index).filter(|_| pieces.len() == count) {
        Some(piece) => confirm_glyph(t, piece, text_h),
        None => Verdict::Unlike(0.0),
    }
}

fn confirm_glyph(t: char, ink: &GrayImage, text_h: Option<f32>) -> Verdict {
    let own = shape_fit(&t.to_string(), ink, text_h);
    if own < SHAPE_FLOOR {
        return Verdict::Unlike(own);
    }
    match best_other(t, ink, text_h).filter(|(_, s)| clearly_better(*s, own)) {
        Some((c, s)) => Verdict::Other(c.to_string(), s, own),
        None => Verdict::Fits(own),
    }
}

/// The glyph of another shape than `t` (every printable ASCII glyph and UI sign) that fits
/// `ink` best, and its fit.
fn best_other(t: char, ink: &GrayImage, text_h: Option<f32>) -> Option<(char, f32)> {
    let mut best: Option<(char, f32)> = None;
    for c in ('!'..='~').chain(UI_SIGNS.chars()) {
        if same_shape(c, t) || (c.to_lowercase().eq(t.to_lowercase()) && same_shape_case(c)) {
            continue;
        }
        let s = shape_fit(&c.to_string(), ink, text_h);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((c, s));
        }
    }
    best
}

/// Whether `ink` is glyph `t` with nothing read to say so: `t` fits at `floor` or better and
/// **better than every glyph of another shape** by [`OTHER_MARGIN`] — stricter than a reading's
/// confirmation, which only must not be beaten clearly (a J fits a sans-serif I at 0.98 beside
/// the I's 1.0: enough not to refute a reading "J", never enough to find a J). Its fit, or
/// `None`.
pub fn glyph_stands_out(t: char, ink: &GrayImage, text_h: Option<f32>, floor: f32) -> Option<f32> {
    if shapes().fonts.is_empty() {
        return None;
    }
    let own = shape_fit(&t.to_string(), ink, text_h);
    if own < floor.max(SHAPE_FLOOR) {
        return None;
    }
    match best_other(t, ink, text_h) {
        Some((_, other)) if other + OTHER_MARGIN > own => None,
        _ => Some(own),
    }
}

/// Letters whose two cases are one shape (the case is not held against a reading).
fn same_shape_case(c: char) -> bool {
    "cosuvwxzCOSUVWXZ".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gray ink from rows of '#'.
    fn rows(r: &[&str]) -> GrayImage {
        let mut g = GrayImage::new(r[0].len() as u32, r.len() as u32);
        for (y, row) in r.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                g.put_pixel(x as u32, y as u32, Luma([if c == '#' { 255 } else { 0 }]));
            }
        }
        g
    }

    /// OK with O underlined right under its bottom (LCL's `&OK`): the underline goes, the
    /// glyphs stay. An L's own foot is a bar across all its ink: kept.
    #[test]
    fn a_mnemonic_underline_is_cut_off_and_a_foot_is_not() {
        let ok = rows(&[
            ".###...#..#",
            "#...#..#.#.",
            "#...#..##..",
            "#...#..#.#.",
            ".###...#..#",
            "#####......",
        ]);
        let cut = without_underline(&ok);
        assert_eq!(cut.dimensions(), (11, 5));
        let l = rows(&["#....", "#....", "#....", "#....", "#####"]);
        assert_eq!(without_underline(&l).dimensions(), (5, 5));
    }

    /// The last glyphs of an ink strip: an icon's pieces before a caption are left out.
    #[test]
    fn the_last_glyphs_leave_out_a_picture_before_them() {
        let ink = rows(&["###..##.#", "###..##.#", "###..##.#"]);
        assert_eq!(last_glyphs(&ink, 2).dimensions(), (4, 3));
        assert_eq!(last_glyphs(&ink, 3).dimensions(), (9, 3));
    }

    /// `text` drawn by font `f` at `px`, as window pixels: dark text on a light ground.
    fn drawn(f: usize, text: &str, px: f32) -> RgbaImage {
        let font = &shapes().fonts[f];
        let scaled = font.as_scaled(PxScale::from(px));
        let mut img = RgbaImage::from_pixel(60, 40, image::Rgba([235, 235, 235, 255]));
        let mut x = 10.0;
        for c in text.chars() {
            let id = font.glyph_id(c);
            let g = id.with_scale_and_position(px, ab_glyph::point(x, 28.0));
            x += scaled.h_advance(id);
            if let Some(o) = font.outline_glyph(g) {
                let b = o.px_bounds();
                o.draw(|gx, gy, cov| {
                    let (px, py) = (b.min.x as u32 + gx, b.min.y as u32 + gy);
                    let v = (235.0 - cov * 200.0) as u8;
                    img.put_pixel(px, py, image::Rgba([v, v, v, 255]));
                });
            }
        }
        img
    }

    fn ink(img: &RgbaImage) -> GrayImage {
        ink_of(
            img,
            Rect::new(0, 0, img.width() as i32, img.height() as i32),
        )
        .unwrap()
    }

    /// The height of a capital drawn by font `f` at `px`, as the window's text height.
    fn cap(f: usize, px: f32) -> Option<f32> {
        Some(ink(&drawn(f, "H", px)).height() as f32)
    }

    #[test]
    fn the_machine_has_fonts_to_draw_with() {
        assert!(shape_fonts() >= 4, "fonts found: {}", shape_fonts());
    }

    #[test]
    fn a_glyph_fits_itself_in_every_font() {
        for f in 0..shape_fonts() {
            for t in ["1", "I", "+", "=", "*", "M+", "60", "%"] {
                let v = confirm_short(t, &ink(&drawn(f, t, 15.0)), cap(f, 15.0));
                assert!(matches!(v, Verdict::Fits(_)), "font {f}: {t}: {v:?}");
            }
        }
    }

    /// A sans-serif capital I read as the digit 1 (a spreadsheet's column header): refused.
    #[test]
    fn a_bar_is_no_one_and_a_minus_is_no_plus() {
        // DejaVu Sans is the first family; its I is a bare bar.
        let i = ink(&drawn(0, "I", 15.0));
        assert!(
            !matches!(confirm_short("1", &i, cap(0, 15.0)), Verdict::Fits(_)),
            "{:?}",
            confirm_short("1", &i, cap(0, 15.0))
        );
        assert!(matches!(
            confirm_short("I", &i, cap(0, 15.0)),
            Verdict::Fits(_)
        ));
        assert!(matches!(
            confirm_short("l", &i, cap(0, 15.0)),
            Verdict::Fits(_)
        ));
        for f in 0..shape_fonts() {
            let minus = ink(&drawn(f, "-", 15.0));
            assert!(
                !matches!(confirm_short("+", &minus, cap(f, 15.0)), Verdict::Fits(_)),
                "font {f}: {:?}",
                confirm_short("+", &minus, cap(f, 15.0))
            );
        }
    }

    /// A ÷ key is no plus in DejaVu Sans, the usual UI face. (At 15 px a ÷ is 8×6 px with
    /// one-pixel dots and some faces' ÷ fits a plus at 0.88 there: the reading's count of ink
    /// pieces tells them apart, `plausible` in mend-locate.)
    #[test]
    fn a_division_sign_is_no_plus() {
        let divide = ink(&drawn(0, "÷", 24.0));
        let v = confirm_short("+", &divide, cap(0, 24.0));
        assert!(!matches!(v, Verdict::Fits(_)), "{v:?}");
    }

    /// A one-glyph target read with more beside it: one of its glyphs must be the target.
    #[test]
    fn a_glyph_among_others_is_found_and_another_letter_is_not() {
        let img = drawn(0, "I]", 15.0);
        let v = confirm_glyph_at('I', &ink(&img), 0, 2, cap(0, 15.0));
        assert!(matches!(v, Verdict::Fits(_)), "{v:?}");
        let img = drawn(0, "i]", 15.0);
        let v = confirm_glyph_at('I', &ink(&img), 0, 2, cap(0, 15.0));
        assert!(!matches!(v, Verdict::Fits(_)), "{v:?}");
        // Its neighbour is no stand-in: the bracket is a bar too, but not at its place.
        let v = confirm_glyph_at('I', &ink(&img), 0, 3, cap(0, 15.0));
        assert!(!matches!(v, Verdict::Fits(_)), "{v:?}");
    }

    #[test]
    fn numbers_that_differ_are_unlike() {
        let sixty = ink(&drawn(0, "60", 15.0));
        assert!(matches!(
            confirm_short("60", &sixty, cap(0, 15.0)),
            Verdict::Fits(_)
        ));
        assert!(!matches!(
            confirm_short("10", &sixty, cap(0, 15.0)),
            Verdict::Fits(_)
        ));
    }
}
