//! Connection limits: how long a client may take to send a request head, and how many
//! connections are open at once.
//!
//! Without them, anyone who can reach the port holds the server with sockets that send nothing:
//! each costs a file descriptor, and once the process runs out, `accept` fails for everyone,
//! including the user with the token. So:
//!
//! - a client has [`ConnectionLimits::idle_timeout`] to send a complete request head, counted
//!   from when its connection was accepted and again from the end of each response (hyper's
//!   `header_read_timeout`): a silent socket, one that dribbles a header byte every few seconds
//!   and an idle keep-alive connection are all closed after it;
//! - at most [`ConnectionLimits::max_connections`] connections are open at once, below the
//!   process's file limit ([`max_connections_for`]); while they are all taken, the server stops
//!   accepting, so new connections wait in the kernel's listen queue (and are refused by the
//!   kernel once that is full) instead of costing descriptors, and are served as soon as a slot
//!   frees.
//!
//! A response being written (an ask's event stream) is not limited by the idle timeout.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

/// The default of `docnav serve --idle-timeout`, seconds.
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 10;

/// File descriptors kept free for the workspace (the catalog, the index's files, traces being
/// written, the blocking pool's reads) when the connection cap is derived from the file limit.
pub const RESERVED_FDS: u64 = 64;

/// Bounds on the server's connections (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Time a client has to send a complete request head: after its connection is accepted, and
    /// after each response on a kept-alive connection. Past it the connection is closed.
    pub idle_timeout: Duration,
    /// Connections open at once; more wait in the kernel's listen queue until one closes.
    pub max_connections: usize,
}

impl ConnectionLimits {
    /// Limits for this process: `idle_timeout`, and a cap derived from the soft `RLIMIT_NOFILE`
    /// read now ([`max_connections_for`]).
    pub fn for_this_process(idle_timeout: Duration) -> ConnectionLimits {
        ConnectionLimits {
            idle_timeout,
            max_connections: max_connections_for(open_file_limit()),
        }
    }
}

/// The soft limit on open files of this process (`None`: unlimited, or not known on this
/// platform).
pub fn open_file_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::getrlimit(rustix::process::Resource::Nofile).current
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Connections allowed at once under a file limit of `nofile` descriptors: the limit less
/// [`RESERVED_FDS`] or a quarter of it, whichever is more, and at least 8 (a limit that low
/// cannot serve anyway, and 0 would serve nobody). Without a known limit: 4,096.
///
/// `nofile = 256` gives 192; the common default of 1,024 gives 768.
pub fn max_connections_for(nofile: Option<u64>) -> usize {
    let Some(nofile) = nofile else {
        return 4_096;
    };
    let reserve = RESERVED_FDS.max(nofile / 4);
    let cap = nofile.saturating_sub(reserve).clamp(8, 65_536);
    usize::try_from(cap).unwrap_or(65_536)
}

/// Serve `app` over HTTP/1.1 on `listener` within `limits` until `shutdown` resolves; then stop
/// accepting, let each connection finish the request it is on, and return once all are closed.
/// Every request carries its peer's address as `ConnectInfo<SocketAddr>`.
///
/// Errors: none today (an `accept` that fails, e.g. out of descriptors, is logged and retried
/// after a pause); the `Result` leaves room for listener failures.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout)
        .keep_alive(true);
    tokio::pin!(shutdown);
    let mut last_warning: Option<Instant> = None;
    loop {
        // A slot first: at the cap the listener is not polled, so the kernel queues (or refuses)
        // new connections and no descriptor is spent on them.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    if last_warning.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                        tracing::warn!("cannot accept a connection: {e} (retrying)");
                        last_warning = Some(Instant::now());
                    }
                    drop(slot);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let http = http.clone();
        let app = app.clone();
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    app.clone().oneshot(request)
                });
            let connection = http.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(e) = result {
                        tracing::debug!("connection from {peer} ended: {e}");
                    }
                    return;
                }
                _ = stop.wait_for(|stopped| *stopped) => {}
            }
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Every connection holds a slot until it closes: all slots back means all are closed.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = slots.acquire_many(all).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_below_the_file_limit() {
        assert_eq!(max_connections_for(Some(256)), 192);
        assert_eq!(max_connections_for(Some(1_024)), 768);
        assert_eq!(max_connections_for(Some(96)), 32);
        assert_eq!(max_connections_for(Some(20)), 8);
        assert_eq!(max_connections_for(Some(1 << 40)), 65_536);
        assert_eq!(max_connections_for(None), 4_096);
    }
}
