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
use super::prompts::{render, untrusted, ANALYZE, EVALUATE, REPLAN, UNDERSTAND};
use super::rerank::rerank;
use super::worker::{ask_model, run_worker, CollectedEvidence, WorkerContext, WorkerOutcome};
use super::{AgentError, AgentOptions, AgentRun, ModelRouter};
use crate::index::bm25::Bm25Scorer;
use crate::index::doccard::human_bytes;
use crate::index::DocCard;
use crate::llm::ChatMessage;
use crate::workspace::Library;

/// Card text as the analyze/replan prompts show it (and as the BM25 pre-rank scores it).
pub fn card_text(card: &DocCard) -> String {
    let mut s = format!(
        "- id: `{}` — {} ({}, {}, {} sections)\n",
        card.doc_id,
        card.title,
        card.format.as_str(),
        human_bytes(card.bytes),
        card.node_count
    );
    if !card.outline.is_empty() {
        let _ = writeln!(s, "  outline: {}", card.outline.join("; "));
    }
    if !card.summary.is_empty() {
        let _ = writeln!(s, "  summary: {}", card.summary);
    }
    if !card.top_terms.is_empty() {
        let _ = writeln!(s, "  terms: {}", card.top_terms.join(", "));
    }
    s
}

/// The cards shown to the model: all of them, or the `max_cards` best by BM25 against `query`
/// when the catalog is larger (catalog order kept among the chosen).
pub fn cards_for_prompt<'a>(
    cards: &'a [DocCard],
    query: &str,
    max_cards: usize,
) -> Vec<&'a DocCard> {
    if cards.len() <= max_cards {
        return cards.iter().collect();
    }
    let texts: Vec<String> = cards.iter().map(card_text).collect();
    let scorer = Bm25Scorer::new(&texts);
    let mut ranked = scorer.rank(query);
    ranked.truncate(max_cards);
    let mut keep: Vec<usize> = ranked.into_iter().map(|(i, _)| i).collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| &cards[i]).collect()
}

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
        ChatMessage::system(UNDERSTAND.to_string()),
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
        let cards = cards_for_prompt(library.cards(), &query, options.max_cards);
        let mut user = format!(
            "Question: {question}\nKey concepts: {}\n\nDocCards:\n",
            plan.key_concepts.join(", ")
        );
        for card in &cards {
            user.push_str(&card_text(card));
        }
        let messages = vec![
            ChatMessage::system(render(
                ANALYZE,
                &[("max_docs", options.max_docs.to_string())],
            )),
            ChatMessage::user(user),
        ];
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
            question,
            &collected,
            cap,
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

fn evidence_block(
    library: &dyn Library,
    collected: &[CollectedEvidence],
    budget_chars: usize,
) -> String {
    if collected.is_empty() {
        return "(no evidence collected)\n".into();
    }
    let per_item = budget_chars / collected.len();
    let mut s = String::new();
    for (i, ev) in collected.iter().enumerate() {
        let label = library
            .document(&ev.doc_id)
            .map(|d| format!("{} › {}", ev.doc_id, d.tree.title_path(ev.node).join(" › ")))
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

async fn evaluate(
    model: &dyn crate::llm::ChatModel,
    emitter: &Emitter,
    library: &dyn Library,
    question: &str,
    collected: &[CollectedEvidence],
    cap: usize,
) -> Result<Verdict, AgentError> {
    let user = format!(
        "Question: {question}\n\nEvidence:\n{}",
        evidence_block(library, collected, cap * 4 / 2)
    );
    let messages = vec![
        ChatMessage::system(EVALUATE.to_string()),
        ChatMessage::user(user),
    ];
    Ok(ask_model(model, emitter, "evaluate", messages, &verdict_schema(), cap).await?)
}

#[allow(clippy::too_many_arguments)]
async fn replan(
    model: &dyn crate::llm::ChatModel,
    emitter: &Emitter,
    library: &dyn Library,
    options: &AgentOptions,
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
        cards_for_prompt(library.cards(), query, options.max_cards)
    } else {
        library
            .cards()
            .iter()
            .filter(|c| options.doc_ids.contains(&c.doc_id))
            .collect()
    };
    for card in cards {
        user.push_str(&card_text(card));
    }
    let messages = vec![
        ChatMessage::system(render(
            REPLAN,
            &[("max_docs", options.max_docs.to_string())],
        )),
        ChatMessage::user(user),
    ];
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tree::DocFormat;

    fn card(id: &str, summary: &str) -> DocCard {
        DocCard {
            doc_id: id.into(),
            title: id.into(),
            source: format!("/docs/{id}.md"),
            format: DocFormat::Markdown,
            bytes: 1000,
            node_count: 3,
            outline: vec![],
            summary: summary.into(),
            top_terms: vec![],
            fingerprint: "0".into(),
        }
    }

    #[test]
    fn large_catalogs_are_bm25_pre_ranked_down_to_max_cards_in_catalog_order() {
        let mut cards: Vec<DocCard> = (0..60)
            .map(|i| card(&format!("doc{i:02}"), "unrelated prose about gardening"))
            .collect();
        cards[7].summary = "configure the docker daemon logging driver".into();
        cards[42].summary = "docker daemon flags".into();
        let chosen = cards_for_prompt(&cards, "docker daemon logging", 2);
        let ids: Vec<&str> = chosen.iter().map(|c| c.doc_id.as_str()).collect();
        assert_eq!(ids, vec!["doc07", "doc42"]);
        // Small catalogs are shown whole.
        assert_eq!(cards_for_prompt(&cards[..10], "docker", 50).len(), 10);
    }
}
