//! `docnav ask "<question>"`: ranked evidence for a question. By default the agent navigates with
//! a model; `--lexical` uses the model-free BM25 navigator ([`crate::agent::lexical`]). The agent
//! never falls back to the lexical navigator: without a model it exits 2.

use std::path::PathBuf;
use std::process::ExitCode;

use super::agent::{run_agent, AgentArgs, ModelArgs};
use super::{output, GlobalArgs};
use crate::agent::evidence::{render, AnswerFormat};
use crate::agent::lexical::{ask_lexical, DEFAULT_K};
use crate::trace::record::CachePolicy;
use crate::workspace::Workspace;

/// Arguments of `docnav ask`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The answer ends with the final verdict: sufficient, insufficient (what is missing) \
                  or absent (the documents do not cover the question).\n\
                  Exit codes: 0 answered, whatever the verdict; 1 the orchestrator failed, or a \
                  Worker failed and the evidence was not judged sufficient (each failed Worker is \
                  one warning line); 2 no model configured; 130 interrupted."
)]
pub struct AskArgs {
    /// The question.
    question: String,
    /// Rank sections with BM25 only (no model): fast, a baseline, never used unless asked for.
    #[arg(long)]
    lexical: bool,
    /// With --lexical: return at most N evidence items.
    #[arg(short = 'k', long = "top", value_name = "N", default_value_t = DEFAULT_K)]
    k: usize,
    /// Only search this document (repeatable; skips the agent's document analysis).
    #[arg(long = "doc", value_name = "ID")]
    docs: Vec<String>,
    /// Print the answer as JSON (`{"question", "evidence": [...], "stats": {...}}`); each evidence
    /// also carries `"explain"`, the BM25 terms of its score.
    #[arg(long)]
    json: bool,
    /// Show under each evidence header why it scored what it did (BM25 terms: tf, df, idf and
    /// contribution). `--json` always includes it.
    #[arg(long)]
    explain: bool,
    /// After the evidence, write a concise answer in which every sentence cites evidence items
    /// (`[1]`); docnav verifies each citation (the number exists, quoted spans occur verbatim in
    /// the cited text) and marks a sentence whose citation does not hold as unsupported. One more
    /// model call; not with --lexical.
    #[arg(long, conflicts_with = "lexical")]
    answer: bool,
    /// Record the run as a JSONL trace in FILE (see `docnav replay`). Without it each run is
    /// recorded in `DOCNAV_TRACE_DIR` when set, else in the workspace's `traces/`.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Ask the model afresh even when the same question (normalised: case, spaces, end
    /// punctuation) was answered by the same model with the same options over unchanged
    /// documents; by default that recorded answer is printed at once, marked `from trace NAME
    /// (DATE)`. Changing (or touching) a document the run read, or adding or removing one,
    /// already asks afresh.
    #[arg(long, conflicts_with = "lexical")]
    no_cache: bool,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    agent: AgentArgs,
}

/// Run `docnav ask`. Exit codes as [`run_agent`] says (agent mode); the lexical navigator exits 0,
/// or 1 on a workspace failure.
pub fn run(global: &GlobalArgs, args: AskArgs) -> anyhow::Result<ExitCode> {
    let format = match (args.json, args.explain) {
        (true, _) => AnswerFormat::Json,
        (false, true) => AnswerFormat::TextExplained,
        (false, false) => AnswerFormat::Text,
    };
    if !args.lexical {
        let mut agent = args.agent.clone();
        agent.answer = args.answer;
        return run_agent(
            &global.workspace,
            &args.question,
            &args.docs,
            format,
            &args.model,
            &agent,
            &args.trace,
            CachePolicy::unless(args.no_cache),
        );
    }
    let ws = Workspace::open(&global.workspace)?;
    let scope = (!args.docs.is_empty()).then_some(args.docs.as_slice());
    let answer = ask_lexical(&ws, &args.question, scope, args.k)?;
    output::print_answer(&render(&answer, format)?, format)?;
    Ok(ExitCode::SUCCESS)
}
