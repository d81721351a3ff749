//! A fault-injecting OpenAI chat-completions server on 127.0.0.1 (issue 11): every way a flaky
//! model server or a proxy in front of one answers badly, served either from a script (tests) or
//! at a seeded rate around an oracle that gives the right answers (the `faults` bench).
//!
//! ```ignore
//! let server = FaultServer::scripted(vec![
//!     Step::Fault(Fault::Html),
//!     Step::Fault(Fault::RateLimited),
//!     Step::Reply(r#"{"command": "ls"}"#.into()),
//! ]);
//! // point a client at server.base_url() …
//! assert_eq!(server.stats().requests, 3);
//! ```
//!
//! It speaks raw HTTP/1.1 over tokio's `TcpListener` (one request per connection, answered with
//! `Connection: close`), because several faults cannot be expressed by a mock framework: a status
//! line and headers followed by silence, a body cut off below its `Content-Length`, a hang. It
//! runs on its own thread with its own runtime, so it works from plain `#[test]`s, from
//! `#[tokio::test]`s and from a bench `main`.
//!
//! **Seeded faults** ([`FaultServer::seeded`]): whether a request is answered with a fault, and
//! which, is a pure function of the seed, the request body and how many times that exact body
//! was seen before (a retry sends the same body again, so it gets a fresh draw). The draw does not
//! depend on the order in which concurrent requests arrive, so a seed reproduces the same faults
//! run after run.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One kind of bad answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// HTTP 429 with `Retry-After` (see [`FaultServer::retry_after`]).
    RateLimited,
    /// HTTP 500 with an OpenAI-style error body.
    ServerError,
    /// HTTP 503 with an OpenAI-style error body.
    Unavailable,
    /// Read the request, then answer nothing until the client gives up.
    Hang,
    /// HTTP 200, a valid completion whose content is prose instead of the JSON asked for.
    Prose,
    /// HTTP 200, a valid completion whose content is the right JSON cut in half.
    TruncatedContent,
    /// HTTP 200, a valid completion whose content is JSON of another shape.
    WrongShapeContent,
    /// HTTP 200 with a completion body cut in half (complete transfer, invalid JSON).
    TruncatedBody,
    /// HTTP 200 with JSON that is not a chat completion (`{"object": "list", …}`).
    WrongShapeBody,
    /// HTTP 200 with `"choices": []`.
    EmptyChoices,
    /// HTTP 200 with a completion whose message content is empty.
    EmptyContent,
    /// HTTP 200 with an HTML page (`text/html`), as a proxy sends.
    Html,
    /// A status line and headers announcing a body, then silence until the client gives up.
    HeadersThenNothing,
    /// Headers announcing the whole body, half of it, then the connection closes.
    ClosedMidBody,
}

impl Fault {
    /// Every fault, in declaration order.
    pub const ALL: [Fault; 14] = [
        Fault::RateLimited,
        Fault::ServerError,
        Fault::Unavailable,
        Fault::Hang,
        Fault::Prose,
        Fault::TruncatedContent,
        Fault::WrongShapeContent,
        Fault::TruncatedBody,
        Fault::WrongShapeBody,
        Fault::EmptyChoices,
        Fault::EmptyContent,
        Fault::Html,
        Fault::HeadersThenNothing,
        Fault::ClosedMidBody,
    ];

    /// Faults in the reply *text* (a well-formed completion whose content is wrong): the HTTP
    /// layer cannot see them; the decision's repair round must handle them.
    pub fn is_in_content(self) -> bool {
        matches!(
            self,
            Fault::Prose | Fault::TruncatedContent | Fault::WrongShapeContent
        )
    }
}

/// What to send for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A valid completion with this content.
    Reply(String),
    /// A fault; where it needs the right answer (truncated content or body) it uses an empty
    /// JSON object.
    Fault(Fault),
    /// This status, content type and body verbatim.
    Raw {
        status: u16,
        content_type: String,
        body: String,
    },
    /// This status with headers announcing `body`, then half of it, then the connection closes.
    Cut { status: u16, body: String },
}

/// The right answer for a request body (the message content of a good completion).
pub type Oracle = Arc<dyn Fn(&Value) -> String + Send + Sync>;

/// How requests are answered.
enum Mode {
    /// In order; a call after the script is answered with HTTP 400 and counted as unexpected.
    Script(std::collections::VecDeque<Step>),
    /// One of `kinds` chosen by the seeded draw at `first_rate` (0–1) on a body's first
    /// occurrence and at `retry_rate` on later ones; otherwise `oracle`'s answer.
    Seeded {
        seed: u64,
        first_rate: f64,
        retry_rate: f64,
        kinds: Vec<Fault>,
        oracle: Oracle,
        seen: HashMap<[u8; 32], u64>,
    },
}

/// Counters of what the server did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Requests received.
    pub requests: u64,
    /// Good replies sent.
    pub replies: u64,
    /// Faults served, by kind.
    pub faults: std::collections::BTreeMap<Fault, u64>,
    /// Requests after the script ran out.
    pub unexpected: u64,
    /// `Authorization` headers received (to check which key the client sent).
    pub authorizations: Vec<String>,
    /// Request bodies that were not JSON (a client bug).
    pub bad_requests: u64,
}

struct State {
    mode: Mode,
    stats: Stats,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    match state.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// A running fault server; dropping it stops it.
pub struct FaultServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Settings shared by every connection.
#[derive(Clone, Copy)]
struct Timing {
    /// `Retry-After` of [`Fault::RateLimited`], in seconds.
    retry_after: f64,
    /// How long [`Fault::Hang`] and [`Fault::HeadersThenNothing`] stay silent.
    hang: Duration,
}

impl FaultServer {
    /// Serve `script` in order (see [`Step`]); `Retry-After: 0.05`, hangs of 60 s.
    pub fn scripted(script: Vec<Step>) -> FaultServer {
        Self::start(Mode::Script(script.into()), 0.05, Duration::from_secs(60))
    }

    /// Answer each request with a fault at `rate` (0–1) — one of `kinds`, drawn from `seed`, the
    /// body and the body's occurrence count — and with `oracle`'s answer otherwise.
    /// `retry_after` is the 429's `Retry-After` in seconds.
    pub fn seeded(
        seed: u64,
        rate: f64,
        kinds: &[Fault],
        retry_after: f64,
        oracle: Oracle,
    ) -> FaultServer {
        let mode = Mode::Seeded {
            seed,
            first_rate: rate,
            retry_rate: rate,
            kinds: kinds.to_vec(),
            oracle,
            seen: HashMap::new(),
        };
        Self::start(mode, retry_after, Duration::from_secs(3600))
    }

    /// Answer the first attempt of every request with one of `kinds` (drawn from `seed` and the
    /// body) and every later attempt with `oracle`'s answer: each call meets exactly one fault.
    /// `Retry-After` 0.05 s.
    pub fn every_first_attempt(seed: u64, kinds: &[Fault], oracle: Oracle) -> FaultServer {
        let mode = Mode::Seeded {
            seed,
            first_rate: 1.0,
            retry_rate: 0.0,
            kinds: kinds.to_vec(),
            oracle,
            seen: HashMap::new(),
        };
        Self::start(mode, 0.05, Duration::from_secs(3600))
    }

    /// The seeded draw for the `occurrence`-th time (0-based) a request `body` arrives: the
    /// fault it gets at `rate` among `kinds`, or `None` for a good reply.
    pub fn draw_fault(
        seed: u64,
        rate: f64,
        kinds: &[Fault],
        body: &[u8],
        occurrence: u64,
    ) -> Option<Fault> {
        let key: [u8; 32] = Sha256::digest(body).into();
        pick(draw(seed, &key, occurrence), rate, kinds)
    }

    fn start(mode: Mode, retry_after: f64, hang: Duration) -> FaultServer {
        let std_listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        std_listener.set_nonblocking(true).expect("non-blocking");
        let addr = std_listener.local_addr().expect("local address");
        let state = Arc::new(Mutex::new(State {
            mode,
            stats: Stats::default(),
        }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let shared = Arc::clone(&state);
        let timing = Timing { retry_after, hang };
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("fault server runtime");
            runtime.block_on(async move {
                let listener = TcpListener::from_std(std_listener).expect("tokio listener");
                tokio::select! {
                    _ = stopped => {}
                    _ = accept_loop(listener, shared, timing) => {}
                }
            });
            runtime.shutdown_background();
        });
        FaultServer {
            addr,
            state,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The API base to configure: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// What the server did so far.
    pub fn stats(&self) -> Stats {
        lock(&self.state).stats.clone()
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<Mutex<State>>, timing: Timing) {
    loop {
        let Ok((socket, _)) = listener.accept().await else {
            continue;
        };
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let _ = serve(socket, state, timing).await;
        });
    }
}

/// Read one request: headers up to the blank line, then `Content-Length` bytes of body.
async fn read_request(socket: &mut TcpStream) -> std::io::Result<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buf[header_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok((head, body))
}

async fn serve(
    mut socket: TcpStream,
    state: Arc<Mutex<State>>,
    timing: Timing,
) -> std::io::Result<()> {
    let (head, body) = read_request(&mut socket).await?;
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let step = {
        let mut state = lock(&state);
        let authorization = head
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("authorization"))
            .map(|(_, v)| v.trim().to_string());
        let stats = &mut state.stats;
        stats.requests += 1;
        if request.is_null() {
            stats.bad_requests += 1;
        }
        if let Some(a) = authorization {
            stats.authorizations.push(a);
        }
        let step = next_step(&mut state.mode, &body, &request);
        match &step {
            Some(Step::Reply(_) | Step::Raw { .. } | Step::Cut { .. }) => state.stats.replies += 1,
            Some(Step::Fault(f)) => *state.stats.faults.entry(*f).or_insert(0) += 1,
            None => state.stats.unexpected += 1,
        }
        step
    };
    let model = request.get("model").cloned().unwrap_or(Value::Null);
    match step {
        None => {
            let error = json!({"error": {"message": "fault server: unexpected extra call"}});
            respond(
                &mut socket,
                400,
                "application/json",
                &error.to_string(),
                &[],
            )
            .await
        }
        Some(Step::Reply(text)) => respond_json(&mut socket, 200, &completion(&model, &text)).await,
        Some(Step::Raw {
            status,
            content_type,
            body,
        }) => respond(&mut socket, status, &content_type, &body, &[]).await,
        Some(Step::Cut { status, body }) => cut_off(&mut socket, status, &body).await,
        Some(Step::Fault(fault)) => {
            let right = match &state_oracle(&state) {
                Some(oracle) => oracle(&request),
                None => "{}".to_string(),
            };
            send_fault(&mut socket, fault, &model, &right, timing).await
        }
    }
}

/// The seeded mode's oracle, if any (for faults that cut the right answer).
fn state_oracle(state: &Mutex<State>) -> Option<Oracle> {
    match &lock(state).mode {
        Mode::Seeded { oracle, .. } => Some(Arc::clone(oracle)),
        Mode::Script(_) => None,
    }
}

fn next_step(mode: &mut Mode, body: &[u8], request: &Value) -> Option<Step> {
    match mode {
        Mode::Script(script) => script.pop_front(),
        Mode::Seeded {
            seed,
            first_rate,
            retry_rate,
            kinds,
            oracle,
            seen,
        } => {
            let key: [u8; 32] = Sha256::digest(body).into();
            let occurrence = seen.entry(key).or_insert(0);
            let rate = if *occurrence == 0 {
                *first_rate
            } else {
                *retry_rate
            };
            let fault = pick(draw(*seed, &key, *occurrence), rate, kinds);
            *occurrence += 1;
            Some(match fault {
                Some(fault) => Step::Fault(fault),
                None => Step::Reply(oracle(request)),
            })
        }
    }
}

/// A fault among `kinds` when the draw's top 53 bits, as a fraction of 1, fall below `rate`.
fn pick(draw: u64, rate: f64, kinds: &[Fault]) -> Option<Fault> {
    let unit = (draw >> 11) as f64 / (1u64 << 53) as f64;
    if unit < rate && !kinds.is_empty() {
        Some(kinds[(draw % kinds.len() as u64) as usize])
    } else {
        None
    }
}

/// 64 bits from SHA-256 of (seed, body digest, occurrence).
fn draw(seed: u64, body: &[u8; 32], occurrence: u64) -> u64 {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(body);
    h.update(occurrence.to_le_bytes());
    let digest = h.finalize();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

/// A chat completion whose message content is `text`.
fn completion(model: &Value, text: &str) -> String {
    let tokens = (text.chars().count() as u64).div_ceil(4);
    json!({
        "id": "chatcmpl-fault-server",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": tokens, "total_tokens": 100 + tokens}
    })
    .to_string()
}

/// The first half of `text`, on a char boundary.
fn half(text: &str) -> &str {
    let mut cut = text.len() / 2;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

async fn send_fault(
    socket: &mut TcpStream,
    fault: Fault,
    model: &Value,
    right: &str,
    timing: Timing,
) -> std::io::Result<()> {
    let error = |status: u16| {
        json!({"error": {"message": format!("fault server: scripted HTTP {status}"), "type": "server_error"}})
            .to_string()
    };
    match fault {
        Fault::RateLimited => {
            let wait = format!("{}", timing.retry_after);
            let body = error(429);
            respond(
                socket,
                429,
                "application/json",
                &body,
                &[("Retry-After", &wait)],
            )
            .await
        }
        Fault::ServerError => respond_json(socket, 500, &error(500)).await,
        Fault::Unavailable => respond_json(socket, 503, &error(503)).await,
        Fault::Hang => {
            tokio::time::sleep(timing.hang).await;
            Ok(())
        }
        Fault::Prose => {
            let text = "Looking at the documents, I think the installation section is the most \
                        relevant place to start. Let me know if you want more detail.";
            respond_json(socket, 200, &completion(model, text)).await
        }
        Fault::TruncatedContent => respond_json(socket, 200, &completion(model, half(right))).await,
        Fault::WrongShapeContent => {
            let text = r#"{"answer": "see the manual", "confidence": 0.4}"#;
            respond_json(socket, 200, &completion(model, text)).await
        }
        Fault::TruncatedBody => {
            let full = completion(model, right);
            respond_json(socket, 200, half(&full)).await
        }
        Fault::WrongShapeBody => {
            respond_json(socket, 200, r#"{"object": "list", "data": []}"#).await
        }
        Fault::EmptyChoices => {
            let body = json!({"id": "chatcmpl-empty", "object": "chat.completion", "created": 0,
                              "model": model, "choices": []});
            respond_json(socket, 200, &body.to_string()).await
        }
        Fault::EmptyContent => respond_json(socket, 200, &completion(model, "")).await,
        Fault::Html => {
            let page = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n\
                        <body><h1>Bad Gateway</h1><p>upstream timed out</p></body></html>\n";
            respond(socket, 200, "text/html; charset=utf-8", page, &[]).await
        }
        Fault::HeadersThenNothing => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\nconnection: close\r\n\r\n";
            socket.write_all(head.as_bytes()).await?;
            socket.flush().await?;
            tokio::time::sleep(timing.hang).await;
            Ok(())
        }
        Fault::ClosedMidBody => cut_off(socket, 200, &completion(model, right)).await,
    }
}

/// Status line and headers announcing all of `body`, half of it, then close.
async fn cut_off(socket: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} Status\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await?;
    socket.write_all(half(body).as_bytes()).await?;
    socket.flush().await?;
    socket.shutdown().await
}

async fn respond_json(socket: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    respond(socket, status, "application/json", body, &[]).await
}

async fn respond(
    socket: &mut TcpStream,
    status: u16,
    content_type: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    socket.write_all(head.as_bytes()).await?;
    socket.write_all(body.as_bytes()).await?;
    socket.flush().await?;
    socket.shutdown().await
}
