//! The agent side of `docnav ask` (and of `docnav eval` without `--lexical`): model flags, agent
//! budgets, live progress on stderr, the trace, Ctrl-C.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::output;
use crate::agent::evidence::{render, AnswerFormat};
use crate::agent::steps::progress_line;
use crate::agent::{AgentOptions, AgentRun, EventRecord, EventSink, NullSink};
use crate::llm::{ChatModel, LlmError, ModelConfig, ModelEnv, ModelFlags, OpenAiCompatible};
use crate::trace::record::{
    Ask, AskError, AskFailure, CachePolicy, Catalog, Outcome, TraceDestination,
};

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

/// The exit status of an answered question: the verdict is data, so an
/// answer exits 0 whatever it says — unless a Worker failed and the final evidence was not judged
/// sufficient (then 1: the failure may be why). A run whose orchestrator failed never gets here
/// (exit 1 with its error).
pub fn exit_status(run: &AgentRun) -> u8 {
    let sufficient = run.verdict.verdict == crate::agent::Outcome::Sufficient;
    u8::from(!run.worker_errors.is_empty() && !sufficient)
}

/// Run the agent for one question and print the answer, its final verdict last
/// ([`crate::trace::record::Ask`]). The run is recorded (`--trace FILE`, else
/// `DOCNAV_TRACE_DIR`, else the workspace's `traces/`); with [`CachePolicy::Reuse`], the answer
/// of an identical recorded question over unchanged documents is printed instead, marked `from
/// trace NAME (DATE)`, without a model call (and without opening the workspace unless it was
/// re-indexed since). Exit codes: 0 answered (whatever the verdict); 1 when the orchestrator
/// failed, or a Worker failed and the evidence was not judged sufficient ([`exit_status`]; the
/// others' evidence is still printed, each failed Worker is one `warning:` line on stderr); 2
/// without a model; 130 on Ctrl-C.
#[allow(clippy::too_many_arguments)]
pub fn run_agent(
    workspace: &std::path::Path,
    question: &str,
    doc_ids: &[String],
    format: AnswerFormat,
    model_args: &ModelArgs,
    agent_args: &AgentArgs,
    trace: &Option<PathBuf>,
    cache: CachePolicy,
) -> anyhow::Result<ExitCode> {
    let config = match model_args.config() {
        Ok(c) => c,
        Err(e @ LlmError::NotConfigured { .. }) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e.into()),
    };
    let ask = Ask {
        catalog: Catalog::Unopened(workspace.to_path_buf()),
        model: Arc::new(OpenAiCompatible::new(config)?),
        options: agent_args.options(doc_ids),
        question: question.to_string(),
        memory: Vec::new(),
        trace: Some(TraceDestination::for_local_run(trace.as_deref(), workspace)),
        cache,
        permits: None,
        placement: crate::agent::orchestrator::Placement::local(),
    };
    let sink: Arc<dyn EventSink> = if output::stderr_is_tty() {
        Arc::new(ProgressSink)
    } else {
        Arc::new(NullSink)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(ask.run(sink, async {
        let _ = tokio::signal::ctrl_c().await;
    }));
    runtime.shutdown_timeout(Duration::from_millis(200));
    let done = match outcome {
        Ok(Outcome::Reused(reused)) => {
            output::print_answer(&render(&reused.answer, format)?, format)?;
            eprintln!("trace: `{}`", reused.trace.display());
            return Ok(ExitCode::SUCCESS);
        }
        Ok(Outcome::Ran(done)) => done,
        Err(failure) => return failed(failure),
    };
    for warning in &done.warnings {
        eprintln!("warning: {warning}");
    }
    let run = &done.run;
    output::print_answer(&render(&run.answer, format)?, format)?;
    for (worker, message) in &run.worker_errors {
        let message: Vec<&str> = message.split_whitespace().collect();
        eprintln!(
            "warning: worker {worker} failed: {}",
            output::for_display(&message.join(" "))
        );
    }
    let status = exit_status(run);
    if status != 0 {
        eprintln!(
            "error: {} worker(s) failed and the evidence was not judged sufficient ({})",
            run.worker_errors.len(),
            run.verdict.verdict.as_str()
        );
    }
    if let Some(p) = &done.trace {
        eprintln!("trace: `{}`", p.display());
    }
    Ok(ExitCode::from(status))
}

/// A failed or cancelled `ask`: where its trace is on stderr, then exit 130 (cancelled) or the
/// error.
fn failed(failure: AskFailure) -> anyhow::Result<ExitCode> {
    let trace = failure.trace().map(|p| p.display().to_string());
    match failure {
        AskFailure::Cancelled { .. } => {
            eprintln!(
                "cancelled{}",
                trace
                    .map(|p| format!("; trace so far in `{p}`"))
                    .unwrap_or_default()
            );
            Ok(ExitCode::from(130))
        }
        AskFailure::Failed { error, .. } => {
            if let Some(p) = &trace {
                eprintln!("trace: `{p}`");
            }
            Err(match error {
                AskError::Agent(e) => e.into(),
                AskError::Workspace(e) => e.into(),
                AskError::Trace(e) => e.into(),
                e @ AskError::CopyTrace { .. } => e.into(),
            })
        }
        AskFailure::Busy => Err(anyhow::anyhow!(failure.message())),
    }
}
