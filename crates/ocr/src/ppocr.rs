//! PP-OCR beside Tesseract: PaddleOCR's text detector (DB) and recogniser (CTC), ONNX models
//! run by ONNX Runtime through `ort` (loaded at run time from `MEND_ORT_DYLIB`; the models in
//! `MEND_PPOCR_DIR` as `det.onnx` and `rec.onnx`, the recogniser's alphabet in its metadata key
//! `character`). Both come from PyPI wheels (`scripts/ppocr.sh`); nothing is downloaded here.
//!
//! A region is read in two passes: the detector marks where text lies (a probability map,
//! thresholded into connected blobs, each grown by the DB "unclip" margin), and each blob's
//! crop is read as one line by the recogniser. Its CTC output says at which time step each
//! character was read, so a line comes back as [`Word`]s with their own boxes — one per
//! Latin word, one per ideograph, as Tesseract gives them — and the same line joining and
//! item splitting (`join_lines`) serve both engines.

use crate::Word;
use image::{imageops, GrayImage, Luma, RgbImage, RgbaImage};
use mend_model::{ErrorCode, MendError, Rect};
use ort::session::{builder::GraphOptimizationLevel, Session};
use ort::value::Tensor;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A pixel of the detector's map above this is text.
const THRESH: f32 = 0.3;
/// A blob whose mean probability is below this is dropped (noise, a texture).
const BOX_THRESH: f32 = 0.5;
/// DB's margin: a blob is grown by area × ratio / perimeter on every side.
const UNCLIP: f32 = 1.6;
/// The recogniser's input height.
const REC_H: u32 = 48;
/// The detector sees the region at least this large on its shorter side (PP-OCR's
/// `limit_side_len` for `limit_type = min`), but never upscaled more than [`DET_MAX_UP`].
const DET_MIN_SIDE: f32 = 736.0;
const DET_MAX_UP: f32 = 2.0;
/// Nor larger than this on its longer side.
const DET_MAX_SIDE: f32 = 2400.0;
/// A region at least this large on its shorter side is a window or most of one: its text is
/// drawn at a size the detector finds as it is (the upscale to [`DET_MIN_SIDE`] cost 3× the
/// time and twice the memory there, and found no more: BENCHMARKS.md, issue 32).
const DET_WINDOW_SIDE: u32 = 160;
/// Unless that text is small: lines whose median core is shorter than this (a terminal's
/// 6×13-class font) are looked for again upscaled, as a strip is.
const DET_SMALL_TEXT: i32 = 10;
/// A line is read padded to this width at least; a glyph alone to [`GLYPH_MIN_W`].
const LINE_MIN_W: u32 = 64;
/// Lines read in one run of the recogniser, at most.
const REC_BATCH: usize = 8;
/// The widest line of a batch is at most this many times its narrowest (padding is work).
const REC_BATCH_SPREAD: f32 = 1.5;
pub const GLYPH_MIN_W: u32 = 320;

fn err(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::OcrFailed, msg)
}

/// Where the runtime and the models are: `MEND_ORT_DYLIB` and `MEND_PPOCR_DIR`, else where
/// `scripts/ppocr.sh` installs them (`$MEND_PPOCR_HOME`, default `~/.cache/mend/ppocr`:
/// `onnxruntime-1.31.1/libonnxruntime.so.1.31.1` and `models-v6/`).
pub fn paths_from_env() -> Result<(PathBuf, PathBuf), MendError> {
    let home = std::env::var_os("MEND_PPOCR_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/mend/ppocr")));
    let dylib = std::env::var_os("MEND_ORT_DYLIB")
        .map(PathBuf::from)
        .or_else(|| {
            home.as_ref()
                .map(|h| h.join("onnxruntime-1.31.1/libonnxruntime.so.1.31.1"))
                .filter(|p| p.exists())
        });
    let dir = std::env::var_os("MEND_PPOCR_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            let h = home.as_ref()?;
            ["models-v6", "models-v4"]
                .into_iter()
                .map(|m| h.join(m))
                .find(|p| p.join("VERSION").exists())
        });
    match (dylib, dir) {
        (Some(l), Some(d)) => Ok((l, d)),
        _ => Err(err(
            "PP-OCR is not installed: run `source scripts/ppocr.sh && ensure_ppocr` (ONNX Runtime and the PP-OCR models from PyPI into ~/.cache/mend/ppocr; it sets MEND_ORT_DYLIB and MEND_PPOCR_DIR), or use MEND_OCR=tesseract",
        )),
    }
}

/// Whether PP-OCR's runtime and models are there to load.
pub fn available() -> bool {
    paths_from_env().is_ok_and(|(l, d)| l.exists() && d.join("det.onnx").exists())
}

/// One ONNX Runtime per process (the library is loaded once; a second environment is refused).
fn environment(dylib: &Path) -> Result<&'static ort::environment::Environment, MendError> {
    static ENV: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        ort::init_from(dylib)
            .map_err(|e| format!("load ONNX Runtime from {}: {e}", dylib.display()))?
            .with_name("mend-ppocr")
            .build()
            .map_err(|e| format!("start ONNX Runtime: {e}"))
    })
    .as_ref()
    .map_err(|e| err(e.clone()))
}

/// The detector and the recogniser, loaded once and kept warm.
pub struct PpOcr {
    det: Session,
    rec: Session,
    /// Class index → text; 0 is CTC's blank, the last a space.
    dict: Vec<String>,
}

/// One character of a line as the recogniser read it: its text, probability and the time
/// step (column of the recogniser's input, in its output's units) where it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Glyph {
    pub text: String,
    pub prob: f32,
    pub step: usize,
}

impl PpOcr {
    /// Load from `MEND_ORT_DYLIB` and `MEND_PPOCR_DIR`.
    pub fn from_env() -> Result<Self, MendError> {
        let (dylib, dir) = paths_from_env()?;
        Self::load(&dylib, &dir)
    }

    pub fn load(dylib: &Path, dir: &Path) -> Result<Self, MendError> {
        let env = environment(dylib)?;
        let session = |name: &str| -> Result<Session, MendError> {
            let path = dir.join(name);
            if !path.exists() {
                return Err(err(format!(
                    "no PP-OCR model at {}: run `source scripts/ppocr.sh && ensure_ppocr`",
                    path.display()
                )));
            }
            let build = || -> Result<Session, Box<dyn std::error::Error>> {
                Ok(Session::builder(env)?
                    .with_optimization_level(GraphOptimizationLevel::All)?
                    .with_intra_threads(2)?
                    .with_inter_threads(1)?
                    // Two cores shared with the app being driven: no spinning worker threads.
                    .with_config_entry("session.intra_op.allow_spinning", "0")?
                    // Inputs change size with every region and line: no arena kept at its
                    // largest, no memory plan per shape (RSS, issue 32's aim).
                    .with_memory_pattern(false)?
                    .with_execution_providers([ort::ep::CPU::default()
                        .with_arena_allocator(false)
                        .build()])?
                    .commit_from_file(&path)?)
            };
            build().map_err(|e| err(format!("load {}: {e}", path.display())))
        };
        let det = session("det.onnx")?;
        let rec = session("rec.onnx")?;
        let chars = rec
            .metadata()
            .map_err(|e| err(format!("read rec.onnx's metadata: {e}")))?
            .custom("character")
            .ok_or_else(|| err("rec.onnx has no 'character' metadata: not a PP-OCR recogniser"))?;
        let mut dict = vec![String::new()];
        dict.extend(chars.lines().map(str::to_string));
        dict.push(" ".into());
        Ok(PpOcr { det, rec, dict })
    }

    /// Read `r` of `img`: its words with boxes in `r`'s pixels (relative to `r`'s corner).
    pub fn read(&mut self, img: &RgbaImage, r: Rect) -> Result<Vec<Word>, MendError> {
        let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
        let Some(r) = r.clamp_to(&bounds) else {
            return Ok(Vec::new());
        };
        if r.w < 4 || r.h < 4 {
            return Ok(Vec::new());
        }
        let crop = rgb_crop(img, r);
        let boxes = self.detect(&crop)?;
        let lines: Vec<RgbImage> = boxes
            .iter()
            .map(|b| {
                let g = b.grown;
                imageops::crop_imm(&crop, g.x as u32, g.y as u32, g.w as u32, g.h as u32).to_image()
            })
            .collect();
        let read = self.recognize_lines(&lines)?;
        let mut words = Vec::new();
        for (line_no, (b, (glyphs, steps))) in boxes.iter().zip(read).enumerate() {
            for mut w in words_of(&glyphs, steps, b, &crop) {
                w.line_key = (0, line_no as u32, 0);
                words.push(w);
            }
        }
        Ok(words)
    }

    /// Read many lines, a few at a time in one run of the recogniser (as PaddleOCR does:
    /// sorted by width, each batch padded to its widest), in the order given. A batch's lines
    /// are within [`REC_BATCH_SPREAD`]× of each other's width, so little of a run is padding.
    pub fn recognize_lines(
        &mut self,
        lines: &[RgbImage],
    ) -> Result<Vec<(Vec<Glyph>, usize)>, MendError> {
        let widths: Vec<u32> = lines.iter().map(rec_width).collect();
        let mut order: Vec<usize> = (0..lines.len()).collect();
        order.sort_by_key(|&i| widths[i]);
        let mut out: Vec<Option<(Vec<Glyph>, usize)>> = vec![None; lines.len()];
        let mut start = 0;
        while start < order.len() {
            let first = widths[order[start]].max(LINE_MIN_W);
            let mut end = start + 1;
            while end < order.len()
                && end - start < REC_BATCH
                && widths[order[end]].max(LINE_MIN_W) as f32 <= REC_BATCH_SPREAD * first as f32
            {
                end += 1;
            }
            let batch: Vec<&RgbImage> = order[start..end].iter().map(|&i| &lines[i]).collect();
            for (k, r) in self.run_rec(&batch, LINE_MIN_W)?.into_iter().enumerate() {
                out[order[start + k]] = Some(r);
            }
            start = end;
        }
        Ok(out.into_iter().map(|r| r.unwrap_or_default()).collect())
    }

    /// Text boxes in `img`, each with the detector's mean probability, top to bottom. A window
    /// is seen at its own size first, and upscaled only when what that finds is small text
    /// or nothing.
    fn detect(&mut self, img: &RgbImage) -> Result<Vec<TextBox>, MendError> {
        let (w, h) = img.dimensions();
        if w.min(h) >= DET_WINDOW_SIDE {
            let round = |v: u32| (v.div_ceil(32) * 32).max(32);
            let boxes = self.detect_at(img, (round(w), round(h)))?;
            if !small_text(&boxes) {
                return Ok(boxes);
            }
        }
        self.detect_at(img, det_size(w, h))
    }

    /// Text boxes in `img` as the detector sees it resized to `(dw, dh)`.
    fn detect_at(
        &mut self,
        img: &RgbImage,
        (dw, dh): (u32, u32),
    ) -> Result<Vec<TextBox>, MendError> {
        let (w, h) = img.dimensions();
        let small = imageops::resize(img, dw, dh, imageops::FilterType::Triangle);
        let input = Tensor::from_array(([1usize, 3, dh as usize, dw as usize], planes(&small)))
            .map_err(|e| err(format!("detector input: {e}")))?;
        let out = self
            .det
            .run(ort::inputs![input])
            .map_err(|e| err(format!("detector: {e}")))?;
        let (shape, prob) = out[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| err(format!("detector output: {e}")))?;
        let (mh, mw) = (shape[2] as u32, shape[3] as u32);
        let boxes = text_boxes(prob, mw, mh);
        // Back to the region's pixels.
        let (sx, sy) = (w as f64 / mw as f64, h as f64 / mh as f64);
        let bounds = Rect::new(0, 0, w as i32, h as i32);
        let back = |b: Rect| {
            let x0 = (b.x as f64 * sx).floor() as i32;
            let y0 = (b.y as f64 * sy).floor() as i32;
            let x1 = (b.right() as f64 * sx).ceil() as i32;
            let y1 = (b.bottom() as f64 * sy).ceil() as i32;
            Rect::new(x0, y0, x1 - x0, y1 - y0).clamp_to(&bounds)
        };
        Ok(boxes
            .into_iter()
            .filter_map(|b| {
                Some(TextBox {
                    grown: back(b.grown).filter(|r| r.w >= 2 && r.h >= 4)?,
                    core: back(b.core)?,
                    score: b.score,
                })
            })
            .collect())
    }

    /// Read one line: its characters with where each was read, and the number of time steps.
    /// `min_width`: the input is padded to at least this (PP-OCR's training width is 320; a
    /// line read unpadded costs a quarter as much, a lone glyph reads surer padded).
    pub fn recognize(
        &mut self,
        line: &RgbImage,
        min_width: u32,
    ) -> Result<(Vec<Glyph>, usize), MendError> {
        Ok(self.run_rec(&[line], min_width)?.remove(0))
    }

    /// One run of the recogniser over `lines` stacked in a batch, each brought to the model's
    /// height and padded (0 after normalisation: mid-grey) to the widest, at least
    /// `min_width`, a multiple of the 8 px time step. Per line: its characters and the time
    /// steps over the line itself (not its padding).
    fn run_rec(
        &mut self,
        lines: &[&RgbImage],
        min_width: u32,
    ) -> Result<Vec<(Vec<Glyph>, usize)>, MendError> {
        let widths: Vec<u32> = lines.iter().map(|l| rec_width(l)).collect();
        let width = widths
            .iter()
            .copied()
            .max()
            .unwrap_or(8)
            .max(min_width)
            .div_ceil(8)
            * 8;
        let plane = (REC_H * width) as usize;
        let mut data = vec![0f32; lines.len() * 3 * plane];
        for (n, (line, &rw)) in lines.iter().zip(&widths).enumerate() {
            let scaled = imageops::resize(*line, rw, REC_H, imageops::FilterType::Triangle);
            let base = n * 3 * plane;
            for (x, y, p) in scaled.enumerate_pixels() {
                let i = (y * width + x) as usize;
                for c in 0..3 {
                    data[base + c * plane + i] = p[2 - c] as f32 / 127.5 - 1.0;
                }
            }
        }
        let input = Tensor::from_array(([lines.len(), 3, REC_H as usize, width as usize], data))
            .map_err(|e| err(format!("recogniser input: {e}")))?;
        let out = self
            .rec
            .run(ort::inputs![input])
            .map_err(|e| err(format!("recogniser: {e}")))?;
        let (shape, probs) = out[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| err(format!("recogniser output: {e}")))?;
        let (steps, classes) = (shape[1] as usize, shape[2] as usize);
        if classes != self.dict.len() {
            return Err(err(format!(
                "rec.onnx gives {classes} classes but its alphabet has {}: a broken model",
                self.dict.len()
            )));
        }
        Ok(widths
            .iter()
            .enumerate()
            .map(|(n, &rw)| {
                // Only the steps over the line itself (not its padding) count.
                let used = ((steps as f64 * rw as f64 / width as f64).ceil() as usize).min(steps);
                let mine = &probs[n * steps * classes..(n + 1) * steps * classes];
                let glyphs = ctc_decode(mine, steps, classes)
                    .into_iter()
                    .filter(|g| g.1 < used)
                    .map(|(class, step, prob)| Glyph {
                        text: self.dict[class].clone(),
                        prob,
                        step,
                    })
                    .collect();
                (glyphs, used)
            })
            .collect())
    }
}

/// A line's width at the recogniser's height, its aspect kept.
fn rec_width(line: &RgbImage) -> u32 {
    let (w, h) = line.dimensions();
    ((REC_H as f32 * w as f32 / h.max(1) as f32).ceil() as u32).max(8)
}

fn rgb_crop(img: &RgbaImage, r: Rect) -> RgbImage {
    let mut out = RgbImage::new(r.w as u32, r.h as u32);
    for (x, y, p) in out.enumerate_pixels_mut() {
        let q = img.get_pixel(r.x as u32 + x, r.y as u32 + y).0;
        *p = image::Rgb([q[0], q[1], q[2]]);
    }
    out
}

/// NCHW planes in B, G, R order, each scaled to [-1, 1] (PP-OCR's training input).
fn planes(img: &RgbImage) -> Vec<f32> {
    let plane = (img.width() * img.height()) as usize;
    let mut data = vec![0f32; 3 * plane];
    for (i, p) in img.pixels().enumerate() {
        for c in 0..3 {
            data[c * plane + i] = p[2 - c] as f32 / 127.5 - 1.0;
        }
    }
    data
}

/// The detector's input size for a region of `w`×`h`: the shorter side brought up to
/// [`DET_MIN_SIDE`] (at most [`DET_MAX_UP`]×), the longer kept under [`DET_MAX_SIDE`], both
/// rounded to a multiple of 32.
pub(crate) fn det_size(w: u32, h: u32) -> (u32, u32) {
    let short = w.min(h).max(1) as f32;
    let mut ratio = (DET_MIN_SIDE / short).clamp(1.0, DET_MAX_UP);
    let long = w.max(h) as f32 * ratio;
    if long > DET_MAX_SIDE {
        ratio *= DET_MAX_SIDE / long;
    }
    let round = |v: u32| (((v as f32 * ratio) / 32.0).round() as u32 * 32).max(32);
    (round(w), round(h))
}

/// Whether boxes found at a window's own size are too small a text (or none) to trust the
/// detector there: the median core height under [`DET_SMALL_TEXT`].
fn small_text(boxes: &[TextBox]) -> bool {
    let mut hs: Vec<i32> = boxes.iter().map(|b| b.core.h).collect();
    hs.sort_unstable();
    hs.get(hs.len() / 2).is_none_or(|&m| m < DET_SMALL_TEXT)
}

/// DB post-processing on a probability map of `w`×`h`: the connected blobs above [`THRESH`]
/// whose mean probability reaches [`BOX_THRESH`], each as its bounding box grown by DB's
/// unclip margin, with that mean; top to bottom, left to right. Screen text is upright, so
/// a box is the blob's axis-aligned rectangle.
pub(crate) fn text_boxes(prob: &[f32], w: u32, h: u32) -> Vec<TextBox> {
    // Above the threshold, dilated by a 2×2 square (PP-OCR's `use_dilation`): the
    // letters of a word touch.
    let on = |x: u32, y: u32| prob[(y * w + x) as usize] > THRESH;
    let bitmap = GrayImage::from_fn(w, h, |x, y| {
        let hit = on(x, y)
            || (x > 0 && on(x - 1, y))
            || (y > 0 && on(x, y - 1))
            || (x > 0 && y > 0 && on(x - 1, y - 1));
        Luma([u8::from(hit)])
    });
    let labels = imageproc::region_labelling::connected_components(
        &bitmap,
        imageproc::region_labelling::Connectivity::Four,
        Luma([0u8]),
    );
    // Per label: bounds, probability sum, pixel count.
    let mut blobs: std::collections::HashMap<u32, (u32, u32, u32, u32, f32, u32)> =
        Default::default();
    for (x, y, l) in labels.enumerate_pixels() {
        let l = l.0[0];
        if l == 0 {
            continue;
        }
        let p = prob[(y * w + x) as usize];
        let e = blobs.entry(l).or_insert((x, y, x, y, 0.0, 0));
        e.0 = e.0.min(x);
        e.1 = e.1.min(y);
        e.2 = e.2.max(x);
        e.3 = e.3.max(y);
        e.4 += p;
        e.5 += 1;
    }
    let mut out: Vec<TextBox> = blobs
        .into_values()
        .filter_map(|(x0, y0, x1, y1, sum, n)| {
            let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
            // A blob under 3 px on its short side is a line or a speck, not text.
            if bw.min(bh) < 3.0 {
                return None;
            }
            let score = sum / n as f32;
            if score < BOX_THRESH {
                return None;
            }
            let d = (bw * bh * UNCLIP / (2.0 * (bw + bh))).round() as i32;
            let core = Rect::new(x0 as i32, y0 as i32, bw as i32, bh as i32);
            let grown = core
                .inflate(d)
                .clamp_to(&Rect::new(0, 0, w as i32, h as i32))?;
            Some(TextBox { grown, core, score })
        })
        .collect();
    out.sort_by_key(|b| (b.grown.y, b.grown.x));
    out
}

/// A text box of the detector: the blob itself (`core`: where the text's ink is) and the box
/// grown by DB's margin (`grown`: what the recogniser reads), with the blob's mean probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TextBox {
    pub grown: Rect,
    pub core: Rect,
    pub score: f32,
}

/// Greedy CTC: the best class per time step, repeats merged, blanks (class 0) dropped.
/// `(class, step, probability)` per character.
pub(crate) fn ctc_decode(probs: &[f32], steps: usize, classes: usize) -> Vec<(usize, usize, f32)> {
    let mut out = Vec::new();
    let mut prev = 0usize;
    for t in 0..steps {
        let row = &probs[t * classes..(t + 1) * classes];
        let (best, p) =
            row.iter().enumerate().fold(
                (0usize, f32::MIN),
                |a, (i, &v)| if v > a.1 { (i, v) } else { a },
            );
        if best != 0 && best != prev {
            out.push((best, t, p));
        }
        prev = best;
    }
    out
}

/// A line's characters cut into words with boxes in the region's pixels: a run of non-space
/// characters is a word, each ideograph a word of its own (chi_sim's way). A character at
/// step `s` of `steps` lies around `line.x + (s + 0.5) × line.w / steps`; a word's box
/// reaches halfway to its neighbours and is then drawn in to the ink inside, so the gaps
/// between words (which `join_lines` splits items at) are the gaps on screen.
pub(crate) fn words_of(glyphs: &[Glyph], steps: usize, b: &TextBox, img: &RgbImage) -> Vec<Word> {
    let line = b.grown;
    if steps == 0 {
        return Vec::new();
    }
    let step_w = line.w as f64 / steps as f64;
    // Ink is looked for in the blob's rows (a pixel more each way): the grown box reaches
    // into what lies above and below (a menu bar's edge, a separator) that would join words.
    let band = b.core.inflate(1).clamp_to(&line).unwrap_or(line);
    let ink = InkProfile::of(img, line, band);
    let centre = |step: usize| line.x as f64 + (step as f64 + 0.5) * step_w;
    let glyphs = without_frame_ends(glyphs, &ink, &centre);
    // Runs of characters between spaces, each as sure as its letters on average. A doubtful
    // character never cuts a run short: "Uninstall" with a doubtful "Un" is "Uninstall" read
    // less surely, never a sure "install".
    let mut runs: Vec<Vec<&Glyph>> = vec![Vec::new()];
    for g in &glyphs {
        if g.text.trim().is_empty() {
            runs.push(Vec::new());
        } else {
            runs.last_mut().expect("one run at least").push(g);
        }
    }
    // Within a run, each ideograph is a word of its own (chi_sim's way), with the run's
    // confidence: 不保存 with a doubtful 不 stands or falls whole, never as 保存.
    let mut groups: Vec<(Vec<&Glyph>, f32)> = Vec::new();
    for run in runs.into_iter().filter(|r| !r.is_empty()) {
        // Letters, digits and ideographs decide (a doubtful '.' or '(' changes no caption),
        // by their mean: one doubtful letter in "Sign" keeps the word, read whole.
        let letters: Vec<f32> = run
            .iter()
            .filter(|g| g.text.chars().any(char::is_alphanumeric))
            .map(|g| g.prob)
            .collect();
        let sure = if letters.is_empty() {
            run.iter().map(|g| g.prob).sum::<f32>() / run.len() as f32
        } else {
            letters.iter().sum::<f32>() / letters.len() as f32
        };
        let mut cur: Vec<&Glyph> = Vec::new();
        for g in run {
            if g.text.chars().next().is_some_and(crate::is_ideograph) {
                if !cur.is_empty() {
                    groups.push((std::mem::take(&mut cur), sure));
                }
                groups.push((vec![g], sure));
            } else {
                cur.push(g);
            }
        }
        if !cur.is_empty() {
            groups.push((cur, sure));
        }
    }
    // A word reaches halfway to its neighbours' characters, and at most three steps past
    // its own first and last (an icon at the line's start is no part of its first word).
    let reach = 3.0 * step_w;
    (0..groups.len())
        .filter_map(|i| {
            let (gs, sure) = &groups[i];
            let (first, last) = (gs.first()?.step, gs.last()?.step);
            let mut x0 = centre(first) - reach;
            let mut x1 = centre(last) + reach;
            if i > 0 {
                x0 = x0.max((centre(groups[i - 1].0.last()?.step) + centre(first)) / 2.0);
            }
            if i + 1 < groups.len() {
                x1 = x1.min((centre(last) + centre(groups[i + 1].0.first()?.step)) / 2.0);
            }
            let x0 = (x0.floor() as i32).max(line.x);
            let x1 = (x1.ceil() as i32).min(line.right());
            // The word's ink: from its first character's place leftwards and its last's
            // rightwards while ink follows within a letter gap; an icon a few pixels off
            // (a button's floppy disk left of "Save") was read as no character and stays out.
            let ideo = gs.iter().any(|g| g.text.chars().any(crate::is_ideograph));
            let gap = if ideo {
                (band.h / 2).max(3)
            } else {
                (band.h / 5).max(2)
            };
            let (x0, x1) = ink.run(
                centre(first).round() as i32,
                centre(last).round() as i32,
                x0,
                x1,
                gap,
            )?;
            let (y0, y1) = ink.rows(x0, x1).unwrap_or((line.y, line.bottom()));
            let text: String = gs.iter().map(|g| g.text.as_str()).collect();
            Some(Word {
                text,
                rect: Rect::new(x0, y0, x1 - x0, y1 - y0),
                conf: sure * 100.0,
                line_key: (0, 0, 0),
            })
        })
        .collect()
}

/// A rounded frame's ends read as brackets: an Athena button's oval reads "(Load)", a row of
/// them "(Save)(Don't Save)(Cancel)". Each bracket pair whose two brackets' ink is far taller
/// than the text between them (the frame spans the button; a bracket in text spans about the
/// text's own height) or far shorter (a piece of the frame a crop cut), or which lines above
/// and below the text join (an outline), is dropped; everything else is kept as read.
fn without_frame_ends(
    glyphs: &[Glyph],
    ink: &InkProfile,
    centre: &dyn Fn(usize) -> f64,
) -> Vec<Glyph> {
    let closing = |open: &str| match open {
        "(" => Some(")"),
        "[" => Some("]"),
        "{" => Some("}"),
        "<" => Some(">"),
        "（" => Some("）"),
        _ => None,
    };
    let run = |g: &Glyph| {
        let c = centre(g.step).round() as i32;
        ink.run(c, c, ink.line.x, ink.line.right(), 1)
    };
    let rows = |g: &Glyph| run(g).and_then(|(a, b)| ink.rows(a, b));
    let mut drop: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < glyphs.len() {
        let Some(close) = closing(&glyphs[i].text) else {
            i += 1;
            continue;
        };
        let Some(j) = (i + 1..glyphs.len()).find(|&j| glyphs[j].text == close) else {
            i += 1;
            continue;
        };
        let inner: Vec<(i32, i32)> = glyphs[i + 1..j]
            .iter()
            .filter(|g| !g.text.trim().is_empty())
            .filter_map(rows)
            .collect();
        let (Some(top), Some(bottom)) = (
            inner.iter().map(|r| r.0).min(),
            inner.iter().map(|r| r.1).max(),
        ) else {
            i = j + 1;
            continue;
        };
        let text_h = inner.iter().map(|r| r.1 - r.0).max().unwrap_or(0);
        let tall = |g: &Glyph| rows(g).is_some_and(|(a, b)| (b - a) * 20 >= text_h * 27);
        // A bracket of text is never shorter than the letters it encloses: ink of half their
        // height at most (or none) where it was read is a piece of a frame cut by the crop.
        let stub = |g: &Glyph| rows(g).is_none_or(|(a, b)| (b - a) * 2 <= text_h);
        // Or the two are joined by lines above and below the text: an outline round it.
        let outlined = || {
            let (Some((a, _)), Some((_, b))) = (run(&glyphs[i]), run(&glyphs[j])) else {
                return false;
            };
            let (x0, x1) = (a + (b - a) / 8, b - (b - a) / 8);
            let covered = |y: i32| {
                (x0..x1).filter(|&x| ink.is_ink(x, y)).count() as i32 * 10 >= (x1 - x0) * 8
            };
            x1 > x0 && (ink.line.y..top).any(covered) && (bottom..ink.line.bottom()).any(covered)
        };
        let (o, c) = (&glyphs[i], &glyphs[j]);
        if (tall(o) && tall(c)) || (stub(o) && stub(c)) || outlined() {
            drop.extend([i, j]);
        }
        i = j + 1;
    }
    glyphs
        .iter()
        .enumerate()
        .filter(|(k, _)| !drop.contains(k))
        .map(|(_, g)| g.clone())
        .collect()
}

/// Which pixels of a line's box are ink: those far from the median grey of the blob's band.
struct InkProfile<'a> {
    img: &'a RgbImage,
    /// The grown box.
    line: Rect,
    /// The blob's rows: every glyph of the line crosses them.
    band: Rect,
    bg: i32,
    /// The colour of a pixel of the background's grey.
    bg_colour: [u8; 3],
}

/// A pixel this far in grey from the line's background is ink.
const INK: i32 = 60;
/// So is a pixel this far from the background's colour in one channel, whatever its grey: a
/// text UI's cyan letter on its green button is 59 grey levels off, 255 in green and blue.
const INK_COLOUR: i32 = 96;

impl<'a> InkProfile<'a> {
    fn of(img: &'a RgbImage, line: Rect, band: Rect) -> Self {
        // The median grey: text is the lesser part of its band, and a gradient ground (Swing's
        // Metal bar) spreads over many levels where the commonest one would be the text's.
        let mut greys: Vec<i32> = (band.y..band.bottom())
            .flat_map(|y| (line.x..line.right()).map(move |x| (x, y)))
            .map(|(x, y)| grey(img, x, y))
            .collect();
        greys.sort_unstable();
        let bg = greys.get(greys.len() / 2).copied().unwrap_or(255);
        let bg_colour = (band.y..band.bottom())
            .flat_map(|y| (line.x..line.right()).map(move |x| (x, y)))
            .find(|&(x, y)| grey(img, x, y) == bg)
            .map_or([bg as u8; 3], |(x, y)| img.get_pixel(x as u32, y as u32).0);
        InkProfile {
            img,
            line,
            band,
            bg,
            bg_colour,
        }
    }

    fn is_ink(&self, x: i32, y: i32) -> bool {
        (grey(self.img, x, y) - self.bg).abs() >= INK || {
            let p = self.img.get_pixel(x as u32, y as u32).0;
            (0..3).any(|k| (p[k] as i32 - self.bg_colour[k] as i32).abs() >= INK_COLOUR)
        }
    }

    fn column_has_ink(&self, x: i32) -> bool {
        (self.band.y..self.band.bottom()).any(|y| self.is_ink(x, y))
    }

    /// The ink columns within [x0, x1): from the first to the last column with ink in the band.
    fn columns(&self, x0: i32, x1: i32) -> Option<(i32, i32)> {
        let a = (x0..x1).find(|&x| self.column_has_ink(x))?;
        let b = (x0..x1).rev().find(|&x| self.column_has_ink(x))?;
        Some((a, b + 1))
    }

    /// The ink around columns `from`..=`to` within [lo, hi): the ink column nearest `from`
    /// (and `to`), then outwards while the next ink column is at most `gap` columns on.
    fn run(&self, from: i32, to: i32, lo: i32, hi: i32, gap: i32) -> Option<(i32, i32)> {
        let (a, b) = self.columns(lo, hi)?;
        let nearest = |c: i32| {
            (a..b)
                .filter(|&x| self.column_has_ink(x))
                .min_by_key(|&x| (x - c).abs())
        };
        let (mut x0, mut x1) = (nearest(from)?, nearest(to)?);
        if x1 < x0 {
            std::mem::swap(&mut x0, &mut x1);
        }
        'left: loop {
            for d in 1..=gap + 1 {
                if x0 - d >= a && self.column_has_ink(x0 - d) {
                    x0 -= d;
                    continue 'left;
                }
            }
            break;
        }
        'right: loop {
            for d in 1..=gap + 1 {
                if x1 + d < b && self.column_has_ink(x1 + d) {
                    x1 += d;
                    continue 'right;
                }
            }
            break;
        }
        Some((x0, x1 + 1))
    }

    /// The ink rows over columns [x0, x1): the band's rows with ink, grown up and down through
    /// rows that still hold ink (ascenders, descenders), within the grown box.
    fn rows(&self, x0: i32, x1: i32) -> Option<(i32, i32)> {
        let has = |y: i32| (x0..x1).any(|x| self.is_ink(x, y));
        let mut a = (self.band.y..self.band.bottom()).find(|&y| has(y))?;
        let mut b = (self.band.y..self.band.bottom()).rev().find(|&y| has(y))?;
        // Ascenders and descenders reach half the band's height past it at most: further is
        // a frame or a rule the word's columns cross (a button's edge), no part of the word.
        let reach = (self.band.h / 2).max(2);
        let (top, bottom) = (
            (self.band.y - reach).max(self.line.y),
            (self.band.bottom() + reach).min(self.line.bottom()),
        );
        while a > top && has(a - 1) {
            a -= 1;
        }
        while b + 1 < bottom && has(b + 1) {
            b += 1;
        }
        Some((a, b + 1))
    }
}

fn grey(img: &RgbImage, x: i32, y: i32) -> i32 {
    let p = img.get_pixel(x as u32, y as u32).0;
    (p[0] as i32 * 299 + p[1] as i32 * 587 + p[2] as i32 * 114) / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of a real window (the practice app's main window, zh) read in batches come
    /// back in their own order with what each reads alone: a batch's padding adds nothing.
    /// Needs PP-OCR (the test command fetches it: `scripts/ppocr.sh`).
    #[test]
    fn lines_read_in_batches_read_as_each_alone() {
        let mut pp = PpOcr::from_env().expect("PP-OCR (scripts/ppocr.sh)");
        let png = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/screenshots/zh/baseline/main.png"
        );
        let img = image::open(png).unwrap().to_rgb8();
        let boxes = pp.detect(&img).unwrap();
        assert!(boxes.len() >= 10, "{} lines", boxes.len());
        let lines: Vec<RgbImage> = boxes
            .iter()
            .map(|b| {
                let g = b.grown;
                imageops::crop_imm(&img, g.x as u32, g.y as u32, g.w as u32, g.h as u32).to_image()
            })
            .collect();
        let text = |g: &[Glyph]| g.iter().map(|x| x.text.as_str()).collect::<String>();
        let batched = pp.recognize_lines(&lines).unwrap();
        assert_eq!(batched.len(), lines.len());
        let mut same = 0;
        for (line, (glyphs, used)) in lines.iter().zip(&batched) {
            let (alone, used_alone) = pp.recognize(line, LINE_MIN_W).unwrap();
            assert_eq!(*used, used_alone, "'{}'", text(&alone));
            same += usize::from(text(glyphs) == text(&alone));
        }
        // Padding may shift a doubtful letter; the lines themselves are the same lines.
        assert!(
            same * 10 >= lines.len() * 9,
            "{same} of {} the same",
            lines.len()
        );
        let all: String = batched.iter().map(|(g, _)| text(g)).collect();
        for caption in ["查询", "新增", "删除"] {
            assert!(all.contains(caption), "{caption} in {all}");
        }
    }

    #[test]
    fn the_detector_sees_a_window_near_its_size_and_a_strip_at_most_doubled() {
        // A 800×600 window: the short side up to 736, rounded to 32.
        assert_eq!(det_size(800, 600), (992, 736));
        // A caption strip 200×24: doubled at most (400×48), then to multiples of 32.
        assert_eq!(det_size(200, 24), (416, 64));
        // A wide screen kept under the long side's limit.
        let (w, h) = det_size(3000, 700);
        assert!(w <= 2400 && h % 32 == 0, "{w}×{h}");
    }

    #[test]
    fn a_window_of_small_text_or_none_is_looked_at_again_upscaled() {
        let boxes = |hs: &[i32]| -> Vec<TextBox> {
            hs.iter()
                .map(|&h| TextBox {
                    grown: Rect::new(0, 0, 40, h + 4),
                    core: Rect::new(2, 2, 36, h),
                    score: 0.9,
                })
                .collect()
        };
        // A Qt dialog's 9 pt text (cores 11–14 px) is found at the window's size.
        assert!(!small_text(&boxes(&[11, 12, 12, 13, 14])));
        // A terminal's 6×13 font (cores 7–9 px), or nothing found: upscaled.
        assert!(small_text(&boxes(&[7, 8, 8, 9, 12])));
        assert!(small_text(&[]));
    }

    #[test]
    fn blobs_above_the_threshold_become_grown_boxes_and_weak_ones_go() {
        let (w, h) = (40u32, 20u32);
        let mut prob = vec![0f32; (w * h) as usize];
        // A strong blob 10×4 at (5, 8); a weak one (0.35 mean) 6×4 at (25, 8).
        for y in 8..12 {
            for x in 5..15 {
                prob[(y * w + x) as usize] = 0.9;
            }
            for x in 25..31 {
                prob[(y * w + x) as usize] = 0.35;
            }
        }
        let boxes = text_boxes(&prob, w, h);
        assert_eq!(boxes.len(), 1, "{boxes:?}");
        let b = boxes[0];
        // Dilated a pixel right and down: 11×5, 40 of its 55 pixels at 0.9.
        assert_eq!(b.core, Rect::new(5, 8, 11, 5));
        assert!((b.score - 36.0 / 55.0).abs() < 1e-4, "{}", b.score);
        // Grown by 11·5·1.6 / (2·16) ≈ 3 px each side.
        assert_eq!(b.grown, Rect::new(2, 5, 17, 11));
    }

    fn glyph(t: &str, step: usize) -> Glyph {
        Glyph {
            text: t.into(),
            prob: 0.95,
            step,
        }
    }

    /// An Athena button's oval frame read as "(Ld)": brackets far taller than the text, or
    /// slivers far shorter, are the frame and go; brackets of the text's own height stay.
    #[test]
    fn a_rounded_frame_read_as_brackets_is_no_part_of_the_caption() {
        let black = image::Rgb([0, 0, 0]);
        let mut img = RgbImage::from_pixel(100, 30, image::Rgb([255, 255, 255]));
        for y in 1..29 {
            for x in (2..4).chain(50..52) {
                img.put_pixel(x, y, black);
            }
        }
        for y in 10..20 {
            for x in (10..20).chain(30..40) {
                img.put_pixel(x, y, black);
            }
        }
        let b = TextBox {
            grown: Rect::new(0, 0, 100, 30),
            core: Rect::new(10, 10, 30, 10),
            score: 0.9,
        };
        // 50 steps over 100 px: step s is centred at 2s + 1.
        let read = [glyph("(", 1), glyph("L", 7), glyph("d", 17), glyph(")", 25)];
        let words = words_of(&read, 50, &b, &img);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, vec!["Ld"]);
        // The same brackets only as tall as the text: a caption in brackets, kept.
        let mut img = RgbImage::from_pixel(100, 30, image::Rgb([255, 255, 255]));
        for y in 10..20 {
            for x in (2..4).chain(10..20).chain(30..40).chain(50..52) {
                img.put_pixel(x, y, black);
            }
        }
        let words = words_of(&read, 50, &b, &img);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, vec!["(Ld)"]);
        // Brackets read where only a sliver of a frame the crop cut shows: dropped too.
        let mut img = RgbImage::from_pixel(100, 30, image::Rgb([255, 255, 255]));
        for y in 10..20 {
            for x in (10..20).chain(30..40) {
                img.put_pixel(x, y, black);
            }
        }
        for y in 18..20 {
            for x in (2..4).chain(50..52) {
                img.put_pixel(x, y, black);
            }
        }
        let words = words_of(&read, 50, &b, &img);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, vec!["Ld"]);
    }

    #[test]
    fn ctc_merges_repeats_and_drops_blanks() {
        // Classes: 0 blank, 1 'a', 2 'b'. Steps: a a _ a b b _
        let best = [1, 1, 0, 1, 2, 2, 0];
        let classes = 3;
        let mut probs = vec![0.0f32; best.len() * classes];
        for (t, &c) in best.iter().enumerate() {
            probs[t * classes + c] = 0.9;
        }
        let got: Vec<(usize, usize)> = ctc_decode(&probs, best.len(), classes)
            .into_iter()
            .map(|(c, t, _)| (c, t))
            .collect();
        assert_eq!(got, vec![(1, 0), (1, 3), (2, 4)]);
    }

    #[test]
    fn a_line_becomes_words_boxed_to_their_ink_and_ideographs_one_each_icons_left_out() {
        // A 100×20 white line with black ink at columns 10..30 and 60..70 and 80..90, and an
        // icon at 2..7 that nothing was read in.
        let mut img = RgbImage::from_pixel(100, 20, image::Rgb([255, 255, 255]));
        for y in 5..15 {
            for x in (2..7).chain(10..30).chain(60..70).chain(80..90) {
                img.put_pixel(x, y, image::Rgb([0, 0, 0]));
            }
        }
        let g = |t: &str, step: usize| Glyph {
            text: t.into(),
            prob: 0.95,
            step,
        };
        // 25 steps over 100 px: 4 px a step. "Ab" at steps 3, 6; a space; 查 at 16; 询 at 21.
        let glyphs = vec![g("A", 3), g("b", 6), g(" ", 10), g("查", 16), g("询", 21)];
        let b = TextBox {
            grown: Rect::new(0, 0, 100, 20),
            core: Rect::new(5, 7, 90, 6),
            score: 0.9,
        };
        let words = words_of(&glyphs, 25, &b, &img);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, vec!["Ab", "查", "询"]);
        assert_eq!(words[0].rect, Rect::new(10, 5, 20, 10));
        assert_eq!(words[1].rect, Rect::new(60, 5, 10, 10));
        assert_eq!(words[2].rect, Rect::new(80, 5, 10, 10));
    }
}
