//! Read only what changed. A large region read before (a whole window, a popup) keeps its
//! pixels and its words as a *page*; when the same region is read again and its pixels differ,
//! the two are compared by 16 px tiles, each changed part is grown to whole words (the words
//! read there before, and the new ink up to a clear gap around it), and only those parts are
//! read again. The page's other words stand. A typed field or a focus ring costs a read of a
//! few lines, not of the window; when much of the region changed, it is read whole again.

use crate::Word;
use image::RgbaImage;
use mend_model::Rect;

/// Regions smaller than this are read whole on any change (a caption crop, a strip).
pub(crate) const MIN_AREA: i64 = 160 * 120;
/// Above this share of the region changed, a whole read costs little more and is surer.
const MAX_CHANGED: f64 = 0.4;
const TILE: i32 = 16;
/// A row (column) of a part's edge is clear when no two neighbouring pixels along it differ
/// by more than this in grey: flat colour and gradients, never a glyph's edge.
const EDGE: i32 = 32;
/// Clear rows above and below, clear columns left and right, that end a part: line spacing
/// on one side, a word gap on the other (letters and CJK strokes leave 1–3 px).
const CLEAR_ROWS: i32 = 3;
const CLEAR_COLS: i32 = 8;
/// No side grows further than this (a gradient with noise, a wall of text): the part is read
/// as it stands.
const MAX_GROW: i32 = 64;

/// One region as last read: its pixels and every word Tesseract gave (before the confidence
/// filter), in the engine's cached form (upscaled, relative to the region).
pub(crate) struct Page {
    pub(crate) region: Rect,
    pub(crate) how: (u32, u32),
    pub(crate) pixels: RgbaImage,
    pub(crate) words: Vec<Word>,
}

impl Page {
    /// Is `region` of `img` read the way this page was, so its words may stand in?
    pub(crate) fn serves(&self, region: Rect, how: (u32, u32)) -> bool {
        self.region == region && self.how == how
    }
}

fn luma(img: &RgbaImage, x: i32, y: i32) -> i32 {
    let p = img.get_pixel(x as u32, y as u32).0;
    (p[0] as i32 * 299 + p[1] as i32 * 587 + p[2] as i32 * 114) / 1000
}

/// Tiles of `new` (the region's pixels now) that differ from `old` (the same size).
fn changed_tiles(old: &RgbaImage, new: &RgbaImage) -> Vec<Rect> {
    let (w, h) = (new.width() as i32, new.height() as i32);
    let (o, n) = (old.as_raw(), new.as_raw());
    let mut tiles = Vec::new();
    for ty in (0..h).step_by(TILE as usize) {
        for tx in (0..w).step_by(TILE as usize) {
            let tw = TILE.min(w - tx);
            let th = TILE.min(h - ty);
            let differs = (ty..ty + th).any(|y| {
                let s = ((y * w + tx) * 4) as usize;
                let e = s + tw as usize * 4;
                o[s..e] != n[s..e]
            });
            if differs {
                tiles.push(Rect::new(tx, ty, tw, th));
            }
        }
    }
    tiles
}

fn row_clear(img: &RgbaImage, y: i32, x0: i32, x1: i32) -> bool {
    (x0..x1 - 1).all(|x| (luma(img, x, y) - luma(img, x + 1, y)).abs() <= EDGE)
}

fn col_clear(img: &RgbaImage, x: i32, y0: i32, y1: i32) -> bool {
    (y0..y1 - 1).all(|y| (luma(img, x, y) - luma(img, x, y + 1)).abs() <= EDGE)
}

/// How far a side may move out: up to `run` clear lines in a row (kept as the margin), the
/// edge of the image, or MAX_GROW.
fn grow(limit: i32, run: i32, clear: impl Fn(i32) -> bool) -> i32 {
    let mut moved = 0;
    let mut clear_run = 0;
    while moved < limit.min(MAX_GROW) && clear_run < run {
        moved += 1;
        clear_run = if clear(moved) { clear_run + 1 } else { 0 };
    }
    moved
}

/// Grow `r` to the clear gaps around its ink in `img`.
fn to_clear_gaps(img: &RgbaImage, r: Rect) -> Rect {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let up = grow(r.y, CLEAR_ROWS, |d| row_clear(img, r.y - d, r.x, r.right()));
    let down = grow(h - r.bottom(), CLEAR_ROWS, |d| {
        row_clear(img, r.bottom() - 1 + d, r.x, r.right())
    });
    let r = Rect::new(r.x, r.y - up, r.w, r.h + up + down);
    let left = grow(r.x, CLEAR_COLS, |d| {
        col_clear(img, r.x - d, r.y, r.bottom())
    });
    let right = grow(w - r.right(), CLEAR_COLS, |d| {
        col_clear(img, r.right() - 1 + d, r.y, r.bottom())
    });
    Rect::new(r.x - left, r.y, r.w + left + right, r.h)
}

/// Merge rects that overlap or touch until none do.
fn merge(mut rs: Vec<Rect>) -> Vec<Rect> {
    loop {
        let mut merged = false;
        let mut out: Vec<Rect> = Vec::with_capacity(rs.len());
        for r in rs {
            if let Some(o) = out
                .iter_mut()
                .find(|o| o.inflate(1).intersect(&r).is_some())
            {
                *o = o.union(&r);
                merged = true;
            } else {
                out.push(r);
            }
        }
        rs = out;
        if !merged {
            return rs;
        }
    }
}

/// The parts of the region to read again, in region pixels, or `None` when it should be read
/// whole (too much changed). `words` are the page's, in region pixels; `new` is the region now.
pub(crate) fn parts_to_read(old: &RgbaImage, new: &RgbaImage, words: &[Rect]) -> Option<Vec<Rect>> {
    let area = new.width() as f64 * new.height() as f64;
    let changed_area = |rs: &[Rect]| rs.iter().map(|r| r.area() as f64).sum::<f64>();
    let tiles = changed_tiles(old, new);
    if changed_area(&tiles) > MAX_CHANGED * area {
        return None;
    }
    let mut parts = merge(tiles);
    for _ in 0..4 {
        let before = parts.clone();
        parts = parts
            .into_iter()
            .map(|p| {
                let p = to_clear_gaps(new, p);
                // A word read there before is read again whole, or goes.
                words
                    .iter()
                    .filter(|w| w.intersect(&p).is_some())
                    .fold(p, |p, w| p.union(w))
            })
            .collect();
        parts = merge(parts);
        if parts == before {
            break;
        }
    }
    (changed_area(&parts) <= MAX_CHANGED * area).then_some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    fn canvas() -> RgbaImage {
        RgbaImage::from_pixel(400, 200, Rgba([240, 240, 240, 255]))
    }

    /// A dark block standing in for a word's ink.
    fn ink(img: &mut RgbaImage, r: Rect) {
        for y in r.y..r.bottom() {
            for x in r.x..r.right() {
                // Stripes: a glyph's edges, not a flat patch.
                let v = if x % 3 == 0 { 240 } else { 20 };
                img.put_pixel(x as u32, y as u32, Rgba([v, v, v, 255]));
            }
        }
    }

    #[test]
    fn an_unchanged_region_reads_nothing_again() {
        let a = canvas();
        assert_eq!(parts_to_read(&a, &a, &[]), Some(vec![]));
    }

    #[test]
    fn a_changed_word_is_read_again_whole_with_its_margin_and_nothing_else() {
        let mut old = canvas();
        ink(&mut old, Rect::new(20, 20, 60, 12)); // a word that stays
        ink(&mut old, Rect::new(100, 100, 90, 12)); // a word that changes at its end
        let mut new = old.clone();
        ink(&mut new, Rect::new(190, 100, 30, 12)); // typed on
        let words = [Rect::new(20, 20, 60, 12), Rect::new(100, 100, 90, 12)];
        let parts = parts_to_read(&old, &new, &words).unwrap();
        assert_eq!(parts.len(), 1, "{parts:?}");
        let p = parts[0];
        assert!(p.contains_rect(&Rect::new(100, 100, 120, 12)), "{p:?}");
        assert!(p.intersect(&words[0]).is_none(), "{p:?}");
        assert!(p.area() < 400 * 200 / 4, "{p:?}");
    }

    #[test]
    fn a_region_mostly_changed_is_read_whole() {
        let old = canvas();
        let mut new = canvas();
        ink(&mut new, Rect::new(0, 0, 400, 120));
        assert_eq!(parts_to_read(&old, &new, &[]), None);
    }
}
