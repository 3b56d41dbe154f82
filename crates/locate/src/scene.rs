use image::RgbaImage;
use mend_capture::Frame;
use mend_model::{MendError, Rect, Role};
use mend_ocr::{join_lines, GlyphRead, Line, OcrEngine, OcrOptions, Reader, Word};
use mend_vision::{background, chroma, find_control_boxes, is_ink, luma, mirrors, ControlBox};

/// A piece of text on screen and the control it sits in, if any.
#[derive(Debug, Clone)]
pub struct SeenLabel {
    pub text: String,
    pub line: Rect,
    /// The framed control containing the text, if any.
    pub control: Option<ControlBox>,
    pub conf: f32,
}

impl SeenLabel {
    pub fn role(&self) -> Role {
        match &self.control {
            None => Role::Label,
            Some(c) => c.role,
        }
    }

    /// What to act on: the control's box, or the text's own box for a bare label.
    pub fn rect(&self) -> Rect {
        self.control.as_ref().map(|c| c.rect).unwrap_or(self.line)
    }
}

/// What a scene computed, kept between locates on the same frame (several targets, one frame).
#[derive(Default)]
pub struct SceneCache {
    frame_id: Option<u64>,
    boxes: Option<Vec<ControlBox>>,
    labels: Option<Vec<SeenLabel>>,
}

/// What the chain knows about one frame, computed lazily and at most once.
pub struct Scene<'a> {
    pub frame: &'a Frame,
    boxes: Option<Vec<ControlBox>>,
    window_labels: Option<Vec<SeenLabel>>,
    /// A caption whose line is a prompt's input but for a caret not seen in this frame (a
    /// blinking one may be off): the locator's refusal says where to look for it again.
    pub(crate) caret_awaited: Option<Rect>,
    /// Captions read exactly as a button's, on no control of their own (a flat button drawn
    /// like a label): the pointer over one shows whether it is a button (it lights up).
    pub(crate) hover_asked: Vec<Rect>,
}

/// Whole-window reads: 2× upscale reads the 12–16 px captions of legacy UIs reliably.
pub const WINDOW_OCR: OcrOptions = OcrOptions {
    scale: 2,
    psm: 11,
    min_conf: 40.0,
};

/// One caption or one text strip: a single line (PSM 7) upscaled 3×. Sparse mode misreads
/// short CJK labels on their own (编号 came back as 纺); single-line mode reads them cleanly.
pub const LINE_OCR: OcrOptions = OcrOptions {
    scale: 3,
    psm: 7,
    min_conf: 40.0,
};

/// Two readings of one window merged, place by place: a line of `second` replaces the lines
/// of `first` it overlaps when it is surer than all of them, and is added where `first`
/// read nothing. Neither scale reads every font best (xcalc's CE/C: 56 % at 2×, "CE“C" at
/// 3×; a terminal's "Weekly totals" is read only at 3×).
/// A frame inside popup `p` that spans its width: the popup's outline, a section between two
/// of its separators, or its highlight bar — never a control of its own.
fn section_of(p: &Rect, b: &Rect) -> bool {
    p.inflate(2).contains_rect(b) && b.w >= p.w - 8
}

fn surer_of(first: Vec<Line>, second: Vec<Line>) -> Vec<Line> {
    let mut out = first;
    for l in second {
        let over: Vec<usize> = (0..out.len())
            .filter(|&i| out[i].rect.intersect(&l.rect).is_some_and(|r| r.area() > 0))
            .collect();
        if over.iter().all(|&i| out[i].conf < l.conf) {
            for i in over.into_iter().rev() {
                out.remove(i);
            }
            out.push(l);
        }
    }
    out
}

/// The scale for reading the whole window again when its text is small: the text height
/// (median full-height line at the first pass) brought to ~30 px. `None` when 2× serves.
fn window_scale(text_h: i32) -> Option<u32> {
    let scale = scale_for(text_h);
    (scale > WINDOW_OCR.scale).then_some(scale)
}

/// The tallest a single control (a button, a field) is beside text `text_h` pixels tall: 60 px
/// at the usual sizes, four text heights where the UI is drawn larger (GDK_SCALE=2: 68 px
/// entries and buttons beside 20 px text).
pub fn control_height(text_h: i32) -> i32 {
    (4 * text_h).max(60)
}

/// A caption as compared between two readings: letters and digits only, lower case.
fn normalize_caption(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The upscale that brings text `text_h` pixels tall near 30 px, at most 4×.
fn scale_for(text_h: i32) -> u32 {
    ((30.0 / text_h.max(1) as f64).round() as u32).clamp(1, 4)
}

/// Texts `a` and `o`, both inside box `b`, on one row with more than a text height between
/// them: two items of a bar, not one caption (删除全部 read as 删除 and 全部 touch).
fn items_apart(b: &Rect, a: &Rect, o: &Rect) -> bool {
    let same_row = o.y < a.bottom() && a.y < o.bottom();
    let gap = (o.x - a.right()).max(a.x - o.right());
    o != a && b.contains(o.center()) && same_row && gap > a.h.max(o.h)
}

/// How many rows of text lie inside box `b`: lines whose centres are inside, grouped by
/// their centre heights (two lines of one row differ by less than half a line).
fn rows_inside(b: &Rect, lines: &[Rect]) -> usize {
    let mut ys: Vec<(i32, i32)> = lines
        .iter()
        .filter(|r| b.contains(r.center()))
        .map(|r| (r.center().y, r.h))
        .collect();
    ys.sort_unstable();
    let mut rows = 0;
    let mut last: Option<i32> = None;
    for (y, h) in ys {
        if last.is_none_or(|l| y - l > h.max(4) / 2) {
            rows += 1;
            last = Some(y);
        }
    }
    rows
}

/// Single-line reading of a crop `h` pixels tall, upscaled so the text lands near the size
/// Tesseract reads best (~30–45 px glyphs): 3× for a 34 px button, 2× at 150 % fonts. Too large
/// hurts too (查询 read as 但询 at 3× of a 51 px button).
pub fn line_ocr(h: i32) -> OcrOptions {
    OcrOptions {
        scale: ((100.0 / h.max(1) as f64).round() as u32).clamp(1, 4),
        ..LINE_OCR
    }
}

/// A line that runs from outside a framed control into it is two texts read as one: a label
/// and the field's content beside it ("姓名 Kind|" for 姓名 and a field holding "Kind"). Cut it
/// at the control's edge, by its words, so the label keeps its whole caption.
fn split_at_boxes(lines: Vec<Line>, boxes: &[ControlBox]) -> Vec<Line> {
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
fn apart_from_keys(lines: Vec<Line>, img: &RgbaImage) -> Vec<Line> {
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
fn without_signs_after(lines: Vec<Line>) -> Vec<Line> {
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
fn without_icons(lines: Vec<Line>, img: &RgbaImage) -> Vec<Line> {
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
fn without_gutter(lines: Vec<Line>) -> Vec<Line> {
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
fn menu_column(starts: &[i32]) -> Option<i32> {
    let near = |x: i32| starts.iter().filter(|&&o| (o - x).abs() <= 3).count();
    starts
        .iter()
        .copied()
        .max_by_key(|&x| (near(x), -x))
        .filter(|&x| near(x) >= 3)
}

/// `l` without a first word in the gutter left of `column` (see [`without_gutter`]).
fn out_of_gutter(l: Line, column: i32) -> Vec<Line> {
    let in_gutter = l.words.len() >= 2
        && l.words[0].rect.right() < column - 1
        && (l.words[1].rect.x - column).abs() <= 3;
    if in_gutter {
        join_lines(&l.words[1..], 100.0)
    } else {
        vec![l]
    }
}

/// The bracket that closes `open` in a terminal UI's text button.
fn closing(open: char) -> Option<char> {
    match open {
        '<' | '‹' | '«' => Some('>'),
        '[' => Some(']'),
        _ => None,
    }
}

fn is_closing(c: char) -> bool {
    matches!(c, '>' | '›' | '»' | ']')
}

/// The bracket that opens what `close` closes.
fn opening(close: char) -> Option<char> {
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
fn brackets_by_shape(lines: &mut [Line], img: &RgbaImage) {
    let lone = |w: &Word| {
        let t = w.text.trim();
        (t.chars().count() == 1).then(|| t.chars().next()).flatten()
    };
    let same_row = |a: &Rect, b: &Rect| {
        let overlap = a.bottom().min(b.bottom()) - a.y.max(b.y);
        2 * overlap >= a.h.min(b.h)
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
fn bracket_buttons(lines: Vec<Line>) -> (Vec<Line>, Vec<Option<Rect>>) {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| (lines[i].rect.center().y, lines[i].rect.x));
    let same_row = |a: &Rect, b: &Rect| {
        let overlap = a.bottom().min(b.bottom()) - a.y.max(b.y);
        2 * overlap >= a.h.min(b.h)
    };
    let mut used = vec![false; lines.len()];
    let mut out = Vec::new();
    let mut spans = Vec::new();
    for &i in &order {
        if used[i] {
            continue;
        }
        let Some(want) = lines[i].text.trim().chars().next().and_then(closing) else {
            continue;
        };
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
        if !found {
            continue;
        }
        let text: String = group
            .iter()
            .map(|&g| lines[g].text.trim())
            .collect::<Vec<_>>()
            .join(" ");
        let inner = text
            .trim_start_matches(|c: char| closing(c).is_some() || c.is_whitespace())
            .trim_end_matches(|c: char| is_closing(c) || c.is_whitespace())
            .to_string();
        let bracket = |c: char| closing(c).is_some() || is_closing(c) || "()".contains(c);
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
        if !inner.chars().any(|c| c.is_alphanumeric()) || own.iter().any(|&c| bracket(c)) {
            continue;
        }
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
            .filter(|w| w.text.chars().any(|c| !bracket(c)))
            .map(|w| w.rect)
            .reduce(|a, b| a.union(&b))
            .unwrap_or(span);
        // Standing apart: no other text on its row within a text height and a half of either
        // bracket ("Press" just before "<Enter>" is a sentence, however OCR cut it) — but for
        // another text button: a row of them a space apart (`[< OK >] [ Cancel ]`) is buttons.
        let apart = (0..lines.len()).filter(|j| !group.contains(j)).all(|j| {
            let o = &lines[j].rect;
            let t = lines[j].text.trim();
            let gap = (o.x - span.right()).max(span.x - o.right());
            let button_beside = if o.x >= span.right() {
                t.chars().next().and_then(closing).is_some()
            } else {
                t.chars().last().is_some_and(is_closing)
            };
            !same_row(&span, o) || 2 * gap > 3 * span.h.max(o.h) || button_beside
        });
        if !apart {
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

/// The ink of a framed control's caption, from its pixels alone.
#[derive(Debug, Clone)]
struct CaptionInk {
    /// Bounding box of the caption's ink.
    rect: Rect,
    /// Runs of inked columns: the glyph count for fonts that space their glyphs.
    groups: usize,
    /// The connected pieces of ink (8-connected), as boxes.
    parts: Vec<Rect>,
    /// The control's background grey.
    bg: u8,
}

/// A caption this short is read on its own as one character or one word: one or two glyphs,
/// no wider than two text heights (one ideograph splits into several groups; a word is wider).
fn is_short(ink: &CaptionInk, text_h: i32) -> bool {
    ink.groups <= 2 && ink.rect.w <= 2 * ink.rect.h.max(text_h)
}

/// Glyphs whose shape says what they are, whatever OCR makes of them. A dot (a few pixels
/// square, well under the text height) is "."; one flat bar is "-"; two flat bars stacked are
/// "=". OCR alone reads a bitmap font's 3×3 dot as "+" — and "+" on the keypad then
/// answered the "." key (issue 13).
fn glyph_shape(ink: &CaptionInk, text_h: i32) -> Option<&'static str> {
    let small = |v: i32| v as f64 <= 0.4 * text_h as f64;
    let bar =
        |p: &Rect| p.h <= 2.max(text_h / 5) && p.w as f64 >= 0.3 * text_h as f64 && p.w >= 2 * p.h;
    match ink.parts.as_slice() {
        [p] if small(p.w) && small(p.h) && p.w <= 2 * p.h && p.h <= 2 * p.w => Some("."),
        [p] if bar(p) => Some("-"),
        [a, b] if bar(a) && bar(b) && (a.x - b.x).abs() <= 1 && (a.w - b.w).abs() <= 1 => Some("="),
        _ => None,
    }
}

/// Whether a short caption read by OCR can be that ink: a letter, digit or "+" is not a speck;
/// a digit or an operator drawn in one stroke is one piece of ink (÷ read as "+" is three);
/// a glyph of two strokes ("=", ":") is not one piece (an asterisk read as "="); an ideograph
/// fills the font's height (a bitmap "e" read as 已 by the Chinese model is x-height tall).
fn plausible(read: &str, ink: &CaptionInk, text_h: i32) -> bool {
    let ideograph = |c: char| ('\u{3000}'..='\u{9fff}').contains(&c) || c >= '\u{f900}';
    if read.chars().any(ideograph) && (ink.rect.h as f64) < 0.75 * text_h as f64 {
        return false;
    }
    let mut cs = read.chars();
    match (cs.next(), cs.next()) {
        (Some(c), None) if c.is_alphanumeric() || "+*#%&@$?!".contains(c) => {
            let one_stroke = c.is_ascii_digit() || "+-*()/".contains(c);
            (!one_stroke || ink.parts.len() == 1)
                && ink.rect.w.max(ink.rect.h) as f64 >= 0.45 * text_h as f64
        }
        (Some(c), None) if "-()/".contains(c) => ink.parts.len() == 1,
        (Some(c), None) if "=:".contains(c) => ink.parts.len() >= 2,
        _ => true,
    }
}

/// The usual height of the window's text: the median line of surely read words, which sizes
/// the upscale of short captions and tells a dot from a letter.
fn text_height(lines: &[Line]) -> Option<i32> {
    text_height_of(lines.iter().map(|l| (l.rect.h, l.text.as_str(), l.conf)))
}

/// [`text_height`] of labels already attached.
fn labels_text_height(labels: &[SeenLabel]) -> Option<i32> {
    text_height_of(labels.iter().map(|l| (l.line.h, l.text.as_str(), l.conf)))
}

/// [`text_height`] over (height, text, confidence) of each line.
fn text_height_of<'t>(lines: impl Iterator<Item = (i32, &'t str, f32)>) -> Option<i32> {
    // Only lines with a capital, a digit or an ascender reach the font's full height: a word
    // of x-height letters alone ("or", "x") is a menu bar's item as often as a sentence is.
    let tall = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || "bdfhklt".contains(c);
    let mut hs: Vec<i32> = lines
        .filter(|(_, t, conf)| {
            *conf >= 70.0 && t.chars().filter(|c| c.is_alphanumeric()).count() >= 2
        })
        .filter(|(_, t, _)| t.chars().any(|c| tall(c) || !c.is_ascii()))
        .map(|(h, _, _)| h)
        .collect();
    hs.sort_unstable();
    hs.get(hs.len() / 2).copied()
}

/// Below this word confidence a control's caption is read a second time (see `window_labels`).
const DOUBTFUL: f32 = 60.0;

/// The least sure word of a reading (100 for nothing read: nothing to doubt).
fn weakest(lines: &[Line]) -> f32 {
    lines.iter().map(|l| l.conf).fold(100.0, f32::min)
}

/// A one-glyph reading below this confidence is no reading (a guess between look-alikes).
const SHORT_MIN_CONF: f32 = 50.0;

/// Reads around one place: smaller area, so a larger upscale is cheap.
pub const REGION_OCR: OcrOptions = OcrOptions {
    scale: 3,
    psm: 11,
    min_conf: 40.0,
};

impl<'a> Scene<'a> {
    pub fn new(frame: &'a Frame) -> Self {
        Scene {
            frame,
            boxes: None,
            window_labels: None,
            caret_awaited: None,
            hover_asked: Vec::new(),
        }
    }

    /// Resume what an earlier scene of the same frame computed.
    pub fn resume(frame: &'a Frame, cache: SceneCache) -> Self {
        let mut s = Scene::new(frame);
        if cache.frame_id == Some(frame.info.id) {
            s.boxes = cache.boxes;
            s.window_labels = cache.labels;
        }
        s
    }

    pub fn into_cache(self) -> SceneCache {
        SceneCache {
            frame_id: Some(self.frame.info.id),
            boxes: self.boxes,
            labels: self.window_labels,
        }
    }

    pub fn bounds(&self) -> Rect {
        self.frame.info.bounds()
    }

    /// The window's usual text height: of `labels`, else of the window's reading if made.
    pub(crate) fn text_height(&self, labels: &[SeenLabel]) -> Option<i32> {
        labels_text_height(labels).or_else(|| labels_text_height(self.labels_read()))
    }

    pub fn boxes(&mut self) -> &[ControlBox] {
        if self.boxes.is_none() {
            let popups = &self.frame.info.popups;
            let mut boxes = find_control_boxes(&self.frame.image);
            // A popup's rows are its items: a frame inside it as wide as it is is a section
            // between its separators (or the highlight bar), not a control — two items in one
            // such frame read as one field's value.
            boxes.retain(|b| !popups.iter().any(|p| section_of(p, &b.rect)));
            self.boxes = Some(boxes);
        }
        self.boxes.as_deref().unwrap_or_default()
    }

    fn attach(&mut self, lines: Vec<Line>, reader: Reader) -> Vec<SeenLabel> {
        let boxes = self.boxes().to_vec();
        // Icons read as glyphs are Tesseract's: PP-OCR reads no character in a picture, and
        // its words are cut to the ink of the characters it read.
        let lines = match reader {
            Reader::Tesseract => without_icons(lines, &self.frame.image),
            Reader::PpOcr => lines,
        };
        let lines = without_signs_after(apart_from_keys(lines, &self.frame.image));
        let mut lines = split_at_boxes(lines, &boxes);
        brackets_by_shape(&mut lines, &self.frame.image);
        let (lines, spans) = bracket_buttons(lines);
        let rects: Vec<Rect> = lines.iter().map(|l| l.rect).collect();
        lines
            .into_iter()
            .zip(spans)
            .map(|(l, span)| {
                if let Some(rect) = span {
                    // A text button drawn with characters is its own control.
                    return SeenLabel {
                        text: l.text,
                        line: l.rect,
                        control: Some(ControlBox {
                            rect,
                            role: Role::Button,
                        }),
                        conf: l.conf,
                    };
                }
                let c = l.rect.center();
                // The smallest framed box holding the text's centre: a button, not its panel.
                // (A glyph's area is tiny: measure a caption at least a text height square.)
                // A box that also holds other text on the same row, set apart by more than a
                // text height, is a bar of several items (a menu bar, a toolbar), and one that
                // holds text on three rows or more is a list (a menu between its separators):
                // no item's control (issue 13: "Search" took the whole Motif menu bar for its
                // box, "Save as..." the four items of a Win32 menu above a separator).
                let area = l.rect.area().max(i64::from(l.rect.h.max(10)).pow(2));
                let control = boxes
                    .iter()
                    .filter(|b| b.rect.contains(c) && b.rect.area() < 40 * area)
                    .filter(|b| {
                        !rects.iter().any(|o| items_apart(&b.rect, &l.rect, o))
                            && rows_inside(&b.rect, &rects) < 3
                    })
                    .min_by_key(|b| b.rect.area())
                    .cloned();
                SeenLabel {
                    text: l.text,
                    line: l.rect,
                    control,
                    conf: l.conf,
                }
            })
            .collect()
    }

    /// Text in one region (region OCR, cached by the engine).
    pub fn labels_in(
        &mut self,
        ocr: &mut OcrEngine,
        region: Rect,
        opts: OcrOptions,
    ) -> Result<Vec<SeenLabel>, MendError> {
        let lines = ocr.read_lines(&self.frame.image, region, opts)?;
        Ok(self.attach(lines, ocr.reader()))
    }

    /// Text in the whole window, plus each framed control read on its own (single-character
    /// and small captions only read cleanly when cropped and upscaled).
    /// The whole-window reading if it was made already (else nothing).
    pub(crate) fn labels_read(&self) -> &[SeenLabel] {
        self.window_labels.as_deref().unwrap_or_default()
    }

    pub fn window_labels(&mut self, ocr: &mut OcrEngine) -> Result<Vec<SeenLabel>, MendError> {
        if let Some(l) = &self.window_labels {
            return Ok(l.clone());
        }
        let mut lines = ocr.read_lines(&self.frame.image, self.bounds(), WINDOW_OCR)?;
        let text_h = text_height(&lines);
        // Small text (8 pt dialogs, a terminal's 6×13 font) is read again larger: Tesseract
        // reads glyphs best at about 30 px, and 2× of 9 px text is far below.
        if let Some(scale) = text_h.and_then(window_scale) {
            let larger = ocr.read_lines(
                &self.frame.image,
                self.bounds(),
                OcrOptions {
                    scale,
                    ..WINDOW_OCR
                },
            )?;
            lines = surer_of(lines, larger);
        }
        // A popup (a menu, a drop-down list) is read on its own: the window's other text
        // around it throws Tesseract's layout off (a Wine list of 8 pt items came back as
        // "in", "indo"; read alone at 3×, every item is right).
        for p in self.frame.info.popups.clone() {
            let own = ocr.read_lines(
                &self.frame.image,
                p,
                OcrOptions {
                    scale: text_h.map_or(3, scale_for).max(2),
                    ..WINDOW_OCR
                },
            )?;
            if !own.is_empty() {
                lines.retain(|l| !p.contains(l.rect.center()));
                lines.extend(without_gutter(own));
            }
        }
        let boxes = self.boxes().to_vec();
        // Cut lines that run across frames first, so what a frame's own read replaces is
        // exactly what was read inside it (a keypad row reads as one line "7 )(ceze}( ac").
        let mut lines = split_at_boxes(lines, &boxes);
        let tallest = control_height(text_h.unwrap_or(0));
        for b in boxes.iter().filter(|b| b.rect.h <= tallest) {
            // One or two glyphs: read as such, on their own. The whole-window pass makes words
            // of neighbouring keys or nothing of them; what it said inside this frame goes.
            let ink = self.caption_ink(b.rect);
            let th = text_h.unwrap_or(b.rect.h * 2 / 5);
            if let Some(ink) = ink.as_ref().filter(|i| i.groups == 1 && is_short(i, th)) {
                lines.retain(|l| !b.rect.contains(l.rect.center()));
                lines.extend(self.read_short(ocr, ink, th)?);
                continue;
            }
            // Read every framed control on its own, upscaled: mixed captions such as 登录(L)
            // come back garbled from the whole-window pass. The crop's reading wins.
            let opts = line_ocr(b.rect.h);
            // Inside a dotted focus ring when one is drawn: with the ring in view the caption
            // reads as nothing (a default button's "Yes").
            let area = mend_vision::inside_focus_ring(&self.frame.image, b.rect)
                .unwrap_or(b.rect.inflate(-2));
            let mut own = ocr.read_lines(&self.frame.image, area, opts)?;
            // A doubtful word: read again one step smaller and keep the surer reading. OK (O)
            // on a dark-theme dialog came back "OK (QO)" (50 %) at 3× and "OK(O)" (72 %) at 2×.
            // So too where the crop and the window pass disagree: jEdit's bold "Save" came back
            // "Sawe" (91 %) at 3× and "Save" (93 %) at 2×.
            let said = |lines: &[Line]| {
                let inside: Vec<&str> = lines
                    .iter()
                    .filter(|l| b.rect.contains(l.rect.center()))
                    .map(|l| l.text.as_str())
                    .collect();
                normalize_caption(&inside.join(" "))
            };
            let window_said = said(&lines);
            if weakest(&own) < DOUBTFUL || (!window_said.is_empty() && window_said != said(&own)) {
                let smaller = OcrOptions {
                    scale: if opts.scale > 1 { opts.scale - 1 } else { 2 },
                    ..opts
                };
                let again = ocr.read_lines(&self.frame.image, area, smaller)?;
                if weakest(&again) > weakest(&own) {
                    own = again;
                }
            }
            // Two glyphs the line read missed, doubts or read in part ("2" of x²): read them as
            // one word. Nothing sure from either is no caption: the window pass's words for
            // this frame go too.
            if let Some(ink) = ink.filter(|i| is_short(i, th)) {
                lines.retain(|l| !b.rect.contains(l.rect.center()));
                let chars: usize = own
                    .iter()
                    .map(|l| l.text.chars().filter(|c| !c.is_whitespace()).count())
                    .sum();
                if own.is_empty() || weakest(&own) < DOUBTFUL || chars < ink.groups {
                    own = self.read_short(ocr, &ink, th)?;
                }
            }
            if !own.is_empty() {
                lines.retain(|l| !b.rect.contains(l.rect.center()));
                lines.extend(own);
            }
        }
        let labels = self.attach(lines, ocr.reader());
        self.window_labels = Some(labels.clone());
        Ok(labels)
    }

    /// The last look, when the second found nothing either: `labels` (the second look's) with
    /// the window read by quarters where its first pass read nothing; a quarter's line
    /// replaces the less sure strip re-reads it overlaps (a check box read as "g", then "g Add").
    pub fn quarter_labels(
        &mut self,
        ocr: &mut OcrEngine,
        mut labels: Vec<SeenLabel>,
    ) -> Result<Vec<SeenLabel>, MendError> {
        let first = self.window_labels(ocr)?;
        let have: Vec<Rect> = first.iter().map(|l| l.line).collect();
        let text_h = labels_text_height(&first);
        for g in self.gap_lines(ocr, &have, text_h)? {
            labels.retain(|o| !(o.line.intersect(&g.rect).is_some() && o.conf < g.conf));
            labels.extend(self.attach(vec![g], ocr.reader()));
        }
        Ok(labels)
    }

    /// Text where the window's reading has none, read again by quarters (the last look):
    /// Tesseract's page layout can give up on a whole dialog of frames and bevels (a Motif
    /// file selection box came back as its path and one file name; each quarter reads its
    /// labels). Only lines over no text already read (`have`) come back, and a line cut by a
    /// quarter's inner edge is dropped.
    fn gap_lines(
        &self,
        ocr: &mut OcrEngine,
        have: &[Rect],
        text_h: Option<i32>,
    ) -> Result<Vec<Line>, MendError> {
        let mut lines: Vec<Line> = Vec::new();
        let b = self.bounds();
        let (hw, hh) = (b.w / 2, b.h / 2);
        if hw < 80 || hh < 60 {
            return Ok(lines);
        }
        let pad = 24;
        let scale = text_h
            .map_or(WINDOW_OCR.scale, scale_for)
            .max(WINDOW_OCR.scale);
        for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let q = Rect::new(qx * hw - pad * qx, qy * hh - pad * qy, hw + pad, hh + pad)
                .intersect(&b)
                .unwrap_or(b);
            let found = ocr.read_lines(
                &self.frame.image,
                q,
                OcrOptions {
                    scale,
                    ..WINDOW_OCR
                },
            )?;
            for l in found {
                // A line touching an inner edge of the quarter may go on beyond it.
                let cut = (l.rect.x <= q.x + 2 && q.x > 0)
                    || (l.rect.right() >= q.right() - 2 && q.right() < b.right())
                    || (l.rect.y <= q.y + 2 && q.y > 0)
                    || (l.rect.bottom() >= q.bottom() - 2 && q.bottom() < b.bottom());
                let covered = have
                    .iter()
                    .chain(lines.iter().map(|o| &o.rect))
                    .any(|o| o.intersect(&l.rect).is_some_and(|r| r.area() > 0));
                if !cut && !covered && l.conf >= DOUBTFUL {
                    lines.push(l);
                }
            }
        }
        Ok(lines)
    }

    /// The caption's ink inside framed box `b`: the interior less its border (rows or columns
    /// inked across most of it are frame or bevel lines, and pieces touching the interior's
    /// edge are a rounded frame's corners), cut into connected pieces.
    fn caption_ink(&self, b: Rect) -> Option<CaptionInk> {
        let inner = b.inflate(-3).clamp_to(&self.bounds())?;
        if inner.w < 4 || inner.h < 4 {
            return None;
        }
        let img = &self.frame.image;
        let bg = background(img, inner);
        let (w, h) = (inner.w as usize, inner.h as usize);
        let mut ink: Vec<bool> = (0..w * h)
            .map(|i| {
                let (x, y) = ((i % w) as i32 + inner.x, (i / w) as i32 + inner.y);
                is_ink(luma(img, x, y), bg)
            })
            .collect();
        for y in 0..h {
            if (0..w).filter(|&x| ink[y * w + x]).count() * 10 >= w * 6 {
                (0..w).for_each(|x| ink[y * w + x] = false);
            }
        }
        for x in 0..w {
            if (0..h).filter(|&y| ink[y * w + x]).count() * 10 >= h * 6 {
                (0..h).for_each(|y| ink[y * w + x] = false);
            }
        }
        let mut seen = vec![false; w * h];
        let mut parts = Vec::new();
        let mut cols = vec![false; w];
        for start in 0..w * h {
            if !ink[start] || seen[start] {
                continue;
            }
            seen[start] = true;
            let mut stack = vec![start];
            let mut pixels = Vec::new();
            while let Some(i) = stack.pop() {
                pixels.push(i);
                let (x, y) = ((i % w) as i32, (i / w) as i32);
                for (dx, dy) in [
                    (-1, -1),
                    (0, -1),
                    (1, -1),
                    (-1, 0),
                    (1, 0),
                    (-1, 1),
                    (0, 1),
                    (1, 1),
                ] {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= w as i32 || ny >= h as i32 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if ink[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
            let xs = pixels.iter().map(|&i| (i % w) as i32);
            let ys = pixels.iter().map(|&i| (i / w) as i32);
            let (x0, x1) = (xs.clone().min()?, xs.max()?);
            let (y0, y1) = (ys.clone().min()?, ys.max()?);
            if x0 == 0 || y0 == 0 || x1 == w as i32 - 1 || y1 == h as i32 - 1 {
                continue;
            }
            for &i in &pixels {
                cols[i % w] = true;
            }
            parts.push(Rect::new(
                inner.x + x0,
                inner.y + y0,
                x1 - x0 + 1,
                y1 - y0 + 1,
            ));
        }
        let rect = parts.iter().copied().reduce(|a, b| a.union(&b))?;
        let groups = cols
            .iter()
            .zip(std::iter::once(&false).chain(cols.iter()))
            .filter(|(c, prev)| **c && !**prev)
            .count();
        Some(CaptionInk {
            rect,
            groups,
            parts,
            bg: bg.clamp(0, 255) as u8,
        })
    }

    /// A short caption read on its own: one character (PSM 10) or one word (PSM 8). A shape
    /// that tells the glyph ([`glyph_shape`]) wins over OCR; a glyph OCR names but whose size
    /// cannot be it (a letter as small as a dot) is no reading at all.
    fn read_short(
        &self,
        ocr: &mut OcrEngine,
        ink: &CaptionInk,
        text_h: i32,
    ) -> Result<Vec<Line>, MendError> {
        let (text, conf) = match glyph_shape(ink, text_h) {
            Some(shape) => (shape.to_string(), 90.0),
            None => {
                let words = ocr.read_glyphs(
                    &self.frame.image,
                    GlyphRead {
                        ink: ink.rect,
                        bg: ink.bg,
                        glyphs: ink.groups,
                        text_h,
                    },
                    |read| plausible(read, ink, text_h),
                )?;
                let text = words
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let conf = words.iter().map(|w| w.conf).fold(100.0, f32::min);
                // Fewer characters than glyph groups is a part read as the whole ("2" of x²).
                // (What the ink cannot be was dropped by `read_glyphs` before the vote.)
                let chars = text.chars().filter(|c| !c.is_whitespace()).count();
                if chars < ink.groups || conf < SHORT_MIN_CONF {
                    return Ok(Vec::new());
                }
                (text, conf)
            }
        };
        Ok(vec![Line {
            text: text.clone(),
            rect: ink.rect,
            conf,
            words: vec![Word {
                text,
                rect: ink.rect,
                conf,
                line_key: (0, 0, 0),
            }],
        }])
    }

    /// The second look: every unframed text strip read again on its own as one line.
    /// Costs a region read per strip (cached), so the chain asks only when the first pass found
    /// nothing.
    pub fn reread_labels(&mut self, ocr: &mut OcrEngine) -> Result<Vec<SeenLabel>, MendError> {
        let first = self.window_labels(ocr)?;
        let text_h = labels_text_height(&first);
        let tallest = control_height(text_h.unwrap_or(0));
        // An open menu's caption column: a strip read again reaches left into its icons.
        let columns: Vec<(Rect, i32)> = self
            .frame
            .info
            .popups
            .iter()
            .filter_map(|p| {
                let starts: Vec<i32> = first
                    .iter()
                    .filter(|l| p.contains(l.line.center()))
                    .map(|l| l.line.x)
                    .collect();
                menu_column(&starts).map(|c| (*p, c))
            })
            .collect();
        let mut out = Vec::new();
        for l in first {
            if l.control.is_some() {
                out.push(l);
                continue;
            }
            // A line read in part is read again over all its ink: a strip sized from the part
            // alone cuts the rest off (a menu bar's "Game" read as "me", its capital unread:
            // the strip from its x-height began past the G).
            let line = match self.unread_ink(l.line, None) {
                Some(extra) => l.line.union(&extra),
                None => l.line,
            };
            let h = line.h.max(8);
            let strip = Rect::new(
                line.x - h,
                line.y - h / 3,
                line.w + 2 * h,
                line.h + 2 * (h / 3),
            );
            // A picture the line was read with (a menu item's icon) is left out of the strip.
            let from_line = Rect::new(line.x - 2, line.y, strip.right() - line.x + 2, line.h);
            // The line's height was the picture's: the text is read at the window's size.
            let (strip, size) = match mend_vision::text_after_icon(&self.frame.image, from_line) {
                Some(x) => {
                    let th = text_h.unwrap_or(strip.h);
                    let cut = Rect::new(x - 1, strip.y, strip.right() - x + 1, strip.h);
                    (cut, th + 2 * (th / 3))
                }
                None => (strip, strip.h),
            };
            let mut again = ocr.read_lines(&self.frame.image, strip, line_ocr(size * 2))?;
            if let Some(&(_, column)) = columns.iter().find(|(p, _)| p.contains(l.line.center())) {
                again = again
                    .into_iter()
                    .flat_map(|a| out_of_gutter(a, column))
                    .collect();
            }
            if again.is_empty() {
                out.push(l);
            } else {
                out.extend(self.attach(again, ocr.reader()));
            }
        }
        // A framed button nothing was read in: read its caption again in sparse mode, which
        // takes a trailing ellipsis (编辑…) that single-line mode returns nothing for.
        let silent: Vec<Rect> = self
            .boxes()
            .iter()
            .filter(|b| b.role == Role::Button && b.rect.h <= tallest)
            .map(|b| b.rect)
            .filter(|r| !out.iter().any(|l| r.contains(l.line.center())))
            .collect();
        for b in silent {
            let found = ocr.read_lines(&self.frame.image, b, REGION_OCR)?;
            out.extend(self.attach(found, ocr.reader()));
        }
        // A field with no text read on its left: its label was missed entirely (sparse mode
        // skips some short words). Read the strip where a label would be, as one line.
        let fields: Vec<Rect> = self
            .boxes()
            .iter()
            .filter(|b| b.role == Role::Field)
            .map(|b| b.rect)
            .collect();
        for f in fields {
            let strip = self.after_rule(Rect::new(f.x - 240, f.y, 236, f.h));
            if out
                .iter()
                .any(|l| l.control.is_none() && strip.contains(l.line.center()))
            {
                continue;
            }
            let found = ocr.read_lines(&self.frame.image, strip, line_ocr(f.h))?;
            out.extend(self.attach(found, ocr.reader()));
        }
        Ok(out)
    }

    /// The part of label strip `strip` right of the last vertical rule in it: a frame's side,
    /// a terminal's "│" (drawn cell by cell, a pixel's gap between cells), a column inked down
    /// most of the strip with no ink beside it. What lies beyond the rule (another panel, the
    /// screen around a dialog) is no part of the label and throws the line read off ("Phone:"
    /// read at 39 % with a terminal's blue screen in the strip, at 88 % without).
    fn after_rule(&self, strip: Rect) -> Rect {
        let Some(s) = strip.clamp_to(&self.bounds()) else {
            return strip;
        };
        let img = &self.frame.image;
        let bg = background(img, s);
        let inked = |x: i32| {
            let n = (s.y..s.bottom())
                .filter(|&y| is_ink(luma(img, x, y), bg))
                .count() as i32;
            n * 10 >= s.h * 8
        };
        let rule = (s.x + 1..s.right() - 4)
            .rev()
            .find(|&x| inked(x) && !inked(x + 2) && !inked(x + 3));
        match rule {
            Some(x) => Rect::new(x + 2, s.y, s.right() - x - 2, s.h),
            None => strip,
        }
    }

    /// How many pixel rows of `r` hold ink: a trailing ellipsis or colon is a few rows, a
    /// character is most of the line.
    pub fn ink_rows(&self, r: Rect) -> i32 {
        let Some(r) = r.clamp_to(&self.bounds()) else {
            return 0;
        };
        let img = &self.frame.image;
        let bg = background(img, r);
        (r.y..r.bottom())
            .filter(|&y| (r.x..r.right()).any(|x| is_ink(luma(img, x, y), bg)))
            .count() as i32
    }

    /// Whether ink continues right next to a text line beyond what OCR returned for it: a
    /// caption with an unread part (删除全部 read as 删除 when 全部 fell under the confidence
    /// floor). Pixel evidence, independent of OCR confidence; a match with unread ink is no match.
    pub fn unread_ink(&mut self, line: Rect, within: Option<Rect>) -> Option<Rect> {
        let h = line.h.max(6);
        let mut strip = Rect::new(line.x - 2 * h, line.y, line.w + 4 * h, line.h);
        if let Some(w) = within {
            strip = strip.intersect(&w.inflate(-3))?;
        } else {
            // A bare label's strip ends where another control's frame begins: the field
            // beside 客户编号 is not unread text of it.
            let (l, r) = (line.x, line.right());
            let mut left = strip.x;
            let mut right = strip.right();
            for b in self.boxes().iter().map(|b| b.rect) {
                let overlaps = b.y < line.bottom() && line.y < b.bottom();
                if !overlaps || b.contains(line.center()) {
                    continue;
                }
                if b.x >= r {
                    right = right.min(b.x - 1);
                }
                if b.right() <= l {
                    left = left.max(b.right() + 1);
                }
            }
            // Nor is a check box beside it (a small square frame, a tick inside).
            if let Some(b) = mend_vision::find_check_indicator(&self.frame.image, line) {
                if b.right() <= l + 2 {
                    left = left.max(b.right() + 1);
                } else if b.x >= r - 2 {
                    right = right.min(b.x - 1);
                }
            }
            strip = Rect::new(left, strip.y, (right - left).max(0), strip.h);
            // Text in a bar (a menu bar holding several items) ends inside the bar's frame.
            if let Some(bar) = self
                .boxes()
                .iter()
                .map(|b| b.rect)
                .filter(|b| b.contains(line.center()))
                .min_by_key(|b| b.area())
            {
                strip = strip.intersect(&bar.inflate(-3))?;
            }
        }
        // Text in a popup (a menu, a drop-down) ends inside it: what lies past its side is the
        // window it hangs over.
        if let Some(p) = self
            .frame
            .info
            .popups
            .iter()
            .find(|p| p.contains_rect(&line))
        {
            strip = strip.intersect(&p.inflate(-2))?;
        }
        let img = &self.frame.image;
        let strip = strip.clamp_to(&self.bounds())?;
        let bg = background(img, strip);
        let ink_at =
            |x: i32, y: i32| y >= 0 && y < img.height() as i32 && is_ink(luma(img, x, y), bg);
        // A column inked through the whole strip and on past it, above or below, is a rule —
        // a table's grid or frame line beside the text (C003 in an owner-drawn table), the
        // side of a window a popup menu hangs below (it ends by the menu's middle item) — and
        // no unread text.
        let rule = |x: i32| {
            (strip.y..strip.bottom()).all(|y| ink_at(x, y))
                && (ink_at(x, strip.y - h / 2) || ink_at(x, strip.bottom() + h / 2))
        };
        let inked = |x: i32| (strip.y..strip.bottom()).any(|y| ink_at(x, y)) && !rule(x);
        let max_gap = (h as f64 * 0.9) as i32;
        let reach = (h as f64 * 0.5) as i32;
        // Ink another line on this row was read from, more than half a text height away, is
        // read, not unread: the next item of a menu bar in a large bold font stands 0.8 of a
        // text height off ("Edit" beside "Search"). A part closer than that is of this text.
        let others: Vec<Rect> = self
            .labels_read()
            .iter()
            .map(|o| o.line)
            .filter(|o| {
                let overlap = o.bottom().min(line.bottom()) - o.y.max(line.y);
                let gap = (o.x - line.right()).max(line.x - o.right());
                2 * overlap >= o.h.min(line.h) && 2 * gap > h
            })
            .collect();
        let read = |x: i32| others.iter().any(|o| x >= o.x && x < o.right());
        // Walk outwards from each end of the line while ink stays within max_gap.
        let walk = |from: i32, step: i32| -> i32 {
            let (mut x, mut last, mut gap) = (from, from, 0);
            while x >= strip.x && x < strip.right() && gap <= max_gap && !read(x) {
                if inked(x) {
                    last = x;
                    gap = 0;
                } else {
                    gap += 1;
                }
                x += step;
            }
            (last - from).abs()
        };
        let (mut right, mut left) = (walk(line.right(), 1), walk(line.x - 1, -1));
        // Ink that runs on, unbroken, well above and below the line is a picture (a menu
        // item's 16 px icon beside 13 px text), not unread text: a fifth taller than the
        // window's usual text or the line, whichever is taller (a line of x-height letters
        // is not the measure: a word beside it with capitals is text).
        let usual = labels_text_height(self.labels_read())
            .unwrap_or(0)
            .max(line.h);
        let tall = |x0: i32, x1: i32| {
            let row = |y: i32| (x0..x1).any(|x| ink_at(x, y));
            let (mut top, mut bottom) = (line.y, line.bottom() - 1);
            while top > line.y - 2 * h && row(top - 1) {
                top -= 1;
            }
            while bottom < line.bottom() + 2 * h && row(bottom + 1) {
                bottom += 1;
            }
            // In colour (UI text is grey), a tenth taller is enough: a 16 px icon beside
            // a 14 px line with descenders.
            let colour = (top..=bottom).any(|y| {
                (x0..x1).any(|x| {
                    let inside =
                        x >= 0 && y >= 0 && x < img.width() as i32 && y < img.height() as i32;
                    inside && {
                        let p = img.get_pixel(x as u32, y as u32).0;
                        chroma(p[0] as i32, p[1] as i32, p[2] as i32) > 60
                    }
                })
            });
            let extent = (bottom - top + 1) * 10;
            extent >= usual * 12 || (colour && extent >= usual * 11)
        };
        if right > reach && tall(line.right(), line.right() + right + 1) {
            right = 0;
        }
        // A picture before the text: a run of colour in a grey outline, apart from the text
        // (jEdit's magnifier beside Find..., its pale lens no ink, the walk ended in it).
        let picture = || {
            let from = Rect::new(
                line.x - left - 2 * h,
                line.y - h / 2,
                left + 2 * h + line.w,
                2 * h,
            );
            // Within the strip across: a button's own edge left of its icon is no run of it.
            let from = from
                .intersect(&Rect::new(strip.x, from.y, strip.w, from.h))
                .unwrap_or(from);
            // The text begins at the line's start, or up to a text height in (a reader's box
            // has a margin, or takes in the icon's edge: 取消 read from 8 px before it).
            mend_vision::text_after_icon(img, from)
                .is_some_and(|x| x >= line.x - 3 && x <= line.x + h.max(3))
        };
        if left > reach && (tall(line.x - left, line.x) || picture()) {
            left = 0;
        }
        let mut extra: Option<Rect> = None;
        if right > reach {
            extra = Some(Rect::new(line.right(), line.y - 2, right + 3, line.h + 4));
        }
        if left > reach {
            let l = Rect::new(line.x - left - 3, line.y - 2, left + 3, line.h + 4);
            extra = Some(extra.map_or(l, |e| e.union(&l)));
        }
        extra
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, x: i32, w: i32) -> Line {
        let rect = Rect::new(x, 100, w, 10);
        Line {
            text: text.into(),
            rect,
            conf: 90.0,
            words: vec![Word {
                text: text.into(),
                rect,
                conf: 90.0,
                line_key: (0, 0, 0),
            }],
        }
    }

    /// A line of `words` read on one row: its box around theirs, its text theirs joined.
    fn line_of(words: Vec<Word>) -> Line {
        let rect = words[1..]
            .iter()
            .fold(words[0].rect, |r, w| r.union(&w.rect));
        let text = words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        Line {
            text,
            rect,
            conf: 90.0,
            words,
        }
    }

    #[test]
    fn an_icon_in_a_menus_gutter_is_no_part_of_its_caption() {
        let word = |t: &str, x: i32, w: i32| Word {
            text: t.into(),
            rect: Rect::new(x, 100, w, 14),
            conf: 90.0,
            line_key: (0, 0, 0),
        };
        let line = |ws: Vec<Word>, y: i32| {
            line_of(
                ws.into_iter()
                    .map(|mut w| {
                        w.rect.y = y;
                        w
                    })
                    .collect(),
            )
        };
        let menu = vec![
            line(vec![word("保存(S)", 34, 42)], 159),
            line(vec![word("B", 13, 9), word("另存为(A)...", 34, 68)], 185),
            line(vec![word("副本另存为(C)...", 34, 96)], 237),
            line(vec![word("全部保存(L)", 33, 70)], 262),
            // A check mark's item that starts in the gutter as a whole is kept as read.
            line(vec![word("Wrap", 14, 30)], 288),
        ];
        let texts: Vec<String> = without_gutter(menu).into_iter().map(|l| l.text).collect();
        assert!(texts.contains(&"另存为(A)...".to_string()), "{texts:?}");
        assert!(!texts.iter().any(|t| t.starts_with('B')), "{texts:?}");
        assert!(texts.contains(&"Wrap".to_string()), "{texts:?}");
        // Lines with no shared column (a dialog's text) are left as they are.
        let loose = vec![
            line(vec![word("B", 13, 9), word("Save", 34, 30)], 10),
            line(vec![word("Name", 80, 30)], 40),
        ];
        assert_eq!(without_gutter(loose)[0].text, "B Save");
    }

    /// A return arrow set apart after `OK`, read `今`, is left out of the line; an ideograph
    /// close after Latin letters, a word of two ideographs, and a line of Chinese stay.
    #[test]
    fn a_sign_read_as_an_ideograph_after_a_latin_caption_is_left_out() {
        let word = |t: &str, x: i32, w: i32| Word {
            text: t.into(),
            rect: Rect::new(x, 100, w, 11),
            conf: 90.0,
            line_key: (0, 0, 0),
        };
        let line = line_of;
        let texts = |l: Line| -> Vec<String> {
            without_signs_after(vec![l])
                .into_iter()
                .map(|l| l.text)
                .collect()
        };
        assert_eq!(
            texts(line(vec![word("OK", 349, 20), word("今", 376, 14)])),
            ["OK"]
        );
        assert_eq!(
            texts(line(vec![word("OK", 349, 20), word("今", 372, 14)])),
            ["OK 今"],
            "three pixels apart: a word of the line"
        );
        assert_eq!(
            texts(line(vec![word("Save", 349, 28), word("保存", 390, 24)])),
            ["Save 保存"]
        );
        assert_eq!(
            texts(line(vec![word("确定", 349, 24), word("今", 390, 12)])),
            ["确定 今"]
        );
    }

    /// "K OK >" where the "K" is drawn as the mirror of the ">" is "< OK >", a text button; a
    /// line whose first glyph really is a K is left as it was read.
    #[test]
    fn a_misread_bracket_is_known_by_its_shape() {
        let open = [
            "....##", "...##.", "..##..", ".##...", "##....", ".##...", "..##..", "...##.",
            "....##",
        ];
        let kay = [
            "##..##", "##.##.", "####..", "###...", "##....", "###...", "####..", "##.##.",
            "##..##",
        ];
        let draw = |first: &[&str]| {
            let mut img = RgbaImage::from_pixel(240, 130, image::Rgba([0, 0, 238, 255]));
            let mut put = |x: usize, y: usize| {
                img.put_pixel(x as u32, y as u32, image::Rgba([255; 4]));
            };
            for (dy, (row, bracket)) in first.iter().zip(open).enumerate() {
                for (dx, c) in row.chars().enumerate() {
                    if c == '#' {
                        put(159 + dx, 100 + dy);
                    }
                }
                // The closing bracket: the opening one mirrored.
                for (dx, c) in bracket.chars().rev().enumerate() {
                    if c == '#' {
                        put(201 + dx, 100 + dy);
                    }
                }
            }
            img
        };
        let read = || {
            let mut l = line("K OK >", 158, 50);
            l.words = vec![
                line("K", 158, 8).words.remove(0),
                line("OK", 176, 12).words.remove(0),
                line(">", 200, 8).words.remove(0),
            ];
            vec![l]
        };
        let mut lines = read();
        brackets_by_shape(&mut lines, &draw(&open));
        assert_eq!(lines[0].text, "< OK >");
        let (lines, spans) = bracket_buttons(lines);
        assert_eq!((lines[0].text.as_str(), spans[0].is_some()), ("OK", true));

        let mut lines = read();
        brackets_by_shape(&mut lines, &draw(&kay));
        assert_eq!(lines[0].text, "K OK >");
    }

    /// "< OK >" read as three lines and "<Cancel>" as one are each a text button: one line of
    /// the caption alone, its control the bracket span. Brackets in a sentence, parentheses and
    /// a bracket with no caption are not.
    #[test]
    fn a_caption_in_brackets_is_a_text_button() {
        let (lines, spans) = bracket_buttons(vec![
            line("<", 158, 6),
            line("OK", 176, 12),
            line(">", 200, 6),
            line("<Cancel>", 242, 48),
        ]);
        let ok = lines.iter().position(|l| l.text == "OK").unwrap();
        assert_eq!(lines[ok].rect, Rect::new(176, 100, 12, 10));
        let span = spans[ok].unwrap();
        assert!(span.x <= 158 && span.right() >= 206 && span.h >= 12);
        let cancel = lines.iter().position(|l| l.text == "Cancel").unwrap();
        assert!(spans[cancel].is_some());
        assert_eq!(lines.len(), 2);

        for plain in [
            vec![line("Press <Enter> to go", 10, 110)],
            vec![line("Press", 10, 30), line("<Enter>", 46, 42)],
            vec![line("(OK)", 10, 24)],
            vec![line("<", 10, 6), line(">", 30, 6)],
            vec![line("<", 10, 6), line("OK", 100, 12), line(">", 130, 6)],
            vec![line("< Yes", 10, 30), line("< No >", 50, 36)],
        ] {
            let n = plain.len();
            let texts: Vec<String> = plain.iter().map(|l| l.text.clone()).collect();
            let (lines, spans) = bracket_buttons(plain);
            let buttons: Vec<&str> = lines
                .iter()
                .zip(&spans)
                .filter(|(_, s)| s.is_some())
                .map(|(l, _)| l.text.as_str())
                .collect();
            // "< No >" alone is a button; nothing else in these is.
            assert!(
                buttons.iter().all(|b| *b == "No") && lines.len() + 2 >= n,
                "{texts:?} gave buttons {buttons:?}"
            );
        }
    }
}
