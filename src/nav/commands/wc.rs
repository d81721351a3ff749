//! `wc [path]`: size of a node with its subtree (or of all documents at `/`).

use super::{one_path, options, target, try_out, Command, Example};
use crate::nav::path::{load, Place};
use crate::nav::{CommandOutput, NavError, Session};
use crate::tree::{estimate_tokens, NodeId};

/// `wc`.
pub struct Wc;

static EXAMPLES: &[Example] = &[
    Example {
        command: "wc /ripgrep-guide/1/2",
        description: "lines, words, chars and estimated tokens of a section with its subsections",
    },
    Example {
        command: "wc /",
        description: "the same, summed over all documents",
    },
];

impl Command for Wc {
    fn name(&self) -> &'static str {
        "wc"
    }
    fn usage(&self) -> &'static str {
        "wc [path]"
    }
    fn summary(&self) -> &'static str {
        "size of a section with its subsections: lines, words, chars, estimated tokens"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[]));
        let path = try_out!(one_path(self, &parsed));
        let place = try_out!(target(self, session, path)?);
        let mut counts = Counts::default();
        match &place {
            Place::Root => {
                for card in session.library().all_cards() {
                    let doc = load(session.library().as_ref(), &card.doc_id)?;
                    counts.add(&doc.tree.text_of(NodeId::ROOT));
                }
            }
            Place::Node { doc, node, .. } => counts.add(&doc.tree.text_of(*node)),
        }
        Ok(CommandOutput::ok(format!(
            "{}: {} lines, {} words, {} chars, ~{} tokens",
            place.path(),
            counts.lines,
            counts.words,
            counts.chars,
            counts.tokens
        )))
    }
}

#[derive(Default)]
struct Counts {
    lines: usize,
    words: usize,
    chars: usize,
    tokens: u64,
}

impl Counts {
    fn add(&mut self, text: &str) {
        self.lines += text.lines().count();
        self.words += text.split_whitespace().count();
        self.chars += text.chars().count();
        self.tokens += u64::from(estimate_tokens(text));
    }
}
