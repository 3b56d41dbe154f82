//! The application layer: the one place a live engine is assembled from settings. `mend run`
//! (and `resume`, `takeover resolve`), `mend worker`, `mend locate` and the studio all build
//! their runner and locator here, so a flow meets the same rungs (exact, fuzzy OCR, the
//! accessibility tree, the semantic rung) whichever face started it.

use mend_capture::XcapCapture;
use mend_input::EnigoInput;
use mend_locate::Locator;
use mend_model::MendError;
use mend_runner::{LoadedFlow, Options, Runner, SystemClock};
use mend_store::{RunRecord, Store};

pub mod recording;
pub mod studio;

/// What the studio's shell hands on to its UI, named here so that the shell needs no engine
/// crate but this one and the model.
pub use mend_runner::takeover::{Change, Takeover};
pub use mend_runner::{Progress, Summary};
pub use mend_teach::Event as RecordEvent;

/// Tesseract as Debian builds it (with OpenMP) starts a team of threads for each text it
/// recognises. On a small machine the team spins against itself and against PP-OCR's threads:
/// looking for a control that is not on the practice app's window (a `not_exists` check, a
/// refusal) took 13.9 s with both readers, 3.9 s with one OpenMP thread; Tesseract alone
/// 11.7 s and 1.9 s (issue 35, BENCHMARKS "Checks"). libgomp reads its limit once, when it is
/// loaded, before `main`: a process started without `OMP_THREAD_LIMIT` is started again with
/// it set to 1 (the same process id, arguments and other variables). A limit the caller set is
/// kept. Call it first in `main`.
pub fn limit_ocr_threads() {
    #[cfg(unix)]
    if std::env::var_os("OMP_THREAD_LIMIT").is_none() {
        use std::os::unix::process::CommandExt;
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let mut cmd = std::process::Command::new(exe);
        if let Some(arg0) = args.next() {
            cmd.arg0(arg0);
        }
        let e = cmd.args(args).env("OMP_THREAD_LIMIT", "1").exec();
        eprintln!(
            "note: could not start again with OMP_THREAD_LIMIT=1 ({e}); set it before starting Mend, or OCR is several times slower"
        );
    }
}

/// The OCR languages a run reads with when nothing says otherwise (`--lang`).
pub const DEFAULT_LANG: &str = "chi_sim+eng";

/// The languages a stored run was read with (older runs kept none: the default).
pub fn lang_of(rec: &RunRecord) -> String {
    if rec.lang.is_empty() {
        DEFAULT_LANG.to_string()
    } else {
        rec.lang.clone()
    }
}

/// The flow's secrets, for the semantic rung to redact from what it sends a model.
fn secrets_of(lf: Option<&LoadedFlow>) -> Vec<String> {
    lf.map(|lf| {
        lf.flow
            .steps
            .iter()
            .filter_map(|s| s.text.as_deref())
            .flat_map(mend_model::references)
            .filter_map(|r| r.strip_prefix("secret:"))
            .filter_map(mend_runner::secrets::lookup)
            .collect()
    })
    .unwrap_or_default()
}

/// The semantic rung for one flow: the model at `MEND_LLM_BASE_URL` (told the flow's secrets,
/// to redact them from its prompts) or, without one, the offline matcher.
pub fn set_semantic(locator: &mut Locator, lf: Option<&LoadedFlow>) {
    match mend_llm::from_env(secrets_of(lf)) {
        Some(m) => {
            eprintln!(
                "semantic rung: the model at $MEND_LLM_BASE_URL, the offline matcher as fallback"
            );
            locator.semantic = Box::new(m);
        }
        None => locator.semantic = Box::new(mend_locate::OfflineMatcher),
    }
}

/// The locator every face uses: the readers for `lang` (and `MEND_OCR`'s engine), the
/// desktop's accessibility tree when `live` (not for a screenshot from a file), and the
/// semantic rung for `lf`.
pub fn locator(lang: &str, live: bool, lf: Option<&LoadedFlow>) -> Result<Locator, MendError> {
    let mut locator = Locator::new(lang)?;
    if live {
        locator.use_desktop_tree()?;
    }
    set_semantic(&mut locator, lf);
    Ok(locator)
}

/// What a live runner is built on and what costs to build: the locator with its readers (the
/// OCR engines' start is most of a job's start), the input connection, the damage stream. A
/// worker keeps one set for its life and lends it to each job ([`Parts::runner`]); `mend run`
/// and the studio build one per run.
pub struct Parts {
    pub lang: String,
    locator: Locator,
    input: EnigoInput,
    damage: Option<mend_capture::XDamage>,
}

impl Parts {
    pub fn new(lang: &str) -> Result<Parts, MendError> {
        let locator = locator(lang, true, None)?;
        let input = EnigoInput::new()?;
        // Settle on the X server's damage events (MEND_SETTLE=fingerprints: on a quiet period
        // of identical frames; fingerprints too when the server has no DAMAGE).
        let damage = mend_capture::damage_from_env()?;
        Ok(Parts {
            lang: lang.to_string(),
            locator,
            input,
            damage,
        })
    }

    /// A runner for one flow over these parts, handed to `f`.
    pub fn runner<T>(
        &mut self,
        lf: &LoadedFlow,
        store: &Store,
        on: &mut dyn FnMut(&Progress),
        opts: Options,
        f: impl FnOnce(&mut Runner) -> Result<T, MendError>,
    ) -> Result<T, MendError> {
        set_semantic(&mut self.locator, Some(lf));
        let clock = SystemClock::default();
        let mut runner = Runner::new(
            &XcapCapture,
            &mut self.input,
            &mut self.locator,
            &clock,
            store,
            &mend_runner::secrets::lookup,
            on,
            opts,
        );
        runner.damage = self
            .damage
            .as_mut()
            .map(|d| d as &mut dyn mend_capture::DamageStream);
        f(&mut runner)
    }
}

/// The live runner — window capture, X input, the locator, the system clock, secrets from the
/// environment or the keyring — handed to `f`; a run, a resume and a takeover's answer differ
/// only in what they ask of it.
pub fn with_runner<T>(
    lang: &str,
    lf: &LoadedFlow,
    store: &Store,
    on: &mut dyn FnMut(&Progress),
    opts: Options,
    f: impl FnOnce(&mut Runner) -> Result<T, MendError>,
) -> Result<T, MendError> {
    Parts::new(lang)?.runner(lf, store, on, opts, f)
}
