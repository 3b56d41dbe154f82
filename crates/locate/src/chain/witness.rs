//! Two readers, one verdict: a place the first reader found is read by the second, a target
//! the first missed is looked for in the second's reading, and a reading that is another
//! control's caption is a refusal.

use super::*;

impl Locator {
    /// Two readers, one verdict (`MEND_OCR=both`). A place the first reader found by its
    /// reading is read by the second: where that reads another control's caption, the target
    /// is refused (`LOCATOR_AMBIGUOUS`: which of the two it is, a person decides), as is one
    /// where it reads the target's caption with a word more. A target the first reader did not
    /// find is looked for in the second's reading, and a place found so is taken only where
    /// the first's own reading there is nothing, the target or a near spelling of it. When
    /// neither finds it, the first reader's refusal stands.
    pub(super) fn second_witness(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        text: &str,
        recorded: &Recorded,
        first: Result<Located, Refusal>,
    ) -> Result<Located, Refusal> {
        let frame = scene.frame;
        let ocr_err = Refusal::from;
        let (found, reading, by) = match first {
            // A one-glyph caption read by the first reader was confirmed by its shape (the
            // glyph drawn in the machine's fonts fits its ink better than any other): a
            // stronger witness than a second reading of one glyph, which Tesseract gets
            // wrong at one scale in three (xcalc's 8 read as 3, and a 3 key elsewhere).
            Ok(l) if l.strategy == Strategy::FuzzyOcr && lone_glyph(text).is_some() => {
                return Ok(l)
            }
            // A field is answered by the caption beside it; what lies in the field's own box is
            // its value (a file name typed there), no reading of the target's caption. The
            // witness reads captions only (a field's caption is the first reader's alone).
            Ok(l) if target.role == Role::Field => return Ok(l),
            Ok(l) if l.strategy == Strategy::FuzzyOcr => {
                // A button drawn with characters (a text UI's `[< OK >]`: no frame in the
                // pixels) is read at its caption: its brackets read as letters (`KX OK >|`)
                // are no word more of it. A framed control is read whole, as ever.
                let at = drawn_caption(scene, &mut self.ocr, l.rect).unwrap_or(l.rect);
                let (ocr, cache) = self.second.as_mut().expect("checked by the caller");
                let by = ocr.reader().as_str();
                let mut other = Scene::resume(frame, std::mem::take(cache));
                let read = other.labels_in(ocr, at.inflate(2), line_ocr(at.h));
                *cache = other.into_cache();
                let reading = read
                    .map_err(ocr_err)?
                    .iter()
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                (l, reading, by)
            }
            Err(r) if r.error.code == ErrorCode::LocatorNotFound => {
                let (mut ocr, cache) = self.second.take().expect("checked by the caller");
                std::mem::swap(&mut self.ocr, &mut ocr);
                let mut other = Scene::resume(frame, cache);
                self.no_meaning = true;
                let found = self.locate_in(&mut other, target, recorded);
                self.no_meaning = false;
                std::mem::swap(&mut self.ocr, &mut ocr);
                self.second = Some((ocr, other.into_cache()));
                let l = match found {
                    // A field: its box holds its value, not the caption the second read.
                    Ok(l) if l.strategy == Strategy::FuzzyOcr && target.role == Role::Field => {
                        return Ok(l)
                    }
                    Ok(l) if l.strategy == Strategy::FuzzyOcr => l,
                    _ => return Err(r),
                };
                // The first reader's own reading of that place. A short reading its ink's
                // shape refutes is no reading there (PP-OCR read gv's bold page number 2 as
                // `3`, and two page numbers stacked as `23`): it says nothing against the
                // second's.
                let labels = scene.window_labels(&mut self.ocr).map_err(ocr_err)?;
                let img = &frame.image;
                let text_h = scene.text_height(&labels).map(|h| h as f32);
                let reading = labels
                    .iter()
                    .filter(|s| s.line.intersect(&l.rect).is_some())
                    .filter(|s| !shape_refutes(img, s, text_h))
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                if !first_reading_allows(text, &reading) {
                    return Err(Refusal::new(
                        ErrorCode::LocatorAmbiguous,
                        format!(
                            "the two readers disagree on '{text}' at {},{}: {} found it there, {} reads '{reading}'. Nothing was clicked: check the screen, then pick the control",
                            l.rect.x,
                            l.rect.y,
                            self.second.as_ref().map_or("", |s| s.0.reader().as_str()),
                            self.ocr.reader().as_str()
                        ),
                        vec![Candidate {
                            rect: l.rect,
                            text: reading,
                            role: target.role,
                            score: 0.0,
                        }],
                    ));
                }
                return Ok(l);
            }
            other => return other,
        };
        let labels = scene.window_labels(&mut self.ocr).map_err(ocr_err)?;
        match witness(text, &reading, found.rect, &labels) {
            Witness::Agrees => Ok(found),
            Witness::Conflicts { reading, other } => Err(Refusal::new(
                ErrorCode::LocatorAmbiguous,
                format!(
                    "the two readers disagree on '{text}' at {},{}: {by} reads '{reading}' there, the caption of another control ('{other}'). Nothing was clicked: check the screen, then pick the control",
                    found.rect.x, found.rect.y
                ),
                vec![Candidate {
                    rect: found.rect,
                    text: reading,
                    role: target.role,
                    score: 0.0,
                }],
            )),
        }
    }
}

/// Whether a short reading (one to three glyphs, no ideograph) is not what its ink shows:
/// the machine's fonts draw it unlike the ink, or another glyph fits clearly better.
pub(super) fn shape_refutes(img: &image::RgbaImage, l: &SeenLabel, text_h: Option<f32>) -> bool {
    let glyphs = l.text.chars().filter(|c| !c.is_whitespace()).count();
    if glyphs == 0 || glyphs > 3 || l.text.chars().any(is_ideograph) {
        return false;
    }
    let Some(ink) = ink_of(img, l.line) else {
        return false;
    };
    matches!(
        confirm_short(&l.text, &ink, text_h),
        Verdict::Unlike(_) | Verdict::Other(..)
    )
}

/// The reading of the place a reader found, by the reader that did not find it there: the
/// target only if that reading is nothing, the target, or a near spelling of it. Where the
/// first reader missed the target, its own reading of the place the second found is held to
/// this stricter rule than [`witness`]: it read the place and did not see the target there.
pub(super) fn first_reading_allows(target: &str, reading: &str) -> bool {
    let (t, r) = (normalize(target), normalize(reading));
    // Letters and digits only, a digit one reader takes for the letter of its shape folded
    // into it: 0 and O, 1 and l (a terminal's "[< OK >]" read "[< 0K >]").
    let letters = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .map(|c| match c {
                '0' => 'o',
                '1' => 'l',
                c => c,
            })
            .collect()
    };
    r.is_empty()
        || label_match(target, reading).is_some()
        // The same letters with marks about them: a frame's ends read as "(Load)", a zero
        // for an O.
        || letters(&t) == letters(&r)
        // One letter off in a word of four or more ("yiew" for "View"), no word added.
        || (t.chars().count() >= 4
            && crate::text::similarity(&t, &r) >= 0.75
            && !added_word(target, reading)
            && !added_word(reading, target))
}

/// The caption's line of a control drawn with characters at `rect` (a text button the first
/// reader made of brackets and the caption between: its box is no frame the pixels show), or
/// `None` for a framed control or none read there.
pub(super) fn drawn_caption(scene: &mut Scene, ocr: &mut OcrEngine, rect: Rect) -> Option<Rect> {
    if scene.boxes().iter().any(|b| b.rect.iou(&rect) >= 0.7) {
        return None;
    }
    let labels = scene.window_labels(ocr).ok()?;
    labels
        .iter()
        .find(|s| {
            s.control
                .as_ref()
                .is_some_and(|c| c.rect == rect && c.role == Role::Button)
                && rect.contains_rect(&s.line)
                && s.line.w < rect.w
        })
        .map(|s| s.line)
}

/// What the second reader said about a place the first read as the target.
#[derive(Debug, Clone, PartialEq)]
pub enum Witness {
    /// It reads the target's caption there too (or nothing to go on: a blank, a misreading).
    Agrees,
    /// It reads there the caption of another control on the screen.
    Conflicts { reading: String, other: String },
}

/// A reading of a place by the other reader: does it contradict the target? It does only when
/// it is another control's caption — the same text as a label read elsewhere on the screen
/// (not overlapping `at`) — and fits no part of the target's own caption: a misreading with
/// no such twin (`Eile` for `File`, an icon read as a mark) is no evidence of another control.
pub fn witness(target: &str, reading: &str, at: Rect, labels: &[SeenLabel]) -> Witness {
    if normalize(reading).is_empty() || label_match(target, reading).is_some() {
        return Witness::Agrees;
    }
    // The target's caption with a word more ("Save As…" where "Save" was read): that word
    // changes which control it is, whether or not another one is captioned so.
    if added_word(target, reading) {
        return Witness::Conflicts {
            reading: reading.to_string(),
            other: reading.to_string(),
        };
    }
    match labels.iter().find(|l| {
        l.line.intersect(&at).is_none()
            && label_match(reading, &l.text) == Some(1.0)
            && label_match(target, &l.text).is_none()
    }) {
        Some(l) => Witness::Conflicts {
            reading: reading.to_string(),
            other: l.text.clone(),
        },
        None => Witness::Agrees,
    }
}
