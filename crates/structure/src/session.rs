//! A private D-Bus session with the AT-SPI bus launcher, for tests and harnesses.

use crate::StructureError;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A private session bus (`dbus-daemon --session`) plus `at-spi-bus-launcher
/// --launch-immediately` (which starts the a11y bus and the registry). Sets no environment
/// variable of this process; give [`A11ySession::env`] to the children (or use
/// [`A11ySession::apply`]) and connect with [`crate::AtSpi::connect_to`]`(session.bus_address(), ..)`.
/// Dropping it stops the launcher (SIGTERM, it takes its a11y bus down) and the session bus.
pub struct A11ySession {
    bus_address: String,
    runtime_dir: std::path::PathBuf,
    dbus: Child,
    launcher: Child,
}

const LAUNCHER: &str = "/usr/libexec/at-spi-bus-launcher";

/// Starts the session; waits (bounded, 10 s) until `org.a11y.Bus` answers with an address.
pub fn start_a11y_session() -> Result<A11ySession, StructureError> {
    let err = |what: &str, e: std::io::Error| StructureError::Session(format!("{what}: {e}"));
    // The launcher puts its a11y bus socket under $XDG_RUNTIME_DIR/at-spi/: a private one
    // keeps two sessions (or the user's) apart.
    static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let runtime_dir = std::env::temp_dir().join(format!(
        "mend-a11y-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&runtime_dir).map_err(|e| err("runtime dir", e))?;
    let mut dbus = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--nopidfile", "--print-address=1"])
        .env("XDG_RUNTIME_DIR", &runtime_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| err("dbus-daemon", e))?;
    let mut line = String::new();
    let read = BufReader::new(dbus.stdout.take().expect("piped")).read_line(&mut line);
    let bus_address = line.trim().to_string();
    if read.is_err() || bus_address.is_empty() {
        let _ = dbus.kill();
        let _ = dbus.wait();
        let _ = std::fs::remove_dir_all(&runtime_dir);
        return Err(StructureError::Session(
            "dbus-daemon printed no address".into(),
        ));
    }
    let launcher = Command::new(LAUNCHER)
        .arg("--launch-immediately")
        .env("DBUS_SESSION_BUS_ADDRESS", &bus_address)
        .env("XDG_RUNTIME_DIR", &runtime_dir)
        // On the caller's X display when it has one ($DISPLAY): the launcher then also
        // writes the bus's address on its root window (AT_SPI_BUS), where Qt looks first.
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let launcher = match launcher {
        Ok(l) => l,
        Err(e) => {
            let _ = dbus.kill();
            let _ = dbus.wait();
            let _ = std::fs::remove_dir_all(&runtime_dir);
            return Err(err(LAUNCHER, e));
        }
    };
    let s = A11ySession {
        bus_address,
        runtime_dir,
        dbus,
        launcher,
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match crate::AtSpi::connect_to(&s.bus_address, Duration::from_millis(1000)) {
            Ok(Some(_)) => return Ok(s),
            _ if Instant::now() > deadline => {
                return Err(StructureError::Session(
                    "AT-SPI registry did not come up in 10 s".into(),
                ))
            }
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

impl A11ySession {
    /// The private session bus's address.
    pub fn bus_address(&self) -> &str {
        &self.bus_address
    }

    /// Variables for a child process: the session bus address, plus Qt's switches
    /// (`QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1`, `QT_ACCESSIBILITY=1`).
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.bus_address.clone()),
            ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON".into(), "1".into()),
            ("QT_ACCESSIBILITY".into(), "1".into()),
        ]
    }

    /// Puts [`A11ySession::env`] on `cmd` and removes `NO_AT_BRIDGE` and `AT_SPI_BUS_ADDRESS`.
    pub fn apply<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        cmd.envs(self.env())
            .env_remove("NO_AT_BRIDGE")
            .env_remove("AT_SPI_BUS_ADDRESS")
    }
}

impl Drop for A11ySession {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.launcher.id().to_string()])
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.launcher.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.launcher.kill();
        let _ = self.launcher.wait();
        let _ = self.dbus.kill();
        let _ = self.dbus.wait();
        let _ = std::fs::remove_dir_all(&self.runtime_dir);
    }
}
