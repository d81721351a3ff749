//! The rounds of a question: dispatch Workers for the tasks, then evaluate the evidence so far —
//! its "sufficient" over no evidence overruled, its "absent" checked by a catalog search — until
//! a verdict stands or the rounds run out.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::evaluate::{evaluate, Pass};
use super::placement::WorkerDispatch;
use super::{cards, known_tasks, PreRank, Run, NO_EVIDENCE};
use crate::agent::decisions::{Evaluation, Outcome, QueryPlan, Task};
use crate::agent::events::EventSink;
use crate::agent::evidence::AnswerVerdict;
use crate::agent::worker::{CollectedEvidence, WorkerContext, WorkerOutcome};
use crate::agent::{AgentError, ModelRouter};

/// What the rounds did so far.
#[derive(Default)]
pub(super) struct Rounds {
    /// Rounds dispatched.
    pub rounds: usize,
    /// Every Worker's outcome, in dispatch order.
    pub outcomes: Vec<WorkerOutcome>,
    /// Every Worker's evidence, in dispatch order.
    pub collected: Vec<CollectedEvidence>,
}

impl Rounds {
    /// Dispatch `tasks`, evaluate, and go on with evaluate's next tasks until a verdict stands.
    ///
    /// Errors: an evaluate call fails.
    pub async fn run(
        &mut self,
        run: &Run<'_>,
        pre: &PreRank,
        plan: &QueryPlan,
        mut tasks: Vec<Task>,
    ) -> Result<AnswerVerdict, AgentError> {
        let ctx = Arc::new(WorkerContext {
            library: run.library.clone(),
            model: run.model.clone(),
            options: run.options.clone(),
            question: run.question.to_string(),
            key_concepts: plan.key_concepts.clone(),
        });
        let last_round = run.options.rounds.max(1);
        // Whether evaluate's "absent" has had its catalog search.
        let mut searched = false;
        loop {
            self.rounds += 1;
            let outcomes = dispatch(
                &ctx,
                run.placement.workers.as_ref(),
                run.models,
                run.sink,
                self.rounds,
                &tasks,
                run.options.concurrency,
            )
            .await;
            for outcome in &outcomes {
                self.collected.extend(outcome.evidence.iter().cloned());
            }
            self.outcomes.extend(outcomes);
            if let Some(v) = judged_by_its_only_worker(plan, &self.outcomes) {
                return Ok(v);
            }
            let (mut evaluation, overruled) = self.evaluated(run, pre, last_round).await?;
            // "Absent" only after a search of the catalog: once per question, while a round is
            // left, for documents no Worker searched.
            if evaluation.verdict == Outcome::Absent && self.rounds < last_round && !searched {
                searched = true;
                evaluation = self.searched(run, pre, last_round, evaluation).await?;
            }
            let next = if self.rounds < last_round && evaluation.verdict == Outcome::Insufficient {
                known_tasks(
                    run.library.as_ref(),
                    evaluation.tasks,
                    run.options.max_docs,
                    run.orchestrator,
                )
            } else {
                Vec::new()
            };
            if next.is_empty() {
                return Ok(AnswerVerdict {
                    verdict: evaluation.verdict,
                    missing: evaluation.missing,
                    judged_by: if overruled {
                        "evaluate (its \"sufficient\" over no evidence was overruled)".into()
                    } else {
                        "evaluate".into()
                    },
                });
            }
            tasks = next;
        }
    }

    /// Evaluate the run so far (every evaluate of a round sees the same run; only why it is
    /// asked differs).
    async fn evaluate(
        &self,
        run: &Run<'_>,
        pre: &PreRank,
        last_round: usize,
        pass: Pass<'_>,
    ) -> Result<Evaluation, AgentError> {
        evaluate(
            run.model.as_ref(),
            run.orchestrator,
            run.library.as_ref(),
            run.options,
            (self.rounds, last_round),
            (run.question, run.terms),
            pre,
            &self.outcomes,
            &self.collected,
            pass,
        )
        .await
    }

    /// This round's evaluation, and whether its "sufficient" was overruled: zero evidence never
    /// answers a question, so a "sufficient" over none is overruled, said in the trace, and
    /// evaluate is asked again while a round is left.
    async fn evaluated(
        &self,
        run: &Run<'_>,
        pre: &PreRank,
        last_round: usize,
    ) -> Result<(Evaluation, bool), AgentError> {
        let mut evaluation = self.evaluate(run, pre, last_round, Pass::First).await?;
        if evaluation.verdict != Outcome::Sufficient || !self.collected.is_empty() {
            return Ok((evaluation, false));
        }
        run.orchestrator.decision(
            "overruled",
            &serde_json::json!({
                "model_verdict": "sufficient",
                "verdict": "insufficient",
                "reason": NO_EVIDENCE,
            }),
        );
        if self.rounds < last_round {
            evaluation = self.evaluate(run, pre, last_round, Pass::Overruled).await?;
        }
        if evaluation.verdict == Outcome::Sufficient {
            evaluation.verdict = Outcome::Insufficient;
            evaluation.missing = NO_EVIDENCE.to_string();
            evaluation.tasks.clear();
        }
        Ok((evaluation, true))
    }

    /// After an "absent": search the catalog for the question and what evaluate said is
    /// missing, and when it finds documents no Worker searched, evaluate again with them.
    async fn searched(
        &self,
        run: &Run<'_>,
        pre: &PreRank,
        last_round: usize,
        evaluation: Evaluation,
    ) -> Result<Evaluation, AgentError> {
        let mut queries = vec![run.question.to_string()];
        if !evaluation.missing.trim().is_empty() {
            queries.push(evaluation.missing.trim().to_string());
        }
        let ran: HashSet<&str> = self.outcomes.iter().map(|o| o.doc_id.as_str()).collect();
        let mut found = cards::catalog_search_with(
            run.placement.ranking.as_ref(),
            run.library.as_ref(),
            &queries,
            run.options.max_cards,
        )?;
        found.docs.retain(|d| !ran.contains(d.as_str()));
        run.orchestrator.decision(
            "catalog_search",
            &serde_json::json!({"queries": queries, "found": found.docs.len()}),
        );
        if found.docs.is_empty() {
            return Ok(evaluation);
        }
        self.evaluate(
            run,
            pre,
            last_round,
            Pass::AfterSearch {
                queries: &queries,
                found: &found,
            },
        )
        .await
    }
}

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

/// Run one Worker per task concurrently (at most `concurrency` at once), results in task order.
async fn dispatch(
    ctx: &Arc<WorkerContext>,
    workers: &dyn WorkerDispatch,
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
        let limit = limit.clone();
        let run = workers.run(Arc::new(worker_ctx), task.clone(), worker_id, sink.clone());
        set.spawn(async move {
            let _permit = limit.acquire_owned().await;
            (i, run.await)
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
            outcome.unwrap_or_else(|| {
                WorkerOutcome::failed(
                    &format!("r{round}-w{}-{}", i + 1, task.doc_id),
                    task,
                    format!("worker task died: {}", lost.as_deref().unwrap_or("unknown")),
                )
            })
        })
        .collect()
}
