//! `docnav replay FILE`: re-run a recorded navigation without a model and check it is identical;
//! `--show` prints a readable transcript; `--step` walks it one event per Enter.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::{output, GlobalArgs};
use crate::trace::replay::{check_documents, replay, DocumentCheck};
use crate::trace::show::{render_transcript, transcript};
use crate::trace::{read_trace, REPLAY_FORMAT_VERSION};
use crate::workspace::{Library, Workspace};

/// Arguments of `docnav replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// A trace written by `docnav ask --trace FILE`.
    file: PathBuf,
    /// Print a readable transcript instead of re-running.
    #[arg(long)]
    show: bool,
    /// With --show: print the transcript as JSON lines for tools.
    #[arg(long, requires = "show")]
    json: bool,
    /// Walk the transcript one event at a time (press Enter to advance, q to stop).
    #[arg(long, conflicts_with = "json")]
    step: bool,
}

/// Run `docnav replay`. Exit 0 when the replay is identical, 1 on divergence or failure.
pub fn run(global: &GlobalArgs, args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let trace = read_trace(&args.file)?;
    if args.step {
        return step(&trace);
    }
    if args.show {
        let text = if args.json {
            let mut s = String::new();
            for line in transcript(&trace) {
                s.push_str(&serde_json::to_string(&line)?);
                s.push('\n');
            }
            s
        } else {
            output::for_display(&render_transcript(&trace)).into_owned()
        };
        output::print(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    if trace.header.format_version < REPLAY_FORMAT_VERSION {
        eprintln!(
            "error: `{}` is a trace of format version {}, recorded by an older docnav whose \
             prompts and decisions differ: it cannot be re-run\n\
             hint: `docnav replay --show {}` shows it; record the question again to replay it",
            args.file.display(),
            trace.header.format_version,
            args.file.display()
        );
        return Ok(ExitCode::from(1));
    }
    let ws = Workspace::open(&global.workspace)?;
    // The replay sees only the recording's documents; report those missing or changed before
    // step 1.
    let checks = check_documents(&trace.header, &ws);
    for check in &checks {
        eprintln!("note: {check}");
    }
    let missing: Vec<&str> = checks
        .iter()
        .filter_map(|c| match c {
            DocumentCheck::Missing { doc_id } => Some(doc_id.as_str()),
            DocumentCheck::Changed { .. } => None,
        })
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "error: cannot replay `{}`: {} of its {} document(s) not in this workspace\n\
             hint: index them (`docnav index <files>`), or replay in the workspace it was recorded in",
            args.file.display(),
            missing.len(),
            trace.header.documents.len()
        );
        return Ok(ExitCode::from(1));
    }
    let library: Arc<dyn Library> = Arc::new(ws);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(replay(&trace, library));
    if let Some(line) = trace.truncated_at_line {
        eprintln!("note: the trace ends at line {line} (last line cut); replayed up to there");
    }
    for actor in &outcome.in_flight {
        eprintln!(
            "note: the recording of {actor} stops with a model call in flight (the run was \
             interrupted); replayed up to there"
        );
    }
    let cut = trace.truncated_at_line.is_some() || !outcome.in_flight.is_empty();
    if let Some(d) = &outcome.divergence {
        eprintln!("{}", output::for_display(&d.to_string()));
        return Ok(ExitCode::from(1));
    }
    match &outcome.run {
        Ok(run) => {
            let text = format!(
                "replay identical: {} events, {} model replies from the trace, {} evidence\n",
                outcome.events.len(),
                run.answer.stats.llm_calls,
                run.answer.evidence.len()
            );
            output::print(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if cut => {
            output::print(&format!(
                "replayed up to the cut: {} events identical ({e})\n",
                outcome.events.len()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        // Every recorded event was reproduced, up to the orchestrator's own error: the recorded
        // run failed the same way (e.g. a model call that failed is answered with its failure).
        Err(e) if recorded_run_failed(&trace) => {
            output::print(&format!(
                "replay identical: {} events; the recorded run failed the same way: {e}\n",
                outcome.events.len()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!(
                "error: replay failed: {}",
                output::for_display(&e.to_string())
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// Whether the recorded run itself failed: the orchestrator's last event is an error.
fn recorded_run_failed(trace: &crate::trace::Trace) -> bool {
    trace
        .events
        .iter()
        .filter(|e| e.actor == crate::agent::events::ORCHESTRATOR)
        .max_by_key(|e| e.seq)
        .is_some_and(|e| matches!(e.event, crate::agent::AgentEvent::Error { .. }))
}

fn step(trace: &crate::trace::Trace) -> anyhow::Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let lines = transcript(trace);
    let total = lines.len();
    let mut actor = String::new();
    for (i, line) in lines.into_iter().enumerate() {
        if line.actor != actor {
            writeln!(out, "\n== {} ==", line.actor)?;
            actor = line.actor.clone();
        }
        write!(
            out,
            "[{}/{total}] {}   (Enter: next, q: quit) ",
            i + 1,
            output::for_display(&line.text)
        )?;
        out.flush()?;
        let mut answer = String::new();
        if input.read_line(&mut answer)? == 0 || answer.trim() == "q" {
            writeln!(out)?;
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}
