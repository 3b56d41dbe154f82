//! The studio's engine side: every command is a thin call into the engine crates. The studio
//! process alone opens the run database; runs and resolutions go on worker threads and push
//! typed events (`run-event` with a `Progress`, `run-finished` with a `Summary`) to the UI.

use base64::Engine as _;
use mend_capture::{Capture, Frame, WindowQuery, XcapCapture};
use mend_locate::Recorded;
use mend_model::{
    flow_warnings, parse_flow, ErrorCode, Flow, FlowWarning, Located, MendError, Rect, Role,
    Target, TargetSpec,
};
use mend_runner::takeover::{self, Change, Resolution, Takeover, CHANGES, TAKEOVERS};
use mend_runner::{read_rows, summary_from, LoadedFlow, Options, Progress, Runner, Summary};
use mend_store::{RunRecord, Store};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Shared by every command: where flows live and the one open database.
pub struct Studio {
    pub flows_dir: PathBuf,
    pub db_dir: PathBuf,
    pub store: Arc<Store>,
    /// The fleet's PostgreSQL when `MEND_DATABASE_URL` is set: `store` is then the fleet's,
    /// so the takeover panel shows every seat's paused jobs, and answers to them are recorded
    /// for the job's own seat to apply (`mend_fleet::Fleet::decide`).
    pub fleet: Option<mend_fleet::Fleet>,
    /// A run or resolution in progress: input goes to one thing at a time.
    pub busy: Arc<Mutex<bool>>,
    /// The stop flag of the recording in progress (`recording.rs`), if one is.
    pub recording: Arc<Mutex<Option<Arc<std::sync::atomic::AtomicBool>>>>,
}

fn invalid(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::InvalidArgument, msg)
}

impl Studio {
    /// The studio over the sled database in `db_dir`, or over a fleet's PostgreSQL.
    pub fn open(
        flows_dir: PathBuf,
        db_dir: PathBuf,
        database_url: Option<&str>,
    ) -> Result<Studio, MendError> {
        let fleet = match database_url {
            Some(url) => Some(mend_fleet::Fleet::connect(
                url,
                std::time::Duration::from_secs(10),
            )?),
            None => None,
        };
        let store = Arc::new(match &fleet {
            Some(f) => f.store(None),
            None => Store::open(&db_dir)?,
        });
        Ok(Studio {
            flows_dir,
            db_dir,
            store,
            fleet,
            busy: Arc::new(Mutex::new(false)),
            recording: Arc::new(Mutex::new(None)),
        })
    }

    /// A flow path from the UI must be inside the flows folder.
    pub(crate) fn flow_path(&self, name: &str) -> Result<PathBuf, MendError> {
        if name.contains("..") || name.contains('/') || !name.ends_with(".toml") {
            return Err(invalid(format!(
                "'{name}' is not a flow file name (NAME.toml in the flows folder)"
            )));
        }
        Ok(self.flows_dir.join(name))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RunBrief {
    pub id: String,
    pub status: String,
    pub started_ms: u64,
    pub code: Option<ErrorCode>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowEntry {
    pub file: String,
    pub name: String,
    pub steps: usize,
    /// Set when the file does not parse: the library still lists it.
    pub error: Option<MendError>,
    pub last_runs: Vec<RunBrief>,
}

pub fn list_flows(s: &Studio) -> Result<Vec<FlowEntry>, MendError> {
    let runs = s.store.runs()?;
    let mut out = Vec::new();
    let dir = std::fs::read_dir(&s.flows_dir)
        .map_err(|e| invalid(format!("{}: {e}", s.flows_dir.display())))?;
    let mut files: Vec<PathBuf> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for p in files {
        let file = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let src = std::fs::read_to_string(&p).unwrap_or_default();
        let parsed = parse_flow(&file, &src, &columns_of(&src));
        let abs = std::fs::canonicalize(&p).unwrap_or(p.clone());
        let last_runs = runs
            .iter()
            .filter(|r| Path::new(&r.flow_path) == abs)
            .take(5)
            .map(|r| RunBrief {
                id: r.id.clone(),
                status: r.status.clone(),
                started_ms: r.started_ms,
                code: r.code,
            })
            .collect();
        out.push(match parsed {
            Ok(f) => FlowEntry {
                file,
                name: f.name,
                steps: f.steps.len(),
                error: None,
                last_runs,
            },
            Err(e) => FlowEntry {
                file,
                name: String::new(),
                steps: 0,
                error: Some(e),
                last_runs,
            },
        });
    }
    Ok(out)
}

/// Every `${name}` the flow uses counts as a column here: the library and the editor check the
/// structure; the run checks that each variable has a value.
fn columns_of(src: &str) -> Vec<String> {
    mend_model::references(src)
        .into_iter()
        .filter(|r| !r.starts_with("secret:"))
        .map(str::to_string)
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowDoc {
    pub file: String,
    pub source: String,
    pub flow: Option<Flow>,
    pub error: Option<MendError>,
    /// 0-based step the error is at, when it is at one.
    pub error_step: Option<usize>,
    /// Valid, but a crash or a failure after acting at these steps needs a person.
    pub warnings: Vec<FlowWarning>,
}

/// Which step a `file:line:col` error points into.
fn step_of_error(src: &str, e: &MendError) -> Option<usize> {
    let rest = e.message.split(':').nth(1)?;
    let line: usize = rest.trim().parse().ok()?;
    let headers: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[step]]"))
        .map(|(i, _)| i + 1)
        .collect();
    headers.iter().rposition(|h| *h <= line)
}

pub fn load_flow(s: &Studio, file: &str) -> Result<FlowDoc, MendError> {
    s.flow_path(file)?;
    doc_in(&s.flows_dir, file)
}

/// Flow `file` of the flows folder `dir`, parsed (a file name already checked).
pub(crate) fn doc_in(dir: &Path, file: &str) -> Result<FlowDoc, MendError> {
    let p = dir.join(file);
    let source =
        std::fs::read_to_string(&p).map_err(|e| invalid(format!("{}: {e}", p.display())))?;
    Ok(doc_of(file, source))
}

fn doc_of(file: &str, source: String) -> FlowDoc {
    match parse_flow(file, &source, &columns_of(&source)) {
        Ok(f) => FlowDoc {
            file: file.into(),
            source,
            warnings: flow_warnings(&f),
            flow: Some(f),
            error: None,
            error_step: None,
        },
        Err(e) => FlowDoc {
            file: file.into(),
            error_step: step_of_error(&source, &e),
            source,
            flow: None,
            error: Some(e),
            warnings: Vec::new(),
        },
    }
}

/// Serialize an edited flow to TOML, check it parses back, and write it. An invalid flow is
/// returned with its error (and the step it is at) and not written.
pub fn save_flow(s: &Studio, file: &str, flow: &Flow) -> Result<FlowDoc, MendError> {
    let p = s.flow_path(file)?;
    let source = toml::to_string(flow)
        .map_err(|e| invalid(format!("the flow cannot be written as TOML: {e}")))?;
    let doc = doc_of(file, source);
    if doc.error.is_none() {
        std::fs::write(&p, &doc.source).map_err(|e| invalid(format!("{}: {e}", p.display())))?;
    }
    Ok(doc)
}

pub fn duplicate_flow(s: &Studio, file: &str, new_file: &str) -> Result<FlowDoc, MendError> {
    let from = s.flow_path(file)?;
    let to = s.flow_path(new_file)?;
    if to.exists() {
        return Err(invalid(format!("{new_file} exists already")));
    }
    std::fs::copy(&from, &to).map_err(|e| invalid(format!("{}: {e}", to.display())))?;
    load_flow(s, new_file)
}

pub fn create_flow(s: &Studio, file: &str, name: &str, title: &str) -> Result<FlowDoc, MendError> {
    let p = s.flow_path(file)?;
    if p.exists() {
        return Err(invalid(format!("{file} exists already")));
    }
    let source = format!(
        "version = 1\nname = {}\n\n[window]\ntitle = {}\n\n[[step]]\naction = \"focus\"\n",
        toml_str(name),
        toml_str(title)
    );
    std::fs::write(&p, &source).map_err(|e| invalid(format!("{}: {e}", p.display())))?;
    load_flow(s, file)
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.into()).to_string()
}

/// A window's picture for the editor, as a data URL, with its size.
#[derive(Debug, Clone, Serialize)]
pub struct Shot {
    pub png: String,
    pub width: u32,
    pub height: u32,
    pub title: String,
}

fn png_data_url(img: &image::RgbaImage) -> Result<String, MendError> {
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgba8(img.clone())
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .map_err(|e| invalid(format!("encode PNG: {e}")))?;
    Ok(format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}

pub(crate) fn capture(title: &str) -> Result<Frame, MendError> {
    XcapCapture.capture(&WindowQuery::title(title)?)
}

pub fn capture_window(title: &str) -> Result<Shot, MendError> {
    let f = capture(title)?;
    Ok(Shot {
        png: png_data_url(&f.image)?,
        width: f.image.width(),
        height: f.image.height(),
        title: f.info.window.map(|w| w.title).unwrap_or_default(),
    })
}

/// A PNG the flow or a run wrote (a crop, a failure screenshot), as a data URL.
pub fn read_image(s: &Studio, path: &str) -> Result<String, MendError> {
    let p = Path::new(path);
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        s.flows_dir.join(p)
    };
    let inside = p.starts_with(&s.flows_dir) || p.starts_with(&s.db_dir);
    if !inside {
        return Err(invalid(
            "images are read from the flows folder or the run database only",
        ));
    }
    let img = image::open(&p)
        .map_err(|e| invalid(format!("{}: {e}", p.display())))?
        .to_rgba8();
    png_data_url(&img)
}

/// What Mend proposes for a point the person clicked on the captured window: the recorder's
/// own reading of that click ([`mend_teach::describe_click`], as `mend teach` records it), so
/// the same click makes the same target in both.
#[derive(Debug, Clone, Serialize)]
pub struct Proposal {
    pub target: TargetSpec,
    /// The control's box in window pixels.
    pub rect: Rect,
    pub role: Role,
    /// What to check about this target before running it (it leads back to another control,
    /// it is known by its pixels only).
    pub notes: Vec<String>,
}

pub fn propose_target(title: &str, x: i32, y: i32, lang: &str) -> Result<Proposal, MendError> {
    let frame = capture(title)?;
    let mut locator = crate::locator(lang, true, None)?;
    propose_on(&mut locator, &frame, x, y)
}

/// [`propose_target`] on a frame already captured.
pub fn propose_on(
    locator: &mut mend_locate::Locator,
    frame: &Frame,
    x: i32,
    y: i32,
) -> Result<Proposal, MendError> {
    let mut d = mend_teach::describe_click(locator, frame, (x, y))?;
    if d.spec.text.is_none() && d.spec.near.is_none() && d.crop_at.is_some() {
        d.notes.push(
            "no caption was read on it: its pixels are its only name, and the editor keeps no crop — give it a `near` label, or record this step with `mend teach`".into(),
        );
    }
    let rect = d
        .spec
        .recorded
        .or(d.crop_at)
        .unwrap_or(Rect::new(x - 20, y - 10, 40, 20));
    let role = d
        .spec
        .role
        .as_deref()
        .and_then(Role::parse)
        .unwrap_or(Role::Any);
    Ok(Proposal {
        target: d.spec,
        rect,
        role,
        notes: d.notes,
    })
}

/// "Test locate": which rung finds the target on the live window, where, how sure.
#[derive(Debug, Clone, Serialize)]
pub struct LocateResult {
    pub located: Option<Located>,
    pub error: Option<MendError>,
    pub candidates: Vec<mend_model::Candidate>,
}

pub fn test_locate(title: &str, spec: &TargetSpec, lang: &str) -> Result<LocateResult, MendError> {
    let frame = capture(spec.window.as_deref().unwrap_or(title))?;
    let target = Target {
        text: spec.text.clone(),
        role: spec
            .role
            .as_deref()
            .and_then(Role::parse)
            .unwrap_or(Role::Any),
        near: spec.near.clone(),
        offset: spec.offset.map(|[x, y]| (x, y)),
        recorded: spec.recorded,
        context: spec.context.clone(),
        synonyms: spec.synonyms.clone(),
        tree: spec.tree.clone(),
    };
    let mut locator = crate::locator(lang, true, None)?;
    Ok(
        match locator.locate(&frame, &target, &Recorded::default()) {
            Ok(l) => LocateResult {
                located: Some(l),
                error: None,
                candidates: vec![],
            },
            Err(r) => LocateResult {
                located: None,
                error: Some(r.error),
                candidates: r.candidates,
            },
        },
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct RunRequest {
    pub file: String,
    #[serde(default)]
    pub vars: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub data: Option<String>,
}

/// What a worker thread needs to report back to the UI.
pub trait Sink: Send + 'static {
    fn progress(&self, p: &Progress);
    fn finished(&self, s: Result<Summary, MendError>);
}

pub(crate) fn guard_busy(s: &Studio) -> Result<(), MendError> {
    let mut b = s.busy.lock().expect("lock");
    if *b {
        return Err(MendError::new(
            ErrorCode::WindowBlocked,
            "a run or a recording is in progress; wait for it to finish, pause or stop",
        ));
    }
    *b = true;
    Ok(())
}

/// Start a run on a worker thread; events go to `sink`.
pub fn start_run(s: &Studio, req: RunRequest, sink: impl Sink) -> Result<(), MendError> {
    let path = s.flow_path(&req.file)?;
    let rows = match &req.data {
        Some(d) if !d.is_empty() => read_rows(&s.flows_dir.join(d))?,
        _ => vec![],
    };
    let mut columns: Vec<String> = req.vars.keys().cloned().collect();
    if let Some(r) = rows.first() {
        columns.extend(r.keys().cloned());
    }
    let lf = LoadedFlow::load(&path, &columns)?;
    let lang = crate::DEFAULT_LANG.to_string();
    on_worker(s, sink, lf, lang.clone(), move |r, lf| {
        r.start(lf, req.vars, rows, &lang)
    })
}

/// Run `work` with a live runner for `lf` on a worker thread, one at a time (input goes to one
/// thing at a time): its progress and its end go to `sink`. The runner is `mend_app`'s, the
/// one `mend run` builds: the same rungs, the semantic one included.
fn on_worker(
    s: &Studio,
    sink: impl Sink,
    lf: LoadedFlow,
    lang: String,
    work: impl FnOnce(&mut Runner, &LoadedFlow) -> Result<Summary, MendError> + Send + 'static,
) -> Result<(), MendError> {
    guard_busy(s)?;
    let busy = s.busy.clone();
    let store = s.store.clone();
    let runs_dir = s.db_dir.join("runs");
    std::thread::spawn(move || {
        let mut on = |p: &Progress| sink.progress(p);
        let result = crate::with_runner(&lang, &lf, &store, &mut on, Options::new(runs_dir), |r| {
            work(r, &lf)
        });
        *busy.lock().expect("lock") = false;
        sink.finished(result);
    });
    Ok(())
}

pub fn list_takeovers(s: &Studio, all: bool) -> Result<Vec<Takeover>, MendError> {
    let mut list: Vec<Takeover> = s.store.list(TAKEOVERS)?;
    list.retain(|t| all || t.status == "open");
    list.sort_by_key(|t| std::cmp::Reverse(t.created_ms));
    Ok(list)
}

/// Resolve a takeover on a worker thread (it acts and continues the run); events to `sink`.
/// A fleet job's answer is only recorded: the worker on the job's seat applies it.
pub fn resolve_takeover(
    s: &Studio,
    id: &str,
    resolution: &str,
    sink: impl Sink,
) -> Result<(), MendError> {
    let res = Resolution::parse(resolution)?;
    let t = takeover::takeover(&s.store, id)?;
    if let Some(fleet) = &s.fleet {
        if fleet.is_job(&t.run)? {
            fleet.decide(id, res)?;
            return Ok(());
        }
    }
    let rec: RunRecord = s
        .store
        .run(&t.run)?
        .ok_or_else(|| invalid(format!("run {} is not stored", t.run)))?;
    let lf = LoadedFlow::for_run(&rec)?;
    let id = id.to_string();
    let lang = crate::lang_of(&rec);
    on_worker(s, sink, lf, lang, move |r, lf| r.resolve(lf, &id, res))
}

#[derive(Debug, Clone, Serialize)]
pub struct ChangeView {
    pub change: Change,
    pub diff: String,
}

pub fn list_changes(s: &Studio) -> Result<Vec<ChangeView>, MendError> {
    let mut list: Vec<Change> = s.store.list(CHANGES)?;
    list.sort_by_key(|c| std::cmp::Reverse(c.created_ms));
    Ok(list
        .into_iter()
        .map(|c| ChangeView {
            diff: c.diff(),
            change: c,
        })
        .collect())
}

pub fn decide_change(s: &Studio, id: &str, accept: bool) -> Result<Change, MendError> {
    if accept {
        takeover::accept(&s.store, id)
    } else {
        takeover::reject(&s.store, id)
    }
}

pub fn run_report(s: &Studio, id: &str) -> Result<(Summary, String), MendError> {
    let rec = s
        .store
        .run(id)?
        .ok_or_else(|| invalid(format!("no run '{id}'")))?;
    let sum = summary_from(&s.store, &rec, None)?;
    let md = mend_runner::markdown(&sum, &rec);
    Ok((sum, md))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder with `flows/` holding two sample flows.
    fn flows() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let flows = dir.path().join("flows");
        std::fs::create_dir_all(&flows).unwrap();
        for f in ["login_edit_save.toml", "new_customers.toml"] {
            let src = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/flows")
                .join(f);
            std::fs::copy(&src, flows.join(f)).unwrap();
            // The flow's recorded crops, beside it.
            let crops = src.with_extension("crops");
            if crops.is_dir() {
                let to = flows.join(crops.file_name().unwrap());
                std::fs::create_dir_all(&to).unwrap();
                for e in std::fs::read_dir(&crops).unwrap() {
                    let e = e.unwrap();
                    std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
                }
            }
        }
        dir
    }

    fn studio() -> (tempfile::TempDir, Studio) {
        let dir = flows();
        let s = Studio::open(dir.path().join("flows"), dir.path().join("db"), None).unwrap();
        (dir, s)
    }

    /// A click on the captured window is read as `mend teach` reads a press (one rule): a
    /// button becomes its caption, a field the label beside it, and each target leads back to
    /// the control clicked on that very frame.
    #[test]
    fn a_click_on_the_captured_window_proposes_what_the_recorder_would_record() {
        let png = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/screenshots/zh/baseline/main.png");
        let frame = mend_capture::ImageFileCapture::open(&png)
            .unwrap()
            .capture(&WindowQuery::title(".*").unwrap())
            .unwrap();
        let mut locator = crate::locator(crate::DEFAULT_LANG, false, None).unwrap();
        // 查询 (the button) and the search field, frame pixels (geometry.json less the origin).
        for ((x, y), text, role) in [
            ((430, 79), "查询", Role::Button),
            ((260, 79), "客户编号", Role::Field),
        ] {
            let p = propose_on(&mut locator, &frame, x, y).unwrap();
            assert_eq!(p.target.text.as_deref(), Some(text), "{p:?}");
            assert_eq!(p.role, role, "{p:?}");
            assert!(p.rect.contains(mend_model::Point { x, y }), "{p:?}");
            assert!(p.notes.is_empty(), "{p:?}");
            let target = mend_runner::target_of(&p.target, &mend_runner::Row::new()).unwrap();
            let l = locator
                .locate(&frame, &target, &Recorded::default())
                .unwrap();
            assert!(l.rect.contains(mend_model::Point { x, y }), "{l:?}");
        }
    }

    #[test]
    fn the_library_lists_flows_and_refuses_paths_outside_it() {
        let (_d, s) = studio();
        let list = list_flows(&s).unwrap();
        let names: Vec<&str> = list.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(names, vec!["login_edit_save.toml", "new_customers.toml"]);
        assert_eq!(list[0].steps, 9);
        assert!(list.iter().all(|f| f.error.is_none()), "{list:?}");
        assert_eq!(
            load_flow(&s, "../etc/passwd.toml").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn an_edited_flow_saves_as_toml_and_an_invalid_one_is_not_written() {
        let (_d, s) = studio();
        let doc = load_flow(&s, "login_edit_save.toml").unwrap();
        let mut flow = doc.flow.unwrap();
        flow.steps.swap(0, 1);
        flow.steps[0].text = Some("${user}".into());
        let saved = save_flow(&s, "login_edit_save.toml", &flow).unwrap();
        assert!(saved.error.is_none(), "{:?}", saved.error);
        assert!(saved.warnings.is_empty(), "{:?}", saved.warnings);
        // A write without a verify saves, with a warning at its step.
        let mut risky = flow.clone();
        risky.steps[2].verify = None;
        let doc = save_flow(&s, "login_edit_save.toml", &risky).unwrap();
        assert!(doc.error.is_none());
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
        assert_eq!(doc.warnings[0].step, 2);
        assert!(doc.warnings[0].message.contains("RESUME_UNVERIFIED"));
        save_flow(&s, "login_edit_save.toml", &flow).unwrap();
        let again = load_flow(&s, "login_edit_save.toml").unwrap();
        assert_eq!(again.flow.unwrap().steps[0].id.as_deref(), Some("password"));

        let mut bad = flow.clone();
        bad.steps[2].target = None; // a click with nothing to click
        let doc = save_flow(&s, "login_edit_save.toml", &bad).unwrap();
        let e = doc.error.expect("invalid");
        assert_eq!(e.code, ErrorCode::FlowInvalid);
        assert_eq!(doc.error_step, Some(2), "{}", e.message);
        let on_disk = load_flow(&s, "login_edit_save.toml").unwrap();
        assert!(
            on_disk.flow.unwrap().steps[2].target.is_some(),
            "not written"
        );
    }

    #[test]
    fn create_and_duplicate() {
        let (_d, s) = studio();
        let d = create_flow(&s, "mine.toml", "my flow", "客户管理系统").unwrap();
        assert_eq!(d.flow.unwrap().name, "my flow");
        let c = duplicate_flow(&s, "mine.toml", "mine2.toml").unwrap();
        assert!(c.flow.is_some());
        assert!(duplicate_flow(&s, "mine.toml", "mine2.toml").is_err());
    }

    /// A run's progress, or its end.
    type Event = (Option<Progress>, Option<Result<Summary, MendError>>);

    /// Progress and the end of a run, sent back to the test.
    struct ChannelSink(std::sync::mpsc::Sender<Event>);
    impl Sink for ChannelSink {
        fn progress(&self, p: &Progress) {
            let _ = self.0.send((Some(p.clone()), None));
        }
        fn finished(&self, s: Result<Summary, MendError>) {
            let _ = self.0.send((None, Some(s)));
        }
    }

    /// Each step's rung, in order.
    fn rungs(steps: impl Iterator<Item = (String, Option<String>)>) -> Vec<String> {
        steps
            .map(|(id, rung)| format!("{id}:{}", rung.unwrap_or_else(|| "-".into())))
            .collect()
    }

    /// The same flow, run by `mend run` and by the studio on the same screen of the practice
    /// app (its English look, a flow written in Chinese: the semantic rung finds the buttons),
    /// meets the same rungs and ends the same, judged by the app's own ledger. The studio once
    /// built a runner of its own: it never asked the model at `MEND_LLM_BASE_URL` (only the
    /// offline matcher) and answered a takeover with fixed languages, not the run's.
    #[test]
    fn the_studio_and_mend_run_meet_the_same_rungs_on_the_same_screen() {
        use mend_testkit::{App, Desktop};
        // SAFETY: nextest runs each test in a process of its own; set before any thread.
        unsafe { std::env::set_var("DESK_PASSWORD", "pw-s3cret") };
        let _d = Desktop::start().expect("desktop");
        let (dir, s) = studio();
        let flow = dir.path().join("flows/login_edit_save.toml");

        // `mend run`, the binary the workspace's tests build beside this one.
        let mend = std::env::current_exe()
            .unwrap()
            .parent()
            .and_then(Path::parent)
            .unwrap()
            .join("mend");
        assert!(
            mend.exists(),
            "{} is built by `cargo nextest run --workspace`",
            mend.display()
        );
        let app = App::start("en", &[], "login").expect("practice app");
        let out = std::process::Command::new(&mend)
            .args(["run", &flow.display().to_string(), "--json", "--db"])
            .arg(dir.path().join("cli-db"))
            .output()
            .unwrap();
        let cli: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        std::thread::sleep(std::time::Duration::from_millis(500));
        let cli_ledger: Vec<String> = app.ledger().iter().map(|l| l["op"].to_string()).collect();
        drop(app);

        let app = App::start("en", &[], "login").expect("practice app");
        let (tx, rx) = std::sync::mpsc::channel();
        let req = RunRequest {
            file: "login_edit_save.toml".into(),
            vars: Default::default(),
            data: None,
        };
        start_run(&s, req, ChannelSink(tx)).unwrap();
        let studio = loop {
            match rx
                .recv_timeout(std::time::Duration::from_secs(120))
                .expect("the run ends")
            {
                (_, Some(end)) => break end.expect("the studio's run"),
                _ => continue,
            }
        };
        std::thread::sleep(std::time::Duration::from_millis(500));
        let studio_ledger: Vec<String> = app.ledger().iter().map(|l| l["op"].to_string()).collect();

        let studio = serde_json::to_value(&studio).unwrap();
        assert_eq!(cli["status"], "passed", "{cli}");
        assert_eq!(studio["status"], "passed", "{studio}");
        assert_eq!(cli_ledger, vec!["\"login\"", "\"save\""]);
        assert_eq!(studio_ledger, cli_ledger);
        let by = |sum: &serde_json::Value| {
            rungs(sum["steps"].as_array().unwrap().iter().map(|st| {
                (
                    st["id"].as_str().unwrap_or_default().to_string(),
                    st["strategy"].as_str().map(str::to_string),
                )
            }))
        };
        assert!(
            by(&cli).iter().any(|r| r.ends_with(":semantic")),
            "a step found by meaning: {:?}",
            by(&cli)
        );
        assert_eq!(by(&studio), by(&cli));
    }

    struct NoSink;
    impl Sink for NoSink {
        fn progress(&self, _: &Progress) {}
        fn finished(&self, s: Result<Summary, MendError>) {
            panic!("a fleet answer runs nothing in the studio: {s:?}");
        }
    }

    /// The studio over a fleet's PostgreSQL (a throwaway server): the takeover panel lists a
    /// job paused on a seat, and its answer is recorded for that seat's worker — nothing is
    /// run or clicked on the studio's own desktop.
    #[test]
    fn over_a_fleet_the_panel_lists_a_paused_job_and_its_answer_goes_back_to_its_seat() {
        let pg = mend_testkit::pg::Postgres::start().unwrap();
        let url = pg.url();
        let psql = |sql: &str| {
            let out = std::process::Command::new("psql")
                .args(["-d", &url, "-tAc", sql])
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        let dir = flows();
        let fleet = mend_fleet::Fleet::connect(&url, std::time::Duration::from_secs(30)).unwrap();
        let flow = dir.path().join("flows/new_customers.toml");
        let key = fleet
            .add(&[mend_fleet::WorkSpec {
                flow_path: flow.display().to_string(),
                flow: "new customers".into(),
                vars: Default::default(),
                row: [("name".to_string(), "Studio01".to_string())].into(),
                lang: "chi_sim+eng".into(),
            }])
            .unwrap()
            .keys[0]
            .clone();
        // Its worker on seat s1 paused it: the request written under the job's lease.
        psql(&format!(
            "UPDATE mend.work SET status = 'running', attempt = 1, seat = 's1' WHERE key = '{key}';
             DELETE FROM graphile_worker._private_jobs"
        ));
        let holder = fleet.store(Some(mend_fleet::Fence {
            job: key.clone(),
            attempt: 1,
        }));
        let mut rec = RunRecord::new(&key, "new customers", 1);
        rec.status = "paused".into();
        holder.put_run(&rec).unwrap();
        let t = Takeover {
            id: "t1".into(),
            run: key.clone(),
            flow: flow.display().to_string(),
            row: 0,
            step: 3,
            step_id: "save".into(),
            action: "click".into(),
            code: ErrorCode::LocatorNotFound,
            message: "no 保存 button".into(),
            screenshot: None,
            candidates: vec![],
            effects: vec![],
            suggestion: String::new(),
            status: "open".into(),
            resolution: None,
            created_ms: 1,
        };
        holder.put(TAKEOVERS, "t1", &t).unwrap();
        psql(&format!(
            "UPDATE mend.work SET status = 'paused' WHERE key = '{key}'"
        ));

        let s = Studio::open(dir.path().join("flows"), dir.path().join("db"), Some(&url)).unwrap();
        assert!(
            !dir.path().join("db").exists(),
            "no sled database is opened"
        );
        let list = list_takeovers(&s, false).unwrap();
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!(
            (list[0].id.as_str(), list[0].run.as_str()),
            ("t1", key.as_str())
        );
        let (sum, _) = run_report(&s, &key).unwrap();
        assert_eq!(sum.status, "paused");

        resolve_takeover(&s, "t1", "skip", NoSink).unwrap();
        assert!(!*s.busy.lock().unwrap(), "nothing runs here");
        assert!(list_takeovers(&s, false).unwrap().is_empty());
        let all = list_takeovers(&s, true).unwrap();
        assert_eq!(
            (all[0].status.as_str(), all[0].resolution.as_deref()),
            ("decided", Some("skip"))
        );
        assert_eq!(
            psql(&format!(
                "SELECT status || '|' || attempt || '|' || seat FROM mend.work WHERE key = '{key}'"
            )),
            "pending|2|s1",
            "queued again for the seat it paused on"
        );
        let e = resolve_takeover(&s, "t1", "retry", NoSink).unwrap_err();
        assert_eq!(e.code, ErrorCode::TakeoverStale, "{e}");
    }
}
