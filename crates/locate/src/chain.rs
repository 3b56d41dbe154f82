use crate::scene::{control_height, line_ocr, Scene, SceneCache, REGION_OCR};
use crate::seen::SeenScreens;
use crate::semantic::{OfflineMatcher, SemanticMatcher};
use crate::text::{adds_a_word, another_caption, label_match, normalize};
use crate::SeenLabel;
use image::RgbaImage;
use mend_capture::Frame;
use mend_model::{Candidate, ErrorCode, Located, MendError, Rect, Role, Strategy, Target};
use mend_ocr::{is_ideograph, OcrEngine, OcrMode};
use mend_structure::Structure;
use mend_vision::{
    centred_ink, confirm_short, crop, filled_bar, find_template, glyph_stands_out, ink_of,
    pixel_diff, template_places, ControlBox, Verdict, SCALES,
};

/// What was recorded with a target besides its description: the template crop.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    pub template: Option<RgbaImage>,
}

/// A refusal: the code says why; the candidates are what a person gets to choose from.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub error: MendError,
    pub candidates: Vec<Candidate>,
    /// Not found, but a caption read here is a prompt whose input shows no caret in this
    /// frame: the caption's box. A blinking caret is on in another frame; a caller that can
    /// look again when it is on ([`mend_vision::prompt_input`]) finds the input then.
    pub caret_awaited: Option<Rect>,
    /// Not found, but the button's caption was read exactly here, once, on no control of its
    /// own (a flat button drawn like a label: Tk's `relief flat`): the caption's box. A caller
    /// that can move the pointer over it and look again sees whether it lights up as a button
    /// does ([`mend_vision::lit_by_hover`]); nothing is clicked to find out.
    pub hover_asked: Option<Rect>,
}

impl From<MendError> for Refusal {
    fn from(error: MendError) -> Self {
        Refusal {
            error,
            candidates: vec![],
            caret_awaited: None,
            hover_asked: None,
        }
    }
}

impl Refusal {
    fn new(code: ErrorCode, msg: impl Into<String>, candidates: Vec<Candidate>) -> Self {
        Refusal {
            error: MendError::new(code, msg),
            candidates,
            caret_awaited: None,
            hover_asked: None,
        }
    }
}

/// A crop whose inside spans no more grey levels than this is blank.
const FLAT_CROP: u8 = 12;

/// How far left of a field its caption is looked for (frame pixels).
const FIELD_LABEL_REACH: i32 = 260;

/// Template correlation from which a recorded crop counts as "the same pixels".
const TEMPLATE_MIN: f32 = 0.9;
/// Pearson's r from which a template hit shares the recorded crop's shape
/// ([`mend_vision::TemplateHit::shape`]). On the practice app's suite every hit the exact rung
/// took rightly scored 0.59 or more (a field whose caption beside it was renamed); hits on
/// flat patches score about 0, a control of another size 0.3–0.45.
const SHAPE_MIN: f32 = 0.5;
/// Two candidates closer than this in score are a tie the text cannot break.
const TIE: f64 = 0.15;

enum Decision {
    Winner(Candidate),
    Ambiguous(Vec<Candidate>),
    Nothing,
}

/// The chain with its warm engines.
pub struct Locator {
    pub ocr: OcrEngine,
    pub semantic: Box<dyn SemanticMatcher + Send>,
    /// The flow's own names for its controls: the semantic rung never answers a control that
    /// reads as one of them (unless it is this target's own name). A flow that clicks "Search"
    /// and then "Find..." means two controls; "Find" being a synonym of "Search" must not
    /// send the second click to the first (jEdit's Search menu, clicked again while its
    /// popup was still opening).
    pub flow_names: Vec<String>,
    cache: SceneCache,
    /// Readings of the target's text that its ink refuted (one locate's), for the refusal.
    refuted: Vec<String>,
    /// The second reader (`MEND_OCR=both`) with its own readings of the screens.
    second: Option<(OcrEngine, SceneCache)>,
    /// The meaning rung is asked by the first reader's pass only (a model's answer costs
    /// seconds, and the second reader's pass is about spelling).
    no_meaning: bool,
    /// The accessibility tree (the structural rung, `structural.rs`), when the desktop has one:
    /// set by the live faces ([`Locator::use_desktop_tree`]), never on screenshots.
    pub structure: Option<Box<dyn Structure + Send>>,
    /// Windows already said to have no tree (said once per run).
    pub(crate) no_tree: Vec<String>,
    /// Why the tree did not answer this locate (for the refusal's message).
    pub(crate) tree_said: Option<String>,
    /// The readings of the last frame looked at again with its faint text drawn
    /// ([`Locator::faint_pass`]), and whether such a look is under way.
    faint_cache: SceneCache,
    in_faint_pass: bool,
    /// The windows' pixels last looked at, since when, and what was proven absent on them.
    seen: SeenScreens,
}

/// A reading on `line` took in all of the faint row `row` (at least nine tenths of its
/// width, on its band): a row read in part (`ame` of a `Name` whose yellow N was lost) is not.
fn read_whole(line: &Rect, row: &Rect) -> bool {
    let across = line.right().min(row.right()) - line.x.max(row.x);
    let c = row.center().y;
    line.y <= c && c < line.bottom() && across * 10 >= row.w * 9
}

/// The bit that tells a frame looked at again with its faint text drawn from the frame itself
/// (their readings are cached apart).
const FAINT_FRAME: u64 = 1 << 62;

/// `reading` holds the target's whole caption and more words: a look-alike ("Save As…" for
/// "Save"), never the target read less well.
fn added_word(target: &str, reading: &str) -> bool {
    let (t, r) = (normalize(target), normalize(reading));
    !t.is_empty() && r.len() > t.len() && r.contains(&t) && crate::text::adds_a_word(&t, &r)
}

/// Whether a short reading (one to three glyphs, no ideograph) is not what its ink shows:
/// the machine's fonts draw it unlike the ink, or another glyph fits clearly better.
fn shape_refutes(img: &image::RgbaImage, l: &SeenLabel, text_h: Option<f32>) -> bool {
    let glyphs = l.text.chars().filter(|c| !c.is_whitespace()).count();
    if glyphs == 0 || glyphs > 3 || l.text.chars().any(is_ideograph) {
        return false;
    }
    let Some(ink) = ink_of(img, l.line) else {
        return false;
    };
    matches!(
        confirm_short(&l.text, &ink, text_h),
        Verdict::Unlike(_) | Verdict::Other(..)
    )
}

/// The reading of the place a reader found, by the reader that did not find it there: the
/// target only if that reading is nothing, the target, or a near spelling of it. Where the
/// first reader missed the target, its own reading of the place the second found is held to
/// this stricter rule than [`witness`]: it read the place and did not see the target there.
fn first_reading_allows(target: &str, reading: &str) -> bool {
    let (t, r) = (normalize(target), normalize(reading));
    // Letters and digits only, a digit one reader takes for the letter of its shape folded
    // into it: 0 and O, 1 and l (a terminal's "[< OK >]" read "[< 0K >]").
    let letters = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .map(|c| match c {
                '0' => 'o',
                '1' => 'l',
                c => c,
            })
            .collect()
    };
    r.is_empty()
        || label_match(target, reading).is_some()
        // The same letters with marks about them: a frame's ends read as "(Load)", a zero
        // for an O.
        || letters(&t) == letters(&r)
        // One letter off in a word of four or more ("yiew" for "View"), no word added.
        || (t.chars().count() >= 4
            && crate::text::similarity(&t, &r) >= 0.75
            && !added_word(target, reading)
            && !added_word(reading, target))
}

/// The caption's line of a control drawn with characters at `rect` (a text button the first
/// reader made of brackets and the caption between: its box is no frame the pixels show), or
/// `None` for a framed control or none read there.
fn drawn_caption(scene: &mut Scene, ocr: &mut OcrEngine, rect: Rect) -> Option<Rect> {
    if scene.boxes().iter().any(|b| b.rect.iou(&rect) >= 0.7) {
        return None;
    }
    let labels = scene.window_labels(ocr).ok()?;
    labels
        .iter()
        .find(|s| {
            s.control
                .as_ref()
                .is_some_and(|c| c.rect == rect && c.role == Role::Button)
                && rect.contains_rect(&s.line)
                && s.line.w < rect.w
        })
        .map(|s| s.line)
}

/// What the second reader said about a place the first read as the target.
#[derive(Debug, Clone, PartialEq)]
pub enum Witness {
    /// It reads the target's caption there too (or nothing to go on: a blank, a misreading).
    Agrees,
    /// It reads there the caption of another control on the screen.
    Conflicts { reading: String, other: String },
}

/// A reading of a place by the other reader: does it contradict the target? It does only when
/// it is another control's caption — the same text as a label read elsewhere on the screen
/// (not overlapping `at`) — and fits no part of the target's own caption: a misreading with
/// no such twin (`Eile` for `File`, an icon read as a mark) is no evidence of another control.
pub fn witness(target: &str, reading: &str, at: Rect, labels: &[SeenLabel]) -> Witness {
    if normalize(reading).is_empty() || label_match(target, reading).is_some() {
        return Witness::Agrees;
    }
    // The target's caption with a word more ("Save As…" where "Save" was read): that word
    // changes which control it is, whether or not another one is captioned so.
    if added_word(target, reading) {
        return Witness::Conflicts {
            reading: reading.to_string(),
            other: reading.to_string(),
        };
    }
    match labels.iter().find(|l| {
        l.line.intersect(&at).is_none()
            && label_match(reading, &l.text) == Some(1.0)
            && label_match(target, &l.text).is_none()
    }) {
        Some(l) => Witness::Conflicts {
            reading: reading.to_string(),
            other: l.text.clone(),
        },
        None => Witness::Agrees,
    }
}

impl Locator {
    /// Readers from `MEND_OCR` (see [`OcrMode`]).
    pub fn new(langs: &str) -> Result<Self, MendError> {
        Self::with_mode(langs, OcrMode::from_env()?)
    }

    pub fn with_mode(langs: &str, mode: OcrMode) -> Result<Self, MendError> {
        Ok(Locator {
            ocr: OcrEngine::with_reader(langs, mode.primary())?,
            semantic: Box::new(OfflineMatcher),
            flow_names: Vec::new(),
            cache: SceneCache::default(),
            refuted: Vec::new(),
            second: match mode.second() {
                Some(r) => Some((OcrEngine::with_reader(langs, r)?, SceneCache::default())),
                None => None,
            },
            no_meaning: false,
            structure: None,
            no_tree: Vec::new(),
            tree_said: None,
            faint_cache: SceneCache::default(),
            in_faint_pass: false,
            seen: SeenScreens::default(),
        })
    }

    /// What the box `rect` (frame pixels) reads as one line, by the first reader: a field's
    /// content, a control's caption; `None` when nothing legible is there.
    pub fn read_line(&mut self, frame: &Frame, rect: Rect) -> Option<String> {
        joined_reading(&mut self.ocr, frame, rect.inflate(-2), line_ocr(rect.h))
    }

    /// What a field at `rect` (frame pixels) reads, one reading per reader (the second reader
    /// when there is one): two readers that agree are a witness a single one is not. Empty
    /// readings are left out.
    pub fn read_field(&mut self, frame: &Frame, rect: Rect) -> Vec<String> {
        let mut out: Vec<String> = self.read_line(frame, rect).into_iter().collect();
        // The witness reads word by word: read as one line, a drop-down's arrow beside the
        // text can take the whole line with it (LibreOffice's file name box read `局`).
        if let Some((ocr, _)) = self.second.as_mut() {
            out.extend(joined_reading(ocr, frame, rect.inflate(-2), REGION_OCR));
        }
        out
    }

    /// Forget every cached reading: the next locate starts cold (benchmarks, a new screen).
    pub fn clear_caches(&mut self) {
        self.ocr.clear_cache();
        self.cache = SceneCache::default();
        if let Some((ocr, cache)) = self.second.as_mut() {
            ocr.clear_cache();
            *cache = SceneCache::default();
        }
        self.seen.clear();
    }

    /// How long (ms) `frame`'s window had shown these very pixels at the latest locate on
    /// it: from the first look at them to that one. 0 for pixels not looked at before, or
    /// changed since. Two looks that far apart are two fresh frames that agree.
    pub fn steady_ms(&self, frame: &Frame) -> u64 {
        self.seen.steady_ms(frame)
    }

    /// What `mend record` keeps of a located control as its crop (frame pixels): a button's
    /// or any other control's own box; a field's box widened left over the caption read
    /// beside it on its rows — an empty field looks like any other, and only identical pixels
    /// of its caption with it let the exact rung skip reading that caption. `None` for a field
    /// whose caption is not on its rows (above it, or not read): no crop, its label locates it.
    pub fn crop_for(&mut self, frame: &Frame, target: &Target, at: Rect) -> Option<Rect> {
        if target.role != Role::Field {
            return Some(at);
        }
        let text = target.text.as_deref()?;
        let read_at = caption_strip(at);
        let mut scene = Scene::resume(frame, std::mem::take(&mut self.cache));
        // Sparse reading, as the region near a recorded place is read: a strip read as one
        // line loses a caption's first ideograph beside a field's frame (密码 as 码).
        let read = scene.labels_in(&mut self.ocr, read_at, REGION_OCR);
        self.cache = scene.into_cache();
        let label = read
            .ok()?
            .into_iter()
            .filter(|l| label_match(text, &l.text) == Some(1.0))
            .filter(|l| {
                let c = l.line.center();
                c.y >= at.y && c.y < at.bottom() && l.line.right() <= at.x
            })
            .max_by_key(|l| l.line.right())?;
        let x0 = (label.line.x - 2).max(0);
        Some(Rect::new(x0, at.y, at.right() - x0, at.h))
    }

    /// [`candidates`] with this locator's engine, noting what the shape check refuted.
    fn candidates(
        &mut self,
        scene: &mut Scene,
        labels: &[SeenLabel],
        target: &Target,
        text: &str,
    ) -> Vec<Candidate> {
        let cands = candidates(
            scene,
            &mut self.ocr,
            labels,
            target,
            text,
            &mut self.refuted,
        );
        if target.role == Role::Menu {
            among_menus(cands, labels, &scene.frame.info.popups)
        } else {
            cands
        }
    }

    /// Find `target` on `frame`: by the tree where one answers, else by the pixel rungs.
    /// A fault inside perception (a rule that reads past the image's edge) is caught here and
    /// comes back as a refusal, `PERCEPTION_FAILED`: the run stops for a person with nothing
    /// clicked, instead of the process dying between two steps.
    pub fn locate(
        &mut self,
        frame: &Frame,
        target: &Target,
        recorded: &Recorded,
    ) -> Result<Located, Refusal> {
        // Proven absent on these very pixels already: the chain would say so again.
        self.seen.look(frame);
        if let Some(r) = self.seen.absent(frame, target, recorded, &self.flow_names) {
            return Err(r);
        }
        let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.locate_unguarded(frame, target, recorded)
        }));
        if let Ok(Err(r)) = &found {
            if r.error.code == ErrorCode::LocatorNotFound {
                self.seen
                    .proven_absent(frame, target, recorded, &self.flow_names, r);
            }
        }
        found.unwrap_or_else(|fault| {
            // What the scene had read is dropped with the fault: the next look reads afresh.
            self.cache = Default::default();
            let what = fault
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| fault.downcast_ref::<&str>().copied())
                .unwrap_or("a fault");
            Err(Refusal::from(MendError::new(
                ErrorCode::PerceptionFailed,
                format!(
                    "Mend's perception failed on this screen ({what}); nothing was done here. \
                     Pick the control (takeover) or skip the step, and report the failure \
                     screenshot"
                ),
            )))
        })
    }

    fn locate_unguarded(
        &mut self,
        frame: &Frame,
        target: &Target,
        recorded: &Recorded,
    ) -> Result<Located, Refusal> {
        #[cfg(test)]
        if tests::FAULT.with(|f| f.get()) {
            panic!("a fault put here by a test");
        }
        if !self.in_faint_pass {
            if let Some(l) = self.by_tree(frame, target)? {
                return Ok(l);
            }
        }
        let mut scene = Scene::resume(frame, std::mem::take(&mut self.cache));
        self.refuted.clear();
        let r = self.locate_in(&mut scene, target, recorded);
        // A prompt's caption read exactly, its caret not seen: another reader cannot supply
        // the caret, and its whole-window reading would outlast the caret's next blink.
        let r = match (&target.text, self.second.is_some()) {
            (Some(text), true) if scene.caret_awaited.is_none() => {
                self.second_witness(&mut scene, target, text, recorded, r)
            }
            _ => r,
        };
        let caret_awaited = scene.caret_awaited;
        // One place to hover, or none: two bare captions alike are for a person to tell apart.
        let mut hover = std::mem::take(&mut scene.hover_asked);
        hover.dedup_by(|a, b| a.iou(b) > 0.5);
        let read: Vec<Rect> = scene.labels_read().iter().map(|l| l.line).collect();
        self.cache = scene.into_cache();
        let r = match r {
            Err(e) if e.error.code == ErrorCode::LocatorNotFound && target.text.is_some() => self
                .faint_pass(frame, target, recorded, &read)
                .unwrap_or(Err(e)),
            r => r,
        };
        // A refusal says what the tree saw too, when the window has one.
        r.map_err(|mut e| {
            if e.error.code == ErrorCode::LocatorNotFound && e.candidates.is_empty() {
                e.caret_awaited = caret_awaited;
                if let [one] = hover.as_slice() {
                    e.hover_asked = Some(*one);
                }
            }
            if let Some(why) = self.tree_said.take() {
                e.error
                    .message
                    .push_str(&format!(" (accessibility tree: {why})"));
            }
            e
        })
    }

    /// A target not found where the window holds faint text nothing was read in (a text UI's
    /// white captions on light grey, `vision::faint_text`): the window looked at again with
    /// that text drawn at full contrast and every other pixel as it was, so its boxes and
    /// what was read before stay; an answer there is the answer, a refusal there is kept when
    /// it says more (two places) — otherwise the first look's refusal stands (`None`).
    fn faint_pass(
        &mut self,
        frame: &Frame,
        target: &Target,
        recorded: &Recorded,
        read: &[Rect],
    ) -> Option<Result<Located, Refusal>> {
        if self.in_faint_pass {
            return None;
        }
        let faint = mend_vision::faint_text(&frame.image);
        let rows: Vec<Rect> = faint
            .rows
            .iter()
            .filter(|r| !read.iter().any(|l| read_whole(l, r)))
            .copied()
            .collect();
        if rows.is_empty() {
            return None;
        }
        let mut info = frame.info.clone();
        info.id ^= FAINT_FRAME;
        let drawn = Frame {
            info,
            image: faint.drawn(&frame.image, &rows),
        };
        let first = std::mem::replace(&mut self.cache, std::mem::take(&mut self.faint_cache));
        let second = self.second.as_mut().map(|(_, c)| std::mem::take(c));
        // What the tree said of the first look is the first refusal's to tell.
        let tree_said = self.tree_said.take();
        self.in_faint_pass = true;
        let r = self.locate_unguarded(&drawn, target, recorded);
        self.in_faint_pass = false;
        self.tree_said = tree_said;
        self.faint_cache = std::mem::replace(&mut self.cache, first);
        if let (Some((_, c)), Some(kept)) = (self.second.as_mut(), second) {
            *c = kept;
        }
        match r {
            Ok(mut l) => {
                l.frame_id = frame.info.id;
                Some(Ok(l))
            }
            Err(e) if e.error.code == ErrorCode::LocatorAmbiguous => Some(Err(e)),
            Err(_) => None,
        }
    }

    /// Two readers, one verdict (`MEND_OCR=both`). A place the first reader found by its
    /// reading is read by the second: where that reads another control's caption, the target
    /// is refused (`LOCATOR_AMBIGUOUS`: which of the two it is, a person decides), as is one
    /// where it reads the target's caption with a word more. A target the first reader did not
    /// find is looked for in the second's reading, and a place found so is taken only where
    /// the first's own reading there is nothing, the target or a near spelling of it. When
    /// neither finds it, the first reader's refusal stands.
    fn second_witness(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        text: &str,
        recorded: &Recorded,
        first: Result<Located, Refusal>,
    ) -> Result<Located, Refusal> {
        let frame = scene.frame;
        let ocr_err = Refusal::from;
        let (found, reading, by) = match first {
            // A one-glyph caption read by the first reader was confirmed by its shape (the
            // glyph drawn in the machine's fonts fits its ink better than any other): a
            // stronger witness than a second reading of one glyph, which Tesseract gets
            // wrong at one scale in three (xcalc's 8 read as 3, and a 3 key elsewhere).
            Ok(l) if l.strategy == Strategy::FuzzyOcr && lone_glyph(text).is_some() => {
                return Ok(l)
            }
            // A field is answered by the caption beside it; what lies in the field's own box is
            // its value (a file name typed there), no reading of the target's caption. The
            // witness reads captions only (a field's caption is the first reader's alone).
            Ok(l) if target.role == Role::Field => return Ok(l),
            Ok(l) if l.strategy == Strategy::FuzzyOcr => {
                // A button drawn with characters (a text UI's `[< OK >]`: no frame in the
                // pixels) is read at its caption: its brackets read as letters (`KX OK >|`)
                // are no word more of it. A framed control is read whole, as ever.
                let at = drawn_caption(scene, &mut self.ocr, l.rect).unwrap_or(l.rect);
                let (ocr, cache) = self.second.as_mut().expect("checked by the caller");
                let by = ocr.reader().as_str();
                let mut other = Scene::resume(frame, std::mem::take(cache));
                let read = other.labels_in(ocr, at.inflate(2), line_ocr(at.h));
                *cache = other.into_cache();
                let reading = read
                    .map_err(ocr_err)?
                    .iter()
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                (l, reading, by)
            }
            Err(r) if r.error.code == ErrorCode::LocatorNotFound => {
                let (mut ocr, cache) = self.second.take().expect("checked by the caller");
                std::mem::swap(&mut self.ocr, &mut ocr);
                let mut other = Scene::resume(frame, cache);
                self.no_meaning = true;
                let found = self.locate_in(&mut other, target, recorded);
                self.no_meaning = false;
                std::mem::swap(&mut self.ocr, &mut ocr);
                self.second = Some((ocr, other.into_cache()));
                let l = match found {
                    // A field: its box holds its value, not the caption the second read.
                    Ok(l) if l.strategy == Strategy::FuzzyOcr && target.role == Role::Field => {
                        return Ok(l)
                    }
                    Ok(l) if l.strategy == Strategy::FuzzyOcr => l,
                    _ => return Err(r),
                };
                // The first reader's own reading of that place. A short reading its ink's
                // shape refutes is no reading there (PP-OCR read gv's bold page number 2 as
                // `3`, and two page numbers stacked as `23`): it says nothing against the
                // second's.
                let labels = scene.window_labels(&mut self.ocr).map_err(ocr_err)?;
                let img = &frame.image;
                let text_h = scene.text_height(&labels).map(|h| h as f32);
                let reading = labels
                    .iter()
                    .filter(|s| s.line.intersect(&l.rect).is_some())
                    .filter(|s| !shape_refutes(img, s, text_h))
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                if !first_reading_allows(text, &reading) {
                    return Err(Refusal::new(
                        ErrorCode::LocatorAmbiguous,
                        format!(
                            "the two readers disagree on '{text}' at {},{}: {} found it there, {} reads '{reading}'. Nothing was clicked: check the screen, then pick the control",
                            l.rect.x,
                            l.rect.y,
                            self.second.as_ref().map_or("", |s| s.0.reader().as_str()),
                            self.ocr.reader().as_str()
                        ),
                        vec![Candidate {
                            rect: l.rect,
                            text: reading,
                            role: target.role,
                            score: 0.0,
                        }],
                    ));
                }
                return Ok(l);
            }
            other => return other,
        };
        let labels = scene.window_labels(&mut self.ocr).map_err(ocr_err)?;
        match witness(text, &reading, found.rect, &labels) {
            Witness::Agrees => Ok(found),
            Witness::Conflicts { reading, other } => Err(Refusal::new(
                ErrorCode::LocatorAmbiguous,
                format!(
                    "the two readers disagree on '{text}' at {},{}: {by} reads '{reading}' there, the caption of another control ('{other}'). Nothing was clicked: check the screen, then pick the control",
                    found.rect.x, found.rect.y
                ),
                vec![Candidate {
                    rect: found.rect,
                    text: reading,
                    role: target.role,
                    score: 0.0,
                }],
            )),
        }
    }

    fn locate_in(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        recorded: &Recorded,
    ) -> Result<Located, Refusal> {
        let frame = scene.frame;
        if target.text.is_none() && target.near.is_none() {
            // A control known only by its pixels (an icon, a one-glyph key): its crop.
            return match recorded.template.as_ref() {
                Some(tmpl) => by_pixels(scene, target, tmpl),
                None => Err(Refusal::new(
                    ErrorCode::InvalidArgument,
                    "a target needs a text, a near label or a recorded crop",
                    vec![],
                )),
            };
        }
        let ocr_err = Refusal::from;
        let answer = |strategy: Strategy, c: Candidate| Located {
            strategy,
            rect: c.rect,
            screen_box: frame.info.to_screen(&c.rect),
            confidence: c.score,
            text: c.text,
            frame_id: frame.info.id,
        };
        let mut seen_candidates: Vec<Candidate> = Vec::new();
        // What the window showed, for the refusal: a flow written from a manual names the
        // caption it expected, and the person fixing it needs the one that is there.
        let mut read_here = String::new();

        // 1. exact: the recorded crop is where it was (or nearby, any scale) and the text agrees.
        if let (Some(rec), Some(tmpl)) = (target.recorded, recorded.template.as_ref()) {
            if let Some(c) = self.exact(scene, target, rec, tmpl).map_err(ocr_err)? {
                return Ok(answer(Strategy::Exact, c));
            }
        }

        if let Some(text) = target.text.as_deref() {
            // 2. fuzzy OCR: near the recorded place first, then the whole window.
            if let Some(rec) = target.recorded {
                // A field: first its caption's place, where the exact rung reads it (on the
                // field's rows, to its left). Only a caption read exactly there, beside one
                // field, answers; anything else reads the whole region around.
                if target.role == Role::Field {
                    let labels = scene
                        .labels_in(&mut self.ocr, caption_strip(rec), REGION_OCR)
                        .map_err(ocr_err)?;
                    let cands: Vec<Candidate> = self
                        .candidates(scene, &labels, target, text)
                        .into_iter()
                        .filter(|c| c.score >= 1.0)
                        .collect();
                    if let [c] = cands.as_slice() {
                        return Ok(answer(Strategy::FuzzyOcr, c.clone()));
                    }
                }
                let region = search_region(rec, target.role);
                let labels = scene
                    .labels_in(&mut self.ocr, region, REGION_OCR)
                    .map_err(ocr_err)?;
                let cands = self.candidates(scene, &labels, target, text);
                seen_candidates.extend(cands.clone());
                if let Some(v) = verdict(cands, target.recorded, text) {
                    return v.map(|c| answer(Strategy::FuzzyOcr, c));
                }
            }
            let mut labels = scene.window_labels(&mut self.ocr).map_err(ocr_err)?;
            // What the meaning rung was already asked about (and answered nothing).
            let mut asked: Option<Vec<(String, Rect)>> = None;
            let key = |ls: &[SeenLabel]| -> Vec<(String, Rect)> {
                ls.iter().map(|l| (l.text.clone(), l.line)).collect()
            };
            // Three looks, each dearer and only when the one before found nothing: the window
            // pass; each text strip read again; the window read by quarters where it read none.
            for look in 0..3 {
                if look == 1 {
                    // A window where nothing read could be the target's caption read in part
                    // (a Chinese flow on an English screen) cannot hold it misread among text
                    // it did read: the dearer looks would look for what is not there. The
                    // meaning is asked first; nothing meant → the looks, as always.
                    if speaks_another_script(text, &labels) {
                        if let Some(c) = self.semantic(scene, target, text, &labels)? {
                            return Ok(answer(Strategy::Semantic, c));
                        }
                        asked = Some(key(&labels));
                    }
                    labels = scene.reread_labels(&mut self.ocr).map_err(ocr_err)?;
                }
                if look == 2 {
                    labels = scene
                        .quarter_labels(&mut self.ocr, labels)
                        .map_err(ocr_err)?;
                }
                let with_captions = with_colon_captions(&labels, &[text], &scene.frame.image);
                // A menu is one item: two titles side by side are two menus, never one.
                let with_captions = if target.role == Role::Menu {
                    with_captions
                } else {
                    with_words_joined(with_captions, text)
                };
                let cands = self.candidates(scene, &with_captions, target, text);
                seen_candidates.extend(cands.clone());
                if let Some(v) = verdict(cands, target.recorded, text) {
                    return v.map(|c| answer(Strategy::FuzzyOcr, c));
                }
            }

            read_here = shown_captions(&labels)
                + &read_inside(&labels, text)
                + &read_without_role(&labels, text, target.role);

            // A one-glyph key nothing was read in (a keypad's 9, =, 0 the reading missed):
            // the glyph drawn in the machine's fonts, matched to the ink of each unread button.
            if let Some(c) = self.by_shape(scene, target, text, &labels)? {
                return Ok(answer(Strategy::FuzzyOcr, c));
            }

            // 3. semantic: meaning, not spelling (not asked twice about the same reading: a
            // model's answer costs seconds).
            if asked != Some(key(&labels)) {
                if let Some(c) = self.semantic(scene, target, text, &labels)? {
                    return Ok(answer(Strategy::Semantic, c));
                }
            }
        }

        // 4. anchor: a stable label plus the recorded offset (or the field beside it).
        if let Some(near) = target.near.as_deref() {
            let mut labels = scene.window_labels(&mut self.ocr).map_err(ocr_err)?;
            if !labels.iter().any(|l| label_match(near, &l.text).is_some()) {
                labels = scene.reread_labels(&mut self.ocr).map_err(ocr_err)?;
            }
            let labels = with_colon_captions(&labels, &[near], &scene.frame.image);
            let anchors: Vec<&SeenLabel> = labels
                .iter()
                .filter(|l| label_match(near, &caption(&labels, l)).is_some() && !too_wide(l))
                .collect();
            match anchors.as_slice() {
                [a] if target.role == Role::Area => {
                    let c = bare_area(scene, &labels, a, target.offset.unwrap_or((0, 0)), near)?;
                    return Ok(answer(Strategy::Anchor, c));
                }
                [a] => {
                    let found = match target.offset {
                        Some((dx, dy)) => {
                            let c = a.line.center();
                            let p = mend_model::Point {
                                x: c.x + dx,
                                y: c.y + dy,
                            };
                            let hit = scene
                                .boxes()
                                .iter()
                                .filter(|b| b.rect.contains(p) && target.role.accepts(b.role))
                                .min_by_key(|b| b.rect.area())
                                .cloned();
                            // A control there whose own caption reads as something else is
                            // another control (an offset measured wrong, a layout that moved
                            // the row): never clicked in the target's name.
                            if let (Some(b), Some(text)) = (&hit, target.text.as_deref()) {
                                let shown: Vec<&SeenLabel> = labels
                                    .iter()
                                    .filter(|l| b.rect.contains(l.line.center()))
                                    .collect();
                                if !shown.is_empty()
                                    && !shown.iter().any(|l| label_match(text, &l.text).is_some())
                                {
                                    return Err(Refusal::new(
                                        ErrorCode::LocatorNotFound,
                                        format!(
                                            "'{text}' was not found; the place beside '{near}' holds '{}', another control. Check the screen, then pick the control or fix the flow's offset",
                                            shown[0].text
                                        ),
                                        vec![Candidate {
                                            rect: b.rect,
                                            text: shown[0].text.clone(),
                                            role: b.role,
                                            score: 0.0,
                                        }],
                                    ));
                                }
                            }
                            hit.map(|b| Candidate {
                                rect: b.rect,
                                text: near.to_string(),
                                role: b.role,
                                score: 0.9,
                            })
                        }
                        None => field_beside(scene, a.line).map(|rect| Candidate {
                            rect,
                            text: near.to_string(),
                            role: Role::Field,
                            score: 0.85,
                        }),
                    };
                    if let Some(c) = found {
                        return Ok(answer(Strategy::Anchor, c));
                    }
                    // The anchor was read; what is missing is the control beside it: say so,
                    // not "no control matching" the anchor, as if the anchor were the target.
                    let c = a.line.center();
                    let place = match target.offset {
                        Some((dx, dy)) => format!("at {dx:+},{dy:+} from its centre"),
                        None => "beside it (right on its row, or just below)".to_string(),
                    };
                    let what = target
                        .text
                        .as_deref()
                        .map_or(String::new(), |t| format!("'{t}': "));
                    return Err(Refusal::new(
                        ErrorCode::LocatorNotFound,
                        format!(
                            "{what}the anchor '{near}' was found at {},{} ('{}'), but no {:?} control is {place}. Check the screen; fix the flow's offset or role, or pick the control",
                            c.x, c.y, a.text, target.role
                        ),
                        seen_candidates,
                    ));
                }
                [] => {}
                many => {
                    return Err(Refusal::new(
                        ErrorCode::LocatorAmbiguous,
                        format!(
                            "the anchor label '{near}' appears {} times; pick the right one or record a more specific anchor",
                            many.len()
                        ),
                        many.iter()
                            .map(|l| Candidate {
                                rect: l.line,
                                text: l.text.clone(),
                                role: Role::Label,
                                score: 0.8,
                            })
                            .collect(),
                    ))
                }
            }
        }

        let what = target
            .text
            .as_deref()
            .or(target.near.as_deref())
            .unwrap_or_default();
        let mut refuted = std::mem::take(&mut self.refuted);
        refuted.dedup();
        let refuted = if refuted.is_empty() {
            String::new()
        } else {
            format!(" ({})", refuted.join("; "))
        };
        Err(Refusal::new(
            ErrorCode::LocatorNotFound,
            format!(
                "no control matching '{what}' ({:?}) on this screen{refuted}; it may have been removed or renamed to something with another meaning.{read_here} Check the screen, then pick the control or fix the flow",
                target.role
            ),
            seen_candidates,
        ))
    }

    /// A one-glyph target (not an ideograph) among the framed controls nothing was read in
    /// (then, for a row, label or any, among the glyphs standing alone on the window):
    /// the control whose inside is that glyph's shape ([`glyph_stands_out`]: it fits at
    /// [`SHAPE_ALONE`] or better, and better than every glyph of another shape). A control with any
    /// reading is judged by its reading, never here; two that fit are a refusal.
    fn by_shape(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        text: &str,
        labels: &[SeenLabel],
    ) -> Result<Option<Candidate>, Refusal> {
        let Some(glyph) = lone_glyph(text) else {
            return Ok(None);
        };
        let text_h = scene.text_height(labels).map(|h| h as f32);
        let unread: Vec<ControlBox> = scene
            .boxes()
            .iter()
            .filter(|b| target.role.accepts(b.role) && b.role != Role::Field)
            .filter(|b| !labels.iter().any(|l| b.rect.contains(l.line.center())))
            .cloned()
            .collect();
        let mut fits: Vec<Candidate> = Vec::new();
        for b in unread {
            let Some(ink) = ink_of(&scene.frame.image, b.rect.inflate(-3)) else {
                continue;
            };
            if let Some(score) = glyph_stands_out(glyph, &ink, text_h, SHAPE_ALONE) {
                fits.push(Candidate {
                    rect: b.rect,
                    text: text.to_string(),
                    role: b.role,
                    score: score as f64,
                });
            }
        }
        // No framed control holds it: a glyph standing alone on the window — an item of a list
        // of one-glyph items (page numbers down a column), which a whole-window read never
        // reads — where the target may be such an item (a row, a label, any). Unread only (a
        // glyph inside a reading is the reading's). Its shape must stand out as the glyph's,
        // or fit it (`2` and `Z` are one shape in a 5×9 bitmap) while the glyph read on its
        // own says the target and no other shape fits clearly better. Two are a refusal.
        let unframed = matches!(
            target.role,
            Role::Row | Role::Label | Role::Text | Role::Any
        );
        if fits.is_empty() && unframed {
            if let Some(h) = text_h {
                let img = &scene.frame.image;
                for g in mend_vision::lone_glyphs(img, h.round() as i32) {
                    if labels.iter().any(|l| l.line.intersect(&g).is_some()) {
                        continue;
                    }
                    let Some(ink) = ink_of(img, g.inflate(2)) else {
                        continue;
                    };
                    let score = match glyph_stands_out(glyph, &ink, text_h, SHAPE_ALONE) {
                        Some(s) => Some(s),
                        None => match confirm_short(&glyph.to_string(), &ink, text_h) {
                            Verdict::Fits(s) if s >= SHAPE_ALONE => {
                                let read = self
                                    .ocr
                                    .read_glyphs(
                                        img,
                                        mend_ocr::GlyphRead {
                                            ink: g,
                                            bg: mend_vision::background(img, g.inflate(2)) as u8,
                                            glyphs: 1,
                                            text_h: h.round() as i32,
                                        },
                                        |_| true,
                                    )
                                    .map_err(Refusal::from)?;
                                let said: String = read.iter().map(|w| w.text.trim()).collect();
                                (said == glyph.to_string()).then_some(s)
                            }
                            _ => None,
                        },
                    };
                    // The glyph's own box: grown, it would reach the next item's reading.
                    if let Some(score) = score {
                        fits.push(Candidate {
                            rect: g,
                            text: text.to_string(),
                            role: target.role,
                            score: score as f64,
                        });
                    }
                }
            }
        }
        match fits.len() {
            0 => Ok(None),
            1 => Ok(fits.pop()),
            _ => Err(ambiguous(text, fits)),
        }
    }

    /// The semantic rung over `labels`: the control the matcher means, resolved to its box.
    /// The matcher sees whole captions, and never a line that holds unread text.
    fn semantic(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        text: &str,
        labels: &[SeenLabel],
    ) -> Result<Option<Candidate>, Refusal> {
        if self.no_meaning {
            return Ok(None);
        }
        // A caption the flow gives in words of its own (`要写入的文件名：` for `File Name to
        // Write:`) read with its value on one line: the part up to its colon.
        let wanted: Vec<&str> = std::iter::once(text)
            .chain(target.synonyms.iter().map(String::as_str))
            .collect();
        let labels = &wanted.iter().fold(
            with_colon_captions(labels, &wanted, &scene.frame.image),
            |ls, w| with_words_joined(ls, w),
        );
        let others: Vec<&String> = self
            .flow_names
            .iter()
            .filter(|n| label_match(n, text).is_none())
            .collect();
        // A menu is one item of its bar, read on its own: a bar drawn as one box (a GTK 2 menu
        // bar's frame) would join them all into one caption (`文件(F) 编辑(E) 查看(V) …`) that
        // means nothing, and a box holding several items is no item's control ([`resolve`]
        // finds the item's own place).
        let seen: Vec<SeenLabel> = labels
            .iter()
            .filter(|l| !too_wide(l))
            .map(|l| match (target.role, &l.control) {
                (Role::Menu, Some(c))
                    if labels
                        .iter()
                        .any(|o| o.line != l.line && c.rect.contains(o.line.center())) =>
                {
                    SeenLabel {
                        control: None,
                        ..l.clone()
                    }
                }
                _ => SeenLabel {
                    text: caption(labels, l),
                    ..l.clone()
                },
            })
            .filter(|l| !others.iter().any(|n| label_match(n, &l.text).is_some()))
            .collect();
        // One caption read twice at one place (a window's reading and a strip's, or two
        // passes; `文件(F)` and `文件`, its mnemonic dropped) is one label, not two controls
        // that both fit.
        let mut seen = seen;
        let mut i = 0;
        while i < seen.len() {
            let (a, b) = (seen[i].line, &seen);
            let twin = (0..i).any(|j| {
                (b[j].line.contains(a.center()) || a.contains(b[j].line.center()))
                    && normalize(&b[j].text) == normalize(&b[i].text)
            });
            if twin {
                seen.remove(i);
            } else {
                i += 1;
            }
        }
        // A field's label is the label of a field: a text with no field beside it (a list's
        // column header 名称 above the file list, beside the label 名称(N): of the name field)
        // is no answer, so it cannot make the label ambiguous.
        // A wide box whose caption is centred in it is a button whatever its shape made of it
        // (a Win32 dialog's 105×26 OK guessed a field), as the other rungs take it
        // ([`resolve`]): the matcher sees the role the control will be acted on as.
        let seen: Vec<SeenLabel> = match target.role {
            Role::Field => seen
                .into_iter()
                .filter(|l| resolve(scene, &mut self.ocr, l, Role::Field, 0.0).is_some())
                .collect(),
            Role::Button => seen
                .into_iter()
                .map(|mut l| {
                    if l.role() == Role::Field && centred_caption(&l) {
                        if let Some(c) = l.control.as_mut() {
                            c.role = Role::Button;
                        }
                    }
                    l
                })
                .collect(),
            _ => seen,
        };
        // A field's caption that ends in a colon is a label's: where some caption read keeps
        // one, the matcher is asked among those first (GTK 2's Save dialog: `名称(N):` before
        // the input and the file list's column header `名称` over its first row both mean Name).
        // A menu item sought while a menu is open is asked among that menu's items first (as
        // the fuzzy rung prefers them, [`among_menus`]): KWrite's 文件 menu holds 另存为(A)...
        // under the toolbar's own 另存为 button, both meaning Save As.
        let popups = &scene.frame.info.popups;
        let narrower: Vec<SeenLabel> = match target.role {
            Role::Field if has_colon(text) => seen
                .iter()
                .filter(|l| has_colon(&l.text))
                .cloned()
                .collect(),
            Role::Menu => seen
                .iter()
                .filter(|l| popups.iter().any(|p| p.contains(l.line.center())))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        let first = if !narrower.is_empty() && narrower.len() < seen.len() {
            self.semantic
                .choose(target, &narrower)
                .map_err(Refusal::from)?
                .map(|(i, conf)| (narrower[i].clone(), conf))
        } else {
            None
        };
        let chosen = match first {
            Some(c) => Some(c),
            None => self
                .semantic
                .choose(target, &seen)
                .map_err(Refusal::from)?
                .map(|(i, conf)| (seen[i].clone(), conf)),
        };
        // A menu item that two places mean, each by the flow's own words (an item of the open
        // menu and the same command on a text UI's function-key bar: `建目录(M)` and
        // `7 建目录`): both are named, so that the caller can keep the one the menu's opening
        // showed. The flow's words are checked place by place offline, never by asking a model
        // once per caption.
        if chosen.is_none() && target.role == Role::Menu {
            let fits: Vec<Candidate> = seen
                .iter()
                .filter(|l| {
                    matches!(
                        OfflineMatcher.choose(target, std::slice::from_ref(*l)),
                        Ok(Some(_))
                    )
                })
                .filter_map(|l| resolve(scene, &mut self.ocr, l, target.role, 0.85))
                .collect();
            // Among them the one that is an item among items, as the fuzzy rung keeps it
            // (TuxGuitar's 乐曲 menu on its bar and its 乐曲 tool group).
            let fits = among_menus(fits, labels, &scene.frame.info.popups);
            match fits.len() {
                1 => return Ok(fits.into_iter().next()),
                2.. => return Err(ambiguous(text, fits)),
                _ => {}
            }
        }
        Ok(chosen.and_then(|(l, conf)| {
            let mut c = resolve(scene, &mut self.ocr, &l, target.role, conf)?;
            c.score = conf;
            Some(c)
        }))
    }

    fn exact(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        rec: Rect,
        tmpl: &RgbaImage,
    ) -> Result<Option<Candidate>, MendError> {
        // A field's crop may hold its caption to its left ([`Locator::crop_for`]): the field
        // is then the crop's right part, the recorded box's width.
        let (tw, th) = (tmpl.width() as i32, tmpl.height() as i32);
        let with_caption = target.role == Role::Field && tw > rec.w && th == rec.h;
        let at = if with_caption {
            Rect::new(rec.right() - tw, rec.y, tw, th)
        } else {
            rec
        };
        let region = at.inflate(48.max(at.h));
        let Some(hit) = find_template(&scene.frame.image, tmpl, region, &SCALES) else {
            return Ok(None);
        };
        // A place of the crop's tone but not its shape (a flat patch matched by a button's
        // flat face, a dark theme's panel) is not the crop: no reading is spent on it (a
        // reading of such a blank place took Tesseract 1.4 s), and the fuzzy rung reads the
        // region instead.
        if hit.score < TEMPLATE_MIN || hit.shape < SHAPE_MIN {
            return Ok(None);
        }
        let control = if with_caption {
            let w = ((rec.w as f32 * hit.scale).round() as i32).min(hit.rect.w);
            Rect::new(hit.rect.right() - w, hit.rect.y, w, hit.rect.h)
        } else {
            hit.rect
        };
        // A flat template (an empty field) correlates with any flat patch: the hit must be a
        // control the pixels frame, of the size the template was matched at.
        let framed = scene
            .boxes()
            .iter()
            .filter(|b| b.rect.contains(control.center()))
            .min_by_key(|b| b.rect.area())
            .map(|b| b.rect);
        let found = match framed {
            Some(b) if b.iou(&control) >= 0.7 => b,
            Some(_) => return Ok(None),
            None if target.role == Role::Field => return Ok(None),
            None => control,
        };
        let mut text = target.text.clone().unwrap_or_default();
        // The local patch check: the recorded crop's very pixels, in place. The crop was
        // recorded with its text, so identical pixels need no OCR to agree — except a field's
        // crop without its caption: one empty field is pixel for pixel another, and only its
        // caption, read, tells which it is.
        let shows_its_text = target.role != Role::Field || with_caption;
        if shows_its_text
            && hit.scale == 1.0
            && crop(&scene.frame.image, hit.rect).is_some_and(|here| pixel_diff(&here, tmpl) < 2.0)
        {
            return Ok(Some(Candidate {
                rect: found,
                text,
                role: target.role,
                score: 1.0,
            }));
        }
        let agrees = match target.text.as_deref() {
            None => true,
            Some(t) => {
                // A field's text is its label, to the left; a button's is inside it, and all
                // of it counts (two lines 删除 + 全部 are one caption).
                let read_at = if target.role == Role::Field {
                    caption_strip(found)
                } else {
                    found
                };
                // A field's caption is read sparsely, as in [`Locator::crop_for`].
                let opts = if target.role == Role::Field {
                    REGION_OCR
                } else {
                    line_ocr(read_at.h)
                };
                let mut read = scene.labels_in(&mut self.ocr, read_at, opts)?;
                if target.role == Role::Field {
                    read.retain(|l| label_match(t, &l.text) == Some(1.0));
                    read.first().map(|l| text = l.text.clone()).is_some()
                } else {
                    read.sort_by_key(|l| l.line.x);
                    let caption = read
                        .iter()
                        .map(|l| l.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    let ok = label_match(t, &caption) == Some(1.0);
                    if ok {
                        text = caption;
                    }
                    ok
                }
            }
        };
        Ok(agrees.then_some(Candidate {
            rect: found,
            text,
            role: target.role,
            score: hit.score as f64,
        }))
    }
}

/// Pearson's r from which a place counts as showing the recorded crop at its own size. High:
/// a glyph in another font correlates with a different glyph (a "+" crop with "÷" at 0.88 at
/// the same size after a font change), and a click there is a wrong action.
const PIXELS_MIN: f32 = 0.93;
/// The same for a crop matched at another scale (a DPI change): resampling both sides costs
/// correlation (a key at 150 % scores 0.88), so a little less is asked.
const PIXELS_MIN_SCALED: f32 = 0.85;

/// Whether nothing read on the window could be the target's caption, read in part: the
/// dearer looks (each strip again, the window by quarters) exist to read a caption the window
/// pass misread, and on such a window they would look for what is not there. A target with
/// ideographs: no line read shares one of them (a Chinese flow on an English screen whose data
/// holds Chinese names: 张三 is no part of 删除; chi_sim's stray ideographs read off icons are
/// none either). A Latin target: no line holds a Latin word (two letters or more together; a
/// Chinese menu's mnemonic "(S)" or an id's "C" in "C001" is none). A target of digits and
/// signs has no script; a window that read nothing tells nothing.
fn speaks_another_script(text: &str, labels: &[SeenLabel]) -> bool {
    if labels.is_empty() {
        return false;
    }
    if text.chars().any(is_ideograph) {
        let own: Vec<char> = text.chars().filter(|&c| is_ideograph(c)).collect();
        !labels
            .iter()
            .any(|l| l.text.chars().any(|c| own.contains(&c)))
    } else if text.chars().any(|c| c.is_ascii_alphabetic()) {
        !labels.iter().any(|l| {
            l.text
                .chars()
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_alphabetic())
        })
    } else {
        false
    }
}

fn pixels_min(scale: f32) -> f32 {
    if scale == 1.0 {
        PIXELS_MIN
    } else {
        PIXELS_MIN_SCALED
    }
}

/// Is `second` a look-alike of `best`? The pixels tell two places apart only when the second
/// is clearly further from a perfect match than the best: its shortfall (1 − r) at least twice
/// the best's, plus 0.02. Identical pixels (r ≈ 1) stand out from a place at 0.97; a scaled
/// match at 0.85 does not from one at 0.75.
fn look_alike(best: f32, second: f32) -> bool {
    1.0 - second < 2.0 * (1.0 - best) + 0.02
}

/// A target known only by its recorded crop: the one place in the window that shows it, at
/// any of the scales (a DPI or font change), clearly above every other place. Two look-alikes
/// are `LOCATOR_AMBIGUOUS`, a weak best match `LOCATOR_NOT_FOUND`: never a guess.
fn by_pixels(scene: &mut Scene, target: &Target, tmpl: &RgbaImage) -> Result<Located, Refusal> {
    let frame = scene.frame;
    let whole = Rect::new(
        0,
        0,
        frame.image.width() as i32,
        frame.image.height() as i32,
    );
    let floor = 0.5;
    // The crop's inside, its frame left out: a control's frame is most of its pixels and
    // changes with hover and focus (a key drawn with a thick border while the pointer is on
    // it matched another hovered key better than itself), while what tells two controls apart
    // — a glyph, an icon — is inside.
    let inset = (tmpl.width().min(tmpl.height()) / 8).max(2);
    let inner = if tmpl.width() > 4 * inset + 4 && tmpl.height() > 4 * inset + 4 {
        image::imageops::crop_imm(
            tmpl,
            inset,
            inset,
            tmpl.width() - 2 * inset,
            tmpl.height() - 2 * inset,
        )
        .to_image()
    } else {
        tmpl.clone()
    };
    // A crop of one colour (an empty field's inside, a blank panel) looks like every empty
    // area of its colour: no place can be told from the others by it.
    let luma = image::DynamicImage::ImageRgba8(inner.clone()).to_luma8();
    let (lo, hi) = luma
        .pixels()
        .fold((255u8, 0u8), |(lo, hi), p| (lo.min(p.0[0]), hi.max(p.0[0])));
    if hi.saturating_sub(lo) <= FLAT_CROP {
        return Err(Refusal::new(
            ErrorCode::LocatorAmbiguous,
            "the recorded crop is blank (one colour inside its frame): every empty area of that colour looks like it. Give the target a text or a near label, or pick the control",
            vec![],
        ));
    }
    let grown = inner.width() < tmpl.width();
    let mut places = template_places(&frame.image, &inner, whole, &SCALES, floor, 3);
    if grown {
        for p in &mut places {
            let d = (inset as f32 * p.scale).round() as i32;
            p.rect = p.rect.inflate(d);
        }
    }
    let cand = |h: &mend_vision::TemplateHit| Candidate {
        rect: h.rect,
        text: String::new(),
        role: target.role,
        score: h.score as f64,
    };
    let candidates: Vec<Candidate> = places.iter().map(cand).collect();
    let Some(best) = places.first().filter(|b| b.score >= pixels_min(b.scale)) else {
        return Err(Refusal::new(
            ErrorCode::LocatorNotFound,
            format!(
                "no place in the window shows the recorded crop clearly (best match {:.2}, needs {:.2}); the control may be gone or redrawn. Pick it, or record the flow again",
                places.first().map_or(0.0, |b| b.score),
                places.first().map_or(PIXELS_MIN, |b| pixels_min(b.scale))
            ),
            candidates,
        ));
    };
    if let Some(second) = places.get(1).filter(|o| look_alike(best.score, o.score)) {
        return Err(Refusal::new(
            ErrorCode::LocatorAmbiguous,
            format!(
                "{} places show the recorded crop alike ({:.2} and {:.2}): the pixels cannot tell them apart. Pick one, or give the target a `text` or a `near` label",
                places.iter().filter(|o| look_alike(best.score, o.score)).count(),
                best.score,
                second.score
            ),
            candidates,
        ));
    }
    // Snap to the framed control the pixels lie in (the same control drawn larger keeps its
    // inside's pixels: the box is the whole control, its centre the click).
    let rect = scene
        .boxes()
        .iter()
        .filter(|b| b.rect.contains(best.rect.center()) && b.rect.area() <= 4 * best.rect.area())
        .min_by_key(|b| b.rect.area())
        .map(|b| b.rect)
        .filter(|b| b.iou(&best.rect) >= 0.7 || b.union(&best.rect) == *b)
        .unwrap_or(best.rect);
    Ok(Located {
        strategy: Strategy::Exact,
        rect,
        screen_box: frame.info.to_screen(&rect),
        confidence: best.score as f64,
        text: String::new(),
        frame_id: frame.info.id,
    })
}

/// Where a field's caption is read beside it: on its rows, to its left.
fn caption_strip(field: Rect) -> Rect {
    Rect::new(
        field.x - FIELD_LABEL_REACH,
        field.y - 6,
        FIELD_LABEL_REACH,
        field.h + 12,
    )
}

/// Where to read first: around the recorded box; for a field, also the label strip to its left.
fn search_region(rec: Rect, role: Role) -> Rect {
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
fn candidates(
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
fn has_colon(t: &str) -> bool {
    t.contains([':', '：'])
}

/// `text` as one item of a menu bar read as one line `l`: the window's topmost line of text,
/// three or more short capitalised words, `text` one or more of them whole. Its box is cut from the line's
/// ink: the line's words are parted at its widest clear gaps (as many as the words less one,
/// each wider than every gap left inside a word), and each part must be about as wide as its
/// word's letters make it. `None` when the line is no such bar or its ink does not part so.
fn menu_bar_word(
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
fn joined_reading(
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

/// The score of a short caption found by its shape under a look-alike reading: a fuzzy match.
const FUZZY_MIN_SHAPED: f64 = 0.8;

/// Letters OCR takes for each other in short captions (lower case): a round O read as 0, Q
/// or D; a stroke as 1, l, i, |; S as 5; B as 8; Z as 2.
const LOOK_ALIKE_CLASSES: &[&str] = &["o0qd", "l1i|!", "s5", "b8", "z2"];

/// Where the ink of `text` (two or three letters or digits, no ideograph) is when `seen`, read
/// at `line`, is it misread: the same number of glyphs, each the same letter or one of its
/// look-alikes, at least one letter as it is — after an icon before it read as one ideograph
/// or one mark (`企QK`), whose pixels are then left out (a picture before the text, or the
/// reading's share of the line). `None` when `seen` is no such misreading.
fn short_caption_misread(text: &str, seen: &str, line: Rect, scene: &Scene) -> Option<Rect> {
    let want: Vec<char> = text.trim().chars().flat_map(char::to_lowercase).collect();
    if !(2..=3).contains(&want.len()) || !want.iter().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let got: Vec<char> = seen
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    if got.len() != want.len() && got.len() != want.len() + 1 {
        return None;
    }
    // Where the text begins after a picture before it, if one is drawn there.
    let after = mend_vision::text_after_icon(&scene.frame.image, line);
    // One glyph more before it: an icon read as a mark or an ideograph, or as a letter where
    // the pixels show a picture there (a blue arrow read `G` on a dark look).
    let icon = got.len() == want.len() + 1 && (!got[0].is_ascii_alphanumeric() || after.is_some());
    let core = if icon { &got[1..] } else { &got[..] };
    if core.len() != want.len() || (!icon && core == want.as_slice()) {
        return None;
    }
    let alike = |a: char, b: char| {
        a == b
            || LOOK_ALIKE_CLASSES
                .iter()
                .any(|k| k.contains(a) && k.contains(b))
    };
    if !want.iter().zip(core).all(|(a, b)| alike(*a, *b))
        || !want.iter().zip(core).any(|(a, b)| a == b)
    {
        return None;
    }
    // A picture before the text is left out whether or not it was read (a reader may drop an
    // icon's word and keep its box).
    let x = match after {
        Some(x) => x,
        None if icon => line.x + line.w / got.len() as i32,
        None => return Some(line),
    };
    (x > line.x && x < line.right()).then(|| Rect::new(x, line.y, line.right() - x, line.h))
}

/// Free text lines stacked into one caption: each line just below the one before (a gap under
/// a line's height), centred on it, of the same text height, no framed control around; two or
/// three lines, as an icon view wraps a caption under its icon.
fn stacked_captions(labels: &[SeenLabel]) -> Vec<SeenLabel> {
    let free: Vec<&SeenLabel> = labels.iter().filter(|l| l.control.is_none()).collect();
    let below = |a: &SeenLabel| -> Option<&SeenLabel> {
        let h = a.line.h.max(6);
        let mut under = free.iter().filter(|b| {
            let gap = b.line.y - a.line.bottom();
            let (ha, hb) = (a.line.h as f64, b.line.h as f64);
            (-1..=h * 4 / 5).contains(&gap)
                && ha.max(hb) <= 1.5 * ha.min(hb)
                && (a.line.center().x - b.line.center().x).abs()
                    <= (a.line.w.max(b.line.w) / 5).max(4)
        });
        let b = under.next()?;
        // Two lines under it that could both continue it: no caption is read across them.
        under.next().is_none().then_some(*b)
    };
    let mut out = vec![];
    for a in &free {
        let mut parts = vec![*a];
        while parts.len() < 3 {
            let Some(b) = below(parts[parts.len() - 1]) else {
                break;
            };
            parts.push(b);
            out.push(SeenLabel {
                text: parts
                    .iter()
                    .map(|p| p.text.trim())
                    .collect::<Vec<_>>()
                    .join(" "),
                line: parts[1..]
                    .iter()
                    .fold(parts[0].line, |r, p| r.union(&p.line)),
                control: None,
                conf: parts.iter().map(|p| p.conf).fold(f32::MAX, f32::min),
            });
        }
    }
    out
}

/// A one-glyph caption is where a reading names a look-alike (a column header's I read as 1):
/// a line read as the target's glyph is taken only if its ink has that shape
/// ([`confirm_short`]); a line read as the glyph with more beside it ("i]") only if the glyph
/// read as it has. `Some(why)` when the ink shows something else.
fn short_caption_refuted(
    scene: &Scene,
    l: &SeenLabel,
    text: &str,
    text_h: Option<i32>,
) -> Option<String> {
    // One glyph only: at two and three glyphs (Yes, OK) the ink cut at its empty columns
    // often is not one piece per glyph (a focus ring's dots beside them, glyphs that touch),
    // and the suite lost real captions to it; those stay with the reading and its rules.
    let glyph = lone_glyph(text)?;
    let want = glyph.to_string();
    let seen: String = l.text.chars().filter(|c| !c.is_whitespace()).collect();
    let at = (l.line.x, l.line.y);
    // No ink that stands out from its ground (a faint icon read as a letter): nothing shows
    // the glyph.
    let Some(ink) = ink_of(&scene.frame.image, l.line.inflate(1)) else {
        return Some(format!(
            "'{}' read at {at:?} has no ink that stands out to confirm it",
            l.text
        ));
    };
    let text_h = text_h.map(|h| h as f32);
    // One glyph read with more beside it ("i]" for I: an icon's edge, a bracket): the glyph
    // read as it must be it.
    let verdict = if seen != want {
        let glyphs: Vec<char> = seen.chars().collect();
        let same = |g: &char| label_match(&want, &g.to_string()) == Some(1.0);
        match glyphs.iter().position(same) {
            Some(i) => mend_vision::confirm_glyph_at(glyph, &ink, i, glyphs.len(), text_h),
            // Matched only as a whole ("i]" normalised to "i"): no glyph of it is the
            // target's, and a one-glyph caption is its glyph.
            None => {
                return Some(format!(
                    "'{}' read at {at:?} holds no glyph that is '{want}'",
                    l.text
                ))
            }
        }
    } else {
        confirm_short(&want, &ink, text_h)
    };
    match verdict {
        Verdict::Fits(_) | Verdict::NoFonts => None,
        Verdict::Other(g, other, own) => Some(format!(
            "'{}' read at {at:?} is drawn as '{g}' (shape {other:.2}, as '{want}' {own:.2})",
            l.text
        )),
        Verdict::Unlike(own) => Some(format!(
            "'{}' read at {at:?} is not drawn as '{want}' in any font here (shape {own:.2})",
            l.text
        )),
    }
}

/// The one glyph a target's text is, white space aside, when it is one and no ideograph: the
/// targets the shape rules judge.
fn lone_glyph(text: &str) -> Option<char> {
    let mut glyphs = text.chars().filter(|c| !c.is_whitespace());
    match (glyphs.next(), glyphs.next()) {
        (Some(c), None) if !is_ideograph(c) => Some(c),
        _ => None,
    }
}

/// For a refusal's message: the readings that hold the wanted text as whole words among
/// more (`MARKED PAID` in `INVOICE 4711 MARKED PAID`). A target is a whole reading — a word
/// more can turn its meaning (`NOT PAID`) — so it is not taken there; the writer names the
/// whole line instead.
fn read_inside(labels: &[SeenLabel], want: &str) -> String {
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
fn read_without_role(labels: &[SeenLabel], want: &str, role: Role) -> String {
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
fn shown_captions(labels: &[SeenLabel]) -> String {
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

fn caption(labels: &[SeenLabel], l: &SeenLabel) -> String {
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
fn bare_area(
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

fn too_wide(l: &SeenLabel) -> bool {
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

/// The control a matched label stands for: the field beside it for a field target, the framed
/// control around it otherwise. A role that contradicts what the pixels show is no candidate.
fn resolve(
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
        _ => {
            let mut shown = l.text.clone();
            if let Some(extra) = scene
                .unread_ink(l.line, l.control.as_ref().map(|c| c.rect))
                .filter(|&extra| !icon_left_of(scene, ocr, l, extra))
            {
                // A few rows of ink is punctuation (编辑… 's ellipsis), whatever OCR would make
                // of it ("wee" on a dark theme): no glyph of a word is that flat. Otherwise read
                // the unread part on its own: a mnemonic keeps the meaning (登录 + (L)); a word,
                // or nothing legible, does not (删除 + 全部).
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
                shown = if sign_after { l.text.clone() } else { full };
            }
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
                // A row of a list: its text on the bar a list draws behind its selected row,
                // or one of a column of lines (the rows above or below it). Text with neither
                // (a caption, a text box's line that reads the same) is no row.
                // A selection bar may be seen as a box of its own: that box is the row.
                let bar = mend_vision::selection_bar(&scene.frame.image, l.line);
                let framed = l.control.as_ref().map(|c| c.rect);
                let row = match (bar, framed) {
                    (Some(b), Some(c)) => b.iou(&c) > 0.5,
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (None, None) => in_a_column(scene, ocr, l),
                };
                if !row {
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
                // Text outside any frame, a speck, a glyph inside another control: never a
                // button. A click there is a wrong action (issue 13: "+" answered a 3×3 box on
                // the "." key); a refusal lets a person pick. The caption read exactly on no
                // control of its own (or on a panel: a calendar's day cell around its day
                // number) may be a flat button: the caller may hover it to see it light up.
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
                return None;
            };
            Some(Candidate {
                rect: l.rect(),
                text: shown,
                role: kind,
                score: score * factor,
            })
        }
    }
}

/// How far apart two rows' grounds may be and still be one list's: a list may tint every
/// other row (GTK 2's rules hint draws 238 on 255, Qt's alternate base 247): a row on a tinted
/// stripe stood alone between two white ones, and was no row (Sylpheed's summary:
/// LOCATOR_NOT_FOUND at first contact).
const ROW_TINT: i32 = 20;

/// Whether the plain text line `l` is one of a column of lines, a list's rows: at least three
/// lines outside any control, `l` among them, each starting at its left edge (within 3 px), of
/// about its height (half to twice: a descender makes a box taller), on its ground (or on a
/// list's selection bar), one after another at one pitch (one to four text heights, the gaps
/// within a quarter of each other). A caption strip above a text box's line is two lines, and
/// a header above one row has a pitch of its own.
fn in_a_column(scene: &mut Scene, ocr: &mut OcrEngine, l: &SeenLabel) -> bool {
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
fn quiet_column(
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
fn with_colon_captions(
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
fn with_words_joined(mut labels: Vec<SeenLabel>, target: &str) -> Vec<SeenLabel> {
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
fn lone_sign(more: &str, caption: &str, extra: Rect, h: i32) -> bool {
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

fn sign_apart_right(scene: &Scene, l: &SeenLabel, extra: Rect) -> bool {
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

fn icon_left_of(scene: &mut Scene, ocr: &mut OcrEngine, l: &SeenLabel, extra: Rect) -> bool {
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
fn chinese_mnemonic(l: &SeenLabel, extra: Rect, more: &str) -> bool {
    let glyphs = more.chars().filter(|c| !c.is_whitespace()).count();
    extra.x >= l.line.right() - 2
        && extra.w <= 2 * l.line.h
        && l.text.trim_end().chars().last().is_some_and(is_ideograph)
        && (1..=3).contains(&glyphs)
        && more.contains(['(', ')', '（', '）'])
}

/// The caption sits in the middle of its box, across and down, and the box holds it.
fn centred_caption(l: &SeenLabel) -> bool {
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
fn holds_caption(l: &SeenLabel) -> bool {
    let Some(c) = &l.control else {
        return false;
    };
    let r = c.rect;
    let inside = r.intersect(&l.line).map_or(0, |i| i.area());
    control_sized(&r) && r.contains(l.line.center()) && inside * 10 >= l.line.area() * 6
}

/// A box of a control's size: not a speck, not a panel.
fn control_sized(r: &Rect) -> bool {
    r.w.min(r.h) >= 12 && r.h <= 90 && r.w <= 16 * r.h
}

/// The input field right of a label (same row), else just below it. A box whose ink sits
/// centred in it is a button whatever its shape (a wide Swing button right of a caption that
/// labels the field below it: "Replace with:" and "Replace & Find"); a field's text starts at
/// its left.
fn field_beside(scene: &mut Scene, label: Rect) -> Option<Rect> {
    let lc = label.center();
    let frame = scene.frame;
    let img = &frame.image;
    // A caption alone on its row (the window's reading known): a strip with other captions
    // set along it is a list's header row, and the area under it the list. Captions along a
    // row share its middle within half the shorter's height: a reading two rows tall beside
    // it (a text UI's history arrow read with the rule under it, 28 px) sets no row.
    let alone_on_row = {
        let read = scene.labels_read();
        !read.is_empty()
            && !read.iter().any(|m| {
                m.control.is_none()
                    && m.line.intersect(&label).is_none()
                    && (m.line.center().y - lc.y).abs() * 2 <= label.h.min(m.line.h).max(6)
            })
    };
    let read: Vec<Rect> = scene.labels_read().iter().map(|m| m.line).collect();
    let boxes = scene.boxes();
    // A field is a few text heights tall at most, and within reach: both measured in the
    // label's text, so that a UI drawn at twice the scale (GDK_SCALE=2: a 68 px entry beside
    // 20 px text) keeps its fields.
    let (tallest, reach) = (control_height(label.h), (15 * label.h).max(300));
    let right = boxes
        .iter()
        .filter(|b| b.role != Role::Button && b.rect.h <= tallest && !centred_ink(img, b.rect))
        .filter(|b| (b.rect.center().y - lc.y).abs() <= label.h.max(b.rect.h) / 2 + 2)
        .filter(|b| b.rect.x >= label.right() - 4 && b.rect.x - label.right() <= reach)
        .min_by_key(|b| b.rect.x - label.right())
        .map(|b| b.rect);
    // A box holding a shortcut item (a caption with its key in reverse video before it) is
    // a text UI's shortcut rows, the space between two keys' blocks: no field.
    let shortcuts = |b: &Rect| {
        read.iter().any(|m| {
            b.contains_rect(m)
                && m.intersect(&label).is_none()
                && mend_vision::key_badge(img, *m).is_some()
        })
    };
    let below = boxes
        .iter()
        // Ink centred in it is captions (a row of buttons framed as one: a terminal dialog's
        // `[< OK >] [ Cancel ]` under its input), never a field's text.
        .filter(|b| b.role == Role::Field && !centred_ink(img, b.rect) && !shortcuts(&b.rect))
        .filter(|b| b.rect.y >= label.bottom() - 2 && b.rect.y - label.bottom() <= 40)
        .filter(|b| (b.rect.x - label.x).abs() <= 20)
        .min_by_key(|b| b.rect.y)
        .map(|b| b.rect);
    // A prompt set over a wide input, its caption anywhere along it (Athena's and Motif's
    // prompt dialogs centre `Save file:` over a box the dialog's width): the field's span
    // holds the whole caption, it lies within two text heights under it, and the caption is
    // alone on its row and the field's only one — no other reading on the field's rows left
    // of it, none between the two.
    let below = below.or_else(|| {
        if !alone_on_row {
            return None;
        }
        boxes
            .iter()
            .filter(|b| b.role == Role::Field && !centred_ink(img, b.rect))
            .filter(|b| b.rect.x <= label.x && b.rect.right() >= label.right())
            .filter(|b| b.rect.y >= label.bottom() - 2 && b.rect.y - label.bottom() <= 2 * label.h)
            .filter(|b| {
                !read.iter().any(|m| {
                    let c = m.center();
                    m.intersect(&label).is_none()
                        && ((m.right() <= b.rect.x + 4 && c.y >= b.rect.y && c.y < b.rect.bottom())
                            || (c.y > label.bottom() && c.y < b.rect.y))
                })
            })
            .min_by_key(|b| b.rect.y)
            .map(|b| b.rect)
    });
    // No frame there: a bar of its own colour on the row under the caption (a text UI's
    // dialog: its prompt over its input), nearer than any framed field below and overlapping
    // no box but a panel around it. Else a framed box further down would be taken for it (the
    // row of the dialog's buttons under the input). A caption alone on its row only: one in
    // a strip of others is a list's column header, and a bar under it its selected row.
    let bar_below = alone_on_row.then(|| mend_vision::filled_bar_below(img, label));
    let bar_below = bar_below.flatten().filter(|bar| {
        !boxes.iter().any(|b| {
            let panel = b.rect.contains_rect(bar) && b.rect.area() >= 2 * bar.area();
            b.rect.intersect(bar).is_some_and(|i| i.area() > 0) && !panel
        })
    });
    let below = match (bar_below, below) {
        (Some(bar), Some(b)) if bar.y < b.y => Some(bar),
        (Some(bar), None) => Some(bar),
        (_, b) => b,
    };
    // A caption above its field labels that field, not a box far along its row: the label is
    // the nearest text to its own field (Swing's "Replace with:" stands 3 px above its text
    // area and 290 px left of a wide "Replace & Find" button whose caption nearly fills it).
    // The box right of it keeps the label unless the one below is three times nearer.
    if let (Some(r), Some(b)) = (right, below) {
        let (gap_r, gap_b) = (r.x - label.right(), (b.y - label.bottom()).max(0));
        if 3 * gap_b < gap_r {
            return Some(b);
        }
    }
    // No frame there: a bar filled with a colour of its own (a terminal form's one-row field,
    // drawn in cell colours). One that overlaps a framed box is that box's face (a button's),
    // never a field of its own, unless the box is a panel around it (twice its size or more).
    let bar = || {
        filled_bar(img, label, reach).filter(|bar| {
            !boxes.iter().any(|b| {
                let panel = b.rect.contains_rect(bar) && b.rect.area() >= 2 * bar.area();
                b.rect.intersect(bar).is_some_and(|i| i.area() > 0) && !panel
            })
        })
    };
    // No frame at all: a text area drawn without one under its caption strip (wxGTK's and
    // GTK's text views), where no control's box lies in it, the caption alone on its strip.
    let area = || {
        if !alone_on_row {
            return None;
        }
        mend_vision::area_under_strip(img, label).filter(|a| {
            !boxes
                .iter()
                .any(|b| a.intersect(&b.rect).is_some_and(|i| i.area() > 0))
        })
    };
    // No box, no bar, no area: a prompt's input, the rest of the caption's line where a text
    // caret stands (a terminal's or a minibuffer's `Write file: ~/█`), its text's rows (3 px
    // inside its box) touching no box.
    let prompt = mend_vision::prompt_input(img, label).filter(|p| {
        !boxes.iter().any(|b| {
            p.input
                .inflate(-3)
                .intersect(&b.rect)
                .is_some_and(|i| i.area() > 0)
        })
    });
    // A framed text area under the caption, many lines tall (a commit message's box): too
    // tall for a control's box, taken only while it is empty (no ink but a caret) — a list
    // under a caption is framed alike, and keys typed into it pick its items.
    let framed_area = || {
        mend_vision::framed_area_below(img, label)
            .filter(|a| mend_vision::field_is_blank(img, *a))
            .filter(|a| {
                !boxes
                    .iter()
                    .any(|b| b.rect.intersect(a).is_some_and(|i| i.area() > 0))
            })
    };
    // A caret on the caption's own line is where typed keys go: before a box below it (a
    // terminal's prompt bar over its shortcut rows, whose key badges frame boxes).
    right
        .or_else(bar)
        .or_else(|| prompt.filter(|p| p.caret).map(|p| p.input))
        .or(below)
        .or_else(area)
        .or_else(framed_area)
}

/// A menu is an item among items: on a bar of captions along its row (a menu bar), in a
/// column of captions over and under it (a menu drawn in the window), or inside a popup.
/// Where a menu's caption is read twice and only some places are such, the others go — a
/// group box's title or a label that says the same word (TuxGuitar's `Composition` menu and
/// its `Composition` tool group). With none or all such, the candidates stay as they were.
/// Then, with no menu open, a place on the window's first row of words (its menu bar) goes
/// before places under it.
fn among_menus(cands: Vec<Candidate>, labels: &[SeenLabel], popups: &[Rect]) -> Vec<Candidate> {
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
const SHAPE_ALONE: f32 = 0.75;

fn ambiguous(text: &str, c: Vec<Candidate>) -> Refusal {
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
fn verdict(
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
fn decide(cands: Vec<Candidate>, rec: Option<Rect>) -> Decision {
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

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Set by a test: the next look faults inside perception.
        pub(super) static FAULT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// A fault inside perception is a refusal with its own code, nothing found and nothing to
    /// click; the locator reads the next screen as before.
    #[test]
    fn a_fault_in_perception_is_a_coded_refusal_and_the_next_look_works() {
        use mend_capture::{Capture, ImageFileCapture, WindowQuery};
        let png = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/screenshots/en/baseline/login.png");
        let cap = ImageFileCapture::open(&png).unwrap();
        let frame = cap.capture(&WindowQuery::title(".*").unwrap()).unwrap();
        let mut loc = Locator::new("eng").unwrap();
        let target = Target {
            text: Some("Login".into()),
            role: Role::Button,
            ..Target::default()
        };
        FAULT.with(|f| f.set(true));
        let r = loc.locate(&frame, &target, &Recorded::default());
        FAULT.with(|f| f.set(false));
        let e = r.expect_err("a fault is no control");
        assert_eq!(e.error.code, ErrorCode::PerceptionFailed);
        assert!(e.candidates.is_empty());
        assert!(
            e.error.message.contains("a fault put here by a test"),
            "{e:?}"
        );
        loc.locate(&frame, &target, &Recorded::default())
            .expect("the next look finds the button");
    }

    fn seen(text: &str, x: i32) -> SeenLabel {
        SeenLabel {
            text: text.into(),
            line: Rect::new(x, 10, 40, 14),
            control: None,
            conf: 90.0,
        }
    }

    /// A reader's line cut in two at a word space (`Default path` + `is "invoices.sc"`): the
    /// two read together as the target are one reading of it; far apart, on another row, or
    /// saying something else together, they are not joined.
    #[test]
    fn a_line_cut_at_a_word_space_is_read_whole() {
        let at = |text: &str, x: i32, y: i32, w: i32| SeenLabel {
            text: text.into(),
            line: Rect::new(x, y, w, 11),
            control: None,
            conf: 90.0,
        };
        let target = "Default path is \"invoices.sc\"";
        let joined = with_words_joined(
            vec![
                at("Default path", 2, 17, 72),
                at("is \"invoices.sc\"", 80, 17, 94),
            ],
            target,
        );
        assert!(joined
            .iter()
            .any(|l| l.text == target && l.line == Rect::new(2, 17, 172, 11)));
        let far = with_words_joined(
            vec![
                at("Default path", 2, 17, 72),
                at("is \"invoices.sc\"", 120, 17, 94),
            ],
            target,
        );
        assert_eq!(far.len(), 2, "a gap wider than one and a half text heights");
        let below = with_words_joined(
            vec![
                at("Default path", 2, 17, 72),
                at("is \"invoices.sc\"", 80, 30, 94),
            ],
            target,
        );
        assert_eq!(below.len(), 2, "another row");
        let other = with_words_joined(
            vec![
                at("Default path", 2, 17, 72),
                at("is \"draft.sc\"", 80, 17, 94),
            ],
            target,
        );
        assert_eq!(other.len(), 2, "another text together");
        // A monospace sentence read in three parts (Sylpheed's message view).
        let sentence = "Invoice 4710: 75.50 EUR, due 2 April 2027.";
        let three = with_words_joined(
            vec![
                at("Invoice 4710:", 193, 420, 125),
                at("due 2 April 2027.", 443, 420, 165),
                at("75.50 EUR,", 333, 421, 96),
            ],
            sentence,
        );
        assert!(three
            .iter()
            .any(|l| l.text == sentence && l.line == Rect::new(193, 420, 415, 12)));
        let gapped = with_words_joined(
            vec![
                at("Invoice 4710:", 193, 420, 125),
                at("75.50 EUR,", 333, 421, 96),
                at("due 2 April 2027.", 470, 420, 165),
            ],
            sentence,
        );
        assert_eq!(gapped.len(), 3, "a part further than a text height");
        // Two titles of a menu bar, as far apart as a terminal's words, among others: items.
        let bar = vec![
            at("File", 12, 7, 32),
            at("Edit", 61, 7, 35),
            at("Search", 112, 7, 60),
            at("Preferences", 189, 7, 107),
        ];
        assert_eq!(
            with_words_joined(bar, "Edit Search").len(),
            4,
            "a bar of items"
        );
    }

    /// A terminal sets each ideograph in two cells, and a reader may cut a caption at those
    /// gaps (mc's `建目 录 (M)`): the parts say the caption together, its mnemonic taken in, a
    /// shortcut column further on is no item beside it. A status line's brackets read alone
    /// and a part read twice in one place (`[ 已写入 2 行 ]`) are nothing else along the row.
    #[test]
    fn an_ideographic_caption_in_parts_is_one_with_its_mnemonic() {
        let at = |t: &str, x: i32, w: i32| SeenLabel {
            text: t.into(),
            line: Rect::new(x, 308, w, 14),
            control: None,
            conf: 90.0,
        };
        let item = with_words_joined(
            vec![
                at("建目", 111, 30),
                at("录", 147, 14),
                at("(M)", 167, 21),
                at("F7", 282, 16),
            ],
            "建目录",
        );
        assert!(
            item.iter()
                .any(|l| l.text == "建目 录 (M)" && l.line == Rect::new(111, 308, 77, 14)),
            "{item:?}"
        );
        let status = with_words_joined(
            vec![
                at("[", 383, 4),
                at("已写入", 399, 50),
                at("2", 462, 7),
                at("2", 466, 3),
                at("行", 480, 14),
            ],
            "已写入 2 行",
        );
        assert!(status.iter().any(|l| l.text == "已写入 2 行"), "{status:?}");
        // Another caption close beside it on the row: items of a bar, not one caption.
        let bar = with_words_joined(
            vec![at("建目", 111, 30), at("录", 147, 14), at("删除", 175, 30)],
            "建目录",
        );
        assert_eq!(bar.len(), 3, "{bar:?}");
    }

    /// A menu's caption read twice: on the menu bar among `File Edit View`, and as a tool
    /// group's title alone on its row (TuxGuitar's `Composition`): the bar's is the menu. Two
    /// on bars, or none, stay as they were (a tie for the verdict to refuse).
    #[test]
    fn a_menu_is_the_one_among_items() {
        let at = |text: &str, x: i32, y: i32| SeenLabel {
            text: text.into(),
            line: Rect::new(x, y, 70, 13),
            control: None,
            conf: 90.0,
        };
        let cand = |x: i32, y: i32| Candidate {
            rect: Rect::new(x, y, 70, 13),
            text: "Composition".into(),
            role: Role::Menu,
            score: 1.0,
        };
        let bar = [
            at("File", 10, 7),
            at("Edit", 90, 7),
            at("Composition", 170, 7),
            at("Track", 250, 7),
        ];
        let mut labels = bar.to_vec();
        labels.push(at("Composition", 10, 122));
        let kept = among_menus(vec![cand(170, 7), cand(10, 122)], &labels, &[]);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].rect.y, 7, "the menu bar's");
        // Inside a popup: an item too.
        let kept = among_menus(
            vec![cand(170, 7), cand(10, 122)],
            &labels,
            &[Rect::new(0, 100, 200, 200)],
        );
        assert_eq!(kept.len(), 2, "both items: still a tie");
        // Neither among items: as they were.
        let alone = [at("Composition", 10, 122), at("Composition", 300, 300)];
        let kept = among_menus(vec![cand(10, 122), cand(300, 300)], &alone, &[]);
        assert_eq!(kept.len(), 2);
        // A table's row of cells further down is a row of items too: with no menu open, the
        // window's first row of words (the menu bar) is the menu's (FileZilla's `File` menu
        // and a file list's type cell `File`).
        let mut table = bar.to_vec();
        table.extend([
            at(".keep", 10, 347),
            at("0", 90, 347),
            at("Composition", 250, 347),
        ]);
        let kept = among_menus(vec![cand(170, 7), cand(250, 347)], &table, &[]);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].rect.y, 7, "the menu bar's");
        // The same with a menu open over the window: both stay (an open menu decides).
        let kept = among_menus(
            vec![cand(170, 7), cand(250, 347)],
            &table,
            &[Rect::new(200, 300, 200, 100)],
        );
        assert_eq!(kept.len(), 2);
    }

    /// One reader reads `Save` at a button, the other `Open`; an `Open` button stands
    /// elsewhere: which of the two that place is, no reading can tell — refused.
    #[test]
    fn readers_that_disagree_on_a_caption_that_is_another_controls_are_a_refusal() {
        let labels = [seen("Save", 10), seen("Open", 100), seen("Cancel", 200)];
        let at = Rect::new(10, 10, 40, 14);
        assert_eq!(
            witness("Save", "Open", at, &labels),
            Witness::Conflicts {
                reading: "Open".into(),
                other: "Open".into()
            }
        );
        // The same reading where no other control is captioned so: a misreading, no conflict.
        let alone = [seen("Save", 10), seen("Cancel", 200)];
        assert_eq!(witness("Save", "Open", at, &alone), Witness::Agrees);
        // A near spelling of the target, or nothing read: agreement.
        assert_eq!(witness("File", "Eile", at, &labels), Witness::Agrees);
        assert_eq!(witness("Save", "", at, &labels), Witness::Agrees);
        assert_eq!(witness("Save", "Save", at, &labels), Witness::Agrees);
        // The other reading's twin at the same place is no other control.
        let same_place = [seen("Save", 10), seen("Open", 12)];
        assert_eq!(witness("Save", "Open", at, &same_place), Witness::Agrees);
        // The caption with a word more is another control, twin or not.
        assert!(matches!(
            witness("Save", "Save As...", at, &alone),
            Witness::Conflicts { .. }
        ));
        // Where the first reader missed the target, its own reading of the place must be
        // nothing, the target or a near spelling: any other caption refuses it.
        assert!(first_reading_allows("Save", ""));
        assert!(first_reading_allows("File", "Eile"));
        assert!(first_reading_allows("View", "yiew"));
        assert!(first_reading_allows("Load", "(Load)"));
        assert!(first_reading_allows("OK", "[< 0K >]"));
        assert!(!first_reading_allows("OK", "JK"));
        // A bracket or a frame read beside the caption is no word added.
        assert_eq!(witness("Save", "(Save)", at, &alone), Witness::Agrees);
        assert!(!first_reading_allows("Install", "Uninstall"));
        assert!(!first_reading_allows("Save", "Save As..."));
    }

    fn c(x: i32, score: f64) -> Candidate {
        Candidate {
            rect: Rect::new(x, 10, 100, 30),
            text: "确定".into(),
            role: Role::Button,
            score,
        }
    }

    #[test]
    fn one_clear_winner_is_taken() {
        assert!(matches!(decide(vec![c(0, 1.0)], None), Decision::Winner(_)));
        assert!(matches!(
            decide(vec![c(0, 1.0), c(300, 0.8)], None),
            Decision::Winner(w) if w.rect.x == 0
        ));
        assert!(matches!(decide(vec![], None), Decision::Nothing));
    }

    #[test]
    fn a_tie_is_refused_unless_one_is_clearly_where_it_was() {
        assert!(matches!(
            decide(vec![c(0, 1.0), c(300, 1.0)], None),
            Decision::Ambiguous(v) if v.len() == 2
        ));
        let rec = Some(Rect::new(310, 12, 100, 30));
        assert!(matches!(
            decide(vec![c(0, 1.0), c(300, 1.0)], rec),
            Decision::Winner(w) if w.rect.x == 300
        ));
        let between = Some(Rect::new(150, 12, 100, 30));
        assert!(matches!(
            decide(vec![c(0, 1.0), c(300, 1.0)], between),
            Decision::Ambiguous(_)
        ));
    }

    /// What was read of a mark after a caption: nothing legible, or one ideograph after a
    /// Latin caption, is a sign; a letter or digit of the caption's script, two glyphs, or an
    /// ideograph after a Chinese caption are words.
    #[test]
    fn a_lone_sign_after_a_caption_is_no_word() {
        let mark = Rect::new(370, 350, 16, 12);
        assert!(lone_sign("", "OK", mark, 11));
        assert!(lone_sign("↵", "OK", mark, 11));
        assert!(lone_sign("今", "OK", mark, 11));
        assert!(!lone_sign("2", "Page", mark, 11));
        assert!(!lone_sign("A", "Save", mark, 11));
        assert!(!lone_sign("全部", "Delete", mark, 11));
        assert!(!lone_sign("今", "确定", mark, 11));
        assert!(!lone_sign("今", "OK", Rect::new(370, 350, 40, 12), 11));
    }

    /// A refusal names the line that holds the wanted words among more words; a glyph more
    /// (a radio's diamond read `0`) or a path whose name joins the words with `_` is no such
    /// line.
    #[test]
    fn a_refusal_names_the_line_holding_the_words_among_more() {
        let at = |text: &str| SeenLabel {
            text: text.into(),
            line: Rect::new(0, 0, 100, 10),
            control: None,
            conf: 90.0,
        };
        let said = read_inside(&[at("File"), at("INVOICE 4711 MARKED PAID")], "MARKED PAID");
        assert!(said.contains("inside 'INVOICE 4711 MARKED PAID'"), "{said}");
        assert_eq!(read_inside(&[at("0 Once")], "Once"), "");
        assert_eq!(
            read_inside(
                &[at("/tmp/real-apps/emacs-default-save_as-rk/work/")],
                "Save As..."
            ),
            ""
        );
        assert_eq!(read_inside(&[at("Save As...")], "Save As..."), "");
    }

    /// An icon view wraps "Internet Settings" under its icon, centred: the two lines are one
    /// caption; lines beside each other, off-centre or of another size are not.
    #[test]
    fn a_caption_wrapped_under_an_icon_is_one_caption() {
        let at = |text: &str, x: i32, y: i32, w: i32, h: i32| SeenLabel {
            text: text.into(),
            line: Rect::new(x, y, w, h),
            control: None,
            conf: 90.0,
        };
        let view = vec![
            at("Add/", 28, 60, 22, 10),
            at("Remove", 18, 72, 38, 10),
            at("Programs", 14, 84, 46, 10),
            at("Game", 100, 60, 26, 10),
            at("Controllers", 88, 72, 51, 10),
            at("Internet", 170, 60, 37, 10),
            at("Settings", 170, 72, 38, 10),
        ];
        let joined: Vec<String> = stacked_captions(&view)
            .into_iter()
            .map(|l| l.text)
            .collect();
        for want in [
            "Internet Settings",
            "Game Controllers",
            "Add/ Remove Programs",
        ] {
            assert!(joined.iter().any(|j| j == want), "{want} in {joined:?}");
        }
        let rect = stacked_captions(&view)
            .into_iter()
            .find(|l| l.text == "Internet Settings")
            .unwrap()
            .line;
        assert_eq!(rect, Rect::new(170, 60, 38, 22));
        // Side by side, or one line far below, or a heading twice the size: no caption.
        assert!(!joined
            .iter()
            .any(|j| j.contains("Settings Game") || j.contains("Programs Game")));
        let apart = vec![
            at("Internet", 170, 60, 37, 10),
            at("Settings", 170, 100, 38, 10),
        ];
        assert!(stacked_captions(&apart).is_empty());
        let off = vec![
            at("Internet", 170, 60, 37, 10),
            at("Settings", 260, 72, 38, 10),
        ];
        assert!(stacked_captions(&off).is_empty());
        let heading = vec![
            at("Internet", 170, 60, 80, 24),
            at("Settings", 190, 86, 38, 10),
        ];
        assert!(stacked_captions(&heading).is_empty());
    }

    #[test]
    fn an_exact_caption_is_not_tied_with_another_caption_two_letters_away() {
        let read = |x: i32, text: &str, score: f64| Candidate {
            text: text.into(),
            ..c(x, score)
        };
        let target = "Import Registry File...";
        let v = verdict(
            vec![
                read(0, "Import Registry File...", 1.0),
                read(200, "Export Registry File...", 0.89),
            ],
            None,
            target,
        );
        assert!(matches!(v, Some(Ok(w)) if w.rect.x == 0));
        // One letter off, or letters that look alike, may be the target misread: still a tie.
        for near in [
            "Import Registry Flle...",
            "lmport Registry File..",
            "Impart Registry File...",
        ] {
            let v = verdict(
                vec![read(0, target, 1.0), read(200, near, 0.9)],
                None,
                target,
            );
            assert!(matches!(v, Some(Err(_))), "{near} must stay a rival");
        }
        // With no exact reading, two near ones stay a tie.
        let v = verdict(
            vec![
                read(0, "Irnport Registry File", 0.9),
                read(200, "Export Registry File", 0.85),
            ],
            None,
            target,
        );
        assert!(matches!(v, Some(Err(_))));
    }

    #[test]
    fn the_same_control_read_twice_is_one_candidate() {
        assert!(matches!(
            decide(vec![c(0, 0.9), c(2, 1.0)], None),
            Decision::Winner(w) if w.score == 1.0
        ));
    }

    #[test]
    fn only_a_window_where_nothing_could_be_the_caption_is_asked_its_meaning_first() {
        let seen = |texts: &[&str]| -> Vec<SeenLabel> {
            texts
                .iter()
                .map(|t| SeenLabel {
                    text: t.to_string(),
                    line: Rect::new(0, 0, 40, 12),
                    control: None,
                    conf: 90.0,
                })
                .collect()
        };
        let english = seen(&["Customer ID", "Name", "Save", "2024-01-05"]);
        assert!(speaks_another_script("客户编号", &english));
        // Chinese data on an English screen shares no ideograph with the caption.
        assert!(speaks_another_script(
            "客户编号",
            &seen(&["Customer ID", "张三"])
        ));
        // One of the caption's ideographs read anywhere: it may be there, read in part.
        assert!(!speaks_another_script(
            "客户编号",
            &seen(&["Customer ID", "客户名称"])
        ));
        assert!(!speaks_another_script("删除", &seen(&["Delete", "删"])));
        assert!(!speaks_another_script("Save As", &english));
        assert!(speaks_another_script(
            "Save As",
            &seen(&["另存为", "名称：", "123"])
        ));
        // A mnemonic's one letter, an id's prefix: no Latin word.
        assert!(speaks_another_script(
            "Save As",
            &seen(&["另存为(A)...", "(S)", "C001"])
        ));
        assert!(!speaks_another_script("Save As", &seen(&["另存为", "Sa"])));
        // Digits have no script; a window that read nothing tells nothing.
        assert!(!speaks_another_script("1234", &english));
        assert!(!speaks_another_script("客户编号", &[]));
    }
}
