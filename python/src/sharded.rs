//! `ShardedWorkspace.ask` underneath: the Orchestrator runs in this (the driver's) process over
//! the catalog gathered from every shard ([`GatheredCatalog`]: the cards, and the trees of the
//! documents the Workers read, which they send back), its pre-rank and catalog searches ranked
//! over every shard by a Python callable ([`PyRanking`]), each Worker run in its document's
//! shard by another ([`PyWorkers`]: a Ray call to the shard's actor, which runs
//! [`run_worker_json`]). Requests and replies cross as JSON text. `ShardedWorkspace.replay` is
//! the same with the recorded replies ([`replay_sharded`], each Worker replayed in its shard by
//! [`replay_worker_json`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;

use docnav::agent::decisions::Task;
use docnav::agent::events::{AgentEvent, Emitter, EventRecord, EventSink};
use docnav::agent::orchestrator::placement::{
    forward_events, run_requested_worker, CatalogPart, CatalogRanking, GatheredCards,
    GatheredCatalog, WorkerDispatch, WorkerReply, WorkerRequest,
};
use docnav::agent::orchestrator::shards::{merge_rankings, RankStatistics, ShardRanking};
use docnav::agent::orchestrator::{Placement, RankedDocuments};
use docnav::agent::worker::{WorkerContext, WorkerOutcome};
use docnav::agent::{AgentError, NullSink};
use docnav::llm::BoxFuture;
use docnav::trace::read_trace;
use docnav::trace::record::{Ask, CachePolicy, Catalog, TraceDestination};
use docnav::trace::replay::verdict::{judge, missing_refusal, notes, version_refusal};
use docnav::trace::replay::{replay_placed, ReplayModel};
use docnav::workspace::Library;

use crate::ask::{agent_options, connect, ended, runtime, spawn_run, AgentKnobs, AskHandle};
use crate::ask::{Ended, ModelKnobs};
use crate::errors::Error;
use crate::results::ReplayReport;
use crate::workspace::Workspace;

/// Add the functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(catalog_json, m)?)?;
    m.add_function(wrap_pyfunction!(catalog_version, m)?)?;
    m.add_class::<ShardCards>()?;
    m.add_function(wrap_pyfunction!(run_worker_json, m)?)?;
    m.add_function(wrap_pyfunction!(start_sharded_ask, m)?)?;
    m.add_function(wrap_pyfunction!(replay_worker_json, m)?)?;
    m.add_function(wrap_pyfunction!(replay_sharded, m)?)?;
    Ok(())
}

/// `workspace`'s catalog as the JSON of a `CatalogPart`: `{"aliases": [[alias, doc_id]…],
/// "cards": [DocCard…]}`, the cards in catalog order. Errors: `WorkspaceError` for an unusable
/// workspace.
#[pyfunction]
fn catalog_json(py: Python<'_>, workspace: &Workspace) -> PyResult<String> {
    Ok(py.detach(|| -> Result<String, Error> {
        let opened = workspace.opened()?;
        let part = CatalogPart::of_library(opened.workspace.as_ref())?;
        part.to_json().map_err(|e| Error::Other(e.to_string()))
    })?)
}

/// What `workspace`'s catalog is now, as text that changes whenever the catalog does: its index
/// generation (one more at every committed index run) and the digest of its document ids (a
/// workspace rebuilt in the same folder starts its generations again). Reads the catalog's head
/// only, not the cards. Errors: `WorkspaceError` for an unusable workspace.
#[pyfunction]
fn catalog_version(py: Python<'_>, workspace: &Workspace) -> PyResult<String> {
    Ok(py.detach(|| -> Result<String, Error> {
        let opened = workspace.opened()?;
        let ws = opened.workspace.as_ref();
        Ok(format!(
            "{}:{}",
            ws.index_generation(),
            ws.catalog_ids_digest()
        ))
    })?)
}

/// Run one Worker on `workspace` (a shard holding its document): `request` is the JSON of a
/// `WorkerRequest` (`worker_id`, `task` `{doc_id, task}`, `options`, `question`,
/// `key_concepts`); the model settings are `Workspace.ask`'s. Returns the JSON of a
/// `WorkerReply`: `{"outcome", "events", "documents"}` (the Worker's outcome, its events, the
/// trees of its task's and its evidence's documents). A Worker that fails (its model, a
/// command) is an outcome with `error` set, not an exception. Runs with the GIL released.
/// Errors: `ValueError` for a request that does not parse; `ModelError` when no model is
/// configured or a setting is invalid; `WorkspaceError` for an unusable workspace.
#[pyfunction]
#[pyo3(signature = (
    workspace, request, *, model = None, base_url = None, api_key = None, timeout = None,
    retries = None, max_requests = None, json_schema = true
))]
#[allow(clippy::too_many_arguments)]
fn run_worker_json(
    py: Python<'_>,
    workspace: &Workspace,
    request: &str,
    model: Option<String>,
    base_url: Option<String>,
    api_key: Option<String>,
    timeout: Option<f64>,
    retries: Option<u32>,
    max_requests: Option<usize>,
    json_schema: bool,
) -> PyResult<String> {
    let request: WorkerRequest = serde_json::from_str(request).map_err(|e| {
        pyo3::exceptions::PyValueError::new_err(format!("not a worker request: {e}"))
    })?;
    let model = connect(&ModelKnobs {
        model,
        base_url,
        api_key,
        timeout,
        retries,
        max_requests,
        json_schema,
    })?;
    let runtime = runtime()?;
    Ok(py.detach(|| -> Result<String, Error> {
        let library: Arc<dyn Library> = workspace.opened()?.workspace.clone();
        let reply = runtime.block_on(run_requested_worker(library, model, request));
        serde_json::to_string(&reply).map_err(|e| Error::Other(e.to_string()))
    })?)
}

/// `docnav._native.ShardCards(catalogs)`: every shard's catalog (`catalogs`, each shard's
/// `catalog_json`) parsed once in the driver and merged (`GatheredCards`). Immutable;
/// `ShardedWorkspace` keeps one while no shard's catalog changes (`catalog_version`), so an `ask`
/// neither gathers nor parses every card again. Errors: `ValueError` for a catalog that does not parse.
#[pyclass(module = "docnav._native", frozen)]
pub struct ShardCards {
    cards: Arc<GatheredCards>,
}

#[pymethods]
impl ShardCards {
    #[new]
    fn new(py: Python<'_>, catalogs: Vec<String>) -> PyResult<ShardCards> {
        let parts = py
            .detach(|| {
                catalogs
                    .iter()
                    .map(|c| CatalogPart::from_json(c))
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("a shard's catalog: {e}"))
            })?;
        Ok(ShardCards {
            cards: Arc::new(py.detach(|| GatheredCards::new(parts))),
        })
    }
}

impl ShardCards {
    /// A run's catalog over these cards, holding no document tree yet.
    fn catalog(&self) -> GatheredCatalog {
        GatheredCatalog::new(self.cards.clone())
    }
}

/// The catalog ranked over every shard by the Python callable `rank(question) -> (stats,
/// parts)` (the merged `RankStatistics` and each shard's `ShardRanking` for it, JSON). A failure
/// (an exception, a reply that does not parse) fails the run, and the first is kept to be
/// raised as it was (a `ShardError` naming the shard).
struct PyRanking {
    rank: Py<PyAny>,
    failure: Mutex<Option<PyErr>>,
}

impl PyRanking {
    fn failure_held(&self) -> MutexGuard<'_, Option<PyErr>> {
        self.failure.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The first failure of a ranking, taken to be raised.
    fn take_failure(&self) -> Option<PyErr> {
        self.failure_held().take()
    }

    fn ranked(&self, question: &str) -> PyResult<RankedDocuments> {
        let (stats, parts): (String, Vec<String>) = tokio::task::block_in_place(|| {
            Python::attach(|py| self.rank.call1(py, (question,))?.extract(py))
        })?;
        let bad = |e: serde_json::Error| {
            pyo3::exceptions::PyValueError::new_err(format!("a shard's ranking: {e}"))
        };
        let stats: RankStatistics = serde_json::from_str(&stats).map_err(bad)?;
        let parts: Vec<ShardRanking> = parts
            .iter()
            .map(|p| serde_json::from_str(p))
            .collect::<Result<_, _>>()
            .map_err(bad)?;
        Ok(merge_rankings(&stats, &parts))
    }
}

impl CatalogRanking for PyRanking {
    fn rank(&self, _library: &dyn Library, question: &str) -> Result<RankedDocuments, AgentError> {
        self.ranked(question).map_err(|e| {
            let message = e.to_string();
            self.failure_held().get_or_insert(e);
            AgentError::Workspace(message)
        })
    }
}

/// Each Worker run in its document's shard by the Python callable `run(doc_id, request) ->
/// (shard, reply)` (a `WorkerRequest` in, the shard's number and a `WorkerReply` out, JSON): the
/// reply's events go to the run's sink (its `worker_started` naming the shard), its documents to
/// `catalog`. An exception (a shard that died, `ShardError` with its `shard`) is the Worker's
/// error.
struct PyWorkers {
    run: Arc<Py<PyAny>>,
    catalog: Arc<GatheredCatalog>,
    /// In a replay: the trace's model id and events; `run` is then called as `run(doc_id,
    /// request, recorded)` with the JSON `{"model", "events"}` of the Worker's own events.
    recorded: Option<Arc<(String, Vec<EventRecord>)>>,
}

impl PyWorkers {
    /// The third argument of `run` in a replay: the Worker's recorded events.
    fn recorded_of(&self, worker_id: &str) -> Option<String> {
        let (model, events) = self.recorded.as_deref()?;
        let own: Vec<&EventRecord> = events.iter().filter(|e| e.actor == worker_id).collect();
        serde_json::to_string(&serde_json::json!({"model": model, "events": own})).ok()
    }
}

impl WorkerDispatch for PyWorkers {
    fn run(
        &self,
        ctx: Arc<WorkerContext>,
        task: Task,
        worker_id: String,
        sink: Arc<dyn EventSink>,
    ) -> BoxFuture<'static, WorkerOutcome> {
        let (call, catalog) = (self.run.clone(), self.catalog.clone());
        let request = WorkerRequest::of(&ctx, task.clone(), worker_id.clone());
        let recorded = self.recorded_of(&worker_id);
        Box::pin(async move {
            let doc_id = task.doc_id.clone();
            let json = serde_json::to_string(&request).unwrap_or_default();
            let called = tokio::task::spawn_blocking(move || {
                Python::attach(|py| {
                    match recorded {
                        Some(recorded) => call.call1(py, (doc_id, json, recorded)),
                        None => call.call1(py, (doc_id, json)),
                    }
                    .and_then(|r| r.extract::<(u32, String)>(py))
                    .map_err(|e| {
                        let shard = e
                            .value(py)
                            .getattr("shard")
                            .and_then(|s| s.extract::<i64>())
                            .ok()
                            .and_then(|s| u32::try_from(s).ok());
                        (shard, e.to_string())
                    })
                })
            })
            .await
            .unwrap_or_else(|e| Err((None, format!("the call to the shard died: {e}"))));
            let reply = called.and_then(|(shard, json)| {
                serde_json::from_str::<WorkerReply>(&json)
                    .map(|r| (shard, r))
                    .map_err(|e| {
                        (
                            Some(shard),
                            format!("shard {shard}: a reply that does not parse: {e}"),
                        )
                    })
            });
            match reply {
                Ok((shard, mut reply)) => {
                    for record in &mut reply.events {
                        if let AgentEvent::WorkerStarted { shard: s, .. } = &mut record.event {
                            *s = Some(shard);
                        }
                    }
                    forward_events(&reply, sink.as_ref());
                    catalog.keep(std::mem::take(&mut reply.documents));
                    reply.outcome
                }
                Err((shard, error)) => failed(&worker_id, &task, shard, error, sink),
            }
        })
    }
}

/// The outcome (and events: started, finished with the error) of a Worker that could not run
/// in its shard.
fn failed(
    worker_id: &str,
    task: &Task,
    shard: Option<u32>,
    error: String,
    sink: Arc<dyn EventSink>,
) -> WorkerOutcome {
    let emitter = Emitter::new(worker_id, sink);
    emitter.emit(AgentEvent::WorkerStarted {
        doc_id: task.doc_id.clone(),
        task: task.task.clone(),
        shard,
    });
    emitter.emit(AgentEvent::WorkerFinished {
        steps: 0,
        evidence: 0,
        error: Some(error.clone()),
    });
    WorkerOutcome::failed(worker_id, task, error)
}

/// `TypeError` naming the argument when `rank` or `run_worker` is not callable.
fn require_callables(py: Python<'_>, rank: &Py<PyAny>, run_worker: &Py<PyAny>) -> PyResult<()> {
    for (name, f) in [("rank", rank), ("run_worker", run_worker)] {
        if !f.bind(py).is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "argument '{name}': must be callable"
            )));
        }
    }
    Ok(())
}

/// Start an agent run over shards (see `docnav.cluster.ShardedWorkspace.ask`): `cards` is
/// every shard's catalog ([`ShardCards`]), `shard_paths` the shard workspaces in shard order (recorded in
/// the trace header), `rank` and `run_worker` the callables described in this module; the other
/// arguments are `Workspace.start_ask`'s (no answer cache: the shards have no one place to keep
/// answers). The handle waits, cancels and returns the result; a `rank` that raised makes
/// `result()` raise that exception. Errors:
/// `ModelError` without a model or with invalid model settings.
#[pyfunction]
#[pyo3(signature = (
    cards, shard_paths, question, rank, run_worker, *, model = None, base_url = None,
    api_key = None, timeout = None, retries = None, max_requests = None, json_schema = true,
    doc_ids = None, trace = None, trace_dir = None, max_steps = 12, rounds = 3, max_cards = 50,
    max_docs = 4, concurrency = 4, evidence_chars = 12_000, prompt_cap = 12_000,
    output_budget = 4_000, answer = false
))]
#[allow(clippy::too_many_arguments)]
fn start_sharded_ask(
    py: Python<'_>,
    cards: PyRef<'_, ShardCards>,
    shard_paths: Vec<String>,
    question: String,
    rank: Py<PyAny>,
    run_worker: Py<PyAny>,
    model: Option<String>,
    base_url: Option<String>,
    api_key: Option<String>,
    timeout: Option<f64>,
    retries: Option<u32>,
    max_requests: Option<usize>,
    json_schema: bool,
    doc_ids: Option<Vec<String>>,
    trace: Option<PathBuf>,
    trace_dir: Option<PathBuf>,
    max_steps: usize,
    rounds: usize,
    max_cards: usize,
    max_docs: usize,
    concurrency: usize,
    evidence_chars: usize,
    prompt_cap: usize,
    output_budget: usize,
    answer: bool,
) -> PyResult<AskHandle> {
    require_callables(py, &rank, &run_worker)?;
    let model = connect(&ModelKnobs {
        model,
        base_url,
        api_key,
        timeout,
        retries,
        max_requests,
        json_schema,
    })?;
    let knobs = AgentKnobs {
        max_steps,
        rounds,
        max_cards,
        max_docs,
        concurrency,
        evidence_chars,
        prompt_cap,
        output_budget,
        answer,
    };
    let options = agent_options(&knobs, doc_ids.unwrap_or_default());
    let catalog = Arc::new(cards.catalog());
    let ranking = Arc::new(PyRanking {
        rank,
        failure: Mutex::new(None),
    });
    let placement = Placement {
        workers: Arc::new(PyWorkers {
            run: Arc::new(run_worker),
            catalog: catalog.clone(),
            recorded: None,
        }),
        ranking: ranking.clone(),
        shards: shard_paths,
    };
    let ask = Ask {
        // The shards keep no answers (CachePolicy::Off), so no workspace folder is read.
        catalog: Catalog::Opened {
            library: catalog,
            workspace: PathBuf::new(),
            generation: 0,
        },
        model,
        options,
        question,
        memory: Vec::new(),
        trace: match (trace, trace_dir) {
            (Some(file), _) => Some(TraceDestination::File(file)),
            (None, Some(dir)) => Some(TraceDestination::NewIn(dir)),
            (None, None) => None,
        },
        cache: CachePolicy::Off,
        permits: None,
        placement,
    };
    spawn_run(move |cancelled| async move {
        let result = ask.run(Arc::new(NullSink), cancelled).await;
        match ranking.take_failure() {
            Some(e) => Ended::Raised(e),
            None => ended(result),
        }
    })
}

/// Replay one Worker of a trace on `workspace` (the shard holding its document): `request` as
/// for `run_worker_json`, `recorded` the JSON `{"model": the trace's model id, "events": [the
/// Worker's recorded events]}`; its model calls are answered from them, no model is called.
/// Returns the JSON of a `WorkerReply` (a request that differs from the recorded one is the
/// Worker's error). Runs with the GIL released. Errors: `ValueError` for a request or
/// recording that does not parse; `WorkspaceError` for an unusable workspace.
#[pyfunction]
fn replay_worker_json(
    py: Python<'_>,
    workspace: &Workspace,
    request: &str,
    recorded: &str,
) -> PyResult<String> {
    let bad = |what: &str, e: serde_json::Error| {
        pyo3::exceptions::PyValueError::new_err(format!("not a {what}: {e}"))
    };
    let request: WorkerRequest =
        serde_json::from_str(request).map_err(|e| bad("worker request", e))?;
    let mut recorded: serde_json::Value =
        serde_json::from_str(recorded).map_err(|e| bad("worker recording", e))?;
    let model_id = recorded["model"].as_str().unwrap_or_default().to_string();
    let events: Vec<EventRecord> = serde_json::from_value(recorded["events"].take())
        .map_err(|e| bad("worker recording", e))?;
    let model = Arc::new(ReplayModel::for_actor(
        &request.worker_id,
        &model_id,
        &events,
    ));
    let runtime = runtime()?;
    Ok(py.detach(|| -> Result<String, Error> {
        let library: Arc<dyn Library> = workspace.opened()?.workspace.clone();
        let reply = runtime.block_on(run_requested_worker(library, model, request));
        serde_json::to_string(&reply).map_err(|e| Error::Other(e.to_string()))
    })?)
}

/// Replay the trace at `trace_path` over shards (see `docnav.cluster.ShardedWorkspace.replay`):
/// `cards` and `rank` as for `start_sharded_ask`, `run_worker(doc_id, request, recorded) ->
/// (shard, reply)` running `replay_worker_json` in the document's shard. Returns the report
/// `docnav.replay` gives. Errors: `ReplayError` for an unreadable trace, one of an older format,
/// or one whose documents no shard holds; an exception `rank` raised.
#[pyfunction]
fn replay_sharded(
    py: Python<'_>,
    trace_path: PathBuf,
    cards: PyRef<'_, ShardCards>,
    rank: Py<PyAny>,
    run_worker: Py<PyAny>,
) -> PyResult<ReplayReport> {
    require_callables(py, &rank, &run_worker)?;
    let label = trace_path.display().to_string();
    let trace = read_trace(&trace_path).map_err(|e| Error::Replay(e.to_string()))?;
    if let Some(why) = version_refusal(&trace, &label) {
        return Err(Error::Replay(format!("{} (hint: {})", why.error, why.hint)).into());
    }
    let catalog = Arc::new(cards.catalog());
    if let Some(why) = missing_refusal(&trace, &label, catalog.as_ref()) {
        return Err(Error::Replay(format!("{} (hint: {})", why.error, why.hint)).into());
    }
    let ranking = Arc::new(PyRanking {
        rank,
        failure: Mutex::new(None),
    });
    let placement = Placement {
        workers: Arc::new(PyWorkers {
            run: Arc::new(run_worker),
            catalog: catalog.clone(),
            recorded: Some(Arc::new((trace.header.model.clone(), trace.events.clone()))),
        }),
        ranking: ranking.clone(),
        shards: trace.header.shards.clone(),
    };
    let runtime = runtime()?;
    let library: Arc<dyn Library> = catalog.clone();
    let trace = Arc::new(trace);
    let replayed = trace.clone();
    let outcome = py.detach(|| {
        runtime.block_on(
            runtime.spawn(async move { replay_placed(&replayed, library, &placement).await }),
        )
    });
    if let Some(e) = ranking.take_failure() {
        return Err(e);
    }
    let outcome = outcome.map_err(|e| Error::Other(format!("the replay died: {e}")))?;
    let verdict = judge(&trace, &outcome);
    let notes = notes(&trace, catalog.as_ref(), Some(&outcome));
    ReplayReport::of(py, label, &verdict, notes)
}
