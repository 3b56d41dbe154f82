//! Reading only what changed, with the real Tesseract on the practice app's screens: a window
//! read again after some of it changed reads what a whole read of it would, and the words of
//! its unchanged part are not read again.

use image::RgbaImage;
use mend_model::Rect;
use mend_ocr::{OcrEngine, OcrOptions, Reader};
use std::collections::BTreeSet;
use std::path::PathBuf;

const WINDOW: OcrOptions = OcrOptions {
    scale: 2,
    psm: 11,
    min_conf: 40.0,
};

fn screen(lang: &str, variant: &str, name: &str) -> RgbaImage {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots")
        .join(lang)
        .join(variant)
        .join(format!("{name}.png"));
    image::open(&p).unwrap().to_rgba8()
}

fn bounds(img: &RgbaImage) -> Rect {
    Rect::new(0, 0, img.width() as i32, img.height() as i32)
}

/// The words read, each without a trailing ellipsis: PP-OCR reads a "…" at a word's end
/// once or twice as the crop around it changes ("Edit…", "Edit……"), and Tesseract reads its
/// dots as dots or as colons ("Delete:::"), the same word either way (the locator's labels
/// normalise it away), and no part of what changed.
fn texts(e: &mut OcrEngine, img: &RgbaImage) -> BTreeSet<String> {
    e.read(img, bounds(img), WINDOW)
        .unwrap()
        .into_iter()
        .map(|w| w.text.trim_end_matches(['…', '.', ':']).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// `img` with the block `from` of `src` pasted at `to`.
fn pasted(img: &RgbaImage, src: &RgbaImage, from: Rect, to: (i32, i32)) -> RgbaImage {
    let mut out = img.clone();
    let part = image::imageops::crop_imm(
        src,
        from.x as u32,
        from.y as u32,
        from.w as u32,
        from.h as u32,
    )
    .to_image();
    image::imageops::replace(&mut out, &part, to.0 as i64, to.1 as i64);
    out
}

#[test]
fn a_window_read_again_after_a_change_reads_as_a_whole_read_and_only_where_it_changed() {
    for reader in readers() {
        read_again_after_a_change(reader);
    }
}

/// Both readers where PP-OCR is installed (the test command installs it), Tesseract alone
/// elsewhere: the tile-diff reading serves each.
fn readers() -> Vec<Reader> {
    let mut r = vec![Reader::Tesseract];
    if mend_ocr::ppocr_available() {
        r.push(Reader::PpOcr);
    }
    r
}

fn read_again_after_a_change(reader: Reader) {
    for lang in ["en", "zh"] {
        let langs = if lang == "zh" { "chi_sim+eng" } else { "eng" };
        let base = screen(lang, "baseline", "main");
        let relabeled = screen(lang, "relabeled", "main");
        if base.dimensions() != relabeled.dimensions() {
            continue;
        }
        let mut fresh = OcrEngine::with_reader(langs, reader).unwrap();
        let whole = texts(&mut fresh, &relabeled);

        let mut e = OcrEngine::with_reader(langs, reader).unwrap();
        let first = texts(&mut e, &base);
        assert_eq!(e.partial_reads(), 0);
        let again = texts(&mut e, &relabeled);
        assert_eq!(
            e.partial_reads(),
            1,
            "{reader:?} {lang}: the relabeled window read in part"
        );
        // What changed is read: every word a whole read finds that the baseline lacks.
        let new: BTreeSet<_> = whole.difference(&first).collect();
        assert!(
            !new.is_empty(),
            "{reader:?} {lang}: the relabel changes some words"
        );
        for w in &new {
            assert!(
                again.contains(*w),
                "{reader:?} {lang}: {w} missing from the read in part: {again:?}"
            );
        }
        // And the read in part says what the whole read says, give or take a word or two
        // Tesseract reads differently in a different layout.
        let differ = again.symmetric_difference(&whole).count();
        assert!(
            differ * 20 <= whole.len(),
            "{reader:?} {lang}: {differ} of {} words differ: {:?}",
            whole.len(),
            again.symmetric_difference(&whole).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_typed_word_is_read_and_the_rest_of_the_window_is_not_read_again() {
    for reader in readers() {
        a_typed_word_is_read(reader);
    }
}

fn a_typed_word_is_read(reader: Reader) {
    let base = screen("en", "baseline", "login");
    let mut e = OcrEngine::with_reader("eng", reader).unwrap();
    let before = texts(&mut e, &base);
    // The window's own word from its top, typed into the empty user name field.
    let word = e
        .read(&base, bounds(&base), WINDOW)
        .unwrap()
        .into_iter()
        .filter(|w| w.text.len() >= 4 && w.text.chars().all(|c| c.is_ascii_alphabetic()))
        .min_by_key(|w| w.rect.y)
        .expect("a word to copy");
    let to = (332, 176);
    let changed = pasted(&base, &base, word.rect.inflate(2), to);
    let t0 = std::time::Instant::now();
    let after = e.read(&changed, bounds(&changed), WINDOW).unwrap();
    let partial = t0.elapsed();
    assert_eq!(e.partial_reads(), 1);
    assert!(
        after
            .iter()
            .any(|w| w.text == word.text && w.rect.y >= to.1 - 4 && w.rect.x >= to.0 - 4),
        "the pasted {:?} is read where it was put: {after:?}",
        word.text
    );
    let kept: BTreeSet<String> = after.iter().map(|w| w.text.clone()).collect();
    for w in &before {
        assert!(kept.contains(w), "{w} was in the window and still is");
    }
    eprintln!("read in part in {partial:?}");
}
