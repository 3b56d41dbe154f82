use crate::delta::{self, Page};
use crate::ppocr::PpOcr;
use crate::{join_lines, parse_tsv_with, prepare, prepare_glyphs, Line, Word};
use image::RgbaImage;
use mend_model::{ErrorCode, MendError, Rect};
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use tesseract::Tesseract;

/// How to read one region.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OcrOptions {
    /// Upscale factor before reading: 1 for a whole window, 2–3 for a crop.
    pub scale: u32,
    /// Tesseract page segmentation mode; 11 (sparse text) suits screens.
    pub psm: u32,
    /// Words below this confidence are dropped.
    pub min_conf: f32,
}

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions {
            scale: 2,
            psm: 11,
            min_conf: 30.0,
        }
    }
}

/// A caption of one or two glyphs to read on its own (see [`OcrEngine::read_glyphs`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlyphRead {
    /// The ink's box in the image.
    pub ink: Rect,
    /// The grey level around the glyphs (their control's background).
    pub bg: u8,
    /// How many glyphs: 1 is read as one character (PSM 10), more as one word (PSM 8).
    pub glyphs: usize,
    /// Height of the window's text, so the upscale brings it near 30 px whatever this glyph's
    /// own height ('-' is one pixel tall).
    pub text_h: i32,
}

/// Which recogniser an engine reads with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reader {
    Tesseract,
    PpOcr,
}

impl Reader {
    pub fn as_str(self) -> &'static str {
        match self {
            Reader::Tesseract => "tesseract",
            Reader::PpOcr => "ppocr",
        }
    }
}

/// Which recognisers read a run's screens: `MEND_OCR=tesseract|ppocr|both`. With `both`,
/// PP-OCR reads first and Tesseract is a second witness (the locator's rule: a caption the
/// two read differently, where the other reading is another control's caption, is refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OcrMode {
    Tesseract,
    PpOcr,
    Both,
}

impl OcrMode {
    /// `MEND_OCR`, else [`OcrMode::DEFAULT`] (both: the real-app suite found 173/174 targets on
    /// default looks and 154/155 on tweaked ones with both, 169 and 143 with Tesseract alone,
    /// 0 wrong each; BENCHMARKS.md, "Two readers").
    pub fn from_env() -> Result<OcrMode, MendError> {
        match std::env::var("MEND_OCR").ok().as_deref().map(str::trim) {
            // Unasked, a machine without PP-OCR installed reads with Tesseract alone — and
            // says so once: asked for (`ppocr`, `both`), its absence is an error.
            None | Some("") if !crate::ppocr::available() => {
                static ONCE: std::sync::Once = std::sync::Once::new();
                ONCE.call_once(|| {
                    eprintln!(
                        "note: PP-OCR is not installed, reading with Tesseract alone (install it: `source scripts/ppocr.sh && ensure_ppocr`)"
                    )
                });
                Ok(OcrMode::Tesseract)
            }
            None | Some("") => Ok(OcrMode::DEFAULT),
            Some("tesseract") => Ok(OcrMode::Tesseract),
            Some("ppocr") => Ok(OcrMode::PpOcr),
            Some("both") => Ok(OcrMode::Both),
            Some(other) => Err(MendError::new(
                ErrorCode::InvalidArgument,
                format!("MEND_OCR={other}: say tesseract, ppocr or both"),
            )),
        }
    }

    pub const DEFAULT: OcrMode = OcrMode::Both;

    /// The reader whose reading the chain runs on.
    pub fn primary(self) -> Reader {
        match self {
            OcrMode::Tesseract => Reader::Tesseract,
            OcrMode::PpOcr | OcrMode::Both => Reader::PpOcr,
        }
    }

    /// The second witness, with `both`.
    pub fn second(self) -> Option<Reader> {
        (self == OcrMode::Both).then_some(Reader::Tesseract)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OcrMode::Tesseract => "tesseract",
            OcrMode::PpOcr => "ppocr",
            OcrMode::Both => "both",
        }
    }
}

const CACHE_CAP: usize = 512;
/// Pages kept for reading only what changed: a window at two upscales and a popup or two.
const PAGES: usize = 4;

/// One warm Tesseract engine plus a bounded cache keyed by the exact pixels read.
pub struct OcrEngine {
    langs: String,
    reader: Reader,
    tess: Option<Tesseract>,
    pp: Option<PpOcr>,
    cache: HashMap<u64, Vec<Word>>,
    order: VecDeque<u64>,
    pages: VecDeque<Page>,
    hits: u64,
    misses: u64,
    partial: u64,
}

fn ocr_err(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::OcrFailed, msg)
}

impl OcrEngine {
    /// `langs` as Tesseract spells them: `"chi_sim+eng"`; the reader is `MEND_OCR`'s first.
    pub fn new(langs: &str) -> Result<Self, MendError> {
        Self::with_reader(langs, OcrMode::from_env()?.primary())
    }

    /// An engine reading with `reader` (PP-OCR reads Chinese and English in one model:
    /// `langs` is Tesseract's and names only its data).
    pub fn with_reader(langs: &str, reader: Reader) -> Result<Self, MendError> {
        quiet_leptonica();
        let mut e = OcrEngine {
            langs: langs.to_string(),
            reader,
            tess: None,
            pp: match reader {
                Reader::PpOcr => Some(PpOcr::from_env()?),
                Reader::Tesseract => None,
            },
            cache: HashMap::new(),
            order: VecDeque::new(),
            pages: VecDeque::new(),
            hits: 0,
            misses: 0,
            partial: 0,
        };
        // Tesseract is started for its reader only (PP-OCR's engine never calls it).
        if reader == Reader::Tesseract {
            e.tess = Some(e.init()?);
        }
        Ok(e)
    }

    /// How a region read is kept: (upscale, page mode) for Tesseract; PP-OCR reads the pixels
    /// as they are whatever either says, so one reading serves every scale and mode (the scene's
    /// larger second pass and its mode-only variants cost nothing again).
    fn how(&self, opts: OcrOptions) -> (u32, u32) {
        match self.reader {
            Reader::Tesseract => (opts.scale.max(1), opts.psm),
            Reader::PpOcr => (1, 0),
        }
    }

    fn init(&self) -> Result<Tesseract, MendError> {
        let t = Tesseract::new(None, Some(&self.langs)).map_err(|e| {
            ocr_err(format!(
                "cannot start Tesseract with '{}': {e}. Install tesseract-ocr and the language data (tesseract-ocr-eng, tesseract-ocr-chi-sim).",
                self.langs
            ))
        })?;
        // Tesseract prints page statistics on stderr for near-empty crops; keep the terminal clean.
        t.set_variable("debug_file", "/dev/null")
            .map_err(|e| ocr_err(format!("configure Tesseract: {e}")))
    }

    pub fn langs(&self) -> &str {
        &self.langs
    }

    pub fn reader(&self) -> Reader {
        self.reader
    }

    /// (cache hits, cache misses) since start.
    pub fn cache_stats(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// How many misses were served by reading only the changed parts of a page.
    pub fn partial_reads(&self) -> u64 {
        self.partial
    }

    pub fn clear_cache(&mut self) {
        self.cache.clear();
        self.order.clear();
        self.pages.clear();
    }

    /// Read the words in `region` of `img`; boxes come back in `img`'s pixels.
    pub fn read(
        &mut self,
        img: &RgbaImage,
        region: Rect,
        opts: OcrOptions,
    ) -> Result<Vec<Word>, MendError> {
        let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
        let Some(r) = region.clamp_to(&bounds) else {
            return Ok(Vec::new());
        };
        let how = self.how(opts);
        let key = crop_key(img, r, (r.w, r.h, how, &self.langs, self.reader));
        let words = if let Some(ws) = self.cache.get(&key) {
            self.hits += 1;
            ws.clone()
        } else {
            self.misses += 1;
            let ws = self.read_changed(img, r, opts)?;
            self.remember(key, ws.clone());
            ws
        };
        let s = how.0 as f64;
        Ok(words
            .into_iter()
            .filter(|w| w.conf >= opts.min_conf)
            .map(|mut w| {
                w.rect = w.rect.scale(1.0 / s).translate(r.x, r.y);
                w
            })
            .collect())
    }

    /// Read a short caption on its own: one character or one word, punctuation kept, at
    /// upscales around the size Tesseract reads best. Each reading `accept` refuses (a glyph
    /// the ink's shape cannot be) counts as none; the reading two upscales agree on wins, and
    /// a tie or no agreement is no reading. Three upscales first, a fourth and a fifth only
    /// when those three do not agree. (One scale alone is fragile on bitmap glyphs: xcalc's 9
    /// read "9" at 2× and 4× and ":" at 3×; its 5 px asterisk read "", "*" and "=" at 2×–4×
    /// and "*" again at 5×.) Boxes come back in `img`'s pixels.
    pub fn read_glyphs(
        &mut self,
        img: &RgbaImage,
        g: GlyphRead,
        accept: impl Fn(&str) -> bool,
    ) -> Result<Vec<Word>, MendError> {
        if self.pp.is_some() {
            return self.read_glyphs_pp(img, g, accept);
        }
        let base = ((30.0 / g.text_h.max(1) as f64).round() as u32).clamp(3, 6);
        let text = |ws: &[Word]| {
            ws.iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut reads: Vec<(String, Vec<Word>)> = Vec::new();
        for scale in [base - 1, base, base + 1, base + 2, base + 3] {
            if reads.len() >= 3 && agreed(&reads).is_some() {
                break;
            }
            let ws = self.read_glyphs_at(img, g, scale)?;
            let t = text(&ws);
            reads.push(if t.is_empty() || !accept(&t) {
                (String::new(), Vec::new())
            } else {
                (t, ws)
            });
        }
        Ok(agreed(&reads)
            .map(|i| reads.swap_remove(i).1)
            .unwrap_or_default())
    }

    /// PP-OCR's recogniser on the glyphs' ink with a margin of its ground: one read (it
    /// sizes its input itself), kept when `accept` takes it.
    fn read_glyphs_pp(
        &mut self,
        img: &RgbaImage,
        g: GlyphRead,
        accept: impl Fn(&str) -> bool,
    ) -> Result<Vec<Word>, MendError> {
        let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
        let Some(r) = g.ink.clamp_to(&bounds) else {
            return Ok(Vec::new());
        };
        let pad = g.text_h.max(4) / 2;
        let key = crop_key(img, r, ("pp-glyphs", r.w, r.h, g.bg, pad));
        let words = if let Some(ws) = self.cache.get(&key) {
            self.hits += 1;
            ws.clone()
        } else {
            self.misses += 1;
            // The ink on a clean margin of its ground (a frame's edge beside it is no glyph).
            let (w, h) = (r.w + 2 * pad, r.h + 2 * pad);
            let mut line = image::RgbImage::from_pixel(w as u32, h as u32, image::Rgb([g.bg; 3]));
            for y in 0..r.h {
                for x in 0..r.w {
                    let p = img.get_pixel((r.x + x) as u32, (r.y + y) as u32).0;
                    line.put_pixel(
                        (x + pad) as u32,
                        (y + pad) as u32,
                        image::Rgb([p[0], p[1], p[2]]),
                    );
                }
            }
            let pp = self.pp.as_mut().expect("checked by the caller");
            let (glyphs, _) = pp.recognize(&line, crate::ppocr::GLYPH_MIN_W)?;
            let text: String = glyphs.iter().map(|g| g.text.as_str()).collect::<String>();
            let text = text.trim().to_string();
            let ws = if text.is_empty() {
                Vec::new()
            } else {
                let prob = glyphs.iter().map(|g| g.prob).fold(1.0, f32::min);
                vec![Word {
                    text,
                    rect: r,
                    conf: prob * 100.0,
                    line_key: (0, 0, 0),
                }]
            };
            self.remember(key, ws.clone());
            ws
        };
        Ok(words.into_iter().filter(|w| accept(&w.text)).collect())
    }

    fn read_glyphs_at(
        &mut self,
        img: &RgbaImage,
        g: GlyphRead,
        scale: u32,
    ) -> Result<Vec<Word>, MendError> {
        let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
        let Some(r) = g.ink.clamp_to(&bounds) else {
            return Ok(Vec::new());
        };
        let pad = (g.text_h.max(4) as u32).min(16);
        let psm = if g.glyphs <= 1 { 10 } else { 8 };
        let key = crop_key(
            img,
            r,
            (
                "glyphs",
                r.w,
                r.h,
                g.bg,
                scale,
                pad,
                psm,
                &self.langs,
                self.reader,
            ),
        );
        let words = if let Some(ws) = self.cache.get(&key) {
            self.hits += 1;
            ws.clone()
        } else {
            self.misses += 1;
            let Some(prepared) = prepare_glyphs(img, r, g.bg, pad, scale) else {
                return Ok(Vec::new());
            };
            let opts = OcrOptions {
                scale,
                psm,
                min_conf: 0.0,
            };
            let ws = self.recognize_with(&prepared, opts, true)?;
            self.remember(key, ws.clone());
            ws
        };
        let (s, p) = (scale as f64, pad as i32);
        Ok(words
            .into_iter()
            .map(|mut w| {
                w.rect = w.rect.scale(1.0 / s).translate(r.x - p, r.y - p);
                w
            })
            .collect())
    }

    /// Read `r` of `img` on a cache miss: for a large region read before at these settings,
    /// only the parts that changed (see `delta`), else the whole region. Words come back in the
    /// cached form: upscaled, relative to `r`, unfiltered.
    fn read_changed(
        &mut self,
        img: &RgbaImage,
        r: Rect,
        opts: OcrOptions,
    ) -> Result<Vec<Word>, MendError> {
        let how = self.how(opts);
        let s = how.0 as i32;
        if r.area() < delta::MIN_AREA {
            return self.read_whole(img, r, opts);
        }
        let pixels = image::imageops::crop_imm(img, r.x as u32, r.y as u32, r.w as u32, r.h as u32)
            .to_image();
        let page = self
            .pages
            .iter()
            .position(|p| p.serves(r, how))
            .and_then(|i| self.pages.remove(i));
        // The page's words in region pixels, once for finding the parts and keeping the rest.
        let at: Vec<Rect> = page.as_ref().map_or_else(Vec::new, |p| {
            p.words
                .iter()
                .map(|w| w.rect.scale(1.0 / s as f64))
                .collect()
        });
        let parts = page
            .as_ref()
            .and_then(|p| delta::parts_to_read(&p.pixels, &pixels, &at));
        let words = match (page, parts) {
            (Some(page), Some(parts)) => {
                self.partial += 1;
                let mut words: Vec<Word> = page
                    .words
                    .into_iter()
                    .zip(&at)
                    .filter(|(_, a)| !parts.iter().any(|p| p.intersect(a).is_some()))
                    .map(|(w, _)| w)
                    .collect();
                for p in &parts {
                    let part = p.translate(r.x, r.y);
                    for mut w in self.read_whole(img, part, opts)? {
                        w.rect = w.rect.translate(p.x * s, p.y * s);
                        words.push(w);
                    }
                }
                words
            }
            _ => self.read_whole(img, r, opts)?,
        };
        if self.pages.len() >= PAGES {
            self.pages.pop_front();
        }
        self.pages.push_back(Page {
            region: r,
            how,
            pixels,
            words: words.clone(),
        });
        Ok(words)
    }

    fn read_whole(
        &mut self,
        img: &RgbaImage,
        r: Rect,
        opts: OcrOptions,
    ) -> Result<Vec<Word>, MendError> {
        if let Some(pp) = self.pp.as_mut() {
            // PP-OCR reads the pixels as they are: its cached form is at scale 1 (`how`).
            return pp.read(img, r);
        }
        match prepare(img, r, opts.scale) {
            Some((prepared, _)) => self.recognize_with(&prepared, opts, false),
            None => Ok(Vec::new()),
        }
    }

    fn remember(&mut self, key: u64, ws: Vec<Word>) {
        if self.order.len() >= CACHE_CAP {
            if let Some(old) = self.order.pop_front() {
                self.cache.remove(&old);
            }
        }
        self.cache.insert(key, ws);
        self.order.push_back(key);
    }

    /// Words joined into lines (see [`join_lines`]).
    pub fn read_lines(
        &mut self,
        img: &RgbaImage,
        region: Rect,
        opts: OcrOptions,
    ) -> Result<Vec<Line>, MendError> {
        let words = self.read(img, region, opts)?;
        Ok(join_lines(&words, 1.2))
    }

    fn recognize_with(
        &mut self,
        gray: &image::GrayImage,
        opts: OcrOptions,
        keep_marks: bool,
    ) -> Result<Vec<Word>, MendError> {
        let tess = match self.tess.take() {
            Some(t) => t,
            None => self.init()?,
        };
        let (w, h) = (gray.width() as i32, gray.height() as i32);
        let mut tess = tess
            .set_variable("tessedit_pageseg_mode", &opts.psm.to_string())
            .map_err(|e| ocr_err(format!("set page mode: {e}")))?
            .set_frame(gray.as_raw(), w, h, 1, w)
            .map_err(|e| ocr_err(format!("hand image to Tesseract: {e}")))?
            .set_source_resolution(96 * opts.scale.max(1) as i32)
            .recognize()
            .map_err(|e| ocr_err(format!("recognize: {e}")))?;
        let tsv = tess
            .get_tsv_text(0)
            .map_err(|e| ocr_err(format!("read TSV: {e}")))?;
        self.tess = Some(tess);
        Ok(parse_tsv_with(&tsv, keep_marks))
    }
}

/// The reading most upscales agree on, if at least two do and no other reading as many. Once
/// all five upscales are read, one sure reading (confidence at least [`LONE_MIN_CONF`]) that
/// no other upscale contradicts — each of the rest read nothing or a glyph the ink cannot be —
/// also stands (xcalc's asterisk on navy: "*" once, "=" for a one-piece ink four times).
fn agreed(reads: &[(String, Vec<Word>)]) -> Option<usize> {
    let read: Vec<usize> = (0..reads.len())
        .filter(|&i| !reads[i].0.is_empty())
        .collect();
    if let [i] = read.as_slice() {
        let sure = reads[*i].1.iter().all(|w| w.conf >= LONE_MIN_CONF);
        return (reads.len() >= 5 && sure).then_some(*i);
    }
    let votes = |t: &str| reads.iter().filter(|(u, _)| u == t).count();
    let n = read.iter().map(|&i| votes(&reads[i].0)).max()?;
    let mut top: Vec<usize> = read
        .into_iter()
        .filter(|&i| votes(&reads[i].0) == n)
        .collect();
    if n < 2 || top.iter().any(|&i| reads[i].0 != reads[top[0]].0) {
        return None;
    }
    // Of the agreeing upscales, the surest reading.
    let conf = |i: usize| reads[i].1.iter().map(|w| w.conf).fold(100.0, f32::min);
    top.sort_by(|&a, &b| conf(b).total_cmp(&conf(a)));
    top.first().copied()
}

/// See [`agreed`].
const LONE_MIN_CONF: f32 = 65.0;

/// A cache key for reading `r` of `img` with the settings in `how`: the raw pixels read, before
/// preprocessing (a hit costs one hash of the crop, not an upscale).
fn crop_key(img: &RgbaImage, r: Rect, how: impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    how.hash(&mut h);
    for y in r.y..r.bottom() {
        let start = ((y as u32 * img.width() + r.x as u32) * 4) as usize;
        img.as_raw()[start..start + r.w as usize * 4].hash(&mut h);
    }
    h.finish()
}

/// Leptonica (under Tesseract) prints its own complaints on stderr — "Error in
/// boxClipToRectangle: box outside rectangle" for a layout box Tesseract clips at a page's
/// edge — which an operator takes for Mend's errors (issue 35). Mend reports every failure
/// that matters with a code; the library's messages are turned off once per process.
fn quiet_leptonica() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sets one global integer in the library; called once, before any engine.
        unsafe {
            leptonica_sys::setMsgSeverity(leptonica_sys::L_SEVERITY_NONE as i32);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(rs: &[(&str, f32)]) -> Vec<(String, Vec<Word>)> {
        rs.iter()
            .map(|&(t, conf)| {
                let ws = if t.is_empty() {
                    vec![]
                } else {
                    vec![Word {
                        text: t.into(),
                        rect: Rect::new(0, 0, 5, 5),
                        conf,
                        line_key: (0, 0, 0),
                    }]
                };
                (t.to_string(), ws)
            })
            .collect()
    }

    #[test]
    fn two_upscales_agreeing_win_with_their_surest_reading() {
        let r = reads(&[("*", 51.0), ("*", 45.0), ("", 0.0)]);
        assert_eq!(agreed(&r), Some(0));
        let r = reads(&[("9", 80.0), (":", 90.0), ("9", 95.0)]);
        assert_eq!(agreed(&r), Some(2));
    }

    #[test]
    fn a_tie_or_no_agreement_is_no_reading() {
        let r = reads(&[("7", 90.0), ("T", 90.0), ("", 0.0)]);
        assert_eq!(agreed(&r), None);
        let r = reads(&[
            ("7", 90.0),
            ("T", 90.0),
            ("7", 90.0),
            ("T", 90.0),
            ("", 0.0),
        ]);
        assert_eq!(agreed(&r), None);
    }

    #[test]
    fn a_lone_sure_reading_stands_only_after_all_five_upscales() {
        let three = reads(&[("", 0.0), ("*", 70.0), ("", 0.0)]);
        assert_eq!(agreed(&three), None);
        let five = reads(&[("", 0.0), ("*", 70.0), ("", 0.0), ("", 0.0), ("", 0.0)]);
        assert_eq!(agreed(&five), Some(1));
        let unsure = reads(&[("", 0.0), ("*", 40.0), ("", 0.0), ("", 0.0), ("", 0.0)]);
        assert_eq!(agreed(&unsure), None);
        let contradicted = reads(&[("x", 90.0), ("*", 70.0), ("", 0.0), ("", 0.0), ("", 0.0)]);
        assert_eq!(agreed(&contradicted), None);
    }
}
