//! The model boundary (DESIGN.md §5).
//!
//! The agent talks to a [`ChatModel`]: messages in, one text reply out, with token usage and latency.
//! [`OpenAiCompatible`] implements it over HTTP for any server speaking the OpenAI chat-completions
//! protocol (OpenAI, Ollama, vLLM, llama.cpp `llama-server`, LM Studio…), with a per-request timeout,
//! retries with exponential backoff and jitter that honour `Retry-After`, and a semaphore bounding
//! concurrent requests. [`decide`] turns one model exchange into one typed JSON decision, with exactly
//! one repair round when the reply does not parse.
//!
//! Tests swap the implementation behind the trait (or point [`OpenAiCompatible`] at a fake server on
//! 127.0.0.1); production code never branches on `cfg!(test)`. The API key never enters a `Debug`
//! or `Display` string, an error or a log line.

mod config;
mod decision;
mod error;
mod extract;
mod openai;
mod response;
mod retry;
mod tls;
mod usage;

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

pub use config::{ApiKey, ModelConfig, ModelEnv, ModelFlags, DEFAULT_OPENAI_BASE_URL};
pub use decision::{decide, Decision, Exchange};
pub use error::{LlmError, SettingNames};
pub use extract::{extract_json, ExtractError};
pub use openai::OpenAiCompatible;
pub use retry::{backoff_delay, parse_retry_after, RetryPolicy};
pub use tls::install_crypto_provider;
pub use usage::{UsageLog, UsageTotals};

/// A boxed, `Send` future borrowing from `'a`; the return type of [`ChatModel::complete`], so the
/// trait stays object-safe (`Arc<dyn ChatModel>`) without the `async-trait` crate.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A chat model: one request (a conversation) in, one assistant reply out.
///
/// Implementations must be shareable across tasks (`Send + Sync`) and usable as
/// `Arc<dyn ChatModel>`. Errors are fatal for the step that asked (DESIGN.md: "model fails, we
/// fail"); retrying transient failures is the implementation's job, not the caller's.
pub trait ChatModel: Send + Sync {
    /// Send `req` and return the reply text with usage and latency.
    ///
    /// Errors: [`LlmError`] on timeout, HTTP failure, transport failure or a response that is not
    /// a chat completion, after the implementation's own retries are spent.
    fn complete(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>>;

    /// The model name sent to the server (e.g. `gpt-4o-mini`, `qwen2.5:7b`), for traces and stats.
    fn model_id(&self) -> &str;
}

/// Who wrote a message in a conversation; serialized lowercase (`"system"`, `"user"`, `"assistant"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the whole conversation.
    System,
    /// The caller's turn (prompts, observations, repair requests).
    User,
    /// The model's turn (earlier replies replayed as context).
    Assistant,
}

/// One message of a conversation: a role and its plain-text content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who wrote it.
    pub role: Role,
    /// The text, sent verbatim.
    pub content: String,
}

impl ChatMessage {
    /// A system message with `content`.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }

    /// A user message with `content`.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// An assistant message with `content`.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// A JSON Schema for a structured reply, sent as `response_format: {type: "json_schema", …}` when
/// the model's configuration allows it ([`ModelConfig::json_schema`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseSchema {
    /// Schema name: `a-z`, `A-Z`, `0-9`, `_` or `-`, at most 64 chars (OpenAI's rule).
    pub name: String,
    /// The JSON Schema object itself.
    pub schema: serde_json::Value,
}

impl ResponseSchema {
    /// A schema named `name` with body `schema`.
    pub fn new(name: impl Into<String>, schema: serde_json::Value) -> Self {
        Self {
            name: name.into(),
            schema,
        }
    }

    /// The instruction that states this schema in a prompt: one sentence asking for exactly one
    /// JSON object, followed by the schema as compact JSON. Used by [`decide`]'s repair round and
    /// available to prompt builders so the prompt and the repair state the schema identically.
    pub fn instruction(&self) -> String {
        format!(
            "Reply with exactly one JSON object and nothing else. It must match this JSON Schema:\n{}",
            self.schema
        )
    }
}

/// One call to a [`ChatModel`]: the conversation and an optional schema for the reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation, oldest first.
    pub messages: Vec<ChatMessage>,
    /// When set, the reply should be one JSON object matching this schema.
    pub json_schema: Option<ResponseSchema>,
}

impl ChatRequest {
    /// A plain-text request over `messages`.
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        Self {
            messages,
            json_schema: None,
        }
    }

    /// The same request asking for a reply matching `schema`.
    pub fn with_schema(mut self, schema: ResponseSchema) -> Self {
        self.json_schema = Some(schema);
        self
    }
}

/// Token counts of one call as reported by the server; zero when the server reports none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt (all messages), per the server's tokenizer.
    pub prompt_tokens: u64,
    /// Tokens in the reply.
    pub completion_tokens: u64,
}

/// Field-wise sum, saturating.
impl std::ops::Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens.saturating_add(other.prompt_tokens),
            completion_tokens: self
                .completion_tokens
                .saturating_add(other.completion_tokens),
        }
    }
}

/// The reply to one [`ChatRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The assistant's reply text (empty if the server sent no content).
    pub text: String,
    /// Token usage reported for the successful attempt.
    pub usage: Usage,
    /// Wall time of the whole call in milliseconds: queueing for a concurrency slot, every attempt
    /// and every backoff wait included.
    pub latency_ms: u64,
    /// The model that answered, as the server named it (falls back to the requested model).
    pub model: String,
    /// HTTP attempts made (1 when the first attempt succeeded).
    pub attempts: u32,
}
