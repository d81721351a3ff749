//! Reading a chat-completion response body, and saying exactly what is wrong with one that is not
//! a usable completion.
//!
//! A `200` is only a success when its body is a chat completion with at least one choice whose
//! message has non-empty text. Everything else a server can send with a success status — a body
//! that is not JSON (prose, an HTML error page from a proxy), JSON cut off mid-way, JSON of
//! another shape, `"choices": []`, a message with no content, an empty body — is a
//! [`Malformed`] reply: transient as far as the client can tell (a proxy or an overloaded server
//! produces these and the next attempt usually succeeds), so it is retried like a 5xx.
//!
//! The response is read leniently (only `choices[0].message.content`, `usage` and `model`)
//! because local servers omit fields OpenAI always sends.

use serde::Deserialize;

use super::error::{excerpt, redact};
use super::Usage;

/// Chars of a malformed body quoted in the error.
const BODY_EXCERPT_CHARS: usize = 200;

/// What a malformed response was, as one phrase that completes "model server URL sent …", with
/// an excerpt of the body (API key redacted), e.g. `a body that is not JSON (expected value at
/// line 1 column 1; 6 bytes, text/html): "<html>"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed(pub(crate) String);

/// A usable completion: reply text, usage (zero when the server reports none), and the model
/// name the server reported (`None` when missing or empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Completion {
    pub(crate) text: String,
    pub(crate) usage: Usage,
    pub(crate) model: Option<String>,
}

#[derive(Deserialize)]
struct WireResponse {
    model: Option<String>,
    choices: Vec<WireChoice>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    message: WireMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    content: Option<String>,
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

/// The body as quoted in an error: lossily decoded, `key` redacted (before cutting, so no part
/// of it survives), its first [`BODY_EXCERPT_CHARS`] chars, in `Debug` quotes (so control
/// characters and newlines show as escapes).
fn quoted(body: &[u8], key: Option<&str>) -> String {
    let text = redact(&String::from_utf8_lossy(body), key);
    format!("{:?}", excerpt(&text, BODY_EXCERPT_CHARS))
}

/// `6 bytes, text/html` / `6 bytes`.
fn size_and_type(body: &[u8], content_type: Option<&str>) -> String {
    let bytes = if body.len() == 1 {
        "1 byte".to_string()
    } else {
        format!("{} bytes", body.len())
    };
    match content_type.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => format!("{bytes}, {t}"),
        None => bytes,
    }
}

/// Parse a success-status `body` (with its `Content-Type`, if any) as a chat completion.
///
/// Errors: [`Malformed`] for an empty body, a body that is not JSON or is cut off, JSON that is
/// not a chat completion, no choices, or a first choice whose message has no text (its
/// `finish_reason` and `refusal` are quoted when present). `key` is redacted from every excerpt.
pub(crate) fn parse_completion(
    body: &[u8],
    content_type: Option<&str>,
    key: Option<&str>,
) -> Result<Completion, Malformed> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(Malformed(format!(
            "an empty body ({})",
            size_and_type(body, content_type)
        )));
    }
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        let what = if e.is_eof() {
            "a truncated JSON body"
        } else {
            "a body that is not JSON"
        };
        Malformed(format!(
            "{what} ({e}; {}): {}",
            size_and_type(body, content_type),
            quoted(body, key)
        ))
    })?;
    let wire: WireResponse = serde_json::from_value(value).map_err(|e| {
        Malformed(format!(
            "JSON that is not a chat completion ({e}): {}",
            quoted(body, key)
        ))
    })?;
    let Some(choice) = wire.choices.into_iter().next() else {
        return Err(Malformed(format!(
            "a chat completion with no choices: {}",
            quoted(body, key)
        )));
    };
    let text = choice.message.content.unwrap_or_default();
    if text.trim().is_empty() {
        let mut why = Vec::new();
        if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
            why.push(format!("finish_reason {reason:?}"));
        }
        if let Some(refusal) = choice.message.refusal.filter(|r| !r.is_empty()) {
            why.push(format!(
                "refusal {:?}",
                excerpt(&redact(&refusal, key), BODY_EXCERPT_CHARS)
            ));
        }
        let why = if why.is_empty() {
            String::new()
        } else {
            format!(" ({})", why.join(", "))
        };
        return Err(Malformed(format!(
            "a chat completion whose message has no text{why}"
        )));
    }
    let usage = wire.usage.map_or(Usage::default(), |u| Usage {
        prompt_tokens: u.prompt_tokens.unwrap_or(0),
        completion_tokens: u.completion_tokens.unwrap_or(0),
    });
    Ok(Completion {
        text,
        usage,
        model: wire.model.filter(|m| !m.is_empty()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn malformed(body: &str, content_type: Option<&str>) -> String {
        parse_completion(body.as_bytes(), content_type, Some("sk-SECRET"))
            .unwrap_err()
            .0
    }

    #[test]
    fn a_completion_with_text_is_read_leniently() {
        let body = r#"{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":3}}"#;
        assert_eq!(
            parse_completion(body.as_bytes(), None, None).unwrap(),
            Completion {
                text: "hi".into(),
                usage: Usage {
                    prompt_tokens: 3,
                    completion_tokens: 0
                },
                model: None,
            }
        );
    }

    #[test]
    fn every_malformed_success_says_what_came() {
        assert_eq!(malformed("", None), "an empty body (0 bytes)");
        assert_eq!(
            malformed("<html>502 Bad Gateway</html>", Some("text/html")),
            "a body that is not JSON (expected value at line 1 column 1; 28 bytes, text/html): \
             \"<html>502 Bad Gateway</html>\""
        );
        assert_eq!(
            malformed(r#"{"choices": [{"mess"#, Some("application/json")),
            "a truncated JSON body (EOF while parsing a string at line 1 column 19; 19 bytes, \
             application/json): \"{\\\"choices\\\": [{\\\"mess\""
        );
        assert_eq!(
            malformed(r#"{"object": "list", "data": []}"#, None),
            "JSON that is not a chat completion (missing field `choices`): \
             \"{\\\"object\\\": \\\"list\\\", \\\"data\\\": []}\""
        );
        assert_eq!(
            malformed(r#"{"choices": []}"#, None),
            "a chat completion with no choices: \"{\\\"choices\\\": []}\""
        );
        assert_eq!(
            malformed(
                r#"{"choices": [{"message": {"content": null, "refusal": "no, sk-SECRET"}, "finish_reason": "stop"}]}"#,
                None
            ),
            "a chat completion whose message has no text (finish_reason \"stop\", refusal \
             \"no, [redacted]\")"
        );
        assert_eq!(
            malformed(r#"{"choices": [{"message": {"content": "  "}}]}"#, None),
            "a chat completion whose message has no text"
        );
    }

    #[test]
    fn the_key_is_redacted_and_control_characters_escaped_in_excerpts() {
        let shown = malformed("error: bad key sk-SECRET\u{1b}[31m", None);
        assert!(!shown.contains("sk-SECRET"), "{shown}");
        assert!(shown.contains("[redacted]\\u{1b}[31m"), "{shown}");
        let long = "x".repeat(10_000);
        assert!(malformed(&long, None).chars().count() < 300);
    }
}
