//! Criterion benchmark for settle detection on a scripted damage stream over a fake clock: what
//! deciding "settled" costs the runner per step, apart from the waiting itself (which is the
//! application's paint and the rule's quiet period, in fake time here). Cases: nothing painted
//! (the grace), a click's short burst, a screen change of 200 paints, and a repaint that keeps
//! going until the timeout. Run: `cargo bench -p mend-runner --bench settle`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mend_capture::DamageStream;
use mend_runner::settle::{on_damage, ScriptedDamage};
use mend_runner::{FakeClock, SettleRule};

fn settle_once(per_watch: &[u64], timeout: u64) -> bool {
    let clock = FakeClock::default();
    let mut d = ScriptedDamage::new(clock.clone(), Vec::new());
    d.per_watch = per_watch.to_vec();
    d.watch(&[1]).unwrap();
    on_damage(&clock, &mut d, &SettleRule::default(), 0, timeout).is_ok()
}

fn bench(c: &mut Criterion) {
    let burst: Vec<u64> = vec![6, 7, 8, 12];
    let screen: Vec<u64> = (0..200).map(|i| 6 + i / 10).collect();
    let spinner: Vec<u64> = (0..800).map(|i| i * 10).collect();
    let mut g = c.benchmark_group("settle");
    g.bench_function("nothing painted (grace)", |b| {
        b.iter(|| settle_once(black_box(&[]), 8000))
    });
    g.bench_function("a click's burst of 4 paints", |b| {
        b.iter(|| settle_once(black_box(&burst), 8000))
    });
    g.bench_function("a new screen, 200 paints", |b| {
        b.iter(|| settle_once(black_box(&screen), 8000))
    });
    g.bench_function("painting until an 8 s timeout", |b| {
        b.iter(|| settle_once(black_box(&spinner), 8000))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
