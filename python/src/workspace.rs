//! `docnav._native.Workspace`: one workspace directory, reopened when an index run (in this
//! process or another) commits, as the MCP server and `docnav serve` see it
//! ([`LiveLibrary`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

use docnav::agent::search::search_sections;
use docnav::nav::lexer::quote_word;
use docnav::nav::live::{LiveLibrary, Opened};
use docnav::nav::Status;
use docnav::tree::outline::OutlineNode;
use docnav::tree::NodeId;
use docnav::workspace::indexer::IndexProgress;
use docnav::workspace::{IndexOptions, Library, Workspace as CoreWorkspace};

use crate::ask::{start_ask, AgentKnobs, AskHandle, AskRequest, ModelKnobs};
use crate::errors::Error;
use crate::results::{DocCard, IndexReport, Node, RankedDoc, SearchHit};
use crate::session::Session;

/// Most results of one search (as the MCP `search` tool).
/// `Ok` for a `k` of 1 to [`docnav::agent::search::MAX_K`] (the limit every face shares); a
/// `ValueError` naming it otherwise.
fn check_k(k: usize) -> PyResult<()> {
    docnav::agent::search::check_k(k)
        .map(|_| ())
        .map_err(pyo3::exceptions::PyValueError::new_err)
}

/// A docnav workspace (the `.docnav` folder `docnav index` writes).
#[pyclass(module = "docnav._native", frozen)]
pub struct Workspace {
    live: Arc<LiveLibrary>,
}

impl Workspace {
    /// The workspace as its catalog is now. Errors: `WorkspaceError` (none indexed yet, damaged,
    /// older version).
    pub fn opened(&self) -> Result<Opened, Error> {
        Ok(self.live.get()?)
    }
}

/// Forwards index progress to a Python callable `progress(done, total, path)` (when given) and
/// tells the indexer to stop once `cancel` is set (Ctrl-C) or the callable has raised: the
/// first exception it raises is kept and raised when the run has stopped.
struct PyProgress<'a> {
    callback: Option<Py<PyAny>>,
    /// Files done and the total. Held across each call of the callable (taken before the GIL,
    /// so no deadlock with a thread that holds the GIL): the calls come one at a time, in order
    /// of `done`, and none after one raised — the indexing threads would otherwise race to it.
    total: Mutex<(usize, usize)>,
    failure: Mutex<Option<PyErr>>,
    cancel: &'a AtomicBool,
}

impl PyProgress<'_> {
    /// Call the callable (the caller holds `total`), unless the run is stopping.
    fn call(&self, done: usize, total: usize, path: &str) {
        let Some(callback) = &self.callback else {
            return;
        };
        if self.cancelled() {
            return;
        }
        Python::attach(|py| {
            if let Err(e) = callback.call1(py, (done, total, path)) {
                *lock(&self.failure) = Some(e);
                self.cancel.store(true, Ordering::SeqCst);
            }
        });
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl IndexProgress for PyProgress<'_> {
    fn start(&self, total: usize) {
        let mut held = lock(&self.total);
        *held = (0, total);
        self.call(0, total, "");
    }
    fn file_done(&self, path: &Path) {
        let mut held = lock(&self.total);
        held.0 += 1;
        let (done, total) = *held;
        self.call(done, total, &path.to_string_lossy());
    }
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }
}

/// How often a running index looks for Ctrl-C (Python handles signals only on its main thread,
/// which waits for the run).
const SIGNAL_POLL: Duration = Duration::from_millis(20);

#[pymethods]
impl Workspace {
    /// Open (lazily: nothing is read until first use) the workspace at `path`.
    #[new]
    #[pyo3(signature = (path = PathBuf::from(".docnav")))]
    fn new(path: PathBuf) -> Workspace {
        Workspace {
            live: Arc::new(LiveLibrary::new(&path)),
        }
    }

    /// The workspace directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.live.dir().to_path_buf()
    }

    /// Index `paths` (files, folders, globs) as `docnav index` does; returns its report.
    /// Ctrl-C, or an exception from `progress(done, total, path)`, stops the run before its
    /// commit (the workspace unchanged) and is raised once the run has stopped. Errors:
    /// `WorkspaceError` for the workspace.
    #[pyo3(signature = (paths, *, force = false, prune = false, jobs = None, progress = None))]
    fn index(
        &self,
        py: Python<'_>,
        paths: Vec<String>,
        force: bool,
        prune: bool,
        jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<IndexReport> {
        let mut options = IndexOptions {
            force,
            prune,
            ..IndexOptions::default()
        };
        if let Some(jobs) = jobs {
            options.jobs = jobs.max(1);
        }
        let cancel = AtomicBool::new(false);
        let progress = PyProgress {
            callback: progress,
            total: Mutex::new((0, 0)),
            failure: Mutex::new(None),
            cancel: &cancel,
        };
        let dir = self.live.dir().to_path_buf();
        // The run goes on in its own thread while this one, Python's, waits for it with the GIL
        // released and checks for Ctrl-C in between: a KeyboardInterrupt cancels the run
        // (nothing committed) and is raised when it has stopped.
        let (report, interrupted) = std::thread::scope(|scope| {
            let run = scope.spawn(|| CoreWorkspace::index(&dir, &paths, &options, &progress));
            let mut interrupted = None;
            while !run.is_finished() {
                py.detach(|| std::thread::sleep(SIGNAL_POLL));
                if interrupted.is_none() {
                    if let Err(e) = py.check_signals() {
                        cancel.store(true, Ordering::SeqCst);
                        interrupted = Some(e);
                    }
                }
            }
            (run.join(), interrupted)
        });
        if let Some(e) = interrupted {
            return Err(e);
        }
        if let Some(e) = lock(&progress.failure).take() {
            return Err(e);
        }
        let report =
            report.map_err(|_| Error::Other("indexing stopped: a panic in the indexer".into()))?;
        let report = report.map_err(Error::from)?;
        Ok(IndexReport::of(report))
    }

    /// Every document's DocCard, in catalog order (`docnav docs --json`).
    fn docs(&self, py: Python<'_>) -> PyResult<Vec<DocCard>> {
        let cards =
            py.detach(|| -> Result<_, Error> { Ok(self.opened()?.workspace.all_cards()) })?;
        cards.iter().map(|c| DocCard::of(py, c)).collect()
    }

    /// The source file of each of `doc_ids` (an unknown id is left out), as `{doc_id: source}`
    /// from the DocCards, without reading the other cards.
    fn sources(&self, py: Python<'_>, doc_ids: Vec<String>) -> PyResult<HashMap<String, String>> {
        Ok(py.detach(|| -> Result<_, Error> {
            let opened = self.opened()?;
            Ok(doc_ids
                .into_iter()
                .filter_map(|id| {
                    let card = opened.workspace.card(&id)?;
                    Some((id, card.source.clone()))
                })
                .collect())
        })?)
    }

    /// The first `k` (1–50) DocCards as `ask`'s Orchestrator ranks them for `question`
    /// (`docnav docs --for`, [`docnav::agent::routing::explain`]), each with `why` it ranks
    /// there. Raises `ValueError` for an empty question or `k` out of range, `WorkspaceError`
    /// (the CLI's message, naming the file) when the catalog's cards do not decode.
    #[pyo3(signature = (question, k = 10))]
    fn docs_for(&self, py: Python<'_>, question: &str, k: usize) -> PyResult<Vec<RankedDoc>> {
        check_k(k)?;
        if question.trim().is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "the question is empty",
            ));
        }
        let ranked = py.detach(|| -> Result<_, Error> {
            let opened = self.opened()?;
            Ok(docnav::agent::routing::explain(
                opened.workspace.as_ref(),
                question,
                k,
            )?)
        })?;
        ranked.iter().map(|r| RankedDoc::of(py, r)).collect()
    }

    /// The heading tree of `doc_id` (or of the document it is an alias of), root first
    /// (`docnav tree --json`). Raises `WorkspaceError` for an unknown id.
    fn tree(&self, py: Python<'_>, doc_id: &str) -> PyResult<Node> {
        let outline = py.detach(|| -> Result<_, Error> {
            let opened = self.opened()?;
            let doc_id = opened
                .workspace
                .resolve_id(doc_id)
                .unwrap_or_else(|| doc_id.to_string());
            let doc = opened.workspace.document(&doc_id)?;
            Ok(OutlineNode::of(&doc.tree, NodeId::ROOT, u32::MAX))
        })?;
        Node::of(py, &outline)
    }

    /// The `k` best sections for `query` (BM25 over the section index), best score first, each
    /// with its document's `source` file. `budget` cuts each hit's text (chars, at a line
    /// boundary); `None` keeps the whole section. Raises `ValueError` for an empty query or `k`
    /// out of range, `WorkspaceError` for an unknown id in `doc_ids` or an unusable index.
    #[pyo3(signature = (query, k = 10, doc_ids = None, budget = None))]
    fn search(
        &self,
        py: Python<'_>,
        query: &str,
        k: usize,
        doc_ids: Option<Vec<String>>,
        budget: Option<usize>,
    ) -> PyResult<Vec<SearchHit>> {
        check_k(k)?;
        if query.trim().is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "the query is empty (give keywords or a question)",
            ));
        }
        // No budget: more chars than any section has (and room for the search's own `+ 1`).
        let budget = budget.map_or(usize::MAX / 4, |b| b.max(1));
        Ok(py.detach(|| -> Result<Vec<SearchHit>, Error> {
            let opened = self.opened()?;
            let library = opened.workspace.as_ref();
            let found = search_sections(library, query, doc_ids.as_deref(), k, budget)?;
            Ok(found
                .results
                .into_iter()
                .map(|hit| {
                    let source = library
                        .card(&hit.doc_id)
                        .map(|card| card.source.clone())
                        .unwrap_or_default();
                    SearchHit::of(hit, source)
                })
                .collect())
        })?)
    }

    /// Run one command of the navigation language from `cwd` on a fresh session and return its
    /// output (`docnav exec`). A command that reports an error raises `CommandError`.
    #[pyo3(signature = (command, cwd = "/", budget = None))]
    fn exec(
        &self,
        py: Python<'_>,
        command: &str,
        cwd: &str,
        budget: Option<usize>,
    ) -> PyResult<String> {
        Ok(py.detach(|| -> Result<String, Error> {
            let opened = self.opened()?;
            let mut session = opened.session.clone();
            if let Some(b) = budget {
                session = session.with_budget(b.max(1));
            }
            if cwd != "/" {
                let moved = session.execute(&format!("cd {}", quote_word(cwd)))?;
                if moved.status == Status::Error {
                    return Err(Error::Command(moved.text));
                }
            }
            let out = session.execute(command)?;
            if out.status == Status::Error {
                return Err(Error::Command(out.text));
            }
            Ok(out.text)
        })?)
    }

    /// A stateful session at `cwd` (`cd`, `ls`, `cat`… as in `docnav shell`).
    #[pyo3(signature = (cwd = "/", budget = None))]
    fn session(&self, py: Python<'_>, cwd: &str, budget: Option<usize>) -> PyResult<Session> {
        let opened = py.detach(|| self.opened())?;
        Session::start(py, opened.session.clone(), cwd, budget)
    }

    /// Start an agent run (see `docnav.Workspace.ask`, whose keyword arguments these are, with
    /// the CLI's names and defaults); the handle waits, cancels and returns the result.
    #[pyo3(signature = (
        question, *, model = None, base_url = None, api_key = None, timeout = None,
        retries = None, max_requests = None, json_schema = true, doc_ids = None, trace = None,
        trace_dir = None, max_steps = 12, rounds = 3, max_cards = 50, max_docs = 4,
        concurrency = 4, evidence_chars = 12_000, prompt_cap = 12_000, output_budget = 4_000,
        answer = false, no_cache = false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn start_ask(
        &self,
        py: Python<'_>,
        question: String,
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
        no_cache: bool,
    ) -> PyResult<AskHandle> {
        let opened = py.detach(|| self.opened())?;
        start_ask(AskRequest {
            library: opened.workspace.clone(),
            question,
            model: ModelKnobs {
                model,
                base_url,
                api_key,
                timeout,
                retries,
                max_requests,
                json_schema,
            },
            agent: AgentKnobs {
                max_steps,
                rounds,
                max_cards,
                max_docs,
                concurrency,
                evidence_chars,
                prompt_cap,
                output_budget,
                answer,
            },
            doc_ids: doc_ids.unwrap_or_default(),
            trace,
            trace_dir,
            no_cache,
        })
    }

    /// The workspace's `traces/` folder (where `ask(trace=True)` records).
    #[getter]
    fn traces_dir(&self) -> PathBuf {
        self.live.dir().join("traces")
    }

    fn __repr__(&self) -> String {
        format!("Workspace({:?})", self.live.dir().display().to_string())
    }
}
