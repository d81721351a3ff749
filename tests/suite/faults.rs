//! The model client and `docnav ask` against the fault server (issue 11, points 1 and 3): every
//! way a flaky server or a proxy answers badly is retried like a 5xx and ends, if it persists, in
//! one clear error naming the server and what it sent — never the API key.

use std::sync::Arc;
use std::time::Duration;

use docnav::llm::{
    decide, ApiKey, ChatMessage, ChatModel, ChatRequest, LlmError, ModelConfig, OpenAiCompatible,
    ResponseSchema,
};
use pretty_assertions::assert_eq;
use serde::Deserialize;
use serde_json::{json, Value};

use super::common::{docnav, fixture, run};
use crate::support::fault_server::{Fault, FaultServer, Step};
use crate::support::oracle::Oracle;

const SECRET: &str = "sk-test-FAULTS-SECRET42";
const GOOD: &str = r#"{"command": "ls"}"#;

#[derive(Debug, PartialEq, Deserialize)]
struct Cmd {
    command: String,
}

fn schema() -> ResponseSchema {
    ResponseSchema::new(
        "command",
        json!({"type": "object", "properties": {"command": {"type": "string"}},
               "required": ["command"], "additionalProperties": false}),
    )
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("Pick the next command.")]).with_schema(schema())
}

/// Per-attempt timeout of [`client`]: what a hang costs. Generous, so that a loaded machine
/// never turns a slow good answer into a timeout.
const TIMEOUT_MS: u64 = 1500;

/// A client for `server`: [`TIMEOUT_MS`] per attempt, `retries` retries 5–20 ms apart, the
/// test key.
fn client(server: &FaultServer, retries: u32) -> OpenAiCompatible {
    let mut config = ModelConfig::new("fault-model", &server.base_url()).unwrap();
    config.api_key = Some(ApiKey::new(SECRET));
    config.timeout = Duration::from_millis(TIMEOUT_MS);
    config.retry.max_retries = retries;
    config.retry.base = Duration::from_millis(5);
    config.retry.cap = Duration::from_millis(20);
    OpenAiCompatible::new(config).unwrap()
}

/// Faults the HTTP client sees (everything but a wrong reply text).
fn http_faults() -> Vec<Fault> {
    Fault::ALL
        .into_iter()
        .filter(|f| !f.is_in_content())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_http_fault_and_malformed_success_is_retried_then_the_reply_is_used() {
    let mut runs = tokio::task::JoinSet::new();
    for fault in http_faults() {
        runs.spawn(async move {
            let server = FaultServer::scripted(vec![Step::Fault(fault), Step::Reply(GOOD.into())]);
            let reply = client(&server, 1).complete(request()).await;
            let stats = server.stats();
            (
                fault,
                reply
                    .map(|r| (r.text, r.attempts))
                    .map_err(|e| e.to_string()),
                stats.requests,
            )
        });
    }
    let mut outcomes = Vec::new();
    while let Some(done) = runs.join_next().await {
        outcomes.push(done.unwrap());
    }
    outcomes.sort_by_key(|(fault, ..)| *fault);
    let expected: Vec<_> = http_faults()
        .into_iter()
        .map(|f| (f, Ok((GOOD.to_string(), 2)), 2))
        .collect();
    assert_eq!(outcomes, expected);
}

/// The error after the retries: which server, how many attempts, what the last one sent.
async fn persistent(fault: Fault) -> (String, String) {
    let server = FaultServer::scripted(vec![Step::Fault(fault); 3]);
    let err = client(&server, 2).complete(request()).await.unwrap_err();
    assert_eq!(server.stats().requests, 3, "{fault:?}: {err}");
    let prefix = format!(
        "model server {}/chat/completions sent a malformed response (3 attempts): the last was ",
        server.base_url()
    );
    let hint = " (hint: check that `--base-url` / `OPENAI_BASE_URL` points at an \
                OpenAI-compatible API)";
    let shown = err.to_string();
    assert!(
        matches!(err, LlmError::BadResponse { attempts: 3, .. }),
        "{shown}"
    );
    assert!(
        shown.starts_with(&prefix) && shown.ends_with(hint),
        "{shown}"
    );
    assert!(!shown.contains(SECRET));
    (
        shown[prefix.len()..shown.len() - hint.len()].to_string(),
        server.base_url(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_keeps_sending_malformed_successes_fails_with_one_clear_error() {
    let (what, _) = persistent(Fault::EmptyChoices).await;
    assert_eq!(
        what,
        r#"a chat completion with no choices: "{\"choices\":[],\"created\":0,\"id\":\"chatcmpl-empty\",\"model\":\"fault-model\",\"object\":\"chat.completion\"}""#
    );
    let (what, _) = persistent(Fault::Html).await;
    assert!(
        what.starts_with(
            "a body that is not JSON (expected value at line 1 column 1; 132 bytes, text/html; \
             charset=utf-8): \"<!DOCTYPE html>\\n<html><head><title>502 Bad Gateway</title>"
        ),
        "{what}"
    );
    let (what, _) = persistent(Fault::EmptyContent).await;
    assert_eq!(
        what,
        "a chat completion whose message has no text (finish_reason \"stop\")"
    );
    let (what, _) = persistent(Fault::WrongShapeBody).await;
    assert_eq!(
        what,
        r#"JSON that is not a chat completion (missing field `choices`): "{\"object\": \"list\", \"data\": []}""#
    );
    let (what, _) = persistent(Fault::TruncatedBody).await;
    assert!(
        what.starts_with("a truncated JSON body (EOF while parsing"),
        "{what}"
    );
    let (what, _) = persistent(Fault::ClosedMidBody).await;
    assert!(what.starts_with("a body cut off after "), "{what}");
    assert!(what.contains("(HTTP 200; "), "{what}");
}

#[tokio::test(flavor = "multi_thread")]
async fn hangs_rate_limits_and_5xx_keep_their_own_errors() {
    let server = FaultServer::scripted(vec![Step::Fault(Fault::HeadersThenNothing); 2]);
    let err = client(&server, 1).complete(request()).await.unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Timeout {
                attempts: 2,
                timeout_ms: TIMEOUT_MS,
                ..
            }
        ),
        "{err}"
    );
    let server = FaultServer::scripted(vec![
        Step::Fault(Fault::RateLimited),
        Step::Fault(Fault::Unavailable),
    ]);
    let err = client(&server, 1).complete(request()).await.unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Http {
                status: 503,
                attempts: 2,
                ..
            }
        ),
        "{err}"
    );
}

/// A cut-off body keeps an error status an HTTP error: a 401 is not retried.
#[tokio::test(flavor = "multi_thread")]
async fn an_error_status_with_a_cut_off_body_is_not_retried() {
    let body = r#"{"error": {"message": "invalid API key, see the documentation"}}"#;
    let server = FaultServer::scripted(vec![Step::Cut {
        status: 401,
        body: body.into(),
    }]);
    let err = client(&server, 3).complete(request()).await.unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Http {
                status: 401,
                attempts: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .ends_with(r#"(1 attempt): {"error": {"message": "invalid A (body cut off)"#),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_echoing_the_key_is_quoted_redacted() {
    let page = format!("<html>invalid key {SECRET} for this proxy</html>");
    let step = Step::Raw {
        status: 200,
        content_type: "text/html".into(),
        body: page,
    };
    let server = FaultServer::scripted(vec![step]);
    let err = client(&server, 0).complete(request()).await.unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(
        shown.contains("invalid key [redacted] for this proxy"),
        "{shown}"
    );
    assert_eq!(
        server.stats().authorizations,
        vec![format!("Bearer {SECRET}")]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_reply_text_gets_one_repair_round() {
    let server = FaultServer::scripted(vec![
        Step::Fault(Fault::Prose),
        Step::Fault(Fault::ServerError),
        Step::Reply(GOOD.into()),
    ]);
    let model = client(&server, 1);
    let decision = decide::<Cmd>(&model, request().messages, &schema())
        .await
        .unwrap();
    assert_eq!(
        decision.value,
        Cmd {
            command: "ls".into()
        }
    );
    assert!(decision.repaired());

    let server = FaultServer::scripted(vec![
        Step::Fault(Fault::WrongShapeContent),
        Step::Fault(Fault::TruncatedContent),
    ]);
    let err = decide::<Cmd>(&client(&server, 0), request().messages, &schema())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::BadReply { .. }), "{err}");
}

#[test]
fn seeded_draws_are_reproducible_and_hit_the_rate_and_every_kind() {
    let kinds = Fault::ALL;
    let draws = |seed: u64| -> Vec<Option<Fault>> {
        (0..4000u64)
            .map(|i| {
                let body = format!("{{\"request\": {}}}", i / 2);
                FaultServer::draw_fault(seed, 0.3, &kinds, body.as_bytes(), i % 2)
            })
            .collect()
    };
    let a = draws(7);
    assert_eq!(a, draws(7));
    assert_ne!(a, draws(8));
    let faults = a.iter().flatten().count();
    assert!((1000..=1400).contains(&faults), "{faults} of 4000");
    for kind in kinds {
        assert!(a.contains(&Some(kind)), "{kind:?} never drawn");
    }
}

/// `docnav ask` where every model call first meets an HTTP-level fault (a hang, a 429, an HTML
/// page, a cut-off body…): it answers with evidence, exits 0, the trace replays identically, and
/// the key appears nowhere.
#[tokio::test(flavor = "multi_thread")]
async fn ask_through_a_faulty_server_answers_replays_and_never_shows_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let faq = fixture("ripgrep__FAQ.md");
    let notes = fixture("notes.txt");
    let r = run(
        &ws,
        &["index", faq.to_str().unwrap(), notes.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let question = "can rg look inside gzip or xz archives?";
    let oracle = Oracle {
        questions: vec![(question.to_string(), "ripgrep-faq".to_string())],
        default_doc: "ripgrep-faq".into(),
    };
    let server = FaultServer::every_first_attempt(
        11,
        &http_faults(),
        Arc::new(move |request: &Value| oracle.answer(request)),
    );
    let trace = dir.path().join("faults.jsonl");
    let mut ask = docnav(&ws);
    ask.args([
        "ask",
        question,
        "--json",
        "--timeout",
        "0.5",
        "--retries",
        "2",
    ])
    .arg("--trace")
    .arg(&trace)
    .env("DOCNAV_MODEL", "fault-model")
    .env("OPENAI_BASE_URL", server.base_url())
    .env("OPENAI_API_KEY", SECRET)
    .env("RUST_LOG", "warn");
    let out: super::common::Run = tokio::task::spawn_blocking(move || ask.output().unwrap().into())
        .await
        .unwrap();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    let evidence = answer["evidence"].as_array().unwrap();
    assert!(!evidence.is_empty(), "{}", out.stdout);
    assert_eq!(evidence[0]["doc_id"], "ripgrep-faq");

    // Each call met exactly one fault (a reply that came too late on a loaded machine is retried
    // too, hence `>=`).
    let stats = server.stats();
    let faults: u64 = stats.faults.values().sum();
    assert!(stats.replies >= faults, "{stats:?}");
    // The run's four calls (analysis, plan with the first command, the next command,
    // evaluation) each met one.
    assert!(faults >= 4, "{stats:?}");
    assert!(stats
        .authorizations
        .iter()
        .all(|a| a == &format!("Bearer {SECRET}")));
    assert!(
        out.stderr.contains("model call failed, retrying"),
        "{}",
        out.stderr
    );

    let replay = run(&ws, &["replay", trace.to_str().unwrap()]);
    assert_eq!(replay.code, 0, "{}", replay.stderr);
    assert!(
        replay.stdout.starts_with("replay identical: "),
        "{}",
        replay.stdout
    );
    let trace_text = std::fs::read_to_string(&trace).unwrap();
    for (what, text) in [
        ("stdout", &out.stdout),
        ("stderr", &out.stderr),
        ("trace", &trace_text),
        ("replay", &replay.stdout),
    ] {
        assert!(!text.contains(SECRET), "API key leaked into {what}");
        assert!(!text.contains("panicked"), "{what}: {text}");
    }
}
