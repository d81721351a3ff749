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

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::decisions::{query_plan_schema, Outcome, QueryPlan, Task};
use super::events::{AgentEvent, Emitter, EventSink, ORCHESTRATOR};
use super::evidence::{Answer, AnswerVerdict, AskStats, WorkerFailure, WorkerStats};
use super::model::ask_model;
use super::prompts::{system_prompt, Prompt};
use super::rerank::rerank;
use super::worker::{run_worker, CollectedEvidence, WorkerContext, WorkerEnd, WorkerOutcome};
use super::{AgentError, AgentOptions, AgentRun, ModelRouter};
use crate::llm::ChatMessage;
use crate::workspace::Library;

mod cards;
pub mod routing;
pub use cards::{
    analyze_block, card_body, card_for_prompt, card_text, one_line_cards, pre_rank, rank_explained,
    ranked_cards, PreRank, RankedDocuments, SectionHit, EVALUATE_CARDS, FULL_CARDS, PRE_RANK_DOCS,
    SECTION_HITS,
};

mod analyze;
use analyze::analyze;

mod evaluate;
use evaluate::{evaluate, Pass};

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
    let started = Instant::now();
    let cap = options.prompt_cap_tokens;
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
        Some(
            super::followup::standalone_question(model.as_ref(), &orchestrator, memory, asked, cap)
                .await?,
        )
    };
    let question = standalone.as_deref().unwrap_or(asked);

    // The catalog ranked for the question: the analyze prompt's order, evaluate's document list.
    let mut pre = if options.doc_ids.is_empty() {
        pre_rank(library.as_ref(), question)
    } else {
        PreRank {
            docs: options.doc_ids.clone(),
            hits: Vec::new(),
        }
    };
    let mut absent_reason = String::new();
    let (plan, mut tasks) = if options.doc_ids.is_empty() {
        let (analysis, found) = analyze(
            model.as_ref(),
            &orchestrator,
            library.as_ref(),
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
            library.as_ref(),
            analysis.tasks.clone(),
            options.max_docs,
            &orchestrator,
        );
        if tasks.is_empty() && named > 0 {
            orchestrator.emit(AgentEvent::Error {
                message: "analyze chose no known document".into(),
            });
            return Err(AgentError::NoTasks);
        }
        absent_reason = analysis.reason.trim().to_string();
        (analysis.query_plan(), tasks)
    } else {
        let understand = vec![
            ChatMessage::system(system_prompt(Prompt::Understand, options, &[])),
            ChatMessage::user(format!("Question: {question}")),
        ];
        let plan: QueryPlan = ask_model(
            model.as_ref(),
            &orchestrator,
            "understand",
            understand,
            &query_plan_schema(),
            cap,
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
        (plan, tasks)
    };

    let ctx = Arc::new(WorkerContext {
        library: library.clone(),
        model: model.clone(),
        options: options.clone(),
        question: question.to_string(),
        key_concepts: plan.key_concepts.clone(),
    });
    // The question and key concepts: what the rerank scores, and the lines an excerpt too long
    // for evaluate's or the answer's prompt keeps.
    let query = format!("{question} {}", plan.key_concepts.join(" "));
    let terms = super::prompt_evidence::query_terms(&query);
    let mut collected: Vec<CollectedEvidence> = Vec::new();
    let mut outcomes: Vec<WorkerOutcome> = Vec::new();
    let mut rounds = 0;
    let last_round = options.rounds.max(1);
    // Whether evaluate's "absent" has had its catalog search.
    let mut searched = false;
    let verdict = if tasks.is_empty() {
        // Analyze said no listed document covers the question: nothing to search.
        AnswerVerdict {
            verdict: Outcome::Absent,
            missing: absent_reason,
            judged_by: "analyze".into(),
        }
    } else {
        loop {
            rounds += 1;
            let round_outcomes = dispatch(
                &ctx,
                models.as_ref(),
                &sink,
                rounds,
                &tasks,
                options.concurrency,
            )
            .await;
            for outcome in &round_outcomes {
                collected.extend(outcome.evidence.iter().cloned());
            }
            outcomes.extend(round_outcomes);
            if let Some(v) = judged_by_its_only_worker(&plan, &outcomes) {
                break v;
            }
            // Every evaluate of this round sees the same run so far; only why it is asked differs.
            let evaluate_round = |pass| {
                evaluate(
                    model.as_ref(),
                    &orchestrator,
                    library.as_ref(),
                    options,
                    (rounds, last_round),
                    (question, &terms),
                    &pre,
                    &outcomes,
                    &collected,
                    pass,
                )
            };
            let mut evaluation = evaluate_round(Pass::First).await?;
            // Zero evidence never answers a question: a "sufficient" over none is overruled, said
            // in the trace, and evaluate is asked again while a round is left.
            let mut overruled = false;
            if evaluation.verdict == Outcome::Sufficient && collected.is_empty() {
                overruled = true;
                orchestrator.decision(
                    "overruled",
                    &serde_json::json!({
                        "model_verdict": "sufficient",
                        "verdict": "insufficient",
                        "reason": NO_EVIDENCE,
                    }),
                );
                if rounds < last_round {
                    evaluation = evaluate_round(Pass::Overruled).await?;
                }
                if evaluation.verdict == Outcome::Sufficient {
                    evaluation.verdict = Outcome::Insufficient;
                    evaluation.missing = NO_EVIDENCE.to_string();
                    evaluation.tasks.clear();
                }
            }
            // "Absent" only after a search of the catalog: once per question, while a round is
            // left, for documents no Worker searched.
            if evaluation.verdict == Outcome::Absent && rounds < last_round && !searched {
                searched = true;
                let mut queries = vec![question.to_string()];
                if !evaluation.missing.trim().is_empty() {
                    queries.push(evaluation.missing.trim().to_string());
                }
                let ran: HashSet<&str> = outcomes.iter().map(|o| o.doc_id.as_str()).collect();
                let mut found =
                    cards::catalog_search(library.as_ref(), &queries, options.max_cards);
                found.docs.retain(|d| !ran.contains(d.as_str()));
                orchestrator.decision(
                    "catalog_search",
                    &serde_json::json!({"queries": queries, "found": found.docs.len()}),
                );
                if !found.docs.is_empty() {
                    evaluation = evaluate_round(Pass::AfterSearch {
                        queries: &queries,
                        found: &found,
                    })
                    .await?;
                }
            }
            let next = if rounds < last_round && evaluation.verdict == Outcome::Insufficient {
                known_tasks(
                    library.as_ref(),
                    evaluation.tasks,
                    options.max_docs,
                    &orchestrator,
                )
            } else {
                Vec::new()
            };
            if next.is_empty() {
                break AnswerVerdict {
                    verdict: evaluation.verdict,
                    missing: evaluation.missing,
                    judged_by: if overruled {
                        "evaluate (its \"sufficient\" over no evidence was overruled)".into()
                    } else {
                        "evaluate".into()
                    },
                };
            }
            tasks = next;
        }
    };

    // The final verdict is a decision of its own in the trace, whoever judged.
    orchestrator.decision("verdict", &verdict);
    let ranked = rerank(library.as_ref(), collected, &query);
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
    let (mut calls, mut prompt_tokens, mut completion_tokens) = orchestrator.usage();
    for o in &outcomes {
        calls += o.usage.0;
        prompt_tokens += o.usage.1;
        completion_tokens += o.usage.2;
    }
    let stats = AskStats {
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
    };
    let failures: Vec<WorkerFailure> = outcomes
        .iter()
        .filter_map(|o| {
            o.error.as_ref().map(|e| WorkerFailure {
                worker: o.worker_id.clone(),
                doc_id: o.doc_id.clone(),
                task: o.task.clone(),
                error: e.clone(),
            })
        })
        .collect();
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
        query_plan: plan,
        worker_errors: failures.into_iter().map(|f| (f.worker, f.error)).collect(),
        verdict,
    })
}

/// Why a "sufficient" verdict over no evidence is overruled.
const NO_EVIDENCE: &str = "no evidence was collected";

/// The final verdict without an evaluate call: when only one Worker ran in the whole question,
/// its own `check` judged its evidence — the whole evidence — sufficient, and its task was the
/// whole question: the understanding said one section likely answers it (strategy `focused`).
/// A question understood as needing several places (exploratory, comparative, summary) is judged
/// by evaluate, which sees the question rather than one task.
fn judged_by_its_only_worker(
    plan: &QueryPlan,
    outcomes: &[WorkerOutcome],
) -> Option<AnswerVerdict> {
    let [only] = outcomes else {
        return None;
    };
    if plan.strategy != "focused" {
        return None;
    }
    let verdict = only.verdict.as_ref()?;
    // A check that found its (empty) evidence sufficient is left to evaluate, which overrules it.
    let judged =
        only.error.is_none() && verdict.verdict == Outcome::Sufficient && !only.evidence.is_empty();
    judged.then(|| AnswerVerdict {
        verdict: Outcome::Sufficient,
        missing: String::new(),
        judged_by: format!("check {}", only.worker_id),
    })
}

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

/// Run one Worker per task concurrently (at most `concurrency` at once), results in task order.
async fn dispatch(
    ctx: &Arc<WorkerContext>,
    models: &dyn ModelRouter,
    sink: &Arc<dyn EventSink>,
    round: usize,
    tasks: &[Task],
    concurrency: usize,
) -> Vec<WorkerOutcome> {
    let limit = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut set = JoinSet::new();
    for (i, task) in tasks.iter().enumerate() {
        let worker_id = format!("r{round}-w{}-{}", i + 1, task.doc_id);
        let mut worker_ctx = WorkerContext {
            library: ctx.library.clone(),
            model: models.model_for(&worker_id),
            options: ctx.options.clone(),
            question: ctx.question.clone(),
            key_concepts: ctx.key_concepts.clone(),
        };
        worker_ctx.options.doc_ids.clear();
        let emitter = Arc::new(Emitter::new(worker_id.clone(), sink.clone()));
        let limit = limit.clone();
        let task = task.clone();
        set.spawn(async move {
            let _permit = limit.acquire_owned().await;
            (
                i,
                run_worker(Arc::new(worker_ctx), task, worker_id, emitter).await,
            )
        });
    }
    let mut results: Vec<Option<WorkerOutcome>> = vec![None; tasks.len()];
    let mut lost = None;
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((i, outcome)) => results[i] = Some(outcome),
            Err(e) => lost = Some(e.to_string()),
        }
    }
    // A Worker whose task died (a panic) is a failed Worker, not a lost one.
    results
        .into_iter()
        .zip(tasks)
        .enumerate()
        .map(|(i, (outcome, task))| {
            outcome.unwrap_or_else(|| WorkerOutcome {
                worker_id: format!("r{round}-w{}-{}", i + 1, task.doc_id),
                doc_id: task.doc_id.clone(),
                task: task.task.clone(),
                steps: 0,
                evidence: Vec::new(),
                verdict: None,
                end: WorkerEnd::Failed,
                found_nothing: Vec::new(),
                leads: Vec::new(),
                last_reason: String::new(),
                error: Some(format!(
                    "worker task died: {}",
                    lost.as_deref().unwrap_or("unknown")
                )),
                usage: (0, 0, 0),
            })
        })
        .collect()
}
