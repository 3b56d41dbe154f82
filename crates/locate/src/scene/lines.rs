//! What a reading's line holds and what it does not: a line cut where it runs into a framed
//! control or past a key badge, and the marks read as characters beside a caption — a sign
//! after it, an icon before it, a menu's gutter — left out.

use super::*;

/// A line that runs from outside a framed control into it is two texts read as one: a label
/// and the field's content beside it ("姓名 Kind|" for 姓名 and a field holding "Kind"). Cut it
/// at the control's edge, by its words, so the label keeps its whole caption.
pub(super) fn split_at_boxes(lines: Vec<Line>, boxes: &[ControlBox]) -> Vec<Line> {
    let mut out = Vec::new();
    for l in lines {
        let edge = boxes.iter().map(|b| b.rect).find(|b| {
            let top = b.y.max(l.rect.y);
            let bottom = b.bottom().min(l.rect.bottom());
            b.x > l.rect.x + 2 && b.x < l.rect.right() - 2 && 2 * (bottom - top) >= l.rect.h
        });
        let Some(b) = edge else {
            out.push(l);
            continue;
        };
        let (left, right): (Vec<_>, Vec<_>) = l
            .words
            .iter()
            .cloned()
            .partition(|w| w.rect.center().x < b.x);
        if left.is_empty() || right.is_empty() {
            out.push(l);
            continue;
        }
        // Each side was one line already; a wide gap factor keeps it one.
        out.extend(join_lines(&left, 100.0));
        out.extend(split_at_boxes(join_lines(&right, 100.0), boxes));
    }
    out
}

/// A key drawn in reverse video a cell before its caption (a text UI's shortcut rows: nano's
/// `^O Write Out`, read by PP-OCR as one line `ro Write_Out`) is a text of its own, whatever
/// the reading made of its glyphs: a line is cut before a word of at most four characters
/// that lies on the key badge ([`mend_vision::key_badge`]) of the word after it.
pub(super) fn apart_from_keys(lines: Vec<Line>, img: &RgbaImage) -> Vec<Line> {
    let mut out = Vec::new();
    for l in lines {
        let keys: Vec<usize> = (1..l.words.len())
            .filter(|&i| {
                let key = &l.words[i - 1];
                key.text.chars().filter(|c| !c.is_whitespace()).count() <= 4
                    && mend_vision::key_badge(img, l.words[i].rect).is_some_and(|b| {
                        let badge = Rect::new(b.x, b.y, l.words[i].rect.x - b.x, b.h);
                        badge.contains(key.rect.center()) || key.rect.contains(badge.center())
                    })
            })
            .collect();
        if keys.is_empty() {
            out.push(l);
            continue;
        }
        // Each key and what follows it up to the next key: the key alone, its caption alone.
        let mut start = 0;
        for i in keys {
            if start < i - 1 {
                out.extend(join_lines(&l.words[start..i - 1], 100.0));
            }
            out.extend(join_lines(&l.words[i - 1..i], 100.0));
            start = i;
        }
        out.extend(join_lines(&l.words[start..], 100.0));
    }
    out
}

/// A sign drawn after a caption, set apart from it (a default button's return arrow: FLTK's
/// `OK ↵`), read as one ideograph by a reader trained on Chinese (`OK 今`), is no word of a
/// caption in Latin letters: the last word of a line, one ideograph, half a text height or
/// more after the words before it, which hold letters and no ideograph, is left out of the
/// line. Its ink stays beside the caption, judged as a sign or a word where the caption is
/// taken for a control (`chain.rs` `lone_sign`).
pub(super) fn without_signs_after(lines: Vec<Line>) -> Vec<Line> {
    let mut out = Vec::new();
    for l in lines {
        let n = l.words.len();
        let sign = n >= 2 && {
            let (last, before) = (&l.words[n - 1], &l.words[n - 2]);
            let mut chars = last.text.trim().chars();
            let one_ideograph = matches!(
                (chars.next(), chars.next()),
                (Some(c), None) if mend_ocr::is_ideograph(c)
            );
            let latin = l.words[..n - 1]
                .iter()
                .flat_map(|w| w.text.chars())
                .any(|c| c.is_ascii_alphabetic())
                && !l.words[..n - 1]
                    .iter()
                    .flat_map(|w| w.text.chars())
                    .any(mend_ocr::is_ideograph);
            one_ideograph && latin && 2 * (last.rect.x - before.rect.right()) >= l.rect.h.max(6)
        };
        if sign {
            out.extend(join_lines(&l.words[..n - 1], 100.0));
        } else {
            out.push(l);
        }
    }
    out
}

/// An icon beside a caption (a menu item's picture, a toolbar glyph) read as a short word of
/// junk ("PY Replace in Selection") is no part of the caption: a first or last word of at
/// most three characters (not CJK) standing half again as tall as the line's other words is
/// dropped. So is a first word of at most four characters drawn as a picture, set apart from
/// the next word (a run of colour in a grey outline, [`mend_vision::text_after_icon`], that
/// ends where the next word begins): Qt's floppy disk before a dialog's Save read "Ld", a
/// toolkit's icon read as an ideograph — whatever the reading made of it, it is no caption.
pub(super) fn without_icons(lines: Vec<Line>, img: &RgbaImage) -> Vec<Line> {
    let mut out = Vec::new();
    for l in lines {
        let n = l.words.len();
        if n < 2 {
            out.push(l);
            continue;
        }
        let pictured = || {
            let (w0, w1) = (&l.words[0], &l.words[1]);
            let short = w0.text.chars().filter(|c| !c.is_whitespace()).count() <= 4;
            let top = l.rect.y.min(w0.rect.y);
            let bottom = l.rect.bottom().max(w0.rect.bottom());
            let strip = Rect::new(
                w0.rect.x - 2,
                top,
                w1.rect.right() - w0.rect.x + 2,
                bottom - top,
            );
            short
                && mend_vision::text_after_icon(img, strip)
                    .is_some_and(|x| (x - w1.rect.x).abs() <= 3)
        };
        let icon = |i: usize| {
            let w = &l.words[i];
            let others = l
                .words
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, o)| o.rect.h)
                .max()
                .unwrap_or(0);
            // CJK is never taken for an icon: chi_sim's boxes of one or two characters vary
            // in height (编号 came back twice as tall as 客户).
            w.text.chars().filter(|c| !c.is_whitespace()).count() <= 3
                && w.text.chars().all(|c| (c as u32) < 0x2E80)
                && 2 * w.rect.h >= 3 * others
                && others > 0
        };
        let first = icon(0) || pictured();
        let last = (n > 2 || !first) && icon(n - 1);
        if !first && !last {
            out.push(l);
            continue;
        }
        let keep: Vec<Word> = l
            .words
            .iter()
            .enumerate()
            .filter(|(i, _)| !((*i == 0 && first) || (*i == n - 1 && last)))
            .map(|(_, w)| w.clone())
            .collect();
        out.extend(join_lines(&keep, 100.0));
    }
    out
}

/// A menu's items are captions in one column, their icons in a gutter left of it (Qt, GTK,
/// Win32 alike): a first word that lies wholly left of the column where most of the menu's
/// lines begin, on a line whose next word begins at that column, is the item's icon read as
/// a glyph (KWrite's 另存为(A)... read `B 另存为(A)...`), no part of its caption.
pub(super) fn without_gutter(lines: Vec<Line>) -> Vec<Line> {
    let starts: Vec<i32> = lines.iter().map(|l| l.rect.x).collect();
    match menu_column(&starts) {
        Some(column) => lines
            .into_iter()
            .flat_map(|l| out_of_gutter(l, column))
            .collect(),
        None => lines,
    }
}

/// The column of a menu's captions: the start most lines share (within 3 px), taken by at
/// least three lines and by more lines than any other start.
pub(super) fn menu_column(starts: &[i32]) -> Option<i32> {
    let near = |x: i32| starts.iter().filter(|&&o| (o - x).abs() <= 3).count();
    starts
        .iter()
        .copied()
        .max_by_key(|&x| (near(x), -x))
        .filter(|&x| near(x) >= 3)
}

/// `l` without a first word in the gutter left of `column` (see [`without_gutter`]).
pub(super) fn out_of_gutter(l: Line, column: i32) -> Vec<Line> {
    let in_gutter = l.words.len() >= 2
        && l.words[0].rect.right() < column - 1
        && (l.words[1].rect.x - column).abs() <= 3;
    if in_gutter {
        join_lines(&l.words[1..], 100.0)
    } else {
        vec![l]
    }
}
