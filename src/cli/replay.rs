//! `docnav replay FILE`: re-run a recorded navigation without a model and check it is identical;
//! `--show` prints a readable transcript; `--step` walks it one event per Enter.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::{output, GlobalArgs};
use crate::trace::read_trace;
use crate::trace::replay::replay;
use crate::trace::replay::verdict::{
    judge, missing_refusal, notes, version_refusal, ReplayVerdict,
};
use crate::trace::show::{render_transcript, transcript};
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
    let label = args.file.display().to_string();
    if let Some(why) = version_refusal(&trace, &label) {
        eprintln!("error: {}\nhint: {}", why.error, why.hint);
        return Ok(ExitCode::from(1));
    }
    let ws = Workspace::open(&global.workspace)?;
    if let Some(why) = missing_refusal(&trace, &label, &ws) {
        for note in notes(&trace, &ws, None) {
            eprintln!("note: {note}");
        }
        eprintln!("error: {}\nhint: {}", why.error, why.hint);
        return Ok(ExitCode::from(1));
    }
    let library: Arc<dyn Library> = Arc::new(ws);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(replay(&trace, library.clone()));
    for note in notes(&trace, library.as_ref(), Some(&outcome)) {
        eprintln!("note: {note}");
    }
    match judge(&trace, &outcome) {
        ReplayVerdict::Identical {
            events,
            model_replies,
            evidence,
        } => {
            output::print(&format!(
                "replay identical: {events} events, {model_replies} model replies from the \
                 trace, {evidence} evidence\n"
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        ReplayVerdict::IdenticalToCut { events, error } => {
            output::print(&format!(
                "replayed up to the cut: {events} events identical ({error})\n"
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        ReplayVerdict::FailedTheSameWay { events, error } => {
            output::print(&format!(
                "replay identical: {events} events; the recorded run failed the same way: \
                 {error}\n"
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        ReplayVerdict::Diverged { message, .. } => {
            eprintln!("{}", output::for_display(&message));
            Ok(ExitCode::from(1))
        }
        ReplayVerdict::Failed { error } => {
            eprintln!("error: replay failed: {}", output::for_display(&error));
            Ok(ExitCode::from(1))
        }
    }
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
