//! Deciding among candidates: one clear winner is taken, a tie is refused (unless one is
//! clearly where it was), a menu's item among items kept.

use super::*;

/// A menu is an item among items: on a bar of captions along its row (a menu bar), in a
/// column of captions over and under it (a menu drawn in the window), or inside a popup.
/// Where a menu's caption is read twice and only some places are such, the others go — a
/// group box's title or a label that says the same word (TuxGuitar's `Composition` menu and
/// its `Composition` tool group). With none or all such, the candidates stay as they were.
/// Then, with no menu open, a place on the window's first row of words (its menu bar) goes
/// before places under it.
pub(super) fn among_menus(
    cands: Vec<Candidate>,
    labels: &[SeenLabel],
    popups: &[Rect],
) -> Vec<Candidate> {
    if cands.len() < 2 {
        return cands;
    }
    let item = |c: &Candidate| {
        let r = c.rect;
        let along = labels
            .iter()
            .filter(|l| l.line.intersect(&r).is_none())
            .filter(|l| {
                let (top, bottom) = (l.line.y.max(r.y), l.line.bottom().min(r.bottom()));
                2 * (bottom - top) >= r.h.min(l.line.h)
                    && 2 * l.line.h >= r.h
                    && l.line.h <= 2 * r.h
            })
            .count();
        let column = labels
            .iter()
            .filter(|l| l.line.intersect(&r).is_none())
            .filter(|l| {
                (l.line.x - r.x).abs() <= 4 && (l.line.center().y - r.center().y).abs() <= 3 * r.h
            })
            .count();
        along >= 2 || column >= 2 || popups.iter().any(|p| p.contains(r.center()))
    };
    let (items, others): (Vec<Candidate>, Vec<Candidate>) = cands.iter().cloned().partition(item);
    if items.is_empty() {
        return cands;
    }
    let items = if others.is_empty() { cands } else { items };
    // With no menu open, a title on the menu bar is the window's first row of words: a cell
    // of a table's row further down, one of a row of cells too, is no menu (FileZilla's
    // `File` menu and the `File` in its file list's type column).
    let open = items
        .iter()
        .any(|c| popups.iter().any(|p| p.contains(c.rect.center())));
    let first_row = |c: &Candidate| {
        !labels
            .iter()
            .any(|l| l.line.bottom() <= c.rect.y && !l.text.trim().is_empty())
    };
    let (bar, below): (Vec<Candidate>, Vec<Candidate>) =
        items.iter().cloned().partition(|c| first_row(c));
    if open || bar.is_empty() || below.is_empty() {
        items
    } else {
        bar
    }
}

/// How well a glyph's drawing must fit a control's ink for the control to be taken by its
/// shape alone, with no reading behind it (a reading confirmed by shape needs only
/// [`mend_vision::SHAPE_FLOOR`]).
pub(super) const SHAPE_ALONE: f32 = 0.75;

pub(super) fn ambiguous(text: &str, c: Vec<Candidate>) -> Refusal {
    Refusal::new(
        ErrorCode::LocatorAmbiguous,
        format!(
            "{} controls could be '{text}' and nothing tells them apart; pick one (takeover) or add a near label to the target",
            c.len()
        ),
        c,
    )
}

/// A rung's answer: a winner, a refusal for a tie, or `None` to go on to the next rung.
pub(super) fn verdict(
    cands: Vec<Candidate>,
    rec: Option<Rect>,
    text: &str,
) -> Option<Result<Candidate, Refusal>> {
    // A caption read exactly as the target's is not tied with one read two letters or more
    // away: that is another control's caption (Import beside Export), not a misreading.
    let mut cands = cands;
    if cands.iter().any(|c| normalize(&c.text) == normalize(text)) {
        cands.retain(|c| !another_caption(text, &c.text));
    }
    match decide(cands, rec) {
        Decision::Winner(c) => Some(Ok(c)),
        Decision::Ambiguous(c) => Some(Err(ambiguous(text, c))),
        Decision::Nothing => None,
    }
}

/// One clear winner, a tie, or nothing. Ties are broken only by being much nearer the
/// recorded place; otherwise they are refused.
pub(super) fn decide(cands: Vec<Candidate>, rec: Option<Rect>) -> Decision {
    let mut uniq: Vec<Candidate> = Vec::new();
    for c in cands {
        match uniq.iter_mut().find(|u| u.rect.iou(&c.rect) > 0.5) {
            Some(u) if u.score < c.score => *u = c,
            Some(_) => {}
            None => uniq.push(c),
        }
    }
    uniq.sort_by(|a, b| b.score.total_cmp(&a.score));
    match uniq.len() {
        0 => Decision::Nothing,
        1 => Decision::Winner(uniq.remove(0)),
        _ if uniq[0].score - uniq[1].score >= TIE => Decision::Winner(uniq.remove(0)),
        _ => {
            let close: Vec<Candidate> = uniq
                .iter()
                .filter(|c| uniq[0].score - c.score < TIE)
                .cloned()
                .collect();
            if let Some(rec) = rec {
                let mut by_dist: Vec<(f64, &Candidate)> = close
                    .iter()
                    .map(|c| (c.rect.center_distance(&rec), c))
                    .collect();
                by_dist.sort_by(|a, b| a.0.total_cmp(&b.0));
                if by_dist[0].0 < 120.0 && by_dist[0].0 * 3.0 < by_dist[1].0 {
                    return Decision::Winner(by_dist[0].1.clone());
                }
            }
            Decision::Ambiguous(close)
        }
    }
}
