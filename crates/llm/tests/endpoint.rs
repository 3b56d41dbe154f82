//! The LLM rung against a local HTTP server speaking the chat-completions protocol: every way
//! an answer can be wrong or an endpoint can fail ends in a refusal or in the offline matcher,
//! never in an action on a control the model did not validly choose.

use mend_llm::{LlmConfig, LlmMatcher};
use mend_locate::{Locator, Recorded, SeenLabel, SemanticMatcher};
use mend_model::{Rect, Role, Strategy, Target};
use mend_vision::ControlBox;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone)]
enum Reply {
    /// HTTP status and the assistant message's content.
    Content(u16, String),
    Status(u16),
    Hang(u64),
    /// Pick the candidate whose text is this (reads the prompt, like a model would).
    PickText(String),
}

struct Server {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

fn serve(script: Vec<Reply>) -> Server {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", server.server_addr().to_ip().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let log = requests.clone();
    std::thread::spawn(move || {
        for (i, mut req) in server.incoming_requests().enumerate() {
            let mut body = String::new();
            let _ = req.as_reader().read_to_string(&mut body);
            log.lock().unwrap().push(body.clone());
            let reply = script
                .get(i)
                .cloned()
                .unwrap_or_else(|| script.last().unwrap().clone());
            let content = |c: String| {
                serde_json::json!({"choices": [{"message": {"role": "assistant", "content": c}}]})
                    .to_string()
            };
            let resp = match reply {
                Reply::Content(code, c) => {
                    tiny_http::Response::from_string(content(c)).with_status_code(code)
                }
                Reply::Status(code) => {
                    tiny_http::Response::from_string("{}").with_status_code(code)
                }
                Reply::Hang(ms) => {
                    std::thread::sleep(Duration::from_millis(ms));
                    tiny_http::Response::from_string(content("{}".into()))
                }
                Reply::PickText(want) => {
                    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                    let prompt: serde_json::Value =
                        serde_json::from_str(v["messages"][1]["content"].as_str().unwrap())
                            .unwrap();
                    let idx = prompt["candidates"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|c| c["text"] == want.as_str())
                        .map_or(-1, |c| c["index"].as_i64().unwrap());
                    tiny_http::Response::from_string(content(format!(
                        r#"{{"index": {idx}, "confidence": 0.92, "reason": "same meaning"}}"#
                    )))
                }
            };
            let _ = req.respond(resp);
        }
    });
    Server { url, requests }
}

fn config(url: &str) -> LlmConfig {
    LlmConfig {
        base_url: url.into(),
        model: "test".into(),
        api_key: Some("sk-test-secret".into()),
        timeout_ms: 500,
        retries: 2,
        breaker_after: 3,
        breaker_cool_down_ms: 60_000,
    }
}

fn label(text: &str, x: i32, role: Option<Role>) -> SeenLabel {
    SeenLabel {
        text: text.into(),
        line: Rect::new(x + 10, 10, 30, 16),
        control: role.map(|r| ControlBox {
            rect: Rect::new(x, 0, 100, 34),
            role: r,
        }),
        conf: 90.0,
    }
}

fn screen() -> Vec<SeenLabel> {
    vec![
        label("新增", 0, Some(Role::Button)),
        label("开始", 120, Some(Role::Button)),
        label("客户编号", 240, None),
        label("", 360, Some(Role::Field)),
    ]
}

fn target() -> Target {
    Target {
        text: Some("检索客户".into()),
        role: Role::Button,
        context: Some("runs the customer search".into()),
        ..Target::default()
    }
}

fn answer(index: i64, confidence: f64) -> Reply {
    Reply::Content(
        200,
        format!(r#"{{"index": {index}, "confidence": {confidence}, "reason": "r"}}"#),
    )
}

#[test]
fn a_valid_answer_is_taken_and_asked_once_per_screen() {
    let s = serve(vec![answer(1, 0.9)]);
    let m = LlmMatcher::new(config(&s.url));
    assert_eq!(m.choose(&target(), &screen()).unwrap(), Some((1, 0.9)));
    assert_eq!(m.choose(&target(), &screen()).unwrap(), Some((1, 0.9)));
    assert_eq!(
        s.requests.lock().unwrap().len(),
        1,
        "the second question hit the cache"
    );
    let req: serde_json::Value = serde_json::from_str(&s.requests.lock().unwrap()[0]).unwrap();
    assert_eq!(
        req["response_format"]["type"], "json_object",
        "JSON mode asked for"
    );
    let outcomes: Vec<String> = m.asked().into_iter().map(|a| a.outcome).collect();
    assert_eq!(outcomes, vec!["chosen", "cached"]);
    // The run's audit takes each answer once, with its reason.
    let log = m.drain_log();
    assert_eq!(log.len(), 2);
    assert!(log[0].contains("\"reason\":\"r\""), "{}", log[0]);
    assert!(m.drain_log().is_empty());
}

#[test]
fn wrong_or_malformed_answers_are_refusals() {
    let cases = [
        (answer(0, 0.95), "a valid index whose role is right is fine"),
        (answer(3, 0.95), "a field for a button: role contradiction"),
        (answer(9, 0.95), "out of range"),
        (answer(1, 0.5), "low confidence"),
        (answer(-1, 0.9), "no control fits"),
        (Reply::Content(200, "index 1 please".into()), "not JSON"),
        (
            Reply::Content(200, r#"{"index": "1", "confidence": 0.9}"#.into()),
            "index not a number",
        ),
        (
            Reply::Content(200, r#"{"index": 1, "confidence": 0.9, "extra": 1}"#.into()),
            "unknown field",
        ),
    ];
    for (i, (reply, why)) in cases.into_iter().enumerate() {
        let s = serve(vec![reply]);
        let m = LlmMatcher::new(config(&s.url));
        let got = m.choose(&target(), &screen()).unwrap();
        if i == 0 {
            assert_eq!(got, Some((0, 0.95)), "{why}");
        } else {
            assert_eq!(got, None, "{why}: must refuse");
            assert_eq!(m.asked()[0].outcome, "refused", "{why}");
        }
    }
}

#[test]
fn a_failing_endpoint_falls_back_to_the_offline_matcher() {
    // 429 then 500 then a good answer: retried with backoff, then taken.
    let s = serve(vec![Reply::Status(429), Reply::Status(500), answer(1, 0.9)]);
    let m = LlmMatcher::new(config(&s.url));
    assert_eq!(m.choose(&target(), &screen()).unwrap(), Some((1, 0.9)));
    assert_eq!(s.requests.lock().unwrap().len(), 3);

    // Always 503: unavailable → the offline matcher (which finds no synonym here) answers.
    let s = serve(vec![Reply::Status(503)]);
    let m = LlmMatcher::new(config(&s.url));
    assert_eq!(m.choose(&target(), &screen()).unwrap(), None);
    assert_eq!(m.asked()[0].outcome, "unavailable");
    assert!(
        m.asked()[0].reason.contains("LLM_UNAVAILABLE"),
        "{:?}",
        m.asked()
    );

    // A hang past the timeout.
    let s = serve(vec![Reply::Hang(1500)]);
    let mut c = config(&s.url);
    c.retries = 0;
    let m = LlmMatcher::new(c);
    let t0 = std::time::Instant::now();
    assert_eq!(m.choose(&target(), &screen()).unwrap(), None);
    assert!(
        t0.elapsed() < Duration::from_millis(1400),
        "the timeout cut it"
    );
    assert_eq!(m.asked()[0].outcome, "unavailable");

    // Connection refused: nothing listens on the port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let m = LlmMatcher::new(config(&format!("http://127.0.0.1:{port}/v1")));
    assert_eq!(m.choose(&target(), &screen()).unwrap(), None);
    assert_eq!(m.asked()[0].outcome, "unavailable");
}

#[test]
fn the_endpoint_breaker_opens_and_the_offline_matcher_answers() {
    let s = serve(vec![Reply::Status(500)]);
    let mut c = config(&s.url);
    c.retries = 0;
    let m = LlmMatcher::new(c);
    let offline_target = Target {
        text: Some("新增".into()),
        role: Role::Button,
        ..Target::default()
    };
    for _ in 0..3 {
        // Offline knows 新增 exactly: the chain still gets an answer.
        assert_eq!(
            m.choose(&offline_target, &screen()).unwrap(),
            Some((0, 0.85))
        );
    }
    let before = s.requests.lock().unwrap().len();
    let different = Target {
        context: Some("another question".into()),
        ..offline_target.clone()
    };
    m.choose(&different, &screen()).unwrap();
    assert_eq!(s.requests.lock().unwrap().len(), before, "open: not asked");
    assert_eq!(m.asked().last().unwrap().outcome, "breaker_open");
}

#[test]
fn typed_secrets_never_reach_the_prompt() {
    let s = serve(vec![answer(-1, 0.9)]);
    let m = LlmMatcher::new(config(&s.url));
    m.redact(vec!["hunter2".into()]);
    let mut seen = screen();
    seen.push(label("hunter2", 480, Some(Role::Field)));
    m.choose(&target(), &seen).unwrap();
    let body = s.requests.lock().unwrap()[0].clone();
    assert!(!body.contains("hunter2"), "{body}");
    assert!(body.contains("[redacted]"));
}

/// On the practice app's screen: a label reworded beyond fuzzy matching and beyond the offline
/// synonyms (开始检索) is solved by the semantic rung only, through the model.
#[test]
fn the_chain_resolves_a_reworded_button_through_the_model() {
    let shot = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots/zh/baseline/main.png");
    let frame = mend_capture::ImageFileCapture::open(&shot)
        .unwrap()
        .capture(&mend_capture::WindowQuery::title(".*").unwrap())
        .unwrap();
    let t = Target {
        text: Some("开始检索".into()),
        role: Role::Button,
        context: Some("runs the customer search".into()),
        ..Target::default()
    };
    let mut offline = Locator::new("chi_sim+eng").unwrap();
    assert!(
        offline.locate(&frame, &t, &Recorded::default()).is_err(),
        "nothing else solves it"
    );

    let s = serve(vec![Reply::PickText("查询".into())]);
    let mut locator = Locator::new("chi_sim+eng").unwrap();
    locator.semantic = Box::new(LlmMatcher::new(config(&s.url)));
    let l = locator
        .locate(&frame, &t, &Recorded::default())
        .expect("located");
    assert_eq!(l.strategy, Strategy::Semantic);
    assert_eq!(l.text, "查询");
    assert_eq!((l.rect.x, l.rect.y), (380, 62), "the 查询 button");
}

use mend_capture::Capture;
