//! What typing costs Mend on a real X server (a private Xvfb + openbox and the practice app's
//! focused user-name field): 16 characters sent one server grab each (`type_into`, a focus
//! check and a sync per character) against the same 16 in one batch under one grab
//! (`type_all`). Only Mend's side is timed: the calls return once the server has processed
//! the keys, not when the application painted them. Run: `cargo bench -p mend-input --bench
//! typing` (needs Xvfb, openbox, python3-tk: `scripts/bench.sh` installs them).

use criterion::{criterion_group, criterion_main, Criterion};
use mend_input::X11Keys;
use mend_testkit::{App, Desktop};
use std::process::Command;

fn bench(c: &mut Criterion) {
    let _desktop = Desktop::start().expect("a private Xvfb + openbox");
    let app = App::start("en", &[], "login").expect("the practice app");
    let field = app
        .geometry()
        .expect("geometry")
        .controls
        .into_iter()
        .find(|c| c.role == "field")
        .expect("a field")
        .rect();
    let mut keys = X11Keys::new().expect("X11 input");
    keys.click(field.x + field.w / 2, field.y + field.h / 2, 1, 1)
        .expect("click the field");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let active = Command::new("xdotool")
        .arg("getactivewindow")
        .output()
        .expect("xdotool");
    let window: u32 = String::from_utf8_lossy(&active.stdout)
        .trim()
        .parse()
        .expect("the active window's id");
    let text = "abcdefghijklmnop";
    let mut g = c.benchmark_group("typing 16 characters");
    g.bench_function("one grab per character", |b| {
        b.iter(|| {
            for ch in text.chars() {
                keys.type_into(window, ch).expect("typed");
            }
        })
    });
    g.bench_function("one batch under one grab", |b| {
        b.iter(|| keys.type_all(window, text).expect("typed"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
