use image::{imageops, GrayImage, RgbaImage};
use mend_model::Rect;

/// Mean luminance below this reads as a dark theme (light text on dark).
const DARK_MEAN: f64 = 110.0;

pub fn is_dark(gray: &GrayImage) -> bool {
    let n = (gray.width() as u64 * gray.height() as u64).max(1);
    let sum: u64 = gray.pixels().map(|p| p.0[0] as u64).sum();
    (sum as f64 / n as f64) < DARK_MEAN
}

/// Crop `region` (clamped to the image), grey it, invert a dark theme and upscale by `scale`.
/// Returns the prepared image and the clamped region, so boxes can be mapped back.
pub fn prepare(img: &RgbaImage, region: Rect, scale: u32) -> Option<(GrayImage, Rect)> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let r = region.clamp_to(&bounds)?;
    let crop = imageops::crop_imm(img, r.x as u32, r.y as u32, r.w as u32, r.h as u32).to_image();
    let mut gray = image::DynamicImage::ImageRgba8(crop).to_luma8();
    if is_dark(&gray) {
        imageops::invert(&mut gray);
    }
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
