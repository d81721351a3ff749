//! `docnav ask "<question>"`: ranked evidence for a question. `--lexical` uses the BM25
//! navigator ([`crate::agent::lexical`]); the agent (the default) needs a model.

use std::process::ExitCode;

use super::{output, GlobalArgs};
use crate::agent::evidence::render_text;
use crate::agent::lexical::{ask_lexical, DEFAULT_K};
use crate::workspace::Workspace;

/// Arguments of `docnav ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The question.
    question: String,
    /// Rank sections with BM25 only (no model): fast, a baseline, never used unless asked for.
    #[arg(long)]
    lexical: bool,
    /// Return at most N evidence items.
    #[arg(short = 'k', long = "top", value_name = "N", default_value_t = DEFAULT_K)]
    k: usize,
    /// Only search this document (repeatable); ids as listed by `docnav docs`.
    #[arg(long = "doc", value_name = "ID")]
    docs: Vec<String>,
    /// Print the answer as JSON (`{"question", "evidence": [...], "stats": {...}}`).
    #[arg(long)]
    json: bool,
}

/// The message printed when the agent is asked for without a model (exit code 2).
pub const AGENT_NEEDS_MODEL: &str = "error: the agent needs a model, and none is configured\n\
hint: pass --lexical for the BM25 navigator (no model), or configure a model with \
OPENAI_API_KEY, OPENAI_BASE_URL and DOCNAV_MODEL";

/// Run `docnav ask`. Errors: no workspace, unknown `--doc` id, unreadable tree file (exit 1).
pub fn run(global: &GlobalArgs, args: AskArgs) -> anyhow::Result<ExitCode> {
    if !args.lexical {
        eprintln!("{AGENT_NEEDS_MODEL}");
        return Ok(ExitCode::from(2));
    }
    let ws = Workspace::open(&global.workspace)?;
    let scope = (!args.docs.is_empty()).then_some(args.docs.as_slice());
    let answer = ask_lexical(&ws, &args.question, scope, args.k)?;
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&answer)?;
        s.push('\n');
        s
    } else {
        render_text(&answer)
    };
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
