//! The ink of captions and of what was not read: a framed control's caption from its pixels
//! alone (short captions read again on their own, checked against their shape), the second
//! look that reads every unframed strip again as one line, and ink left unread beside a line.

use super::*;

/// The ink of a framed control's caption, from its pixels alone.
#[derive(Debug, Clone)]
pub(super) struct CaptionInk {
    /// Bounding box of the caption's ink.
    pub(super) rect: Rect,
    /// Runs of inked columns: the glyph count for fonts that space their glyphs.
    pub(super) groups: usize,
    /// The connected pieces of ink (8-connected), as boxes.
    pub(super) parts: Vec<Rect>,
    /// The control's background grey.
    pub(super) bg: u8,
}

/// A caption this short is read on its own as one character or one word: one or two glyphs,
/// no wider than two text heights (one ideograph splits into several groups; a word is wider).
pub(super) fn is_short(ink: &CaptionInk, text_h: i32) -> bool {
    ink.groups <= 2 && ink.rect.w <= 2 * ink.rect.h.max(text_h)
}

/// Glyphs whose shape says what they are, whatever OCR makes of them. A dot (a few pixels
/// square, well under the text height) is "."; one flat bar is "-"; two flat bars stacked are
/// "=". OCR alone reads a bitmap font's 3×3 dot as "+" — and "+" on the keypad then
/// answered the "." key (issue 13).
pub(super) fn glyph_shape(ink: &CaptionInk, text_h: i32) -> Option<&'static str> {
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
pub(super) fn plausible(read: &str, ink: &CaptionInk, text_h: i32) -> bool {
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
pub(super) fn text_height(lines: &[Line]) -> Option<i32> {
    text_height_of(lines.iter().map(|l| (l.rect.h, l.text.as_str(), l.conf)))
}

/// [`text_height`] of labels already attached.
pub(super) fn labels_text_height(labels: &[SeenLabel]) -> Option<i32> {
    text_height_of(labels.iter().map(|l| (l.line.h, l.text.as_str(), l.conf)))
}

/// [`text_height`] over (height, text, confidence) of each line.
pub(super) fn text_height_of<'t>(lines: impl Iterator<Item = (i32, &'t str, f32)>) -> Option<i32> {
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
pub(super) const DOUBTFUL: f32 = 60.0;

/// The least sure word of a reading (100 for nothing read: nothing to doubt).
pub(super) fn weakest(lines: &[Line]) -> f32 {
    lines.iter().map(|l| l.conf).fold(100.0, f32::min)
}

/// A one-glyph reading below this confidence is no reading (a guess between look-alikes).
pub(super) const SHORT_MIN_CONF: f32 = 50.0;

impl Scene<'_> {
    /// The caption's ink inside framed box `b`: the interior less its border (rows or columns
    /// inked across most of it are frame or bevel lines, and pieces touching the interior's
    /// edge are a rounded frame's corners), cut into connected pieces.
    pub(super) fn caption_ink(&self, b: Rect) -> Option<CaptionInk> {
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
        let mut parts = Vec::new();
        let mut cols = vec![false; w];
        for part in mend_vision::ink_parts(&ink, w) {
            let r = part.rect;
            if r.x == 0 || r.y == 0 || r.right() == w as i32 || r.bottom() == h as i32 {
                continue;
            }
            for &i in &part.cells {
                cols[i % w] = true;
            }
            parts.push(r.translate(inner.x, inner.y));
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
    pub(super) fn read_short(
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
    pub(super) fn after_rule(&self, strip: Rect) -> Rect {
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
        let strip = self.unread_strip(line, within, h)?;
        let img = &self.frame.image;
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
        let others = self.read_apart_on_row(line, h);
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
        // The measure of a picture's height: the window's usual text or the line, whichever
        // is taller (a line of x-height letters is not the measure: a word beside it with
        // capitals is text).
        let usual = labels_text_height(self.labels_read())
            .unwrap_or(0)
            .max(line.h);
        // A picture beside the text is no unread text: ink running on well above and below
        // the line ([`picture_tall`]), or an icon before it ([`icon_before`]).
        let tall = |x0: i32, x1: i32| picture_tall(img, line, usual, x0..x1, &ink_at);
        if right > reach && tall(line.right(), line.right() + right + 1) {
            right = 0;
        }
        if left > reach && (tall(line.x - left, line.x) || icon_before(img, line, strip, left)) {
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

    /// The strip along `line` (text height `h`) where ink left unread is looked for: two text
    /// heights either side, within the control `within` holds it, else cut at other controls
    /// beside a bare label ([`Scene::bare_label_strip`]); inside the popup the line is in, and
    /// on the window.
    fn unread_strip(&mut self, line: Rect, within: Option<Rect>, h: i32) -> Option<Rect> {
        let mut strip = Rect::new(line.x - 2 * h, line.y, line.w + 4 * h, line.h);
        if let Some(w) = within {
            strip = strip.intersect(&w.inflate(-3))?;
        } else {
            strip = self.bare_label_strip(line, strip)?;
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
        strip.clamp_to(&self.bounds())
    }

    /// Strip `strip` along bare label `line` less what is another control's: cut where the
    /// frame of a control beside it begins, or a check box beside it; inside the frame of a bar
    /// that holds it.
    fn bare_label_strip(&mut self, line: Rect, strip: Rect) -> Option<Rect> {
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
        let strip = Rect::new(left, strip.y, (right - left).max(0), strip.h);
        // Text in a bar (a menu bar holding several items) ends inside the bar's frame.
        match self
            .boxes()
            .iter()
            .map(|b| b.rect)
            .filter(|b| b.contains(line.center()))
            .min_by_key(|b| b.area())
        {
            Some(bar) => strip.intersect(&bar.inflate(-3)),
            None => Some(strip),
        }
    }

    /// The lines read on `line`'s row more than half a text height (`h`) from it. Ink another
    /// line was read from is read, not unread: the next item of a menu bar in a large bold font
    /// stands 0.8 of a text height off ("Edit" beside "Search"). A part closer than that is of
    /// this text.
    fn read_apart_on_row(&self, line: Rect, h: i32) -> Vec<Rect> {
        self.labels_read()
            .iter()
            .map(|o| o.line)
            .filter(|o| {
                let overlap = o.bottom().min(line.bottom()) - o.y.max(line.y);
                let gap = (o.x - line.right()).max(line.x - o.right());
                2 * overlap >= o.h.min(line.h) && 2 * gap > h
            })
            .collect()
    }
}

/// Whether the ink beside `line` in columns `cols` runs on, unbroken, well above and below the
/// line: a picture (a menu item's 16 px icon beside 13 px text), not unread text. A fifth
/// taller than `usual` (the window's usual text or the line, whichever is taller); in colour
/// (UI text is grey), a tenth taller. `ink_at` tells ink at a pixel.
fn picture_tall(
    img: &RgbaImage,
    line: Rect,
    usual: i32,
    cols: std::ops::Range<i32>,
    ink_at: &impl Fn(i32, i32) -> bool,
) -> bool {
    let h = line.h.max(6);
    let (x0, x1) = (cols.start, cols.end);
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
            let inside = x >= 0 && y >= 0 && x < img.width() as i32 && y < img.height() as i32;
            inside && {
                let p = img.get_pixel(x as u32, y as u32).0;
                chroma(p[0] as i32, p[1] as i32, p[2] as i32) > 60
            }
        })
    });
    let extent = (bottom - top + 1) * 10;
    extent >= usual * 12 || (colour && extent >= usual * 11)
}

/// Whether the ink `left` pixels before `line` is a picture before the text: a run of colour
/// in a grey outline, apart from the text (jEdit's magnifier beside Find..., its pale lens no
/// ink, the walk ended in it), within `strip` across.
fn icon_before(img: &RgbaImage, line: Rect, strip: Rect, left: i32) -> bool {
    let h = line.h.max(6);
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
}
