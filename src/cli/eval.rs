//! `docnav eval QA.jsonl`: run a navigator over a question set and score it (see
//! [`crate::eval`]). Documents come from the workspace, or — when there is none, or with
//! `--in-memory` — are indexed in memory from the files the set names.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;

use super::agent::{AgentArgs, ModelArgs};
use super::{output, GlobalArgs};
use crate::agent::lexical::DEFAULT_K;
use crate::eval::agent_navigator::AgentNavigator;
use crate::eval::{
    library_from_qa, parse_qa, render_table, run_eval, write_folder, DocResolver, LexicalNavigator,
};
use crate::llm::LlmError;
use crate::tree::BuildOptions;
use crate::workspace::{Library, Workspace, WorkspaceError};

/// Arguments of `docnav eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Question set, JSON Lines: {"doc", "question", "gold_path": [..], "answer"} per line.
    qa: PathBuf,
    /// Evaluate the BM25 navigator (no model).
    #[arg(long)]
    lexical: bool,
    /// Evidence items per question.
    #[arg(short = 'k', long = "top", value_name = "N", default_value_t = DEFAULT_K)]
    k: usize,
    /// Print `{"questions": [...], "summary": {...}}` instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write `report.json` and each question's trace (`line-N.trace.jsonl`) here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Index the files named by the set in memory even when a workspace exists.
    #[arg(long)]
    in_memory: bool,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    agent: AgentArgs,
}

/// Run `docnav eval`. Exit 0 when every line was scored without error, 1 when any line had a
/// data error or the navigator failed (after printing the whole report), 2 when the agent is
/// asked for (no `--lexical`) and no model is configured. Errors: unreadable question file or
/// workspace, unwritable `--out`.
pub fn run(global: &GlobalArgs, args: EvalArgs) -> anyhow::Result<ExitCode> {
    let model = if args.lexical {
        None
    } else {
        match args.model.connect() {
            Ok(m) => Some(m),
            Err(e @ LlmError::NotConfigured { .. }) => {
                eprintln!("error: {e}\nhint: or pass --lexical for the model-free navigator");
                return Ok(ExitCode::from(2));
            }
            Err(e) => return Err(e.into()),
        }
    };
    let text = std::fs::read_to_string(&args.qa)
        .with_context(|| format!("cannot read question set `{}`", args.qa.display()))?;
    let qa = parse_qa(&text);
    let base_dir = args
        .qa
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let (library, failures) = open_library(global, &args, &qa.items, &base_dir)?;
    let resolver = DocResolver::new(library.as_ref(), &base_dir).with_failures(failures);
    let lexical = LexicalNavigator {
        library: library.as_ref(),
        k: args.k,
    };
    let report = match model {
        None => run_eval(library.as_ref(), &resolver, &qa, &lexical),
        Some(model) => {
            let agent = AgentNavigator {
                library: library.clone(),
                model,
                options: args.agent.options(&[]),
                k: args.k,
                runtime: tokio::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .build()?,
            };
            run_eval(library.as_ref(), &resolver, &qa, &agent)
        }
    };
    for q in report.questions.iter().filter(|q| q.error.is_some()) {
        eprintln!(
            "error: {}:{}: {}",
            args.qa.display(),
            q.line,
            output::for_display(q.error.as_deref().unwrap_or_default())
        );
    }
    let json = serde_json::to_string_pretty(&report)? + "\n";
    if let Some(dir) = &args.out {
        write_folder(dir, &report)?;
    }
    if args.json {
        output::print(&json)?;
    } else {
        output::print_human(&render_table(&report))?;
    }
    let failed = report.summary.data_errors + report.summary.nav_errors;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The library and the `(doc, reason)` of files that could not be built.
type Opened = (Arc<dyn Library>, Vec<(String, String)>);

fn open_library(
    global: &GlobalArgs,
    args: &EvalArgs,
    items: &[crate::eval::QaItem],
    base_dir: &Path,
) -> anyhow::Result<Opened> {
    if !args.in_memory {
        match Workspace::open(&global.workspace) {
            Ok(ws) => return Ok((Arc::new(ws), Vec::new())),
            Err(WorkspaceError::Missing(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let (library, warnings) = library_from_qa(items, base_dir, &BuildOptions::default());
    for (_, w) in &warnings {
        eprintln!("warning: {w}");
    }
    eprintln!(
        "note: indexed {} document(s) named in `{}` in memory (no workspace used)",
        library.document_count(),
        args.qa.display()
    );
    Ok((Arc::new(library), warnings))
}
