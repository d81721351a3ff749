//! `docnav shell`: the interactive shell ([`crate::repl::run_shell`]) over the workspace, with
//! history in the workspace's `history` file.

use std::process::ExitCode;
use std::sync::Arc;

use super::agent::{AgentArgs, ModelArgs};
use super::GlobalArgs;
use crate::nav::DEFAULT_BUDGET;
use crate::repl::{run_shell, ShellAgent, ShellOptions};
use crate::workspace::Workspace;

/// Arguments of `docnav shell`.
#[derive(Debug, clap::Args)]
pub struct ShellArgs {
    /// Path to start in (default `/`).
    #[arg(long, value_name = "PATH")]
    cwd: Option<String>,
    /// Output budget per command in chars.
    #[arg(long, value_name = "CHARS", default_value_t = DEFAULT_BUDGET)]
    budget: usize,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    agent: AgentArgs,
}

/// Run `docnav shell` until Ctrl-D or `exit`.
///
/// Errors: the workspace cannot be opened, the terminal cannot be set up, or the start path does
/// not resolve.
pub fn run(global: &GlobalArgs, args: ShellArgs) -> anyhow::Result<ExitCode> {
    let ws = Workspace::open(&global.workspace)?;
    let history = ws.history_path();
    let options = ShellOptions {
        budget: args.budget,
        cwd: args.cwd,
        ..ShellOptions::from_env()
    };
    // A missing model is not an error for the shell: navigation works without one, and `ask` /
    // `suggest` say what to configure.
    let model = args.model.connect().map_err(|e| e.to_string());
    let agent = ShellAgent::new(model, args.agent.options(&[]), ws.dir().to_path_buf())
        .with_index_generation(ws.index_generation());
    run_shell(Arc::new(ws), history, options, agent)
}
