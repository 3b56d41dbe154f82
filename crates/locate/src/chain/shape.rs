//! Short captions by their shape: a one- to three-glyph target found where reading fails, and a
//! short reading its ink refutes left out.

use super::*;

impl Locator {
    /// A one-glyph target (not an ideograph) among the framed controls nothing was read in
    /// (then, for a row, label or any, among the glyphs standing alone on the window):
    /// the control whose inside is that glyph's shape ([`glyph_stands_out`]: it fits at
    /// [`SHAPE_ALONE`] or better, and better than every glyph of another shape). A control with any
    /// reading is judged by its reading, never here; two that fit are a refusal.
    pub(super) fn by_shape(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        text: &str,
        labels: &[SeenLabel],
    ) -> Result<Option<Candidate>, Refusal> {
        let Some(glyph) = lone_glyph(text) else {
            return Ok(None);
        };
        let text_h = scene.text_height(labels).map(|h| h as f32);
        let unread: Vec<ControlBox> = scene
            .boxes()
            .iter()
            .filter(|b| target.role.accepts(b.role) && b.role != Role::Field)
            .filter(|b| !labels.iter().any(|l| b.rect.contains(l.line.center())))
            .cloned()
            .collect();
        let mut fits: Vec<Candidate> = Vec::new();
        for b in unread {
            let Some(ink) = ink_of(&scene.frame.image, b.rect.inflate(-3)) else {
                continue;
            };
            if let Some(score) = glyph_stands_out(glyph, &ink, text_h, SHAPE_ALONE) {
                fits.push(Candidate {
                    rect: b.rect,
                    text: text.to_string(),
                    role: b.role,
                    score: score as f64,
                });
            }
        }
        // No framed control holds it: a glyph standing alone on the window — an item of a list
        // of one-glyph items (page numbers down a column), which a whole-window read never
        // reads — where the target may be such an item (a row, a label, any). Unread only (a
        // glyph inside a reading is the reading's). Its shape must stand out as the glyph's,
        // or fit it (`2` and `Z` are one shape in a 5×9 bitmap) while the glyph read on its
        // own says the target and no other shape fits clearly better. Two are a refusal.
        let unframed = matches!(
            target.role,
            Role::Row | Role::Label | Role::Text | Role::Any
        );
        if fits.is_empty() && unframed {
            if let Some(h) = text_h {
                let img = &scene.frame.image;
                for g in mend_vision::lone_glyphs(img, h.round() as i32) {
                    if labels.iter().any(|l| l.line.intersect(&g).is_some()) {
                        continue;
                    }
                    let Some(ink) = ink_of(img, g.inflate(2)) else {
                        continue;
                    };
                    let score = match glyph_stands_out(glyph, &ink, text_h, SHAPE_ALONE) {
                        Some(s) => Some(s),
                        None => match confirm_short(&glyph.to_string(), &ink, text_h) {
                            Verdict::Fits(s) if s >= SHAPE_ALONE => {
                                let read = self
                                    .ocr
                                    .read_glyphs(
                                        img,
                                        mend_ocr::GlyphRead {
                                            ink: g,
                                            bg: mend_vision::background(img, g.inflate(2)) as u8,
                                            glyphs: 1,
                                            text_h: h.round() as i32,
                                        },
                                        |_| true,
                                    )
                                    .map_err(Refusal::from)?;
                                let said: String = read.iter().map(|w| w.text.trim()).collect();
                                (said == glyph.to_string()).then_some(s)
                            }
                            _ => None,
                        },
                    };
                    // The glyph's own box: grown, it would reach the next item's reading.
                    if let Some(score) = score {
                        fits.push(Candidate {
                            rect: g,
                            text: text.to_string(),
                            role: target.role,
                            score: score as f64,
                        });
                    }
                }
            }
        }
        match fits.len() {
            0 => Ok(None),
            1 => Ok(fits.pop()),
            _ => Err(ambiguous(text, fits)),
        }
    }
}

/// The score of a short caption found by its shape under a look-alike reading: a fuzzy match.
pub(super) const FUZZY_MIN_SHAPED: f64 = 0.8;

/// Letters OCR takes for each other in short captions (lower case): a round O read as 0, Q
/// or D; a stroke as 1, l, i, |; S as 5; B as 8; Z as 2.
pub(super) const LOOK_ALIKE_CLASSES: &[&str] = &["o0qd", "l1i|!", "s5", "b8", "z2"];

/// Where the ink of `text` (two or three letters or digits, no ideograph) is when `seen`, read
/// at `line`, is it misread: the same number of glyphs, each the same letter or one of its
/// look-alikes, at least one letter as it is — after an icon before it read as one ideograph
/// or one mark (`企QK`), whose pixels are then left out (a picture before the text, or the
/// reading's share of the line). `None` when `seen` is no such misreading.
pub(super) fn short_caption_misread(
    text: &str,
    seen: &str,
    line: Rect,
    scene: &Scene,
) -> Option<Rect> {
    let want: Vec<char> = text.trim().chars().flat_map(char::to_lowercase).collect();
    if !(2..=3).contains(&want.len()) || !want.iter().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let got: Vec<char> = seen
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    if got.len() != want.len() && got.len() != want.len() + 1 {
        return None;
    }
    // Where the text begins after a picture before it, if one is drawn there.
    let after = mend_vision::text_after_icon(&scene.frame.image, line);
    // One glyph more before it: an icon read as a mark or an ideograph, or as a letter where
    // the pixels show a picture there (a blue arrow read `G` on a dark look).
    let icon = got.len() == want.len() + 1 && (!got[0].is_ascii_alphanumeric() || after.is_some());
    let core = if icon { &got[1..] } else { &got[..] };
    if core.len() != want.len() || (!icon && core == want.as_slice()) {
        return None;
    }
    let alike = |a: char, b: char| {
        a == b
            || LOOK_ALIKE_CLASSES
                .iter()
                .any(|k| k.contains(a) && k.contains(b))
    };
    if !want.iter().zip(core).all(|(a, b)| alike(*a, *b))
        || !want.iter().zip(core).any(|(a, b)| a == b)
    {
        return None;
    }
    // A picture before the text is left out whether or not it was read (a reader may drop an
    // icon's word and keep its box).
    let x = match after {
        Some(x) => x,
        None if icon => line.x + line.w / got.len() as i32,
        None => return Some(line),
    };
    (x > line.x && x < line.right()).then(|| Rect::new(x, line.y, line.right() - x, line.h))
}

/// Free text lines stacked into one caption: each line just below the one before (a gap under
/// a line's height), centred on it, of the same text height, no framed control around; two or
/// three lines, as an icon view wraps a caption under its icon.
pub(super) fn stacked_captions(labels: &[SeenLabel]) -> Vec<SeenLabel> {
    let free: Vec<&SeenLabel> = labels.iter().filter(|l| l.control.is_none()).collect();
    let below = |a: &SeenLabel| -> Option<&SeenLabel> {
        let h = a.line.h.max(6);
        let mut under = free.iter().filter(|b| {
            let gap = b.line.y - a.line.bottom();
            let (ha, hb) = (a.line.h as f64, b.line.h as f64);
            (-1..=h * 4 / 5).contains(&gap)
                && ha.max(hb) <= 1.5 * ha.min(hb)
                && (a.line.center().x - b.line.center().x).abs()
                    <= (a.line.w.max(b.line.w) / 5).max(4)
        });
        let b = under.next()?;
        // Two lines under it that could both continue it: no caption is read across them.
        under.next().is_none().then_some(*b)
    };
    let mut out = vec![];
    for a in &free {
        let mut parts = vec![*a];
        while parts.len() < 3 {
            let Some(b) = below(parts[parts.len() - 1]) else {
                break;
            };
            parts.push(b);
            out.push(SeenLabel {
                text: parts
                    .iter()
                    .map(|p| p.text.trim())
                    .collect::<Vec<_>>()
                    .join(" "),
                line: parts[1..]
                    .iter()
                    .fold(parts[0].line, |r, p| r.union(&p.line)),
                control: None,
                conf: parts.iter().map(|p| p.conf).fold(f32::MAX, f32::min),
            });
        }
    }
    out
}

/// A one-glyph caption is where a reading names a look-alike (a column header's I read as 1):
/// a line read as the target's glyph is taken only if its ink has that shape
/// ([`confirm_short`]); a line read as the glyph with more beside it ("i]") only if the glyph
/// read as it has. `Some(why)` when the ink shows something else.
pub(super) fn short_caption_refuted(
    scene: &Scene,
    l: &SeenLabel,
    text: &str,
    text_h: Option<i32>,
) -> Option<String> {
    // One glyph only: at two and three glyphs (Yes, OK) the ink cut at its empty columns
    // often is not one piece per glyph (a focus ring's dots beside them, glyphs that touch),
    // and the suite lost real captions to it; those stay with the reading and its rules.
    let glyph = lone_glyph(text)?;
    let want = glyph.to_string();
    let seen: String = l.text.chars().filter(|c| !c.is_whitespace()).collect();
    let at = (l.line.x, l.line.y);
    // No ink that stands out from its ground (a faint icon read as a letter): nothing shows
    // the glyph.
    let Some(ink) = ink_of(&scene.frame.image, l.line.inflate(1)) else {
        return Some(format!(
            "'{}' read at {at:?} has no ink that stands out to confirm it",
            l.text
        ));
    };
    let text_h = text_h.map(|h| h as f32);
    // One glyph read with more beside it ("i]" for I: an icon's edge, a bracket): the glyph
    // read as it must be it.
    let verdict = if seen != want {
        let glyphs: Vec<char> = seen.chars().collect();
        let same = |g: &char| label_match(&want, &g.to_string()) == Some(1.0);
        match glyphs.iter().position(same) {
            Some(i) => mend_vision::confirm_glyph_at(glyph, &ink, i, glyphs.len(), text_h),
            // Matched only as a whole ("i]" normalised to "i"): no glyph of it is the
            // target's, and a one-glyph caption is its glyph.
            None => {
                return Some(format!(
                    "'{}' read at {at:?} holds no glyph that is '{want}'",
                    l.text
                ))
            }
        }
    } else {
        confirm_short(&want, &ink, text_h)
    };
    match verdict {
        Verdict::Fits(_) | Verdict::NoFonts => None,
        Verdict::Other(g, other, own) => Some(format!(
            "'{}' read at {at:?} is drawn as '{g}' (shape {other:.2}, as '{want}' {own:.2})",
            l.text
        )),
        Verdict::Unlike(own) => Some(format!(
            "'{}' read at {at:?} is not drawn as '{want}' in any font here (shape {own:.2})",
            l.text
        )),
    }
}

/// The one glyph a target's text is, white space aside, when it is one and no ideograph: the
/// targets the shape rules judge.
pub(super) fn lone_glyph(text: &str) -> Option<char> {
    let mut glyphs = text.chars().filter(|c| !c.is_whitespace());
    match (glyphs.next(), glyphs.next()) {
        (Some(c), None) if !is_ideograph(c) => Some(c),
        _ => None,
    }
}
