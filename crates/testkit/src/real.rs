//! Real third-party applications for tests: the corpus in `fixtures/real-apps/`. Each app folder
//! holds `app.toml` (how to start it, which window shows it is up, its looks) and per task a flow
//! `<task>.toml` with its expected effect `<task>.expect.json`. [`RealApp`] starts an app on the
//! current desktop (`DISPLAY`: a private Xvfb + openbox from [`crate::Desktop`]) in one look, waits
//! for its window and stops it on drop; [`run_case`] runs `mend run` on a task and judges the
//! effect from outside the app (files on disk, the Wine registry, a calculator's display read
//! through its own copy command) — never by Mend's word.
//!
//! Verdicts: `completed` (exit 0 and the effect is right), `refused` (exit 1 or 3 with a stable
//! code and no effect), `wrong` (any unintended effect: another value, another file, a setting
//! that should not have changed), `failed` (anything else).

use crate::{repo_root, wait_for};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `fixtures/real-apps`.
pub fn corpus_dir() -> PathBuf {
    repo_root().join("fixtures/real-apps")
}

/// One app of the corpus: `fixtures/real-apps/<name>/app.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    #[serde(default)]
    pub name: String,
    /// "Win32 (Wine 8)", "Athena", "Motif", "GTK 3", "terminal (dialog in xterm)".
    pub toolkit: String,
    /// Runs under Wine: a prefix of its own per case, looks may import registry files.
    #[serde(default)]
    pub wine: bool,
    /// Program and arguments; a look's `args` follow them, then the task's.
    pub command: Vec<String>,
    /// Regex of the title of the window that shows the app is up (`xdotool search --name`).
    pub window: String,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written into the work folder for every task (an app's settings file: name → text).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// In order; the first is the app's default look.
    #[serde(rename = "look")]
    pub looks: Vec<Look>,
}

/// A look imposed from outside: arguments (X resources, `-geometry`, `-fg`), environment
/// (`GDK_SCALE`, `GTK_THEME`), a registry file imported before the start (Wine), a locale.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Look {
    pub name: String,
    #[serde(default)]
    pub about: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The text of a `.reg` file (REGEDIT4), imported with `wine regedit /S`.
    #[serde(default)]
    pub reg: Option<String>,
    /// A locale such as `zh_CN`: built with `localedef` into a folder of the tests' own.
    #[serde(default)]
    pub locale: Option<String>,
    /// Lines appended to the app's (or task's) file of the same name: settings a look changes
    /// (a Swing app's look and feel or font size in its properties file).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

/// A task: `<task>.expect.json` beside the flow `<task>.toml`. In every string, `${work}` is the
/// case's work folder and `${work_win}` the same folder as Wine sees it (`Z:\…`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub about: String,
    /// Appended to the app's command (a file to open, the buttons of a message box).
    #[serde(default)]
    pub args: Vec<String>,
    /// Files written into the work folder before the app starts (name → text).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The window to wait for, when not the app's.
    #[serde(default)]
    pub window: Option<String>,
    /// `--var K=V` for `mend run`.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The app's standard output goes to this file of the work folder (else a log outside it).
    #[serde(default)]
    pub stdout: Option<String>,
    /// A task that must be refused (the control it names is not there; a look-alike is).
    #[serde(default)]
    pub negative: bool,
    #[serde(default)]
    pub timeout_s: Option<u64>,
    pub effect: Effect,
}

/// What the task changes, checked from outside the app.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Effect {
    /// Files of the work folder: `want` maps a file to its text after the task (line ends
    /// normalised, trailing white space ignored); any other file created or changed is wrong,
    /// except names matching an `ignore` suffix (an editor's backup).
    Files {
        #[serde(default)]
        want: BTreeMap<String, String>,
        /// A file the app writes in its own format (a header with its version, a drawing's
        /// settings): done when its lines hold each of these texts, one line after another.
        #[serde(default)]
        contains: BTreeMap<String, Vec<String>>,
        #[serde(default)]
        ignore: Vec<String>,
    },
    /// Wine registry values (`wine reg query KEY /s` on each `watch` key, before and after):
    /// every `want` value must hold its data; a value that changed elsewhere is wrong unless it
    /// is under a `may_change` key (a setting that writes several values together) or its path
    /// contains an `ignore` string (Wine's own caches).
    Reg {
        watch: Vec<String>,
        want: Vec<RegValue>,
        #[serde(default)]
        may_change: Vec<String>,
        #[serde(default)]
        ignore: Vec<String>,
    },
    /// A calculator display, read after the run through the app's own copy command (a click on
    /// the display owns the PRIMARY selection): `want` after the task; any of `partial` (what
    /// the display shows after a prefix of the task's keys) is no effect; anything else is wrong.
    Display {
        want: String,
        #[serde(default)]
        partial: Vec<String>,
    },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegValue {
    pub key: String,
    pub name: String,
    pub data: String,
}

/// Every app of the corpus, by folder name.
pub fn load_apps() -> Result<Vec<AppSpec>> {
    let mut apps = vec![];
    let mut dirs: Vec<_> = std::fs::read_dir(corpus_dir())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("app.toml").exists())
        .collect();
    dirs.sort();
    for d in dirs {
        apps.push(load_app(d.file_name().unwrap().to_str().unwrap())?);
    }
    Ok(apps)
}

pub fn load_app(name: &str) -> Result<AppSpec> {
    let path = corpus_dir().join(name).join("app.toml");
    let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    let mut app: AppSpec = toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
    app.name = name.to_string();
    if app.looks.is_empty() {
        bail!("{}: no [[look]]", path.display());
    }
    Ok(app)
}

impl AppSpec {
    pub fn look(&self, name: &str) -> Result<&Look> {
        self.looks
            .iter()
            .find(|l| l.name == name)
            .with_context(|| format!("{} has no look '{name}'", self.name))
    }

    /// The task names: every `<task>.expect.json` in the app's folder, sorted.
    pub fn tasks(&self) -> Result<Vec<String>> {
        let mut v: Vec<String> = std::fs::read_dir(corpus_dir().join(&self.name))?
            .flatten()
            .filter_map(|e| {
                let n = e.file_name().to_str()?.to_string();
                n.strip_suffix(".expect.json").map(str::to_string)
            })
            .collect();
        v.sort();
        Ok(v)
    }

    pub fn task(&self, name: &str) -> Result<TaskSpec> {
        let path = corpus_dir()
            .join(&self.name)
            .join(format!("{name}.expect.json"));
        let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
        let mut t: TaskSpec =
            serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
        t.name = name.to_string();
        Ok(t)
    }

    pub fn flow(&self, task: &str) -> PathBuf {
        corpus_dir().join(&self.name).join(format!("{task}.toml"))
    }
}

/// Where the tests keep what they build once per machine (a Wine prefix, locales) and the
/// cases' folders: `<cargo target dir>/real-apps`.
pub fn scratch_dir() -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            // target/<profile>/deps/<test binary>
            std::env::current_exe()
                .ok()?
                .ancestors()
                .nth(3)
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(std::env::temp_dir)
        .join("real-apps");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Build `make` into `dir` once: into a temporary sibling, then renamed (a concurrent test
/// that loses the race throws its copy away).
fn build_once(dir: &Path, make: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    if dir.join(".complete").exists() {
        return Ok(());
    }
    let tmp = dir.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    make(&tmp)?;
    std::fs::write(tmp.join(".complete"), "")?;
    if std::fs::rename(&tmp, dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.join(".complete").exists() {
            bail!("could not put {} in place", dir.display());
        }
    }
    Ok(())
}

fn wine_version() -> String {
    Command::new("wine")
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .replace(['/', ' '], "_")
        })
        .unwrap_or_else(|_| "wine".into())
}

/// A Wine prefix built offline once per Wine version (`wineboot -i` without Mono and Gecko,
/// ~10 s), under the target directory.
fn wine_base() -> Result<PathBuf> {
    let dir = scratch_dir().join(format!("wine-base-{}", wine_version()));
    build_once(&dir, |tmp| {
        let pfx = tmp.join("pfx");
        let st = Command::new("wineboot")
            .arg("-i")
            .env("WINEPREFIX", &pfx)
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
            .env("WINEDEBUG", "-all")
            .env_remove("DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .context("wineboot (install the wine package)")?;
        let _ = Command::new("wineserver")
            .arg("-w")
            .env("WINEPREFIX", &pfx)
            .status();
        if !st.success() || !pfx.join("system.reg").exists() {
            bail!("wineboot -i failed ({st})");
        }
        Ok(())
    })?;
    Ok(dir.join("pfx"))
}

/// A prefix of the case's own: the base's files hard-linked, its registry files copied (Wine
/// rewrites them).
fn wine_prefix(at: &Path) -> Result<()> {
    let base = wine_base()?;
    let st = Command::new("cp").arg("-al").arg(&base).arg(at).status()?;
    if !st.success() {
        bail!("cp -al {} {}", base.display(), at.display());
    }
    for f in ["system.reg", "user.reg", "userdef.reg"] {
        let _ = std::fs::remove_file(at.join(f));
        std::fs::copy(base.join(f), at.join(f))?;
    }
    Ok(())
}

/// `LOCPATH` holding `<locale>.UTF-8`, built with `localedef` once (no root locales needed).
fn locale_dir(locale: &str) -> Result<PathBuf> {
    let dir = scratch_dir().join(format!("locale-{locale}"));
    build_once(&dir, |tmp| {
        let st = Command::new("localedef")
            .args(["-i", locale, "-f", "UTF-8"])
            .arg(tmp.join(format!("{locale}.UTF-8")))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .context("localedef (install the locales package)")?;
        // localedef exits 1 on warnings; the locale is usable when its folder is there.
        if !tmp.join(format!("{locale}.UTF-8/LC_CTYPE")).exists() {
            bail!("localedef -i {locale} failed ({st})");
        }
        Ok(())
    })?;
    Ok(dir)
}

pub fn expand(s: &str, work: &Path) -> String {
    let w = work.display().to_string();
    s.replace("${work_win}", &format!("Z:{}", w.replace('/', "\\")))
        .replace("${work}", &w)
}

/// The first visible window whose title matches `regex` (WM_NAME or _NET_WM_NAME), as a
/// decimal id. Looked up afresh each time: Wine reuses window ids between runs.
pub fn find_window(regex: &str) -> Option<String> {
    search_window(&["--onlyvisible", "--name", regex])
}

fn search_window(args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool")
        .arg("search")
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(str::to_string)
}

/// The first window, mapped or not, whose title matches `regex`.
fn find_any_window(regex: &str) -> Option<String> {
    search_window(&["--name", regex])
}

/// Every window's id and title (WM_NAME / _NET_WM_NAME), for error messages.
fn window_names() -> Vec<String> {
    let out = Command::new("xdotool")
        .args(["search", "--name", "."])
        .stderr(Stdio::null())
        .output();
    out.map(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|id| {
                let name = Command::new("xdotool")
                    .args(["getwindowname", id])
                    .stderr(Stdio::null())
                    .output()
                    .map(|n| String::from_utf8_lossy(&n.stdout).trim().to_string())
                    .unwrap_or_default();
                format!("{id} {name}")
            })
            .collect()
    })
    .unwrap_or_default()
}

/// A real app on the current desktop, in one look; stopped on drop (its process group, and
/// the Wine server of its prefix).
pub struct RealApp {
    child: Child,
    pub work: PathBuf,
    pub window_id: String,
    prefix: Option<PathBuf>,
    env: Vec<(String, String)>,
}

impl RealApp {
    /// Start `app` in `look` for `task` with its files in `case/work`; wait (≤ 60 s) until its
    /// window is up.
    pub fn start(app: &AppSpec, look: &Look, task: &TaskSpec, case: &Path) -> Result<RealApp> {
        let work = case.join("work");
        std::fs::create_dir_all(&work)?;
        // The app's files, then the task's, then the look's lines appended to either.
        let mut files: BTreeMap<&String, String> = BTreeMap::new();
        for (name, text) in app.files.iter().chain(&task.files).chain(&look.files) {
            files
                .entry(name)
                .or_default()
                .push_str(&expand(text, &work));
        }
        for (name, text) in files {
            let path = work.join(name);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, text)?;
        }
        // A fresh user's settings for each case: what one case ticks (saved through the session
        // bus into dconf) must not be the next case's starting state.
        let config = case.join("config");
        std::fs::create_dir_all(&config)?;
        let mut env: Vec<(String, String)> =
            vec![("XDG_CONFIG_HOME".to_string(), config.display().to_string())];
        env.extend(
            app.env
                .iter()
                .chain(&look.env)
                .map(|(k, v)| (k.clone(), expand(v, &work))),
        );
        // On a desktop with an accessibility bus (a test that started one: `TREE_BUS`), the
        // app joins that session bus with its toolkit's bridge on, as on a desktop where a
        // screen reader runs: GTK's atk-bridge (GTK 2 through its modules), Qt's own bridge
        // (off unless asked), Java's ATK wrapper.
        let tree_bus = std::env::var(TREE_BUS).ok().filter(|b| !b.is_empty());
        if let Some(bus) = &tree_bus {
            env.retain(|(k, _)| k != "NO_AT_BRIDGE");
            env.push(("DBUS_SESSION_BUS_ADDRESS".into(), bus.clone()));
            env.push(("QT_LINUX_ACCESSIBILITY_ALWAYS_ON".into(), "1".into()));
            env.push(("QT_ACCESSIBILITY".into(), "1".into()));
            env.push(("GTK_MODULES".into(), "gail:atk-bridge".into()));
            // Java finds no assistive technology unless named (Debian ships
            // accessibility.properties with it commented out); the wrapper's jar goes on the
            // boot class path, as `-jar` launchers ignore `-cp`.
            let java = "-Xbootclasspath/a:/usr/share/java/java-atk-wrapper.jar \
                        -Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper";
            match env.iter_mut().find(|(k, _)| k == "JAVA_TOOL_OPTIONS") {
                Some((_, v)) => *v = format!("{v} {java}"),
                None => env.push(("JAVA_TOOL_OPTIONS".into(), java.into())),
            }
        }
        if let Some(loc) = &look.locale {
            let dir = locale_dir(loc)?;
            let name = format!("{loc}.UTF-8");
            env.push(("LOCPATH".into(), dir.display().to_string()));
            env.push(("LANG".into(), name.clone()));
            env.push(("LC_ALL".into(), name));
            env.push(("LANGUAGE".into(), loc.clone()));
        }
        let mut prefix = None;
        if app.wine {
            let pfx = case.join("pfx");
            wine_prefix(&pfx)?;
            env.push(("WINEPREFIX".into(), pfx.display().to_string()));
            env.push(("WINEDEBUG".into(), "-all".into()));
            env.push(("WINEDLLOVERRIDES".into(), "mscoree,mshtml=".into()));
            prefix = Some(pfx);
        }
        let log = std::fs::File::create(case.join("app.log"))?;
        let with_env = |prog: &str| {
            let mut c = Command::new(prog);
            c.envs(env.iter().map(|(k, v)| (k, v)));
            c
        };
        if let Some(reg) = &look.reg {
            let f = case.join(format!("{}.reg", look.name));
            std::fs::write(&f, reg)?;
            let st = with_env("wine")
                .args(["regedit", "/S"])
                .arg(&f)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()?;
            if !st.success() {
                bail!("wine regedit /S {} failed", f.display());
            }
        }
        let stdout = match &task.stdout {
            Some(name) => std::fs::File::create(work.join(name))?,
            None => log.try_clone()?,
        };
        let (prog, base_args) = app.command.split_first().context("empty command")?;
        // On its own session bus, as on any desktop: GTK binds its settings through it, and
        // without one a check box bound to a setting reverts at once (mousepad's "Replace all
        // in:" would not stay ticked, and Mend rightly refused with CHECK_NOT_SET).
        let mut cmd = match &tree_bus {
            // The desktop's session bus, where the accessibility bus is.
            Some(_) => with_env(prog),
            None => {
                let mut c = with_env("dbus-run-session");
                c.arg("--").arg(prog);
                c
            }
        };
        cmd.args(base_args.iter().map(|a| expand(a, &work)))
            .args(&look.args)
            .args(task.args.iter().map(|a| expand(a, &work)))
            .current_dir(&work)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(log)
            .process_group(0);
        let child = cmd
            .spawn()
            .with_context(|| format!("start {prog} (is its package installed?)"))?;
        let mut me = RealApp {
            child,
            work,
            window_id: String::new(),
            prefix,
            env,
        };
        let title = task.window.as_deref().unwrap_or(&app.window);
        let timeout = Duration::from_secs(if app.wine { 90 } else { 45 });
        // A map request the window manager never answered (it died holding it; the desktop's
        // watchdog restarts it, but a new one only manages windows already mapped) leaves the
        // window unmapped for good: after 5 s it is asked to map again.
        let started = Instant::now();
        let mut remapped = false;
        match wait_for(timeout, || {
            let found = find_window(title);
            if found.is_none() && !remapped && started.elapsed() > Duration::from_secs(5) {
                if let Some(id) = find_any_window(title) {
                    eprintln!(
                        "mend-testkit: window {id} /{title}/ is still unmapped; mapping it again"
                    );
                    let _ = Command::new("xdotool").args(["windowmap", &id]).status();
                    remapped = true;
                }
            }
            found
        }) {
            Some(id) => me.window_id = id,
            None => bail!(
                "{} ({}) showed no window titled /{title}/ within {timeout:?} (process {}; \
                 windows: {:?}); its log: {}",
                app.name,
                look.name,
                if me.running() { "running" } else { "gone" },
                window_names(),
                std::fs::read_to_string(case.join("app.log"))
                    .unwrap_or_default()
                    .chars()
                    .rev()
                    .take(600)
                    .collect::<String>()
                    .chars()
                    .rev()
                    .collect::<String>()
            ),
        }
        // A window is mapped before its first paint: wait until two captures 300 ms apart agree.
        let mut last = None;
        wait_for(Duration::from_secs(10), || {
            std::thread::sleep(Duration::from_millis(250));
            let shot = Command::new("xwd")
                .args(["-silent", "-id", &me.window_id])
                .output()
                .ok()
                .map(|o| o.stdout);
            let same = shot.is_some() && shot == last;
            last = shot;
            same.then_some(())
        });
        Ok(me)
    }

    /// A command with the app's environment (its Wine prefix, locale, …).
    pub fn command(&self, prog: &str) -> Command {
        let mut c = Command::new(prog);
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Whether the app's own process is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// `KEY\name` → `TYPE data` for every value under `keys` (`wine reg query KEY /s`).
    pub fn reg_snapshot(&self, keys: &[String]) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        for k in keys {
            let Ok(out) = self
                .command("wine")
                .args(["reg", "query", k, "/s"])
                .output()
            else {
                continue;
            };
            let mut key = String::new();
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let line = line.trim_end_matches('\r');
                if line.starts_with("HKEY_") {
                    key = line.to_string();
                } else if let Some(rest) = line.strip_prefix("    ") {
                    let parts: Vec<&str> = rest.splitn(3, "    ").collect();
                    if parts.len() >= 2 {
                        let data = parts.get(2).copied().unwrap_or("");
                        m.insert(
                            format!("{key}\\{}", parts[0]),
                            format!("{} {data}", parts[1]),
                        );
                    }
                }
            }
        }
        m
    }
}

impl Drop for RealApp {
    fn drop(&mut self) {
        let pgid = self.child.id().to_string();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        if self.prefix.is_some() {
            let _ = self.command("wineserver").arg("-k").status();
        }
    }
}

/// The state of the effect after a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectState {
    /// Exactly the intended effect.
    Done,
    /// Nothing happened (or only a harmless part, e.g. keys that were right so far).
    None,
    /// Something the task did not intend.
    Wrong,
    /// The effect could not be read (the app died, the display did not answer).
    Unreadable,
}

fn norm(s: &str) -> String {
    s.replace("\r\n", "\n").trim_end().to_string()
}

/// The work folder's files by relative name → text. A gzip file (a spreadsheet's own format) is
/// read unpacked; with `dirs`, each folder is an entry too (`name/` → empty), for a task whose
/// effect is a folder.
fn files_snapshot(dir: &Path, dirs: bool) -> BTreeMap<String, String> {
    fn text(bytes: Vec<u8>) -> String {
        let mut unpacked = vec![];
        if bytes.starts_with(&[0x1f, 0x8b])
            && std::io::Read::read_to_end(
                &mut flate2::read::GzDecoder::new(&bytes[..]),
                &mut unpacked,
            )
            .is_ok()
        {
            return String::from_utf8_lossy(&unpacked).into_owned();
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
    fn walk(root: &Path, dir: &Path, dirs: bool, m: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            if p.is_dir() {
                if dirs {
                    m.insert(format!("{rel}/"), String::new());
                }
                walk(root, &p, dirs, m);
            } else if let Ok(bytes) = std::fs::read(&p) {
                m.insert(rel, text(bytes));
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(dir, dir, dirs, &mut m);
    m
}

/// Whether a files effect names a folder (`name/`), so the snapshots list folders.
fn wants_dirs(effect: &Effect) -> bool {
    match effect {
        Effect::Files { want, contains, .. } => {
            want.keys().chain(contains.keys()).any(|k| k.ends_with('/'))
        }
        _ => false,
    }
}

/// What the judge saw before the run (files, registry).
enum Before {
    Files(BTreeMap<String, String>),
    Reg(BTreeMap<String, String>),
    Nothing,
}

fn snapshot(app: &RealApp, effect: &Effect) -> Before {
    match effect {
        Effect::Files { .. } => Before::Files(files_snapshot(&app.work, wants_dirs(effect))),
        Effect::Reg { watch, .. } => Before::Reg(app.reg_snapshot(watch)),
        Effect::Display { .. } => Before::Nothing,
    }
}

/// Judge the effect: its state and, for anything not done, why.
fn judge_effect(app: &mut RealApp, effect: &Effect, before: &Before) -> (EffectState, Vec<String>) {
    match (effect, before) {
        (
            Effect::Files {
                want,
                contains,
                ignore,
            },
            Before::Files(b),
        ) => judge_files(
            want,
            contains,
            ignore,
            b,
            &files_snapshot(&app.work, wants_dirs(effect)),
        ),
        (
            Effect::Reg {
                watch,
                want,
                may_change,
                ignore,
            },
            Before::Reg(b),
        ) => {
            let a = app.reg_snapshot(watch);
            if a.is_empty() {
                return (
                    EffectState::Unreadable,
                    vec!["wine reg query read nothing".into()],
                );
            }
            judge_reg(want, may_change, ignore, b, &a)
        }
        (Effect::Display { want, partial }, _) => judge_display(want, partial, read_display(app)),
        _ => (EffectState::Unreadable, vec!["no snapshot".into()]),
    }
}

/// Files before → after: each wanted file holds its text (done) or is as it was (none);
/// anything else, and any other file written or removed, is wrong.
fn judge_files(
    want: &BTreeMap<String, String>,
    contains: &BTreeMap<String, Vec<String>>,
    ignore: &[String],
    b: &BTreeMap<String, String>,
    a: &BTreeMap<String, String>,
) -> (EffectState, Vec<String>) {
    let mut why = vec![];
    let (mut done, mut none) = (0, 0);
    for (name, text) in want {
        let got = a.get(name).map(|s| norm(s));
        if got.as_deref() == Some(&norm(text)) {
            done += 1;
        } else if a.get(name) == b.get(name) {
            none += 1;
        } else {
            why.push(format!("{name} holds {:?}", got.unwrap_or_default()));
        }
    }
    for (name, lines) in contains {
        let got = a.get(name).map(|s| norm(s)).unwrap_or_default();
        let mut rest = got.lines().map(str::trim);
        if a.contains_key(name) && lines.iter().all(|l| rest.any(|g| g.contains(l.trim()))) {
            done += 1;
        } else if a.get(name) == b.get(name) {
            none += 1;
        } else {
            let head: String = got.chars().take(300).collect();
            why.push(format!("{name} lacks a wanted line: {head:?}"));
        }
    }
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for name in names {
        if want.contains_key(name)
            || contains.contains_key(name)
            || ignore.iter().any(|s| name.ends_with(s.as_str()))
        {
            continue;
        }
        if a.get(name) != b.get(name) {
            why.push(match a.get(name) {
                Some(t) => format!("{name} written: {:?}", norm(t)),
                None => format!("{name} removed"),
            });
        }
    }
    state(why, done, none, want.len() + contains.len())
}

/// Registry values before → after (`KEY\name` → `TYPE data`).
fn judge_reg(
    want: &[RegValue],
    may_change: &[String],
    ignore: &[String],
    b: &BTreeMap<String, String>,
    a: &BTreeMap<String, String>,
) -> (EffectState, Vec<String>) {
    let mut why = vec![];
    let (mut done, mut none) = (0, 0);
    let mut wanted = vec![];
    for w in want {
        let path = format!("{}\\{}", w.key, w.name);
        let got = a.get(&path).cloned();
        let data = got
            .as_deref()
            .map(|g| g.split_once(' ').map(|x| x.1).unwrap_or(""));
        if data == Some(w.data.as_str()) {
            done += 1;
        } else if got == b.get(&path).cloned() {
            none += 1;
        } else {
            why.push(format!("{path} = {:?}", got.unwrap_or_default()));
        }
        wanted.push(path.to_lowercase());
    }
    let paths: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for path in paths {
        let lower = path.to_lowercase();
        if a.get(path) == b.get(path)
            || wanted.contains(&lower)
            || ignore.iter().any(|i| lower.contains(&i.to_lowercase()))
        {
            continue;
        }
        // Values written together with the wanted one (only when it was written right).
        if done == want.len()
            && may_change
                .iter()
                .any(|k| lower.starts_with(&format!("{}\\", k.to_lowercase())))
        {
            continue;
        }
        why.push(format!(
            "{path}: {:?} → {:?}",
            b.get(path).cloned().unwrap_or_default(),
            a.get(path).cloned().unwrap_or_default()
        ));
    }
    state(why, done, none, want.len())
}

/// A display read after the run: the wanted value, a harmless partial one, or wrong.
fn judge_display(
    want: &str,
    partial: &[String],
    read: Option<String>,
) -> (EffectState, Vec<String>) {
    match read {
        None => (
            EffectState::Unreadable,
            vec!["the display's copy gave nothing".into()],
        ),
        Some(v) if v == want => (EffectState::Done, vec![]),
        Some(v) if partial.contains(&v) => (EffectState::None, vec![format!("display {v}")]),
        Some(v) => (EffectState::Wrong, vec![format!("display shows {v}")]),
    }
}

fn state(why: Vec<String>, done: usize, none: usize, n: usize) -> (EffectState, Vec<String>) {
    if !why.is_empty() {
        (EffectState::Wrong, why)
    } else if n == 0 || none == n {
        (EffectState::None, why)
    } else if done == n {
        (EffectState::Done, why)
    } else {
        // A part of the intended effect and nothing else: what the steps before a stop did
        // (git gui's staging, its first two steps, before the commit's message was refused),
        // as a display showing the keys right so far. A value written wrong or any other
        // change is in `why` above: wrong.
        (
            EffectState::None,
            vec![format!("{done} of {n} intended changes, nothing else")],
        )
    }
}

/// The display of a calculator whose widgets are X windows (Athena): the widest leaf window
/// of the app's tree. A click there is the app's own copy command (it takes the PRIMARY
/// selection); the selection is then read with `xsel`.
pub fn read_display(app: &mut RealApp) -> Option<String> {
    if !app.running() {
        return None;
    }
    let id = app.window_id.clone();
    let out = Command::new("xwininfo")
        .args(["-id", &id, "-tree"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // Lines like "   0xe0005e (has no name): ()  186x25+25+2  +933+210", indented by depth.
    let mut wins: Vec<(usize, i32, i32, i32, i32)> = vec![];
    for line in text.lines() {
        let t = line.trim_start();
        if !t.starts_with("0x") {
            continue;
        }
        let indent = line.len() - t.len();
        let toks: Vec<&str> = t.split_whitespace().collect();
        let n = toks.len();
        if n < 2 {
            continue;
        }
        let (geom, abs) = (toks[n - 2], toks[n - 1]);
        let Some((wh, _)) = geom.split_once('+') else {
            continue;
        };
        let Some((w, h)) = wh.split_once('x') else {
            continue;
        };
        let mut xy = abs.trim_start_matches('+').splitn(2, '+');
        let (Some(x), Some(y)) = (xy.next(), xy.next()) else {
            continue;
        };
        let (Ok(w), Ok(h), Ok(x), Ok(y)) = (w.parse(), h.parse(), x.parse(), y.parse()) else {
            continue;
        };
        wins.push((indent, w, h, x, y));
    }
    let leaf = |i: usize| wins.get(i + 1).is_none_or(|n| n.0 <= wins[i].0);
    let best = (0..wins.len())
        .filter(|&i| leaf(i))
        .max_by_key(|&i| wins[i].1)?;
    let (_, w, h, x, y) = wins[best];
    let _ = Command::new("xdotool")
        .args([
            "mousemove",
            &(x + w / 2).to_string(),
            &(y + h / 2).to_string(),
        ])
        .args(["click", "1"])
        .status();
    wait_for(Duration::from_secs(3), || {
        let out = Command::new("xsel").args(["-p", "-o"]).output().ok()?;
        let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (!v.is_empty()).then_some(v)
    })
}

/// One step of `mend run --json`, as the table needs it.
#[derive(Debug, Clone, Serialize)]
pub struct StepOutcome {
    pub id: String,
    pub status: String,
    pub strategy: Option<String>,
    pub code: Option<String>,
    /// What the runner said about the step (a redo, a step not sent again after a crash).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One case: app × look × task, judged.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub app: String,
    pub toolkit: String,
    pub look: String,
    pub task: String,
    pub negative: bool,
    /// completed | refused | wrong | failed
    pub verdict: String,
    pub exit: Option<i32>,
    pub code: Option<String>,
    pub effect: EffectState,
    pub why: Vec<String>,
    pub wall_s: f64,
    /// How long after `mend run` ended the judge looked last (it looks until the effect is done).
    pub effect_after_ms: u64,
    pub steps: Vec<StepOutcome>,
    pub stderr_tail: String,
}

/// The verdict from the exit code, the refusal code and the effect.
pub fn verdict(
    negative: bool,
    exit: Option<i32>,
    code: Option<&str>,
    effect: EffectState,
) -> &'static str {
    let coded = matches!(exit, Some(1) | Some(3)) && code.is_some_and(|c| !c.is_empty());
    match effect {
        EffectState::Wrong => "wrong",
        EffectState::Unreadable => "failed",
        EffectState::None if coded => "refused",
        EffectState::Done if !negative && exit == Some(0) => "completed",
        _ => "failed",
    }
}

/// The variable a test sets to the session bus of its accessibility session
/// (`mend_structure::start_a11y_session`): real apps then join it with their bridges on, and
/// `mend` (which inherits the test's environment, `DBUS_SESSION_BUS_ADDRESS` included) reads
/// their trees.
pub const TREE_BUS: &str = "MEND_TESTKIT_TREE_BUS";

/// Put this test process (and so every app and `mend` it starts) on the accessibility session
/// at `bus`: [`TREE_BUS`] and `DBUS_SESSION_BUS_ADDRESS`. Call it before anything starts: it
/// sets the environment of a process that nextest runs for this test alone.
pub fn join_tree_bus(bus: &str) {
    // SAFETY: nextest runs each test in a process of its own; called before other threads.
    unsafe {
        std::env::set_var(TREE_BUS, bus);
        std::env::set_var("DBUS_SESSION_BUS_ADDRESS", bus);
    }
}

/// Start `app` in `look`, run `mend run` on `task`'s flow (killed after the task's timeout,
/// default 240 s), judge the effect from outside, stop the app. The desktop must be up.
pub fn run_case(mend: &Path, app: &AppSpec, look: &str, task: &str) -> Result<Outcome> {
    run_case_at(mend, app, look, task, None).map(|(o, _)| o)
}

/// Like [`run_case`], but `mend run` is SIGKILLed `kill_at` after it started, and the run is
/// then finished by `mend resume` (by a fresh `mend run` when the kill came before the run was
/// even recorded). The outcome is the resumed run's; the flag says whether the kill landed
/// mid-run (the run had not finished by itself).
pub fn run_case_killed(
    mend: &Path,
    app: &AppSpec,
    look: &str,
    task: &str,
    kill_at: Duration,
) -> Result<(Outcome, bool)> {
    run_case_at(mend, app, look, task, Some(kill_at))
}

/// Wait for `child` (its own process group) at most `limit`; killed then. Its exit code.
fn wait_limited(child: &mut Child, t0: Instant, limit: Duration) -> Result<Option<i32>> {
    loop {
        if let Some(st) = child.try_wait()? {
            return Ok(st.code());
        }
        if t0.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run_case_at(
    mend: &Path,
    app: &AppSpec,
    look: &str,
    task: &str,
    kill_at: Option<Duration>,
) -> Result<(Outcome, bool)> {
    let look = app.look(look)?;
    let spec = app.task(task)?;
    let case = tempfile::Builder::new()
        .prefix(&format!("{}-{}-{}-", app.name, look.name, task))
        .tempdir_in(scratch_dir())?;
    let mut real = RealApp::start(app, look, &spec, case.path())?;
    let before = snapshot(&real, &spec.effect);
    let db = case.path().join("db");
    let mut cmd = Command::new(mend);
    cmd.arg("run")
        .arg(app.flow(task))
        .arg("--json")
        .arg("--db")
        .arg(&db);
    for (k, v) in &spec.vars {
        cmd.arg("--var")
            .arg(format!("{k}={}", expand(v, &real.work)));
    }
    let out_path = case.path().join("mend.out");
    let err_path = case.path().join("mend.err");
    let limit = Duration::from_secs(spec.timeout_s.unwrap_or(240));
    let t0 = Instant::now();
    let mut killed = false;
    if let Some(at) = kill_at {
        // The run to kill: its output is kept apart; the resumed run's is the case's.
        let mut child = Command::new(mend)
            .args(cmd.get_args())
            .stdout(std::fs::File::create(case.path().join("killed.out"))?)
            .stderr(std::fs::File::create(case.path().join("killed.err"))?)
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .context("run mend")?;
        std::thread::sleep(at);
        killed = child.try_wait()?.is_none();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .status();
        let _ = child.wait();
        let runs = Command::new(mend)
            .args(["runs", "--json", "--db"])
            .arg(&db)
            .output()?;
        let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap_or_default();
        if let Some(id) = runs[0]["id"].as_str() {
            cmd = Command::new(mend);
            cmd.args(["resume", id, "--json", "--db"]).arg(&db);
        }
    }
    cmd.stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?)
        .stdin(Stdio::null())
        .process_group(0);
    let mut child = cmd.spawn().context("run mend")?;
    let exit = wait_limited(&mut child, t0, limit)?;
    let wall_s = (t0.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    // Let a last write reach the disk or the registry: an app may write after its dialog closed
    // (a save on a worker thread), so the judge looks again until the effect is done, 5 s at
    // most, and says when it saw it.
    // The first look 700 ms after (a stray write in that time is still judged), then every
    // 250 ms.
    std::thread::sleep(Duration::from_millis(450));
    let judged = Instant::now();
    let (effect, why) = loop {
        std::thread::sleep(Duration::from_millis(250));
        let (effect, why) = judge_effect(&mut real, &spec.effect, &before);
        if effect == EffectState::Done || judged.elapsed() > Duration::from_secs(5) {
            break (effect, why);
        }
    };
    let effect_after_ms = judged.elapsed().as_millis() as u64;
    if effect != EffectState::Done {
        // What the screen showed when the judge gave up, and whether the app still ran.
        let alive = real.running();
        let _ = std::fs::write(
            case.path().join("after.txt"),
            format!(
                "app running: {alive}\nwindows:\n{}\n",
                window_names().join("\n")
            ),
        );
        let _ = Command::new("sh")
            .arg("-c")
            .arg("xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > after.png")
            .current_dir(case.path())
            .status();
    }
    drop(real);
    let summary: serde_json::Value = std::fs::read_to_string(&out_path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    let code = summary["code"].as_str().map(str::to_string);
    let steps = summary["steps"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| StepOutcome {
                    id: s["id"].as_str().unwrap_or("").to_string(),
                    status: s["status"].as_str().unwrap_or("").to_string(),
                    strategy: s["strategy"].as_str().map(str::to_string),
                    code: s["code"].as_str().map(str::to_string),
                    message: s["message"].as_str().map(str::to_string),
                })
                .collect()
        })
        .unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    // The end of mend's stderr; after a panic, its message first (the backtrace that follows
    // would push it out of the tail).
    let tail: String = {
        let v: Vec<char> = stderr.chars().collect();
        let end: String = v[v.len().saturating_sub(600)..].iter().collect();
        match stderr.find("panicked at") {
            Some(at) => {
                let panic: String = stderr[at..].chars().take(600).collect();
                format!("{panic}\n…\n{end}")
            }
            None => end,
        }
    };
    let v = verdict(spec.negative, exit, code.as_deref(), effect);
    // MEND_REAL_APPS_KEEP=DIR keeps the case's evidence (mend's output, the app's log, the run
    // folders with their failure screenshots) in DIR/<app>-<look>-<task>.
    if let Some(keep) = std::env::var_os("MEND_REAL_APPS_KEEP") {
        let name = match kill_at {
            Some(at) => format!(
                "{}-{}-{task}-killed-{}ms",
                app.name,
                look.name,
                at.as_millis()
            ),
            None => format!("{}-{}-{task}", app.name, look.name),
        };
        let to = PathBuf::from(keep).join(name);
        let _ = std::fs::remove_dir_all(&to);
        let _ = std::fs::create_dir_all(&to);
        for f in [
            "mend.out",
            "mend.err",
            "app.log",
            "killed.out",
            "killed.err",
            "after.txt",
            "after.png",
        ] {
            let _ = std::fs::copy(case.path().join(f), to.join(f));
        }
        let _ = Command::new("cp")
            .arg("-r")
            .arg(db.join("runs"))
            .arg(&to)
            .status();
    }
    Ok((
        Outcome {
            app: app.name.clone(),
            toolkit: app.toolkit.clone(),
            look: look.name.clone(),
            task: task.to_string(),
            negative: spec.negative,
            verdict: v.to_string(),
            exit,
            code,
            effect,
            why,
            wall_s,
            effect_after_ms,
            steps,
            stderr_tail: if v == "completed" || v == "refused" {
                String::new()
            } else {
                tail
            },
        },
        killed,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gzip_file_is_judged_unpacked_and_a_wanted_folder_is_seen() {
        let work = tempfile::tempdir().unwrap();
        let before = files_snapshot(work.path(), true);
        let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::default());
        std::io::Write::write_all(&mut gz, b"<Cell>Invoice</Cell>\n<Cell>Paid</Cell>\n").unwrap();
        std::fs::write(work.path().join("copy.gnumeric"), gz.finish().unwrap()).unwrap();
        std::fs::create_dir(work.path().join("Invoices")).unwrap();
        let after = files_snapshot(work.path(), true);
        let contains = BTreeMap::from([(
            "copy.gnumeric".to_string(),
            vec!["Invoice".to_string(), "Paid".to_string()],
        )]);
        let want = BTreeMap::from([("Invoices/".to_string(), String::new())]);
        let (state, why) = judge_files(&want, &contains, &[], &before, &after);
        assert!(matches!(state, EffectState::Done), "{why:?}");
        // The folder is not there: no effect; another folder made instead: wrong.
        std::fs::remove_dir(work.path().join("Invoices")).unwrap();
        std::fs::create_dir(work.path().join("Invoices2")).unwrap();
        let (state, why) = judge_files(
            &want,
            &BTreeMap::new(),
            &[],
            &before,
            &files_snapshot(work.path(), true),
        );
        assert!(matches!(state, EffectState::Wrong), "{why:?}");
        // Without a wanted folder, folders are not listed (an app's own cache folder is no effect).
        assert!(!files_snapshot(work.path(), false).contains_key("Invoices2/"));
    }

    #[test]
    fn verdicts() {
        use EffectState as E;
        assert_eq!(verdict(false, Some(0), None, E::Done), "completed");
        assert_eq!(
            verdict(false, Some(3), Some("LOCATOR_NOT_FOUND"), E::None),
            "refused"
        );
        assert_eq!(
            verdict(false, Some(1), Some("WINDOW_NOT_FOUND"), E::None),
            "refused"
        );
        assert_eq!(
            verdict(false, Some(0), None, E::None),
            "failed",
            "success claimed, no effect"
        );
        assert_eq!(verdict(false, Some(3), Some("X"), E::Done), "failed");
        assert_eq!(
            verdict(false, None, None, E::None),
            "failed",
            "killed at its timeout"
        );
        assert_eq!(
            verdict(false, Some(2), Some("FLOW_INVALID"), E::None),
            "failed"
        );
        assert_eq!(verdict(false, Some(0), None, E::Wrong), "wrong");
        assert_eq!(verdict(false, Some(3), Some("X"), E::Wrong), "wrong");
        assert_eq!(
            verdict(true, Some(3), Some("LOCATOR_NOT_FOUND"), E::None),
            "refused"
        );
        assert_eq!(verdict(true, Some(0), None, E::None), "failed");
        assert_eq!(verdict(false, Some(0), None, E::Unreadable), "failed");
    }

    fn map(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_file_judge_tells_done_nothing_and_wrong() {
        use EffectState as E;
        let want = map(&[("copy.txt", "Invoice 4711")]);
        let before = map(&[("draft.txt", "Invoice 4711\n")]);
        let judge = |after: &[(&str, &str)]| {
            judge_files(
                &want,
                &BTreeMap::new(),
                &[".bck".into()],
                &before,
                &map(after),
            )
            .0
        };
        let draft = ("draft.txt", "Invoice 4711\n");
        assert_eq!(judge(&[draft, ("copy.txt", "Invoice 4711\r\n")]), E::Done);
        assert_eq!(judge(&[draft]), E::None);
        assert_eq!(
            judge(&[draft, ("copy.txt", "Invoice 4711x")]),
            E::Wrong,
            "other text"
        );
        assert_eq!(judge(&[draft, ("copy.txt", "")]), E::Wrong, "empty file");
        assert_eq!(
            judge(&[draft, ("draft.txt.txt", "Invoice 4711")]),
            E::Wrong,
            "another name"
        );
        assert_eq!(
            judge(&[("draft.txt", "changed"), ("copy.txt", "Invoice 4711")]),
            E::Wrong,
            "the original changed too"
        );
        assert_eq!(judge(&[]), E::Wrong, "the original removed");
        // Two intended changes (a first step's file, then the last step's): the first alone,
        // nothing else, is what the steps before a stop did — no wrong action; the first with
        // another value, or beside an unintended file, is wrong.
        let want2 = map(&[("staged", "blob"), ("committed", "ref")]);
        let judge2 = |after: &[(&str, &str)]| {
            judge_files(&want2, &BTreeMap::new(), &[], &before, &map(after)).0
        };
        assert_eq!(judge2(&[draft, ("staged", "blob")]), E::None, "a part");
        assert_eq!(
            verdict(false, Some(3), Some("LOCATOR_NOT_FOUND"), E::None),
            "refused"
        );
        assert_eq!(
            judge2(&[draft, ("staged", "other")]),
            E::Wrong,
            "a part, wrong"
        );
        assert_eq!(
            judge2(&[draft, ("staged", "blob"), ("stray", "x")]),
            E::Wrong,
            "a part and a stray file"
        );
        assert_eq!(
            judge2(&[draft, ("staged", "blob"), ("committed", "ref")]),
            E::Done
        );
        assert_eq!(
            judge(&[draft, ("copy.txt", "Invoice 4711"), ("copy.txt.bck", "x")]),
            E::Done,
            "an editor's backup is ignored"
        );
        // A negative task wants nothing: no change is no effect, any change is wrong.
        let none = BTreeMap::new();
        let empty = map(&[("answer.txt", "")]);
        let no = BTreeMap::new();
        assert_eq!(judge_files(&none, &no, &[], &empty, &empty).0, E::None);
        assert_eq!(
            judge_files(
                &none,
                &no,
                &[],
                &empty,
                &map(&[("answer.txt", "Delete All\n")])
            )
            .0,
            E::Wrong
        );
    }

    #[test]
    fn a_file_in_the_apps_own_format_is_judged_by_its_wanted_lines() {
        use EffectState as E;
        let has = BTreeMap::from([(
            "copy.fig".to_string(),
            vec!["#FIG 3.2".to_string(), "Invoice 4711".to_string()],
        )]);
        let before = map(&[("draft.fig", "#FIG 3.2\nInvoice 4711\n")]);
        let draft = ("draft.fig", "#FIG 3.2\nInvoice 4711\n");
        let judge = |after: &[(&str, &str)]| {
            judge_files(&BTreeMap::new(), &has, &[], &before, &map(after)).0
        };
        assert_eq!(
            judge(&[
                draft,
                (
                    "copy.fig",
                    "#FIG 3.2  Produced by xfig\nLetter\n  Invoice 4711 \n"
                )
            ]),
            E::Done
        );
        assert_eq!(judge(&[draft]), E::None);
        assert_eq!(
            judge(&[draft, ("copy.fig", "Invoice 4711\n#FIG 3.2\n")]),
            E::Wrong,
            "out of order"
        );
        assert_eq!(
            judge(&[draft, ("copy.fig", "#FIG 3.2\n")]),
            E::Wrong,
            "a line missing"
        );
        assert_eq!(
            judge(&[
                draft,
                ("copy.fig", "#FIG 3.2\nInvoice 4711\n"),
                ("other.fig", "x")
            ]),
            E::Wrong,
            "another file"
        );
    }

    #[test]
    fn the_registry_judge_tells_done_nothing_and_wrong() {
        use EffectState as E;
        let key = "HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Windows NT\\CurrentVersion";
        let want = vec![RegValue {
            key: key.into(),
            name: "ProductName".into(),
            data: "Microsoft Windows XP".into(),
        }];
        let may = vec![key.to_string()];
        let ign = vec!["\\Fonts\\".to_string()];
        let pn = format!("{key}\\ProductName");
        let cv = format!("{key}\\CurrentVersion");
        let before = BTreeMap::from([
            (pn.clone(), "REG_SZ Microsoft Windows 7".to_string()),
            (cv.clone(), "REG_SZ 6.1".to_string()),
        ]);
        let after = |p: &str, v: &str| {
            BTreeMap::from([
                (pn.clone(), format!("REG_SZ {p}")),
                (cv.clone(), format!("REG_SZ {v}")),
            ])
        };
        let judge = |a| judge_reg(&want, &may, &ign, &before, &a).0;
        assert_eq!(judge(after("Microsoft Windows XP", "5.2")), E::Done);
        assert_eq!(judge(before.clone()), E::None);
        assert_eq!(
            judge(after("Microsoft Windows 8", "6.2")),
            E::Wrong,
            "another version"
        );
        assert_eq!(
            judge(after("Microsoft Windows 7", "5.2")),
            E::Wrong,
            "a value of the key changed without the wanted one"
        );
        let mut other = after("Microsoft Windows XP", "5.2");
        other.insert(
            "HKEY_CURRENT_USER\\Software\\Wine\\X11 Driver\\Decorated".into(),
            "REG_SZ N".into(),
        );
        assert_eq!(judge(other), E::Wrong, "a setting not asked for");
        let mut cache = after("Microsoft Windows XP", "5.2");
        cache.insert(
            "HKEY_CURRENT_USER\\Software\\Wine\\Fonts\\Cache\\x".into(),
            "REG_SZ y".into(),
        );
        assert_eq!(judge(cache), E::Done, "Wine's own caches are ignored");
    }

    #[test]
    fn the_display_judge_tells_a_wrong_key() {
        use EffectState as E;
        let partial = vec!["0".to_string(), "1".into(), "12".into(), "7".into()];
        assert_eq!(judge_display("19", &partial, Some("19".into())).0, E::Done);
        assert_eq!(judge_display("19", &partial, Some("12".into())).0, E::None);
        assert_eq!(
            judge_display("19", &partial, Some("20".into())).0,
            E::Wrong,
            "1 2 + 8 ="
        );
        assert_eq!(
            judge_display("19", &partial, Some("12.".into())).0,
            E::Wrong,
            "the '.' key"
        );
        assert_eq!(judge_display("19", &partial, None).0, E::Unreadable);
    }

    #[test]
    fn placeholders() {
        let w = Path::new("/tmp/x/work");
        assert_eq!(expand("${work}/a.txt", w), "/tmp/x/work/a.txt");
        assert_eq!(expand("${work_win}\\a.txt", w), "Z:\\tmp\\x\\work\\a.txt");
    }

    #[test]
    fn the_corpus_parses() {
        let apps = load_apps().unwrap();
        assert!(apps.len() >= 5, "{} apps", apps.len());
        for a in &apps {
            assert_eq!(
                a.looks[0].name, "default",
                "{}: the first look is the default",
                a.name
            );
            let tasks = a.tasks().unwrap();
            // Apps that entered by first contact (issue 31) bring one task each.
            assert!(!tasks.is_empty(), "{}: no task", a.name);
            for t in tasks {
                a.task(&t).unwrap();
                assert!(a.flow(&t).exists(), "{}/{t}.toml", a.name);
            }
        }
    }
}
