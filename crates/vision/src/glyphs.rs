//! Lone glyphs: single characters standing on their own, not inside a word — a list of page
//! numbers (`1 2 3` down a narrow column), a line-number gutter, a keypad drawn without frames.
//! OCR of a whole window reads none of them (one glyph is too little context for a page
//! reader), so a one-glyph target is looked for among them by its shape.
//!
//! Also the connected parts of a mask of ink ([`ink_parts`]), of which glyphs are made.

use crate::ink::{background, is_ink, luma};
use image::RgbaImage;
use mend_model::Rect;

/// The square tiles each of which has its own background, so ink is told on panels of any
/// shade in one pass.
const TILE: i32 = 24;

/// Boxes of the lone glyphs of `img` in text `text_h` pixels tall (a capital's or a digit's
/// height): ink (far from its tile's background, [`is_ink`]) connected along its 8 neighbours,
/// parts one above the other joined (`=`, `i`, `:`), between 0.7 and 1.3 text heights tall and
/// no wider than 1.2, with no other ink on its rows within 0.6 text heights left or right of
/// it (a letter of a word has its neighbours nearer) and none just over or under it. Top to
/// bottom, left to right.
pub fn lone_glyphs(img: &RgbaImage, text_h: i32) -> Vec<Rect> {
    let (w, h) = (img.width() as i32, img.height() as i32);
    if text_h < 5 || w == 0 || h == 0 {
        return Vec::new();
    }
    let (tw, th) = ((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
    let mut bg = vec![0i32; (tw * th) as usize];
    for ty in 0..th {
        for tx in 0..tw {
            bg[(ty * tw + tx) as usize] =
                background(img, Rect::new(tx * TILE, ty * TILE, TILE, TILE));
        }
    }
    let ink: Vec<bool> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            is_ink(luma(img, x, y), bg[((y / TILE) * tw + x / TILE) as usize])
        })
        .collect();
    // Connected parts, each as its box; parts larger than a few glyphs are frames and lines.
    let big = 3 * text_h;
    let parts: Vec<Rect> = ink_parts(&ink, w as usize)
        .into_iter()
        .map(|p| p.rect)
        .collect();
    // Parts one above the other within a third of a text height are one glyph (`=`, `:`).
    let mut glyphs: Vec<Rect> = Vec::new();
    for p in parts {
        let small = p.w <= big && p.h <= big;
        match glyphs.iter_mut().find(|g| {
            small
                && g.w <= big
                && g.h <= big
                && g.x < p.right()
                && p.x < g.right()
                && (p.y - g.bottom()).max(g.y - p.bottom()) <= text_h / 3
        }) {
            Some(g) => *g = g.union(&p),
            None => glyphs.push(p),
        }
    }
    let sized =
        |g: &Rect| 10 * g.h >= 7 * text_h && 10 * g.h <= 13 * text_h && 10 * g.w <= 12 * text_h;
    let reach = (text_h * 6 / 10).max(3);
    let alone = |g: &Rect| {
        let around = Rect::new(g.x - reach, g.y - reach / 2, g.w + 2 * reach, g.h + reach);
        (around.y..around.bottom()).all(|y| {
            (around.x..around.right()).all(|x| {
                g.contains(mend_model::Point { x, y })
                    || x < 0
                    || y < 0
                    || x >= w
                    || y >= h
                    || !ink[(y * w + x) as usize]
            })
        })
    };
    let mut out: Vec<Rect> = glyphs
        .into_iter()
        .filter(|g| sized(g) && alone(g))
        .collect();
    out.sort_by_key(|g| (g.y, g.x));
    out
}

/// A connected piece of ink: the cells of a mask joined along their 8 neighbours.
#[derive(Debug, Clone, PartialEq)]
pub struct InkPart {
    /// The part's bounding box, in the mask's cells.
    pub rect: Rect,
    /// Its cells, as indices into the mask (row by row), in no particular order.
    pub cells: Vec<usize>,
}

/// The 8-connected parts of `ink`, a mask `w` cells wide stored row by row: each inked cell
/// belongs to exactly one part. In the order of each part's first cell, row by row.
pub fn ink_parts(ink: &[bool], w: usize) -> Vec<InkPart> {
    if w == 0 {
        return Vec::new();
    }
    let h = ink.len() / w;
    let mut seen = vec![false; w * h];
    let mut parts = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if !ink[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut cells = Vec::new();
        let (mut x0, mut y0, mut x1, mut y1) = (w as i32, h as i32, -1, -1);
        while let Some(i) = stack.pop() {
            cells.push(i);
            let (x, y) = ((i % w) as i32, (i / w) as i32);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            for (dx, dy) in [
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1),
            ] {
                let (nx, ny) = (x + dx, y + dy);
                if nx < 0 || ny < 0 || nx >= w as i32 || ny >= h as i32 {
                    continue;
                }
                let j = ny as usize * w + nx as usize;
                if ink[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        parts.push(InkPart {
            rect: Rect::new(x0, y0, x1 - x0 + 1, y1 - y0 + 1),
            cells,
        });
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    fn fill(img: &mut RgbaImage, r: Rect, c: [u8; 4]) {
        for y in r.y..r.bottom() {
            for x in r.x..r.right() {
                img.put_pixel(x as u32, y as u32, Rgba(c));
            }
        }
    }

    /// A column of one-glyph items on a grey panel (a page list) is three lone glyphs; the
    /// letters of a word beside each other are none, nor is a frame's line, nor a dot.
    #[test]
    fn a_column_of_one_glyph_items_is_lone_glyphs_and_a_word_is_none() {
        let dark = [20, 20, 20, 255];
        let mut img = RgbaImage::from_pixel(300, 200, Rgba([200, 200, 200, 255]));
        for (i, y) in [40, 56, 72].into_iter().enumerate() {
            // A digit: a stroke and a bar (6×10), each item 16 px below the last.
            fill(&mut img, Rect::new(30, y, 2, 10), dark);
            fill(&mut img, Rect::new(30, y + 4 * (i as i32 % 2), 6, 2), dark);
        }
        // A word: four letters 2 px apart.
        for k in 0..4 {
            fill(&mut img, Rect::new(120 + 8 * k, 40, 6, 10), dark);
        }
        // A frame's line and a dot.
        fill(&mut img, Rect::new(10, 120, 200, 1), dark);
        fill(&mut img, Rect::new(250, 150, 2, 2), dark);
        let found = lone_glyphs(&img, 10);
        assert_eq!(
            found,
            vec![
                Rect::new(30, 40, 6, 10),
                Rect::new(30, 56, 6, 10),
                Rect::new(30, 72, 6, 10)
            ]
        );
    }

    /// Ink joined along a diagonal is one part, ink a cell apart is two; parts come in the
    /// order of their first cell row by row, each with its box and every one of its cells.
    #[test]
    fn ink_parts_join_eight_neighbours() {
        // 6 wide, 4 rows:
        // x . . . . x
        // . x . . . x
        // . . . x . .
        // . . . x . .
        let rows = ["x....x", ".x...x", "...x..", "...x.."];
        let ink: Vec<bool> = rows
            .iter()
            .flat_map(|r| r.chars().map(|c| c == 'x'))
            .collect();
        let mut parts = ink_parts(&ink, 6);
        for p in &mut parts {
            p.cells.sort_unstable();
        }
        assert_eq!(
            parts,
            vec![
                InkPart {
                    rect: Rect::new(0, 0, 2, 2),
                    cells: vec![0, 7],
                },
                InkPart {
                    rect: Rect::new(5, 0, 1, 2),
                    cells: vec![5, 11],
                },
                InkPart {
                    rect: Rect::new(3, 2, 1, 2),
                    cells: vec![15, 21],
                },
            ]
        );
        assert!(ink_parts(&[], 0).is_empty());
        assert!(ink_parts(&[false; 8], 4).is_empty());
    }
}
