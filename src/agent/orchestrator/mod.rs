//! The Orchestrator (DESIGN.md §6): analyze (understanding folded in) → dispatch Workers in
//! parallel → evaluate (replan folded in) → more rounds → rerank.
//!
//! Sequential model calls are what a user waits for, so each stage that can share a reply does:
//! the analysis of the DocCards also returns the understanding of the question (its
//! key concepts feed the Workers' first `find`); a Worker's plan also returns its first command;
//! evaluate also returns the next round's tasks; and when a single Worker's own `check` already
//! judged its evidence sufficient, that evidence is the whole evidence of the question, so no
//! separate evaluate runs (when the question was understood as `focused`: one section likely
//! answers it). Every stage is still a decision of its own in the trace. The typical
//! single-document question is then analyze → plan + first `cat` → `check` → check's verdict:
//! four calls.
//!
//! The final verdict (sufficient / insufficient: what is missing / absent: not covered) ends the
//! answer. A failed Worker does not fail the question: its error is recorded (trace,
//! [`AgentRun::worker_errors`], the answer's `worker_errors`), evaluate sees which task failed and
//! may dispatch it again.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use super::decisions::{query_plan_schema, Outcome, QueryPlan, Task};
use super::events::{AgentEvent, Emitter, EventSink, ORCHESTRATOR};
use super::evidence::{Answer, AnswerVerdict, AskStats, WorkerFailure, WorkerStats};
use super::model::ask_model;
use super::prompts::{system_prompt, Prompt};
use super::rerank::rerank;
use super::worker::WorkerOutcome;
use super::{AgentError, AgentOptions, AgentRun, ModelRouter};
use crate::llm::{ChatMessage, ChatModel};
use crate::workspace::Library;

mod cards;
pub mod placement;
pub mod routing;
pub mod shards;
pub use cards::{
    analyze_block, card_body, card_for_prompt, card_text, catalog_search, catalog_search_with,
    one_line_cards, pre_rank, rank_explained, ranked_cards, PreRank, RankedDocuments, SectionHit,
    EVALUATE_CARDS, FULL_CARDS, PRE_RANK_DOCS, SECTION_HITS,
};
pub use placement::Placement;

mod analyze;
use analyze::analyze;

mod evaluate;

mod rounds;
use rounds::Rounds;

/// Run the whole pipeline for `question`.
///
/// Errors: [`AgentError`] when an orchestrator step fails (the model is unreachable, or its reply
/// does not parse after the repair round), when no documents are indexed, when `--doc` names an
/// unknown id, or when analyze names only documents that do not exist. A failing *Worker* is not
/// an error: its message is in [`AgentRun::worker_errors`] and the other Workers' evidence is
/// returned, with the final verdict.
pub async fn ask(
    library: Arc<dyn Library>,
    models: Arc<dyn ModelRouter>,
    sink: Arc<dyn EventSink>,
    options: &AgentOptions,
    question: &str,
) -> Result<AgentRun, AgentError> {
    ask_in_conversation(library, models, sink, options, &[], question).await
}

/// [`ask`] for a question asked in a conversation: with earlier `memory` turns (oldest first),
/// the question is first rewritten to stand alone ([`super::followup::standalone_question`], one
/// more model call, the decision `standalone`) and the run searches for the rewritten question,
/// which the answer keeps as `standalone_question` (its `question` stays as asked). With no
/// memory it is [`ask`].
///
/// Errors: as [`ask`], plus [`AgentError::Llm`] when the rewrite call fails.
pub async fn ask_in_conversation(
    library: Arc<dyn Library>,
    models: Arc<dyn ModelRouter>,
    sink: Arc<dyn EventSink>,
    options: &AgentOptions,
    memory: &[super::followup::Turn],
    asked: &str,
) -> Result<AgentRun, AgentError> {
    let placement = Placement::local();
    ask_placed(library, models, sink, options, memory, asked, &placement).await
}

/// [`ask_in_conversation`] with its Workers run and its catalog ranked where `placement` says
/// (a corpus split into shards: each Worker in the process holding its document, the catalog
/// ranked over every shard); `library` holds the catalog's cards and the trees of the documents
/// the Workers read (the reranking and the answer read their headings). With
/// [`Placement::local`] it is [`ask_in_conversation`].
///
/// Errors: as [`ask_in_conversation`].
pub async fn ask_placed(
    library: Arc<dyn Library>,
    models: Arc<dyn ModelRouter>,
    sink: Arc<dyn EventSink>,
    options: &AgentOptions,
    memory: &[super::followup::Turn],
    asked: &str,
    placement: &Placement,
) -> Result<AgentRun, AgentError> {
    let started = Instant::now();
    let orchestrator = Emitter::new(ORCHESTRATOR, sink.clone());
    let model = models.model_for(ORCHESTRATOR);
    if library.document_count() == 0 {
        return Err(AgentError::NoDocuments);
    }
    // `--doc` may name a document by an alias (a duplicate source kept once): the run asks
    // about the document itself, as the other faces of the run (tasks, evidence) name it.
    let resolved;
    let options = match super::resolve_doc_ids(library.as_ref(), &options.doc_ids) {
        Ok(ids) if ids == options.doc_ids => options,
        Ok(doc_ids) => {
            resolved = AgentOptions {
                doc_ids,
                ..options.clone()
            };
            &resolved
        }
        Err(unknown) => return Err(AgentError::UnknownDocument(unknown)),
    };
    let standalone = if memory.is_empty() {
        None
    } else {
        let cap = options.prompt_cap_tokens;
        Some(
            super::followup::standalone_question(model.as_ref(), &orchestrator, memory, asked, cap)
                .await?,
        )
    };
    let question = standalone.as_deref().unwrap_or(asked);
    let opening = open(
        model.as_ref(),
        &orchestrator,
        library.as_ref(),
        placement,
        options,
        question,
    )
    .await?;
    // The question and key concepts: what the rerank scores, and the lines an excerpt too long
    // for evaluate's or the answer's prompt keeps.
    let query = format!("{question} {}", opening.plan.key_concepts.join(" "));
    let terms = super::prompt_evidence::query_terms(&query);
    let run = Run {
        library: &library,
        models: models.as_ref(),
        model: &model,
        sink: &sink,
        orchestrator: &orchestrator,
        options,
        question,
        terms: &terms,
        placement,
    };
    let mut done = Rounds::default();
    let verdict = if opening.tasks.is_empty() {
        // Analyze said no listed document covers the question: nothing to search.
        AnswerVerdict {
            verdict: Outcome::Absent,
            missing: opening.absent_reason,
            judged_by: "analyze".into(),
        }
    } else {
        done.run(&run, &opening.pre, &opening.plan, opening.tasks)
            .await?
    };
    // The final verdict is a decision of its own in the trace, whoever judged.
    orchestrator.decision("verdict", &verdict);
    let ranked = rerank(library.as_ref(), done.collected, &query);
    let evidence: Vec<super::evidence::Evidence> =
        ranked.iter().map(|r| r.evidence.clone()).collect();
    let written = if options.answer {
        Some(
            super::answer::compose(
                model.as_ref(),
                &orchestrator,
                library.as_ref(),
                (question, &terms),
                &evidence,
                &verdict,
                options.prompt_cap_tokens,
            )
            .await?,
        )
    } else {
        None
    };
    let stats = stats(&orchestrator, &done.outcomes, done.rounds, started);
    let failures = failures(&done.outcomes);
    Ok(AgentRun {
        answer: Answer {
            question: asked.to_string(),
            standalone_question: standalone,
            from_trace: None,
            evidence,
            stats,
            answer: written,
            verdict: Some(verdict.clone()),
            worker_errors: failures.clone(),
        },
        ranked,
        query_plan: opening.plan,
        worker_errors: failures.into_iter().map(|f| (f.worker, f.error)).collect(),
        verdict,
    })
}

/// What every stage after the opening shares.
struct Run<'a> {
    library: &'a Arc<dyn Library>,
    models: &'a dyn ModelRouter,
    model: &'a Arc<dyn ChatModel>,
    sink: &'a Arc<dyn EventSink>,
    orchestrator: &'a Emitter,
    options: &'a AgentOptions,
    /// The question the run searches for (a follow-up rewritten to stand alone).
    question: &'a str,
    /// [`super::prompt_evidence::query_terms`] of the question and key concepts.
    terms: &'a [String],
    /// Where Workers run and the catalog is ranked.
    placement: &'a Placement,
}

/// How the question opens: the catalog ranked for it, its understanding and the first round's
/// tasks.
struct Opening {
    /// The catalog ranked for the question: the analyze prompt's order, evaluate's document
    /// list (what a catalog search found first).
    pre: PreRank,
    plan: QueryPlan,
    /// Empty when analyze said no listed document covers the question.
    tasks: Vec<Task>,
    /// Why analyze chose no document.
    absent_reason: String,
}

/// Analyze the catalog for `question` (or, with `--doc` ids, only understand it: the tasks are
/// the question on each document).
///
/// Errors: the model call fails; analyze names only unknown documents ([`AgentError::NoTasks`]).
async fn open(
    model: &dyn ChatModel,
    orchestrator: &Emitter,
    library: &dyn Library,
    placement: &Placement,
    options: &AgentOptions,
    question: &str,
) -> Result<Opening, AgentError> {
    if !options.doc_ids.is_empty() {
        let understand = vec![
            ChatMessage::system(system_prompt(Prompt::Understand, options, &[])),
            ChatMessage::user(format!("Question: {question}")),
        ];
        let plan: QueryPlan = ask_model(
            model,
            orchestrator,
            "understand",
            understand,
            &query_plan_schema(),
            options.prompt_cap_tokens,
        )
        .await?;
        let tasks = options
            .doc_ids
            .iter()
            .map(|id| Task {
                doc_id: id.clone(),
                task: question.to_string(),
            })
            .collect();
        let pre = PreRank {
            docs: options.doc_ids.clone(),
            hits: Vec::new(),
        };
        return Ok(Opening {
            pre,
            plan,
            tasks,
            absent_reason: String::new(),
        });
    }
    let ranking = placement.ranking.as_ref();
    let mut pre = ranking.rank(library, question)?.ranking;
    let (analysis, found) = analyze(
        model,
        orchestrator,
        (library, ranking),
        options,
        question,
        &pre,
    )
    .await?;
    // What a catalog search found is listed first to evaluate too.
    if !found.is_empty() {
        let first: HashSet<&str> = found.iter().map(String::as_str).collect();
        let rest: Vec<String> = pre
            .docs
            .iter()
            .filter(|d| !first.contains(d.as_str()))
            .cloned()
            .collect();
        pre.docs = found.iter().cloned().chain(rest).collect();
    }
    let named = analysis.tasks.len();
    let tasks = known_tasks(
        library,
        analysis.tasks.clone(),
        options.max_docs,
        orchestrator,
    );
    if tasks.is_empty() && named > 0 {
        orchestrator.emit(AgentEvent::Error {
            message: "analyze chose no known document".into(),
        });
        return Err(AgentError::NoTasks);
    }
    Ok(Opening {
        pre,
        plan: analysis.query_plan(),
        tasks,
        absent_reason: analysis.reason.trim().to_string(),
    })
}

/// The run's cost and shape: the Orchestrator's and every Worker's calls and tokens, the
/// rounds, each Worker's steps and evidence.
fn stats(
    orchestrator: &Emitter,
    outcomes: &[WorkerOutcome],
    rounds: usize,
    started: Instant,
) -> AskStats {
    let (mut calls, mut prompt_tokens, mut completion_tokens) = orchestrator.usage();
    for o in outcomes {
        calls += o.usage.0;
        prompt_tokens += o.usage.1;
        completion_tokens += o.usage.2;
    }
    AskStats {
        llm_calls: u32::try_from(calls).unwrap_or(u32::MAX),
        prompt_tokens,
        completion_tokens,
        wall_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        rounds: u32::try_from(rounds).unwrap_or(u32::MAX),
        workers: outcomes
            .iter()
            .map(|o| WorkerStats {
                doc_id: o.doc_id.clone(),
                steps: u32::try_from(o.steps).unwrap_or(u32::MAX),
                evidence: u32::try_from(o.evidence.len()).unwrap_or(u32::MAX),
            })
            .collect(),
    }
}

/// The Workers that failed, in run order.
fn failures(outcomes: &[WorkerOutcome]) -> Vec<WorkerFailure> {
    outcomes
        .iter()
        .filter_map(|o| {
            o.error.as_ref().map(|e| WorkerFailure {
                worker: o.worker_id.clone(),
                doc_id: o.doc_id.clone(),
                task: o.task.clone(),
                error: e.clone(),
            })
        })
        .collect()
}

/// Why a "sufficient" verdict over no evidence is overruled.
const NO_EVIDENCE: &str = "no evidence was collected";

/// Keep tasks whose document exists, one per document, at most `max`; report dropped ids.
fn known_tasks(
    library: &dyn Library,
    tasks: Vec<Task>,
    max: usize,
    emitter: &Emitter,
) -> Vec<Task> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for task in tasks {
        if library.card(&task.doc_id).is_none() {
            emitter.emit(AgentEvent::Error {
                message: format!(
                    "model named unknown document `{}`; task skipped",
                    task.doc_id
                ),
            });
            continue;
        }
        if seen.insert(task.doc_id.clone()) && out.len() < max {
            out.push(task);
        }
    }
    out
}
