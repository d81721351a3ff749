//! `docnav serve` bounds its connections: a client that sends nothing, dribbles a header or
//! idles on a kept-alive connection is closed after `--idle-timeout`; no more connections are
//! open than the file limit leaves room for; and the user with the token is still answered —
//! at once while there is room, and as soon as the idle sockets are closed when there is not.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::mcp::workspace;
use crate::support::server::{client, Served};

const TOKEN: &str = "correct-horse-battery-staple";

/// How long until the server closes `stream` (EOF or reset, whatever it wrote before), or
/// `None` if it is still open after `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = [0u8; 1024];
    loop {
        let left = within.checked_sub(start.elapsed())?;
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(start.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

/// `n` connections that send nothing.
async fn idle_sockets(addr: &str, n: usize) -> Vec<TcpStream> {
    let mut sockets = Vec::with_capacity(n);
    for _ in 0..n {
        sockets.push(TcpStream::connect(addr).await.unwrap());
    }
    sockets
}

/// The sockets the server process holds open (its listener among them).
fn server_sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read_link(e.path())
                .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
        })
        .count()
}

/// A search with the token: its status, and how long it took.
async fn search_with_token(served: &Served) -> (u16, Duration) {
    let start = Instant::now();
    let response = client()
        .get(served.at("/api/v1/search?q=configuration"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), start.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_connections_are_closed_and_the_token_holder_is_still_answered() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    // 96 descriptors leave room for 32 connections (96 less the 64 kept for the workspace).
    let served = Served::start_with_file_limit(
        &ws,
        &["--idle-timeout", "2"],
        &[("DOCNAV_TOKEN", TOKEN.to_string())],
        Some(96),
    );
    let addr = served.url.strip_prefix("http://").unwrap().to_string();

    // Room under the cap: 20 silent sockets do not delay a request.
    let mut silent = idle_sockets(&addr, 20).await;
    let (status, took) = search_with_token(&served).await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_millis(1_500), "{took:?}");
    // A client dribbling a header byte every 300 ms is closed as surely as a silent one.
    let mut slow = TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"GET /api/v1/health HTTP/1.1\r\n")
        .await
        .unwrap();
    let slow_start = Instant::now();
    let dribble = tokio::spawn(async move {
        for _ in 0..40 {
            if slow.write_all(b"X").await.is_err() {
                return Some(slow_start.elapsed());
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        None
    });
    // A kept-alive connection that asked once and then idles.
    let mut kept = TcpStream::connect(&addr).await.unwrap();
    let request = format!(
        "GET /api/v1/health HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
    );
    kept.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");

    for (i, socket) in silent.iter_mut().enumerate() {
        let closed = closed_within(socket, Duration::from_secs(8)).await;
        assert!(
            closed.is_some(),
            "silent socket {i} is still open after 8 s"
        );
    }
    let closed = closed_within(&mut kept, Duration::from_secs(8)).await;
    assert!(
        closed.is_some(),
        "the idle kept-alive connection is still open"
    );
    let dribbled = dribble.await.unwrap();
    assert!(
        dribbled.is_some_and(|t| t < Duration::from_secs(8)),
        "the dribbling client was not closed: {dribbled:?}"
    );

    // Over the cap: 50 silent sockets, 32 of them accepted, the rest waiting in the kernel's
    // queue with the search behind them. The server holds no more than its cap of sockets
    // (beyond the ones it holds with no client: the listener, the signal pipe)...
    let baseline = server_sockets(served.pid());
    let opened = Instant::now();
    let mut silent = idle_sockets(&addr, 50).await;
    let search = tokio::spawn({
        let url = served.at("/api/v1/search?q=configuration");
        async move {
            let r = client().get(url).bearer_auth(TOKEN).send().await.unwrap();
            (r.status().as_u16(), opened.elapsed())
        }
    });
    tokio::time::sleep(Duration::from_millis(700)).await;
    let held = server_sockets(served.pid()) - baseline;
    assert!(
        held <= 32,
        "the server holds {held} connections, over its cap of 32"
    );
    assert!(
        held >= 20,
        "the server accepted only {held} of the idle sockets"
    );
    // ...and answers the search once the first ones are closed, after the 2 s timeout.
    let (status, answered) = search.await.unwrap();
    assert_eq!(status, 200);
    assert!(
        answered < Duration::from_secs(7),
        "the search waited {answered:?}"
    );
    for (i, socket) in silent.iter_mut().enumerate() {
        let closed = closed_within(socket, Duration::from_secs(10)).await;
        assert!(closed.is_some(), "queued silent socket {i} is still open");
    }
}
