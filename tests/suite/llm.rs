//! The model boundary against a real HTTP server on 127.0.0.1 (issue 4, points 1–2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use docnav::llm::{
    decide, ApiKey, ChatMessage, ChatModel, ChatRequest, Decision, LlmError, ModelConfig, ModelEnv,
    ModelFlags, OpenAiCompatible, ResponseSchema, SettingNames, Usage, UsageTotals,
};
use pretty_assertions::assert_eq;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::support::fake_model::{FakeModel, Reply};

const SECRET: &str = "sk-test-SECRET123";

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Cmd {
    command: String,
}

fn cmd_schema() -> ResponseSchema {
    ResponseSchema::new(
        "command",
        json!({
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
            "additionalProperties": false
        }),
    )
}

fn conversation() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("You navigate a document tree."),
        ChatMessage::user(format!(
            "Pick the next command.\n{}",
            cmd_schema().instruction()
        )),
    ]
}

fn client(fake: &FakeModel, edit: impl FnOnce(&mut ModelConfig)) -> OpenAiCompatible {
    let mut config = fake.config("test-model");
    edit(&mut config);
    OpenAiCompatible::new(config).unwrap()
}

#[tokio::test]
async fn happy_call_sends_temperature_zero_and_records_usage_and_latency() {
    let fake = FakeModel::start(vec![Reply::text("hello there").usage(42, 3).after(60)]).await;
    let model = client(&fake, |c| c.api_key = Some(ApiKey::new(SECRET)));
    let messages = vec![
        ChatMessage::system("be brief"),
        ChatMessage::user("say hello"),
    ];

    let reply = model.complete(ChatRequest::new(messages)).await.unwrap();

    assert_eq!(
        (reply.text.as_str(), reply.model.as_str(), reply.attempts),
        ("hello there", "test-model", 1)
    );
    assert_eq!(
        reply.usage,
        Usage {
            prompt_tokens: 42,
            completion_tokens: 3
        }
    );
    assert!(
        reply.latency_ms >= 60,
        "latency {} ms below the 60 ms server delay",
        reply.latency_ms
    );
    let totals = model.usage_log().totals();
    let expected = UsageTotals {
        calls: 1,
        failed_calls: 0,
        attempts: 1,
        prompt_tokens: 42,
        completion_tokens: 3,
        latency_ms: reply.latency_ms,
    };
    assert_eq!(totals, expected);
    let received = fake.received();
    assert_eq!(
        received[0].body,
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "say hello"}
            ],
            "temperature": 0.0
        })
    );
    assert_eq!(
        received[0].authorization.as_deref(),
        Some("Bearer sk-test-SECRET123")
    );
    fake.verify().unwrap();
}

#[tokio::test]
async fn json_schema_switch_controls_response_format() {
    let fake = FakeModel::start(vec![Reply::text("{}"), Reply::text("{}")]).await;
    let request = ChatRequest::new(conversation()).with_schema(cmd_schema());
    client(&fake, |c| c.json_schema = true)
        .complete(request.clone())
        .await
        .unwrap();
    client(&fake, |c| c.json_schema = false)
        .complete(request)
        .await
        .unwrap();

    let bodies = fake.requests();
    assert_eq!(
        bodies[0]["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "command", "schema": cmd_schema().schema}})
    );
    assert_eq!(bodies[1].get("response_format"), None);
    assert_eq!(bodies[1]["temperature"], json!(0.0));
    fake.verify().unwrap();
}

#[tokio::test]
async fn rate_limit_with_retry_after_waits_the_stated_time() {
    let fake = FakeModel::start(vec![
        Reply::status(429).header("Retry-After", "1"),
        Reply::text("ok"),
    ])
    .await;
    let model = client(&fake, |_| {}); // backoff base 10 ms: only Retry-After explains a 1 s wait
    let started = Instant::now();
    let reply = model
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap();
    let waited = started.elapsed();

    assert_eq!((reply.text.as_str(), reply.attempts), ("ok", 2));
    assert!(
        waited >= Duration::from_secs(1),
        "retried after {waited:?}, Retry-After said 1 s"
    );
    assert!(reply.latency_ms >= 1000, "latency {} ms", reply.latency_ms);
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(
        fake.requests()[0],
        fake.requests()[1],
        "the retry must resend the same body"
    );
    fake.verify().unwrap();
}

#[tokio::test]
async fn server_error_then_success_is_retried() {
    let fake = FakeModel::start(vec![
        Reply::status(500),
        Reply::status(503),
        Reply::text("ok"),
    ])
    .await;
    let model = client(&fake, |_| {});
    let reply = model
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap();
    assert_eq!((reply.text.as_str(), reply.attempts), ("ok", 3));
    assert_eq!(model.usage_log().totals().attempts, 3);
    fake.verify().unwrap();
}

#[tokio::test]
async fn persistent_server_error_fails_after_all_retries() {
    let fake = FakeModel::start(vec![Reply::status(500); 3]).await;
    let model = client(&fake, |c| c.retry.max_retries = 2);
    let err = model
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap_err();

    let LlmError::Http {
        status,
        attempts,
        ref url,
        ref body,
        ..
    } = err
    else {
        panic!("not Http: {err}")
    };
    assert_eq!((status, attempts), (500, 3));
    assert_eq!(url, &format!("{}/chat/completions", fake.base_url()));
    assert!(body.contains("scripted HTTP 500"), "{body}");
    assert!(err.to_string().contains(&fake.base_url()), "{err}");
    let totals = model.usage_log().totals();
    assert_eq!(
        (totals.calls, totals.failed_calls, totals.attempts),
        (0, 1, 3)
    );
    fake.verify().unwrap();
}

#[tokio::test]
async fn client_error_is_not_retried() {
    let fake = FakeModel::start(vec![Reply::status(400)]).await;
    let err = client(&fake, |_| {})
        .complete(ChatRequest::new(conversation()).with_schema(cmd_schema()))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Http {
                status: 400,
                attempts: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("hint: if this server does not support `response_format`"),
        "{err}"
    );
    // The CLI's message names its flag; a face that names settings otherwise gets its own.
    assert!(
        err.to_string().ends_with("pass `--no-json-schema`"),
        "{err}"
    );
    let library = SettingNames {
        model: "`model=`",
        base_url: "`base_url=`",
        timeout: "`timeout=`",
        no_json_schema: "`json_schema=False`",
    };
    let message = err.message(&library);
    assert!(
        message.ends_with("pass `json_schema=False`") && !message.contains("--no-json-schema"),
        "{message}"
    );
    fake.verify().unwrap();
}

#[tokio::test]
async fn hanging_server_times_out() {
    let fake = FakeModel::start(vec![
        Reply::delay(3_000, "late"),
        Reply::delay(3_000, "late"),
    ])
    .await;
    let model = client(&fake, |c| {
        c.timeout = Duration::from_millis(300);
        c.retry.max_retries = 1;
    });
    let started = Instant::now();
    let err = model
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap_err();
    let elapsed = started.elapsed();

    assert!(
        matches!(
            err,
            LlmError::Timeout {
                timeout_ms: 300,
                attempts: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        elapsed >= Duration::from_millis(600) && elapsed < Duration::from_millis(2_500),
        "{elapsed:?}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn unreachable_server_is_a_transport_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }; // closed again: connections are refused
    let mut config = ModelConfig::new("m", &format!("http://127.0.0.1:{port}/v1")).unwrap();
    config.retry.max_retries = 1;
    config.retry.base = Duration::from_millis(5);
    let err = OpenAiCompatible::new(config)
        .unwrap()
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::Transport { attempts: 2, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains(&format!("127.0.0.1:{port}")),
        "{err}"
    );
}

#[tokio::test]
async fn success_status_with_a_non_completion_body_is_bad_response() {
    let body = r#"{"object": "list", "data": []}"#;
    let fake = FakeModel::start(vec![Reply::raw(200, body), Reply::raw(200, body)]).await;
    let err = client(&fake, |c| c.retry.max_retries = 1)
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::BadResponse { attempts: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("missing field `choices`"), "{err}");
    fake.verify().unwrap();
}

#[tokio::test]
async fn concurrency_is_bounded_by_the_semaphore() {
    let fake = FakeModel::start(vec![Reply::delay(200, "{}"); 4]).await;
    let model: Arc<dyn ChatModel> = Arc::new(client(&fake, |c| c.concurrency = 2));
    let started = Instant::now();
    let calls: Vec<_> = (0..4)
        .map(|_| {
            let model = Arc::clone(&model);
            tokio::spawn(async move { model.complete(ChatRequest::new(conversation())).await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_millis(400),
        "4 calls of 200 ms through 2 slots took {elapsed:?}"
    );
    fake.verify().unwrap();
}

#[tokio::test]
async fn decision_in_prose_and_fences_parses_without_repair() {
    let fake = FakeModel::start(vec![Reply::text(
        "Sure.\n```json\n{\"command\": \"cd 2\"}\n```\nDone.",
    )])
    .await;
    let model: Arc<dyn ChatModel> = Arc::new(client(&fake, |_| {}));
    let decision: Decision<Cmd> = decide(model.as_ref(), conversation(), &cmd_schema())
        .await
        .unwrap();
    assert_eq!(
        decision.value,
        Cmd {
            command: "cd 2".into()
        }
    );
    assert!(!decision.repaired());
    assert_eq!(decision.usage, decision.exchanges[0].response.usage);
    fake.verify().unwrap();
}

#[tokio::test]
async fn malformed_decision_is_repaired_once_then_succeeds() {
    let bad = "I would list the children {command: ls}";
    let fake = FakeModel::start(vec![
        Reply::text(bad).usage(100, 10),
        Reply::text("{\"command\": \"ls\"}").usage(130, 6),
    ])
    .await;
    let model = client(&fake, |_| {});
    let decision: Decision<Cmd> = decide(&model, conversation(), &cmd_schema()).await.unwrap();

    assert_eq!(
        decision.value,
        Cmd {
            command: "ls".into()
        }
    );
    assert!(decision.repaired());
    assert_eq!(
        decision.usage,
        Usage {
            prompt_tokens: 230,
            completion_tokens: 16
        }
    );
    let bodies = fake.requests();
    let repair_messages = bodies[1]["messages"].as_array().unwrap();
    let mut expected: Vec<Value> = bodies[0]["messages"].as_array().unwrap().clone();
    expected.push(json!({"role": "assistant", "content": bad}));
    expected.push(json!({
        "role": "user",
        "content": format!(
            "Your previous reply could not be parsed: no JSON object found in the reply\n{}",
            cmd_schema().instruction()
        )
    }));
    assert_eq!(repair_messages, &expected);
    assert_eq!(bodies[1]["response_format"], bodies[0]["response_format"]);
    assert_eq!(decision.exchanges[1].request.messages.len(), 4);
    fake.verify().unwrap();
}

#[tokio::test]
async fn repair_quotes_the_schema_mismatch() {
    let fake = FakeModel::start(vec![
        Reply::text(r#"{"cmd": "ls"}"#),
        Reply::text(r#"{"command": "ls"}"#),
    ])
    .await;
    let model = client(&fake, |_| {});
    let decision: Decision<Cmd> = decide(&model, conversation(), &cmd_schema()).await.unwrap();
    assert_eq!(decision.value.command, "ls");
    let repair = fake.requests()[1]["messages"][3]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        repair.contains("unknown field `cmd`, expected `command`"),
        "{repair}"
    );
}

#[tokio::test]
async fn malformed_twice_fails_loudly() {
    let fake = FakeModel::start(vec![
        Reply::text("no idea"),
        Reply::text("still {not json}"),
    ])
    .await;
    let model = client(&fake, |_| {});
    let err = decide::<Cmd>(&model, conversation(), &cmd_schema())
        .await
        .unwrap_err();

    let LlmError::BadReply {
        ref excerpt,
        ref error,
        ref replies,
    } = err
    else {
        panic!("not BadReply: {err}")
    };
    assert_eq!(excerpt, "still {not json}");
    assert_eq!(error, "no JSON object found in the reply");
    assert_eq!(
        replies,
        &vec!["no idea".to_string(), "still {not json}".to_string()]
    );
    assert_eq!(
        err.to_string(),
        "model reply is not a valid decision after one repair round: no JSON object found in the reply; \
         reply began: \"still {not json}\""
    );
    fake.verify().unwrap(); // exactly two calls: no third attempt
}

#[tokio::test]
async fn an_extra_call_is_reported_by_verify() {
    let fake = FakeModel::start(vec![Reply::text("one")]).await;
    let model = client(&fake, |_| {});
    model
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap();
    let err = model
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("unexpected extra call #2"),
        "{err}"
    );
    assert!(
        matches!(
            err,
            LlmError::Http {
                status: 400,
                attempts: 1,
                ..
            }
        ),
        "extra calls must not be retried: {err}"
    );
    assert_eq!(
        fake.verify().unwrap_err(),
        "fake model: 1 unexpected extra call(s) after 1 scripted replies"
    );
    // Reported through `verify`, so dropping `fake` does not panic; the next test checks the drop.
}

#[tokio::test]
#[should_panic(expected = "fake model: 1 unexpected extra call(s)")]
async fn an_extra_call_fails_the_test_on_drop() {
    let fake = FakeModel::start(vec![]).await;
    let _ = client(&fake, |_| {})
        .complete(ChatRequest::new(conversation()))
        .await;
}

#[tokio::test]
async fn an_unserved_reply_is_reported_by_verify() {
    let fake = FakeModel::start(vec![Reply::text("a"), Reply::text("b")]).await;
    client(&fake, |_| {})
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap();
    assert_eq!(
        fake.verify().unwrap_err(),
        "fake model: 1 of 2 scripted replies never requested"
    );
}

/// A `Write` into a shared buffer, to capture tracing output.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn api_key_never_appears_in_logs_errors_or_debug_output() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let env = ModelEnv {
        openai_api_key: Some(SECRET.into()),
        openai_base_url: None,
        docnav_model: Some("test-model".into()),
    };
    let fake = FakeModel::start(vec![
        Reply::status(503),
        Reply::text("not json"),
        Reply::text("nope"),
        // A server that echoes the key back in its error body.
        Reply::raw(
            401,
            format!(r#"{{"error": {{"message": "Incorrect API key provided: {SECRET}"}}}}"#),
        ),
    ])
    .await;
    let flags = ModelFlags {
        base_url: Some(fake.base_url()),
        ..ModelFlags::default()
    };
    let mut config = ModelConfig::resolve(&flags, &env).unwrap();
    config.retry = fake.config("x").retry;
    let model = OpenAiCompatible::new(config.clone()).unwrap();

    let bad_reply = decide::<Cmd>(&model, conversation(), &cmd_schema())
        .await
        .unwrap_err();
    let unauthorized = model
        .complete(ChatRequest::new(conversation()))
        .await
        .unwrap_err();
    let bad_key = OpenAiCompatible::new(ModelConfig {
        api_key: Some(ApiKey::new("sk-\nSECRET123")),
        ..config.clone()
    })
    .unwrap_err();

    let captured = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        captured.contains("model call failed, retrying"),
        "logs not captured: {captured}"
    );
    assert!(captured.contains("did not parse"), "{captured}");
    assert!(
        unauthorized
            .to_string()
            .contains("Incorrect API key provided: [redacted]"),
        "{unauthorized}"
    );
    let shown = [
        captured,
        format!("{config:?} {env:?} {model:?}"),
        format!("{bad_reply} {bad_reply:?}"),
        format!("{unauthorized} {unauthorized:?}"),
        format!("{bad_key} {bad_key:?}"),
    ];
    for text in shown {
        assert!(!text.contains("SECRET123"), "the API key leaked: {text}");
    }
    assert_eq!(
        fake.received()[0].authorization.as_deref(),
        Some("Bearer sk-test-SECRET123")
    );
    fake.verify().unwrap();
}

#[test]
fn no_model_configured_names_every_setting() {
    let err = ModelConfig::resolve(&ModelFlags::default(), &ModelEnv::default()).unwrap_err();
    assert!(matches!(err, LlmError::NotConfigured { .. }));
    let message = err.to_string();
    for setting in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "DOCNAV_MODEL",
        "--model",
    ] {
        assert!(
            message.contains(setting),
            "{setting} missing from: {message}"
        );
    }
}

/// `docnav ask` against a server that refuses connections: exit 1 and one plain `error:` line
/// naming the URL, the attempts, the cause once, and what to check; no colour codes off a TTY.
#[test]
fn ask_against_an_unreachable_server_prints_one_plain_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let notes = super::common::fixture("notes.txt");
    let r = super::common::run(&ws, &["index", notes.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let out = super::common::docnav(&ws)
        .env_remove("NO_COLOR")
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("DOCNAV_MODEL", "m")
        .args(["ask", "how do I keep indexes apart?", "--retries", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    let line = errors[0];
    assert!(
        line.starts_with(&format!(
            "error: cannot reach model server http://127.0.0.1:{port}/v1/chat/completions (1 attempt): "
        )),
        "{line}"
    );
    assert_eq!(line.matches("onnection refused").count(), 1, "{line}");
    assert!(
        line.ends_with("(hint: is the server running? check `--base-url` / `OPENAI_BASE_URL`)"),
        "{line}"
    );
    assert_eq!(stderr.matches("onnection refused").count(), 1, "{stderr}");
}
