//! `docnav mcp`: serve the workspace to coding agents over the Model Context Protocol on
//! stdin/stdout ([`crate::mcp`]). The model for the `ask` tool comes from the same flags and
//! environment as `docnav ask`; without one the server still starts and `ask` says what to set.

use std::process::ExitCode;

use super::agent::{AgentArgs, ModelArgs};
use super::GlobalArgs;
use crate::mcp::{serve_stdio, McpConfig};

/// Arguments of `docnav mcp`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Tools: docs, search, ls, cat, head, find, findtree, grep, tree, wc, ask; \
    resources docnav://DOC_ID and docnav://DOC_ID/#2.1.\n\
    Register it with a coding agent, e.g. Claude Code:\n  \
    claude mcp add docnav -- docnav --workspace /abs/path/.docnav mcp\n\
    See the user guide (docs/src/mcp.md) for Cursor and Codex CLI.\n\
    Exit codes: 0 when the client closes stdin, 1 when the transport fails."
)]
pub struct McpArgs {
    /// Record each `ask` as a JSONL trace in the workspace's `traces/` directory (the only thing
    /// the server ever writes).
    #[arg(long)]
    traces: bool,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    agent: AgentArgs,
}

/// Run the server until the client closes stdin. Exit 0 then; 1 when the transport fails.
pub fn run(global: &GlobalArgs, args: McpArgs) -> anyhow::Result<ExitCode> {
    let model = args.model.connect().map_err(|e| e.to_string());
    if let Err(why) = &model {
        tracing::info!("ask is unavailable: {why}");
    }
    let config = McpConfig {
        workspace: global.workspace.clone(),
        model,
        agent: args.agent.options(&[]),
        traces: args.traces,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve_stdio(config))?;
    // Blocking pool threads (a long grep) must not keep the process alive after the client left.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}
