//! The output of `docnav ask`, shared by the agent and the lexical navigator ([`super::lexical`]):
//! ranked [`Evidence`] (sections returned verbatim with their location) and [`AskStats`].
//!
//! JSON shape (`docnav ask --json`):
//! `{"question", "evidence": [{"doc_id", "path": [..], "structure", "lines": [a, b] | null,
//! "pages": [a, b] | null, "text", "score"}], "stats": {"llm_calls", "prompt_tokens",
//! "completion_tokens", "wall_ms", "rounds", "workers": [{"doc_id", "steps", "evidence"}]}}`.

use std::fmt::Write as _;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::tree::{NodeId, Tree};

/// One section returned as evidence, verbatim, with its exact location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Document id (as listed by `docnav docs`).
    pub doc_id: String,
    /// Titles from the first level below the root down to the section (empty for the root).
    pub path: Vec<String>,
    /// Dotted position, `"2.1.3"`; the root is `""`.
    pub structure: String,
    /// 1-based source lines, inclusive `[first, last]` (Markdown and text documents).
    pub lines: Option<[u32; 2]>,
    /// 1-based PDF pages, inclusive `[first, last]` (PDF documents).
    pub pages: Option<[u32; 2]>,
    /// The section's text with its subtree, exactly [`Tree::text_of`].
    pub text: String,
    /// Ranking score (BM25 for the lexical navigator and the agent's rerank); higher is better.
    pub score: f32,
}

/// Steps and evidence of one agent Worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerStats {
    /// The document the Worker navigated.
    pub doc_id: String,
    /// Commands it issued.
    pub steps: u32,
    /// Evidence items it collected (before the final dedup and rerank).
    pub evidence: u32,
}

/// What a run cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskStats {
    /// Model calls (0 for the lexical navigator).
    pub llm_calls: u32,
    /// Prompt tokens over all calls, as reported by the model server.
    pub prompt_tokens: u64,
    /// Completion tokens over all calls, as reported by the model server.
    pub completion_tokens: u64,
    /// Wall time of the whole run in milliseconds.
    pub wall_ms: u64,
    /// Dispatch rounds (0 for the lexical navigator).
    pub rounds: u32,
    /// One entry per Worker (empty for the lexical navigator).
    pub workers: Vec<WorkerStats>,
}

/// The answer to a question: ranked evidence (best first) and run stats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The question as asked.
    pub question: String,
    /// Ranked evidence, best first.
    pub evidence: Vec<Evidence>,
    /// What the run cost.
    pub stats: AskStats,
}

/// A half-open 1-based range `start..end` as inclusive `[start, end - 1]` (an empty range
/// becomes `[start, start]`).
pub fn inclusive(range: &Option<Range<u32>>) -> Option<[u32; 2]> {
    range
        .as_ref()
        .map(|r| [r.start, r.end.saturating_sub(1).max(r.start)])
}

impl Evidence {
    /// Evidence for node `id` of `tree` in document `doc_id`, with this `score`: path, structure,
    /// inclusive lines/pages and the verbatim [`Tree::text_of`]. Returns `None` when `id` is not
    /// a node of `tree`.
    pub fn from_node(doc_id: &str, tree: &Tree, id: NodeId, score: f32) -> Option<Evidence> {
        let node = tree.get(id)?;
        Some(Evidence {
            doc_id: doc_id.to_string(),
            path: tree.title_path(id),
            structure: node.structure.clone(),
            lines: inclusive(&node.lines),
            pages: inclusive(&node.pages),
            text: tree.text_of(id),
            score,
        })
    }

    /// Where the evidence is: `lines 40–88`, `page 3`, `pages 3–5`, or empty when unknown.
    pub fn location(&self) -> String {
        match (self.pages, self.lines) {
            (Some([a, b]), _) if a == b => format!("page {a}"),
            (Some([a, b]), _) => format!("pages {a}–{b}"),
            (None, Some([a, b])) => format!("lines {a}–{b}"),
            (None, None) => String::new(),
        }
    }

    /// The one-line header used by [`render_text`] for the evidence ranked `rank` (1-based):
    /// `[1] doc › Title › Sub  §2.1  lines 40–88  score 12.345`.
    pub fn header(&self, rank: usize) -> String {
        let mut out = format!("[{rank}] {}", self.doc_id);
        for title in &self.path {
            out.push_str(" › ");
            out.push_str(title);
        }
        if !self.structure.is_empty() {
            let _ = write!(out, "  §{}", self.structure);
        }
        let location = self.location();
        if !location.is_empty() {
            let _ = write!(out, "  {location}");
        }
        let _ = write!(out, "  score {:.3}", self.score);
        out
    }
}

/// Render an answer for people: each evidence as its [`Evidence::header`], a rule, the verbatim
/// text, a blank line; then one stats line (`5 evidence · 0 model calls · 0 prompt + 0
/// completion tokens · 3 ms`). No evidence renders as `no evidence found` plus the stats line.
pub fn render_text(answer: &Answer) -> String {
    let mut out = String::new();
    if answer.evidence.is_empty() {
        out.push_str("no evidence found\n\n");
    }
    for (i, e) in answer.evidence.iter().enumerate() {
        let header = e.header(i + 1);
        out.push_str(&header);
        out.push('\n');
        out.push_str(&"─".repeat(header.chars().count().min(80)));
        out.push('\n');
        out.push_str(e.text.trim_end());
        out.push_str("\n\n");
    }
    let s = &answer.stats;
    let _ = writeln!(
        out,
        "{} evidence · {} model calls · {} prompt + {} completion tokens · {} ms",
        answer.evidence.len(),
        s.llm_calls,
        s.prompt_tokens,
        s.completion_tokens,
        s.wall_ms
    );
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::parse::parse_bytes;
    use crate::tree::{build_tree, BuildOptions};
    use pretty_assertions::assert_eq;

    fn notes_tree() -> Tree {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/docs/notes.txt");
        let bytes = std::fs::read(&path).unwrap();
        build_tree(
            parse_bytes(&path, &bytes, true).unwrap(),
            &BuildOptions::default(),
        )
    }

    #[test]
    fn json_shape_matches_the_documented_fields() {
        let answer = Answer {
            question: "q".into(),
            evidence: vec![Evidence {
                doc_id: "notes".into(),
                path: vec!["A".into(), "B".into()],
                structure: "1.2".into(),
                lines: Some([3, 9]),
                pages: None,
                text: "# B\n".into(),
                score: 1.5,
            }],
            stats: AskStats::default(),
        };
        let v = serde_json::to_value(&answer).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "question": "q",
                "evidence": [{"doc_id": "notes", "path": ["A", "B"], "structure": "1.2",
                    "lines": [3, 9], "pages": null, "text": "# B\n", "score": 1.5}],
                "stats": {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                    "wall_ms": 0, "rounds": 0, "workers": []}
            })
        );
        let back: Answer = serde_json::from_value(v).unwrap();
        assert_eq!(back, answer);
    }

    #[test]
    fn from_node_is_verbatim_text_of_with_inclusive_location() {
        let tree = notes_tree();
        let last = NodeId(u32::try_from(tree.len() - 1).unwrap());
        let e = Evidence::from_node("notes", &tree, last, 2.0).unwrap();
        assert_eq!(e.text, tree.text_of(last));
        assert_eq!(e.path, tree.title_path(last));
        let lines = tree.node(last).lines.clone().unwrap();
        assert_eq!(e.lines, Some([lines.start, lines.end - 1]));
        assert_eq!(Evidence::from_node("notes", &tree, NodeId(9999), 1.0), None);
    }

    #[test]
    fn text_rendering_has_header_rule_text_and_stats() {
        let e = Evidence {
            doc_id: "guide".into(),
            path: vec!["Install".into(), "Linux".into()],
            structure: "2.1".into(),
            lines: None,
            pages: Some([4, 4]),
            text: "# Linux\n\napt install x\n".into(),
            score: 3.25,
        };
        let answer = Answer {
            question: "how to install".into(),
            evidence: vec![e],
            stats: AskStats {
                wall_ms: 7,
                ..AskStats::default()
            },
        };
        let header = "[1] guide › Install › Linux  §2.1  page 4  score 3.250";
        let expected = format!(
            "{header}\n{}\n# Linux\n\napt install x\n\n1 evidence · 0 model calls · 0 prompt + 0 completion tokens · 7 ms\n",
            "─".repeat(header.chars().count())
        );
        assert_eq!(render_text(&answer), expected);
    }
}
