//! How long capture takes on the running X server: medians of N runs.
//!
//! ```text
//! cargo run --release -p mend-capture --example capture_time -- '^xfontsel$' 50
//! ```
//! Measures the window's frame (root capture, popups looked up), a 400×300 region at the
//! window's top-left, the window list, the foreground check, and for comparison xcap's own
//! capture of the window (which leaves popups black).

use mend_capture::{Capture, WindowQuery, XcapCapture};
use mend_model::Rect;
use std::time::Instant;

fn median_ms(n: usize, mut f: impl FnMut()) -> f64 {
    f(); // warm: the X connection is made once
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let pattern = args.next().unwrap_or_else(|| ".*".into());
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
    let q = WindowQuery::title(&pattern).expect("pattern");
    let cap = XcapCapture;
    let w = cap.find_window(&q).expect("window");
    let region = Rect::new(w.rect.x, w.rect.y, 400, 300);

    let window = median_ms(n, || {
        cap.capture_window(w.id).expect("capture window");
    });
    let reg = median_ms(n, || {
        cap.capture_region(region).expect("capture region");
    });
    let full = median_ms(n, || {
        cap.capture_region(w.rect).expect("capture region");
    });
    let list = median_ms(n, || {
        cap.windows().expect("windows");
    });
    let fg = median_ms(n, || {
        cap.foreground().expect("foreground");
    });
    let xw = xcap::Window::all()
        .expect("xcap windows")
        .into_iter()
        .find(|x| x.id().ok() == Some(w.id))
        .expect("xcap sees the window");
    let xcap_window = median_ms(n, || {
        xw.capture_image().expect("xcap capture");
    });

    println!(
        "window '{}' {}×{}, median of {n}:",
        w.title, w.rect.w, w.rect.h
    );
    println!("  frame of the window (root capture + popups)  {window:7.2} ms");
    println!("  region 400×300 from the root                 {reg:7.2} ms");
    println!("  region of the window's rect from the root    {full:7.2} ms");
    println!("  list windows                                 {list:7.2} ms");
    println!("  foreground (with popups in front)            {fg:7.2} ms");
    println!("  xcap window capture (before; popups black)   {xcap_window:7.2} ms");
}
