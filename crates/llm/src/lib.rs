//! The semantic rung with a real language model: any OpenAI-compatible
//! `/v1/chat/completions` endpoint (Ollama, llama.cpp's server, vLLM, a cloud), safe against
//! every way a model can fail.
//!
//! The model gets the step's intent and the candidate controls (text, role guess, box) and must
//! answer JSON `{index, confidence, reason}`, asked for with the endpoint's JSON mode. The answer
//! is parsed strictly; an index out of range, malformed JSON, confidence under 0.7, or a
//! candidate whose role contradicts the target is a refusal (`None`), never an action. Typed
//! secrets are redacted from prompts. The same question on the same screen is asked once
//! (cache keyed by the prompt, which is the target plus what the screen shows). The endpoint
//! has its own breaker: refused connections, hangs past the timeout, 5xx and 429 are retried
//! with backoff, then the endpoint is `LLM_UNAVAILABLE` and the offline matcher answers alone.

use mend_locate::{OfflineMatcher, SeenLabel, SemanticMatcher};
use mend_model::{ErrorCode, MendError, Role, Target};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where the model is. From the environment: `MEND_LLM_BASE_URL` (e.g.
/// `http://127.0.0.1:11434/v1`), `MEND_LLM_MODEL`, `MEND_LLM_API_KEY` (a secret: never logged),
/// `MEND_LLM_TIMEOUT_MS`.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub timeout_ms: u64,
    /// Attempts after the first, with backoff (100 ms, 200 ms, …).
    pub retries: u32,
    /// Consecutive unavailable questions that open the endpoint's breaker.
    pub breaker_after: u32,
    pub breaker_cool_down_ms: u64,
}

impl LlmConfig {
    /// `None` when no endpoint is configured: the offline matcher works alone.
    pub fn from_env() -> Option<LlmConfig> {
        let base_url = std::env::var("MEND_LLM_BASE_URL")
            .ok()
            .filter(|s| !s.is_empty())?;
        Some(LlmConfig {
            base_url,
            model: std::env::var("MEND_LLM_MODEL").unwrap_or_else(|_| "llama3.1".into()),
            api_key: std::env::var("MEND_LLM_API_KEY")
                .ok()
                .filter(|s| !s.is_empty()),
            timeout_ms: std::env::var("MEND_LLM_TIMEOUT_MS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(20_000),
            retries: 2,
            breaker_after: 3,
            breaker_cool_down_ms: 60_000,
        })
    }
}

/// What the model must answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub index: i64,
    pub confidence: f64,
    #[serde(default)]
    pub reason: String,
}

/// One question and what came of it, for the audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Asked {
    pub target: String,
    /// `chosen`, `refused`, `unavailable`, `cached`, `breaker_open`.
    pub outcome: String,
    pub index: Option<usize>,
    pub confidence: Option<f64>,
    pub reason: String,
}

#[derive(Debug, Default)]
struct State {
    cache: HashMap<String, Option<(usize, f64, String)>>,
    failures: u32,
    open_until: Option<Instant>,
    asked: Vec<Asked>,
    /// How many of `asked` the audit has taken.
    drained: usize,
    redact: Vec<String>,
}

pub struct LlmMatcher {
    config: LlmConfig,
    agent: ureq::Agent,
    state: Mutex<State>,
}

/// Below this the model is not sure enough to act on.
pub const MIN_CONFIDENCE: f64 = 0.7;

fn unavailable(msg: impl Into<String>) -> MendError {
    MendError::new(ErrorCode::LlmUnavailable, msg)
}

const SYSTEM: &str = "You help a desktop automation tool click the right control on a legacy application's screen. \
You get the step's intent (the label it was recorded with, the control's role, what it is for) and the controls seen on the screen now. \
Pick the one control the step means, only if its meaning is the same (a reworded label, another language). \
Answer with JSON only: {\"index\": <candidate index, or -1 if none fits>, \"confidence\": <0..1>, \"reason\": \"<short>\"}. \
When two controls could fit, or none does, answer index -1.";

impl LlmMatcher {
    pub fn new(config: LlmConfig) -> Self {
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_millis(config.timeout_ms))
            .build();
        LlmMatcher {
            config,
            agent,
            state: Mutex::new(State::default()),
        }
    }

    /// Texts that must never reach a prompt (the run's typed secrets).
    pub fn redact(&self, secrets: Vec<String>) {
        self.state.lock().expect("lock").redact = secrets;
    }

    /// Every question asked so far (for the audit and tests).
    pub fn asked(&self) -> Vec<Asked> {
        self.state.lock().expect("lock").asked.clone()
    }

    fn prompt(&self, target: &Target, seen: &[SeenLabel]) -> String {
        let redact = self.state.lock().expect("lock").redact.clone();
        let clean = |s: &str| {
            let mut s = s.to_string();
            for r in redact.iter().filter(|r| !r.is_empty()) {
                s = s.replace(r.as_str(), "[redacted]");
            }
            s
        };
        let candidates: Vec<serde_json::Value> = seen
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let r = s.rect();
                serde_json::json!({
                    "index": i,
                    "text": clean(&s.text),
                    "role": s.role(),
                    "box": [r.x, r.y, r.w, r.h],
                })
            })
            .collect();
        serde_json::json!({
            "intent": {
                "label": target.text.as_deref().map(clean),
                "role": target.role,
                "near": target.near.as_deref().map(clean),
                "context": target.context.as_deref().map(clean),
            },
            "candidates": candidates,
        })
        .to_string()
    }

    /// One HTTP exchange: the model's message content, or why not.
    fn ask_once(&self, prompt: &str) -> Result<String, (bool, String)> {
        let url = format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        );
        let body = serde_json::json!({
            "model": self.config.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": prompt},
            ],
        });
        let mut req = self.agent.post(&url);
        if let Some(k) = &self.config.api_key {
            req = req.set("Authorization", &format!("Bearer {k}"));
        }
        match req.send_json(body) {
            Ok(resp) => {
                let v: serde_json::Value = resp
                    .into_json()
                    .map_err(|e| (false, format!("the endpoint's reply is not JSON: {e}")))?;
                v.pointer("/choices/0/message/content")
                    .and_then(|c| c.as_str())
                    .map(str::to_string)
                    .ok_or_else(|| (false, "the reply has no choices[0].message.content".into()))
            }
            // 429 and 5xx may pass; other statuses will not.
            Err(ureq::Error::Status(code, _)) => {
                Err((code == 429 || code >= 500, format!("HTTP {code}")))
            }
            Err(ureq::Error::Transport(t)) => Err((true, format!("transport: {t}"))),
        }
    }

    /// Ask with retries; `Err` is the endpoint being unavailable.
    fn ask(&self, prompt: &str) -> Result<String, MendError> {
        let mut last = String::new();
        for attempt in 0..=self.config.retries {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(100 << (attempt - 1)));
            }
            match self.ask_once(prompt) {
                Ok(c) => return Ok(c),
                Err((true, why)) => last = why,
                Err((false, why)) => return Err(unavailable(why)),
            }
        }
        Err(unavailable(format!(
            "{} did not answer after {} attempts ({last}); the offline matcher answers alone",
            self.config.base_url,
            self.config.retries + 1
        )))
    }

    fn log(&self, target: &Target, outcome: &str, pick: Option<(usize, f64)>, reason: String) {
        self.state.lock().expect("lock").asked.push(Asked {
            target: target.text.clone().unwrap_or_default(),
            outcome: outcome.into(),
            index: pick.map(|p| p.0),
            confidence: pick.map(|p| p.1),
            reason,
        });
    }
}

/// Strict: the whole content is one JSON object of exactly the answer's fields.
pub fn parse_answer(content: &str) -> Result<Answer, String> {
    serde_json::from_str::<Answer>(content.trim()).map_err(|e| format!("malformed answer: {e}"))
}

/// Whether an answer may be acted on: in range, sure enough, and of a role the target allows.
pub fn judge(a: &Answer, target: &Target, seen: &[SeenLabel]) -> Result<(usize, f64), String> {
    if a.index < 0 {
        return Err("the model found no control that fits".into());
    }
    let i = a.index as usize;
    let s = seen
        .get(i)
        .ok_or_else(|| format!("index {i} is out of range (0..{})", seen.len()))?;
    if !(0.0..=1.0).contains(&a.confidence) || a.confidence < MIN_CONFIDENCE {
        return Err(format!(
            "confidence {} is under {MIN_CONFIDENCE}",
            a.confidence
        ));
    }
    let seen_role = s.role();
    // Bare text can be anything's caption; a framed control must be of the target's role.
    let fits = s.control.is_none() || target.role.accepts(seen_role) || target.role == Role::Any;
    if !fits {
        return Err(format!(
            "candidate {i} is a {seen_role:?}, the target a {:?}",
            target.role
        ));
    }
    Ok((i, a.confidence))
}

impl SemanticMatcher for LlmMatcher {
    fn drain_log(&self) -> Vec<String> {
        let mut st = self.state.lock().expect("lock");
        let new: Vec<String> = st.asked[st.drained..]
            .iter()
            .map(|a| serde_json::json!({"llm": a}).to_string())
            .collect();
        st.drained = st.asked.len();
        new
    }

    fn choose(
        &self,
        target: &Target,
        seen: &[SeenLabel],
    ) -> Result<Option<(usize, f64)>, MendError> {
        if seen.is_empty() {
            return Ok(None);
        }
        let prompt = self.prompt(target, seen);
        // (The guard must be gone before `log` locks again.)
        let cached = self.state.lock().expect("lock").cache.get(&prompt).cloned();
        if let Some(hit) = cached {
            self.log(
                target,
                "cached",
                hit.as_ref().map(|h| (h.0, h.1)),
                hit.as_ref().map(|h| h.2.clone()).unwrap_or_default(),
            );
            return Ok(hit.map(|h| (h.0, h.1)));
        }
        let open = {
            let st = self.state.lock().expect("lock");
            st.open_until.is_some_and(|t| Instant::now() < t)
        };
        if open {
            self.log(
                target,
                "breaker_open",
                None,
                "the endpoint's breaker is open".into(),
            );
            return OfflineMatcher.choose(target, seen);
        }
        match self.ask(&prompt) {
            Err(e) => {
                let mut st = self.state.lock().expect("lock");
                st.failures += 1;
                if st.failures >= self.config.breaker_after {
                    st.open_until = Some(
                        Instant::now() + Duration::from_millis(self.config.breaker_cool_down_ms),
                    );
                }
                drop(st);
                self.log(target, "unavailable", None, e.to_string());
                // The chain falls through: the offline matcher, then the anchor rung.
                OfflineMatcher.choose(target, seen)
            }
            Ok(content) => {
                self.state.lock().expect("lock").failures = 0;
                let verdict = parse_answer(&content)
                    .and_then(|a| judge(&a, target, seen).map(|(i, c)| (i, c, a.reason.clone())));
                let (outcome, kept) = match verdict {
                    Ok(v) => ("chosen", Some(v)),
                    Err(why) => {
                        self.log(target, "refused", None, why);
                        self.state.lock().expect("lock").cache.insert(prompt, None);
                        return Ok(None);
                    }
                };
                let v = kept.expect("chosen");
                self.log(target, outcome, Some((v.0, v.1)), v.2.clone());
                self.state
                    .lock()
                    .expect("lock")
                    .cache
                    .insert(prompt, Some(v.clone()));
                Ok(Some((v.0, v.1)))
            }
        }
    }
}

/// The semantic matcher to use: the model when `MEND_LLM_BASE_URL` is set (with `secrets`
/// redacted from its prompts), else `None` (the offline matcher stays).
pub fn from_env(secrets: Vec<String>) -> Option<LlmMatcher> {
    let m = LlmMatcher::new(LlmConfig::from_env()?);
    m.redact(secrets);
    Some(m)
}
