//! A real desktop for tests, with no mocks: every test process gets its own Xvfb (the server
//! picks a free display through `-displayfd`) with openbox on it, so desktop tests run in
//! parallel under nextest (one process per test) without sharing focus or the pointer.
//! `DISPLAY` is set for the calling process: xcap and enigo read it.

mod app;
pub mod real;

pub use app::{App, Control, Geometry};

use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The repository root (for fixtures).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// Poll `f` every 50 ms until it returns `Some` or `timeout` passes. Tests wait on conditions,
/// never on fixed sleeps.
pub fn wait_for<T>(timeout: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if start.elapsed() > timeout {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An X server and a window manager, killed on drop.
pub struct Desktop {
    pub display: String,
    xvfb: Child,
    wm: Child,
}

impl Desktop {
    /// 1280×800×24, the size the benchmarks and screenshots assume.
    pub fn start() -> Result<Desktop> {
        let mut xvfb = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("start Xvfb (install the xvfb package)")?;
        let mut line = String::new();
        BufReader::new(xvfb.stdout.take().expect("piped"))
            .read_line(&mut line)
            .context("read display number from Xvfb")?;
        let n: u32 = line
            .trim()
            .parse()
            .with_context(|| format!("Xvfb printed '{line}' instead of a display number"))?;
        let display = format!(":{n}");
        let wm = Command::new("openbox")
            .args(["--sm-disable"])
            .env("DISPLAY", &display)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("start openbox")?;
        // The WM is up when it has claimed the root window's supporting-WM property.
        let up = wait_for(Duration::from_secs(30), || {
            let out = Command::new("xprop")
                .args(["-root", "_NET_SUPPORTING_WM_CHECK"])
                .env("DISPLAY", &display)
                .output()
                .ok()?;
            String::from_utf8_lossy(&out.stdout)
                .contains("window id")
                .then_some(())
        });
        // SAFETY of set_var: nextest runs each test in its own process, and this is called
        // before any thread of the test talks to X.
        std::env::set_var("DISPLAY", &display);
        let d = Desktop { display, xvfb, wm };
        if up.is_none() {
            bail!("openbox did not come up on {} within 30 s", d.display);
        }
        Ok(d)
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        let _ = self.wm.kill();
        let _ = self.wm.wait();
        let _ = self.xvfb.kill();
        let _ = self.xvfb.wait();
    }
}
