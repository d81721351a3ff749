//! Where the Orchestrator's work happens: which process runs a Worker ([`WorkerDispatch`]) and
//! where the catalog is ranked for a question ([`CatalogRanking`]). [`Placement::local`] runs
//! both in this process over the run's library (what every face but a sharded corpus uses); a
//! corpus split into shards (each an ordinary workspace in another process) runs each Worker
//! where its document is ([`WorkerRequest`] in, [`WorkerReply`] out, both JSON) and ranks the
//! catalog with [`super::shards`]; the Orchestrator then reads the catalog gathered from every
//! shard ([`catalog`]).

pub mod catalog;

pub use catalog::{CatalogPart, GatheredCards, GatheredCatalog};

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cards::{rank_explained, RankedDocuments};
use crate::agent::decisions::Task;
use crate::agent::events::{Emitter, EventRecord, EventSink};
use crate::agent::worker::{run_worker, WorkerContext, WorkerOutcome};
use crate::agent::{AgentError, AgentOptions};
use crate::llm::{BoxFuture, ChatModel};
use crate::workspace::{Document, Library};

/// Runs one Worker: the run's [`WorkerContext`] (its library, model and options; `doc_ids`
/// cleared), its task and id; the Worker's events go to `sink` under its id. Never fails: a
/// Worker that cannot run is a [`WorkerOutcome`] with `error` set (the Orchestrator records it
/// and evaluate may dispatch the task again).
pub trait WorkerDispatch: Send + Sync {
    /// Run the Worker `worker_id` on `task` to its end.
    fn run(
        &self,
        ctx: Arc<WorkerContext>,
        task: Task,
        worker_id: String,
        sink: Arc<dyn EventSink>,
    ) -> BoxFuture<'static, WorkerOutcome>;
}

/// Ranks the catalog for one question: the analyze prompt's order, and every catalog search of
/// a run ([`super::catalog_search_with`]).
pub trait CatalogRanking: Send + Sync {
    /// The ranking of every document of the run's catalog for `question`, as
    /// [`rank_explained`] gives over one library holding them all.
    ///
    /// Errors: [`AgentError::Workspace`] when part of the catalog cannot be ranked (a shard that
    /// died): the run fails with it rather than go on with part of the catalog. The local
    /// ranking never fails (an unusable index ranks in catalog order, logged).
    fn rank(&self, library: &dyn Library, question: &str) -> Result<RankedDocuments, AgentError>;
}

/// Workers run in this process, on the run's library.
pub struct LocalWorkers;

impl WorkerDispatch for LocalWorkers {
    fn run(
        &self,
        ctx: Arc<WorkerContext>,
        task: Task,
        worker_id: String,
        sink: Arc<dyn EventSink>,
    ) -> BoxFuture<'static, WorkerOutcome> {
        let emitter = Arc::new(Emitter::new(worker_id.clone(), sink));
        Box::pin(run_worker(ctx, task, worker_id, emitter))
    }
}

/// The catalog ranked from the run's library's own section index ([`rank_explained`]).
pub struct LocalRanking;

impl CatalogRanking for LocalRanking {
    fn rank(&self, library: &dyn Library, question: &str) -> Result<RankedDocuments, AgentError> {
        Ok(rank_explained(library, question))
    }
}

/// Where a run's Workers run and its catalog is ranked.
#[derive(Clone)]
pub struct Placement {
    /// Runs each Worker.
    pub workers: Arc<dyn WorkerDispatch>,
    /// Ranks the catalog.
    pub ranking: Arc<dyn CatalogRanking>,
    /// The shard workspaces the Workers run in, in shard order, as the trace header lists them;
    /// empty when everything runs in this process.
    pub shards: Vec<String>,
}

impl Placement {
    /// Both in this process, over the run's library.
    pub fn local() -> Placement {
        Placement {
            workers: Arc::new(LocalWorkers),
            ranking: Arc::new(LocalRanking),
            shards: Vec::new(),
        }
    }
}

/// One Worker to run elsewhere: everything of its [`WorkerContext`] but the library and the
/// model, which the process running it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerRequest {
    /// Its id (`r1-w2-doc_id`).
    pub worker_id: String,
    /// Its task.
    pub task: Task,
    /// The run's options (`doc_ids` cleared).
    pub options: AgentOptions,
    /// The question the run searches for.
    pub question: String,
    /// The analysis's key concepts.
    pub key_concepts: Vec<String>,
}

impl WorkerRequest {
    /// The request for the Worker `worker_id` of `ctx` on `task`.
    pub fn of(ctx: &WorkerContext, task: Task, worker_id: String) -> WorkerRequest {
        WorkerRequest {
            worker_id,
            task,
            options: ctx.options.clone(),
            question: ctx.question.clone(),
            key_concepts: ctx.key_concepts.clone(),
        }
    }
}

/// What a Worker run elsewhere returns: its outcome, its events (its actor's stream, in order)
/// and the documents its evidence is from (the Orchestrator reads their trees to rerank and to
/// name the evidence's headings).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkerReply {
    /// The Worker's outcome.
    pub outcome: WorkerOutcome,
    /// Its events.
    pub events: Vec<EventRecord>,
    /// Its task's document and every document of its evidence, each once, that `library`
    /// holds.
    pub documents: Vec<Document>,
}

/// Run the Worker `request` names on `library` with `model`: what a process holding the
/// document does for a [`WorkerDispatch`] elsewhere. Never fails (see [`run_worker`]).
pub async fn run_requested_worker(
    library: Arc<dyn Library>,
    model: Arc<dyn ChatModel>,
    request: WorkerRequest,
) -> WorkerReply {
    let sink = Arc::new(crate::agent::events::MemorySink::default());
    let ctx = Arc::new(WorkerContext {
        library: library.clone(),
        model,
        options: request.options,
        question: request.question,
        key_concepts: request.key_concepts,
    });
    let emitter = Arc::new(Emitter::new(request.worker_id.clone(), sink.clone()));
    let outcome = run_worker(ctx, request.task, request.worker_id, emitter).await;
    let ids: BTreeSet<&str> = std::iter::once(outcome.doc_id.as_str())
        .chain(outcome.evidence.iter().map(|e| e.doc_id.as_str()))
        .collect();
    let documents = ids
        .into_iter()
        .filter_map(|id| library.document(id).ok())
        .map(|d| Document::clone(&d))
        .collect();
    WorkerReply {
        outcome,
        events: sink.events(),
        documents,
    }
}

/// Forward a reply's events to `sink` (the run's), as the Worker's own stream.
pub fn forward_events(reply: &WorkerReply, sink: &dyn EventSink) {
    for record in &reply.events {
        sink.record(record.clone());
    }
}
