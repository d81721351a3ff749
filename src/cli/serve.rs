//! `docnav serve`: the web app, the JSON API and MCP over HTTP in one process ([`crate::serve`],
//! with [`crate::mcp::http`] mounted at `/mcp`). The model for `ask` comes from the same flags
//! and environment as `docnav ask`; without one the server still starts and says what to set.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use axum::Router;
use tokio::sync::Semaphore;

use super::agent::{AgentArgs, ModelArgs};
use super::GlobalArgs;
use crate::mcp::http::streamable_http_service;
use crate::serve::limits::DEFAULT_IDLE_TIMEOUT_SECS;
use crate::serve::{check_bind, router, serve, AppState, ConnectionLimits, ServeConfig};

/// Arguments of `docnav serve`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Pages: / (Library), /doc/DOC_ID/#2.1 (Reader), /ask, /traces. \
    API: /api/v1/… (user guide, docs/src/serve.md). MCP over streamable HTTP: /mcp.\n\
    A non-loopback --bind needs a token (--token or DOCNAV_TOKEN) of at least 16 characters: \
    every request then sends `Authorization: Bearer TOKEN`, and the web app asks for it once \
    (the login lasts 7 days or until \"Log out\"). After 5 wrong tokens a client waits 1 s, \
    then 2, 4, ... up to 60 s between tries (429 with Retry-After).\n\
    The web app starts an ask only from its own page (a CSRF token); `/ask?q=...` links fill \
    the question in, never run it.\n\
    Connections: a client has --idle-timeout seconds to send a request's headers; at most \
    (open-file limit - max(64, limit/4)) connections are open at once, more wait until one \
    closes.\n\
    Exit codes: 0 stopped with Ctrl-C or SIGTERM, 1 cannot listen, 2 usage error (e.g. a \
    public address without a token)."
)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7070")]
    bind: SocketAddr,
    /// Bearer token every request must carry; required for a non-loopback --bind.
    #[arg(
        long,
        env = "DOCNAV_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    token: Option<String>,
    /// Open the web app in the default browser once listening.
    #[arg(long)]
    open: bool,
    /// Asks (agent runs: web, API and MCP together) that may run at once; one more gets 429.
    #[arg(long, value_name = "N", default_value_t = 2)]
    max_asks: usize,
    /// Do not record asks as traces in the workspace's `traces/` (the Ask page then links no
    /// trace for a run; an answer kept by a recorded run, e.g. `docnav ask`, is still reused by
    /// the API and the MCP `ask` tool alike).
    #[arg(long)]
    no_traces: bool,
    /// Uploaded traces kept in the workspace's `traces/`; past it (or past 256 MiB of uploads)
    /// the oldest uploads are removed. Recorded runs are never removed.
    #[arg(long, value_name = "N", default_value_t = crate::trace::folder::DEFAULT_MAX_UPLOADS)]
    max_uploads: usize,
    /// Seconds a client has to send a request's headers, after connecting and after each
    /// answer on a kept-alive connection; a connection silent for longer is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_IDLE_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle_timeout: u64,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    agent: AgentArgs,
}

/// The host names a request may name without a token: the loopback names and the bound IP.
fn allowed_hosts(bind: SocketAddr) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .into_iter()
        .map(String::from)
        .collect();
    let ip = bind.ip().to_string();
    if !hosts.contains(&ip) {
        hosts.push(ip);
    }
    hosts
}

/// Run the server until Ctrl-C or SIGTERM (requests in flight finish first).
pub fn run(global: &GlobalArgs, args: ServeArgs) -> anyhow::Result<ExitCode> {
    if let Err(e) = check_bind(args.bind, args.token.as_deref()) {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(2));
    }
    let model = args.model.connect().map_err(|e| e.to_string());
    if let Err(why) = &model {
        eprintln!("note: ask is unavailable: {why}");
    }
    let library = crate::serve::library(&global.workspace);
    let max_asks = args.max_asks.max(1);
    let ask_permits = Arc::new(Semaphore::new(max_asks));
    let agent = args.agent.options(&[]);
    let record_traces = !args.no_traces;
    let mcp = streamable_http_service(
        library.clone(),
        model.clone(),
        agent.clone(),
        record_traces,
        Some(ask_permits.clone()),
    );
    let state = AppState::new(ServeConfig {
        library,
        model,
        agent,
        ask_permits,
        max_asks,
        record_traces,
        uploads: crate::trace::folder::UploadLimits {
            max_count: args.max_uploads.max(1),
            ..Default::default()
        },
        token: args.token.clone(),
        allowed_hosts: allowed_hosts(args.bind),
    });
    let app = router(state, Router::new().route_service("/mcp", mcp));

    crate::serve::allocator::return_freed_memory_promptly();
    // Blocking work runs with few permits (crate::serve::state::work_permits); a small pool whose
    // idle threads end soon keeps the allocator's per-thread memory from piling up.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(crate::serve::state::work_permits() + 8)
        .thread_keep_alive(std::time::Duration::from_secs(2))
        .build()?;
    let result: anyhow::Result<()> = runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(args.bind).await {
            Ok(l) => l,
            Err(e) => anyhow::bail!(
                "cannot listen on {}: {e} (hint: pick another address or port with --bind)",
                args.bind
            ),
        };
        let addr = listener.local_addr()?;
        let url = format!("http://{addr}");
        eprintln!("listening on {url}");
        if args.open {
            if let Err(e) = webbrowser::open(&url) {
                eprintln!("warning: could not open a browser: {e}");
            }
        }
        let limits =
            ConnectionLimits::for_this_process(std::time::Duration::from_secs(args.idle_timeout));
        tracing::debug!(
            "at most {} connections at once, {} s to send a request's headers",
            limits.max_connections,
            args.idle_timeout
        );
        serve(listener, app, limits, shutdown_signal()).await?;
        Ok(())
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    result?;
    Ok(ExitCode::SUCCESS)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
