//! Faint text: letters drawn close to their ground — a text UI's bright white captions on its
//! light grey dialog (26 grey levels apart), a yellow hot letter on that grey (3 grey levels,
//! far in colour) — that neither reader sees, as both look for ink far from its ground.
//!
//! Found as rows of glyph-sized pieces of such pixels, so a bevel's light line (one long
//! piece) or a gradient's band is none; the locator re-reads a window with them drawn at full
//! contrast only when a target was not found in it (chain.rs `faint_pass`): the window's own
//! reading, its boxes and everything found in it stay as they were.

use crate::ink::{colour_far, luma};
use image::{Rgba, RgbaImage};
use mend_model::Rect;

/// The side of the tiles whose most common colour is the ground of their pixels.
const TILE: i32 = 12;
/// Nearer than this in grey to its ground, a pixel is no ink unless far in colour.
const FAINT_MIN: i32 = 12;
/// Farther than this in grey from its ground, a pixel is ink every reader sees.
const STRONG: i32 = 60;
/// A pixel this far from its ground in one channel is drawn, however close the greys.
const COLOUR_FAR: i32 = 24;

/// Each tile's most common colour (by its grey level, the colour of that level's first pixel):
/// a tile is mostly ground, its letters are strokes. Two grids, the second shifted by half a
/// tile, and a pixel's ground is the nearer of its two tiles' in grey: a letter on a dialog's
/// top row shares its tile with the desktop above, never both of its tiles.
struct Grounds {
    grids: [Grid; 2],
}

struct Grid {
    shift: i32,
    cols: i32,
    colour: Vec<[i32; 3]>,
    luma: Vec<i32>,
}

impl Grid {
    fn of(img: &RgbaImage, shift: i32) -> Grid {
        let (w, h) = (img.width() as i32, img.height() as i32);
        let (cols, rows) = ((w + shift) / TILE + 1, (h + shift) / TILE + 1);
        let mut colour = Vec::with_capacity((cols * rows) as usize);
        let mut lumas = Vec::with_capacity((cols * rows) as usize);
        for ty in 0..rows {
            for tx in 0..cols {
                let mut hist = [0u16; 256];
                let mut first = [[0i32; 3]; 256];
                let (x0, y0) = ((tx * TILE - shift).max(0), (ty * TILE - shift).max(0));
                for y in y0..((ty + 1) * TILE - shift).min(h) {
                    for x in x0..((tx + 1) * TILE - shift).min(w) {
                        let l = luma(img, x, y) as usize;
                        if hist[l] == 0 {
                            let p = img.get_pixel(x as u32, y as u32).0;
                            first[l] = [p[0] as i32, p[1] as i32, p[2] as i32];
                        }
                        hist[l] += 1;
                    }
                }
                let mode = (0..256).max_by_key(|&v| hist[v]).unwrap_or(0);
                colour.push(first[mode]);
                lumas.push(mode as i32);
            }
        }
        Grid {
            shift,
            cols,
            colour,
            luma: lumas,
        }
    }

    fn at(&self, x: i32, y: i32) -> usize {
        (((y + self.shift) / TILE) * self.cols + (x + self.shift) / TILE) as usize
    }
}

impl Grounds {
    fn of(img: &RgbaImage) -> Grounds {
        Grounds {
            grids: [Grid::of(img, 0), Grid::of(img, TILE / 2)],
        }
    }

    /// The ground under `x, y` whose grey is nearer the pixel's `l`: (grey, colour).
    fn at(&self, x: i32, y: i32, l: i32) -> (i32, [i32; 3]) {
        let [a, b] = &self.grids;
        let (i, j) = (a.at(x, y), b.at(x, y));
        if (a.luma[i] - l).abs() <= (b.luma[j] - l).abs() {
            (a.luma[i], a.colour[i])
        } else {
            (b.luma[j], b.colour[j])
        }
    }
}

/// Faint ink of a window: where it lies, and its rows of text ([`faint_text`]).
pub struct FaintInk {
    /// The rows of faint text, in the image's pixels.
    pub rows: Vec<Rect>,
    /// Per pixel: 0 no faint ink, else the grey it is drawn in at full contrast plus one
    /// (black on a light ground, white on a dark one).
    ink: Vec<u16>,
    width: i32,
}

/// Per pixel, what [`FaintInk::ink`] holds: faint ink is 12–60 grey levels off its ground, or
/// as near in grey but far from it in colour, with no strong ink beside it (the soft edge of a
/// dark letter is that letter's).
fn faint_pixels(img: &RgbaImage, g: &Grounds) -> Vec<u16> {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let mut strong = vec![false; (w * h) as usize];
    let mut ink = vec![0u16; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) as usize;
            let l = luma(img, x, y);
            let (gl, gc) = g.at(x, y, l);
            let d = (l - gl).abs();
            strong[i] = d > STRONG;
            let far = colour_far(img.get_pixel(x as u32, y as u32).0, gc);
            if d <= STRONG && (d >= FAINT_MIN || far >= COLOUR_FAR) {
                ink[i] = if gl >= 128 { 1 } else { 256 };
            }
        }
    }
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) as usize;
            let beside_strong = ((y - 1).max(0)..=(y + 1).min(h - 1)).any(|yy| {
                ((x - 1).max(0)..=(x + 1).min(w - 1)).any(|xx| strong[(yy * w + xx) as usize])
            });
            if beside_strong {
                ink[i] = 0;
            }
        }
    }
    ink
}

/// The faint ink of `img` and its rows of text: three glyph-sized pieces of faint ink or more
/// (5–40 px tall, no wider than twice their height plus two), side by side on one band (each
/// piece sharing half its height with the row, a gap under one and a half heights between
/// them), the row at least twice as wide as it is tall.
pub fn faint_text(img: &RgbaImage) -> FaintInk {
    let (w, h) = (img.width() as i32, img.height() as i32);
    if w < TILE || h < TILE {
        return FaintInk {
            rows: Vec::new(),
            ink: Vec::new(),
            width: w,
        };
    }
    let ink = faint_pixels(img, &Grounds::of(img));
    // Pieces: 8-connected faint pixels.
    let mut seen = vec![false; ink.len()];
    let mut pieces: Vec<Rect> = Vec::new();
    let mut stack = Vec::new();
    for start in 0..ink.len() {
        if ink[start] == 0 || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
        let mut n = 0;
        while let Some(i) = stack.pop() {
            let (x, y) = (i as i32 % w, i as i32 / w);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            n += 1;
            for yy in (y - 1).max(0)..=(y + 1).min(h - 1) {
                for xx in (x - 1).max(0)..=(x + 1).min(w - 1) {
                    let j = (yy * w + xx) as usize;
                    if ink[j] != 0 && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let (pw, ph) = (x1 - x0 + 1, y1 - y0 + 1);
        if (5..=40).contains(&ph) && pw <= 2 * ph + 2 && n >= 4 {
            pieces.push(Rect::new(x0, y0, pw, ph));
        }
    }
    // Rows: pieces side by side on one band.
    pieces.sort_by_key(|r| (r.x, r.y));
    let mut rows: Vec<(Rect, usize)> = Vec::new();
    for p in pieces {
        let joins = rows.iter_mut().find(|(row, _)| {
            let shared = p.bottom().min(row.bottom()) - p.y.max(row.y);
            let gap = p.x - row.right();
            2 * shared >= p.h.min(row.h) && gap <= 3 * p.h.max(row.h) / 2 && gap >= -2
        });
        match joins {
            Some((row, n)) => {
                *row = row.union(&p);
                *n += 1;
            }
            None => rows.push((p, 1)),
        }
    }
    let rows = rows
        .into_iter()
        .filter(|(r, n)| *n >= 3 && r.w >= 2 * r.h)
        .map(|(r, _)| r)
        .collect();
    FaintInk {
        rows,
        ink,
        width: w,
    }
}

impl FaintInk {
    /// `img` (the image this was found in) with the faint ink inside `rows` (some of
    /// [`FaintInk::rows`]) drawn at full contrast. Every other pixel is left as it was.
    pub fn drawn(&self, img: &RgbaImage, rows: &[Rect]) -> RgbaImage {
        let mut out = img.clone();
        let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
        for r in rows.iter().filter_map(|r| r.inflate(1).intersect(&bounds)) {
            for y in r.y..r.bottom() {
                for x in r.x..r.right() {
                    let v = self.ink[(y * self.width + x) as usize];
                    if v != 0 {
                        let v = (v - 1) as u8;
                        out.put_pixel(x as u32, y as u32, Rgba([v, v, v, 255]));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grey() -> RgbaImage {
        RgbaImage::from_pixel(200, 60, Rgba([229, 229, 229, 255]))
    }

    /// Letter-like strokes: a vertical bar and a cap per glyph, `n` glyphs 8 px apart.
    fn letters(img: &mut RgbaImage, x0: u32, y0: u32, n: u32, c: [u8; 4]) {
        for k in 0..n {
            let x = x0 + 8 * k;
            for y in y0..y0 + 9 {
                img.put_pixel(x, y, Rgba(c));
            }
            for dx in 0..4 {
                img.put_pixel(x + dx, y0, Rgba(c));
            }
        }
    }

    /// White letters on light grey (26 levels) and a yellow one (3 levels, far in blue) make
    /// a row; black letters (read by every reader) and a long light line (a bevel) do not.
    #[test]
    fn white_and_yellow_letters_on_light_grey_are_a_faint_row_and_a_bevel_is_not() {
        let mut img = grey();
        letters(&mut img, 20, 10, 1, [255, 255, 0, 255]);
        letters(&mut img, 28, 10, 4, [255, 255, 255, 255]);
        letters(&mut img, 120, 10, 5, [0, 0, 0, 255]);
        for x in 10..190 {
            img.put_pixel(x, 40, Rgba([255, 255, 255, 255]));
        }
        let faint = faint_text(&img);
        let rows = &faint.rows;
        assert_eq!(rows.len(), 1, "{rows:?}");
        let r = rows[0];
        assert!(
            r.x <= 20 && r.right() >= 56 && r.y <= 10 && r.bottom() >= 19,
            "{r:?}"
        );
        assert!(r.right() < 120, "the black letters are no faint row: {r:?}");
        let drawn = faint.drawn(&img, rows);
        assert_eq!(
            drawn.get_pixel(28, 12).0,
            [0, 0, 0, 255],
            "white drawn black"
        );
        assert_eq!(
            drawn.get_pixel(20, 12).0,
            [0, 0, 0, 255],
            "yellow drawn black"
        );
        assert_eq!(
            drawn.get_pixel(50, 30).0,
            [229, 229, 229, 255],
            "the ground kept"
        );
        assert_eq!(
            drawn.get_pixel(100, 40).0,
            [255, 255, 255, 255],
            "the bevel kept"
        );
    }

    /// Two faint letters are no row (a mark, an icon's detail), nor is a plain ground.
    #[test]
    fn two_faint_pieces_or_none_are_no_row() {
        let mut img = grey();
        assert!(faint_text(&img).rows.is_empty());
        letters(&mut img, 20, 10, 2, [255, 255, 255, 255]);
        assert!(faint_text(&img).rows.is_empty());
    }
}
