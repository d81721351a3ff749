//! [`OpenAiCompatible`]: a [`ChatModel`] over the OpenAI chat-completions protocol.
//!
//! The request body is built from async-openai's `CreateChatCompletionRequest` (so the wire format
//! follows the crate that tracks OpenAI's API) and sent with reqwest directly: async-openai's own
//! client hides the response headers, so it cannot honour `Retry-After`, and it has no retries
//! without its middleware feature. The response is read by [`super::response`]; a success status
//! whose body is not a usable completion is retried like a 5xx.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_openai::types::chat::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage,
    CreateChatCompletionRequest, ResponseFormat, ResponseFormatJsonSchema,
};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use tokio::sync::Semaphore;

use super::config::ModelConfig;
use super::error::{excerpt, redact, LlmError};
use super::response::{parse_completion, Completion, Malformed};
use super::retry::{is_retryable_status, parse_retry_after};
use super::usage::UsageLog;
use super::{BoxFuture, ChatModel, ChatRequest, ChatResponse, Role};

/// Chars of an error body kept in [`LlmError::Http`].
const BODY_EXCERPT_CHARS: usize = 300;

/// Largest response body read, in bytes (32 MiB); a longer body is a malformed reply, so a
/// hostile or broken server cannot exhaust memory within the timeout.
const MAX_BODY_BYTES: usize = 32 << 20;

/// A client for one model on one OpenAI-compatible server.
///
/// Every call: waits for one of `concurrency` slots, sends with `temperature: 0` and (when the
/// request has a schema and [`ModelConfig::json_schema`] is on) `response_format` json_schema,
/// bounds each attempt by [`ModelConfig::timeout`], retries timeouts, transport errors, HTTP
/// 408/429/5xx and malformed successes (a body that is not a chat completion with text, or one
/// cut off mid-way) per [`ModelConfig::retry`] (honouring `Retry-After`), and records usage and
/// latency in its [`UsageLog`]. The slot is released during backoff waits.
pub struct OpenAiCompatible {
    config: ModelConfig,
    url: String,
    /// `url` as shown in messages and logs: a password in the URL is replaced by `***`.
    shown_url: String,
    http: BackgroundClient,
    headers: HeaderMap,
    slots: Semaphore,
    usage: Arc<UsageLog>,
}

/// The HTTP client, built on a thread of its own from [`OpenAiCompatible::new`] on: building
/// it loads and parses the system's root certificates, which then overlaps the work before the
/// first model call instead of preceding it. The first request waits for it.
struct BackgroundClient {
    pending: std::sync::Mutex<Option<std::thread::JoinHandle<Result<reqwest::Client, String>>>>,
    ready: std::sync::OnceLock<Result<reqwest::Client, String>>,
}

impl BackgroundClient {
    fn build(connect_timeout: std::time::Duration) -> BackgroundClient {
        let make = move || {
            super::tls::install_crypto_provider();
            reqwest::Client::builder()
                .connect_timeout(connect_timeout)
                .build()
                .map_err(|e| format!("cannot build the HTTP client: {e}"))
        };
        let ready = std::sync::OnceLock::new();
        let pending = match std::thread::Builder::new()
            .name("http-client".into())
            .spawn(make)
        {
            Ok(handle) => Some(handle),
            Err(_) => {
                let _ = ready.set(make());
                None
            }
        };
        BackgroundClient {
            pending: std::sync::Mutex::new(pending),
            ready,
        }
    }

    /// The client, waiting for its thread the first time. Errors: why it could not be built
    /// (no TLS backend), the same message every time.
    fn get(&self) -> Result<&reqwest::Client, String> {
        self.ready
            .get_or_init(|| {
                let handle = self.pending.lock().ok().and_then(|mut p| p.take());
                match handle.map(std::thread::JoinHandle::join) {
                    Some(Ok(built)) => built,
                    Some(Err(_)) => Err("building the HTTP client panicked".into()),
                    None => Err("the HTTP client was not built".into()),
                }
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("config", &self.config)
            .field("url", &self.shown_url)
            .finish()
    }
}

/// Why one attempt failed, and whether another attempt may succeed.
enum Failure {
    Timeout,
    Http {
        status: u16,
        body: String,
        retry_after: Option<Duration>,
    },
    Transport(String),
    /// A success status with a body that is not a usable completion, or cut off.
    Malformed(Malformed),
}

impl Failure {
    fn retryable(&self) -> bool {
        match self {
            Failure::Timeout | Failure::Transport(_) | Failure::Malformed(_) => true,
            Failure::Http { status, .. } => is_retryable_status(*status),
        }
    }
}

impl OpenAiCompatible {
    /// A client for `config`, with a fresh [`UsageLog`].
    ///
    /// Errors: [`LlmError::InvalidConfig`] when the API key cannot be an HTTP header value (the
    /// message does not quote it), the concurrency is 0, or the HTTP client cannot be built.
    pub fn new(config: ModelConfig) -> Result<Self, LlmError> {
        if config.concurrency == 0 {
            return Err(LlmError::InvalidConfig(
                "concurrency must be at least 1, got 0".into(),
            ));
        }
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(key) = &config.api_key {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                    LlmError::InvalidConfig(
                        "the API key contains characters not allowed in an HTTP header".into(),
                    )
                })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let http = BackgroundClient::build(config.timeout);
        Ok(Self {
            url: config.chat_url(),
            shown_url: without_password(&config.chat_url()),
            slots: Semaphore::new(config.concurrency),
            config,
            http,
            headers,
            usage: Arc::new(UsageLog::new()),
        })
    }

    /// The same client recording into `log` (e.g. one log shared by every model of a run).
    pub fn with_usage_log(mut self, log: Arc<UsageLog>) -> Self {
        self.usage = log;
        self
    }

    /// The usage log this client records into.
    pub fn usage_log(&self) -> Arc<UsageLog> {
        Arc::clone(&self.usage)
    }

    /// The configuration this client was built from.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The exact JSON body sent for `req`: model, messages, `temperature: 0`, and `response_format`
    /// json_schema when `req` has a schema and the switch is on.
    pub fn request_body(&self, req: &ChatRequest) -> serde_json::Value {
        let messages = req
            .messages
            .iter()
            .map(|m| match m.role {
                Role::System => ChatCompletionRequestSystemMessage::from(m.content.as_str()).into(),
                Role::User => ChatCompletionRequestUserMessage::from(m.content.as_str()).into(),
                Role::Assistant => {
                    ChatCompletionRequestAssistantMessage::from(m.content.as_str()).into()
                }
            })
            .collect::<Vec<ChatCompletionRequestMessage>>();
        let response_format = match (&req.json_schema, self.config.json_schema) {
            (Some(schema), true) => Some(ResponseFormat::JsonSchema {
                json_schema: ResponseFormatJsonSchema {
                    description: None,
                    name: schema.name.clone(),
                    schema: schema.schema.clone(),
                    strict: None,
                },
            }),
            _ => None,
        };
        let body = CreateChatCompletionRequest {
            model: self.config.model.clone(),
            messages,
            temperature: Some(0.0),
            response_format,
            ..CreateChatCompletionRequest::default()
        };
        // Cannot fail: every map key in these types is a string and the only float is 0.0.
        serde_json::to_value(&body).unwrap_or(serde_json::Value::Null)
    }

    async fn call(&self, req: ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let body = self.request_body(&req);
        let sent_schema = body.get("response_format").is_some();
        let policy = self.config.retry;
        let mut attempts: u32 = 0;
        loop {
            attempts += 1;
            let outcome = {
                let _slot = self.slots.acquire().await.map_err(|_| LlmError::Shutdown {
                    url: self.shown_url.clone(),
                })?;
                match tokio::time::timeout(self.config.timeout, self.attempt(&body)).await {
                    Ok(result) => result,
                    Err(_) => Err(Failure::Timeout),
                }
            };
            let failure = match outcome {
                Ok(Completion { text, usage, model }) => {
                    let model = model.unwrap_or_else(|| self.config.model.clone());
                    let latency_ms = elapsed_ms(started);
                    self.usage.record_success(usage, attempts, latency_ms);
                    tracing::debug!(
                        model = %model, url = %self.shown_url, attempts, latency_ms,
                        prompt_tokens = usage.prompt_tokens, completion_tokens = usage.completion_tokens,
                        "model call succeeded"
                    );
                    return Ok(ChatResponse {
                        text,
                        usage,
                        latency_ms,
                        model,
                        attempts,
                    });
                }
                Err(failure) => failure,
            };
            let retry_after = match &failure {
                Failure::Http { retry_after, .. } => *retry_after,
                _ => None,
            };
            if !failure.retryable() || attempts > policy.max_retries {
                let latency_ms = elapsed_ms(started);
                self.usage.record_failure(attempts, latency_ms);
                let err = self.to_error(failure, attempts, sent_schema);
                // The caller reports the error; a warning here would print it twice.
                tracing::debug!(url = %self.shown_url, attempts, latency_ms, error = %err, "model call failed");
                return Err(err);
            }
            let wait = policy.delay(attempts - 1, retry_after);
            tracing::warn!(
                url = %self.shown_url, attempt = attempts, wait_ms = wait.as_millis() as u64,
                reason = %self.describe(&failure), "model call failed, retrying"
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// One HTTP attempt: send `body`, read the whole response (at most [`MAX_BODY_BYTES`]),
    /// parse it. A connection that fails before the status line is [`Failure::Transport`]; one
    /// that fails while the body streams in (closed mid-body, a body shorter than its
    /// `Content-Length`) is a cut-off [`Failure::Malformed`] reply.
    async fn attempt(&self, body: &serde_json::Value) -> Result<Completion, Failure> {
        let key = self.key();
        let http = self.http.get().map_err(Failure::Transport)?;
        let mut response = http
            .post(&self.url)
            .headers(self.headers.clone())
            .json(body)
            .send()
            .await
            .map_err(|e| Failure::Transport(redact(&transport_message(&e), key)))?;
        let status = response.status().as_u16();
        let retry_after = parse_retry_after(response.headers());
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                        return Err(Failure::Malformed(Malformed(format!(
                            "a body larger than {} MiB (HTTP {status})",
                            MAX_BODY_BYTES >> 20
                        ))));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => {
                    let cut = String::from_utf8_lossy(&bytes);
                    if !(200..300).contains(&status) {
                        // An error status stays an HTTP error (a 401 is not retried because its
                        // body was cut off).
                        let body = excerpt(redact(&cut, key).trim(), BODY_EXCERPT_CHARS);
                        return Err(Failure::Http {
                            status,
                            body: format!("{body} (body cut off)"),
                            retry_after,
                        });
                    }
                    return Err(Failure::Malformed(Malformed(format!(
                        "a body cut off after {} bytes (HTTP {status}; {}): {:?}",
                        bytes.len(),
                        redact(&transport_message(&e), key),
                        excerpt(&redact(&cut, key), 200)
                    ))));
                }
            }
        }
        if !(200..300).contains(&status) {
            let text = String::from_utf8_lossy(&bytes);
            let body = excerpt(redact(&text, key).trim(), BODY_EXCERPT_CHARS);
            return Err(Failure::Http {
                status,
                body,
                retry_after,
            });
        }
        parse_completion(&bytes, content_type.as_deref(), key).map_err(Failure::Malformed)
    }

    fn key(&self) -> Option<&str> {
        self.config.api_key.as_ref().map(|k| k.expose())
    }

    fn describe(&self, failure: &Failure) -> String {
        match failure {
            Failure::Timeout => format!("timed out after {} ms", self.config.timeout.as_millis()),
            Failure::Http { status, .. } => format!("HTTP {status}"),
            Failure::Transport(message) => message.clone(),
            Failure::Malformed(Malformed(what)) => format!("sent {what}"),
        }
    }

    fn to_error(&self, failure: Failure, attempts: u32, sent_schema: bool) -> LlmError {
        let url = self.shown_url.clone();
        match failure {
            Failure::Timeout => LlmError::Timeout {
                url,
                timeout_ms: self.config.timeout.as_millis() as u64,
                attempts,
            },
            Failure::Http { status, body, .. } => {
                let schema_hint = sent_schema && (status == 400 || status == 422 || status >= 500);
                LlmError::Http {
                    url,
                    status,
                    body,
                    attempts,
                    schema_hint,
                }
            }
            Failure::Transport(message) => LlmError::Transport {
                url,
                message,
                attempts,
            },
            Failure::Malformed(Malformed(message)) => LlmError::BadResponse {
                url,
                message,
                attempts,
            },
        }
    }
}

/// A reqwest error as one line: its causes (`client error (Connect): tcp connect error:
/// Connection refused (os error 111)`), without reqwest's own `error sending request for url
/// (…)` head when there are causes — the URL is already in [`LlmError::Transport`]'s message.
fn transport_message(err: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = std::error::Error::source(err);
    while let Some(inner) = source {
        let text = inner.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = inner.source();
    }
    if parts.is_empty() {
        err.to_string()
    } else {
        parts.join(": ")
    }
}

/// `url` with a password replaced by `***` (`http://user:***@host/v1`); unchanged otherwise.
fn without_password(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl ChatModel for OpenAiCompatible {
    fn complete(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        Box::pin(self.call(req))
    }

    fn model_id(&self) -> &str {
        &self.config.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_the_url_is_never_shown() {
        assert_eq!(
            without_password("http://user:hunter2@127.0.0.1:8080/v1/chat/completions"),
            "http://user:***@127.0.0.1:8080/v1/chat/completions"
        );
        let plain = "http://127.0.0.1:8080/v1/chat/completions";
        assert_eq!(without_password(plain), plain);
    }
}
