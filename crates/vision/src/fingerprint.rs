//! Perceptual hashes through `image_hasher` (the maintained fork of `img_hash` on `image` 0.25;
//! `img_hash` itself pulls `image` 0.23 and would copy every frame between two image types).
//! STACK-NOTES measured 7–9 ms per 8×8 hash of a full screen, dominated by the downscale, so we
//! shrink the image ourselves first with a cheap filter and hash the small copy.

use image::{imageops, DynamicImage, RgbaImage};
use image_hasher::{HashAlg, Hasher, HasherConfig, ImageHash};
use mend_model::Rect;
use serde::{Deserialize, Serialize};

/// A 64-bit gradient hash (dHash) of an image, comparable by Hamming distance.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fingerprint(pub String);

impl Fingerprint {
    /// Hamming distance in bits; `u32::MAX` if either side does not decode.
    pub fn distance(&self, other: &Fingerprint) -> u32 {
        match (
            ImageHash::<Box<[u8]>>::from_base64(&self.0),
            ImageHash::<Box<[u8]>>::from_base64(&other.0),
        ) {
            (Ok(a), Ok(b)) => a.dist(&b),
            _ => u32::MAX,
        }
    }
}

pub struct Fingerprinter {
    hasher: Hasher,
}

impl Default for Fingerprinter {
    fn default() -> Self {
        Self::new()
    }
}

/// Longest side of the copy we hash. 128 px keeps a 10×10 button visible as a few pixels.
const PRESHRINK: u32 = 128;

impl Fingerprinter {
    pub fn new() -> Self {
        Fingerprinter {
            hasher: HasherConfig::new()
                .hash_alg(HashAlg::Gradient)
                .hash_size(8, 8)
                .to_hasher(),
        }
    }

    pub fn hash(&self, img: &RgbaImage) -> Fingerprint {
        let (w, h) = img.dimensions();
        let f = (PRESHRINK as f64 / w.max(h).max(1) as f64).min(1.0);
        let small = if f < 1.0 {
            imageops::thumbnail(
                img,
                ((w as f64 * f).round() as u32).max(9),
                ((h as f64 * f).round() as u32).max(8),
            )
        } else {
            img.clone()
        };
        let h = self.hasher.hash_image(&DynamicImage::ImageRgba8(small));
        Fingerprint(h.to_base64())
    }

    /// Hash of one region (clamped to the image); `None` when the region is off the image.
    pub fn hash_region(&self, img: &RgbaImage, r: Rect) -> Option<Fingerprint> {
        Some(self.hash(&crate::crop(img, r)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    fn screen(button_x: u32) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(800, 560, Rgba([236, 236, 236, 255]));
        for y in 200..240 {
            for x in button_x..button_x + 120 {
                img.put_pixel(x, y, Rgba([40, 40, 40, 255]));
            }
        }
        img
    }

    #[test]
    fn same_screen_same_hash_and_a_moved_button_changes_it() {
        let f = Fingerprinter::new();
        let a = f.hash(&screen(100));
        assert_eq!(a.distance(&f.hash(&screen(100))), 0);
        assert!(a.distance(&f.hash(&screen(500))) > 4);
    }

    #[test]
    fn region_outside_the_image_has_no_hash() {
        let f = Fingerprinter::new();
        assert!(f
            .hash_region(&screen(100), Rect::new(900, 900, 10, 10))
            .is_none());
        assert!(f
            .hash_region(&screen(100), Rect::new(90, 190, 140, 60))
            .is_some());
    }
}
