use clap::Args;
use mend_capture::{Capture, Frame, ImageFileCapture, WindowQuery, XcapCapture};
use mend_locate::{Recorded, Refusal};
use mend_model::{ErrorCode, Located, MendError, Role, Target};
use std::path::PathBuf;
use std::process::ExitCode;

/// How a command names a window and a control.
#[derive(Args, Debug, Clone)]
pub struct TargetArgs {
    /// Window title (an anchored regex: "客户管理系统", "Customer.*").
    #[arg(long)]
    pub window: String,
    /// Window class (WM_CLASS), to tell apart windows with the same title.
    #[arg(long)]
    pub class: Option<String>,
    /// The control's label (for a field: the label beside it).
    #[arg(long)]
    pub text: Option<String>,
    /// button, field, label, text, menu, column_header, row, table, area (a bare place, by
    /// --near and --offset), any.
    #[arg(long, default_value = "any")]
    pub role: String,
    /// A stable label the control sits next to.
    #[arg(long)]
    pub near: Option<String>,
    /// Another word the control may say (a flow target's `synonyms`: the other language's
    /// caption); repeat it for more.
    #[arg(long = "synonym")]
    pub synonyms: Vec<String>,
    /// Offset from the near label's centre to the control's centre, "DX,DY".
    #[arg(long, allow_hyphen_values = true)]
    pub offset: Option<String>,
    /// OCR languages.
    #[arg(long, default_value = mend_app::DEFAULT_LANG)]
    pub lang: String,
    /// Read this screenshot (PNG + optional JSON sidecar) instead of the live screen.
    #[arg(long)]
    pub image: Option<PathBuf>,
    /// The control's recorded crop (a PNG): with no --text and no --near, the control is
    /// known by its pixels alone.
    #[arg(long)]
    pub crop: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct LocateArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn invalid(msg: String) -> MendError {
    MendError::new(ErrorCode::InvalidArgument, msg)
}

impl TargetArgs {
    pub fn target(&self) -> Result<Target, MendError> {
        let role = Role::parse(&self.role).ok_or_else(|| {
            invalid(format!(
                "--role '{}' is not a role; use button, field, label, text, menu, column_header, row, table or any",
                self.role
            ))
        })?;
        if self.text.is_none() && self.near.is_none() && self.crop.is_none() {
            return Err(invalid(
                "give --text LABEL, --near LABEL or --crop PNG".into(),
            ));
        }
        let offset = match &self.offset {
            None => None,
            Some(s) => {
                let parts: Vec<&str> = s.split(',').collect();
                match parts.as_slice() {
                    [dx, dy] => Some((
                        dx.trim()
                            .parse()
                            .map_err(|_| invalid(format!("--offset '{s}': DX is not a number")))?,
                        dy.trim()
                            .parse()
                            .map_err(|_| invalid(format!("--offset '{s}': DY is not a number")))?,
                    )),
                    _ => return Err(invalid(format!("--offset '{s}' must be DX,DY"))),
                }
            }
        };
        if offset.is_some() && self.near.is_none() {
            return Err(invalid("--offset needs --near".into()));
        }
        Ok(Target {
            text: self.text.clone(),
            role,
            near: self.near.clone(),
            offset,
            recorded: None,
            context: None,
            synonyms: self.synonyms.clone(),
            tree: None,
        })
    }

    pub fn query(&self) -> Result<WindowQuery, MendError> {
        let mut q = WindowQuery::title(&self.window)?;
        q.class = self.class.clone();
        Ok(q)
    }

    pub fn capture(&self) -> Result<Frame, MendError> {
        let q = self.query()?;
        match &self.image {
            Some(p) => ImageFileCapture::open(p)?.capture(&q),
            None => XcapCapture.capture(&q),
        }
    }
}

/// Locate on a fresh frame; returns the frame too (the guard must check the same one).
pub fn locate(t: &TargetArgs) -> Result<(Frame, Result<Located, Refusal>), MendError> {
    let target = t.target()?;
    let frame = t.capture()?;
    let mut locator = mend_app::locator(&t.lang, t.image.is_none(), None)?;
    let template = match &t.crop {
        Some(p) => Some(
            image::open(p)
                .map_err(|e| invalid(format!("--crop {}: {e}", p.display())))?
                .to_rgba8(),
        ),
        None => None,
    };
    let r = locator.locate(&frame, &target, &Recorded { template });
    Ok((frame, r))
}

pub fn run_locate(a: LocateArgs) -> Result<ExitCode, MendError> {
    let (_, r) = locate(&a.target)?;
    match r {
        Ok(l) => {
            if a.json {
                println!("{}", serde_json::to_string_pretty(&l).expect("serializes"));
            } else {
                let (b, s) = (l.rect, l.screen_box);
                println!(
                    "found '{}' by {} (confidence {:.2}) box {},{} {}x{} screen {},{} {}x{}",
                    l.text,
                    l.strategy.as_str(),
                    l.confidence,
                    b.x,
                    b.y,
                    b.w,
                    b.h,
                    s.x,
                    s.y,
                    s.w,
                    s.h
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(refusal) => {
            if refusal.error.code == ErrorCode::InvalidArgument {
                return Err(refusal.error);
            }
            if a.json {
                let v = serde_json::json!({
                    "error": refusal.error.code,
                    "message": refusal.error.message,
                    "candidates": refusal.candidates,
                });
                println!("{}", serde_json::to_string_pretty(&v).expect("serializes"));
            } else {
                eprintln!("{}", refusal.error);
                for c in &refusal.candidates {
                    eprintln!(
                        "  candidate '{}' at {},{} {}x{} score {:.2}",
                        c.text, c.rect.x, c.rect.y, c.rect.w, c.rect.h, c.score
                    );
                }
            }
            Ok(ExitCode::from(1))
        }
    }
}
