//! `docnav exec '<command>' [--cwd PATH]`: run one command of the language non-interactively.
//!
//! Output goes to stdout; a command that reports an error prints it to stderr and exits 1. Both
//! are for a person: document text is passed through [`output::for_display`].

use std::process::ExitCode;
use std::sync::Arc;

use super::{output, GlobalArgs};
use crate::nav::{lexer::quote_word, Role, Session, Status, DEFAULT_BUDGET};
use crate::workspace::Workspace;

/// Arguments of `docnav exec`.
#[derive(Debug, clap::Args)]
pub struct ExecArgs {
    /// The command line, e.g. `ls /guide` or `cat "/guide/Install"`.
    command: String,
    /// Path to run the command from (default `/`).
    #[arg(long, value_name = "PATH")]
    cwd: Option<String>,
    /// Output budget in chars.
    #[arg(long, value_name = "CHARS", default_value_t = DEFAULT_BUDGET)]
    budget: usize,
}

/// Run `docnav exec`: exit 0 when the command succeeded, 1 when it reported an error.
///
/// Errors: the workspace cannot be opened or a document cannot be loaded.
pub fn run(global: &GlobalArgs, args: ExecArgs) -> anyhow::Result<ExitCode> {
    let ws = Workspace::open(&global.workspace)?;
    let mut session = Session::new(Arc::new(ws), Role::Person).with_budget(args.budget);
    if let Some(cwd) = &args.cwd {
        let out = session.execute(&format!("cd {}", quote_word(cwd)))?;
        if out.status == Status::Error {
            eprintln!("{}", output::for_display(&out.text));
            return Ok(ExitCode::from(1));
        }
    }
    let out = session.execute(&args.command)?;
    if out.status == Status::Error {
        eprintln!("{}", output::for_display(&out.text));
        return Ok(ExitCode::from(1));
    }
    if !out.text.is_empty() {
        // One line end: outputs that already end with one (a whole `cat`) get no blank line.
        let end = if out.text.ends_with('\n') { "" } else { "\n" };
        output::print_human(&format!("{}{end}", out.text))?;
    }
    Ok(ExitCode::SUCCESS)
}
