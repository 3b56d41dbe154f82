//! Criterion benchmarks of the two readers (issue 32): a window read cold, a caption crop read
//! cold, and a label-only locate on a real app's screen with every cache cleared (a flow's first
//! step there, no recorded crop), per `MEND_OCR` mode. PP-OCR needs `MEND_ORT_DYLIB` and
//! `MEND_PPOCR_DIR` (`bash scripts/bench.sh` sets them); without them only Tesseract is timed.
//! Run: `bash scripts/bench.sh --criterion-only` (medians go to BENCHMARKS.md by hand).

use criterion::{criterion_group, criterion_main, Criterion};
use mend_capture::{Capture, Frame, ImageFileCapture, WindowQuery};
use mend_locate::{Locator, Recorded};
use mend_model::{Rect, Role, Target};
use mend_ocr::{OcrEngine, OcrMode, OcrOptions, Reader};
use std::path::PathBuf;

fn frame(rel: &str) -> Frame {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    ImageFileCapture::open(&p)
        .unwrap()
        .capture(&WindowQuery::title(".*").unwrap())
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let have_pp = std::env::var_os("MEND_ORT_DYLIB").is_some();
    if !have_pp {
        eprintln!("MEND_ORT_DYLIB is not set: PP-OCR is not timed (bash scripts/bench.sh sets it)");
    }
    // The practice app's main window (zh, 800×560) and a real Qt dialog (qpdfview's Save copy).
    let practice = frame("screenshots/zh/baseline/main.png");
    let qt = frame("real-apps/screens/qpdfview/default_save_copy.png");
    let window = |f: &Frame| Rect::new(0, 0, f.image.width() as i32, f.image.height() as i32);
    let whole = OcrOptions {
        scale: 2,
        psm: 11,
        min_conf: 40.0,
    };
    let caption = OcrOptions {
        scale: 3,
        psm: 11,
        min_conf: 40.0,
    };
    let mut readers = vec![Reader::Tesseract];
    if have_pp {
        readers.push(Reader::PpOcr);
    }
    for r in readers {
        let mut ocr = OcrEngine::with_reader("chi_sim+eng", r).unwrap();
        let name = r.as_str();
        for (what, f) in [("practice window 800x560", &practice), ("Qt dialog", &qt)] {
            c.bench_function(&format!("readers/{name}: {what}, cold"), |b| {
                b.iter(|| {
                    ocr.clear_cache();
                    ocr.read(&f.image, window(f), whole).unwrap()
                })
            });
        }
        // 查询 and its neighbours: a caption crop as the fuzzy rung reads near a recorded place.
        let crop = Rect::new(300, 40, 260, 80);
        c.bench_function(&format!("readers/{name}: caption crop 260x80, cold"), |b| {
            b.iter(|| {
                ocr.clear_cache();
                ocr.read(&practice.image, crop, caption).unwrap()
            })
        });
    }
    let mut modes = vec![OcrMode::Tesseract];
    if have_pp {
        modes.extend([OcrMode::PpOcr, OcrMode::Both]);
    }
    let save = Target {
        text: Some("Cancel".into()),
        role: Role::Button,
        ..Target::default()
    };
    for m in modes {
        let mut loc = Locator::with_mode("eng", m).unwrap();
        let got = loc.locate(&qt, &save, &Recorded::default());
        eprintln!(
            "{}: Cancel on the Qt dialog: {:?}",
            m.as_str(),
            got.as_ref().map(|l| l.rect)
        );
        c.bench_function(
            &format!(
                "readers/{}: label-only step on a Qt dialog, cold",
                m.as_str()
            ),
            |b| {
                b.iter(|| {
                    loc.clear_caches();
                    let _ = loc.locate(&qt, &save, &Recorded::default());
                })
            },
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
