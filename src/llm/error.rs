//! Errors of the model boundary. Every message names the server URL or the bad value, never the
//! API key: text that comes from the server (error bodies, transport messages) is passed through
//! [`redact`] before it is stored.

use thiserror::Error;

/// `1 attempt`, `4 attempts`.
fn attempts_label(attempts: u32) -> String {
    if attempts == 1 {
        "1 attempt".to_string()
    } else {
        format!("{attempts} attempts")
    }
}

/// How a face names the model settings that errors' hints point at: the CLI's flags
/// ([`SettingNames::CLI`], what `Display` says) or, for a library, its keyword arguments. Each is
/// the text the hint shows, backticks included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingNames {
    /// The model name (`--model`).
    pub model: &'static str,
    /// The API base URL (`--base-url`).
    pub base_url: &'static str,
    /// The per-request timeout (`--timeout`).
    pub timeout: &'static str,
    /// Sending no `response_format` json_schema (`--no-json-schema`).
    pub no_json_schema: &'static str,
}

impl SettingNames {
    /// The CLI's flags.
    pub const CLI: SettingNames = SettingNames {
        model: "`--model`",
        base_url: "`--base-url`",
        timeout: "`--timeout`",
        no_json_schema: "`--no-json-schema`",
    };
}

/// Everything that can go wrong talking to a model. `Display` names settings as the CLI's flags;
/// [`LlmError::message`] as another face names them.
#[derive(Debug, Error)]
pub enum LlmError {
    /// No model is configured. The CLI maps this to exit code 2.
    #[error("{}", self.message(&SettingNames::CLI))]
    NotConfigured {
        /// What is missing, e.g. "no model name".
        missing: String,
    },

    /// A configuration value is present but unusable (bad URL, zero concurrency…).
    #[error("invalid model configuration: {0}")]
    InvalidConfig(String),

    /// Every attempt timed out.
    #[error("{}", self.message(&SettingNames::CLI))]
    Timeout {
        /// The chat-completions URL.
        url: String,
        /// The per-attempt timeout, in ms.
        timeout_ms: u64,
        /// Attempts made.
        attempts: u32,
    },

    /// The server answered with a non-success HTTP status (after retries, for retryable ones).
    #[error("{}", self.message(&SettingNames::CLI))]
    Http {
        /// The chat-completions URL.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// The start of the response body (at most 300 chars), key redacted.
        body: String,
        /// Attempts made.
        attempts: u32,
        /// Whether `response_format` json_schema may be the cause (it was sent and the server
        /// answered 400, 422 or 5xx): the message then says how to turn it off.
        schema_hint: bool,
    },

    /// The request never got an HTTP answer (connection refused, reset, DNS…).
    #[error("{}", self.message(&SettingNames::CLI))]
    Transport {
        /// The chat-completions URL.
        url: String,
        /// The transport error, key redacted.
        message: String,
        /// Attempts made.
        attempts: u32,
    },

    /// A success status, but the body is not a chat completion with text (not JSON, cut off,
    /// another shape, no choices, no content), on every attempt.
    #[error("{}", self.message(&SettingNames::CLI))]
    BadResponse {
        /// The chat-completions URL.
        url: String,
        /// What the last attempt got, with a body excerpt (key redacted), e.g. `a chat
        /// completion with no choices: "{…}"`.
        message: String,
        /// Attempts made.
        attempts: u32,
    },

    /// Replaying a trace: the run asked for something the recording does not have (a request that
    /// differs from the recorded one, or one call too many).
    #[error("replay: {0}")]
    Replay(String),

    /// Replaying a trace: the recorded call failed, and this is its recorded message, verbatim (so
    /// the replayed run fails exactly as the recorded one did).
    #[error("{0}")]
    Recorded(String),

    /// The model's reply is not the JSON decision asked for, even after the repair round.
    #[error("model reply is not a valid decision after one repair round: {error}; reply began: {excerpt:?}")]
    BadReply {
        /// The start of the last reply (at most 200 chars).
        excerpt: String,
        /// The parse error of the last reply.
        error: String,
        /// Every raw reply text, in order (the original and the repair), for the trace.
        replies: Vec<String>,
    },

    /// The client was shut down while the call waited for a concurrency slot.
    #[error("model client for {url} is shut down")]
    Shutdown {
        /// The chat-completions URL.
        url: String,
    },
}

impl LlmError {
    /// The one-line message (a `\nhint: …` line for a missing model or a server that may
    /// reject json_schema), its hints naming the settings as `names` does; `Display` is
    /// `message(&SettingNames::CLI)`.
    pub fn message(&self, names: &SettingNames) -> String {
        match self {
            LlmError::NotConfigured { missing } => format!(
                "no model configured: {missing}\nhint: set `DOCNAV_MODEL` or pass {}, and set \
                 `OPENAI_API_KEY` (OpenAI) or `OPENAI_BASE_URL` (a local server, e.g. \
                 `http://localhost:11434/v1` for Ollama)",
                names.model
            ),
            LlmError::Timeout {
                url,
                timeout_ms,
                attempts,
            } => format!(
                "model request to {url} timed out after {timeout_ms} ms ({}) (hint: a slow local \
                 model may need a longer {})",
                attempts_label(*attempts),
                names.timeout
            ),
            LlmError::Http {
                url,
                status,
                body,
                attempts,
                schema_hint,
            } => {
                let hint = if *schema_hint {
                    format!(
                        "\nhint: if this server does not support `response_format` json_schema, \
                         pass {}",
                        names.no_json_schema
                    )
                } else {
                    String::new()
                };
                format!(
                    "model server {url} returned HTTP {status} ({}): {body}{hint}",
                    attempts_label(*attempts)
                )
            }
            LlmError::Transport {
                url,
                message,
                attempts,
            } => format!(
                "cannot reach model server {url} ({}): {message} (hint: is the server running? \
                 check {} / `OPENAI_BASE_URL`)",
                attempts_label(*attempts),
                names.base_url
            ),
            LlmError::BadResponse {
                url,
                message,
                attempts,
            } => format!(
                "model server {url} sent a malformed response ({}): the last was {message} \
                 (hint: check that {} / `OPENAI_BASE_URL` points at an OpenAI-compatible API)",
                attempts_label(*attempts),
                names.base_url
            ),
            other => other.to_string(),
        }
    }
}

/// Replace every occurrence of `secret` in `text` by `[redacted]`. An empty secret changes nothing.
pub(crate) fn redact(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(s) if !s.is_empty() => text.replace(s, "[redacted]"),
        _ => text.to_string(),
    }
}

/// The first `max` chars of `text` (on a char boundary), with `…` appended when cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((byte, _)) => format!("{}…", &text[..byte]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_configured_names_every_way_to_configure() {
        let msg = LlmError::NotConfigured {
            missing: "no model name".into(),
        }
        .to_string();
        for needle in [
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "DOCNAV_MODEL",
            "--model",
            "no model name",
        ] {
            assert!(msg.contains(needle), "{needle} missing from {msg}");
        }
    }

    #[test]
    fn excerpt_cuts_on_char_boundaries() {
        assert_eq!(excerpt("日本語テキスト", 3), "日本語…");
        assert_eq!(excerpt("short", 10), "short");
        assert_eq!(excerpt("", 0), "");
    }

    #[test]
    fn redact_removes_the_secret_everywhere() {
        assert_eq!(
            redact("key sk-1 and sk-1", Some("sk-1")),
            "key [redacted] and [redacted]"
        );
        assert_eq!(redact("abc", Some("")), "abc");
        assert_eq!(redact("abc", None), "abc");
    }
}
