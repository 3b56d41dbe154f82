use crate::{repo_root, wait_for};
use anyhow::{bail, Context, Result};
use mend_model::Rect;
use serde::Deserialize;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// One control from the practice app's `--dump-geometry` file (screen pixels). Tests only:
/// Mend itself never reads this.
#[derive(Debug, Clone, Deserialize)]
pub struct Control {
    pub label: String,
    pub role: String,
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Control {
    pub fn rect(&self) -> Rect {
        Rect::new(self.x, self.y, self.w, self.h)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct WindowGeom {
    pub title: String,
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Dialog {
    pub title: String,
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
    #[serde(default)]
    pub controls: Vec<Control>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Geometry {
    pub screen: String,
    pub window: WindowGeom,
    #[serde(default)]
    pub controls: Vec<Control>,
    #[serde(default)]
    pub dialogs: Vec<Dialog>,
}

impl Geometry {
    pub fn control(&self, label: &str) -> Option<&Control> {
        self.controls.iter().find(|c| c.label == label)
    }
}

/// The practice app, started with its own ledger and geometry file; killed on drop.
pub struct App {
    child: Child,
    pub dir: tempfile::TempDir,
    pub ledger: PathBuf,
    pub geometry: PathBuf,
    pub title: String,
}

impl App {
    /// Start `customer-desk` and wait until it shows `screen` (login, main, record).
    pub fn start(lang: &str, variants: &[&str], screen: &str) -> Result<App> {
        let dir = tempfile::tempdir()?;
        let ledger = dir.path().join("ledger.jsonl");
        let geometry = dir.path().join("geometry.json");
        let exe = repo_root().join("fixtures/legacy-app/customer-desk");
        let mut cmd = Command::new(&exe);
        cmd.args(["--lang", lang, "--screen", screen, "--seed", "1"])
            .arg("--ledger")
            .arg(&ledger)
            .arg("--dump-geometry")
            .arg(&geometry)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if !variants.is_empty() {
            cmd.args(["--variant", &variants.join(",")]);
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("start {}", exe.display()))?;
        let title = if lang == "zh" {
            "客户管理系统"
        } else {
            "Customer Desk"
        }
        .to_string();
        let app = App {
            child,
            dir,
            ledger,
            geometry,
            title,
        };
        if app.wait_screen(screen, Duration::from_secs(45)).is_none() {
            bail!("the practice app did not show its {screen} screen within 45 s");
        }
        Ok(app)
    }

    /// The current geometry dump, if readable.
    pub fn geometry(&self) -> Option<Geometry> {
        let s = std::fs::read_to_string(&self.geometry).ok()?;
        serde_json::from_str(&s).ok()
    }

    pub fn wait_screen(&self, screen: &str, timeout: Duration) -> Option<Geometry> {
        wait_for(timeout, || self.geometry().filter(|g| g.screen == screen))
    }

    /// Ledger lines so far, parsed.
    pub fn ledger(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.ledger)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    pub fn wait_ledger(&self, n: usize, timeout: Duration) -> Option<Vec<serde_json::Value>> {
        wait_for(timeout, || Some(self.ledger()).filter(|l| l.len() >= n))
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
