//! `docnav shell`: the interactive shell ([`crate::repl::run_shell`]) over the workspace, with
//! history in the workspace's `history` file.

use std::process::ExitCode;
use std::sync::Arc;

use super::GlobalArgs;
use crate::nav::DEFAULT_BUDGET;
use crate::repl::{run_shell, ShellOptions};
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
    run_shell(Arc::new(ws), history, options)
}
