use crate::{capture_err, next_frame_id, Capture, Frame};
use mend_model::{ErrorCode, FrameInfo, MendError, Point, Rect, WindowInfo};
use std::path::{Path, PathBuf};

/// Serves a screenshot from disk as if it were a live window: `NAME.png` plus `NAME.json`
/// (a [`FrameInfo`]). Used by tests and by `mend locate --image`.
#[derive(Debug, Clone)]
pub struct ImageFileCapture {
    png: PathBuf,
    info: FrameInfo,
}

impl ImageFileCapture {
    pub fn open(png: impl AsRef<Path>) -> Result<Self, MendError> {
        let png = png.as_ref().to_path_buf();
        let sidecar = png.with_extension("json");
        let info = match std::fs::read_to_string(&sidecar) {
            Ok(s) => serde_json::from_str::<FrameInfo>(&s).map_err(|e| {
                MendError::new(
                    ErrorCode::InvalidArgument,
                    format!("{}: not a frame description: {e}", sidecar.display()),
                )
            })?,
            Err(_) => {
                // No sidecar: a plain picture, treated as a window at the screen origin.
                let (w, h) = image::image_dimensions(&png)
                    .map_err(|e| capture_err(format!("{}: {e}", png.display())))?;
                let name = png
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                FrameInfo {
                    id: 0,
                    monitor: "file".into(),
                    scale_factor: 1.0,
                    origin: Point { x: 0, y: 0 },
                    width: w,
                    height: h,
                    window: Some(WindowInfo {
                        id: 1,
                        title: name,
                        app_name: "file".into(),
                        pid: 0,
                        rect: Rect::new(0, 0, w as i32, h as i32),
                        focused: true,
                        owner: None,
                        takes_no_focus: false,
                    }),
                    popups: vec![],
                }
            }
        };
        Ok(ImageFileCapture { png, info })
    }

    pub fn info(&self) -> &FrameInfo {
        &self.info
    }

    fn load(&self) -> Result<Frame, MendError> {
        let image = image::open(&self.png)
            .map_err(|e| capture_err(format!("{}: {e}", self.png.display())))?
            .to_rgba8();
        let mut info = self.info.clone();
        info.id = next_frame_id();
        info.width = image.width();
        info.height = image.height();
        Ok(Frame { info, image })
    }
}

impl Capture for ImageFileCapture {
    fn windows(&self) -> Result<Vec<WindowInfo>, MendError> {
        Ok(self.info.window.iter().cloned().collect())
    }

    fn capture_window(&self, id: u32) -> Result<Frame, MendError> {
        match &self.info.window {
            Some(w) if w.id == id => self.load(),
            _ => Err(MendError::new(
                ErrorCode::WindowNotFound,
                format!("{} holds no window {id}", self.png.display()),
            )),
        }
    }
}

/// Write a frame as `path` (PNG) plus its sidecar, so [`ImageFileCapture`] can serve it again.
pub fn save_frame(frame: &Frame, path: &Path) -> Result<(), MendError> {
    frame
        .image
        .save(path)
        .map_err(|e| capture_err(format!("write {}: {e}", path.display())))?;
    let json = serde_json::to_string_pretty(&frame.info).expect("FrameInfo serializes");
    std::fs::write(path.with_extension("json"), json)
        .map_err(|e| capture_err(format!("write sidecar of {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WindowQuery;

    #[test]
    fn a_saved_frame_is_served_back_with_its_geometry() {
        let dir = tempfile::tempdir().unwrap();
        let img = image::RgbaImage::from_pixel(40, 30, image::Rgba([10, 20, 30, 255]));
        let info = FrameInfo {
            id: 7,
            monitor: "m".into(),
            scale_factor: 1.0,
            origin: Point { x: 100, y: 50 },
            width: 40,
            height: 30,
            window: Some(WindowInfo {
                id: 9,
                title: "Customer Desk".into(),
                app_name: "Tk".into(),
                pid: 0,
                rect: Rect::new(100, 50, 40, 30),
                focused: true,
                owner: None,
                takes_no_focus: false,
            }),
            popups: vec![],
        };
        let path = dir.path().join("shot.png");
        save_frame(&Frame { info, image: img }, &path).unwrap();

        let cap = ImageFileCapture::open(&path).unwrap();
        let frame = cap
            .capture(&WindowQuery::title("Customer Desk").unwrap())
            .unwrap();
        assert_eq!(frame.info.origin, Point { x: 100, y: 50 });
        assert_eq!(frame.image.get_pixel(5, 5).0, [10, 20, 30, 255]);
        let miss = cap
            .capture(&WindowQuery::title("Other").unwrap())
            .unwrap_err();
        assert_eq!(miss.code, ErrorCode::WindowNotFound);
    }
}
