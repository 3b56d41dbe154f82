//! Check boxes from pixels: the small square frame beside a caption, and whether it is ticked.
//!
//! A caption is not its check box. In Win32, Tk, Motif and Swing a click on the caption
//! toggles the box; in a GTK dialog the caption may be a label of its own beside it, and a
//! click there does nothing (issue 13: Mend clicked "Replace all in:", the box stayed clear,
//! and the run replaced one word instead of all). So a check step clicks the indicator itself
//! and reads its state before (no click when it already holds) and after (it must have taken).
//!
//! The indicator is the nearest small, square, closed frame on the caption's line, left of it
//! (nearly every toolkit) or right of it (Win32 `BS_LEFTTEXT`), no farther than a few text
//! heights. Its state: a mark inside (a tick, a cross, a dot: ink far from the interior's own
//! colour) or a coloured fill (themed toolkits fill a ticked box) is ticked; a plain, neutral
//! interior is clear. Anything between is unknown and the step refuses.

use crate::boxes::{framed_rects, gray};
use crate::ink::luma;
use image::RgbaImage;
use mend_model::Rect;

/// The check indicator that belongs to the caption at `caption` (image pixels), or `None`
/// when no small square frame sits beside it, or two sit at the same distance.
pub fn find_check_indicator(img: &RgbaImage, caption: Rect) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let h = caption.h.max(6);
    // A box is about as tall as a line of text, up to twice (themed toolkits at high DPI).
    let max_side = (2 * h + 6).min(64);
    let gap_max = 2 * h + 6;
    let cy = caption.y + caption.h / 2;
    let region = Rect::new(
        caption.x - gap_max - max_side - 4,
        cy - max_side,
        caption.w + 2 * (gap_max + max_side + 4),
        2 * max_side,
    )
    .intersect(&bounds)?;
    let sub = image::imageops::crop_imm(
        img,
        region.x as u32,
        region.y as u32,
        region.w as u32,
        region.h as u32,
    )
    .to_image();
    let g = gray(&sub);
    let mut found: Vec<(i32, Rect)> = framed_rects(&g, 5, 6, max_side)
        .into_iter()
        .map(|r| r.translate(region.x, region.y))
        .filter(|r| {
            let square = 4 * r.w >= 3 * r.h && 4 * r.h >= 3 * r.w;
            let sized = r.w >= 7 && r.h >= 7 && r.w <= max_side && r.h <= max_side;
            let on_line = (r.y + r.h / 2 - cy).abs() <= (h / 2).max(4);
            square && sized && on_line
        })
        .filter_map(|r| {
            let gap = if r.right() <= caption.x + 2 {
                caption.x - r.right()
            } else if r.x >= caption.right() - 2 {
                r.x - caption.right()
            } else {
                return None; // overlaps the caption: a frame around text, not beside it
            };
            (-2..=gap_max).contains(&gap).then_some((gap, r))
        })
        .collect();
    found.sort_by_key(|(gap, _)| *gap);
    match found.as_slice() {
        [] => None,
        [(_, r)] => Some(*r),
        [(g0, r0), (g1, r1), ..] => {
            // Nested frames of one box (a bevel inside its outline) are the same box.
            if r0.inflate(3).contains_rect(r1) || r1.inflate(3).contains_rect(r0) {
                Some(if r0.area() >= r1.area() { *r0 } else { *r1 })
            } else if g1 - g0 <= 2 {
                None
            } else {
                Some(*r0)
            }
        }
    }
}

/// Is the check box whose indicator is `r` ticked? `None` when its look says neither.
pub fn check_state(img: &RgbaImage, r: Rect) -> Option<bool> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    // Inside the frame and its bevel.
    let inner = r.inflate(-(2.max(r.w / 5))).intersect(&bounds)?;
    if inner.w < 3 || inner.h < 3 {
        return None;
    }
    // Each pixel with its grey level.
    let px: Vec<([u8; 4], i32)> = (inner.y..inner.bottom())
        .flat_map(|y| (inner.x..inner.right()).map(move |x| (x, y)))
        .map(|(x, y)| (img.get_pixel(x as u32, y as u32).0, luma(img, x, y)))
        .collect();
    let mut ls: Vec<i32> = px.iter().map(|(_, l)| *l).collect();
    ls.sort_unstable();
    let med = ls[ls.len() / 2];
    let marked = px.iter().filter(|(_, l)| (l - med).abs() > 60).count() as f64 / px.len() as f64;
    // The colour of the interior's body (pixels near the median grey).
    let body: Vec<&[u8; 4]> = px
        .iter()
        .filter(|(_, l)| (l - med).abs() <= 30)
        .map(|(p, _)| p)
        .collect();
    let mean = |c: usize| body.iter().map(|p| p[c] as i32).sum::<i32>() / body.len().max(1) as i32;
    let (r_, g_, b_) = (mean(0), mean(1), mean(2));
    if marked >= 0.06 || crate::ink::chroma(r_, g_, b_) >= 70 {
        Some(true)
    } else if marked <= 0.02 {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    const BG: [u8; 4] = [236, 236, 236, 255];

    fn fill(img: &mut RgbaImage, r: Rect, c: [u8; 4]) {
        for y in r.y..r.bottom() {
            for x in r.x..r.right() {
                img.put_pixel(x as u32, y as u32, Rgba(c));
            }
        }
    }

    /// A box with a 1 px dark outline and a white interior, ticked with a dark cross or not,
    /// and a caption of ink blocks to its right.
    fn check_box(img: &mut RgbaImage, b: Rect, ticked: bool) -> Rect {
        fill(img, b, [80, 80, 80, 255]);
        fill(img, b.inflate(-1), [255, 255, 255, 255]);
        if ticked {
            for k in 3..b.w - 3 {
                img.put_pixel((b.x + k) as u32, (b.y + k) as u32, Rgba([0, 0, 0, 255]));
                img.put_pixel(
                    (b.x + k) as u32,
                    (b.bottom() - 1 - k) as u32,
                    Rgba([0, 0, 0, 255]),
                );
            }
        }
        let caption = Rect::new(b.right() + 6, b.y + 1, 60, b.h - 2);
        for k in 0..6 {
            fill(
                img,
                Rect::new(caption.x + k * 10, caption.y + 2, 7, caption.h - 4),
                [0, 0, 0, 255],
            );
        }
        caption
    }

    #[test]
    fn the_box_beside_a_caption_and_its_state_are_read() {
        let mut img = RgbaImage::from_pixel(300, 120, Rgba(BG));
        let clear = Rect::new(20, 20, 14, 14);
        let ticked = Rect::new(20, 70, 14, 14);
        let c1 = check_box(&mut img, clear, false);
        let c2 = check_box(&mut img, ticked, true);
        let got1 = find_check_indicator(&img, c1).expect("clear box found");
        let got2 = find_check_indicator(&img, c2).expect("ticked box found");
        assert!(got1.iou(&clear) > 0.7, "{got1:?}");
        assert!(got2.iou(&ticked) > 0.7, "{got2:?}");
        assert_eq!(check_state(&img, got1), Some(false));
        assert_eq!(check_state(&img, got2), Some(true));
    }

    #[test]
    fn a_coloured_fill_is_ticked_and_a_plain_one_clear() {
        let mut img = RgbaImage::from_pixel(100, 60, Rgba(BG));
        let b = Rect::new(10, 10, 16, 16);
        fill(&mut img, b, [53, 132, 228, 255]);
        assert_eq!(check_state(&img, b), Some(true));
        let dark = Rect::new(50, 10, 16, 16);
        fill(&mut img, dark, [45, 45, 45, 255]);
        assert_eq!(check_state(&img, dark), Some(false));
    }

    #[test]
    fn a_caption_with_no_box_or_inside_a_button_has_no_indicator() {
        let mut img = RgbaImage::from_pixel(300, 120, Rgba(BG));
        // Text alone.
        let caption = Rect::new(40, 20, 60, 12);
        fill(&mut img, caption, [0, 0, 0, 255]);
        assert_eq!(find_check_indicator(&img, caption), None);
        // Text inside a button frame (the frame overlaps the caption: not beside it).
        let button = Rect::new(30, 60, 100, 30);
        fill(&mut img, button, [80, 80, 80, 255]);
        fill(&mut img, button.inflate(-1), BG);
        let inside = Rect::new(50, 70, 60, 12);
        fill(&mut img, inside, [0, 0, 0, 255]);
        assert_eq!(find_check_indicator(&img, inside), None);
        // A wide field right of a label is no check box either.
        let mut img = RgbaImage::from_pixel(300, 60, Rgba(BG));
        let label = Rect::new(10, 20, 50, 12);
        fill(&mut img, label, [0, 0, 0, 255]);
        let field = Rect::new(70, 16, 150, 20);
        fill(&mut img, field, [80, 80, 80, 255]);
        fill(&mut img, field.inflate(-1), [255, 255, 255, 255]);
        assert_eq!(find_check_indicator(&img, label), None);
    }

    #[test]
    fn two_boxes_at_the_same_distance_are_not_guessed() {
        let mut img = RgbaImage::from_pixel(300, 60, Rgba(BG));
        let caption = Rect::new(100, 20, 40, 12);
        fill(&mut img, caption, [0, 0, 0, 255]);
        for b in [Rect::new(80, 19, 14, 14), Rect::new(146, 19, 14, 14)] {
            fill(&mut img, b, [80, 80, 80, 255]);
            fill(&mut img, b.inflate(-1), [255, 255, 255, 255]);
        }
        assert_eq!(find_check_indicator(&img, caption), None);
    }
}
