//! Buttons drawn with characters (a text UI's `[ OK ]`, `< Save >`): brackets told by their
//! shape when a reading made letters of them, and the captions between them made buttons.

use super::*;

/// The bracket that closes `open` in a terminal UI's text button.
pub(super) fn closing(open: char) -> Option<char> {
    match open {
        '<' | '‹' | '«' => Some('>'),
        '[' => Some(']'),
        _ => None,
    }
}

pub(super) fn is_closing(c: char) -> bool {
    matches!(c, '>' | '›' | '»' | ']')
}

/// The bracket that opens what `close` closes.
pub(super) fn opening(close: char) -> Option<char> {
    match close {
        '>' => Some('<'),
        '›' => Some('‹'),
        '»' => Some('«'),
        ']' => Some('['),
        _ => None,
    }
}

/// A text button's bracket misread, told by its shape: a line that begins with a lone glyph
/// and a lone closing bracket on its row, a few words on (or the mirror case: an opening
/// bracket and a lone glyph that ends a line), where the lone glyph is the bracket's mirror
/// image ([`mirrors`]), was a bracket pair; the misread glyph is given the bracket's partner.
/// A terminal's thin bold `<` reads "K", and "K OK >" was no button.
pub(super) fn brackets_by_shape(lines: &mut [Line], img: &RgbaImage) {
    let lone = |w: &Word| {
        let t = w.text.trim();
        (t.chars().count() == 1).then(|| t.chars().next()).flatten()
    };
    // (line, word) of every line's first and last lone glyph.
    let ends: Vec<(usize, usize, char)> = lines
        .iter()
        .enumerate()
        .flat_map(|(i, l)| {
            let n = l.words.len();
            [0, n.saturating_sub(1)]
                .into_iter()
                .filter(move |&k| k < n)
                .filter_map(move |k| lone(&l.words[k]).map(|c| (i, k, c)))
        })
        .collect();
    let mut fixes: Vec<(usize, usize, char)> = Vec::new();
    for &(i, k, c) in &ends {
        let first = k == 0;
        let rc = lines[i].words[k].rect;
        // A closing bracket looks left for the line start it closes; an opening one right.
        let partner = if first { closing(c) } else { opening(c) };
        let Some(partner) = partner else { continue };
        let candidate = ends
            .iter()
            .filter(|&&(j, m, d)| {
                let r = lines[j].words[m].rect;
                let starts = m == 0;
                starts != first
                    && d != partner
                    && closing(d).is_none()
                    && !is_closing(d)
                    && same_row(&r, &rc)
                    && if first {
                        r.x > rc.right()
                    } else {
                        r.right() < rc.x
                    }
                    && (r.x - rc.x).abs() <= 12 * rc.h.max(r.h)
            })
            .min_by_key(|&&(j, m, _)| (lines[j].words[m].rect.x - rc.x).abs());
        if let Some(&(j, m, _)) = candidate {
            if mirrors(img, lines[j].words[m].rect.inflate(1), rc.inflate(1)) {
                fixes.push((j, m, partner));
            }
        }
    }
    for (j, m, c) in fixes {
        let line = &mut lines[j];
        let old = line.words[m].text.trim().to_string();
        line.words[m].text = c.to_string();
        let text = line.text.trim();
        line.text = match (m == 0, text.strip_prefix(&old), text.strip_suffix(&old)) {
            (true, Some(rest), _) => format!("{c}{rest}"),
            (false, _, Some(rest)) => format!("{rest}{c}"),
            _ => line
                .words
                .iter()
                .map(|w| w.text.trim())
                .collect::<Vec<_>>()
                .join(" "),
        };
    }
}

/// Text buttons drawn with characters, as terminal UIs draw them: a caption between brackets,
/// "< OK >", "<Cancel>", "[ Save ]", "[< Yes >]", standing apart — the open bracket begins a
/// line and the close bracket ends one on the same row (OCR splits lines at gaps wider than a
/// word space), with nothing but the caption between. Such a group becomes one line, its text
/// the caption, and the bracket span its control box (a button). Brackets inside a sentence
/// ("Press <Enter> to go"), parentheses and a caption with a bracket of its own are no button.
pub(super) fn bracket_buttons(lines: Vec<Line>) -> (Vec<Line>, Vec<Option<Rect>>) {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| (lines[i].rect.center().y, lines[i].rect.x));
    let mut used = vec![false; lines.len()];
    let mut out = Vec::new();
    let mut spans = Vec::new();
    for &i in &order {
        if used[i] {
            continue;
        }
        let Some(group) = bracket_group(&lines, &order, &used, i) else {
            continue;
        };
        let Some(inner) = bracket_caption(&lines, &group) else {
            continue;
        };
        let words: Vec<Word> = group
            .iter()
            .flat_map(|&g| lines[g].words.iter().cloned())
            .collect();
        let span = group
            .iter()
            .map(|&g| lines[g].rect)
            .reduce(|a, b| a.union(&b))
            .unwrap_or(lines[i].rect);
        // The caption's own box: its words less the brackets standing alone.
        let caption = words
            .iter()
            .filter(|w| w.text.chars().any(|c| !is_bracket(c)))
            .map(|w| w.rect)
            .reduce(|a, b| a.union(&b))
            .unwrap_or(span);
        if !stands_apart(&lines, &group, span) {
            continue;
        }
        for &g in &group {
            used[g] = true;
        }
        out.push(Line {
            text: inner,
            rect: caption,
            conf: group.iter().map(|&g| lines[g].conf).fold(100.0, f32::min),
            words,
        });
        // A control's box: the span with a margin, at least a small control's height.
        let pad = ((12 - span.h).max(0) + 1) / 2 + 2;
        spans.push(Some(span.inflate(pad)));
    }
    for (i, l) in lines.into_iter().enumerate() {
        if !used[i] {
            out.push(l);
            spans.push(None);
        }
    }
    (out, spans)
}

/// Whether boxes `a` and `b` stand on one row: they overlap down by half the shorter's height.
fn same_row(a: &Rect, b: &Rect) -> bool {
    let overlap = a.bottom().min(b.bottom()) - a.y.max(b.y);
    2 * overlap >= a.h.min(b.h)
}

/// A bracket of a text button, either side, or a parenthesis.
fn is_bracket(c: char) -> bool {
    closing(c).is_some() || is_closing(c) || "()".contains(c)
}

/// The lines (indices into `lines`) from line `i`, which begins with an open bracket, to the
/// one that ends with its close bracket on its row, right of it, each within three text
/// heights of the last; `None` where no close bracket ends the run.
fn bracket_group(lines: &[Line], order: &[usize], used: &[bool], i: usize) -> Option<Vec<usize>> {
    let want = lines[i].text.trim().chars().next().and_then(closing)?;
    // The lines right of it on its row, nearest first, each within three text heights.
    let mut row: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&j| j != i && !used[j] && same_row(&lines[i].rect, &lines[j].rect))
        .filter(|&j| lines[j].rect.x >= lines[i].rect.right() - 1)
        .collect();
    row.sort_by_key(|&j| lines[j].rect.x);
    let mut group = vec![i];
    let mut found =
        lines[i].text.trim().chars().count() > 1 && lines[i].text.trim().ends_with(want);
    for j in row {
        if found {
            break;
        }
        let last = &lines[*group.last().unwrap_or(&i)].rect;
        if lines[j].rect.x - last.right() > 3 * last.h.max(lines[j].rect.h) {
            break;
        }
        group.push(j);
        found = lines[j].text.trim().ends_with(want);
    }
    found.then_some(group)
}

/// The caption between the brackets of `group`'s lines: their text less the brackets and
/// spaces at either end. `None` for no letter or digit in it, or a bracket of its own but for
/// a mnemonic in parentheses at its end.
fn bracket_caption(lines: &[Line], group: &[usize]) -> Option<String> {
    let text: String = group
        .iter()
        .map(|&g| lines[g].text.trim())
        .collect::<Vec<_>>()
        .join(" ");
    let inner = text
        .trim_start_matches(|c: char| closing(c).is_some() || c.is_whitespace())
        .trim_end_matches(|c: char| is_closing(c) || c.is_whitespace())
        .to_string();
    // A mnemonic in parentheses at the caption's end is the caption's own (`确认(O)`, read
    // `确认(0)`), no bracket.
    let cs: Vec<char> = inner.trim_end().chars().collect();
    let mnemonic = cs.len() >= 4
        && cs[cs.len() - 1] == ')'
        && cs[cs.len() - 3] == '('
        && cs[cs.len() - 2].is_alphanumeric();
    let own = if mnemonic {
        &cs[..cs.len() - 3]
    } else {
        &cs[..]
    };
    if !inner.chars().any(|c| c.is_alphanumeric()) || own.iter().any(|&c| is_bracket(c)) {
        return None;
    }
    Some(inner)
}

/// Whether the bracketed `group`, spanning `span`, stands apart: no other text on its row
/// within a text height and a half of either bracket ("Press" just before "<Enter>" is a
/// sentence, however OCR cut it) — but for another text button: a row of them a space apart
/// (`[< OK >] [ Cancel ]`) is buttons.
fn stands_apart(lines: &[Line], group: &[usize], span: Rect) -> bool {
    (0..lines.len()).filter(|j| !group.contains(j)).all(|j| {
        let o = &lines[j].rect;
        let t = lines[j].text.trim();
        let gap = (o.x - span.right()).max(span.x - o.right());
        let button_beside = if o.x >= span.right() {
            t.chars().next().and_then(closing).is_some()
        } else {
            t.chars().last().is_some_and(is_closing)
        };
        !same_row(&span, o) || 2 * gap > 3 * span.h.max(o.h) || button_beside
    })
}
