//! The commands, one per file, behind one [`Command`] trait and listed in one [`registry`]
//! (after nushell's `Command` + `test_examples` and codex's tool registry).
//!
//! The documented examples run as tests against the fixture library (`tests/suite/nav.rs`), each
//! from the cwd `/ripgrep-guide` unless its path is absolute.

pub mod cat;
mod cd;
mod check;
mod done;
mod find;
mod findtree;
mod grep;
mod head;
mod help;
mod ls;
mod pwd;
mod tree;
mod wc;

use super::args::{parse_args, OptSpec, ParsedArgs};
use super::path::Place;
use super::{CommandOutput, NavError, Session};

/// One documented use of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The full command line, e.g. `ls /ripgrep-guide/1`.
    pub command: &'static str,
    /// What it shows.
    pub description: &'static str,
}

/// A command of the language. Implementations are stateless; all state is in the [`Session`].
pub trait Command: Sync {
    /// The word that invokes it (`ls`).
    fn name(&self) -> &'static str;
    /// Usage line without the `usage: ` prefix (`ls [path]`).
    fn usage(&self) -> &'static str;
    /// One-line description for `help`.
    fn summary(&self) -> &'static str;
    /// Documented examples; each runs as a test on the fixture library.
    fn examples(&self) -> &'static [Example];
    /// Run with the words after the command name.
    ///
    /// Errors: only [`NavError`] (workspace failures); anything the caller can fix is an output
    /// with [`Status::Error`](super::Status::Error).
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError>;
}

static REGISTRY: &[&dyn Command] = &[
    &ls::Ls,
    &cd::Cd,
    &pwd::Pwd,
    &cat::Cat,
    &head::Head,
    &tree::TreeCmd,
    &find::Find,
    &findtree::FindTree,
    &grep::Grep,
    &wc::Wc,
    &check::Check,
    &done::Done,
    &done::Absent,
    &help::Help,
];

/// Every command, in the order `help` lists them.
pub fn registry() -> &'static [&'static dyn Command] {
    REGISTRY
}

/// The command with this name, if any.
pub fn find_command(name: &str) -> Option<&'static dyn Command> {
    registry().iter().copied().find(|c| c.name() == name)
}

/// `usage: …` as a fixable error, with the reason first when there is one.
pub(crate) fn usage_error(cmd: &dyn Command, reason: Option<&str>) -> CommandOutput {
    match reason {
        Some(r) => CommandOutput::error(format!("{}: {r}\nusage: {}", cmd.name(), cmd.usage())),
        None => CommandOutput::error(format!("usage: {}", cmd.usage())),
    }
}

/// Parse options; a bad option becomes the command's usage error.
pub(crate) fn options(
    cmd: &dyn Command,
    args: &[String],
    spec: &[OptSpec],
) -> Result<ParsedArgs, CommandOutput> {
    parse_args(args, spec).map_err(|why| usage_error(cmd, Some(&why)))
}

/// The number given to option `long`, `None` when absent; a value that is no number becomes the
/// command's usage error (as output).
pub(crate) fn count_option(
    cmd: &dyn Command,
    parsed: &ParsedArgs,
    long: &str,
) -> Result<Option<usize>, CommandOutput> {
    parsed
        .count(long)
        .map_err(|why| usage_error(cmd, Some(&why)))
}

/// Resolve an optional path argument (the cursor when `None`); a bad path becomes
/// `name: <why>` output.
///
/// Errors: [`NavError`] when a document cannot be loaded.
pub(crate) fn target(
    cmd: &dyn Command,
    session: &Session,
    path: Option<&str>,
) -> Result<Result<Place, CommandOutput>, NavError> {
    let resolved = match path {
        None => Ok(session.here()?),
        Some(p) => session.resolve(p)?,
    };
    Ok(resolved.map_err(|why| CommandOutput::error(format!("{}: {why}", cmd.name()))))
}

/// At most one positional path, else the usage error.
pub(crate) fn one_path<'a>(
    cmd: &dyn Command,
    parsed: &'a ParsedArgs,
) -> Result<Option<&'a str>, CommandOutput> {
    match parsed.positional.as_slice() {
        [] => Ok(None),
        [p] => Ok(Some(p.as_str())),
        _ => Err(usage_error(cmd, Some("too many arguments"))),
    }
}

/// Unwrap a `Result<T, CommandOutput>` or return the output from the enclosing `run`.
macro_rules! try_out {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(out) => return Ok(out),
        }
    };
}
pub(crate) use try_out;
