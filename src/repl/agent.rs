//! The agent inside `docnav shell`: `ask <question>` runs the agent and shows each Worker's
//! commands as they happen, then the evidence; `goto N` moves the person's cursor to evidence N;
//! `suggest [goal]` asks the model for the next command from where the person stands (shown, not
//! run); `replay FILE [WORKER]` walks a trace and leaves the cursor where that worker ended.
//! Agent runs are recorded into `DOCNAV_TRACE_DIR` when set, else the workspace's `traces/`.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::decisions::{nav_step_schema, NavStep};
use crate::agent::events::ORCHESTRATOR;
use crate::agent::evidence::{render_text, Answer};
use crate::agent::followup::Conversation;
use crate::agent::prompts::{system_prompt, untrusted, Prompt};
use crate::agent::steps::progress_line;
use crate::agent::{AgentEvent, AgentOptions, EventRecord, EventSink};
use crate::llm::{decide, ChatMessage, ChatModel};
use crate::nav::{Role, Session, Status};
use crate::trace::read_trace;
use crate::trace::record::{Ask, AskFailure, CachePolicy, Catalog, Outcome, TraceDestination};
use crate::trace::show::transcript;

/// What the shell needs to run the agent.
pub struct ShellAgent {
    /// The model, or the message explaining why none is configured (printed on `ask`/`suggest`).
    pub model: Result<Arc<dyn ChatModel>, String>,
    /// Agent budgets.
    pub options: AgentOptions,
    /// The workspace folder: where kept answers are looked up.
    pub workspace: PathBuf,
    /// Where agent runs are recorded ([`TraceDestination::for_local_run`]: `DOCNAV_TRACE_DIR`,
    /// else the workspace's `traces/`), and where `replay` without a file looks.
    pub recording: TraceDestination,
    runtime: Option<tokio::runtime::Runtime>,
    /// Earlier questions and their key points: a follow-up is rewritten to stand alone from it.
    memory: Conversation,
    /// The index generation of the catalog the shell opened: what its runs read, so what a kept
    /// answer is valid for (`None`: not a workspace; answers are then not reused).
    index_generation: Option<u64>,
    last_answer: Option<Answer>,
    last_question: Option<String>,
    /// The trace of this session's last `ask`, for `replay` without a file.
    last_trace: Option<PathBuf>,
}

impl ShellAgent {
    /// A shell agent over the workspace folder `workspace`; the tokio runtime is made on first
    /// use. Reads `DOCNAV_TRACE_DIR` ([`TraceDestination::for_local_run`]).
    pub fn new(
        model: Result<Arc<dyn ChatModel>, String>,
        options: AgentOptions,
        workspace: PathBuf,
    ) -> ShellAgent {
        ShellAgent {
            model,
            options,
            recording: TraceDestination::for_local_run(None, &workspace),
            workspace,
            runtime: None,
            memory: Conversation::new(),
            index_generation: None,
            last_answer: None,
            last_question: None,
            last_trace: None,
        }
    }

    /// This agent over a workspace opened at index `generation`: its answers are kept for reuse
    /// and reused ([`crate::trace::cache`]).
    pub fn with_index_generation(mut self, generation: u64) -> ShellAgent {
        self.index_generation = Some(generation);
        self
    }

    fn runtime(&mut self) -> Result<&tokio::runtime::Runtime, String> {
        if self.runtime.is_none() {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?;
            self.runtime = Some(rt);
        }
        self.runtime
            .as_ref()
            .ok_or_else(|| "no runtime".to_string())
    }
}

/// Prints worker activity as it happens (`  [r1-w1-guide] $ cd 2`).
struct LiveSink;

impl EventSink for LiveSink {
    fn record(&self, r: EventRecord) {
        if let Some(line) = progress_line(&r) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "  [{}] {line}", r.actor);
            let _ = out.flush();
        }
    }
}

/// How one shell `ask` was asked: its flags, then the question.
struct ShellQuestion<'a> {
    answer: bool,
    new: bool,
    no_cache: bool,
    question: &'a str,
}

/// Split `ask`'s leading flags (`--answer`, `--new`, `--no-cache`, in any order) from the
/// question.
fn shell_question(line: &str) -> ShellQuestion<'_> {
    let mut parsed = ShellQuestion {
        answer: false,
        new: false,
        no_cache: false,
        question: line.trim(),
    };
    loop {
        let q = parsed.question;
        let word = q.split_whitespace().next().unwrap_or("");
        match word {
            "--answer" => parsed.answer = true,
            "--new" => parsed.new = true,
            "--no-cache" => parsed.no_cache = true,
            _ => return parsed,
        }
        parsed.question = q[word.len()..].trim_start();
    }
}

/// `new`: forget the conversation, so the next question is taken as it stands.
pub fn forget(agent: &mut ShellAgent) -> (String, Status) {
    let turns = agent.memory.turns().len();
    agent.memory.forget();
    (
        format!("new conversation: {turns} earlier question(s) forgotten"),
        Status::Ok,
    )
}

/// `ask [--answer] [--new] [--no-cache] <question>`: run the agent, return the text to show
/// (evidence — with `--answer` followed by the verified answer — or the error).
///
/// A question after earlier ones is a follow-up: the Orchestrator first rewrites it to stand
/// alone from the conversation's memory (shown as `question, standalone: …`, recorded in the
/// trace with the memory); `--new` (or the command `new`) forgets first. A question asked on its
/// own whose answer was recorded over unchanged documents is answered from that trace at once
/// ([`crate::trace::cache`]); `--no-cache` asks afresh.
pub fn ask_in_shell(agent: &mut ShellAgent, session: &Session, line: &str) -> (String, Status) {
    let asked = shell_question(line);
    if asked.new {
        agent.memory.forget();
    }
    let question = asked.question;
    if question.is_empty() {
        return (
            "usage: ask [--answer] [--new] [--no-cache] <question>".into(),
            Status::Error,
        );
    }
    let mut options = agent.options.clone();
    options.answer |= asked.answer;
    let model = match &agent.model {
        Ok(m) => m.clone(),
        Err(msg) => return (msg.clone(), Status::Error),
    };
    let ask = Ask {
        catalog: Catalog::Opened {
            library: session.library().clone(),
            workspace: agent.workspace.clone(),
            generation: agent.index_generation.unwrap_or_default(),
        },
        model,
        options,
        question: question.to_string(),
        memory: agent.memory.turns().to_vec(),
        trace: Some(agent.recording.clone()),
        // Without the generation the shell opened, a kept answer could not be checked.
        cache: match agent.index_generation {
            Some(_) => CachePolicy::unless(asked.no_cache),
            None => CachePolicy::Off,
        },
        permits: None,
        placement: crate::agent::orchestrator::Placement::local(),
    };
    let runtime = match agent.runtime() {
        Ok(rt) => rt,
        Err(e) => return (e, Status::Error),
    };
    let outcome = runtime.block_on(ask.run(Arc::new(LiveSink), async {
        let _ = tokio::signal::ctrl_c().await;
    }));
    let trace = match &outcome {
        Ok(o) => o.trace(),
        Err(failure) => failure.trace().map(PathBuf::as_path),
    };
    if let Some(trace) = trace {
        agent.last_trace = Some(trace.to_path_buf());
    }
    let recorded = |trace: Option<&std::path::Path>| {
        trace
            .map(|p| format!("\ntrace: {}", p.display()))
            .unwrap_or_default()
    };
    let (answer, text) = match outcome {
        Ok(Outcome::Reused(reused)) => {
            let text = shown_answer(&reused.answer, "");
            (reused.answer, text)
        }
        Ok(Outcome::Ran(done)) => {
            for warning in &done.warnings {
                eprintln!("warning: {warning}");
            }
            let text = shown_answer(&done.run.answer, &recorded(done.trace.as_deref()));
            (done.run.answer, text)
        }
        Err(failure @ AskFailure::Cancelled { .. }) => {
            let trace = recorded(failure.trace().map(PathBuf::as_path));
            return (format!("ask cancelled{trace}"), Status::Error);
        }
        Err(failure) => {
            let trace = recorded(failure.trace().map(PathBuf::as_path));
            let message = failure.message();
            let message = message.strip_prefix("ask: ").unwrap_or(&message);
            return (format!("ask failed: {message}{trace}"), Status::Error);
        }
    };
    agent.memory.remember(&answer);
    agent.last_question = Some(question.to_string());
    agent.last_answer = Some(answer);
    (text, Status::Ok)
}

/// The answer as the shell shows it: the evidence (the answer lists failed Workers and ends with
/// the verdict), the `goto` hint when there is evidence, then `recorded` (where the trace is).
fn shown_answer(answer: &Answer, recorded: &str) -> String {
    let mut text = render_text(answer);
    if !answer.evidence.is_empty() {
        text.push_str("\n`goto N` moves the cursor to evidence N");
    }
    text.push_str(recorded);
    text
}

/// `goto N`: move the cursor to evidence N of the last `ask`.
pub fn goto(agent: &ShellAgent, session: &mut Session, arg: &str) -> (String, Status) {
    let Some(answer) = &agent.last_answer else {
        return (
            "goto: no evidence yet (run `ask <question>` first)".into(),
            Status::Error,
        );
    };
    if answer.evidence.is_empty() {
        return (
            "goto: the last answer has no evidence to go to (ask again, or navigate with ls and cd)"
                .into(),
            Status::Error,
        );
    }
    let n: usize = match arg.trim().parse() {
        Ok(n) if n >= 1 && n <= answer.evidence.len() => n,
        _ => {
            return (
                format!("usage: goto N  (N from 1 to {})", answer.evidence.len()),
                Status::Error,
            )
        }
    };
    let ev = &answer.evidence[n - 1];
    let target = if ev.structure.is_empty() {
        format!("/{}", ev.doc_id)
    } else {
        format!("/{}/{}", ev.doc_id, ev.structure.replace('.', "/"))
    };
    match session.execute(&format!("cd {}", crate::nav::lexer::quote_word(&target))) {
        Ok(out) => (out.text, out.status),
        Err(e) => (e.to_string(), Status::Error),
    }
}

/// `suggest [goal]`: the model's next command from the cursor, shown for the person to run.
pub fn suggest(agent: &mut ShellAgent, session: &mut Session, goal: &str) -> (String, Status) {
    let model = match &agent.model {
        Ok(m) => m.clone(),
        Err(msg) => return (msg.clone(), Status::Error),
    };
    let goal = if goal.trim().is_empty() {
        match &agent.last_question {
            Some(q) => q.clone(),
            None => {
                return (
                    "usage: suggest <goal>  (or ask a question first)".into(),
                    Status::Error,
                )
            }
        }
    } else {
        goal.trim().to_string()
    };
    let pwd = session.pwd().unwrap_or_else(|_| "/".into());
    let listing = session.execute("ls").map(|o| o.text).unwrap_or_default();
    let user = format!(
        "Goal: {goal}\nCurrent path: {pwd}\n\n$ ls\n{}\n\nWhich command next?",
        untrusted("ls", &listing)
    );
    let messages = vec![
        ChatMessage::system(system_prompt(
            Prompt::Suggest,
            &agent.options,
            &[("output_budget", session.budget().to_string())],
        )),
        ChatMessage::user(user),
    ];
    let runtime = match agent.runtime() {
        Ok(rt) => rt,
        Err(e) => return (e, Status::Error),
    };
    match runtime.block_on(decide::<NavStep>(
        model.as_ref(),
        messages,
        &nav_step_schema(),
    )) {
        Ok(d) => (
            format!(
                "suggested: {}\n  why: {}",
                d.value.command.trim(),
                d.value.reason.trim()
            ),
            Status::Ok,
        ),
        Err(e) => (format!("suggest failed: {e}"), Status::Error),
    }
}

/// Where a replayed worker ended: what `replay FILE [WORKER]` moves the shell's cursor to.
pub struct ReplayEnd {
    /// The worker whose commands were re-run.
    pub worker: String,
    /// The cursor after re-running them.
    pub cursor: crate::nav::Cursor,
}

/// The trace `replay` walks when given no file: this session's last `ask`'s, else the newest in
/// the folder the shell records into (by modification time); `None` when there is none.
pub fn default_replay_trace(agent: &ShellAgent) -> Option<PathBuf> {
    if let Some(p) = agent.last_trace.as_ref().filter(|p| p.is_file()) {
        return Some(p.clone());
    }
    std::fs::read_dir(agent.recording.folder()?)
        .ok()?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, p)| p)
}

/// `replay FILE [WORKER]`: walk the trace one transcript line at a time, each passed to `step`
/// (which shows it and returns `false` to stop early), then re-run WORKER's commands (default:
/// the first worker's) over `library` to find where it ended.
///
/// Errors (the message to print): no FILE, a trace that cannot be read, no worker in the trace,
/// or no command of WORKER that runs.
pub fn replay_in_shell(
    library: &Arc<dyn crate::workspace::Library>,
    args: &[String],
    mut step: impl FnMut(&str) -> bool,
) -> Result<ReplayEnd, String> {
    let Some(file) = args.first() else {
        return Err(
            "usage: replay [FILE [WORKER]] (without FILE: the last trace of this shell; none yet)"
                .into(),
        );
    };
    let trace = read_trace(std::path::Path::new(file)).map_err(|e| e.to_string())?;
    let lines = transcript(&trace);
    let worker = match args.get(1) {
        Some(w) => w.clone(),
        None => match lines.iter().find(|l| l.actor != ORCHESTRATOR) {
            Some(l) => l.actor.clone(),
            None => return Err("replay: the trace has no worker".into()),
        },
    };
    let total = lines.len();
    for (i, line) in lines.iter().enumerate() {
        if !step(&format!(
            "[{}/{total}] {}: {}",
            i + 1,
            line.actor,
            line.text
        )) {
            break;
        }
    }
    // Re-run the worker's commands to find where it ended.
    let mut replayer = Session::new(library.clone(), Role::Agent);
    let mut ran = 0;
    for e in trace.events.iter().filter(|e| e.actor == worker) {
        if let AgentEvent::Command { line } = &e.event {
            if replayer.execute(line).is_ok() {
                ran += 1;
            }
        }
    }
    if ran == 0 {
        return Err(format!(
            "replay: no commands of worker `{worker}` in the trace"
        ));
    }
    Ok(ReplayEnd {
        worker,
        cursor: replayer.cursor().clone(),
    })
}

/// Put `session`'s cursor where a [`replay_in_shell`] left its worker, and say where; or pass
/// its error on. Returns the text to show and its status.
pub fn move_to_replay_end(
    session: &mut Session,
    end: Result<ReplayEnd, String>,
) -> (String, Status) {
    match end {
        Ok(end) => {
            session.set_cursor(end.cursor);
            let pwd = session.pwd().unwrap_or_default();
            (
                format!("cursor moved to where {} ended: {pwd}", end.worker),
                Status::Ok,
            )
        }
        Err(message) => (message, Status::Error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goto_after_an_answer_without_evidence_says_there_is_nothing_to_go_to() {
        let dir = tempfile::tempdir().unwrap();
        let mut agent = ShellAgent::new(
            Err("no model".into()),
            AgentOptions::default(),
            dir.path().to_path_buf(),
        );
        let library: Arc<dyn crate::workspace::Library> = Arc::new(
            crate::workspace::InMemoryLibrary::from_paths::<std::path::PathBuf>(
                &[],
                &Default::default(),
            )
            .unwrap(),
        );
        let mut session = Session::new(library, Role::Person);
        let (text, status) = goto(&agent, &mut session, "1");
        assert_eq!(
            (text.as_str(), status),
            (
                "goto: no evidence yet (run `ask <question>` first)",
                Status::Error
            )
        );
        agent.last_answer = Some(Answer {
            question: "q".into(),
            standalone_question: None,
            from_trace: None,
            evidence: Vec::new(),
            stats: Default::default(),
            worker_errors: Vec::new(),
            answer: None,
            verdict: None,
        });
        let (text, status) = goto(&agent, &mut session, "1");
        assert_eq!(status, Status::Error);
        assert!(
            text.starts_with("goto: the last answer has no evidence"),
            "{text}"
        );
        assert_eq!(default_replay_trace(&agent), None);
    }
}
