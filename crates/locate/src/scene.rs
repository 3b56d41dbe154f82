use image::RgbaImage;
use mend_capture::Frame;
use mend_model::{MendError, Rect, Role};
use mend_ocr::{join_lines, GlyphRead, Line, OcrEngine, OcrOptions, Reader, Word};
use mend_vision::{background, chroma, find_control_boxes, is_ink, luma, mirrors, ControlBox};

mod brackets;
mod ink;
mod lines;

use brackets::*;
use ink::*;
use lines::*;

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
