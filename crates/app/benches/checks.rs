//! Criterion benchmark of checks (issue 35 item 2): an `assert` step of one or more checks, run
//! by the real runner with the real locator (both readers, as `mend run` builds it) over the
//! practice app's main window served from its checked-in screenshot (`ImageFileCapture`: a
//! capture decodes the PNG, about what a live window capture costs). Each iteration is a whole
//! one-step run — the run record, the journal's intent and result flushed to sled, the report —
//! so a figure is what an assert step costs a run, not the check alone.
//!
//! Two states of the screen:
//! - **unchanged**: the locator has read this screen before (the scene cache and the readers'
//!   caches hold it), as when an assert follows the step that last changed the window;
//! - **first look**: every cache cleared before each run: the window read from scratch.
//!
//! Besides criterion's figures, the step's own time as the run reports it (`Progress.ms`, what
//! the demo and the audit show) is printed as a median over the iterations.
//!
//! Run: `cargo bench -p mend-app --bench checks` (PP-OCR needs `MEND_ORT_DYLIB` and
//! `MEND_PPOCR_DIR`, which `bash scripts/bench.sh --criterion-only` sets; without them the
//! locator reads with Tesseract alone).

use criterion::{criterion_group, criterion_main, Criterion};
use mend_capture::ImageFileCapture;
use mend_input::RecordingInput;
use mend_locate::Locator;
use mend_runner::{LoadedFlow, Options, Progress, Runner, SystemClock};
use mend_store::Store;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const CASES: &[(&str, &str)] = &[
    (
        "exists: a button",
        r#"{ exists = { text = "查询", role = "button" } }"#,
    ),
    (
        "exists: a value in the list",
        r#"{ exists = { text = "13800000002", role = "any" } }"#,
    ),
    (
        "window_title",
        r#"{ window_title = "客户管理系统|Customer Desk" }"#,
    ),
    (
        "not_exists: a row that is not there",
        r#"{ not_exists = { text = "C009", role = "any" } }"#,
    ),
    (
        "the demo's closing assert (3 checks)",
        r#"{ exists = { text = "查询", role = "button" } }, { exists = { text = "13800000002", role = "any" } }, { window_title = "客户管理系统|Customer Desk" }"#,
    ),
];

fn flow(dir: &Path, n: usize, checks: &str) -> LoadedFlow {
    let path = dir.join(format!("check{n}.toml"));
    std::fs::write(
        &path,
        format!(
            "version = 1\nname = \"check {n}\"\n\n[window]\ntitle = \"客户管理系统|Customer Desk\"\n\n[[step]]\nid = \"assert\"\naction = \"assert\"\ncheck = [{checks}]\n"
        ),
    )
    .unwrap();
    LoadedFlow::load(&path, &[]).unwrap()
}

/// One run of `lf`: the assert step's own time (ms, as the run reports it).
fn run(
    capture: &ImageFileCapture,
    locator: &mut Locator,
    store: &Store,
    runs: &Path,
    lf: &LoadedFlow,
) -> u64 {
    let mut input = RecordingInput::default();
    let clock = SystemClock::default();
    let mut step_ms = None;
    let mut on = |p: &Progress| {
        if p.status == "passed" {
            step_ms = Some(p.ms);
        }
    };
    let mut runner = Runner::new(
        capture,
        &mut input,
        locator,
        &clock,
        store,
        &|_| None,
        &mut on,
        Options::new(runs.to_path_buf()),
    );
    let s = runner
        .start(lf, BTreeMap::new(), vec![], mend_app::DEFAULT_LANG)
        .unwrap();
    assert_eq!(s.status, "passed", "{s:?}");
    assert!(input.sent.is_empty(), "a check sends no input");
    step_ms.expect("the step passed")
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn bench(c: &mut Criterion) {
    let png = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots/zh/baseline/main.png");
    let capture = ImageFileCapture::open(&png).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db")).unwrap();
    let runs = dir.path().join("runs");
    let mut locator = mend_app::locator(mend_app::DEFAULT_LANG, false, None).unwrap();
    let mut g = c.benchmark_group("checks");
    g.sample_size(10);
    let mut steps: Vec<(String, u64)> = Vec::new();
    for (n, (what, checks)) in CASES.iter().enumerate() {
        let lf = flow(dir.path(), n, checks);
        // Read once: the screen is "unchanged" from here on.
        run(&capture, &mut locator, &store, &runs, &lf);
        let mut warm = Vec::new();
        g.bench_function(format!("{what}, unchanged screen"), |b| {
            b.iter(|| warm.push(run(&capture, &mut locator, &store, &runs, &lf)))
        });
        steps.push((format!("{what}, unchanged screen"), median(warm)));
        let mut cold = Vec::new();
        g.bench_function(format!("{what}, first look"), |b| {
            b.iter(|| {
                locator.clear_caches();
                cold.push(run(&capture, &mut locator, &store, &runs, &lf))
            })
        });
        steps.push((format!("{what}, first look"), median(cold)));
    }
    g.finish();
    println!("\nthe assert step's own time as the run reports it (median over the iterations):");
    for (what, ms) in steps {
        println!("  {what}: {ms} ms");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
