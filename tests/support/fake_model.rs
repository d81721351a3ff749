//! A fake OpenAI chat-completions server on 127.0.0.1 serving scripted replies in order
//! (STYLE.md "The model boundary"; after codex `core/tests/common/responses.rs`).
//!
//! ```ignore
//! let fake = FakeModel::start(vec![
//!     Reply::status(429).header("Retry-After", "1"),
//!     Reply::text(r#"{"command": "ls"}"#).usage(120, 8),
//!     Reply::delay(5_000, "too late"),
//! ])
//! .await;
//! let model = OpenAiCompatible::new(fake.config("test-model"))?;
//! // … drive the code under test …
//! assert_eq!(fake.requests()[0]["temperature"], 0.0);
//! fake.verify()?; // every reply served, no extra call
//! ```
//!
//! Every `POST /v1/chat/completions` is recorded (body and `Authorization` header) and answered by
//! the next scripted reply. A call after the script is exhausted is answered with HTTP 400 and a
//! body saying "fake model: unexpected extra call", counted, and makes [`FakeModel::verify`] return
//! an error; dropping a `FakeModel` that saw an extra call panics (unless `verify` already reported
//! it), so the test fails even if it never calls `verify`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use docnav::llm::{ModelConfig, RetryPolicy};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The path the fake serves, under [`FakeModel::base_url`].
const CHAT_PATH: &str = "/v1/chat/completions";

/// What the body of a scripted reply is.
#[derive(Debug, Clone)]
enum Body {
    /// A chat completion whose message content is this text.
    Text(String),
    /// An OpenAI-style error object.
    Error,
    /// These bytes verbatim.
    Raw(String),
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
    delay: Option<Duration>,
    usage: Option<(u64, u64)>,
    when: Option<String>,
}

impl Reply {
    /// HTTP 200 with a chat completion whose content is `text`. Usage defaults to an estimate of
    /// chars/4 (rounded up) for the request's message contents and for `text`; see [`Reply::usage`].
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            body: Body::Text(text.into()),
            delay: None,
            usage: None,
            when: None,
        }
    }

    /// HTTP `status` with an OpenAI-style error body (`{"error": {"message": …}}`).
    pub fn status(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Body::Error,
            delay: None,
            usage: None,
            when: None,
        }
    }

    /// HTTP `status` with `body` verbatim (e.g. a malformed completion).
    pub fn raw(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Body::Raw(body.into()),
            delay: None,
            usage: None,
            when: None,
        }
    }

    /// [`Reply::text`] sent only after `ms` milliseconds (a slow or hanging server).
    pub fn delay(ms: u64, text: impl Into<String>) -> Self {
        Self::text(text).after(ms)
    }

    /// The same reply, sent after `ms` milliseconds.
    pub fn after(mut self, ms: u64) -> Self {
        self.delay = Some(Duration::from_millis(ms));
        self
    }

    /// The same reply with response header `name: value`.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// The same reply reporting `prompt_tokens` and `completion_tokens` as its usage.
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        self.usage = Some((prompt_tokens, completion_tokens));
        self
    }

    /// Serve this reply only to a request whose message contents contain `needle` (e.g. a
    /// worker's "Task in document `guide`"), so parallel workers get their own replies whatever
    /// order their calls arrive in. Untagged replies answer any request; the first reply in script
    /// order that matches is served.
    pub fn when(mut self, needle: &str) -> Self {
        self.when = Some(needle.to_string());
        self
    }

    fn matches(&self, request: &Value) -> bool {
        let Some(needle) = &self.when else {
            return true;
        };
        request
            .get("messages")
            .and_then(Value::as_array)
            .is_some_and(|m| {
                m.iter()
                    .filter_map(|m| m.get("content").and_then(Value::as_str))
                    .any(|c| c.contains(needle.as_str()))
            })
    }

    fn render(&self, request: &Value) -> ResponseTemplate {
        let mut template = ResponseTemplate::new(self.status);
        template = match &self.body {
            Body::Text(text) => {
                let (prompt, completion) = self.usage.unwrap_or_else(|| (estimate_prompt(request), estimate(text)));
                template.set_body_json(json!({
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": 0,
                    "model": request.get("model").cloned().unwrap_or(Value::Null),
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop"
                    }],
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion
                    }
                }))
            }
            Body::Error => template.set_body_json(json!({
                "error": {"message": format!("fake model: scripted HTTP {}", self.status), "type": "fake_error"}
            })),
            Body::Raw(raw) => template.set_body_raw(raw.clone().into_bytes(), "application/json"),
        };
        for (name, value) in &self.headers {
            template = template.insert_header(name.as_str(), value.as_str());
        }
        match self.delay {
            Some(delay) => template.set_delay(delay),
            None => template,
        }
    }
}

/// Token estimate: chars/4, rounded up.
fn estimate(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

fn estimate_prompt(request: &Value) -> u64 {
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    messages
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_str))
        .map(estimate)
        .sum()
}

/// One request the fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The JSON body (`Value::String` of the raw text when it was not JSON).
    pub body: Value,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    script: VecDeque<Reply>,
    received: Vec<RecordedRequest>,
    scripted: usize,
    unexpected: usize,
    /// Set once `verify` has reported the extra calls, so `Drop` need not panic about them.
    reported: bool,
}

struct Responder(Arc<Mutex<State>>);

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = serde_json::from_slice(&request.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&request.body).into_owned()));
        let authorization = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut state = lock(&self.0);
        state.received.push(RecordedRequest {
            body: body.clone(),
            authorization,
        });
        let next = state.script.iter().position(|r| r.matches(&body));
        match next.and_then(|i| state.script.remove(i)) {
            Some(reply) => reply.render(&body),
            None => {
                state.unexpected += 1;
                let n = state.received.len();
                let scripted = state.scripted;
                ResponseTemplate::new(400).set_body_json(json!({"error": {
                    "message": format!("fake model: unexpected extra call #{n} (script had {scripted} replies)"),
                    "type": "fake_error"
                }}))
            }
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    match state.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The running fake server. Dropping it stops it (and panics if it saw an unexpected extra call).
pub struct FakeModel {
    server: MockServer,
    state: Arc<Mutex<State>>,
}

impl FakeModel {
    /// Start a server on 127.0.0.1 that answers the n-th chat-completions call with `script[n]`.
    pub async fn start(script: Vec<Reply>) -> Self {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            scripted: script.len(),
            script: script.into(),
            ..State::default()
        }));
        Mock::given(method("POST"))
            .and(path(CHAT_PATH))
            .respond_with(Responder(Arc::clone(&state)))
            .mount(&server)
            .await;
        Self { server, state }
    }

    /// The API base to configure: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// A [`ModelConfig`] for `model` on this server, tuned for fast tests: no key, 2 s timeout,
    /// 3 retries with a 10 ms backoff base (50 ms cap), concurrency 4, json_schema on.
    pub fn config(&self, model: &str) -> ModelConfig {
        let mut config = match ModelConfig::new(model, &self.base_url()) {
            Ok(config) => config,
            Err(e) => panic!("fake model base URL rejected: {e}"),
        };
        config.timeout = Duration::from_secs(2);
        config.retry = RetryPolicy {
            max_retries: 3,
            base: Duration::from_millis(10),
            cap: Duration::from_millis(50),
            max_retry_after: Duration::from_secs(5),
        };
        config
    }

    /// The JSON bodies received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.state)
            .received
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }

    /// Everything received so far (bodies and `Authorization` headers), in order.
    pub fn received(&self) -> Vec<RecordedRequest> {
        lock(&self.state).received.clone()
    }

    /// Scripted replies not yet served.
    pub fn remaining(&self) -> usize {
        lock(&self.state).script.len()
    }

    /// `Ok` when every scripted reply was served and no extra call came; otherwise an error
    /// saying how many replies were left or how many extra calls arrived.
    pub fn verify(&self) -> Result<(), String> {
        let mut state = lock(&self.state);
        if state.unexpected > 0 {
            state.reported = true;
            return Err(format!(
                "fake model: {} unexpected extra call(s) after {} scripted replies",
                state.unexpected, state.scripted
            ));
        }
        if !state.script.is_empty() {
            return Err(format!(
                "fake model: {} of {} scripted replies never requested",
                state.script.len(),
                state.scripted
            ));
        }
        Ok(())
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let (unexpected, reported) = {
            let state = lock(&self.state);
            (state.unexpected, state.reported)
        };
        if unexpected > 0 && !reported && !std::thread::panicking() {
            panic!("fake model: {unexpected} unexpected extra call(s)");
        }
    }
}
