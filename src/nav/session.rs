//! [`Session`]: cursor, output budget, role and collected evidence; runs command lines through the
//! [`registry`].

use std::sync::Arc;

use super::lexer::{quote_word, split_words};
use super::path::{place_of, resolve, Cursor, Place};
use super::render::cap_output;
use super::stats::{NodeStats, StatsCache};
use super::{find_command, registry, CommandOutput, Effect, Evidence, NavError};
use crate::workspace::{Document, Library};

/// Default per-command output budget, in chars (DESIGN.md §4).
pub const DEFAULT_BUDGET: usize = 4000;

/// Most document ids a completion under `/` offers.
const COMPLETION_MAX: usize = 200;

/// Who is typing: a person at the shell, or the agent's Worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `docnav shell` / `docnav exec`: `check` and `done` are refused.
    Person,
    /// A Worker: `check` and `done` return [`Effect::Check`] / [`Effect::Done`].
    Agent,
}

/// State of one navigation session.
#[derive(Clone)]
pub struct Session {
    library: Arc<dyn Library>,
    cursor: Cursor,
    budget: usize,
    role: Role,
    evidence: Vec<Evidence>,
    stats: StatsCache,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("cursor", &self.cursor)
            .field("budget", &self.budget)
            .field("role", &self.role)
            .field("evidence", &self.evidence.len())
            .finish()
    }
}

impl Session {
    /// A session at `/` with the [`DEFAULT_BUDGET`].
    pub fn new(library: Arc<dyn Library>, role: Role) -> Session {
        Session {
            library,
            cursor: Cursor::Root,
            budget: DEFAULT_BUDGET,
            role,
            evidence: Vec::new(),
            stats: StatsCache::default(),
        }
    }

    /// Set the per-command output budget in chars (at least 1).
    pub fn with_budget(mut self, chars: usize) -> Session {
        self.budget = chars.max(1);
        self
    }

    /// The library.
    pub fn library(&self) -> &Arc<dyn Library> {
        &self.library
    }

    /// The current position.
    pub fn cursor(&self) -> &Cursor {
        &self.cursor
    }

    /// Move to a cursor (no check; an out-of-range node is read as the document root).
    pub fn set_cursor(&mut self, cursor: Cursor) {
        self.cursor = cursor;
    }

    /// Per-command output budget in chars.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Who this session serves.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Evidence collected by `cat`, in reading order.
    pub fn evidence(&self) -> &[Evidence] {
        &self.evidence
    }

    /// Remove and return the evidence collected so far.
    pub fn take_evidence(&mut self) -> Vec<Evidence> {
        std::mem::take(&mut self.evidence)
    }

    /// Record evidence (used by `cat`).
    pub fn push_evidence(&mut self, evidence: Evidence) {
        self.evidence.push(evidence);
    }

    /// The current path, `/` or `/doc_id/2/1`.
    ///
    /// Errors: [`NavError::Workspace`] when the current document cannot be loaded.
    pub fn pwd(&self) -> Result<String, NavError> {
        Ok(self.here()?.path())
    }

    /// The current place with its document loaded.
    ///
    /// Errors: [`NavError::Workspace`] when the current document cannot be loaded.
    pub fn here(&self) -> Result<Place, NavError> {
        place_of(self.library.as_ref(), &self.cursor)
    }

    /// Resolve a path from the cursor. The inner `Err` is the fixable message (no command
    /// prefix), e.g. `no child 'x' under /guide/2 (try ls)`.
    ///
    /// Errors (outer): [`NavError::Workspace`] when a document cannot be loaded.
    pub fn resolve(&self, path: &str) -> Result<Result<Place, String>, NavError> {
        resolve(self.library.as_ref(), &self.stats, &self.cursor, path)
    }

    /// Subtree statistics and title keys of a loaded document (computed once, then cached).
    pub fn stats(&self, doc_id: &str, doc: &Arc<Document>) -> Arc<NodeStats> {
        self.stats.get(doc_id, doc)
    }

    /// Run one command line. Empty lines give empty `Ok` output. Output other than `cat`'s (which
    /// pages itself) is cut to the budget at a line boundary.
    ///
    /// Errors: only [`NavError`] (workspace failures); unknown commands, bad arguments, missing
    /// children and bad regexes are [`Status::Error`](super::Status::Error) outputs.
    pub fn execute(&mut self, line: &str) -> Result<CommandOutput, NavError> {
        let words = match split_words(line) {
            Ok(w) => w,
            Err(e) => return Ok(CommandOutput::error(format!("{e} (close the quote)"))),
        };
        let Some((name, args)) = words.split_first() else {
            return Ok(CommandOutput::ok(""));
        };
        let Some(command) = find_command(name) else {
            return Ok(CommandOutput::error(format!(
                "unknown command '{name}' (try help)"
            )));
        };
        let mut out = command.run(args, self)?;
        if !matches!(out.effect, Effect::Evidence(_)) {
            out.text = cap_output(out.text, self.budget);
        }
        Ok(out)
    }

    /// Completion candidates for the word under `pos` (a byte index into `line`, clamped to a
    /// char boundary): command names for the first word, else child titles (and numbers when the
    /// typed part is a number) below the directory typed so far. Candidates replace the whole
    /// word starting at [`word_start`]`(line, pos)`; titles with spaces come quoted.
    pub fn complete(&self, line: &str, pos: usize) -> Vec<String> {
        let mut pos = pos.min(line.len());
        while !line.is_char_boundary(pos) {
            pos -= 1;
        }
        let start = word_start(line, pos);
        let before = &line[..start];
        // The word may still be inside an open quote: close it to read what was typed.
        let word = &line[start..pos];
        let typed: String = split_words(word)
            .or_else(|_| split_words(&format!("{word}\"")))
            .or_else(|_| split_words(&format!("{word}'")))
            .ok()
            .and_then(|w| w.into_iter().next())
            .unwrap_or_default();
        if before.trim().is_empty() {
            return registry()
                .iter()
                .map(|c| c.name())
                .filter(|n| n.starts_with(typed.as_str()))
                .map(String::from)
                .collect();
        }
        let (dir, prefix) = match typed.rfind('/') {
            Some(i) => (&typed[..=i], &typed[i + 1..]),
            None => ("", typed.as_str()),
        };
        let place = match self.resolve(if dir.is_empty() { "." } else { dir }) {
            Ok(Ok(p)) => p,
            _ => return Vec::new(),
        };
        let names: Vec<String> = match &place {
            // Ids only, those the typed prefix starts (the catalog is not walked);
            // numbers complete against the first page.
            Place::Root if prefix.chars().all(|c| c.is_ascii_digit()) => self
                .library
                .cards_page(0, COMPLETION_MAX)
                .iter()
                .map(|c| c.doc_id.clone())
                .collect(),
            Place::Root => self
                .library
                .cards_with_id_prefix(&crate::tree::title_key(prefix), COMPLETION_MAX)
                .iter()
                .map(|c| c.doc_id.clone())
                .collect(),
            Place::Node { doc, node, .. } => doc
                .tree
                .node(*node)
                .children
                .iter()
                .map(|c| doc.tree.node(*c).title.clone())
                .collect(),
        };
        let key = crate::tree::title_key(prefix);
        let numeric = !prefix.is_empty() && prefix.chars().all(|c| c.is_ascii_digit());
        let mut out = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let number = (i + 1).to_string();
            if numeric && number.starts_with(prefix) {
                out.push(quote_word(&format!("{dir}{number}")));
            } else if !numeric && crate::tree::title_key(name).starts_with(&key) {
                out.push(quote_word(&format!("{dir}{name}")));
            }
        }
        out
    }
}

/// Byte index where the word containing `pos` starts: after the last whitespace before `pos`
/// that is not inside quotes.
pub fn word_start(line: &str, pos: usize) -> usize {
    let mut start = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if i >= pos {
            break;
        }
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') if quote != Some('\'') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => start = i + c.len_utf8(),
            _ => {}
        }
    }
    start
}
