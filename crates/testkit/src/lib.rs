//! A real desktop for tests, with no mocks: every test process gets its own Xvfb (the server
//! picks a free display through `-displayfd`) with openbox on it, so desktop tests run in
//! parallel under nextest (one process per test) without sharing focus or the pointer.
//! `DISPLAY` is set for the calling process: xcap and enigo read it.

mod app;
pub mod pg;
pub mod real;

pub use app::{App, Control, Geometry};

use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The repository root (for fixtures).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// Make PP-OCR available to this process and the `mend` it starts: `MEND_ORT_DYLIB` and
/// `MEND_PPOCR_DIR` as the test command exports them, else from `scripts/ppocr.sh`'s
/// `ensure_ppocr` (PyPI wheels into ~/.cache/mend/ppocr; at once when already there).
pub fn ensure_ppocr() -> anyhow::Result<()> {
    use anyhow::Context;
    if std::env::var_os("MEND_ORT_DYLIB").is_some() && std::env::var_os("MEND_PPOCR_DIR").is_some()
    {
        return Ok(());
    }
    let script = repo_root().join("scripts/ppocr.sh");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && ensure_ppocr >&2 && printf '%s\\n%s\\n' \"$MEND_ORT_DYLIB\" \"$MEND_PPOCR_DIR\"",
            script.display()
        ))
        .output()
        .context("run scripts/ppocr.sh")?;
    anyhow::ensure!(
        out.status.success(),
        "ensure_ppocr failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let (Some(dylib), Some(dir)) = (lines.next(), lines.next()) else {
        anyhow::bail!("ensure_ppocr printed no paths");
    };
    // SAFETY: set before any thread of the test reads the environment (nextest runs each test
    // in a process of its own).
    unsafe {
        std::env::set_var("MEND_ORT_DYLIB", dylib);
        std::env::set_var("MEND_PPOCR_DIR", dir);
    }
    Ok(())
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

/// How long [`Desktop::start`] may take in all: the X server, then the window manager (up to
/// two attempts). A loaded machine (a parallel build, many desktop tests at once) can need most
/// of it; an idle one needs well under a second.
pub const DESKTOP_START_BOUND: Duration = Duration::from_secs(60);

/// How many times a window manager is started before a desktop gives up.
const WM_ATTEMPTS: u32 = 4;

/// An X server and a window manager, killed on drop. A window manager that exits while the
/// desktop lives is started again by a watchdog thread (openbox has been seen to exit under
/// load; a test must not then wait for a window nobody maps).
pub struct Desktop {
    pub display: String,
    xvfb: Child,
    wm: Arc<Mutex<Child>>,
    stop: Arc<AtomicBool>,
    watchdog: Option<std::thread::JoinHandle<()>>,
}

impl Desktop {
    /// 1280×800×24, the size the benchmarks and screenshots assume. Waits for the X server's
    /// own readiness (`-displayfd`), then for openbox; an openbox that does not come up (or
    /// exits) is killed and started again, four starts at most. Fails only if that all takes longer than
    /// [`DESKTOP_START_BOUND`].
    pub fn start() -> Result<Desktop> {
        Desktop::start_with(&[])
    }

    /// [`Desktop::start`] with more Xvfb arguments (e.g. `-extension DAMAGE`: a server
    /// without it).
    pub fn start_with(xvfb_args: &[&str]) -> Result<Desktop> {
        let deadline = Instant::now() + DESKTOP_START_BOUND;
        let (mut xvfb, display) = start_xvfb(deadline, xvfb_args)?;
        let wm = match start_wm(&display, deadline, || openbox(&display)) {
            Ok(wm) => Arc::new(Mutex::new(wm)),
            Err(e) => {
                stop(&mut xvfb);
                return Err(e);
            }
        };
        let stop_flag = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let (wm, stop_flag, display) = (wm.clone(), stop_flag.clone(), display.clone());
            std::thread::spawn(move || keep_wm(&display, &wm, &stop_flag))
        };
        // SAFETY of set_var: nextest runs each test in its own process, and this is called
        // before any thread of the test talks to X.
        std::env::set_var("DISPLAY", &display);
        Ok(Desktop {
            display,
            xvfb,
            wm,
            stop: stop_flag,
            watchdog: Some(watchdog),
        })
    }

    /// The window manager's process id now (it changes when the watchdog restarts it).
    pub fn wm_pid(&self) -> u32 {
        self.wm.lock().unwrap_or_else(|e| e.into_inner()).id()
    }
}

fn openbox(display: &str) -> Result<Child> {
    Command::new("openbox")
        .args(["--sm-disable"])
        .env("DISPLAY", display)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("start openbox (install the openbox package)")
}

/// The watchdog: every 100 ms, if the window manager has exited, start it again (as at
/// start, several attempts within [`DESKTOP_START_BOUND`]).
fn keep_wm(display: &str, wm: &Mutex<Child>, stop_flag: &AtomicBool) {
    while !stop_flag.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
        let mut child = wm.lock().unwrap_or_else(|e| e.into_inner());
        if stop_flag.load(Ordering::SeqCst) || !matches!(child.try_wait(), Ok(Some(_))) {
            continue;
        }
        eprintln!("mend-testkit: the window manager on {display} exited; starting it again");
        match start_wm(display, Instant::now() + DESKTOP_START_BOUND, || {
            openbox(display)
        }) {
            Ok(new) => *child = new,
            Err(e) => {
                eprintln!("mend-testkit: {e:#}");
                return;
            }
        }
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(w) = self.watchdog.take() {
            let _ = w.join();
        }
        stop(&mut self.wm.lock().unwrap_or_else(|e| e.into_inner()));
        stop(&mut self.xvfb);
    }
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Start Xvfb on a display it picks itself. It writes the display's number to `-displayfd`
/// once it accepts connections, so reading that number is waiting for its readiness; the read
/// runs on a thread so that a server that never gets there fails at `deadline` instead of
/// hanging the test.
fn start_xvfb(deadline: Instant, more: &[&str]) -> Result<(Child, String)> {
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
        .args(more)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("start Xvfb (install the xvfb package)")?;
    let out = xvfb.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(out).read_line(&mut line).map(|_| line);
        let _ = tx.send(read);
    });
    let line = match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(line)) => line,
        Ok(Err(e)) => {
            stop(&mut xvfb);
            return Err(e).context("read the display number from Xvfb");
        }
        Err(_) => {
            stop(&mut xvfb);
            bail!(
                "Xvfb did not report a display within {} s (is the machine overloaded?)",
                DESKTOP_START_BOUND.as_secs()
            );
        }
    };
    match line.trim().parse::<u32>() {
        Ok(n) => Ok((xvfb, format!(":{n}"))),
        Err(_) => {
            stop(&mut xvfb);
            bail!(
                "Xvfb printed '{}' instead of a display number (did it exit?)",
                line.trim()
            )
        }
    }
}

/// The window manager is up when the root window's supporting-WM property names a window that
/// exists (a window manager that died leaves the property behind, naming a destroyed window).
fn wm_is_up(display: &str) -> bool {
    let prop = |args: &[&str]| {
        Command::new("xprop")
            .args(args)
            .arg("_NET_SUPPORTING_WM_CHECK")
            .env("DISPLAY", display)
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let Some(root) = prop(&["-root"]) else {
        return false;
    };
    let Some(id) = root.split("window id # ").nth(1).map(str::trim) else {
        return false;
    };
    prop(&["-id", id]).is_some_and(|w| w.contains("window id"))
}

/// Start a window manager with `spawn` and wait until it is up on `display`. If it is not up
/// within its share of the time left (a third, then half; or it exits first), kill it and start
/// it again: at most [`WM_ATTEMPTS`] starts, the last getting the rest of the time up to
/// `deadline`. (Under load openbox itself now and then exits at start: seen in CI with 8
/// desktops starting at once.)
fn start_wm(
    display: &str,
    deadline: Instant,
    mut spawn: impl FnMut() -> Result<Child>,
) -> Result<Child> {
    let started = Instant::now();
    let mut why = "did not come up";
    for attempt in 1..=WM_ATTEMPTS {
        let mut wm = spawn()?;
        let left = deadline.saturating_duration_since(Instant::now());
        let until = left / (WM_ATTEMPTS - attempt + 1);
        let outcome = wait_for(until, || {
            if wm_is_up(display) {
                Some(true)
            } else if matches!(wm.try_wait(), Ok(Some(_))) {
                Some(false)
            } else {
                None
            }
        });
        if outcome == Some(true) {
            return Ok(wm);
        }
        why = if outcome == Some(false) {
            "exited"
        } else {
            "did not come up"
        };
        stop(&mut wm);
        // A short pause before the next start: an openbox that exited at once under load
        // (twice in a row in one CI run) is not started into the same moment again.
        if attempt < WM_ATTEMPTS {
            std::thread::sleep(
                deadline
                    .saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(300)),
            );
        }
    }
    bail!(
        "the window manager {why} on {display}, {WM_ATTEMPTS} times, within {:.1} s (is the machine overloaded?)",
        started.elapsed().as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Whether process `pid` still runs `name` (a reaped pid has no /proc entry).
    fn runs(pid: u32, name: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.contains(&format!("({name})")))
    }

    #[test]
    fn a_desktop_has_a_window_manager_and_goes_away_on_drop() {
        let d = Desktop::start().unwrap();
        assert!(wm_is_up(&d.display));
        assert_eq!(std::env::var("DISPLAY").unwrap(), d.display);
        let (xvfb, wm) = (d.xvfb.id(), d.wm_pid());
        assert!(runs(xvfb, "Xvfb") && runs(wm, "openbox"));
        drop(d);
        assert!(!runs(xvfb, "Xvfb"), "Xvfb outlived its Desktop");
        assert!(!runs(wm, "openbox"), "openbox outlived its Desktop");
    }

    #[test]
    fn a_window_manager_that_dies_while_the_desktop_lives_is_started_again() {
        let d = Desktop::start().unwrap();
        let first = d.wm_pid();
        Command::new("kill")
            .args(["-9", &first.to_string()])
            .status()
            .unwrap();
        let again = wait_for(Duration::from_secs(30), || {
            let now = d.wm_pid();
            (now != first && runs(now, "openbox") && wm_is_up(&d.display)).then_some(now)
        });
        let again = again.expect("the watchdog started a new window manager");
        drop(d);
        assert!(
            !runs(again, "openbox"),
            "the restarted openbox outlived its Desktop"
        );
    }

    #[test]
    fn a_window_manager_that_exits_at_start_is_started_again() {
        let deadline = Instant::now() + DESKTOP_START_BOUND;
        let (mut xvfb, display) = start_xvfb(deadline, &[]).unwrap();
        let spawns = Cell::new(0);
        let wm = start_wm(&display, deadline, || {
            spawns.set(spawns.get() + 1);
            let program = if spawns.get() == 1 { "true" } else { "openbox" };
            Ok(Command::new(program)
                .args(["--sm-disable"])
                .env("DISPLAY", &display)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?)
        });
        let up = wm_is_up(&display);
        if let Ok(mut wm) = wm {
            stop(&mut wm);
        }
        stop(&mut xvfb);
        assert!(spawns.get() >= 2, "started again after it exited");
        assert!(up, "no openbox came up after the first exited");
    }

    #[test]
    fn a_window_manager_that_never_comes_up_fails_by_the_deadline_and_is_killed() {
        let (mut xvfb, display) = start_xvfb(Instant::now() + DESKTOP_START_BOUND, &[]).unwrap();
        let bound = Duration::from_secs(3);
        let deadline = Instant::now() + bound;
        let mut pids = Vec::new();
        let err = start_wm(&display, deadline, || {
            let child = Command::new("sleep").arg("600").spawn()?;
            pids.push(child.id());
            Ok(child)
        })
        .unwrap_err();
        let late = Instant::now().saturating_duration_since(deadline);
        stop(&mut xvfb);
        assert_eq!(
            pids.len(),
            WM_ATTEMPTS as usize,
            "as many starts as allowed, not more"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("did not come up") && msg.contains(&display),
            "{msg}"
        );
        assert!(
            late < Duration::from_secs(2),
            "gave up {late:?} after its deadline"
        );
        for pid in pids {
            assert!(
                !runs(pid, "sleep"),
                "the window manager that never came up (pid {pid}) is still running"
            );
        }
    }
}
