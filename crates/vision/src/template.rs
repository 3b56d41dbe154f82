//! Template matching: find a recorded crop of a control again, at several scales so a font or
//! DPI change (125 %, 150 %) still matches. Normalised cross-correlation from `imageproc`,
//! searched only in a window around where the control was (the whole frame only on request):
//! the cost grows with area × template size.

use image::{imageops, DynamicImage, GrayImage, RgbaImage};
use imageproc::template_matching::{find_extremes, match_template, MatchTemplateMethod};
use mend_model::Rect;
use rustfft::{num_complex::Complex, FftPlanner};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TemplateHit {
    pub rect: Rect,
    /// Normalised cross-correlation, 0..=1 (1 = identical up to brightness scale).
    pub score: f32,
    pub scale: f32,
    /// Pearson's r of the template and the place (zero-mean NCC): whether the place shares
    /// the template's shape, not only its shade. The `score` of a mostly flat template (a
    /// button's face) is high on any flat patch of a similar tone; this is about 0 there.
    pub shape: f32,
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

/// How many pixels of two same-sized images differ by more than `by` in some channel (0 when
/// the sizes differ): what changed, as counted by a look that ignores anti-aliasing.
pub fn pixels_changed(a: &RgbaImage, b: &RgbaImage, by: u8) -> usize {
    if a.dimensions() != b.dimensions() {
        return 0;
    }
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0.iter()).any(|(x, y)| x.abs_diff(*y) > by))
        .count()
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
                shape: zncc_at(&area, &tmpl, x, y),
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
                shape: zncc_at(&area, &t, x, y),
            });
        }
    }
    best
}

/// Zero-mean normalised cross-correlation (Pearson's r) of `t` placed at (x, y) in `area`:
/// 1 for the same pattern at any brightness and contrast, about 0 for a flat patch (where plain
/// NCC says ~1), so a match must share the template's shape, not just its shade. The map
/// below scores every placement at once; this single placement is its check.
fn zncc_at(area: &GrayImage, t: &GrayImage, x: u32, y: u32) -> f32 {
    let n = (t.width() * t.height()) as f64;
    let (mut sa, mut st, mut saa, mut stt, mut sat) = (0f64, 0f64, 0f64, 0f64, 0f64);
    for ty in 0..t.height() {
        for tx in 0..t.width() {
            let a = area.get_pixel(x + tx, y + ty).0[0] as f64;
            let b = t.get_pixel(tx, ty).0[0] as f64;
            sa += a;
            st += b;
            saa += a * a;
            stt += b * b;
            sat += a * b;
        }
    }
    let va = saa - sa * sa / n;
    let vt = stt - st * st / n;
    if va <= 1e-6 || vt <= 1e-6 {
        return 0.0;
    }
    ((sat - sa * st / n) / (va * vt).sqrt()) as f32
}

/// A size ≥ `n` whose only prime factors are 2, 3 and 5 (fast FFT lengths).
fn smooth(n: usize) -> usize {
    (n..)
        .find(|&m| {
            let mut m = m;
            for p in [2, 3, 5] {
                while m % p == 0 {
                    m /= p;
                }
            }
            m == 1
        })
        .unwrap_or(n)
}

/// A grey image's 2-D spectrum on a `w × h` grid (zero-padded), rows then columns; the layout
/// is column-major after the second pass, the same for every spectrum of that size.
struct Spectrum {
    w: usize,
    h: usize,
    data: Vec<Complex<f64>>,
}

fn fft2(planner: &mut FftPlanner<f64>, img: &GrayImage, w: usize, h: usize) -> Spectrum {
    let mut rows = vec![Complex::new(0.0, 0.0); w * h];
    for (x, y, p) in img.enumerate_pixels() {
        rows[y as usize * w + x as usize] = Complex::new(p.0[0] as f64, 0.0);
    }
    planner.plan_fft_forward(w).process(&mut rows);
    let mut cols = vec![Complex::new(0.0, 0.0); w * h];
    for y in 0..h {
        for x in 0..w {
            cols[x * h + y] = rows[y * w + x];
        }
    }
    planner.plan_fft_forward(h).process(&mut cols);
    Spectrum { w, h, data: cols }
}

/// Σ area·t at every placement (x, y) with the template inside the area, from the two
/// spectra: the inverse transform of A·conj(T). Circular, but a valid placement never wraps.
fn cross(planner: &mut FftPlanner<f64>, a: &Spectrum, t: &Spectrum) -> Vec<f64> {
    let (w, h) = (a.w, a.h);
    let mut cols: Vec<Complex<f64>> = a
        .data
        .iter()
        .zip(&t.data)
        .map(|(p, q)| p * q.conj())
        .collect();
    planner.plan_fft_inverse(h).process(&mut cols);
    let mut rows = vec![Complex::new(0.0, 0.0); w * h];
    for x in 0..w {
        for y in 0..h {
            rows[y * w + x] = cols[x * h + y];
        }
    }
    planner.plan_fft_inverse(w).process(&mut rows);
    let n = (w * h) as f64;
    rows.iter().map(|c| c.re / n).collect()
}

/// Pearson's r of `t` at every placement in `area` (row-major, `(aw - tw + 1) × (ah - th + 1)`):
/// the cross term by FFT (`area_spec` is `area`'s spectrum), the window sums from summed-area
/// tables. The cost does not grow with the template's size.
fn zncc_map(
    planner: &mut FftPlanner<f64>,
    area: &GrayImage,
    area_spec: &Spectrum,
    t: &GrayImage,
) -> (u32, u32, Vec<f32>) {
    let (aw, ah, tw, th) = (area.width(), area.height(), t.width(), t.height());
    let (mw, mh) = (aw - tw + 1, ah - th + 1);
    let t_spec = fft2(planner, t, area_spec.w, area_spec.h);
    let cross = cross(planner, area_spec, &t_spec);
    let cw = area_spec.w;
    // Summed-area tables of the area and its squares, one row and column of zeros first.
    let w1 = (aw + 1) as usize;
    let mut s1 = vec![0f64; w1 * (ah as usize + 1)];
    let mut s2 = s1.clone();
    for y in 0..ah as usize {
        for x in 0..aw as usize {
            let v = area.get_pixel(x as u32, y as u32).0[0] as f64;
            let i = (y + 1) * w1 + x + 1;
            s1[i] = v + s1[i - 1] + s1[i - w1] - s1[i - w1 - 1];
            s2[i] = v * v + s2[i - 1] + s2[i - w1] - s2[i - w1 - 1];
        }
    }
    let n = (tw * th) as f64;
    let (st, stt) = t.pixels().fold((0f64, 0f64), |(a, b), p| {
        let v = p.0[0] as f64;
        (a + v, b + v * v)
    });
    let vt = stt - st * st / n;
    let (tw, th) = (tw as usize, th as usize);
    let mut out = vec![0f32; (mw * mh) as usize];
    for y in 0..mh as usize {
        for x in 0..mw as usize {
            let sum = |s: &[f64]| {
                s[(y + th) * w1 + x + tw] - s[y * w1 + x + tw] - s[(y + th) * w1 + x]
                    + s[y * w1 + x]
            };
            let (sa, saa) = (sum(&s1), sum(&s2));
            let va = saa - sa * sa / n;
            // Flat (or nearly flat) patches and templates say nothing about shape.
            if va > n && vt > n {
                let sat = cross[y * cw + x];
                out[y * mw as usize + x] = ((sat - sa * st / n) / (va * vt).sqrt()) as f32;
            }
        }
    }
    (mw, mh, out)
}

/// Every distinct place `template` matches in `region` of `img` over `scales`, best first,
/// scored by Pearson's r (zero-mean NCC): the best, then each next place that does not overlap a
/// better one — so a look-alike elsewhere shows up as a second hit with its own score. At most
/// `max` places, none below `floor`. Every placement is scored exactly, at full size (the
/// cross term by FFT, so a wide menu item costs what a key costs).
pub fn template_places(
    img: &RgbaImage,
    template: &RgbaImage,
    region: Rect,
    scales: &[f32],
    floor: f32,
    max: usize,
) -> Vec<TemplateHit> {
    let Some(r) = region.clamp_to(&Rect::new(0, 0, img.width() as i32, img.height() as i32)) else {
        return vec![];
    };
    let Some(area) = crop(img, r).map(|c| to_gray(&c)) else {
        return vec![];
    };
    let tmpl = to_gray(template);
    let mut planner = FftPlanner::new();
    let (w, h) = (
        smooth(area.width() as usize),
        smooth(area.height() as usize),
    );
    let area_spec = fft2(&mut planner, &area, w, h);
    let mut hits: Vec<TemplateHit> = Vec::new();
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
        let (mw, mh, mut map) = zncc_map(&mut planner, &area, &area_spec, &t);
        // Peaks, greedily: take the best, blank out a template-sized neighbourhood, repeat.
        for _ in 0..max + 2 {
            let Some((i, &v)) = map.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) else {
                break;
            };
            if v < floor {
                break;
            }
            let (px, py) = (i as u32 % mw, i as u32 / mw);
            let (rw, rh) = (tw / 2 + 1, th / 2 + 1);
            for y in py.saturating_sub(rh)..(py + rh + 1).min(mh) {
                for x in px.saturating_sub(rw)..(px + rw + 1).min(mw) {
                    map[(y * mw + x) as usize] = f32::MIN;
                }
            }
            hits.push(TemplateHit {
                rect: Rect::new(r.x + px as i32, r.y + py as i32, tw as i32, th as i32),
                score: v,
                scale: s,
                shape: v,
            });
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut out: Vec<TemplateHit> = Vec::new();
    for h in hits {
        if out.iter().all(|o| o.rect.iou(&h.rect) < 0.3) {
            out.push(h);
        }
        if out.len() == max {
            break;
        }
    }
    out
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

    #[test]
    fn places_rank_the_pattern_first_and_its_look_alike_second_and_ignore_flat_patches() {
        let mut img = scene((30, 20));
        // The same pattern again at (180, 120): a look-alike with its own, equal, score.
        for y in 0..30 {
            for x in 0..80 {
                let p = *img.get_pixel(30 + x, 20 + y);
                img.put_pixel(180 + x, 120 + y, p);
            }
        }
        let tmpl = imageops::crop_imm(&img, 30, 20, 80, 30).to_image();
        let hits = template_places(&img, &tmpl, Rect::new(0, 0, 300, 200), &SCALES, 0.5, 3);
        assert_eq!(hits.len(), 2, "{hits:?}");
        let at: Vec<(i32, i32)> = hits.iter().map(|h| (h.rect.x, h.rect.y)).collect();
        assert!(at.contains(&(30, 20)) && at.contains(&(180, 120)), "{at:?}");
        assert!(hits.iter().all(|h| h.score > 0.99));
        // A flat template matches nothing (plain NCC would score a flat patch ~1).
        let flat = RgbaImage::from_pixel(40, 20, Rgba([230, 230, 230, 255]));
        assert!(
            template_places(&img, &flat, Rect::new(0, 0, 300, 200), &SCALES, 0.5, 3).is_empty()
        );
    }

    #[test]
    fn the_map_and_the_single_placement_agree() {
        let img = to_gray(&scene((40, 30)));
        let t = imageops::crop_imm(&img, 35, 25, 30, 20).to_image();
        let mut planner = FftPlanner::new();
        let spec = fft2(
            &mut planner,
            &img,
            smooth(img.width() as usize),
            smooth(img.height() as usize),
        );
        let (mw, _, map) = zncc_map(&mut planner, &img, &spec, &t);
        for (x, y) in [(35u32, 25u32), (0, 0), (100, 90), (37, 26)] {
            let a = map[(y * mw + x) as usize];
            let b = zncc_at(&img, &t, x, y);
            assert!((a - b).abs() < 1e-3, "({x},{y}): {a} vs {b}");
        }
    }
}
