//! The Orchestrator (DESIGN.md §6): understand → analyze DocCards → dispatch Workers in parallel →
//! evaluate → replan rounds → rerank.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::budget::clip;
use super::decisions::{
    query_plan_schema, task_list_schema, verdict_schema, QueryPlan, Task, TaskList, Verdict,
};
use super::events::{AgentEvent, Emitter, EventSink, ORCHESTRATOR};
use super::evidence::{Answer, AskStats, WorkerStats};
use super::prompts::{room_chars, system_prompt, untrusted, Prompt};
use super::rerank::rerank;
use super::worker::{ask_model, run_worker, CollectedEvidence, WorkerContext, WorkerOutcome};
use super::{AgentError, AgentOptions, AgentRun, ModelRouter};
use crate::llm::ChatMessage;
use crate::workspace::Library;

#[path = "orchestrator_cards.rs"]
mod cards;
use cards::cards_block;
pub use cards::{card_body, card_for_prompt, card_text, cards_for_prompt};

/// Run the whole pipeline for `question`.
///
/// Errors: [`AgentError`] when an orchestrator step fails (the model is unreachable, or its reply
/// does not parse after the repair round), when no documents are indexed, or when `--doc` names an
/// unknown id. A failing *Worker* is not an error: its message is in [`AgentRun::worker_errors`]
/// and the other Workers' evidence is returned.
pub async fn ask(
    library: Arc<dyn Library>,
    models: Arc<dyn ModelRouter>,
    sink: Arc<dyn EventSink>,
    options: &AgentOptions,
    question: &str,
) -> Result<AgentRun, AgentError> {
    let started = Instant::now();
    let cap = options.prompt_cap_tokens;
    let orchestrator = Emitter::new(ORCHESTRATOR, sink.clone());
    let model = models.model_for(ORCHESTRATOR);
    if library.cards().is_empty() {
        return Err(AgentError::NoDocuments);
    }
    for id in &options.doc_ids {
        if library.card(id).is_none() {
            return Err(AgentError::UnknownDocument(id.clone()));
        }
    }

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
    let query = format!("{question} {}", plan.key_concepts.join(" "));

    let mut tasks: Vec<Task> = if options.doc_ids.is_empty() {
        let cards = cards_for_prompt(library.as_ref(), &query, options.max_cards)?;
        let system = system_prompt(Prompt::Analyze, options, &[]);
        let mut user = format!(
            "Question: {question}\nKey concepts: {}\n\nDocCards:\n",
            plan.key_concepts.join(", ")
        );
        user.push_str(&cards_block(&cards, room_chars(cap, &[&system, &user])));
        let messages = vec![ChatMessage::system(system), ChatMessage::user(user)];
        let list: TaskList = ask_model(
            model.as_ref(),
            &orchestrator,
            "analyze",
            messages,
            &task_list_schema(),
            cap,
        )
        .await?;
        known_tasks(
            library.as_ref(),
            list.tasks,
            options.max_docs,
            &orchestrator,
        )
    } else {
        options
            .doc_ids
            .iter()
            .map(|id| Task {
                doc_id: id.clone(),
                task: question.to_string(),
            })
            .collect()
    };
    if tasks.is_empty() {
        orchestrator.emit(AgentEvent::Error {
            message: "analyze chose no known document".into(),
        });
        return Err(AgentError::NoTasks);
    }

    let ctx = Arc::new(WorkerContext {
        library: library.clone(),
        model: model.clone(),
        options: options.clone(),
        question: question.to_string(),
        key_concepts: plan.key_concepts.clone(),
    });
    let mut collected: Vec<CollectedEvidence> = Vec::new();
    let mut outcomes: Vec<WorkerOutcome> = Vec::new();
    let mut ran: Vec<Task> = Vec::new();
    let mut rounds = 0;
    for round in 1..=options.rounds.max(1) {
        rounds = round;
        let round_outcomes = dispatch(
            &ctx,
            models.as_ref(),
            &sink,
            round,
            &tasks,
            options.concurrency,
        )
        .await;
        for outcome in &round_outcomes {
            collected.extend(outcome.evidence.iter().cloned());
        }
        outcomes.extend(round_outcomes);
        ran.append(&mut tasks);
        if round == options.rounds.max(1) {
            break;
        }
        let verdict = evaluate(
            model.as_ref(),
            &orchestrator,
            library.as_ref(),
            options,
            round,
            question,
            &collected,
        )
        .await?;
        if verdict.sufficient {
            break;
        }
        tasks = replan(
            model.as_ref(),
            &orchestrator,
            library.as_ref(),
            options,
            round + 1,
            question,
            &query,
            &verdict.missing,
            &ran,
        )
        .await?;
        if tasks.is_empty() {
            break;
        }
    }

    let ranked = rerank(library.as_ref(), collected, &query);
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
    let worker_errors = outcomes
        .iter()
        .filter_map(|o| o.error.as_ref().map(|e| (o.worker_id.clone(), e.clone())))
        .collect();
    Ok(AgentRun {
        answer: Answer {
            question: question.to_string(),
            evidence: ranked.iter().map(|r| r.evidence.clone()).collect(),
            stats,
        },
        ranked,
        query_plan: plan,
        worker_errors,
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
    let mut results: Vec<(usize, WorkerOutcome)> = Vec::new();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(r) => results.push(r),
            Err(e) => tracing::error!("worker task failed: {e}"),
        }
    }
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, o)| o).collect()
}

/// Every evidence text fenced as untrusted data, labelled `doc_id #structure` (titles are
/// document text, so they stay inside the fence, in the text's own heading), each clipped to an
/// equal share of `budget_chars`.
fn evidence_block(
    library: &dyn Library,
    collected: &[CollectedEvidence],
    budget_chars: usize,
) -> String {
    if collected.is_empty() {
        return "(no evidence collected)\n".into();
    }
    let per_item = (budget_chars / collected.len()).saturating_sub(96);
    let mut s = String::new();
    for (i, ev) in collected.iter().enumerate() {
        let label = library
            .document(&ev.doc_id)
            .map(|d| format!("{} #{}", ev.doc_id, d.tree.node(ev.node).structure))
            .unwrap_or_else(|_| ev.doc_id.clone());
        let _ = writeln!(
            s,
            "[{}] {}",
            i + 1,
            untrusted(&label, &clip(&ev.text, per_item))
        );
    }
    s
}

/// Evaluate after round `round` (1-based): is the evidence sufficient for the question?
async fn evaluate(
    model: &dyn crate::llm::ChatModel,
    emitter: &Emitter,
    library: &dyn Library,
    options: &AgentOptions,
    round: usize,
    question: &str,
    collected: &[CollectedEvidence],
) -> Result<Verdict, AgentError> {
    let cap = options.prompt_cap_tokens;
    let system = system_prompt(Prompt::Evaluate, options, &[("round", round.to_string())]);
    let head = format!("Question: {question}\n\nEvidence:\n");
    let room = room_chars(cap, &[&system, &head]);
    let user = format!("{head}{}", evidence_block(library, collected, room));
    let messages = vec![ChatMessage::system(system), ChatMessage::user(user)];
    Ok(ask_model(model, emitter, "evaluate", messages, &verdict_schema(), cap).await?)
}

/// New tasks for round `round` (1-based), for what evaluate found `missing`.
#[allow(clippy::too_many_arguments)]
async fn replan(
    model: &dyn crate::llm::ChatModel,
    emitter: &Emitter,
    library: &dyn Library,
    options: &AgentOptions,
    round: usize,
    question: &str,
    query: &str,
    missing: &str,
    ran: &[Task],
) -> Result<Vec<Task>, AgentError> {
    let mut user = format!("Question: {question}\nMissing: {missing}\n\nTasks already run:\n");
    for t in ran {
        let _ = writeln!(user, "- `{}`: {}", t.doc_id, t.task);
    }
    user.push_str("\nDocCards:\n");
    let cards = if options.doc_ids.is_empty() {
        cards_for_prompt(library, query, options.max_cards)?
    } else {
        library
            .cards()
            .iter()
            .filter(|c| options.doc_ids.contains(&c.doc_id))
            .collect()
    };
    let system = system_prompt(Prompt::Replan, options, &[("round", round.to_string())]);
    user.push_str(&cards_block(
        &cards,
        room_chars(options.prompt_cap_tokens, &[&system, &user]),
    ));
    let messages = vec![ChatMessage::system(system), ChatMessage::user(user)];
    let list: TaskList = ask_model(
        model,
        emitter,
        "replan",
        messages,
        &task_list_schema(),
        options.prompt_cap_tokens,
    )
    .await?;
    let mut tasks = known_tasks(library, list.tasks, options.max_docs, emitter);
    if !options.doc_ids.is_empty() {
        tasks.retain(|t| options.doc_ids.contains(&t.doc_id));
    }
    Ok(tasks)
}
