use crate::target::TargetArgs;
use clap::Args;
use image::{Rgba, RgbaImage};
use mend_capture::save_frame;
use mend_locate::Scene;
use mend_model::{ErrorCode, MendError, Rect};
use mend_ocr::OcrEngine;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct InspectArgs {
    /// Window title (anchored regex).
    #[arg(long)]
    pub window: String,
    #[arg(long)]
    pub class: Option<String>,
    /// Folder to write frame.png, frame.json, words.json, candidates.json, overlay.png.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value = mend_app::DEFAULT_LANG)]
    pub lang: String,
    /// Inspect a screenshot instead of the live screen.
    #[arg(long)]
    pub image: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CaptureArgs {
    #[arg(long)]
    pub window: String,
    #[arg(long)]
    pub class: Option<String>,
    /// PNG to write; the frame's geometry goes beside it as .json.
    #[arg(long)]
    pub out: PathBuf,
}

fn io_err(what: &str, e: impl std::fmt::Display) -> MendError {
    MendError::new(ErrorCode::CaptureFailed, format!("{what}: {e}"))
}

fn target_args(
    window: &str,
    class: &Option<String>,
    lang: &str,
    image: Option<PathBuf>,
) -> TargetArgs {
    TargetArgs {
        window: window.to_string(),
        class: class.clone(),
        text: None,
        role: "any".into(),
        near: None,
        synonyms: vec![],
        offset: None,
        lang: lang.to_string(),
        image,
        crop: None,
    }
}

pub fn run_capture(a: CaptureArgs) -> Result<ExitCode, MendError> {
    let frame = target_args(&a.window, &a.class, "eng", None).capture()?;
    save_frame(&frame, &a.out)?;
    println!(
        "{} ({}x{})",
        a.out.display(),
        frame.info.width,
        frame.info.height
    );
    Ok(ExitCode::SUCCESS)
}

fn draw_rect(img: &mut RgbaImage, r: Rect, c: Rgba<u8>) {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let mut put = |x: i32, y: i32| {
        if x >= 0 && y >= 0 && x < w && y < h {
            img.put_pixel(x as u32, y as u32, c);
        }
    };
    for t in 0..2 {
        for x in r.x..r.right() {
            put(x, r.y + t);
            put(x, r.bottom() - 1 - t);
        }
        for y in r.y..r.bottom() {
            put(r.x + t, y);
            put(r.right() - 1 - t, y);
        }
    }
}

pub fn run_inspect(a: InspectArgs) -> Result<ExitCode, MendError> {
    let frame = target_args(&a.window, &a.class, &a.lang, a.image.clone()).capture()?;
    std::fs::create_dir_all(&a.out).map_err(|e| io_err("create output folder", e))?;
    save_frame(&frame, &a.out.join("frame.png"))?;
    let mut ocr = OcrEngine::new(&a.lang)?;
    let mut scene = Scene::new(&frame);
    let labels = scene.window_labels(&mut ocr)?;
    let boxes = scene.boxes().to_vec();
    let words: Vec<_> = labels
        .iter()
        .map(|l| serde_json::json!({"text": l.text, "box": l.line, "conf": l.conf, "role": l.role()}))
        .collect();
    let write = |name: &str, v: &serde_json::Value| {
        std::fs::write(
            a.out.join(name),
            serde_json::to_string_pretty(v).expect("json"),
        )
        .map_err(|e| io_err(name, e))
    };
    write("words.json", &serde_json::Value::Array(words))?;
    write(
        "candidates.json",
        &serde_json::to_value(&boxes).expect("json"),
    )?;
    let mut overlay = frame.image.clone();
    for b in &boxes {
        draw_rect(&mut overlay, b.rect, Rgba([0, 160, 255, 255]));
    }
    for l in &labels {
        draw_rect(&mut overlay, l.line, Rgba([255, 60, 0, 255]));
    }
    // The window's accessibility tree where the desktop has one: its showing nodes in green.
    let tree = match a.image {
        None => window_tree(&frame),
        Some(_) => None,
    };
    if let Some(snap) = &tree {
        let nodes: Vec<_> = snap
            .nodes
            .iter()
            .filter(|n| n.states.showing && n.rect.w > 0 && n.rect.h > 0)
            .map(|n| {
                let r = frame.info.from_screen(&n.rect);
                draw_rect(&mut overlay, r, Rgba([0, 200, 60, 255]));
                serde_json::json!({"role": n.role, "name": n.name, "path": n.path, "box": r,
                    "states": n.states, "labelled_by": n.labelled_by})
            })
            .collect();
        println!(
            "{}: the accessibility tree shows {} nodes (tree.json; green on overlay.png)",
            a.out.display(),
            nodes.len()
        );
        write("tree.json", &serde_json::Value::Array(nodes))?;
    }
    overlay
        .save(a.out.join("overlay.png"))
        .map_err(|e| io_err("overlay.png", e))?;
    println!(
        "{}: {} text lines, {} control boxes; overlay.png shows text in red, controls in blue",
        a.out.display(),
        labels.len(),
        boxes.len()
    );
    for l in &labels {
        println!(
            "  {:<20} {:?} at {},{} {}x{}",
            l.text,
            l.role(),
            l.line.x,
            l.line.y,
            l.line.w,
            l.line.h
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The live window's accessibility tree, when the desktop has an AT-SPI bus and the window a
/// tree (else `None`, and why on stderr).
fn window_tree(frame: &mend_capture::Frame) -> Option<mend_structure::Snapshot> {
    use mend_structure::Structure;
    let win = frame.info.window.as_ref()?;
    match mend_structure::AtSpi::desktop()?.window(win) {
        Ok(Some(s)) => Some(s),
        Ok(None) => {
            eprintln!("note: '{}' exposes no accessibility tree", win.title);
            None
        }
        Err(e) => {
            eprintln!("note: the accessibility tree could not be read: {e}");
            None
        }
    }
}
