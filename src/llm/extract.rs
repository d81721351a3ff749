//! Finding the one JSON object in a model's reply.
//!
//! Models wrap JSON in code fences or prose ("Sure! Here is the plan: ```json {…} ```"). We scan for
//! each `{`, find its balanced `}` while skipping braces inside JSON strings (with `\` escapes), and
//! try each candidate in order: the first one that deserializes into the wanted type wins. Fences
//! need no special case: they lie outside the braces. Nothing is guessed: a reply without a
//! matching object is an error carrying the parse error of the first candidate.

use serde::de::DeserializeOwned;
use thiserror::Error;

/// Why a reply did not yield the wanted object.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExtractError {
    /// The reply contains no balanced `{…}` that is valid JSON.
    #[error("no JSON object found in the reply")]
    NoObject,
    /// A JSON object was found but does not fit the schema (serde's message, with line/column
    /// relative to the object).
    #[error("the JSON object does not match the schema: {0}")]
    Mismatch(String),
}

/// Index one past the `}` that closes the `{` at `open`, honouring JSON strings and escapes.
fn balanced_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Extract and deserialize the JSON object of type `T` from a model `reply`.
///
/// Returns the first balanced top-level `{…}` (in reading order) that deserializes into `T`; objects
/// nested inside a valid JSON object are never tried on their own. Errors:
/// [`ExtractError::NoObject`] when no candidate is valid JSON, else [`ExtractError::Mismatch`] with
/// serde's error for the first valid-JSON candidate.
pub fn extract_json<T: DeserializeOwned>(reply: &str) -> Result<T, ExtractError> {
    let mut first_error: Option<String> = None;
    let mut start = 0;
    while let Some(offset) = reply[start..].find('{') {
        let open = start + offset;
        // Unbalanced from here: no later `{` can close either.
        let Some(end) = balanced_end(reply.as_bytes(), open) else {
            break;
        };
        // `{` and `}` are ASCII, so `open..end` lies on char boundaries.
        match serde_json::from_str::<serde_json::Value>(&reply[open..end]) {
            Ok(value) => {
                match serde_json::from_value::<T>(value) {
                    Ok(parsed) => return Ok(parsed),
                    Err(e) => {
                        first_error.get_or_insert_with(|| e.to_string());
                    }
                }
                start = end;
            }
            // Not JSON (prose braces): an object may still start inside it.
            Err(_) => start = open + 1,
        }
    }
    Err(first_error.map_or(ExtractError::NoObject, ExtractError::Mismatch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Cmd {
        command: String,
    }

    fn cmd(s: &str) -> Cmd {
        Cmd { command: s.into() }
    }

    #[test]
    fn plain_fenced_and_prose_wrapped_objects() {
        assert_eq!(extract_json::<Cmd>(r#"{"command":"ls"}"#), Ok(cmd("ls")));
        let fenced = "```json\n{\n  \"command\": \"cd 2\"\n}\n```";
        assert_eq!(extract_json::<Cmd>(fenced), Ok(cmd("cd 2")));
        let prose = "Sure! I'll read it: {\"command\": \"cat 1\"} — that should help.";
        assert_eq!(extract_json::<Cmd>(prose), Ok(cmd("cat 1")));
    }

    #[test]
    fn braces_and_quotes_inside_strings_do_not_confuse_the_scan() {
        let reply = r#"Here {"command": "grep \"{\\\"a}\" x"} done"#;
        assert_eq!(extract_json::<Cmd>(reply), Ok(cmd(r#"grep "{\"a}" x"#)));
        let unicode = "Voilà — {\"command\": \"findtree 日本*\"} ✓";
        assert_eq!(extract_json::<Cmd>(unicode), Ok(cmd("findtree 日本*")));
    }

    #[test]
    fn prose_braces_before_the_object_are_skipped() {
        let reply = "I use {braces} in prose, then {\"command\": \"pwd\"}";
        assert_eq!(extract_json::<Cmd>(reply), Ok(cmd("pwd")));
    }

    #[test]
    fn first_object_matching_the_type_wins() {
        let reply = r#"Example: {"other": 1}. Answer: {"command": "done"}"#;
        assert_eq!(extract_json::<Cmd>(reply), Ok(cmd("done")));
    }

    #[test]
    fn objects_nested_in_a_valid_object_are_not_picked() {
        let err = extract_json::<Cmd>(r#"{"plan": {"command": "ls"}}"#).unwrap_err();
        assert!(matches!(err, ExtractError::Mismatch(_)), "{err}");
    }

    #[test]
    fn failures_say_why() {
        assert_eq!(
            extract_json::<Cmd>("no json here"),
            Err(ExtractError::NoObject)
        );
        assert_eq!(
            extract_json::<Cmd>("{\"command\": \"ls\""),
            Err(ExtractError::NoObject)
        );
        assert_eq!(
            extract_json::<Cmd>("{command: ls}"),
            Err(ExtractError::NoObject)
        );
        let err = extract_json::<Cmd>(r#"{"cmd": "ls"}"#).unwrap_err();
        assert!(
            matches!(&err, ExtractError::Mismatch(m) if m.contains("unknown field `cmd`")),
            "{err}"
        );
    }

    #[test]
    fn unbalanced_input_never_panics() {
        for s in ["}", "{", "{{{", "}}{", "\"{\"", "{\"\\", "{\"a\":\"\\\"}"] {
            assert!(extract_json::<Cmd>(s).is_err(), "{s}");
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_replies_never_panic(reply in ".{0,200}") {
            let _ = extract_json::<serde_json::Value>(&reply);
            let _ = extract_json::<Cmd>(&reply);
        }

        #[test]
        fn an_object_in_brace_free_prose_is_found(
            before in "[^{}\"]{0,60}",
            after in "[^{}]{0,60}",
            command in ".{0,30}",
        ) {
            let object = serde_json::json!({ "command": command }).to_string();
            let reply = format!("{before}{object}{after}");
            proptest::prop_assert_eq!(extract_json::<Cmd>(&reply), Ok(Cmd { command }));
        }
    }
}
