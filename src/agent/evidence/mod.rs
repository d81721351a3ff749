//! The output of `docnav ask`, shared by the agent and the lexical navigator ([`super::lexical`]):
//! ranked [`Evidence`] (sections returned verbatim with their location) and [`AskStats`].
//!
//! JSON shape (`docnav ask --json`):
//! `{"question", "evidence": [{"doc_id", "path": [..], "structure", "lines": [a, b] | null,
//! "pages": [a, b] | null, "text", "score", "explain"}], "stats": {"llm_calls", "prompt_tokens",
//! "completion_tokens", "wall_ms", "rounds", "workers": [{"doc_id", "steps", "evidence"}]}}`.
//! `"explain"` ([`ScoreExplain`]: `{"units", "length", "average_length", "terms": [{"term", "tf",
//! "df", "idf", "contribution"}]}`) is an addition to the documented fields: why the item scored
//! what it did. Both the agent and the lexical navigator fill it; it is left out when unknown.
//! `"cited_lines": [[a, b], ..]` (agent only, left out when empty): the lines of `"text"` a
//! Worker read by line numbers ([`Evidence::cited_lines`]).
//! `"paragraphs": [a, b]` replaces `"lines"` (then `null`) for Word documents, whose locations
//! are paragraph numbers.
//! Then `"worker_errors": [{"worker", "doc_id", "task", "error"}]` ([`WorkerFailure`];
//! empty when every Worker finished); with `--answer`, `"answer": {"text", "sentences":
//! [{"text", "citations", "supported", "problem"?}], "missing"?}` ([`GroundedAnswer`](super::grounded::GroundedAnswer));
//! and the agent ends the answer with `"verdict":
//! {"verdict": "sufficient" | "insufficient" | "absent", "missing", "judged_by"}`
//! ([`AnswerVerdict`]; absent from the lexical navigator's answers, which nothing
//! judges). After `"question"` come, when they apply, `"standalone_question"` (a follow-up
//! rewritten to stand alone) and `"from_trace": {"trace", "name", "recorded", "started_unix_ms",
//! "llm_calls"}` ([`ReusedFrom`]: the answer was reused from that recorded run).

use std::fmt::Write as _;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::decisions::Outcome;
use crate::index::bm25::Bm25Explanation;
use crate::tree::{tables, DocFormat, NodeId, Tree};

mod lines;
pub use lines::part_lines;

/// One section returned as evidence, verbatim, with its exact location.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Document id (as listed by `docnav docs`).
    pub doc_id: String,
    /// Titles from the first level below the root down to the section (empty for the root).
    pub path: Vec<String>,
    /// Dotted position, `"2.1.3"`; the root is `""`.
    pub structure: String,
    /// 1-based source lines, inclusive `[first, last]` (Markdown, text and HTML documents).
    pub lines: Option<[u32; 2]>,
    /// 1-based PDF pages, inclusive `[first, last]` (PDF documents).
    pub pages: Option<[u32; 2]>,
    /// 1-based paragraphs, inclusive `[first, last]` (Word documents, which have neither
    /// lines nor pages); absent from the JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paragraphs: Option<[u32; 2]>,
    /// The section's text with its subtree, exactly [`Tree::text_of`]; for agent evidence read
    /// in part (`cat` stopped at the output budget), the part read (see [`Evidence::from_read`]).
    pub text: String,
    /// Ranking score (BM25 for the lexical navigator and the agent's rerank); higher is better.
    pub score: f32,
    /// The terms of `score` (`None` when not computed; then absent from the JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<ScoreExplain>,
    /// Lines of `text` (1-based, inclusive `[first, last]`, in order) that a Worker read by
    /// line numbers (`cat path:N-M`): what it pointed at, kept whenever a prompt shortens the
    /// item. Empty (and absent from the JSON) when none was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cited_lines: Vec<[u32; 2]>,
}

/// Why an evidence item scored what it did: the BM25 terms of its score (k1 = 1.2, b = 0.75,
/// Lucene idf; see [`crate::index::bm25`]). The score is the sum of the contributions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreExplain {
    /// Units in the statistics, `N`: the deduplicated evidence texts for the agent's rerank;
    /// every section of the searched documents for the lexical navigator.
    pub units: u32,
    /// This unit's length in (weighted) terms.
    pub length: f32,
    /// Mean unit length in the statistics.
    pub average_length: f32,
    /// The query terms that occur in the unit, in query order.
    pub terms: Vec<TermContribution>,
}

/// One query term's part of a score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermContribution {
    /// The term, as tokenized.
    pub term: String,
    /// Occurrences in the unit (title occurrences weighted up for lexical sections).
    pub tf: f32,
    /// Units containing the term.
    pub df: u32,
    /// Lucene idf: `ln(1 + (N - df + 0.5) / (df + 0.5))`.
    pub idf: f32,
    /// This term's part of the score.
    pub contribution: f32,
}

impl From<&Bm25Explanation> for ScoreExplain {
    fn from(e: &Bm25Explanation) -> ScoreExplain {
        ScoreExplain {
            units: e.unit_count,
            length: e.unit_length,
            average_length: e.average_length,
            terms: e
                .terms
                .iter()
                .map(|t| TermContribution {
                    term: t.term.clone(),
                    tf: t.tf,
                    df: t.df,
                    idf: t.idf,
                    contribution: t.score,
                })
                .collect(),
        }
    }
}

impl ScoreExplain {
    /// Indented lines for the text output (`ask --explain`): the statistics, then one line per
    /// term, `  "stat" tf 3 · df 2 · idf 1.253 → 2.101`.
    pub fn render(&self) -> String {
        let mut out = format!(
            "  bm25 over {} texts: this one {} terms long, mean {:.1}\n",
            self.units, self.length, self.average_length
        );
        if self.terms.is_empty() {
            out.push_str("  (no query term occurs)\n");
        }
        for t in &self.terms {
            let _ = writeln!(
                out,
                "  {:?} tf {} · df {} · idf {:.3} → {:.3}",
                t.term, t.tf, t.df, t.idf, t.contribution
            );
        }
        out
    }
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

/// Whether the evidence answers the question, as the agent's last judge found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerVerdict {
    /// `sufficient`, `insufficient` (something is missing) or `absent` (the documents do not
    /// cover the question).
    pub verdict: Outcome,
    /// What is missing or not covered; empty when sufficient.
    pub missing: String,
    /// Who judged: `evaluate` (the Orchestrator, after the last round), `check r1-w1-doc` (the
    /// one Worker's own check, which judged the same evidence), or `analyze` (no document could
    /// cover the question, no Worker ran).
    pub judged_by: String,
}

/// A Worker that failed; the others' evidence is still in the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerFailure {
    /// Worker id (`r1-w2-doc_id`).
    pub worker: String,
    /// Its document.
    pub doc_id: String,
    /// Its task.
    pub task: String,
    /// What failed (after the model client's retries and the repair round).
    pub error: String,
}

/// The answer to a question: ranked evidence (best first), run stats and, from the agent, the
/// final verdict and the Workers that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The question as asked.
    pub question: String,
    /// A follow-up question rewritten to stand alone from the conversation before it (the
    /// shell's memory): what the agent searched for. Absent for a question asked on
    /// its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standalone_question: Option<String>,
    /// Set when this answer is a recorded run's, reused because the same question was asked of
    /// the same model with the same options over unchanged documents
    /// ([`crate::trace::cache`]); absent for a fresh run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_trace: Option<ReusedFrom>,
    /// Ranked evidence, best first.
    pub evidence: Vec<Evidence>,
    /// What the run cost.
    pub stats: AskStats,
    /// Workers that failed (always present in the JSON; empty when none did).
    #[serde(default)]
    pub worker_errors: Vec<WorkerFailure>,
    /// The written answer (`--answer`), verified against the evidence; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<super::grounded::GroundedAnswer>,
    /// The agent's final verdict, last in the JSON; `None` for the lexical navigator (left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<AnswerVerdict>,
}

impl AnswerVerdict {
    /// `verdict: sufficient (judged by evaluate)`, `verdict: insufficient — missing: …`,
    /// `verdict: absent — not covered: …`.
    pub fn line(&self) -> String {
        let detail = match (self.verdict, self.missing.trim()) {
            (Outcome::Sufficient, _) | (_, "") => String::new(),
            (Outcome::Insufficient, m) => format!(" — missing: {m}"),
            (Outcome::Absent, m) => format!(" — not covered: {m}"),
        };
        format!(
            "verdict: {}{detail} (judged by {})",
            self.verdict.as_str(),
            self.judged_by
        )
    }
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
    /// the verbatim [`Tree::text_of`] and its location, inclusive lines/pages of the node *and
    /// its descendants* ([`Tree::subtree_span`], as `cat` labels it). Returns `None` when `id` is not a
    /// node of `tree`.
    pub fn from_node(doc_id: &str, tree: &Tree, id: NodeId, score: f32) -> Option<Evidence> {
        let node = tree.get(id)?;
        let lines = inclusive(&tree.subtree_span(id, |n| n.lines.clone()));
        // A Word document's `lines` are paragraph numbers.
        let (lines, paragraphs) = match tree.format {
            DocFormat::Docx => (None, lines),
            _ => (lines, None),
        };
        Some(Evidence {
            doc_id: doc_id.to_string(),
            path: tree.title_path(id),
            structure: node.structure.clone(),
            lines,
            pages: inclusive(&tree.subtree_span(id, |n| n.pages.clone())),
            paragraphs,
            text: tree.text_of(id),
            score,
            explain: None,
            cited_lines: Vec::new(),
        })
    }

    /// Evidence for the part `chars` (chars of [`Tree::text_of`], end exclusive) of node `id`
    /// that was read, whose text is `text`; a part starting inside a table's body is preceded
    /// by the table's header line, marked as such ([`tables::TableHeader::label`]). `lines` are the source lines of that part when
    /// [`part_lines`] can compute them exactly (Markdown and text); otherwise, and always for
    /// `pages` (PDF text carries no per-char page positions here), the node's whole range is kept,
    /// so the location may be wider than the text but never misses it. Returns `None` when `id`
    /// is not a node of `tree`.
    pub fn from_read(
        doc_id: &str,
        tree: &Tree,
        id: NodeId,
        chars: &Range<usize>,
        text: String,
        score: f32,
    ) -> Option<Evidence> {
        let mut evidence = Evidence::from_node(doc_id, tree, id, score)?;
        if text != evidence.text {
            if let Some(part) = part_lines(tree, id, chars) {
                evidence.lines = inclusive(&Some(part));
            }
            // A part that starts inside a table's body carries the table's header line.
            let start = evidence
                .text
                .char_indices()
                .nth(chars.start)
                .map_or(evidence.text.len(), |(at, _)| at);
            evidence.text = match tables::header_at(&evidence.text, start) {
                Some(header) if !text.starts_with(header.text) => {
                    format!("{}\n{text}", header.label())
                }
                _ => text,
            };
        }
        Some(evidence)
    }

    /// Where the evidence is: `lines 40–88`, `page 3`, `pages 3–5`, `paragraphs 15–30`, or
    /// empty when unknown.
    pub fn location(&self) -> String {
        match self.paragraphs {
            Some([a, b]) if a == b => format!("paragraph {a}"),
            Some([a, b]) => format!("paragraphs {a}–{b}"),
            None => location_label(self.lines, self.pages),
        }
    }

    /// The one-line header used by [`render_text`] for the evidence ranked `rank` (1-based):
    /// `[1] doc › Title › Sub  §2.1  lines 40–88  score 12.345`.
    pub fn header(&self, rank: usize) -> String {
        evidence_header(
            rank,
            &self.doc_id,
            &self.path,
            &self.structure,
            &self.location(),
            self.score,
        )
    }
}

/// `lines 40–88`, `page 3`, `pages 3–5` from inclusive ranges (pages win), or empty when both
/// are `None`.
pub fn location_label(lines: Option<[u32; 2]>, pages: Option<[u32; 2]>) -> String {
    match (pages, lines) {
        (Some([a, b]), _) if a == b => format!("page {a}"),
        (Some([a, b]), _) => format!("pages {a}–{b}"),
        (None, Some([a, b])) => format!("lines {a}–{b}"),
        (None, None) => String::new(),
    }
}

/// `[1] doc › Title › Sub  §2.1  lines 40–88  score 12.345`: the header of a ranked section.
pub fn evidence_header(
    rank: usize,
    doc_id: &str,
    titles: &[String],
    structure: &str,
    location: &str,
    score: f32,
) -> String {
    let mut out = format!("[{rank}] {doc_id}");
    for title in titles {
        out.push_str(" › ");
        out.push_str(title);
    }
    if !structure.is_empty() {
        let _ = write!(out, "  §{structure}");
    }
    if !location.is_empty() {
        let _ = write!(out, "  {location}");
    }
    let _ = write!(out, "  score {score:.3}");
    out
}

/// Where a reused answer came from (`"from_trace"` in the JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReusedFrom {
    /// The trace file of the recorded run.
    pub trace: String,
    /// Its file name (`20261125T194200Z-how-do-i-….jsonl`).
    pub name: String,
    /// When the recorded run started (`2026-11-25 19:42 UTC`).
    pub recorded: String,
    /// The same, ms since the Unix epoch.
    pub started_unix_ms: u64,
    /// Model calls the recorded run made (this reuse made none).
    pub llm_calls: u32,
}

/// How `docnav ask` prints an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerFormat {
    /// [`render_text`].
    Text,
    /// [`render_text_with`] the score explanations (`--explain`).
    TextExplained,
    /// Pretty JSON (`--json`), the shape in the module doc, with a final newline.
    Json,
}

/// `answer` in `format`. Errors: JSON serialization (not expected for these types).
pub fn render(answer: &Answer, format: AnswerFormat) -> Result<String, serde_json::Error> {
    Ok(match format {
        AnswerFormat::Text => render_text(answer),
        AnswerFormat::TextExplained => render_text_with(answer, true),
        AnswerFormat::Json => {
            let mut s = serde_json::to_string_pretty(answer)?;
            s.push('\n');
            s
        }
    })
}

/// Render an answer for people: each evidence as its [`Evidence::header`], a rule, the verbatim
/// text, a blank line; then one stats line (`5 evidence · 0 model calls · 0 prompt + 0
/// completion tokens · 3 ms`); then, from the agent, one line per failed Worker and the final
/// [`AnswerVerdict::line`], last. No evidence renders as `no evidence found` plus those lines.
pub fn render_text(answer: &Answer) -> String {
    render_text_with(answer, false)
}

/// [`render_text`]; with `explain`, each header is followed by its [`ScoreExplain::render`]
/// lines (when the evidence has an explanation), before the rule.
pub fn render_text_with(answer: &Answer, explain: bool) -> String {
    let mut out = String::new();
    if let Some(standalone) = &answer.standalone_question {
        let _ = writeln!(out, "question, standalone: {standalone}\n");
    }
    if let Some(from) = &answer.from_trace {
        let _ = writeln!(
            out,
            "from trace {} ({}): the same question over unchanged documents; --no-cache asks afresh\n",
            from.name, from.recorded
        );
    }
    if answer.evidence.is_empty() {
        out.push_str("no evidence found\n\n");
    }
    for (i, e) in answer.evidence.iter().enumerate() {
        let header = e.header(i + 1);
        out.push_str(&header);
        out.push('\n');
        if let (true, Some(x)) = (explain, &e.explain) {
            out.push_str(&x.render());
        }
        out.push_str(&"─".repeat(header.chars().count().min(80)));
        out.push('\n');
        out.push_str(e.text.trim_end());
        out.push_str("\n\n");
    }
    if let Some(written) = &answer.answer {
        // The written answer after the evidence it cites: each line one sentence and its
        // citations, `[unsupported: why]` where a citation does not hold.
        out.push_str("answer:\n");
        for line in written.text.lines() {
            let _ = writeln!(out, "  {line}");
        }
        out.push('\n');
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
    for f in &answer.worker_errors {
        let _ = writeln!(
            out,
            "worker {} on {} failed: {}",
            f.worker, f.doc_id, f.error
        );
    }
    if let Some(v) = &answer.verdict {
        out.push_str(&v.line());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
