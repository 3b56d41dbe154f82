//! A target known by its recorded crop alone: found by the crop's correlation over the window
//! at four scales, only where no other place is a look-alike.

use super::*;

/// Pearson's r from which a place counts as showing the recorded crop at its own size. High:
/// a glyph in another font correlates with a different glyph (a "+" crop with "÷" at 0.88 at
/// the same size after a font change), and a click there is a wrong action.
pub(super) const PIXELS_MIN: f32 = 0.93;

/// The same for a crop matched at another scale (a DPI change): resampling both sides costs
/// correlation (a key at 150 % scores 0.88), so a little less is asked.
pub(super) const PIXELS_MIN_SCALED: f32 = 0.85;

pub(super) fn pixels_min(scale: f32) -> f32 {
    if scale == 1.0 {
        PIXELS_MIN
    } else {
        PIXELS_MIN_SCALED
    }
}

/// Is `second` a look-alike of `best`? The pixels tell two places apart only when the second
/// is clearly further from a perfect match than the best: its shortfall (1 − r) at least twice
/// the best's, plus 0.02. Identical pixels (r ≈ 1) stand out from a place at 0.97; a scaled
/// match at 0.85 does not from one at 0.75.
pub(super) fn look_alike(best: f32, second: f32) -> bool {
    1.0 - second < 2.0 * (1.0 - best) + 0.02
}

/// A target known only by its recorded crop: the one place in the window that shows it, at
/// any of the scales (a DPI or font change), clearly above every other place. Two look-alikes
/// are `LOCATOR_AMBIGUOUS`, a weak best match `LOCATOR_NOT_FOUND`: never a guess.
pub(super) fn by_pixels(
    scene: &mut Scene,
    target: &Target,
    tmpl: &RgbaImage,
) -> Result<Located, Refusal> {
    let frame = scene.frame;
    let whole = Rect::new(
        0,
        0,
        frame.image.width() as i32,
        frame.image.height() as i32,
    );
    let floor = 0.5;
    // The crop's inside, its frame left out: a control's frame is most of its pixels and
    // changes with hover and focus (a key drawn with a thick border while the pointer is on
    // it matched another hovered key better than itself), while what tells two controls apart
    // — a glyph, an icon — is inside.
    let inset = (tmpl.width().min(tmpl.height()) / 8).max(2);
    let inner = if tmpl.width() > 4 * inset + 4 && tmpl.height() > 4 * inset + 4 {
        image::imageops::crop_imm(
            tmpl,
            inset,
            inset,
            tmpl.width() - 2 * inset,
            tmpl.height() - 2 * inset,
        )
        .to_image()
    } else {
        tmpl.clone()
    };
    // A crop of one colour (an empty field's inside, a blank panel) looks like every empty
    // area of its colour: no place can be told from the others by it.
    let luma = image::DynamicImage::ImageRgba8(inner.clone()).to_luma8();
    let (lo, hi) = luma
        .pixels()
        .fold((255u8, 0u8), |(lo, hi), p| (lo.min(p.0[0]), hi.max(p.0[0])));
    if hi.saturating_sub(lo) <= FLAT_CROP {
        return Err(Refusal::new(
            ErrorCode::LocatorAmbiguous,
            "the recorded crop is blank (one colour inside its frame): every empty area of that colour looks like it. Give the target a text or a near label, or pick the control",
            vec![],
        ));
    }
    let grown = inner.width() < tmpl.width();
    let mut places = template_places(&frame.image, &inner, whole, &SCALES, floor, 3);
    if grown {
        for p in &mut places {
            let d = (inset as f32 * p.scale).round() as i32;
            p.rect = p.rect.inflate(d);
        }
    }
    let cand = |h: &mend_vision::TemplateHit| Candidate {
        rect: h.rect,
        text: String::new(),
        role: target.role,
        score: h.score as f64,
    };
    let candidates: Vec<Candidate> = places.iter().map(cand).collect();
    let Some(best) = places.first().filter(|b| b.score >= pixels_min(b.scale)) else {
        return Err(Refusal::new(
            ErrorCode::LocatorNotFound,
            format!(
                "no place in the window shows the recorded crop clearly (best match {:.2}, needs {:.2}); the control may be gone or redrawn. Pick it, or record the flow again",
                places.first().map_or(0.0, |b| b.score),
                places.first().map_or(PIXELS_MIN, |b| pixels_min(b.scale))
            ),
            candidates,
        ));
    };
    if let Some(second) = places.get(1).filter(|o| look_alike(best.score, o.score)) {
        return Err(Refusal::new(
            ErrorCode::LocatorAmbiguous,
            format!(
                "{} places show the recorded crop alike ({:.2} and {:.2}): the pixels cannot tell them apart. Pick one, or give the target a `text` or a `near` label",
                places.iter().filter(|o| look_alike(best.score, o.score)).count(),
                best.score,
                second.score
            ),
            candidates,
        ));
    }
    // Snap to the framed control the pixels lie in (the same control drawn larger keeps its
    // inside's pixels: the box is the whole control, its centre the click).
    let rect = scene
        .boxes()
        .iter()
        .filter(|b| b.rect.contains(best.rect.center()) && b.rect.area() <= 4 * best.rect.area())
        .min_by_key(|b| b.rect.area())
        .map(|b| b.rect)
        .filter(|b| b.iou(&best.rect) >= 0.7 || b.union(&best.rect) == *b)
        .unwrap_or(best.rect);
    Ok(Located {
        strategy: Strategy::Exact,
        rect,
        screen_box: frame.info.to_screen(&rect),
        confidence: best.score as f64,
        text: String::new(),
        frame_id: frame.info.id,
    })
}
