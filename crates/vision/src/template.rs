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

/// Best match of `template` inside `region` of `img` over `scales`.
pub fn find_template(
    img: &RgbaImage,
    template: &RgbaImage,
    region: Rect,
    scales: &[f32],
) -> Option<TemplateHit> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let r = region.clamp_to(&bounds)?;
    let area = to_gray(
        &imageops::crop_imm(img, r.x as u32, r.y as u32, r.w as u32, r.h as u32).to_image(),
    );
    let tmpl = to_gray(template);
    let mut best: Option<TemplateHit> = None;
    for &s in scales {
        let (tw, th) = (
            (tmpl.width() as f32 * s).round() as u32,
            (tmpl.height() as f32 * s).round() as u32,
        );
        if tw < 4 || th < 4 || tw > area.width() || th > area.height() {
            continue;
        }
        let t = if s == 1.0 {
            tmpl.clone()
        } else {
            imageops::resize(&tmpl, tw, th, imageops::FilterType::Triangle)
        };
        let scores = match_template(&area, &t, MatchTemplateMethod::CrossCorrelationNormalized);
        let ex = find_extremes(&scores);
        let score = ex.max_value;
        if best.is_none_or(|b| score > b.score) {
            best = Some(TemplateHit {
                rect: Rect::new(
                    r.x + ex.max_value_location.0 as i32,
                    r.y + ex.max_value_location.1 as i32,
                    tw as i32,
                    th as i32,
                ),
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
