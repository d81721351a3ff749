//! [`OpenAiCompatible`]: a [`ChatModel`] over the OpenAI chat-completions protocol.
//!
//! The request body is built from async-openai's `CreateChatCompletionRequest` (so the wire format
//! follows the crate that tracks OpenAI's API) and sent with reqwest directly: async-openai's own
//! client hides the response headers, so it cannot honour `Retry-After`, and it has no retries
//! without its middleware feature. The response is read leniently (only `choices[0].message.content`,
//! `usage` and `model`) because local servers omit fields OpenAI always sends.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_openai::types::chat::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage,
    CreateChatCompletionRequest, ResponseFormat, ResponseFormatJsonSchema,
};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use serde::Deserialize;
use tokio::sync::Semaphore;

use super::config::ModelConfig;
use super::error::{excerpt, redact, LlmError};
use super::retry::{is_retryable_status, parse_retry_after};
use super::usage::UsageLog;
use super::{BoxFuture, ChatModel, ChatRequest, ChatResponse, Role, Usage};

/// Chars of an error body kept in [`LlmError::Http`].
const BODY_EXCERPT_CHARS: usize = 300;

/// A client for one model on one OpenAI-compatible server.
///
/// Every call: waits for one of `concurrency` slots, sends with `temperature: 0` and (when the
/// request has a schema and [`ModelConfig::json_schema`] is on) `response_format` json_schema,
/// bounds each attempt by [`ModelConfig::timeout`], retries timeouts, transport errors and HTTP
/// 408/429/5xx per [`ModelConfig::retry`] (honouring `Retry-After`), and records usage and
/// latency in its [`UsageLog`]. The slot is released during backoff waits.
pub struct OpenAiCompatible {
    config: ModelConfig,
    url: String,
    http: reqwest::Client,
    headers: HeaderMap,
    slots: Semaphore,
    usage: Arc<UsageLog>,
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("config", &self.config)
            .field("url", &self.url)
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
    BadResponse(String),
}

impl Failure {
    fn retryable(&self) -> bool {
        match self {
            Failure::Timeout | Failure::Transport(_) => true,
            Failure::Http { status, .. } => is_retryable_status(*status),
            Failure::BadResponse(_) => false,
        }
    }
}

/// The parts of a chat-completion response we read.
#[derive(Deserialize)]
struct WireResponse {
    model: Option<String>,
    choices: Vec<WireChoice>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    message: WireMessage,
}

#[derive(Deserialize)]
struct WireMessage {
    content: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
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
        let http = reqwest::Client::builder()
            .connect_timeout(config.timeout)
            .build()
            .map_err(|e| LlmError::InvalidConfig(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            url: config.chat_url(),
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
                    url: self.url.clone(),
                })?;
                match tokio::time::timeout(self.config.timeout, self.attempt(&body)).await {
                    Ok(result) => result,
                    Err(_) => Err(Failure::Timeout),
                }
            };
            let failure = match outcome {
                Ok((text, usage, model)) => {
                    let latency_ms = elapsed_ms(started);
                    self.usage.record_success(usage, attempts, latency_ms);
                    tracing::debug!(
                        model = %model, url = %self.url, attempts, latency_ms,
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
                tracing::debug!(url = %self.url, attempts, latency_ms, error = %err, "model call failed");
                return Err(err);
            }
            let wait = policy.delay(attempts - 1, retry_after);
            tracing::warn!(
                url = %self.url, attempt = attempts, wait_ms = wait.as_millis() as u64,
                reason = %self.describe(&failure), "model call failed, retrying"
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// One HTTP attempt: send `body`, read the whole response, parse it.
    async fn attempt(&self, body: &serde_json::Value) -> Result<(String, Usage, String), Failure> {
        let key = self.key();
        let response = self
            .http
            .post(&self.url)
            .headers(self.headers.clone())
            .json(body)
            .send()
            .await
            .map_err(|e| Failure::Transport(redact(&transport_message(&e), key)))?;
        let status = response.status().as_u16();
        let retry_after = parse_retry_after(response.headers());
        let bytes = response
            .bytes()
            .await
            .map_err(|e| Failure::Transport(redact(&transport_message(&e), key)))?;
        let text = String::from_utf8_lossy(&bytes);
        if !(200..300).contains(&status) {
            let body = redact(&excerpt(text.trim(), BODY_EXCERPT_CHARS), key);
            return Err(Failure::Http {
                status,
                body,
                retry_after,
            });
        }
        let wire: WireResponse = serde_json::from_str(&text).map_err(|e| {
            Failure::BadResponse(redact(
                &format!("{e}; body began: {:?}", excerpt(&text, 200)),
                key,
            ))
        })?;
        let Some(choice) = wire.choices.into_iter().next() else {
            return Err(Failure::BadResponse("no choices in the response".into()));
        };
        let usage = wire.usage.map_or(Usage::default(), |u| Usage {
            prompt_tokens: u.prompt_tokens.unwrap_or(0),
            completion_tokens: u.completion_tokens.unwrap_or(0),
        });
        let model = wire
            .model
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| self.config.model.clone());
        Ok((choice.message.content.unwrap_or_default(), usage, model))
    }

    fn key(&self) -> Option<&str> {
        self.config.api_key.as_ref().map(|k| k.expose())
    }

    fn describe(&self, failure: &Failure) -> String {
        match failure {
            Failure::Timeout => format!("timed out after {} ms", self.config.timeout.as_millis()),
            Failure::Http { status, .. } => format!("HTTP {status}"),
            Failure::Transport(message) | Failure::BadResponse(message) => message.clone(),
        }
    }

    fn to_error(&self, failure: Failure, attempts: u32, sent_schema: bool) -> LlmError {
        let url = self.url.clone();
        match failure {
            Failure::Timeout => LlmError::Timeout {
                url,
                timeout_ms: self.config.timeout.as_millis() as u64,
                attempts,
            },
            Failure::Http { status, body, .. } => {
                let hint = if sent_schema && (status == 400 || status == 422 || status >= 500) {
                    "\nhint: if this server does not support `response_format` json_schema, turn the json_schema switch off".to_string()
                } else {
                    String::new()
                };
                LlmError::Http {
                    url,
                    status,
                    body,
                    attempts,
                    hint,
                }
            }
            Failure::Transport(message) => LlmError::Transport {
                url,
                message,
                attempts,
            },
            Failure::BadResponse(message) => LlmError::BadResponse { url, message },
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
