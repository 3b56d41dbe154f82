//! Template matching: find a recorded crop of a control again, at several scales so a font or
//! DPI change (125 %, 150 %) still matches. Normalised cross-correlation from `imageproc`,
//! searched only in a window around where the control was (the whole frame only on request):
//! the cost grows with area × template size.

use image::{imageops, DynamicImage, GrayImage, RgbaImage};
use imageproc::template_matching::{find_extremes, match_template, MatchTemplateMethod};
use mend_model::Rect;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TemplateHit {
    pub rect: Rect,
    /// Normalised cross-correlation, 0..=1 (1 = identical up to brightness scale).
    pub score: f32,
    pub scale: f32,
}

pub const SCALES: [f32; 4] = [1.0, 1.25, 1.5, 0.8];

fn to_gray(img: &RgbaImage) -> GrayImage {
    DynamicImage::ImageRgba8(img.clone()).to_luma8()
}

/// The part of `img` inside `r`, clamped to the image; `None` when nothing of `r` is on it.
pub fn crop(img: &RgbaImage, r: Rect) -> Option<RgbaImage> {
    let r = r.clamp_to(&Rect::new(0, 0, img.width() as i32, img.height() as i32))?;
    Some(imageops::crop_imm(img, r.x as u32, r.y as u32, r.w as u32, r.h as u32).to_image())
}

/// Mean absolute difference per channel byte (0–255) of two same-sized images; `f64::MAX`
/// when the sizes differ. Below ~2 the pixels are the same (anti-aliasing aside).
pub fn pixel_diff(a: &RgbaImage, b: &RgbaImage) -> f64 {
    if a.dimensions() != b.dimensions() {
        return f64::MAX;
    }
    let sum: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| x.abs_diff(*y) as u64)
        .sum();
    sum as f64 / a.as_raw().len().max(1) as f64
}

/// `imageproc`'s normalised cross-correlation at one placement (same formula, so scores
/// from the exhaustive and the refined search compare).
fn ncc_at(area: &GrayImage, t: &GrayImage, x: u32, y: u32) -> f32 {
    let (mut it, mut ii, mut tt) = (0f64, 0f64, 0f64);
    for ty in 0..t.height() {
        for tx in 0..t.width() {
            let a = area.get_pixel(x + tx, y + ty).0[0] as f64;
            let b = t.get_pixel(tx, ty).0[0] as f64;
            it += a * b;
            ii += a * a;
            tt += b * b;
        }
    }
    let d = (ii * tt).sqrt();
    if d == 0.0 {
        0.0
    } else {
        (it / d) as f32
    }
}

/// Coarse to fine: the exhaustive search on half-size copies (16× fewer operations), then the
/// full-size score in ±3 px around the coarse peak.
fn search(area: &GrayImage, t: &GrayImage) -> (u32, u32, f32) {
    let (aw, ah, tw, th) = (area.width(), area.height(), t.width(), t.height());
    let (cx, cy) = if tw >= 24 && th >= 16 {
        let half = |g: &GrayImage| {
            imageops::resize(
                g,
                g.width() / 2,
                g.height() / 2,
                imageops::FilterType::Triangle,
            )
        };
        let scores = match_template(
            &half(area),
            &half(t),
            MatchTemplateMethod::CrossCorrelationNormalized,
        );
        let loc = find_extremes(&scores).max_value_location;
        (loc.0 * 2, loc.1 * 2)
    } else {
        let scores = match_template(area, t, MatchTemplateMethod::CrossCorrelationNormalized);
        let loc = find_extremes(&scores).max_value_location;
        return (loc.0, loc.1, ncc_at(area, t, loc.0, loc.1));
    };
    let mut best = (cx, cy, f32::MIN);
    for y in cy.saturating_sub(3)..=(cy + 3).min(ah - th) {
        for x in cx.saturating_sub(3)..=(cx + 3).min(aw - tw) {
            let s = ncc_at(area, t, x, y);
            if s > best.2 {
                best = (x, y, s);
            }
        }
    }
    best
}

/// Score from which the control is taken to be exactly where it was, skipping the search.
const IN_PLACE: f32 = 0.985;

/// Best match of `template` inside `region` of `img` over `scales`. The recorded place at
/// scale 1 is tried first: on an unchanged screen that single placement answers.
pub fn find_template(
    img: &RgbaImage,
    template: &RgbaImage,
    region: Rect,
    scales: &[f32],
) -> Option<TemplateHit> {
    let r = region.clamp_to(&Rect::new(0, 0, img.width() as i32, img.height() as i32))?;
    let area = to_gray(&crop(img, r)?);
    let tmpl = to_gray(template);
    let (tw0, th0) = (tmpl.width(), tmpl.height());
    // The region is the recorded box grown evenly, so "in place" is its centre.
    if tw0 <= area.width() && th0 <= area.height() {
        let (x, y) = ((area.width() - tw0) / 2, (area.height() - th0) / 2);
        let s = ncc_at(&area, &tmpl, x, y);
        if s >= IN_PLACE {
            return Some(TemplateHit {
                rect: Rect::new(r.x + x as i32, r.y + y as i32, tw0 as i32, th0 as i32),
                score: s,
                scale: 1.0,
            });
        }
    }
    let mut best: Option<TemplateHit> = None;
    for &s in scales {
        let (tw, th) = (
            (tw0 as f32 * s).round() as u32,
            (th0 as f32 * s).round() as u32,
        );
        if tw < 4 || th < 4 || tw > area.width() || th > area.height() {
            continue;
        }
        let t = if s == 1.0 {
            tmpl.clone()
        } else {
            imageops::resize(&tmpl, tw, th, imageops::FilterType::Triangle)
        };
        let (x, y, score) = search(&area, &t);
        if best.is_none_or(|b| score > b.score) {
            best = Some(TemplateHit {
                rect: Rect::new(r.x + x as i32, r.y + y as i32, tw as i32, th as i32),
                score,
                scale: s,
            });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    fn scene(at: (u32, u32)) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(300, 200, Rgba([230, 230, 230, 255]));
        for y in 0..30 {
            for x in 0..80 {
                let v = if (x / 8 + y / 6) % 2 == 0 { 20 } else { 200 };
                img.put_pixel(at.0 + x, at.1 + y, Rgba([v, v, v, 255]));
            }
        }
        img
    }

    #[test]
    fn finds_a_moved_control_and_reports_where() {
        let tmpl = imageops::crop_imm(&scene((50, 50)), 50, 50, 80, 30).to_image();
        let hit =
            find_template(&scene((80, 70)), &tmpl, Rect::new(0, 0, 300, 200), &SCALES).unwrap();
        assert_eq!((hit.rect.x, hit.rect.y), (80, 70));
        assert!(hit.score > 0.99);
        assert_eq!(hit.scale, 1.0);
    }

    #[test]
    fn a_region_too_small_for_the_template_finds_nothing() {
        let tmpl = RgbaImage::from_pixel(80, 30, Rgba([0, 0, 0, 255]));
        assert!(find_template(&scene((0, 0)), &tmpl, Rect::new(0, 0, 40, 20), &[1.0]).is_none());
    }
}
