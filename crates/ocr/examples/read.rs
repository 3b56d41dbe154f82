//! Read one region of a screenshot the way Mend does and print the words with their boxes and
//! confidences: `cargo run -p mend-ocr --example read -- IMAGE X Y W H [SCALE] [PSM]`.
//! For finding out why a caption is misread (compare with `tesseract` on the same crop).
use mend_model::Rect;
use mend_ocr::{OcrEngine, OcrOptions};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 5 {
        eprintln!("usage: read IMAGE X Y W H [SCALE] [PSM]");
        std::process::exit(2);
    }
    let img = image::open(&a[0]).expect("an image").to_rgba8();
    let n = |i: usize| a[i].parse::<i32>().expect("a number");
    let opts = OcrOptions {
        scale: a.get(5).map_or(3, |s| s.parse().unwrap()),
        psm: a.get(6).map_or(7, |s| s.parse().unwrap()),
        min_conf: 0.0,
    };
    let mut ocr = OcrEngine::new("chi_sim+eng").expect("tesseract");
    for w in ocr
        .read(&img, Rect::new(n(1), n(2), n(3), n(4)), opts)
        .unwrap()
    {
        println!("{:?} {:.1} {:?}", w.text, w.conf, w.rect);
    }
}
