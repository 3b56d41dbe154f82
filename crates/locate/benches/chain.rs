//! Criterion benchmarks for the perception path on a 1280×800 desktop: capture (live, under the
//! Xvfb the bench command starts), fingerprint, control boxes, template match, region OCR cold
//! and cached, and the whole chain per target on an unchanged and a tweaked screen.
//! Run: `bash scripts/bench.sh` (figures go to BENCHMARKS.md by hand, medians).

use criterion::{criterion_group, criterion_main, Criterion};
use mend_capture::{Capture, Frame, ImageFileCapture, WindowQuery, XcapCapture};
use mend_locate::{Locator, Recorded, Scene};
use mend_model::{Rect, Role, Strategy, Target};
use mend_ocr::{OcrEngine, OcrOptions};
use mend_vision::{
    confirm_short, find_control_boxes, find_template, ink_of, Fingerprinter, SCALES,
};
use std::path::PathBuf;

fn shot(variant: &str) -> Frame {
    shot_in("zh", variant)
}

fn shot_in(lang: &str, variant: &str) -> Frame {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots")
        .join(lang)
        .join(variant)
        .join("main.png");
    ImageFileCapture::open(&p)
        .unwrap()
        .capture(&WindowQuery::title(".*").unwrap())
        .unwrap()
}

// 查询 on the zh baseline main screen, window pixels (from its geometry dump).
const SEARCH: Rect = Rect {
    x: 380,
    y: 62,
    w: 100,
    h: 34,
};

fn target() -> Target {
    Target {
        text: Some("查询".into()),
        role: Role::Button,
        recorded: Some(SEARCH),
        ..Target::default()
    }
}

fn bench(c: &mut Criterion) {
    let base = shot("baseline");
    let relabeled = shot("relabeled");
    let tmpl = mend_vision::crop(&base.image, SEARCH).unwrap();

    if std::env::var_os("DISPLAY").is_some() {
        let _app = mend_testkit::App::start("zh", &[], "main").expect("practice app");
        let q = WindowQuery::title("客户管理系统").unwrap();
        c.bench_function("capture/window 800x594 (xcap)", |b| {
            b.iter(|| XcapCapture.capture(&q).unwrap())
        });
        c.bench_function("capture/screen 1280x800 (xcap)", |b| {
            b.iter(|| XcapCapture.capture_screen().unwrap())
        });
    } else {
        eprintln!("no DISPLAY: capture benches skipped (scripts/bench.sh starts Xvfb)");
    }

    let fp = Fingerprinter::new();
    c.bench_function("vision/fingerprint window", |b| {
        b.iter(|| fp.hash(&base.image))
    });
    c.bench_function("vision/control boxes window", |b| {
        b.iter(|| find_control_boxes(&base.image))
    });
    c.bench_function("vision/template 4 scales near recorded box", |b| {
        b.iter(|| find_template(&relabeled.image, &tmpl, SEARCH.inflate(48), &SCALES))
    });

    // A one-glyph caption confirmed by shape: the row header "1" of gnumeric's default screen
    // against every other printable glyph in every font (fonts drawn once, cached, as in a run).
    let sheet = ImageFileCapture::open(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/real-apps/screens/gnumeric/default.png"),
    )
    .unwrap()
    .capture(&WindowQuery::title(".*").unwrap())
    .unwrap();
    let one = ink_of(&sheet.image, Rect::new(23, 195, 8, 11)).unwrap();
    let _ = confirm_short("1", &one, Some(10.0));
    c.bench_function("vision/shape: one glyph vs every other glyph", |b| {
        b.iter(|| confirm_short("1", &one, Some(10.0)))
    });

    // Faint text rows (chain.rs faint_pass): Free Vision's dialog in xterm, 604x394, and the
    // 1204x724 fs14 look of the same dialog, each a whole window searched.
    for screen in ["default_save_as", "fs14_save_as"] {
        let f = ImageFileCapture::open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
            "../../fixtures/real-apps/screens/fp-ide/{screen}.png"
        )))
        .unwrap()
        .capture(&WindowQuery::title(".*").unwrap())
        .unwrap();
        c.bench_function(&format!("vision/faint text rows: fp-ide {screen}"), |b| {
            b.iter(|| mend_vision::faint_text(&f.image).rows)
        });
    }

    let mut ocr = OcrEngine::new("chi_sim+eng").unwrap();
    let region = SEARCH.inflate(80);
    let opts = OcrOptions {
        scale: 3,
        psm: 11,
        min_conf: 40.0,
    };
    c.bench_function("ocr/region cold (chi_sim+eng, 3x)", |b| {
        b.iter(|| {
            ocr.clear_cache();
            ocr.read(&relabeled.image, region, opts).unwrap()
        })
    });
    c.bench_function("ocr/region cached", |b| {
        b.iter(|| ocr.read(&relabeled.image, region, opts).unwrap())
    });

    let mut locator = Locator::new("chi_sim+eng").unwrap();
    let rec = Recorded {
        template: Some(tmpl.clone()),
    };
    let t = target();
    let moved = shot("moved");
    let no_crop = Recorded::default();
    // Each case states the rung it exercises, and the bench checks it.
    let english = shot_in("en", "baseline");
    let cases: [(&str, &Frame, &Recorded, Strategy); 4] = [
        (
            "chain/unchanged screen, exact rung",
            &base,
            &rec,
            Strategy::Exact,
        ),
        (
            "chain/moved screen, exact rung (template search)",
            &moved,
            &rec,
            Strategy::Exact,
        ),
        (
            "chain/relabeled screen, fuzzy OCR rung (no crop)",
            &relabeled,
            &no_crop,
            Strategy::FuzzyOcr,
        ),
        (
            "chain/English screen, semantic rung (the Chinese flow's 查询, no crop)",
            &english,
            &no_crop,
            Strategy::Semantic,
        ),
    ];
    for (name, frame, r, want) in cases {
        // On another language's screen the recorded box is no help either.
        let t = if want == Strategy::Semantic {
            Target {
                recorded: None,
                ..t.clone()
            }
        } else {
            t.clone()
        };
        let t = &t;
        let got = locator.locate(frame, t, r).unwrap().strategy;
        assert_eq!(got, want, "{name}");
        c.bench_function(&format!("{name}, warm"), |b| {
            b.iter(|| locator.locate(frame, t, r).unwrap())
        });
        c.bench_function(&format!("{name}, cold caches"), |b| {
            b.iter(|| {
                locator.clear_caches();
                locator.locate(frame, t, r).unwrap()
            })
        });
    }
    // A step later on the same English window: a customer id typed into its field (a fresh
    // change each time, so no reading of these exact pixels is cached), the window's last
    // reading kept. The semantic rung reads only the changed part again.
    let semantic_t = Target {
        recorded: None,
        ..t.clone()
    };
    let typed = |n: u64| {
        let mut f = english.clone();
        let cell = image::imageops::crop_imm(&english.image, 46, 178, 40, 18).to_image();
        image::imageops::replace(&mut f.image, &cell, 166 + (n % 140) as i64, 70);
        f.info.id = u64::MAX / 2 + n;
        f
    };
    locator.clear_caches();
    locator.locate(&english, &semantic_t, &no_crop).unwrap();
    let mut n = 0;
    c.bench_function(
        "chain/English screen, semantic rung, a field typed since the last read (read in part)",
        |b| {
            b.iter(|| {
                n += 1;
                let f = typed(n);
                let got = locator.locate(&f, &semantic_t, &no_crop).unwrap();
                assert_eq!(got.strategy, Strategy::Semantic);
                got
            })
        },
    );
    let mut scene_ocr = OcrEngine::new("chi_sim+eng").unwrap();
    c.bench_function(
        "scene/window labels cold (whole window + each control)",
        |b| {
            b.iter(|| {
                scene_ocr.clear_cache();
                Scene::new(&relabeled)
                    .window_labels(&mut scene_ocr)
                    .unwrap()
            })
        },
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
