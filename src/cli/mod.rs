//! Command line (DESIGN.md §8). `main.rs` calls [`run`]; each subcommand lives in its own file.
//!
//! Exit codes: 0 ok, 1 runtime failure (including any file that failed to index), 2 usage error.

pub mod agent;
mod ask;
mod docs;
mod eval;
mod exec;
mod index;
mod mcp;
pub mod output;
mod publish;
mod replay;
mod serve;
mod shell;
mod tree;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Global options shared by every subcommand.
#[derive(Debug, clap::Args)]
pub struct GlobalArgs {
    /// Workspace directory (catalog + one tree file per document).
    #[arg(long, global = true, env = "DOCNAV_WORKSPACE", default_value = crate::workspace::DEFAULT_DIR)]
    pub workspace: PathBuf,
}

/// docnav: vectorless, reasoning-based retrieval over documents navigated like a filesystem.
#[derive(Debug, Parser)]
#[command(
    name = "docnav",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = "Exit codes: 0 ok, 1 runtime failure (or a command that reported an error), \
                  2 usage error or no model configured, 130 interrupted (Ctrl-C).\n\
                  Logs: RUST_LOG (default `warn`). Colour: only on a terminal, never with NO_COLOR."
)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index documents (files, folders, globs) into the workspace.
    Index(index::IndexArgs),
    /// Publish the workspace as a read-only generation in a folder that replicas copy and open.
    Publish(publish::PublishArgs),
    /// List the indexed documents.
    Docs(docs::DocsArgs),
    /// Show a document's tree: structure numbers, titles, line or page ranges.
    Tree(tree::TreeArgs),
    /// Run one command of the navigation language (`ls`, `cd`, `cat`, `grep`…) and print its output.
    Exec(exec::ExecArgs),
    /// Interactive navigation shell over the workspace.
    Shell(shell::ShellArgs),
    /// Ask a question: ranked evidence with exact locations (agent, or --lexical without a model).
    Ask(ask::AskArgs),
    /// Run a navigator over a question set (JSON Lines) and score it.
    Eval(eval::EvalArgs),
    /// Replay a recorded trace without a model (or --show it as a transcript).
    Replay(replay::ReplayArgs),
    /// Serve the workspace to coding agents over MCP (stdio): search, ls, cat, grep… and ask.
    Mcp(mcp::McpArgs),
    /// Serve the web app (Library, Reader, Ask, Traces), the JSON API and MCP over HTTP.
    Serve(serve::ServeArgs),
}

/// Parse the process arguments and run the chosen subcommand.
///
/// Errors: a runtime failure, printed by `main` as `error: …` with exit code 1. Usage errors are
/// printed by clap and exit 2.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return Ok(ExitCode::from(if err.use_stderr() { 2 } else { 0 }));
        }
    };
    init_tracing();
    match cli.command {
        Command::Index(args) => index::run(&cli.global, args),
        Command::Publish(args) => publish::run(&cli.global, args),
        Command::Docs(args) => docs::run(&cli.global, args),
        Command::Tree(args) => tree::run(&cli.global, args),
        Command::Exec(args) => exec::run(&cli.global, args),
        Command::Shell(args) => shell::run(&cli.global, args),
        Command::Ask(args) => ask::run(&cli.global, args),
        Command::Eval(args) => eval::run(&cli.global, args),
        Command::Replay(args) => replay::run(&cli.global, args),
        Command::Mcp(args) => mcp::run(&cli.global, args),
        Command::Serve(args) => serve::run(&cli.global, args),
    }
}

/// `RUST_LOG` drives tracing output to stderr. By default: our warnings only; lopdf's own log
/// lines (it warns about every font encoding it falls back on) are noise for a user, and the PDF
/// parser reports what matters (pages without text, unreadable pages) itself. Colour only when
/// stderr is a terminal and `NO_COLOR` is unset.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,lopdf=off"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(output::color_stderr())
        .try_init();
}
