use mend_capture::Frame;
use mend_model::{MendError, Rect, Role};
use mend_ocr::{Line, OcrEngine, OcrOptions};
use mend_vision::{find_control_boxes, ControlBox};

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
        lines
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
    ) -> Result<Vec<SeenLabel>, MendError> {
        let lines = ocr.read_lines(&self.frame.image, region, REGION_OCR)?;
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
            let own = ocr.read_lines(&self.frame.image, b.rect.inflate(-2), REGION_OCR)?;
            if !own.is_empty() {
                lines.retain(|l| !b.rect.contains(l.rect.center()));
                lines.extend(own);
            }
        }
        let labels = self.attach(lines);
        self.window_labels = Some(labels.clone());
        Ok(labels)
    }
}
