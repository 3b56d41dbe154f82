//! A caption read becomes a control: its framed box, a column's cell, a bare caption's area,
//! a field beside its label; marks read with it (a sign, an icon, a mnemonic) set apart.

use super::*;

mod field;
pub(super) use field::field_beside;

/// The control a matched label stands for: the field beside it for a field target, the framed
/// control around it otherwise. A role that contradicts what the pixels show is no candidate.
pub(super) fn resolve(
    scene: &mut Scene,
    ocr: &mut OcrEngine,
    l: &SeenLabel,
    role: Role,
    score: f64,
) -> Option<Candidate> {
    match role {
        // A field's label is bare text beside it. Text inside a frame is a caption or a
        // field's content — a table's header cell 电话 is not the label of the cell next to it.
        // A frame around both the label and its field is a panel holding them, not the
        // label's own cell.
        Role::Field => field_beside(scene, l.line)
            .filter(|f| l.control.as_ref().is_none_or(|c| c.rect.contains_rect(f)))
            .map(|rect| Candidate {
                rect,
                text: l.text.clone(),
                role: Role::Field,
                score,
            }),
        _ => control_of(scene, ocr, l, role, score),
    }
}

/// The control of `role` (not a field) that caption `l` is: its framed box, a list's row, a
/// flat button's plate; `None` where the pixels contradict the role or unread ink beside the
/// caption makes it another caption.
fn control_of(
    scene: &mut Scene,
    ocr: &mut OcrEngine,
    l: &SeenLabel,
    role: Role,
    score: f64,
) -> Option<Candidate> {
    let shown = caption_shown(scene, ocr, l)?;
    let seen = l.role();
    // Header cells, menu entries and labels are framed or not depending on the toolkit,
    // and a header cell looks like a field (a frame with text on the left): the pixels
    // cannot contradict these roles, the text decides.
    let loose = matches!(
        role,
        Role::ColumnHeader | Role::Menu | Role::Label | Role::Text
    );
    let (kind, factor) = if loose {
        (role, 1.0)
    } else if role == Role::Row {
        if !is_a_row(scene, ocr, l) {
            return None;
        }
        (Role::Row, 1.0)
    } else if role.accepts(seen) && (role != Role::Button || holds_caption(l)) {
        (seen, 1.0)
    } else if role == Role::Button && seen == Role::Field && centred_caption(l) {
        // A wide box guessed a field from its shape, with its text centred in it like
        // a caption: an Athena button "Don't Save" is 80×19. A field's value sits left.
        (Role::Button, 1.0)
    } else if let Some(plate) = (role == Role::Button && l.control.is_none())
        .then(|| mend_vision::flat_plate(&scene.frame.image, l.line))
        .flatten()
    {
        // A flat button (GTK 4): no frame line, its caption centred on a plate of its
        // own shade.
        return Some(Candidate {
            rect: plate,
            text: shown,
            role: Role::Button,
            score,
        });
    } else if role == Role::Button
        && l.control.is_none()
        && mend_vision::key_badge(&scene.frame.image, l.line).is_some()
    {
        // A text UI's shortcut item: its key in reverse video, the caption beside it
        // (nano's `^O Write Out`); a click on either presses it. The caption is what
        // is clicked, and what a second reader is asked to read: the key's glyphs
        // read as a word (`tel!)` for `M-U`) are no word of the caption.
        (Role::Button, 1.0)
    } else {
        ask_hover(scene, l, role, score);
        return None;
    };
    Some(Candidate {
        rect: l.rect(),
        text: shown,
        role: kind,
        score: score * factor,
    })
}

/// The caption `l` shows, with the unread ink beside it (not an icon before it): `None` where
/// that ink makes it another caption. A few rows of ink is punctuation (编辑… 's ellipsis),
/// whatever OCR would make of it ("wee" on a dark theme): no glyph of a word is that flat.
/// Otherwise the unread part is read on its own: a mnemonic keeps the meaning (登录 + (L)); a
/// word, or nothing legible, does not (删除 + 全部).
fn caption_shown(scene: &mut Scene, ocr: &mut OcrEngine, l: &SeenLabel) -> Option<String> {
    let Some(extra) = scene
        .unread_ink(l.line, l.control.as_ref().map(|c| c.rect))
        .filter(|&extra| !icon_left_of(scene, ocr, l, extra))
    else {
        return Some(l.text.clone());
    };
    let dots = scene.ink_rows(extra) * 3 <= l.line.h;
    let more = if dots {
        "…".to_string()
    } else {
        ocr.read_lines(&scene.frame.image, extra, line_ocr(l.line.h * 2))
            .ok()?
            .into_iter()
            .map(|x| x.text)
            .collect::<String>()
    };
    let full = if extra.x >= l.line.x {
        format!("{}{more}", l.text)
    } else {
        format!("{more}{}", l.text)
    };
    // A sign set apart after the caption, no letter read in it: a picture, not a
    // word of the caption (a default button's return arrow: `Accept ↵`).
    let sign_after =
        lone_sign(&more, &l.text, extra, l.line.h) && sign_apart_right(scene, l, extra);
    if !dots
        && !sign_after
        && !chinese_mnemonic(l, extra, &more)
        && (more.is_empty() || normalize(&full) != normalize(&l.text))
    {
        return None;
    }
    Some(if sign_after { l.text.clone() } else { full })
}

/// Whether caption `l` is a row of a list: its text on the bar a list draws behind its
/// selected row, or one of a column of lines (the rows above or below it, [`in_a_column`]).
/// Text with neither (a caption, a text box's line that reads the same) is no row. A
/// selection bar may be seen as a box of its own: that box is the row.
fn is_a_row(scene: &mut Scene, ocr: &mut OcrEngine, l: &SeenLabel) -> bool {
    let bar = mend_vision::selection_bar(&scene.frame.image, l.line);
    let framed = l.control.as_ref().map(|c| c.rect);
    match (bar, framed) {
        (Some(b), Some(c)) => b.iou(&c) > 0.5,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => in_a_column(scene, ocr, l),
    }
}

/// A caption sought as a `role` its pixels contradict is no candidate: text outside any frame,
/// a speck, a glyph inside another control is never a button. A click there is a wrong action
/// (issue 13: "+" answered a 3×3 box on the "." key); a refusal lets a person pick. A button's
/// caption read exactly (`score`) on no control of its own (or on a panel: a calendar's day
/// cell around its day number), outside a popup, may be a flat button: it is noted for the
/// caller to hover and see it light up.
fn ask_hover(scene: &mut Scene, l: &SeenLabel, role: Role, score: f64) {
    let bare = l.control.as_ref().is_none_or(|c| !control_sized(&c.rect));
    let in_popup = scene
        .frame
        .info
        .popups
        .iter()
        .any(|p| p.contains(l.line.center()));
    if role == Role::Button && bare && !in_popup && score >= 1.0 {
        scene.hover_asked.push(l.line);
    }
}

/// How far apart two rows' grounds may be and still be one list's: a list may tint every
/// other row (GTK 2's rules hint draws 238 on 255, Qt's alternate base 247): a row on a tinted
/// stripe stood alone between two white ones, and was no row (Sylpheed's summary:
/// LOCATOR_NOT_FOUND at first contact).
pub(super) const ROW_TINT: i32 = 20;

/// Whether the plain text line `l` is one of a column of lines, a list's rows: at least three
/// lines outside any control, `l` among them, each starting at its left edge (within 3 px), of
/// about its height (half to twice: a descender makes a box taller), on its ground (or on a
/// list's selection bar), one after another at one pitch (one to four text heights, the gaps
/// within a quarter of each other). A caption strip above a text box's line is two lines, and
/// a header above one row has a pitch of its own.
pub(super) fn in_a_column(scene: &mut Scene, ocr: &mut OcrEngine, l: &SeenLabel) -> bool {
    let Ok(labels) = scene.window_labels(ocr) else {
        return false;
    };
    let img = &scene.frame.image;
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let ground = |r: Rect| {
        r.inflate(2)
            .intersect(&bounds)
            .map(|r| mend_vision::background(img, r))
    };
    let here = ground(l.line);
    let h = l.line.h.max(6);
    let mut ys: Vec<i32> = labels
        .iter()
        .filter(|m| {
            m.control.is_none()
                && (m.line.x - l.line.x).abs() <= 3
                && m.line.h * 2 >= l.line.h
                && l.line.h * 2 >= m.line.h
                && (here
                    .zip(ground(m.line))
                    .is_some_and(|(a, b)| (a - b).abs() <= ROW_TINT)
                    || mend_vision::selection_bar(img, m.line).is_some())
        })
        .map(|m| m.line.center().y)
        .chain(std::iter::once(l.line.center().y))
        .collect();
    ys.sort_unstable();
    ys.dedup_by(|a, b| (*a - *b).abs() < h / 2);
    let Some(at) = ys
        .iter()
        .position(|&y| (y - l.line.center().y).abs() < h / 2)
    else {
        return false;
    };
    let row_gap = |g: i32| g >= h && g <= 4 * h;
    let alike = |a: i32, b: i32| (a - b).abs() * 4 <= a.max(b);
    // The run of lines at one pitch through `l`: its gap above or below, and the next gap
    // on from it alike.
    let gaps: Vec<i32> = ys.windows(2).map(|w| w[1] - w[0]).collect();
    let above = at.checked_sub(1).map(|i| gaps[i]);
    let below = gaps.get(at).copied();
    let before = at.checked_sub(2).map(|i| gaps[i]);
    let after = gaps.get(at + 1).copied();
    let run = |g: Option<i32>, next: Option<i32>| {
        g.zip(next).is_some_and(|(g, n)| row_gap(g) && alike(g, n))
    };
    run(above, below) || run(above, before) || run(below, after)
}

/// Whether the unread ink `extra` left of the caption `l` is an icon, no part of the caption:
/// ink apart from it (a clear column between), and either standing in a gutter of icons — the
/// caption starts where at least two other lines near it start (within 2 px: a menu's or a
/// list's captions set in one column, with or without an icon before each) — or set half a
/// text height apart and a quarter taller than the caption, no wider than two and a half text
/// heights (a button's icon before its caption: Breeze's floppy disk before Save). A picture
/// drawn in the text's own colour (a symbolic icon: `Eé巴` read for it on a dark menu) is not
/// told by its colour. A reading that begins inside a caption does not start at its column,
/// and the glyphs of a word before it are as tall as it and closer.
/// Whether column `x` of `img`, over the rows `ys`, stays within `within` grey levels of
/// `ground` (pixels outside the image count as ground): a clear column between glyphs.
pub(super) fn quiet_column(
    img: &image::RgbaImage,
    x: i32,
    ys: std::ops::Range<i32>,
    ground: i32,
    within: i32,
) -> bool {
    ys.into_iter().all(|y| {
        x < 0
            || y < 0
            || x >= img.width() as i32
            || y >= img.height() as i32
            || (mend_vision::luma(img, x, y) - ground).abs() <= within
    })
}

/// `labels` with, for a target caption ending in a colon (`Resolution:`), the caption part of
/// each line read as that caption followed by its value (`Resolution: 64×48`): a colon ends a
/// caption, and what follows it on the line is the value it labels. The part's box runs from
/// the line's start to the clear gap nearest where the colon's share of the line's glyphs ends.
pub(super) fn with_colon_captions(
    labels: &[SeenLabel],
    wanted: &[&str],
    img: &image::RgbaImage,
) -> Vec<SeenLabel> {
    let mut out = labels.to_vec();
    let wanted: Vec<&str> = wanted
        .iter()
        .map(|w| w.trim())
        .filter(|w| w.ends_with([':', '：']))
        .collect();
    if wanted.is_empty() {
        return out;
    }
    for l in labels {
        // A small font's colon with a pixel under it reads as a semicolon (nano's prompt
        // `File Name to Write; invoices,txt`): where the target's caption ends in a colon,
        // the first of either ends the caption read.
        let Some(cut) = l.text.find([':', '：', ';']) else {
            continue;
        };
        let colon = l.text[cut..].chars().next().map_or(1, char::len_utf8);
        let (head, rest) = l.text.split_at(cut + colon);
        if rest.trim().is_empty() || !wanted.iter().any(|t| label_match(t, head) == Some(1.0)) {
            continue;
        }
        // Share by width: an ideograph or a full-width mark is about two Latin letters wide.
        let cells = |t: &str| -> i32 {
            t.chars()
                .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
                .sum()
        };
        let (n_head, n_all) = (cells(head), cells(&l.text));
        let guess = l.line.x + l.line.w * n_head / n_all.max(1);
        // The line's middle half: a reader's box may reach past a bar the line is drawn on
        // (a reverse-video prompt one cell tall) into another ground above and below.
        let h = l.line.h.max(6);
        let mid = l.line.center().y;
        let rows = (mid - h / 4)..(mid + h / 4 + 1);
        let ground = mend_vision::background(
            img,
            Rect::new(l.line.x, rows.start, l.line.w, rows.len() as i32),
        );
        // No ink: within the ink threshold of the ground (`mend_vision::is_ink`).
        let clear = |x: i32| quiet_column(img, x, rows.clone(), ground, 80);
        let Some(end) = (0..=h)
            .flat_map(|d| [guess + d, guess - d])
            .find(|&x| x > l.line.x && x < l.line.right() && clear(x))
        else {
            continue;
        };
        out.push(SeenLabel {
            text: head.trim().to_string(),
            line: Rect::new(l.line.x, l.line.y, end - l.line.x, l.line.h),
            control: l.control.clone(),
            conf: l.conf,
        });
    }
    out
}

/// `labels` with, for a target of several words, readings on one row joined where they say
/// the target together: a reader may cut one line at word spaces (PP-OCR read sc's `Default
/// path is "invoices.sc"` as `Default path` and `is "invoices.sc"`, and a mail's monospace
/// sentence `Invoice 4710: 75.50 EUR, due 2 April 2027.` in three, 15 px apart at a 14 px
/// text height). Each next part must start within one and a half text heights of the
/// previous one's end, on the same row (their middles within half
/// a text height), the parts, joined by spaces, read exactly the target (normalized), and
/// nothing else read along that row: a bar of captions (a menu bar's `Edit` and `Search`, as
/// far apart as a terminal's words) is items, not a line cut in two.
pub(super) fn with_words_joined(mut labels: Vec<SeenLabel>, target: &str) -> Vec<SeenLabel> {
    let want = normalize(target);
    // Words, or ideographs: a terminal sets each in two cells with a gap a reader may cut at
    // (mc's `建目 录 (M)`).
    let ideographs = target.chars().filter(|c| is_ideograph(*c)).count();
    if !target.trim().contains(char::is_whitespace) && ideographs < 2 {
        return labels;
    }
    let same_row = |a: &Rect, b: &Rect| (a.center().y - b.center().y).abs() * 2 <= a.h.max(b.h);
    let mut joined = Vec::new();
    for (i, a) in labels.iter().enumerate() {
        let row: Vec<usize> = (0..labels.len())
            .filter(|&k| same_row(&labels[k].line, &a.line))
            .collect();
        let mut chain = vec![i];
        // The part that starts nearest after the last one's end.
        let next_of = |chain: &[usize]| {
            let last = &labels[*chain.last().unwrap()];
            row.iter()
                .copied()
                .filter(|k| !chain.contains(k))
                .filter(|&k| {
                    let b = &labels[k];
                    let gap = b.line.x - last.line.right();
                    let h = last.line.h.max(b.line.h);
                    gap >= -2 && gap <= h + h / 2
                })
                .min_by_key(|&k| labels[k].line.x)
        };
        let text_of = |chain: &[usize]| {
            chain
                .iter()
                .map(|&k| labels[k].text.trim())
                .collect::<Vec<_>>()
                .join(" ")
        };
        while let Some(next) = next_of(&chain) {
            chain.push(next);
            let n = normalize(&text_of(&chain));
            if n == want {
                // A part after it that changes nothing (its mnemonic `(M)`) is its own.
                while let Some(more) = next_of(&chain) {
                    let mut longer = chain.clone();
                    longer.push(more);
                    if normalize(&text_of(&longer)) != want {
                        break;
                    }
                    chain = longer;
                }
                // Nothing else along the row within three text heights: a bar of items is no
                // line cut in parts (a menu's shortcut column further on is another column).
                // Marks read on their own (a status line's `[` and `]` around its message) are
                // no items, nor a part read again inside one of the parts' boxes (`2` twice).
                let span = chain.iter().fold(a.line, |r, &k| r.union(&labels[k].line));
                let reach = span.inflate(3 * span.h);
                let item = |k: &usize| {
                    let l = &labels[*k];
                    l.text.chars().any(char::is_alphanumeric)
                        && !chain
                            .iter()
                            .any(|&c| labels[c].line.contains(l.line.center()))
                        && l.line.intersect(&reach).is_some()
                };
                if row.iter().filter(|k| item(k)).all(|k| chain.contains(k)) {
                    joined.push(SeenLabel {
                        text: text_of(&chain),
                        line: span,
                        control: None,
                        conf: chain
                            .iter()
                            .map(|&k| labels[k].conf)
                            .fold(f32::MAX, f32::min),
                    });
                }
                break;
            }
            if n.chars().count() >= want.chars().count() {
                break;
            }
        }
    }
    labels.extend(joined);
    labels
}

/// Is the unread ink `extra` right of caption `l` set apart from it by clear columns at least
/// half a text height wide? A word space is a third of one; the next word of a caption or an
/// ideograph beside another stands closer (删除 + 全部), a sign after a caption (a return
/// arrow, a submenu's triangle) further.
/// Whether what was read of a mark after a caption is no word of it: no letter or digit, or
/// one glyph no wider than two text heights read as an ideograph after a caption with none (a
/// reader trained on Chinese makes a return arrow `今` or `可`: FLTK's `OK ↵`). A letter of
/// the caption's own script is a word (`Page 2`, `Save A`).
pub(super) fn lone_sign(more: &str, caption: &str, extra: Rect, h: i32) -> bool {
    let more = more.trim();
    if !more.chars().any(char::is_alphanumeric) {
        return true;
    }
    let mut chars = more.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return false;
    };
    mend_ocr::is_ideograph(c)
        && !caption.chars().any(mend_ocr::is_ideograph)
        && extra.w <= 2 * h.max(6)
}

pub(super) fn sign_apart_right(scene: &Scene, l: &SeenLabel, extra: Rect) -> bool {
    if extra.x < l.line.right() - 2 {
        return false;
    }
    let img = &scene.frame.image;
    let ground = mend_vision::background(img, l.line.inflate(1));
    let clear = |x: i32| quiet_column(img, x, extra.y..extra.bottom(), ground, 40);
    let gap = (l.line.right()..extra.right())
        .take_while(|&x| clear(x))
        .count() as i32;
    gap < extra.right() - l.line.right() && 2 * gap >= l.line.h.max(6)
}

pub(super) fn icon_left_of(
    scene: &mut Scene,
    ocr: &mut OcrEngine,
    l: &SeenLabel,
    extra: Rect,
) -> bool {
    let h = l.line.h.max(6);
    if extra.x >= l.line.x - 2 {
        return false;
    }
    let img = &scene.frame.image;
    let ground = mend_vision::background(img, l.line.inflate(1));
    let clear = |x: i32| quiet_column(img, x, extra.y..extra.bottom(), ground, 40);
    // The widest run of clear columns between the ink and the caption (a reader's box may
    // start a pixel inside the caption's first glyph), and where the icon's ink ends.
    let (mut gap, mut run, mut icon_end) = (0, 0, extra.x);
    for x in extra.x + 1..l.line.x {
        if clear(x) {
            run += 1;
            if run > gap {
                gap = run;
                icon_end = x - run + 1;
            }
        } else {
            run = 0;
        }
    }
    if gap == 0 {
        return false;
    }
    let icon = Rect::new(extra.x, extra.y, (icon_end - extra.x).max(1), extra.h);
    if gap * 2 >= h && icon.h * 4 >= l.line.h * 5 && icon.w * 2 <= 5 * h {
        return true;
    }
    let Ok(labels) = scene.window_labels(ocr) else {
        return false;
    };
    labels
        .iter()
        .filter(|m| {
            (m.line.x - l.line.x).abs() <= 2
                && (m.line.center().y - l.line.center().y).abs() >= h
                && (m.line.center().y - l.line.center().y).abs() <= 12 * h
        })
        .count()
        >= 2
}

/// A Chinese caption's mnemonic, "(S)" with its letter underlined, often reads as noise on its
/// own ("3)" for 保存's (S) in a GTK dialog): right after a caption ending in a CJK ideograph, ink
/// no wider than two of its characters that reads as at most three glyphs with a parenthesis
/// is that mnemonic. A word after it (删除 + 全部) is wider, and reads without one.
pub(super) fn chinese_mnemonic(l: &SeenLabel, extra: Rect, more: &str) -> bool {
    let glyphs = more.chars().filter(|c| !c.is_whitespace()).count();
    extra.x >= l.line.right() - 2
        && extra.w <= 2 * l.line.h
        && l.text.trim_end().chars().last().is_some_and(is_ideograph)
        && (1..=3).contains(&glyphs)
        && more.contains(['(', ')', '（', '）'])
}

/// The caption sits in the middle of its box, across and down, and the box holds it.
pub(super) fn centred_caption(l: &SeenLabel) -> bool {
    let Some(c) = &l.control else {
        return false;
    };
    let (lc, cc) = (l.line.center(), c.rect.center());
    holds_caption(l)
        && (lc.x - cc.x).abs() <= 3.max(c.rect.w / 12)
        && (lc.y - cc.y).abs() <= 3.max(c.rect.h / 4)
}

/// A button is a framed box of a control's size that holds its caption: not a speck, not a
/// panel, and most of the caption's line inside the frame, not only its centre (a bevel read
/// as "[" may widen the line past the frame a little).
pub(super) fn holds_caption(l: &SeenLabel) -> bool {
    let Some(c) = &l.control else {
        return false;
    };
    let r = c.rect;
    let inside = r.intersect(&l.line).map_or(0, |i| i.area());
    control_sized(&r) && r.contains(l.line.center()) && inside * 10 >= l.line.area() * 6
}

/// A box of a control's size: not a speck, not a panel.
pub(super) fn control_sized(r: &Rect) -> bool {
    r.w.min(r.h) >= 12 && r.h <= 90 && r.w <= 16 * r.h
}
