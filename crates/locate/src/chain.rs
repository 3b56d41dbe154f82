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

mod candidates;
mod decide;
mod exact;
mod meaning;
mod pixels;
mod resolve;
mod shape;
#[cfg(test)]
mod tests;
mod witness;

use candidates::*;
use decide::*;
use meaning::*;
use pixels::*;
use resolve::*;
use shape::*;
#[cfg(test)]
use witness::*;

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
}
