//! Model configuration: command-line flags over environment values over defaults.
//!
//! **What "configured" means.** A model name is required (`--model` or `DOCNAV_MODEL`), and so is
//! a way to reach a server: an API key (`OPENAI_API_KEY`; the base URL then defaults to OpenAI's)
//! or a base URL (`--base-url` or `OPENAI_BASE_URL`; local servers such as Ollama, vLLM, llama.cpp
//! or LM Studio need no key, and none is sent). Anything less is [`LlmError::NotConfigured`].
//!
//! Environment values are passed in as a [`ModelEnv`] so that deep code never reads the process
//! environment and tests never mutate it.

use std::fmt;
use std::time::Duration;

use super::error::LlmError;
use super::retry::RetryPolicy;

/// OpenAI's API base, used when an API key is given without a base URL.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Default per-attempt timeout: 60 s.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Default bound on concurrent requests.
const DEFAULT_CONCURRENCY: usize = 4;

/// An API key. Its `Debug` output is `ApiKey(***)`; it has no `Display` and no `Serialize`, so it
/// cannot reach a log, a trace or an error message by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wrap `key`.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Values taken from the process environment (or from a test), all optional; empty strings count
/// as unset.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModelEnv {
    /// `OPENAI_API_KEY`.
    pub openai_api_key: Option<String>,
    /// `OPENAI_BASE_URL`.
    pub openai_base_url: Option<String>,
    /// `DOCNAV_MODEL`.
    pub docnav_model: Option<String>,
}

impl ModelEnv {
    /// Read `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `DOCNAV_MODEL` from the process environment.
    /// For the binary's entry point only; library code takes a `ModelEnv` argument.
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var(name).ok();
        Self {
            openai_api_key: var("OPENAI_API_KEY"),
            openai_base_url: var("OPENAI_BASE_URL"),
            docnav_model: var("DOCNAV_MODEL"),
        }
    }
}

impl fmt::Debug for ModelEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelEnv")
            .field(
                "openai_api_key",
                &self.openai_api_key.as_ref().map(|_| "***"),
            )
            .field("openai_base_url", &self.openai_base_url)
            .field("docnav_model", &self.docnav_model)
            .finish()
    }
}

/// Values from command-line flags; `None` means "not given" (the environment or the default
/// applies).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelFlags {
    /// `--model`: the model name sent to the server.
    pub model: Option<String>,
    /// `--base-url`: the API base, e.g. `http://localhost:11434/v1`.
    pub base_url: Option<String>,
    /// Per-attempt timeout (default 60 s).
    pub timeout: Option<Duration>,
    /// Retries after the first attempt (default 3).
    pub max_retries: Option<u32>,
    /// Maximum concurrent requests (default 4, must be ≥ 1).
    pub concurrency: Option<usize>,
    /// Send `response_format` json_schema (default on; turn off for servers that reject it).
    pub json_schema: Option<bool>,
}

/// A resolved, validated model configuration. `Debug` never shows the API key.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// The model name sent to the server.
    pub model: String,
    /// The API base without trailing `/`; requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …` when present.
    pub api_key: Option<ApiKey>,
    /// Per-attempt timeout, covering sending the request and reading the whole body.
    pub timeout: Duration,
    /// How transient failures are retried.
    pub retry: RetryPolicy,
    /// Maximum requests in flight at once through one client (≥ 1).
    pub concurrency: usize,
    /// Whether a request's schema is sent as `response_format` json_schema.
    pub json_schema: bool,
}

/// `Some(trimmed)` unless `value` is missing or blank.
fn non_empty(value: Option<&String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

impl ModelConfig {
    /// A configuration for `model` at `base_url` with no key and every other value at its default.
    /// Errors: [`LlmError::InvalidConfig`] when `base_url` is not an `http(s)://` URL.
    pub fn new(model: impl Into<String>, base_url: &str) -> Result<Self, LlmError> {
        Ok(Self {
            model: model.into(),
            base_url: normalize_base_url(base_url)?,
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            retry: RetryPolicy::default(),
            concurrency: DEFAULT_CONCURRENCY,
            json_schema: true,
        })
    }

    /// Resolve flags over environment over defaults (see the module doc for what is required).
    ///
    /// Errors: [`LlmError::NotConfigured`] when the model name, or both the key and the base URL,
    /// are missing; [`LlmError::InvalidConfig`] for a base URL that is not `http(s)://…` or a
    /// concurrency of 0.
    pub fn resolve(flags: &ModelFlags, env: &ModelEnv) -> Result<Self, LlmError> {
        let model =
            non_empty(flags.model.as_ref()).or_else(|| non_empty(env.docnav_model.as_ref()));
        let base_url =
            non_empty(flags.base_url.as_ref()).or_else(|| non_empty(env.openai_base_url.as_ref()));
        let api_key = non_empty(env.openai_api_key.as_ref()).map(ApiKey::new);
        let Some(model) = model else {
            return Err(LlmError::NotConfigured {
                missing: "no model name".into(),
            });
        };
        let base_url = match (base_url, &api_key) {
            (Some(url), _) => url,
            (None, Some(_)) => DEFAULT_OPENAI_BASE_URL.to_string(),
            (None, None) => {
                return Err(LlmError::NotConfigured {
                    missing: format!("no API key and no base URL for model `{model}`"),
                })
            }
        };
        let mut config = Self::new(model, &base_url)?;
        config.api_key = api_key;
        if let Some(timeout) = flags.timeout {
            config.timeout = timeout;
        }
        if let Some(retries) = flags.max_retries {
            config.retry.max_retries = retries;
        }
        if let Some(concurrency) = flags.concurrency {
            if concurrency == 0 {
                return Err(LlmError::InvalidConfig(
                    "concurrency must be at least 1, got 0".into(),
                ));
            }
            config.concurrency = concurrency;
        }
        if let Some(on) = flags.json_schema {
            config.json_schema = on;
        }
        Ok(config)
    }

    /// The chat-completions endpoint: `{base_url}/chat/completions`.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }
}

/// Check that `url` parses as an `http`/`https` URL with a host and drop trailing slashes.
fn normalize_base_url(url: &str) -> Result<String, LlmError> {
    let trimmed = url.trim().trim_end_matches('/');
    let parsed = reqwest::Url::parse(trimmed).map_err(|e| {
        LlmError::InvalidConfig(format!("base URL `{trimmed}` does not parse: {e}"))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(LlmError::InvalidConfig(format!(
            "base URL `{trimmed}` must be an http:// or https:// URL with a host"
        )));
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(key: Option<&str>, base: Option<&str>, model: Option<&str>) -> ModelEnv {
        ModelEnv {
            openai_api_key: key.map(String::from),
            openai_base_url: base.map(String::from),
            docnav_model: model.map(String::from),
        }
    }

    #[test]
    fn key_alone_targets_openai() {
        let c = ModelConfig::resolve(
            &ModelFlags::default(),
            &env(Some("sk-x"), None, Some("gpt")),
        )
        .unwrap();
        assert_eq!(c.base_url, DEFAULT_OPENAI_BASE_URL);
        assert_eq!(c.api_key, Some(ApiKey::new("sk-x")));
        assert_eq!(
            (c.timeout, c.concurrency, c.retry.max_retries),
            (DEFAULT_TIMEOUT, 4, 3)
        );
        assert!(c.json_schema);
    }

    #[test]
    fn base_url_alone_needs_no_key_and_flags_win() {
        let flags = ModelFlags {
            model: Some("qwen".into()),
            base_url: Some("http://localhost:11434/v1/".into()),
            json_schema: Some(false),
            ..ModelFlags::default()
        };
        let c =
            ModelConfig::resolve(&flags, &env(None, Some("http://other/v1"), Some("m"))).unwrap();
        assert_eq!(c.model, "qwen");
        assert_eq!(c.chat_url(), "http://localhost:11434/v1/chat/completions");
        assert_eq!(c.api_key, None);
        assert!(!c.json_schema);
    }

    #[test]
    fn missing_pieces_are_not_configured() {
        for e in [
            env(Some("k"), Some("http://h"), None),
            env(None, None, Some("m")),
            env(Some(" "), Some(""), Some("m")),
        ] {
            let err = ModelConfig::resolve(&ModelFlags::default(), &e).unwrap_err();
            assert!(matches!(err, LlmError::NotConfigured { .. }), "{err}");
        }
    }

    #[test]
    fn bad_values_are_invalid_config() {
        let bad_url = env(None, Some("localhost:11434"), Some("m"));
        let err = ModelConfig::resolve(&ModelFlags::default(), &bad_url).unwrap_err();
        assert!(err.to_string().contains("localhost:11434"), "{err}");
        let flags = ModelFlags {
            concurrency: Some(0),
            ..ModelFlags::default()
        };
        let err = ModelConfig::resolve(&flags, &env(Some("k"), None, Some("m"))).unwrap_err();
        assert!(matches!(err, LlmError::InvalidConfig(_)), "{err}");
    }

    #[test]
    fn debug_never_shows_the_key() {
        let e = env(Some("sk-test-SECRET123"), None, Some("gpt"));
        let c = ModelConfig::resolve(&ModelFlags::default(), &e).unwrap();
        let shown = format!("{c:?} {c:#?} {e:?}");
        assert!(!shown.contains("SECRET123"), "{shown}");
        assert!(shown.contains("ApiKey(***)"), "{shown}");
    }
}
