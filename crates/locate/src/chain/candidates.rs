//! The fuzzy rung's candidates: captions read near the recorded place, then window-wide, that
//! could be the target's, and what the window shows for a refusal to name.

use super::*;

/// Where a field's caption is read beside it: on its rows, to its left.
pub(super) fn caption_strip(field: Rect) -> Rect {
    Rect::new(
        field.x - FIELD_LABEL_REACH,
        field.y - 6,
        FIELD_LABEL_REACH,
        field.h + 12,
    )
}

/// Where to read first: around the recorded box; for a field, also the label strip to its left.
pub(super) fn search_region(rec: Rect, role: Role) -> Rect {
    let r = rec.inflate(80);
    if role == Role::Field {
        r.union(&Rect::new(rec.x - 300, rec.y - 10, 300, rec.h + 20))
    } else {
        r
    }
}

/// Turn text matches into candidates for a target of `target.role`. A framed control is
/// matched by its whole caption (every text line inside it), so 删除全部 read as two lines is
/// still 删除全部, never 删除.
pub(super) fn candidates(
    scene: &mut Scene,
    ocr: &mut OcrEngine,
    labels: &[SeenLabel],
    target: &Target,
    text: &str,
    refuted: &mut Vec<String>,
) -> Vec<Candidate> {
    let text_h = scene.text_height(labels);
    let mut found: Vec<Candidate> = labels
        .iter()
        .filter_map(|l| {
            let whole = SeenLabel {
                text: caption(labels, l),
                ..l.clone()
            };
            let score = label_match(text, &whole.text)?;
            if too_wide(l) {
                return None;
            }
            if let Some(why) = short_caption_refuted(scene, l, text, text_h) {
                refuted.push(why);
                return None;
            }
            let c = resolve(scene, ocr, &whole, target.role, score);
            // The target's own caption on a line that is a prompt's input but for a caret not
            // seen: a blinking one is off in this frame (the refusal says where to look).
            if c.is_none() && target.role == Role::Field && score >= 1.0 {
                let img = &scene.frame.image;
                if mend_vision::prompt_input(img, l.line).is_some_and(|p| !p.caret) {
                    scene.caret_awaited.get_or_insert(l.line);
                }
            }
            c
        })
        .collect();
    // The target's caption read exactly somewhere: a reading that only resembles it is
    // another caption (git gui's 已缓存的改动, "staged", one ideograph from 未缓存的改动,
    // "unstaged"), never this target, whether or not the exact one has a control of the role.
    if labels
        .iter()
        .any(|l| label_match(text, &caption(labels, l)) == Some(1.0))
    {
        found.retain(|c| label_match(text, &c.text) == Some(1.0));
    }
    // A short caption (OK, Yes) read as its look-alikes (`0K`, `QK`, an icon before it read
    // as an ideograph: `企QK`): taken where its ink has the caption's shape — looked for only
    // when no reading matched.
    if found.is_empty() {
        found = labels
            .iter()
            .filter(|l| !too_wide(l))
            .filter_map(|l| {
                let ink_at = short_caption_misread(text, &caption(labels, l), l.line, scene)?;
                // The caption's own glyphs: an icon's pieces before them and a mnemonic's
                // underline under them are no part of its shape.
                let n = text.trim().chars().count();
                let ink = ink_of(&scene.frame.image, ink_at.inflate(1))?;
                let ink = mend_vision::without_underline(&mend_vision::last_glyphs(&ink, n));
                // No height rule: the window's text height is measured in lines, and two or
                // three glyphs are judged by their shapes side by side.
                match confirm_short(text.trim(), &ink, None) {
                    Verdict::Fits(_) => {}
                    _ => return None,
                }
                // The place as read (with the icon): its ink is all accounted for.
                let at = SeenLabel {
                    text: text.trim().to_string(),
                    ..l.clone()
                };
                resolve(scene, ocr, &at, target.role, FUZZY_MIN_SHAPED)
            })
            .collect();
    }
    // A menu bar read as one line, its items set one space apart (Emacs's Lucid menu bar at a
    // larger font): the item is its word, cut from the line's ink at the line's widest gaps —
    // looked for only when no line holds it alone.
    if found.is_empty() && target.role == Role::Menu {
        found = labels
            .iter()
            .filter_map(|l| {
                let at = menu_bar_word(scene, labels, l, text)?;
                resolve(scene, ocr, &at, target.role, 1.0)
            })
            .collect();
    }
    // A caption of several words wrapped under an icon (an icon view's "Internet" over
    // "Settings", centred): its lines stacked are one caption — looked for only when no line
    // holds it whole.
    if found.is_empty() && text.split_whitespace().count() >= 2 {
        found = stacked_captions(labels)
            .into_iter()
            .filter_map(|l| {
                let score = label_match(text, &l.text)?;
                resolve(scene, ocr, &l, target.role, score)
            })
            .collect();
    }
    // A field's caption that ends in a colon is a label's (`Name:` before its input); the same
    // word read without one is another kind of caption (the column header `Name` of a file
    // list under it, GTK 2's Save dialog). Where some reading keeps the colon, those without
    // one are not the caption.
    if target.role == Role::Field && has_colon(text) && found.iter().any(|c| has_colon(&c.text)) {
        found.retain(|c| has_colon(&c.text));
    }
    found
}

/// Whether a caption holds a colon, Latin or full-width (`Name:`, `名称：`): a label's mark.
pub(super) fn has_colon(t: &str) -> bool {
    t.contains([':', '：'])
}

/// `text` as one item of a menu bar read as one line `l`: the window's topmost line of text,
/// three or more short capitalised words, `text` one or more of them whole. Its box is cut from the line's
/// ink: the line's words are parted at its widest clear gaps (as many as the words less one,
/// each wider than every gap left inside a word), and each part must be about as wide as its
/// word's letters make it. `None` when the line is no such bar or its ink does not part so.
pub(super) fn menu_bar_word(
    scene: &Scene,
    labels: &[SeenLabel],
    l: &SeenLabel,
    text: &str,
) -> Option<SeenLabel> {
    let words: Vec<&str> = l.text.split_whitespace().collect();
    let want: Vec<String> = text.split_whitespace().map(normalize).collect();
    let n = words.len();
    // A menu bar's items are names, each capitalised (a sentence at a dialog's top is not).
    let a_name =
        |w: &&str| w.chars().count() <= 12 && w.chars().next().is_some_and(|c| !c.is_lowercase());
    if n < 3 || !words.iter().all(a_name) || want.is_empty() {
        return None;
    }
    // The window's topmost text, within three of its lines' heights of the top.
    let topmost = labels.iter().all(|m| m.line.bottom() > l.line.y);
    if !topmost || l.line.y > 3 * l.line.h.max(8) {
        return None;
    }
    let k = (0..=n - want.len()).find(|&k| {
        words[k..k + want.len()]
            .iter()
            .zip(&want)
            .all(|(w, t)| normalize(w) == *t)
    })?;
    // Inked columns of the line, and the clear gaps between them.
    let img = &scene.frame.image;
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let line = l.line.intersect(&bounds)?;
    let ground = mend_vision::background(img, line.inflate(1).intersect(&bounds)?);
    let inked: Vec<bool> = (line.x..line.right())
        .map(|x| {
            (line.y..line.bottom())
                .any(|y| mend_vision::is_ink(mend_vision::luma(img, x, y), ground))
        })
        .collect();
    let mut gaps: Vec<(usize, usize)> = Vec::new(); // (start, len) of clear runs inside the ink
    let first = inked.iter().position(|&i| i)?;
    let last = inked.iter().rposition(|&i| i)?;
    let mut x = first;
    while x <= last {
        if !inked[x] {
            let start = x;
            while !inked[x] {
                x += 1;
            }
            gaps.push((start, x - start));
        } else {
            x += 1;
        }
    }
    if gaps.len() < n - 1 {
        return None;
    }
    let mut by_width = gaps.clone();
    by_width.sort_by_key(|g| std::cmp::Reverse(g.1));
    let parting = &by_width[..n - 1];
    let inside_max = by_width.get(n - 1).map_or(0, |g| g.1);
    if parting.iter().any(|g| g.1 <= inside_max) {
        return None;
    }
    let mut cuts: Vec<(usize, usize)> = parting.to_vec();
    cuts.sort();
    // The words' spans: from the ink's start to the first cut, between cuts, to the ink's end.
    let mut spans = Vec::new();
    let mut from = first;
    for &(start, len) in &cuts {
        spans.push((from, start));
        from = start + len;
    }
    spans.push((from, last + 1));
    let chars: usize = words.iter().map(|w| w.chars().count()).sum();
    let ink_w: usize = spans.iter().map(|(a, b)| b - a).sum();
    let per_char = ink_w as f64 / chars as f64;
    let fits = spans.iter().zip(&words).all(|((a, b), w)| {
        let expect = per_char * w.chars().count() as f64;
        let got = (b - a) as f64;
        got >= expect / 2.0 && got <= expect * 2.0
    });
    if !fits {
        return None;
    }
    let (a, b) = (spans[k].0, spans[k + want.len() - 1].1);
    let at = Rect::new(line.x + a as i32, line.y, (b - a) as i32, line.h);
    // The item's own box: the bar's other items beside it are no unread part of its caption.
    Some(SeenLabel {
        text: words[k..k + want.len()].join(" "),
        line: at,
        control: Some(mend_vision::ControlBox {
            rect: at,
            role: Role::Menu,
        }),
        conf: l.conf,
    })
}

/// The lines `ocr` reads in `area`, joined by spaces; `None` when nothing legible is there.
pub(super) fn joined_reading(
    ocr: &mut OcrEngine,
    frame: &Frame,
    area: Rect,
    opts: mend_ocr::OcrOptions,
) -> Option<String> {
    let lines = ocr.read_lines(&frame.image, area, opts).ok()?;
    let text = lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    (!text.trim().is_empty()).then_some(text)
}

/// For a refusal's message: the readings that hold the wanted text as whole words among
/// more (`MARKED PAID` in `INVOICE 4711 MARKED PAID`). A target is a whole reading — a word
/// more can turn its meaning (`NOT PAID`) — so it is not taken there; the writer names the
/// whole line instead.
pub(super) fn read_inside(labels: &[SeenLabel], want: &str) -> String {
    let words = |s: &str| -> Vec<String> {
        // Words as set apart by spaces, their end marks aside (`Save As...`: save, as); a
        // path or a name joined by `_` or `-` is one word, never `save` and `as`.
        s.to_lowercase()
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let w = words(want);
    if w.is_empty() {
        return String::new();
    }
    let mut lines: Vec<&str> = labels
        .iter()
        .map(|l| l.text.trim())
        .filter(|t| {
            let r = words(t);
            r.len() > w.len()
                && r.windows(w.len()).any(|win| win == w.as_slice())
                && adds_a_word(&w.concat(), &r.concat())
        })
        .collect();
    lines.dedup();
    match lines.first() {
        None => String::new(),
        Some(line) => format!(
            " '{want}' is read only inside '{line}': a target's text is a whole reading (a word more can change its meaning), so name the whole line ('{line}')."
        ),
    }
}

/// For a refusal's message: the wanted caption read as it is written, but with no control of
/// the role asked for there (a radio option's caption beside its diamond, a label that acts
/// when clicked): where it was read, and how to name such a place.
pub(super) fn read_without_role(labels: &[SeenLabel], want: &str, role: Role) -> String {
    // A field, a menu item or a row is more than its caption; only a button's caption can be
    // the place to click.
    if role != Role::Button {
        return String::new();
    }
    let Some(l) = labels
        .iter()
        .find(|l| label_match(want, &caption(labels, l)) == Some(1.0))
    else {
        return String::new();
    };
    let at = l.line;
    format!(
        " '{want}' is read at {},{} ({}x{}) but no {role:?} is there; if what you click is that caption itself (a radio option, a caption that acts when clicked), name it with role = \"any\".",
        at.x, at.y, at.w, at.h
    )
}

/// The captions a window showed, top to bottom, for a refusal's message (at most 16).
pub(super) fn shown_captions(labels: &[SeenLabel]) -> String {
    const MOST: usize = 16;
    let mut ls: Vec<&SeenLabel> = labels
        .iter()
        .filter(|l| !l.text.trim().is_empty())
        .collect();
    ls.sort_by_key(|l| (l.line.y, l.line.x));
    let mut seen: Vec<String> = Vec::new();
    for l in ls {
        let t = l.text.trim().to_string();
        if !seen.contains(&t) {
            seen.push(t);
        }
    }
    if seen.is_empty() {
        return " Nothing was read on it.".into();
    }
    let more = seen.len().saturating_sub(MOST);
    let list: Vec<String> = seen.iter().take(MOST).map(|t| format!("'{t}'")).collect();
    format!(
        " Read on it: {}{}.",
        list.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

pub(super) fn caption(labels: &[SeenLabel], l: &SeenLabel) -> String {
    let Some(c) = &l.control else {
        return l.text.clone();
    };
    let mut parts: Vec<&SeenLabel> = labels
        .iter()
        .filter(|o| c.rect.contains(o.line.center()))
        .collect();
    parts.sort_by_key(|o| o.line.x);
    // The same caption read by two passes is one word: "|window|" (the frame's sides in the
    // crop read as bars) beside "Window" is not "|window| Window".
    parts.dedup_by(|a, b| normalize(&a.text) == normalize(&b.text));
    parts
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A line box much wider than its characters explain holds text OCR did not return.
/// An area target (a canvas, a picture: `role = "area"`) at `offset` from the anchor `a`: the
/// place itself, a text height square, answered only where the pixels show it bare — inside
/// the window and on the screen, on none of the window's popups, on no control's box (a
/// control that is there is named by its role and caption instead), and no words within a
/// text height of it. Anything else there is a refusal that says what is there.
pub(super) fn bare_area(
    scene: &mut Scene,
    labels: &[SeenLabel],
    a: &SeenLabel,
    (dx, dy): (i32, i32),
    near: &str,
) -> Result<Candidate, Refusal> {
    let th = a.line.h.max(8);
    let c = a.line.center();
    let p = mend_model::Point {
        x: c.x + dx,
        y: c.y + dy,
    };
    let info = &scene.frame.info;
    let window = info
        .window_in_frame()
        .and_then(|w| w.intersect(&info.bounds()))
        .unwrap_or_else(|| info.bounds());
    let refuse = |why: String, cands: Vec<Candidate>| {
        Refusal::new(
            ErrorCode::LocatorNotFound,
            format!(
                "the anchor '{near}' was found at {},{} ('{}'), but the area at {dx:+},{dy:+} from its centre ({},{}) {why}. Check the screen; fix the flow's offset, or name what is there",
                c.x, c.y, a.text, p.x, p.y
            ),
            cands,
        )
    };
    if !window.inflate(-th).contains(p) || info.popups.iter().any(|r| r.contains(p)) {
        return Err(refuse(
            "lies outside the window's part on the screen, or on one of its popups".into(),
            vec![],
        ));
    }
    // A control's box there or within a text height: the place is (or may be) that control.
    // A box that is most of the window (a view's frame around the canvas) is no control.
    let most = window.area() / 4;
    if let Some(b) = scene
        .boxes()
        .iter()
        .filter(|b| b.rect.inflate(th).contains(p) && b.rect.area() < most)
        .min_by_key(|b| b.rect.area())
    {
        let r = b.rect;
        return Err(refuse(
            format!(
                "is on or beside a control ({}, {}×{} at {},{})",
                format!("{:?}", b.role).to_lowercase(),
                r.w,
                r.h,
                r.x,
                r.y
            ),
            vec![Candidate {
                rect: b.rect,
                text: String::new(),
                role: b.role,
                score: 0.0,
            }],
        ));
    }
    if let Some(l) = labels.iter().find(|l| l.line.inflate(th).contains(p)) {
        return Err(refuse(
            format!("holds the words '{}'", l.text),
            vec![Candidate {
                rect: l.line,
                text: l.text.clone(),
                role: Role::Label,
                score: 0.0,
            }],
        ));
    }
    // Bare ground: around the place, three text heights square, the pixels are one shade (an
    // unframed icon, a picture's detail, a line are not).
    let around = Rect::new(p.x - 3 * th / 2, p.y - 3 * th / 2, 3 * th, 3 * th);
    if !mend_vision::one_shade(&scene.frame.image, around) {
        return Err(refuse(
            "is not bare: something is drawn there (an icon, a picture, a line)".into(),
            vec![],
        ));
    }
    Ok(Candidate {
        rect: Rect::new(p.x - th / 2, p.y - th / 2, th, th),
        text: near.to_string(),
        role: Role::Area,
        score: 0.9,
    })
}

pub(super) fn too_wide(l: &SeenLabel) -> bool {
    // A glyph's ink box can be a pixel tall ('-'): measure at least a small text's height.
    let h = l.line.h.max(8) as f64;
    let expected: f64 = l
        .text
        .chars()
        .map(|c| {
            if (c as u32) >= 0x2E80 {
                1.1 * h
            } else {
                0.75 * h
            }
        })
        .sum();
    l.line.w as f64 > 1.4 * expected + h
}
