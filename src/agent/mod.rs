//! The agent (DESIGN.md §5–6): an Orchestrator reads DocCards, fans out one Worker per document,
//! evaluates sufficiency, replans, and reranks the raw evidence; see [`orchestrator`] for which
//! stages share a model call.
//!
//! Model fails, we fail: there is no heuristic fallback. The lexical navigator ([`lexical`]) is a
//! separate, explicitly requested mode.

pub mod answer;
pub mod budget;
pub mod decisions;
pub mod events;
pub mod evidence;
pub mod followup;
pub mod grounded;
pub mod lexical;
pub mod model;
pub mod orchestrator;
pub mod paced;
pub mod prompt_evidence;
pub mod prompts;
pub mod rerank;
pub mod search;
pub mod section;
pub mod steps;
pub mod worker;

use std::sync::Arc;

pub use decisions::{Outcome, QueryPlan};
pub use events::{AgentEvent, EventRecord, EventSink, NullSink};
/// Which documents a question names, and the pre-rank explained; part of the Orchestrator's
/// pre-rank, kept at this path for the faces.
pub use orchestrator::routing;
pub use orchestrator::{ask, ask_in_conversation, ask_placed};

use crate::llm::{ChatModel, LlmError};

/// Budgets and knobs of one `ask`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AgentOptions {
    /// Commands per Worker (default 12).
    pub max_steps: usize,
    /// Dispatch rounds, the first included (default 3).
    pub rounds: usize,
    /// DocCards shown to analyze, pre-ranked for the question: the best few in full, the others
    /// one line each (default 50).
    pub max_cards: usize,
    /// Tasks (documents) per round (default 4).
    pub max_docs: usize,
    /// Workers running at once (default 4).
    pub concurrency: usize,
    /// Evidence chars a Worker may collect before it stops (default 12,000).
    pub evidence_chars: usize,
    /// Hard cap on every prompt, in estimated tokens (chars / 4; default 12,000).
    pub prompt_cap_tokens: usize,
    /// Per-command output budget in chars (default 4,000).
    pub output_budget: usize,
    /// `--doc` ids: when set, analysis is skipped and these documents are searched.
    pub doc_ids: Vec<String>,
    /// `--answer`: after the rerank, one more call writes an answer citing the evidence, which
    /// docnav verifies ([`answer`]). Left out of a trace's header when off, so traces recorded
    /// without it keep their header.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub answer: bool,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            max_steps: 12,
            rounds: 3,
            max_cards: 50,
            max_docs: 4,
            concurrency: 4,
            evidence_chars: 12_000,
            prompt_cap_tokens: 12_000,
            output_budget: crate::nav::DEFAULT_BUDGET,
            doc_ids: Vec::new(),
            answer: false,
        }
    }
}

impl AgentOptions {
    /// The options with every budget brought into its range, as every face takes them from a
    /// user: counts at least 1, `max_cards` at most the pre-rank's depth
    /// ([`orchestrator::PRE_RANK_DOCS`]), `prompt_cap_tokens` at least 1,000 (a smaller cap
    /// cannot hold a prompt's fixed part).
    pub fn within_limits(self) -> Self {
        AgentOptions {
            max_steps: self.max_steps.max(1),
            rounds: self.rounds.max(1),
            max_cards: self.max_cards.clamp(1, orchestrator::PRE_RANK_DOCS),
            max_docs: self.max_docs.max(1),
            concurrency: self.concurrency.max(1),
            evidence_chars: self.evidence_chars.max(1),
            prompt_cap_tokens: self.prompt_cap_tokens.max(1_000),
            output_budget: self.output_budget.max(1),
            ..self
        }
    }
}

/// Why an `ask` failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// An orchestrator step's model call failed (after retries / the repair round).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// A document could not be loaded.
    #[error("workspace: {0}")]
    Workspace(String),
    /// `--doc` (or a task) names a document that is not indexed.
    #[error("document not found: {0} (hint: `docnav docs` lists the ids)")]
    UnknownDocument(String),
    /// The workspace has no documents.
    #[error("the workspace has no documents (hint: run `docnav index <files>` first)")]
    NoDocuments,
    /// The model named only documents that do not exist.
    #[error("the model chose no indexed document for this question")]
    NoTasks,
}

/// The result of one `ask`.
#[derive(Debug)]
pub struct AgentRun {
    /// Ranked evidence and stats (the `--json` shape).
    pub answer: evidence::Answer,
    /// The same evidence with BM25 explanations.
    pub ranked: Vec<rerank::RankedEvidence>,
    /// What understand decided.
    pub query_plan: QueryPlan,
    /// `(worker id, message)` of Workers that failed; the others' evidence is in `answer`.
    pub worker_errors: Vec<(String, String)>,
    /// The final verdict (also `answer.verdict`).
    pub verdict: evidence::AnswerVerdict,
}

/// Which model each actor talks to. A live run gives every actor the same model; replay gives each
/// actor the model that answers from its own recorded responses.
pub trait ModelRouter: Send + Sync {
    /// The model for `actor` (`orchestrator` or a worker id).
    fn model_for(&self, actor: &str) -> Arc<dyn ChatModel>;
}

/// Every actor uses one shared model.
pub struct SharedModel(pub Arc<dyn ChatModel>);

impl ModelRouter for SharedModel {
    fn model_for(&self, _actor: &str) -> Arc<dyn ChatModel> {
        self.0.clone()
    }
}

/// The documents the `--doc` ids `ids` name, each an id or an alias of one
/// ([`crate::workspace::Library::resolve_id`]), in order, each document once (an id and its
/// alias would otherwise search one text twice).
///
/// Errors: the first of `ids` that names no document.
pub fn resolve_doc_ids(
    library: &dyn crate::workspace::Library,
    ids: &[String],
) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::with_capacity(ids.len());
    for id in ids {
        let doc_id = library.resolve_id(id).ok_or_else(|| id.clone())?;
        if !out.contains(&doc_id) {
            out.push(doc_id);
        }
    }
    Ok(out)
}
