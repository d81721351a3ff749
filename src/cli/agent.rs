//! The agent side of `docnav ask` (and of `docnav eval` without `--lexical`): model flags, agent
//! budgets, live progress on stderr, the trace, Ctrl-C.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::output;
use crate::agent::events::{progress_line, FanOut};
use anyhow::Context as _;

use crate::agent::evidence::{render, AnswerFormat};
use crate::agent::{AgentOptions, AgentRun, EventRecord, EventSink, NullSink, SharedModel};
use crate::llm::{ChatModel, LlmError, ModelConfig, ModelEnv, ModelFlags, OpenAiCompatible};
use crate::trace::cache::{AnswerCache, CacheKey};
use crate::trace::{TraceHeader, TraceWriter};
use crate::workspace::{Library, Workspace};

/// Which model to talk to (OpenAI chat-completions protocol).
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// Model name, e.g. `gpt-4o-mini` or `qwen2.5:7b` [env: DOCNAV_MODEL].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Server base URL, e.g. `http://localhost:11434/v1` (Ollama) [env: OPENAI_BASE_URL].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Per-request timeout in seconds [default: 60].
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Retries on 429/5xx/timeouts [default: 3].
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
    /// Concurrent model requests [default: 4].
    #[arg(long, value_name = "N")]
    pub max_requests: Option<usize>,
    /// Do not send `response_format: json_schema` (for servers that reject it).
    #[arg(long)]
    pub no_json_schema: bool,
}

impl ModelArgs {
    /// Resolve flags and environment into a client. Errors: [`LlmError::NotConfigured`] (the CLI
    /// exits 2) or an invalid configuration.
    pub fn connect(&self) -> Result<Arc<dyn ChatModel>, LlmError> {
        Ok(Arc::new(OpenAiCompatible::new(self.config()?)?))
    }

    /// Resolve flags and environment into the model's configuration, without making a client.
    /// Errors: as [`ModelArgs::connect`].
    pub fn config(&self) -> Result<ModelConfig, LlmError> {
        let flags = ModelFlags {
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            timeout: self.timeout.map(|s| Duration::from_secs_f64(s.max(0.001))),
            max_retries: self.retries,
            concurrency: self.max_requests,
            json_schema: self.no_json_schema.then_some(false),
        };
        ModelConfig::resolve(&flags, &ModelEnv::from_process())
    }
}

/// Budgets of the agent.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentArgs {
    /// Commands per Worker.
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub max_steps: usize,
    /// Dispatch rounds (evaluate → replan between them).
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub rounds: usize,
    /// DocCards shown to the model, ranked for the question: the best 5 in full, the others one
    /// line each; larger catalogs are cut to this many (at most 200, the pre-rank's depth).
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub max_cards: usize,
    /// Documents (Workers) per round.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub max_docs: usize,
    /// Evidence chars a Worker may collect.
    #[arg(long, default_value_t = 12_000, value_name = "CHARS")]
    pub evidence_chars: usize,
    /// Hard cap on every prompt, in estimated tokens (chars / 4).
    #[arg(long, default_value_t = 12_000, value_name = "TOKENS")]
    pub prompt_cap: usize,
    /// Write a verified answer after the evidence (`docnav ask --answer`; not a flag of its own
    /// here, so `eval` and `serve` do not grow one).
    #[arg(skip)]
    pub answer: bool,
}

impl AgentArgs {
    /// Agent options for these flags and `--doc` ids.
    pub fn options(&self, doc_ids: &[String]) -> AgentOptions {
        AgentOptions {
            max_steps: self.max_steps,
            rounds: self.rounds,
            max_cards: self.max_cards,
            max_docs: self.max_docs,
            evidence_chars: self.evidence_chars,
            prompt_cap_tokens: self.prompt_cap,
            doc_ids: doc_ids.to_vec(),
            answer: self.answer,
            ..AgentOptions::default()
        }
        .within_limits()
    }
}

/// Prints one line per worker command to stderr (`[r1-w1-guide] $ cd 2`).
struct ProgressSink;

impl EventSink for ProgressSink {
    fn record(&self, r: EventRecord) {
        let Some(line) = progress_line(&r) else {
            return;
        };
        let mut short: String = line.chars().take(160).collect();
        if line.chars().count() > 160 {
            short.push('…');
        }
        eprintln!("[{}] {}", r.actor, output::for_display(&short));
    }
}

/// Where to write the trace.
enum TraceTarget {
    /// `--trace FILE` (overwritten).
    File(PathBuf),
    /// `DOCNAV_TRACE_DIR`: a new `<time>-<question>.jsonl` in it, never an existing one.
    Dir(PathBuf),
    /// By default, the workspace's `traces/` (as the shell and the server record): a new file
    /// there, whose answer the next identical `ask` can reuse. Failing to create it is a
    /// warning, not an error — the question is still answered.
    Workspace(PathBuf),
}

/// `--trace FILE`, else `DOCNAV_TRACE_DIR`, else the workspace's `traces/`.
fn trace_target(flag: &Option<PathBuf>, workspace: &std::path::Path) -> TraceTarget {
    if let Some(p) = flag {
        return TraceTarget::File(p.clone());
    }
    match std::env::var_os("DOCNAV_TRACE_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => TraceTarget::Dir(PathBuf::from(dir)),
        None => TraceTarget::Workspace(workspace.join("traces")),
    }
}

/// The exit status of an answered question: the verdict is data, so an
/// answer exits 0 whatever it says — unless a Worker failed and the final evidence was not judged
/// sufficient (then 1: the failure may be why). A run whose orchestrator failed never gets here
/// (exit 1 with its error).
pub fn exit_status(run: &AgentRun) -> u8 {
    let sufficient = run.verdict.verdict == crate::agent::Outcome::Sufficient;
    u8::from(!run.worker_errors.is_empty() && !sufficient)
}

/// How `docnav ask` treats answers recorded before ([`crate::trace::cache`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    /// Reuse a recorded answer that still holds, and keep this run's for reuse.
    Reuse,
    /// `--no-cache`: ask afresh; this run's answer replaces the kept one.
    Refresh,
}

/// Run the agent for one question and print the answer, its final verdict last. The run is
/// recorded (`--trace FILE`, else `DOCNAV_TRACE_DIR`, else the workspace's `traces/`); with
/// [`CacheUse::Reuse`], the answer of an identical recorded question over unchanged documents is
/// printed instead, marked `from trace NAME (DATE)`, without a model call. Exit codes: 0
/// answered (whatever the verdict); 1 when the orchestrator failed, or a Worker failed and the
/// evidence was not judged sufficient ([`exit_status`]; the others' evidence is still printed,
/// each failed Worker is one `warning:` line on stderr); 2 without a model; 130 on Ctrl-C.
#[allow(clippy::too_many_arguments)]
pub fn run_agent(
    workspace: &std::path::Path,
    question: &str,
    doc_ids: &[String],
    format: AnswerFormat,
    model_args: &ModelArgs,
    agent_args: &AgentArgs,
    trace: &Option<PathBuf>,
    cache_use: CacheUse,
) -> anyhow::Result<ExitCode> {
    let config = match model_args.config() {
        Ok(c) => c,
        Err(e @ LlmError::NotConfigured { .. }) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e.into()),
    };
    let options = agent_args.options(doc_ids);
    let key = CacheKey::new(question, &config.model, &options);
    if cache_use == CacheUse::Reuse {
        // Opened only when the workspace was re-indexed since the run.
        let reused = AnswerCache::new(workspace).reuse(&key, question, |cache, entry| {
            Workspace::open(workspace).is_ok_and(|ws| {
                let generation = ws.index_generation();
                cache.confirm(entry, &ws, generation)
            })
        });
        if let Some(answer) = reused {
            output::print_answer(&render(&answer, format)?, format)?;
            if let Some(from) = &answer.from_trace {
                let mut shown = from.trace.clone();
                if let Some(copy) = trace {
                    // `--trace FILE` gets the record of the run the answer comes from.
                    std::fs::copy(&from.trace, copy).with_context(|| {
                        format!("cannot copy trace `{}` to `{}`", from.trace, copy.display())
                    })?;
                    shown = copy.display().to_string();
                }
                eprintln!("trace: `{shown}`");
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    let model: Arc<dyn ChatModel> = Arc::new(OpenAiCompatible::new(config)?);
    let workspace_handle = Arc::new(Workspace::open(workspace)?);
    let generation = workspace_handle.index_generation();
    let library: Arc<dyn Library> = workspace_handle;
    let unix_ms = crate::trace::now_unix_ms();
    let header = TraceHeader::for_run(
        library.as_ref(),
        question,
        model.model_id(),
        &options,
        unix_ms,
    );
    let writer = match trace_target(trace, workspace) {
        TraceTarget::File(path) => Some(TraceWriter::create(&path, &header)?),
        TraceTarget::Dir(dir) => Some(TraceWriter::create_in(&dir, &header)?),
        TraceTarget::Workspace(dir) => match TraceWriter::create_in(&dir, &header) {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("warning: {e}; this run is not recorded");
                None
            }
        },
    }
    .map(Arc::new);
    let mut sinks: Vec<Arc<dyn EventSink>> = Vec::new();
    if output::stderr_is_tty() {
        sinks.push(Arc::new(ProgressSink));
    }
    if let Some(w) = &writer {
        sinks.push(w.clone());
    }
    let sink: Arc<dyn EventSink> = if sinks.is_empty() {
        Arc::new(NullSink)
    } else {
        Arc::new(FanOut(sinks))
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(async {
        tokio::select! {
            result = crate::agent::ask(library.clone(), Arc::new(SharedModel(model)), sink, &options, question) => Some(result),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    runtime.shutdown_timeout(Duration::from_millis(200));
    let trace_note = writer.as_ref().map(|w| {
        let _ = w.finish();
        w.path().display().to_string()
    });
    let Some(result) = outcome else {
        eprintln!(
            "cancelled{}",
            trace_note
                .map(|p| format!("; trace so far in `{p}`"))
                .unwrap_or_default()
        );
        return Ok(ExitCode::from(130));
    };
    let run: AgentRun = match result {
        Ok(run) => run,
        Err(e) => {
            if let Some(p) = &trace_note {
                eprintln!("trace: `{p}`");
            }
            return Err(e.into());
        }
    };
    if let (Some(w), true) = (&writer, run.worker_errors.is_empty()) {
        let kept = AnswerCache::new(workspace).store(
            key,
            &run.answer,
            w.path(),
            unix_ms,
            library.as_ref(),
            generation,
        );
        if let Err(e) = kept {
            eprintln!("warning: the answer is not kept for reuse: {e}");
        }
    }
    output::print_answer(&render(&run.answer, format)?, format)?;
    for (worker, message) in &run.worker_errors {
        let message: Vec<&str> = message.split_whitespace().collect();
        eprintln!(
            "warning: worker {worker} failed: {}",
            output::for_display(&message.join(" "))
        );
    }
    let status = exit_status(&run);
    if status != 0 {
        eprintln!(
            "error: {} worker(s) failed and the evidence was not judged sufficient ({})",
            run.worker_errors.len(),
            run.verdict.verdict.as_str()
        );
    }
    if let Some(p) = &trace_note {
        eprintln!("trace: `{p}`");
    }
    Ok(ExitCode::from(status))
}
