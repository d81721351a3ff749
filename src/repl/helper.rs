//! The rustyline helper: tab completion through [`Session::complete`] and a coloured prompt.

use std::borrow::Cow;

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use crate::nav::render::for_display;
use crate::nav::session::word_start;
use crate::nav::Session;

/// Holds the shell's [`Session`] so completion sees the current cursor.
pub struct ShellHelper {
    /// The session commands run in.
    pub session: Session,
    /// Colour the prompt (ANSI bold blue).
    pub color: bool,
}

impl Completer for ShellHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let mut candidates = self.session.complete(line, pos);
        // A title with control or bidi characters is not offered (it would be echoed raw into
        // the line being edited); `ls` shows it escaped, and its number reaches it.
        candidates.retain(|c| matches!(for_display(c), Cow::Borrowed(_)));
        // Complete a single command name with a trailing space, as shells do.
        if candidates.len() == 1 && line[..word_start(line, pos)].trim().is_empty() {
            candidates[0].push(' ');
        }
        Ok((word_start(line, pos), candidates))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Validator for ShellHelper {}

impl Highlighter for ShellHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        _default: bool,
    ) -> Cow<'b, str> {
        if self.color {
            Cow::Owned(format!("\x1b[1;34m{prompt}\x1b[0m"))
        } else {
            Cow::Borrowed(prompt)
        }
    }
}

impl Helper for ShellHelper {}
