//! One `ask`, the way every face asks: [`Ask::run`] (or [`Ask::start`] then [`Ready::run`])
//! reuses the recorded answer of the same question over unchanged documents
//! ([`super::cache`]), else runs [`crate::agent::ask_in_conversation`] as `docnav ask` does
//! (same model, budgets and trace format), records it, feeds every event to the caller's sink
//! as it happens, stops when the caller's cancellation resolves (the trace is finished — a valid
//! prefix — in every case), and keeps a completed run's answer for the next identical question.
//! The CLI, the shell, the server, the MCP server and the Python package call it and only render
//! its [`Outcome`].
//!
//! The rules, once for every face:
//! - a question asked on its own (no conversation memory) with [`CachePolicy::Reuse`] is looked
//!   up; a follow-up never is (its answer depends on what came before);
//! - a run is kept for reuse when the policy is not [`CachePolicy::Off`], it was asked on its
//!   own, it was recorded, and no Worker failed;
//! - the lookup, opening a workspace, creating the trace and storing the answer run on the
//!   blocking pool, never on the runtime's threads.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::cache::{AnswerCache, CacheKey};
use super::{TraceError, TraceHeader, TraceWriter};
use crate::agent::events::FanOut;
use crate::agent::evidence::Answer;
use crate::agent::followup::Turn;
use crate::agent::orchestrator::Placement;
use crate::agent::{AgentError, AgentOptions, AgentRun, EventSink, SharedModel};
use crate::llm::ChatModel;
use crate::workspace::{Library, Workspace, WorkspaceError};

/// How an ask treats answers recorded before ([`super::cache`]).
///
/// Whether a face records its runs ([`Ask::trace`]) does not change the policy: an unrecorded
/// run is never kept (nothing names where its answer came from), but it still reuses an answer
/// kept by a recorded run. So `docnav serve --no-traces` (its `POST /api/v1/ask` and the MCP
/// `ask` tool it mounts alike), `docnav mcp` without `--traces` and Python without `trace`
/// answer a repeated question as `docnav ask` does. Reusing only reads: the kept answer is
/// confirmed against the documents it was read from exactly as for a recorded face, its
/// `from_trace` names the run that made it, and the face still leaves nothing behind — which
/// is all `--no-traces` promises. Refusing reuse there would make one server answer the same
/// question two ways depending on which of its faces was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CachePolicy {
    /// Reuse a recorded answer that still holds; keep this run's for reuse.
    Reuse,
    /// Ask afresh (`--no-cache`, `no_cache`); this run's answer replaces the kept one.
    Refresh,
    /// Neither reuse nor keep answers (a shell that cannot confirm a kept answer: it holds no
    /// index generation).
    Off,
}

impl CachePolicy {
    /// [`CachePolicy::Refresh`] when `no_cache`, else [`CachePolicy::Reuse`].
    pub fn unless(no_cache: bool) -> CachePolicy {
        if no_cache {
            CachePolicy::Refresh
        } else {
            CachePolicy::Reuse
        }
    }
}

/// The workspace an ask reads.
#[derive(Clone)]
pub enum Catalog {
    /// Opened already.
    Opened {
        /// What the run reads.
        library: Arc<dyn Library>,
        /// The workspace directory, whose `traces/answers/` holds the kept answers.
        workspace: PathBuf,
        /// The index generation of the catalog `library` holds: what a kept answer is valid for.
        generation: u64,
    },
    /// The workspace in this directory, opened only when needed — for a run, or to confirm a
    /// kept answer after a re-index — so a repeated question is answered without opening it.
    Unopened(PathBuf),
}

impl Catalog {
    /// An opened workspace, at its current index generation.
    pub fn workspace(workspace: Arc<Workspace>) -> Catalog {
        Catalog::Opened {
            workspace: workspace.dir().to_path_buf(),
            generation: workspace.index_generation(),
            library: workspace,
        }
    }

    fn dir(&self) -> &Path {
        match self {
            Catalog::Opened { workspace, .. } | Catalog::Unopened(workspace) => workspace,
        }
    }
}

/// Where a recorded run's trace goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceDestination {
    /// This file, created or overwritten (`docnav ask --trace FILE`, Python's `trace="x.jsonl"`).
    /// A reused answer's trace is copied there.
    File(PathBuf),
    /// A new `<time>-<question>.jsonl` in this folder, never an existing file
    /// ([`TraceWriter::create_in`]: a run of the same question in the same second gets its own
    /// `-2` file) — `DOCNAV_TRACE_DIR`, the server's and the MCP server's `traces/`.
    NewIn(PathBuf),
    /// As [`TraceDestination::NewIn`], a workspace's `traces/` recorded by default (`docnav ask`,
    /// the shell): failing to create the file leaves the run unrecorded with a warning — the
    /// question is still answered.
    BestEffort(PathBuf),
}

impl TraceDestination {
    /// Where a run asked on this machine (`docnav ask`, the shell) is recorded: `file` (`--trace
    /// FILE`) when given; else a new file in the folder `DOCNAV_TRACE_DIR` names, when it is set
    /// and not empty; else, best effort, a new file in `workspace`'s `traces/`. Reads the
    /// environment; never fails.
    pub fn for_local_run(file: Option<&Path>, workspace: &Path) -> TraceDestination {
        if let Some(file) = file {
            return TraceDestination::File(file.to_path_buf());
        }
        match std::env::var_os("DOCNAV_TRACE_DIR").filter(|d| !d.is_empty()) {
            Some(dir) => TraceDestination::NewIn(PathBuf::from(dir)),
            None => TraceDestination::BestEffort(workspace.join("traces")),
        }
    }

    /// The folder new trace files go to; `None` for [`TraceDestination::File`].
    pub fn folder(&self) -> Option<&Path> {
        match self {
            TraceDestination::File(_) => None,
            TraceDestination::NewIn(dir) | TraceDestination::BestEffort(dir) => Some(dir),
        }
    }
}

/// One question to ask: what [`Ask::start`] and [`Ask::run`] take.
#[derive(Clone)]
pub struct Ask {
    /// The workspace.
    pub catalog: Catalog,
    /// The model.
    pub model: Arc<dyn ChatModel>,
    /// Budgets, `doc_ids`, `answer`.
    pub options: AgentOptions,
    /// The question as asked.
    pub question: String,
    /// Earlier turns of the conversation, oldest first (empty: the question stands alone).
    pub memory: Vec<Turn>,
    /// Where to record the run (`None`: not recorded, so not kept for reuse).
    pub trace: Option<TraceDestination>,
    /// Whether to reuse and keep answers.
    pub cache: CachePolicy,
    /// Runs allowed at once (shared with the other faces): a run that finds none free is
    /// [`AskFailure::Busy`]. A reused answer needs none.
    pub permits: Option<Arc<Semaphore>>,
    /// Where its Workers run and its catalog is ranked: [`Placement::local`] for a workspace;
    /// for a corpus split into shards, the shards (the trace header lists them).
    pub placement: Placement,
}

/// A reused answer.
#[derive(Debug)]
pub struct Reused {
    /// The recorded answer, marked with the trace it came from ([`Answer::from_trace`]).
    pub answer: Answer,
    /// Where the record is: the copy made for a [`TraceDestination::File`], else the trace the
    /// answer came from.
    pub trace: PathBuf,
}

/// A finished run and where its trace is.
#[derive(Debug)]
pub struct RecordedRun {
    /// The agent's result: ranked evidence, verdict, failed Workers.
    pub run: AgentRun,
    /// The trace file, when one was written.
    pub trace: Option<PathBuf>,
    /// When the run started (its trace header's time), ms since the Unix epoch.
    pub started_unix_ms: u64,
    /// What went wrong without stopping the run, one line each (no `warning: ` prefix): a
    /// best-effort trace that could not be created, an answer that could not be kept.
    pub warnings: Vec<String>,
}

/// What an ask produced.
#[derive(Debug)]
pub enum Outcome {
    /// The answer recorded for the same question over unchanged documents; no model call.
    Reused(Box<Reused>),
    /// A run of the agent.
    Ran(Box<RecordedRun>),
}

impl Outcome {
    /// The answer (as `docnav ask --json` prints it).
    pub fn answer(&self) -> &Answer {
        match self {
            Outcome::Reused(r) => &r.answer,
            Outcome::Ran(r) => &r.run.answer,
        }
    }

    /// The trace of the answer: the run's, or where the reused answer's record is.
    pub fn trace(&self) -> Option<&Path> {
        match self {
            Outcome::Reused(r) => Some(&r.trace),
            Outcome::Ran(r) => r.trace.as_deref(),
        }
    }
}

/// Why an ask failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// The agent failed (model unreachable after retries, unknown document, …).
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// The workspace could not be opened.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// The trace could not be created.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A reused answer's trace could not be copied to the requested file.
    #[error("cannot copy trace `{from}` to `{to}`: {source}")]
    CopyTrace {
        /// The recorded trace.
        from: PathBuf,
        /// The requested file.
        to: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// How an ask ended without an answer.
#[derive(Debug)]
pub enum AskFailure {
    /// The run failed as a whole: why, and the trace so far.
    Failed {
        /// What failed.
        error: AskError,
        /// The trace file, when one was written.
        trace: Option<PathBuf>,
    },
    /// Every permit was taken ([`Ask::permits`]): nothing ran; retry later.
    Busy,
    /// The cancellation resolved first; the run was dropped (its in-flight model request with
    /// it).
    Cancelled {
        /// The trace file (a valid prefix of the run), when one was written.
        trace: Option<PathBuf>,
    },
}

impl AskFailure {
    /// The trace file of the failed or cancelled run, when one was written.
    pub fn trace(&self) -> Option<&PathBuf> {
        match self {
            AskFailure::Failed { trace, .. } | AskFailure::Cancelled { trace } => trace.as_ref(),
            AskFailure::Busy => None,
        }
    }

    /// One line, starting with `ask: `.
    pub fn message(&self) -> String {
        match self {
            AskFailure::Failed { error, .. } => format!("ask: {error}"),
            AskFailure::Busy => "ask: every run allowed at once is taken; retry later".into(),
            AskFailure::Cancelled { .. } => "ask: cancelled".into(),
        }
    }

    /// Whether the model was what failed (not configured, unreachable, garbage replies), as
    /// opposed to the workspace or the trace: the Python package raises `ModelError` for it.
    pub fn model_failed(&self) -> bool {
        matches!(
            self,
            AskFailure::Failed {
                error: AskError::Agent(AgentError::Llm(_)),
                ..
            }
        )
    }

    fn failed(error: impl Into<AskError>) -> AskFailure {
        AskFailure::Failed {
            error: error.into(),
            trace: None,
        }
    }
}

/// An ask past its lookup: a reused answer, or a run ready to start.
pub enum Started {
    /// The recorded answer (no permit taken, no model call).
    Reused(Box<Reused>),
    /// No answer to reuse; the permit is held and the workspace open.
    Ready(Box<Ready>),
}

/// A run about to start, holding its permit.
pub struct Ready {
    ask: Ask,
    library: Arc<dyn Library>,
    generation: u64,
    _permit: Option<OwnedSemaphorePermit>,
}

/// On the blocking pool: `f`'s value. A task that died is reported as `died`.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static, died: T) -> T {
    tokio::task::spawn_blocking(f).await.unwrap_or(died)
}

impl Ask {
    /// Whether this ask looks for a kept answer.
    fn reuses(&self) -> bool {
        self.cache == CachePolicy::Reuse && self.memory.is_empty()
    }

    /// Whether a completed, recorded run of this ask is kept for reuse.
    fn keeps(&self) -> bool {
        self.cache != CachePolicy::Off && self.memory.is_empty()
    }

    fn key(&self) -> CacheKey {
        CacheKey::new(&self.question, self.model.model_id(), &self.options)
    }

    /// Look for a kept answer, then take a permit and open the workspace.
    ///
    /// Errors: [`AskFailure::Busy`] when no permit is free; [`AskFailure::Failed`] when the
    /// workspace cannot be opened or a reused answer's trace cannot be copied to
    /// [`TraceDestination::File`].
    pub async fn start(self) -> Result<Started, AskFailure> {
        let mut opened: Option<(Arc<dyn Library>, u64)> = match &self.catalog {
            Catalog::Opened {
                library,
                generation,
                ..
            } => Some((library.clone(), *generation)),
            Catalog::Unopened(_) => None,
        };
        if self.reuses() {
            let cache = AnswerCache::new(self.catalog.dir());
            let (key, question, catalog) =
                (self.key(), self.question.clone(), self.catalog.clone());
            let (reused, newly_opened) = blocking(
                move || {
                    let mut newly_opened = None;
                    let reused = cache.reuse(&key, &question, |cache, entry| match catalog {
                        Catalog::Opened {
                            library,
                            generation,
                            ..
                        } => cache.confirm(entry, library.as_ref(), generation),
                        // Opened only when the workspace was re-indexed since the run.
                        Catalog::Unopened(dir) => match Workspace::open(&dir) {
                            Ok(ws) => {
                                let generation = ws.index_generation();
                                let holds = cache.confirm(entry, &ws, generation);
                                newly_opened = Some((Arc::new(ws) as Arc<dyn Library>, generation));
                                holds
                            }
                            Err(_) => false,
                        },
                    });
                    (reused, newly_opened)
                },
                (None, None),
            )
            .await;
            if let Some(answer) = reused {
                return self
                    .reused(answer)
                    .await
                    .map(|r| Started::Reused(Box::new(r)));
            }
            opened = opened.or(newly_opened);
        }
        let permit = match &self.permits {
            Some(permits) => Some(
                permits
                    .clone()
                    .try_acquire_owned()
                    .map_err(|_| AskFailure::Busy)?,
            ),
            None => None,
        };
        let (library, generation) = match opened {
            Some(opened) => opened,
            None => {
                let dir = self.catalog.dir().to_path_buf();
                let died = WorkspaceError::Io {
                    path: dir.clone(),
                    source: std::io::Error::other("opening the workspace did not finish"),
                };
                let ws = blocking(move || Workspace::open(&dir).map(Arc::new), Err(died))
                    .await
                    .map_err(AskFailure::failed)?;
                let generation = ws.index_generation();
                (ws as Arc<dyn Library>, generation)
            }
        };
        Ok(Started::Ready(Box::new(Ready {
            ask: self,
            library,
            generation,
            _permit: permit,
        })))
    }

    /// A reused answer, its trace copied to a requested file.
    async fn reused(self, answer: Answer) -> Result<Reused, AskFailure> {
        let from = answer
            .from_trace
            .as_ref()
            .map(|f| PathBuf::from(&f.trace))
            .unwrap_or_default();
        let Some(TraceDestination::File(to)) = self.trace else {
            return Ok(Reused {
                answer,
                trace: from,
            });
        };
        let (source, copy) = (from.clone(), to.clone());
        blocking(
            move || std::fs::copy(&source, &copy).map(|_| ()),
            Err(std::io::Error::other("the copy did not finish")),
        )
        .await
        .map_err(|source| {
            AskFailure::failed(AskError::CopyTrace {
                from,
                to: to.clone(),
                source,
            })
        })?;
        Ok(Reused { answer, trace: to })
    }

    /// [`Ask::start`], then [`Ready::run`] on a miss.
    ///
    /// Errors: as [`Ask::start`] and [`Ready::run`].
    pub async fn run(
        self,
        sink: Arc<dyn EventSink>,
        cancelled: impl Future<Output = ()>,
    ) -> Result<Outcome, AskFailure> {
        match self.start().await? {
            Started::Reused(reused) => Ok(Outcome::Reused(reused)),
            Started::Ready(ready) => ready
                .run(sink, cancelled)
                .await
                .map(|r| Outcome::Ran(Box::new(r))),
        }
    }
}

impl Ready {
    /// Run the agent until it answers or `cancelled` resolves: every event goes to `sink` as it
    /// happens and, with a trace destination, to the trace; with earlier turns, the question is
    /// first rewritten to stand alone ([`crate::agent::ask_in_conversation`]) and the trace
    /// records the memory. A completed run is then kept for reuse (see the module docs).
    ///
    /// Errors: [`AskFailure::Failed`] when the trace cannot be created (but for
    /// [`TraceDestination::BestEffort`]) or the run fails as a whole;
    /// [`AskFailure::Cancelled`].
    pub async fn run(
        self,
        sink: Arc<dyn EventSink>,
        cancelled: impl Future<Output = ()>,
    ) -> Result<RecordedRun, AskFailure> {
        let Ready {
            ask,
            library,
            generation,
            _permit,
        } = self;
        let unix_ms = super::now_unix_ms();
        let mut warnings = Vec::new();
        let writer = create_trace(&ask, &library, unix_ms, &mut warnings).await?;
        let mut sinks: Vec<Arc<dyn EventSink>> = vec![sink];
        if let Some(w) = &writer {
            sinks.push(w.clone());
        }
        let sink: Arc<dyn EventSink> = Arc::new(FanOut(sinks));
        let run = crate::agent::ask_placed(
            library.clone(),
            Arc::new(SharedModel(ask.model.clone())),
            sink,
            &ask.options,
            &ask.memory,
            &ask.question,
            &ask.placement,
        );
        let result = tokio::select! {
            biased;
            _ = cancelled => None,
            result = run => Some(result),
        };
        let trace = match writer {
            Some(w) => {
                let path = w.path().to_path_buf();
                let _ = tokio::task::spawn_blocking(move || w.finish()).await;
                Some(path)
            }
            None => None,
        };
        let run = match result {
            None => return Err(AskFailure::Cancelled { trace }),
            Some(Err(e)) => {
                return Err(AskFailure::Failed {
                    error: e.into(),
                    trace,
                })
            }
            Some(Ok(run)) => run,
        };
        if let (Some(path), true, true) = (&trace, ask.keeps(), run.worker_errors.is_empty()) {
            let cache = AnswerCache::new(ask.catalog.dir());
            let (key, answer, path) = (ask.key(), run.answer.clone(), path.clone());
            let kept = blocking(
                move || cache.store(key, &answer, &path, unix_ms, library.as_ref(), generation),
                Err(std::io::Error::other("the store did not finish")),
            )
            .await;
            if let Err(e) = kept {
                warnings.push(format!("the answer is not kept for reuse: {e}"));
            }
        }
        Ok(RecordedRun {
            run,
            trace,
            started_unix_ms: unix_ms,
            warnings,
        })
    }
}

/// The trace `ask` asks for, created with its header on the blocking pool (the header lists the
/// catalog, read from its store); `None` without a destination, or when a best-effort trace
/// cannot be created (a warning says so).
///
/// Errors: [`AskFailure::Failed`] when a trace that must be recorded cannot be created.
async fn create_trace(
    ask: &Ask,
    library: &Arc<dyn Library>,
    unix_ms: u64,
    warnings: &mut Vec<String>,
) -> Result<Option<Arc<TraceWriter>>, AskFailure> {
    let Some(destination) = ask.trace.clone() else {
        return Ok(None);
    };
    let (catalog, question, model_id, options, memory, shards) = (
        library.clone(),
        ask.question.clone(),
        ask.model.model_id().to_string(),
        ask.options.clone(),
        ask.memory.clone(),
        ask.placement.shards.clone(),
    );
    let created = blocking(
        move || {
            let header =
                TraceHeader::for_run(catalog.as_ref(), &question, &model_id, &options, unix_ms)
                    .with_memory(&memory)
                    .with_shards(shards);
            match &destination {
                TraceDestination::File(path) => {
                    TraceWriter::create(path, &header).map_err(|e| (e, false))
                }
                TraceDestination::NewIn(dir) => {
                    TraceWriter::create_in(dir, &header).map_err(|e| (e, false))
                }
                TraceDestination::BestEffort(dir) => {
                    TraceWriter::create_in(dir, &header).map_err(|e| (e, true))
                }
            }
        },
        Err((
            TraceError::Io {
                path: PathBuf::new(),
                source: std::io::Error::other("the trace could not be created"),
            },
            false,
        )),
    )
    .await;
    match created {
        Ok(w) => Ok(Some(Arc::new(w))),
        Err((e, true)) => {
            warnings.push(format!("{e}; this run is not recorded"));
            Ok(None)
        }
        Err((e, false)) => Err(AskFailure::failed(e)),
    }
}
