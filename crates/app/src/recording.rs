//! The studio's Record and re-capture. Record drives the same engine as `mend teach`
//! (`mend_teach::teach`) on a worker thread: each step goes to the UI as it is captured
//! (`record-event`), Stop sets the engine's stop flag (as Ctrl+C does in the CLI) and the
//! person may also press `mend_teach::STOP_CHORD` in the application; either way the flow so far
//! is written, validated and sent back as a `FlowDoc` (`record-finished`) for the editor to
//! open. The studio's own windows are never recorded (its Stop button is clicked mid-recording).
//! A masked field's text never enters a step, so it reaches no event and no file.
//!
//! Re-capture crops a step's box (or a box the person dragged on the screenshot) from the
//! window as it is now and writes it beside the flow (`<flow>.crops/`), returning the target
//! with its new `crop` and `recorded` box for the editor to keep.

use crate::studio::{self, FlowDoc, Studio};
use image::RgbaImage;
use mend_capture::{Capture, WindowQuery, XcapCapture};
use mend_model::{ErrorCode, MendError, Rect, TargetSpec};
use mend_teach::{Event, Options, Stopped};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn invalid(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::InvalidArgument, msg)
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecordRequest {
    /// A new flow file in the flows folder.
    pub file: String,
    /// Anchored regex of the application's main window title.
    pub window: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// How a recording ended.
#[derive(Debug, Clone, Serialize)]
pub struct Recorded {
    /// The flow written, validated (`None`: nothing was recorded, nothing written).
    pub doc: Option<FlowDoc>,
    /// Secrets to set before running (masked fields).
    pub secrets: Vec<String>,
    pub notes: Vec<String>,
    pub stopped: Stopped,
}

/// Where a recording's events go.
pub trait RecordSink: Send + 'static {
    fn event(&self, e: &Event);
    fn finished(&self, r: Result<Recorded, MendError>);
}

/// Start recording into a new flow file; refused when the file exists, the window is not
/// there, or a run or another recording is in progress.
pub fn start_recording(
    s: &Studio,
    req: RecordRequest,
    sink: impl RecordSink,
) -> Result<(), MendError> {
    let path = s.flow_path(&req.file)?;
    if path.exists() {
        return Err(invalid(format!(
            "{} exists already; record into a new file",
            req.file
        )));
    }
    XcapCapture.find_window(&WindowQuery::title(&req.window)?)?;
    studio::guard_busy(s)?;
    let stop = Arc::new(AtomicBool::new(false));
    *s.recording.lock().expect("lock") = Some(stop.clone());
    let (busy, recording, flows_dir) = (s.busy.clone(), s.recording.clone(), s.flows_dir.clone());
    let opts = Options {
        flow: path,
        window: req.window,
        lang: crate::DEFAULT_LANG.into(),
        name: req.name.filter(|n| !n.trim().is_empty()),
        skip_pid: Some(std::process::id()),
    };
    std::thread::spawn(move || {
        let out = mend_teach::teach(&opts, &stop, &mut |e| sink.event(&e));
        *recording.lock().expect("lock") = None;
        *busy.lock().expect("lock") = false;
        sink.finished(out.map(|o| {
            Recorded {
                doc: o
                    .flow
                    .is_some()
                    .then(|| studio::doc_in(&flows_dir, &req.file))
                    .transpose()
                    .ok()
                    .flatten(),
                secrets: o.secrets,
                notes: o.notes,
                stopped: o.stopped,
            }
        }));
    });
    Ok(())
}

/// Ask the recording in progress to stop (it writes the flow and finishes).
pub fn stop_recording(s: &Studio) -> Result<(), MendError> {
    match s.recording.lock().expect("lock").as_ref() {
        Some(stop) => {
            stop.store(true, Ordering::SeqCst);
            Ok(())
        }
        None => Err(invalid("nothing is being recorded")),
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecaptureRequest {
    pub file: String,
    /// 0-based step (names the crop when the target has none yet).
    pub step: usize,
    /// The flow's window title, used when the target names no window of its own.
    pub window: String,
    pub target: TargetSpec,
    /// A box dragged on the screenshot (window pixels); else the target's recorded box.
    #[serde(default)]
    pub rect: Option<Rect>,
}

/// Capture the target's window now and crop the step's box into `<flow>.crops/`.
pub fn recapture_crop(s: &Studio, req: RecaptureRequest) -> Result<TargetSpec, MendError> {
    s.flow_path(&req.file)?;
    let frame = studio::capture(req.target.window.as_deref().unwrap_or(&req.window))?;
    crop_into(
        &s.flows_dir,
        &req.file,
        req.step,
        &frame.image,
        req.target,
        req.rect,
    )
}

/// Write the crop of `rect` (else the target's recorded box) of `image` beside flow `file`:
/// over the target's own crop when it has one in `<stem>.crops/`, else as a new `s<N>.png`
/// that no other step uses.
pub fn crop_into(
    flows_dir: &Path,
    file: &str,
    step: usize,
    image: &RgbaImage,
    mut target: TargetSpec,
    rect: Option<Rect>,
) -> Result<TargetSpec, MendError> {
    let rect = rect.or(target.recorded).ok_or_else(|| {
        invalid(
            "the step has no recorded box: capture the window and drag a box around the control",
        )
    })?;
    let rect = rect
        .clamp_to(&Rect::new(
            0,
            0,
            image.width() as i32,
            image.height() as i32,
        ))
        .filter(|r| r.w >= 4 && r.h >= 4)
        .ok_or_else(|| invalid("the box is outside the window or too small (at least 4×4)"))?;
    let crop = mend_vision::crop(image, rect).ok_or_else(|| invalid("the box is empty"))?;
    let stem = file.trim_end_matches(".toml");
    let rel_dir = format!("{stem}.crops");
    let dir = flows_dir.join(&rel_dir);
    std::fs::create_dir_all(&dir).map_err(|e| invalid(format!("{}: {e}", dir.display())))?;
    let own = target.crop.as_deref().and_then(|c| {
        let name = c.strip_prefix(&format!("{rel_dir}/"))?;
        let safe = name.ends_with(".png")
            && !name.contains('/')
            && !name.contains("..")
            && !name.starts_with('.');
        safe.then(|| c.to_string())
    });
    let rel = own.unwrap_or_else(|| {
        (0..)
            .map(|k| match k {
                0 => format!("{rel_dir}/s{}.png", step + 1),
                k => format!("{rel_dir}/s{}-{k}.png", step + 1),
            })
            .find(|r| !flows_dir.join(r).exists())
            .expect("a free name")
    });
    let out = flows_dir.join(&rel);
    crop.save(&out)
        .map_err(|e| invalid(format!("{}: {e}", out.display())))?;
    target.crop = Some(rel);
    target.recorded = Some(rect);
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    /// A 200×100 window picture with a red 40×20 button at (50, 30).
    fn window() -> RgbaImage {
        let mut img = RgbaImage::from_pixel(200, 100, Rgba([240, 240, 240, 255]));
        for y in 30..50 {
            for x in 50..90 {
                img.put_pixel(x, y, Rgba([200, 0, 0, 255]));
            }
        }
        img
    }

    #[test]
    fn the_recorded_box_is_cropped_beside_the_flow_and_named_for_the_step() {
        let dir = tempfile::tempdir().unwrap();
        let target = TargetSpec {
            recorded: Some(Rect::new(50, 30, 40, 20)),
            ..TargetSpec::default()
        };
        let t = crop_into(dir.path(), "f.toml", 2, &window(), target, None).unwrap();
        assert_eq!(t.crop.as_deref(), Some("f.crops/s3.png"));
        let png = image::open(dir.path().join("f.crops/s3.png"))
            .unwrap()
            .to_rgba8();
        assert_eq!(png.dimensions(), (40, 20));
        assert!(png.pixels().all(|p| *p == Rgba([200, 0, 0, 255])));
        // Re-captured again: the same file, now from a dragged box.
        let t = crop_into(
            dir.path(),
            "f.toml",
            2,
            &window(),
            t,
            Some(Rect::new(0, 0, 10, 8)),
        )
        .unwrap();
        assert_eq!(t.crop.as_deref(), Some("f.crops/s3.png"));
        assert_eq!(t.recorded, Some(Rect::new(0, 0, 10, 8)));
        let png = image::open(dir.path().join("f.crops/s3.png"))
            .unwrap()
            .to_rgba8();
        assert_eq!(png.dimensions(), (10, 8));
    }

    #[test]
    fn another_steps_crop_is_never_overwritten_and_bad_boxes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("f.crops")).unwrap();
        std::fs::write(dir.path().join("f.crops/s1.png"), b"another step's").unwrap();
        let t = crop_into(
            dir.path(),
            "f.toml",
            0,
            &window(),
            TargetSpec::default(),
            Some(Rect::new(190, 90, 40, 40)),
        )
        .unwrap();
        assert_eq!(t.crop.as_deref(), Some("f.crops/s1-1.png"));
        assert_eq!(t.recorded, Some(Rect::new(190, 90, 10, 10)), "clipped");
        assert_eq!(
            std::fs::read(dir.path().join("f.crops/s1.png")).unwrap(),
            b"another step's"
        );
        // A crop path outside the flow's folder is not written to: a new name instead.
        let odd = TargetSpec {
            crop: Some("f.crops/../../x.png".into()),
            recorded: Some(Rect::new(50, 30, 40, 20)),
            ..TargetSpec::default()
        };
        let t = crop_into(dir.path(), "f.toml", 4, &window(), odd, None).unwrap();
        assert_eq!(t.crop.as_deref(), Some("f.crops/s5.png"));
        for (target, rect) in [
            (TargetSpec::default(), None),
            (TargetSpec::default(), Some(Rect::new(300, 300, 10, 10))),
            (TargetSpec::default(), Some(Rect::new(10, 10, 2, 2))),
        ] {
            let e = crop_into(dir.path(), "f.toml", 0, &window(), target, rect).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument);
        }
    }
}
