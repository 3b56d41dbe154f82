//! A throwaway PostgreSQL 15 for a test: `initdb` into a temporary directory, the server on a
//! private loopback port, stopped and removed on drop (a panicking test unwinds through the
//! drop too). Debian's packages only (`postgresql`); nothing is downloaded. `initdb` refuses
//! to run as root, so as root the cluster belongs to `nobody` and every server command runs
//! as that user (`setpriv`).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = "/usr/lib/postgresql/15/bin";

pub struct Postgres {
    dir: tempfile::TempDir,
    pub port: u16,
}

fn is_root() -> bool {
    // SAFETY-free: `id -u` keeps libc out of the testkit's dependencies.
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A server command, as `nobody` when we are root.
fn server_cmd(tool: &str) -> Command {
    let exe = Path::new(BIN).join(tool);
    if is_root() {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "--reset-env",
        ])
        .arg(exe);
        c
    } else {
        Command::new(exe)
    }
}

fn free_port() -> Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

impl Postgres {
    /// A fresh cluster with one superuser `mend` (trust on loopback), started.
    pub fn start() -> Result<Postgres> {
        if !Path::new(BIN).join("initdb").exists() {
            bail!("{BIN}/initdb is missing: install the postgresql package (scripts/lib.sh does)");
        }
        let dir = tempfile::Builder::new().prefix("mend-pg-").tempdir()?;
        if is_root() {
            let ok = Command::new("chown")
                .args(["-R", "nobody:nogroup"])
                .arg(dir.path())
                .status()?
                .success();
            if !ok {
                bail!("chown {} to nobody failed", dir.path().display());
            }
        }
        let data = dir.path().join("data");
        let out = server_cmd("initdb")
            .args(["-A", "trust", "-U", "mend", "-E", "UTF8", "--no-sync", "-D"])
            .arg(&data)
            .stdout(Stdio::null())
            .output()
            .context("run initdb")?;
        if !out.status.success() {
            bail!("initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        let pg = Postgres {
            dir,
            port: free_port()?,
        };
        pg.start_server()?;
        Ok(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn start_server(&self) -> Result<()> {
        let opts = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        let out = server_cmd("pg_ctl")
            .args(["-w", "-t", "60", "-D"])
            .arg(self.data())
            .args(["-l"])
            .arg(self.dir.path().join("server.log"))
            .args(["-o", &opts, "start"])
            .stdout(Stdio::null())
            .output()
            .context("run pg_ctl start")?;
        if !out.status.success() {
            let log =
                std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default();
            bail!(
                "pg_ctl start failed: {}\n{log}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(())
    }

    fn stop_server(&self, mode: &str) -> Result<()> {
        let out = server_cmd("pg_ctl")
            .args(["-w", "-t", "60", "-m", mode, "-D"])
            .arg(self.data())
            .arg("stop")
            .stdout(Stdio::null())
            .output()
            .context("run pg_ctl stop")?;
        if !out.status.success() {
            bail!("pg_ctl stop: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(())
    }

    /// `postgres://mend@127.0.0.1:PORT/postgres`
    pub fn url(&self) -> String {
        format!("postgres://mend@127.0.0.1:{}/postgres", self.port)
    }

    /// Stop the server the hard way (`immediate`: clients cut off, as in a crash) and start it
    /// again on the same port; returns once it accepts connections.
    pub fn restart(&self) -> Result<()> {
        self.stop_server("immediate")?;
        std::thread::sleep(Duration::from_millis(200));
        self.start_server()
    }

    /// The server log so far (for a failing test's message).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.stop_server("immediate");
    }
}
