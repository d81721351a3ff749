//! The command language (DESIGN.md §4): one parser and one executor shared by the REPL
//! ([`crate::repl`]) and the agent's Workers.
//!
//! A [`Session`] holds a [`Library`](crate::workspace::Library), a [`Cursor`] and the evidence that
//! `cat` collected. [`Session::execute`] runs one command line and returns a [`CommandOutput`]:
//! errors the user or the model can fix (a missing child, a bad regex, wrong arguments) come back
//! as output text with [`Status::Error`]; only workspace failures are `Err(`[`NavError`]`)`.
//!
//! Commands live one per file in [`commands`], behind the [`Command`] trait, listed in one
//! [`registry`].

pub mod args;
pub mod commands;
pub mod lexer;
pub mod live;
pub mod path;
pub mod render;
pub mod session;
pub mod stats;

use std::ops::Range;

pub use commands::{find_command, registry, Command, Example};
pub use lexer::{split_words, LexError};
pub use path::{display_path, Cursor};
pub use session::{Role, Session, DEFAULT_BUDGET};

use crate::tree::NodeId;
use crate::workspace::WorkspaceError;

/// A fatal failure: the workspace could not give a document it lists, or its search index. Fixable mistakes are never
/// `NavError`s; they are [`CommandOutput`]s with [`Status::Error`].
#[derive(Debug, thiserror::Error)]
pub enum NavError {
    /// Loading a document failed (missing or damaged tree file).
    #[error("cannot load document `{doc_id}`: {source}")]
    Workspace {
        /// The document the command needed.
        doc_id: String,
        /// What the workspace reported.
        source: WorkspaceError,
    },
    /// The section index could not be searched (missing, damaged, unreadable).
    #[error(transparent)]
    Search(WorkspaceError),
}

/// Whether a command did what it was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The command ran; `text` is its output.
    Ok,
    /// The command could not run as asked; `text` says why and how to fix it.
    Error,
}

/// Text read by `cat`: the node and the char range of [`Tree::text_of`](crate::tree::Tree::text_of)
/// that was shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Document id.
    pub doc_id: String,
    /// The node read.
    pub node: NodeId,
    /// Char offsets (not bytes) into the node's rendered text, end exclusive.
    pub chars: Range<usize>,
    /// Total chars of the node's rendered text (so a reader knows whether it saw all of it).
    pub total_chars: usize,
    /// True when the read was asked by line numbers with an end (`cat path:N-M`,
    /// `cat -n COUNT path:N`): the reader pointed at exactly these lines.
    pub by_lines: bool,
}

/// What the caller should do beyond printing the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Nothing.
    None,
    /// `cat` read this text (also appended to [`Session::evidence`]).
    Evidence(Evidence),
    /// The agent asked to `check` its evidence ([`Role::Agent`] only).
    Check,
    /// The agent ended its Worker with `done` ([`Role::Agent`] only).
    Done,
    /// The agent ended its Worker with `absent`: its document does not cover the task
    /// ([`Role::Agent`] only).
    Absent,
}

/// The result of one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// The text to show (stdout for a person, the observation for the model). May be empty.
    pub text: String,
    /// Ok, or a fixable error whose text explains it.
    pub status: Status,
    /// Side effect for the caller.
    pub effect: Effect,
}

impl CommandOutput {
    /// Successful output without effect.
    pub fn ok(text: impl Into<String>) -> CommandOutput {
        CommandOutput {
            text: text.into(),
            status: Status::Ok,
            effect: Effect::None,
        }
    }

    /// A fixable error: `text` names the bad input and, when possible, what to try.
    pub fn error(text: impl Into<String>) -> CommandOutput {
        CommandOutput {
            text: text.into(),
            status: Status::Error,
            effect: Effect::None,
        }
    }

    /// True when `status` is [`Status::Ok`].
    pub fn is_ok(&self) -> bool {
        self.status == Status::Ok
    }
}
