use mend_capture::Frame;
use mend_model::{MendError, Rect, Role};
use mend_ocr::{join_lines, Line, OcrEngine, OcrOptions};
use mend_vision::{background, find_control_boxes, is_ink, luma, ControlBox};

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

/// Below this word confidence a control's caption is read a second time (see `window_labels`).
const DOUBTFUL: f32 = 60.0;

/// The least sure word of a reading (100 for nothing read: nothing to doubt).
fn weakest(lines: &[Line]) -> f32 {
    lines.iter().map(|l| l.conf).fold(100.0, f32::min)
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

    pub fn boxes(&mut self) -> &[ControlBox] {
        if self.boxes.is_none() {
            self.boxes = Some(find_control_boxes(&self.frame.image));
        }
        self.boxes.as_deref().unwrap_or_default()
    }

    fn attach(&mut self, lines: Vec<Line>) -> Vec<SeenLabel> {
        let boxes = self.boxes().to_vec();
        split_at_boxes(lines, &boxes)
            .into_iter()
            .map(|l| {
                let c = l.rect.center();
                // The smallest framed box holding the text's centre: a button, not its panel.
                let control = boxes
                    .iter()
                    .filter(|b| b.rect.contains(c) && b.rect.area() < 40 * l.rect.area().max(1))
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
        Ok(self.attach(lines))
    }

    /// Text in the whole window, plus each framed control read on its own (single-character
    /// and small captions only read cleanly when cropped and upscaled).
    pub fn window_labels(&mut self, ocr: &mut OcrEngine) -> Result<Vec<SeenLabel>, MendError> {
        if let Some(l) = &self.window_labels {
            return Ok(l.clone());
        }
        let mut lines = ocr.read_lines(&self.frame.image, self.bounds(), WINDOW_OCR)?;
        let boxes = self.boxes().to_vec();
        for b in boxes.iter().filter(|b| b.rect.h <= 60) {
            // Read every framed control on its own, upscaled: mixed captions such as 登录(L)
            // come back garbled from the whole-window pass. The crop's reading wins.
            let opts = line_ocr(b.rect.h);
            let mut own = ocr.read_lines(&self.frame.image, b.rect.inflate(-2), opts)?;
            // A doubtful word: read again one step smaller and keep the surer reading. OK (O)
            // on a dark-theme dialog came back "OK (QO)" (50 %) at 3× and "OK(O)" (72 %) at 2×.
            if weakest(&own) < DOUBTFUL {
                let smaller = OcrOptions {
                    scale: if opts.scale > 1 { opts.scale - 1 } else { 2 },
                    ..opts
                };
                let again = ocr.read_lines(&self.frame.image, b.rect.inflate(-2), smaller)?;
                if weakest(&again) > weakest(&own) {
                    own = again;
                }
            }
            if !own.is_empty() {
                lines.retain(|l| !b.rect.contains(l.rect.center()));
                lines.extend(own);
            }
        }
        let labels = self.attach(lines);
        self.window_labels = Some(labels.clone());
        Ok(labels)
    }

    /// The second look: every unframed text strip read again on its own as one line.
    /// Costs a region read per strip (cached), so the chain asks only when the first pass found
    /// nothing.
    pub fn reread_labels(&mut self, ocr: &mut OcrEngine) -> Result<Vec<SeenLabel>, MendError> {
        let first = self.window_labels(ocr)?;
        let mut out = Vec::new();
        for l in first {
            if l.control.is_some() {
                out.push(l);
                continue;
            }
            let h = l.line.h.max(8);
            let strip = Rect::new(
                l.line.x - h,
                l.line.y - h / 3,
                l.line.w + 2 * h,
                l.line.h + 2 * (h / 3),
            );
            let again = ocr.read_lines(&self.frame.image, strip, line_ocr(strip.h * 2))?;
            if again.is_empty() {
                out.push(l);
            } else {
                out.extend(self.attach(again));
            }
        }
        // A framed button nothing was read in: read its caption again in sparse mode, which
        // takes a trailing ellipsis (编辑…) that single-line mode returns nothing for.
        let silent: Vec<Rect> = self
            .boxes()
            .iter()
            .filter(|b| b.role == Role::Button && b.rect.h <= 60)
            .map(|b| b.rect)
            .filter(|r| !out.iter().any(|l| r.contains(l.line.center())))
            .collect();
        for b in silent {
            let found = ocr.read_lines(&self.frame.image, b, REGION_OCR)?;
            out.extend(self.attach(found));
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
            let strip = Rect::new(f.x - 240, f.y, 236, f.h);
            if out
                .iter()
                .any(|l| l.control.is_none() && strip.contains(l.line.center()))
            {
                continue;
            }
            let found = ocr.read_lines(&self.frame.image, strip, line_ocr(f.h))?;
            out.extend(self.attach(found));
        }
        Ok(out)
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
            strip = Rect::new(left, strip.y, (right - left).max(0), strip.h);
        }
        let img = &self.frame.image;
        let strip = strip.clamp_to(&self.bounds())?;
        let bg = background(img, strip);
        let ink_at =
            |x: i32, y: i32| y >= 0 && y < img.height() as i32 && is_ink(luma(img, x, y), bg);
        // A column inked through the whole strip and on past it, above and below, is a rule —
        // a table's grid or frame line beside the text (C003 in an owner-drawn table) — and
        // no unread text.
        let rule = |x: i32| {
            (strip.y..strip.bottom()).all(|y| ink_at(x, y))
                && ink_at(x, strip.y - h / 2)
                && ink_at(x, strip.bottom() + h / 2)
        };
        let inked = |x: i32| (strip.y..strip.bottom()).any(|y| ink_at(x, y)) && !rule(x);
        let max_gap = (h as f64 * 0.9) as i32;
        let reach = (h as f64 * 0.5) as i32;
        // Walk outwards from each end of the line while ink stays within max_gap.
        let walk = |from: i32, step: i32| -> i32 {
            let (mut x, mut last, mut gap) = (from, from, 0);
            while x >= strip.x && x < strip.right() && gap <= max_gap {
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
        let (right, left) = (walk(line.right(), 1), walk(line.x - 1, -1));
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
