use mend_model::Rect;
use mend_ocr::{OcrEngine, OcrOptions};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let img = image::open(&a[1]).unwrap().to_rgba8();
    let r: Vec<i32> = a[2].split(',').map(|s| s.parse().unwrap()).collect();
    let mut e = OcrEngine::new("chi_sim+eng").unwrap();
    for scale in [1u32, 2, 3] {
        let ws = e
            .read(
                &img,
                Rect::new(r[0], r[1], r[2], r[3]),
                OcrOptions {
                    scale,
                    psm: 11,
                    min_conf: 0.0,
                },
            )
            .unwrap();
        println!("scale {scale}");
        for w in &ws {
            println!("  {:?} {:?} {:.0} {:?}", w.text, w.rect, w.conf, w.line_key);
        }
        for l in mend_ocr::join_lines(&ws, 1.2) {
            println!("  LINE {:?} {:?}", l.text, l.rect);
        }
    }
}
#[allow(dead_code)]
fn unused() {}
