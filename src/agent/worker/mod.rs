//! The Worker (DESIGN.md §6.4): navigates ONE document under model control and returns the
//! evidence it collected with `cat`.
//!
//! Loop: bird's-eye `ls` of the document root + `find -- <key concepts>` → **plan**, whose reply
//! also carries the first command → { execute → observe → **navigate** picks the next command }
//! until `done` or `absent`, a **check** that says sufficient or absent, or the step/evidence budget runs
//! out. An insufficient check triggers a worker replan (the plan prompt again, told what is
//! missing; its reply's command runs next, with no navigate call in between).
//!
//! Prompt size does not grow with steps or document size: each navigate prompt carries the task,
//! the plan, one line per earlier step (compacted history), the evidence list (excerpts and what
//! each holds) and only the latest observation in full, fitted to the prompt cap; all document
//! text in it is fenced as untrusted data (see `worker/prompt.rs`).
//!
//! Besides its evidence a Worker reports what the Orchestrator's evaluate needs: the
//! verdict of its last `check`, how it ended, the searches that found nothing, and the leads —
//! sections of other documents its text links to (`[see also: /other-doc/#1.5 …]`) that it did
//! not read. It may read such a section itself (`cat /other-doc/#1.5`), which costs one command
//! instead of a round; the leads it leaves let evaluate dispatch a Worker there.

use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Arc;

use super::decisions::{
    check_schema, nav_step_schema, plan_step_schema, NavStep, Outcome, PlanStep, Task, Verdict,
};
use super::events::{AgentEvent, Emitter};
use super::model::ask_model;
use super::{AgentError, AgentOptions};
use crate::llm::ChatModel;
use crate::nav::{Effect, Role, Session, Status};
use crate::tree::NodeId;
use crate::workspace::Library;

mod prompt;
use prompt::{check_messages, history_line, navigate_messages, plan_messages, Observation};

mod excerpts;
pub(crate) use excerpts::Excerpts;

/// Text a Worker collected from one node: one excerpt, a char range it read (overlapping reads
/// merged; a node read at disjoint offsets gives several excerpts).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CollectedEvidence {
    /// Document id.
    pub doc_id: String,
    /// The node.
    pub node: NodeId,
    /// Char range of the node's rendered text (`Tree::text_of`) that was read, end exclusive.
    pub chars: Range<usize>,
    /// The text read, verbatim.
    pub text: String,
    /// Char ranges of the node's rendered text (as `chars`, end exclusive, each within it) that
    /// the Worker read by line numbers (`cat path:N-M`): the lines it pointed at, which a
    /// shortened prompt keeps ([`CollectedEvidence::cited_lines`]). Sorted, disjoint.
    pub cited: Vec<Range<usize>>,
}

impl CollectedEvidence {
    /// The lines of `text` (1-based, inclusive `[first, last]`) that hold the [`cited`]
    /// chars, in order, touching ranges joined; empty when nothing was read by line numbers.
    ///
    /// [`cited`]: CollectedEvidence::cited
    pub fn cited_lines(&self) -> Vec<[u32; 2]> {
        // Line (0-based) of each char of `text`, by the chars before it.
        let line_at =
            |at: usize| -> u32 { self.text.chars().take(at).filter(|&c| c == '\n').count() as u32 };
        let mut out: Vec<[u32; 2]> = Vec::new();
        for r in &self.cited {
            let start = r.start.max(self.chars.start) - self.chars.start;
            let end = r.end.min(self.chars.end).saturating_sub(self.chars.start);
            if start >= end {
                continue;
            }
            let (a, b) = (line_at(start) + 1, line_at(end - 1) + 1);
            match out.last_mut() {
                Some(last) if a <= last[1] + 1 => last[1] = last[1].max(b),
                _ => out.push([a, b]),
            }
        }
        out
    }
}

/// How a Worker ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerEnd {
    /// It ran `done`.
    Done,
    /// It ran `absent`: its document does not cover the task (its last reason says why).
    Absent,
    /// Its `check` said sufficient or absent.
    Checked,
    /// It used all its commands.
    StepBudget,
    /// It collected its evidence budget.
    EvidenceBudget,
    /// A model call or the workspace failed ([`WorkerOutcome::error`]).
    Failed,
}

/// What a Worker returns.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WorkerOutcome {
    /// Worker id (`r1-w2-doc_id`).
    pub worker_id: String,
    /// Document id.
    pub doc_id: String,
    /// The task it was given.
    pub task: String,
    /// Commands executed.
    pub steps: usize,
    /// Excerpts in the order first collected.
    pub evidence: Vec<CollectedEvidence>,
    /// The verdict of its last `check`, if it ran one.
    pub verdict: Option<Verdict>,
    /// How it ended.
    pub end: WorkerEnd,
    /// Command lines whose search found nothing (`find`, `grep`, `findtree`; the overview's
    /// `find` included).
    pub found_nothing: Vec<String>,
    /// Sections of other documents its text linked to and it did not read
    /// (`/ripgrep-guide/#1.8 Configuration file`), in order seen.
    pub leads: Vec<String>,
    /// The reason the model gave for its last command (why it ran `done`, say).
    pub last_reason: String,
    /// Set when the worker failed (e.g. the model's reply did not parse twice); its evidence so
    /// far is still returned.
    pub error: Option<String>,
    /// (model calls, prompt tokens, completion tokens).
    pub usage: (u64, u64, u64),
}

impl WorkerOutcome {
    /// The outcome of the Worker `worker_id` that could not run `task` at all (its task died,
    /// the process holding its document could not be reached): no steps, no evidence, no
    /// usage, ended [`WorkerEnd::Failed`] with `error` as its error.
    pub fn failed(worker_id: &str, task: &Task, error: String) -> WorkerOutcome {
        WorkerOutcome {
            worker_id: worker_id.to_string(),
            doc_id: task.doc_id.clone(),
            task: task.task.clone(),
            steps: 0,
            evidence: Vec::new(),
            verdict: None,
            end: WorkerEnd::Failed,
            found_nothing: Vec::new(),
            leads: Vec::new(),
            last_reason: String::new(),
            error: Some(error),
            usage: (0, 0, 0),
        }
    }
}

/// Everything a Worker needs.
pub struct WorkerContext {
    /// Documents.
    pub library: Arc<dyn Library>,
    /// The model this worker talks to.
    pub model: Arc<dyn ChatModel>,
    /// Budgets.
    pub options: AgentOptions,
    /// The user's question (for context).
    pub question: String,
    /// Key concepts from the analysis (joined into the bird's-eye `find`).
    pub key_concepts: Vec<String>,
}

fn quote(word: &str) -> String {
    crate::nav::lexer::quote_word(word)
}

/// Run one Worker to completion. Never panics; model failures end the worker with `error` set.
pub async fn run_worker(
    ctx: Arc<WorkerContext>,
    task: Task,
    worker_id: String,
    emitter: Arc<Emitter>,
) -> WorkerOutcome {
    emitter.emit(AgentEvent::WorkerStarted {
        doc_id: task.doc_id.clone(),
        task: task.task.clone(),
        shard: None,
    });
    let mut session =
        Session::new(ctx.library.clone(), Role::Agent).with_budget(ctx.options.output_budget);
    let mut state = WorkerState::default();
    let result = drive(&ctx, &task, &mut session, &mut state, &emitter).await;
    let error = result.err().map(|e| e.to_string());
    if error.is_some() {
        state.end = WorkerEnd::Failed;
    }
    let evidence = state.excerpts.items().to_vec();
    emitter.emit(AgentEvent::WorkerFinished {
        steps: state.steps,
        evidence: evidence.len(),
        error: error.clone(),
    });
    WorkerOutcome {
        worker_id,
        doc_id: task.doc_id,
        task: task.task,
        steps: state.steps,
        evidence,
        verdict: state.verdict,
        end: state.end,
        found_nothing: state.found_nothing,
        leads: state.leads,
        last_reason: state.last_reason,
        error,
        usage: emitter.usage(),
    }
}

struct WorkerState {
    steps: usize,
    /// One line per executed command (the overview first).
    history: Vec<String>,
    excerpts: Excerpts,
    found_nothing: Vec<String>,
    leads: Vec<String>,
    verdict: Option<Verdict>,
    end: WorkerEnd,
    last_reason: String,
}

impl Default for WorkerState {
    fn default() -> Self {
        WorkerState {
            steps: 0,
            history: Vec::new(),
            excerpts: Excerpts::default(),
            found_nothing: Vec::new(),
            leads: Vec::new(),
            verdict: None,
            end: WorkerEnd::StepBudget,
            last_reason: String::new(),
        }
    }
}

impl WorkerState {
    fn evidence_chars(&self) -> usize {
        self.excerpts.chars()
    }
}

/// True when `line` is a search (`find`, `grep`, `findtree`) whose output says it found nothing.
fn found_nothing(line: &str, output: &str) -> bool {
    let command = line.split_whitespace().next().unwrap_or("");
    matches!(command, "find" | "grep" | "findtree")
        && output.starts_with(&format!("{command}: no "))
}

/// Sections of other documents that a `cat` output's `[see also: …]` line names
/// (`/doc/#1.5 Title`, `/doc Title`), other than `own` document's.
fn see_also_elsewhere(output: &str, own: &str) -> Vec<String> {
    let Some(line) = output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("[see also: "))
    else {
        return Vec::new();
    };
    let line = line.trim_end_matches(']');
    let line = match line.rfind(" (+") {
        Some(i) if line.ends_with(" more)") => &line[..i],
        _ => line,
    };
    // Entries start with `#` or `/`; a title may itself hold ", ".
    let mut entries: Vec<String> = Vec::new();
    for piece in line.split(", ") {
        match entries.last_mut() {
            Some(last) if !piece.starts_with(['#', '/']) => {
                last.push_str(", ");
                last.push_str(piece);
            }
            _ => entries.push(piece.to_string()),
        }
    }
    entries
        .into_iter()
        .filter(|e| {
            e.starts_with('/')
                && !e.starts_with(&format!("/{own}/"))
                && !e.starts_with(&format!("/{own} "))
        })
        .collect()
}

async fn drive(
    ctx: &WorkerContext,
    task: &Task,
    session: &mut Session,
    state: &mut WorkerState,
    emitter: &Emitter,
) -> Result<(), AgentError> {
    let cap = ctx.options.prompt_cap_tokens;
    let overview = overview(ctx, task, session, state, emitter)?;
    let first = make_plan(ctx, task, &overview, None, emitter).await?;
    let mut plan = first.plan;
    let mut next = first.command;
    state.last_reason = first.reason;
    let mut last_observation = overview;
    loop {
        if state.steps >= ctx.options.max_steps {
            state.end = WorkerEnd::StepBudget;
            return Ok(());
        }
        let line = next.trim().to_string();
        state.steps += 1;
        let out = run_command(session, &line, emitter)?;
        match &out.effect {
            Effect::Done | Effect::Absent => {
                state.history.push(format!("{}. {line}", state.steps));
                state.end = if out.effect == Effect::Absent {
                    WorkerEnd::Absent
                } else {
                    WorkerEnd::Done
                };
                return Ok(());
            }
            Effect::Check => {
                let verdict = check(ctx, task, state, emitter).await?;
                state.verdict = Some(verdict.clone());
                let said = match verdict.verdict {
                    Outcome::Sufficient => "sufficient".to_string(),
                    other => format!("{}: {}", other.as_str(), one_line(&verdict.missing, 160)),
                };
                state
                    .history
                    .push(format!("{}. check → {said}", state.steps));
                if verdict.verdict != Outcome::Insufficient {
                    state.end = WorkerEnd::Checked;
                    return Ok(());
                }
                let replanned = make_plan(
                    ctx,
                    task,
                    &last_observation,
                    Some(&verdict.missing),
                    emitter,
                )
                .await?;
                plan = replanned.plan;
                next = replanned.command;
                state.last_reason = replanned.reason;
                last_observation = Observation::note(format!(
                    "check said the evidence is not sufficient yet. Missing: {}\nNew plan made.",
                    verdict.missing
                ));
                continue;
            }
            Effect::Evidence(ev) => collect(ctx, task, state, emitter, &line, &out.text, ev)?,
            Effect::None => {
                if found_nothing(&line, &out.text) && !state.found_nothing.contains(&line) {
                    state.found_nothing.push(line.clone());
                }
                state.history.push(history_line(
                    state.steps,
                    &line,
                    &out.text,
                    out.status == Status::Error,
                ));
            }
        }
        last_observation = Observation::command(&line, &out.text);
        if state.evidence_chars() >= ctx.options.evidence_chars {
            emitter.emit(AgentEvent::Error {
                message: format!(
                    "evidence budget of {} chars reached; worker stops",
                    ctx.options.evidence_chars
                ),
            });
            state.end = WorkerEnd::EvidenceBudget;
            return Ok(());
        }
        if state.steps >= ctx.options.max_steps {
            state.end = WorkerEnd::StepBudget;
            return Ok(());
        }
        let prompt = navigate_messages(ctx, task, &plan, state, &last_observation);
        let step: NavStep = ask_model(
            ctx.model.as_ref(),
            emitter,
            "navigate",
            prompt,
            &nav_step_schema(),
            cap,
        )
        .await?;
        next = step.command;
        state.last_reason = step.reason;
    }
}

/// The bird's-eye view a Worker plans from: `cd` into its document, then `ls` and a `find` of
/// the key concepts (or the question), not counted as steps; each kept in the history.
///
/// Errors: [`AgentError::UnknownDocument`] when the document cannot be entered; a failing
/// command's error.
fn overview(
    ctx: &WorkerContext,
    task: &Task,
    session: &mut Session,
    state: &mut WorkerState,
    emitter: &Emitter,
) -> Result<Observation, AgentError> {
    // Bird's-eye view: the document's top level and keyword hits, not counted as steps. The key
    // concepts make one BM25 query, which finds the gold section first more often than one query
    // per concept merged (the benchmark history, docs/src/benchmarks-history.md, "The agent"),
    // after `--` so a concept may start with dashes.
    let mut overview = Observation::default();
    let keywords = if ctx.key_concepts.is_empty() {
        ctx.question.clone()
    } else {
        ctx.key_concepts.join(" ")
    };
    let mut seen = Vec::new();
    for line in [
        format!("cd {}", quote(&format!("/{}", task.doc_id))),
        "ls".to_string(),
        format!("find -- {}", quote(&keywords)),
    ] {
        let out = run_command(session, &line, emitter)?;
        if line.starts_with("cd ") {
            if out.status == Status::Error {
                return Err(AgentError::UnknownDocument(task.doc_id.clone()));
            }
            continue;
        }
        if found_nothing(&line, &out.text) {
            state.found_nothing.push(line.clone());
        }
        seen.push(history_line(
            0,
            &line,
            &out.text,
            out.status == Status::Error,
        ));
        overview.outputs.push((line.clone(), out.text.clone()));
    }
    state.history.push(format!(
        "overview (shown when you planned): {}",
        seen.iter()
            .map(|l| l.trim_start_matches("0. "))
            .collect::<Vec<_>>()
            .join("; ")
    ));

    Ok(overview)
}

/// Keep the evidence `ev` that `line` read (its output `text`): announce it, merge it into the
/// Worker's excerpts, note it in the history and keep the other documents' sections its
/// `[see also: …]` line names as leads.
///
/// Errors: [`AgentError::Workspace`] when the evidence's document cannot be loaded.
fn collect(
    ctx: &WorkerContext,
    task: &Task,
    state: &mut WorkerState,
    emitter: &Emitter,
    line: &str,
    text: &str,
    ev: &crate::nav::Evidence,
) -> Result<(), AgentError> {
    // Only the chars read are evidence (a `cat` that stopped at the output budget
    // read a part); every read is kept, merged by char range.
    let doc = ctx
        .library
        .document(&ev.doc_id)
        .map_err(|e| AgentError::Workspace(e.to_string()))?;
    let full = doc.tree.text_of(ev.node);
    let structure = doc.tree.node(ev.node).structure.clone();
    emitter.emit(AgentEvent::EvidenceCollected {
        doc_id: ev.doc_id.clone(),
        structure: structure.clone(),
        chars: ev.chars.len(),
    });
    // A read by line numbers (`cat PATH:N-M`) points at those lines: they are cited.
    let cited = if ev.by_lines {
        std::slice::from_ref(&ev.chars)
    } else {
        &[]
    };
    state
        .excerpts
        .add(&ev.doc_id, ev.node, ev.chars.clone(), &full, cited);
    let label = evidence_label(
        &task.doc_id,
        &ev.doc_id,
        &structure,
        &doc.tree.node(NodeId::ROOT).title,
    );
    if ev.doc_id != task.doc_id {
        let read = format!("{label} ");
        state.leads.retain(|l| !l.starts_with(&read));
    }
    state.history.push(format!(
        "{}. {line} → {} chars collected; evidence {label} now holds {}",
        state.steps,
        ev.chars.len(),
        state.excerpts.describe(&ev.doc_id, ev.node, ev.total_chars)
    ));
    for lead in see_also_elsewhere(text, &task.doc_id) {
        let held = state
            .excerpts
            .items()
            .iter()
            .any(|e| lead.starts_with(&format!("{} ", label_of(ctx, &task.doc_id, e))));
        if !held && !state.leads.contains(&lead) {
            state.leads.push(lead);
        }
    }
    Ok(())
}

/// How evidence is named to a Worker of document `own`: `#2.1` in its own document,
/// `/other-doc/#2.1` (or `/other-doc` for a root) in another. Its own document's root — text
/// outside every section, which has no section number — is named by `title`, the document's
/// title: `the document "Writing Extensions"`.
fn evidence_label(own: &str, doc_id: &str, structure: &str, title: &str) -> String {
    match (doc_id == own, structure.is_empty()) {
        (true, true) if title.trim().is_empty() => format!("the document `{doc_id}`"),
        (true, true) => format!("the document \"{}\"", one_line(title, 80)),
        (true, false) => format!("#{structure}"),
        (false, true) => format!("/{doc_id}"),
        (false, false) => format!("/{doc_id}/#{structure}"),
    }
}

/// [`evidence_label`] of `ev` for a Worker of document `own`.
fn label_of(ctx: &WorkerContext, own: &str, ev: &CollectedEvidence) -> String {
    match ctx.library.document(&ev.doc_id) {
        Ok(d) => evidence_label(
            own,
            &ev.doc_id,
            &d.tree.node(ev.node).structure,
            &d.tree.node(NodeId::ROOT).title,
        ),
        Err(_) => evidence_label(own, &ev.doc_id, "", ""),
    }
}

fn run_command(
    session: &mut Session,
    line: &str,
    emitter: &Emitter,
) -> Result<crate::nav::CommandOutput, AgentError> {
    emitter.emit(AgentEvent::Command {
        line: line.to_string(),
    });
    let out = session
        .execute(line)
        .map_err(|e| AgentError::Workspace(e.to_string()))?;
    emitter.observation(&out.text, out.status == Status::Error);
    Ok(out)
}

/// The first non-blank line of `text`, trimmed, cut to `max` chars with `…` when longer.
pub(crate) fn first_line(text: &str, max: usize) -> String {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut s: String = first.chars().take(max).collect();
    if first.chars().count() > max {
        s.push('…');
    }
    s
}

/// [`first_line`] plus ` (+N lines)` for the other lines of `text`.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let lines = text.lines().count();
    let mut s = first_line(text, max);
    if lines > 1 {
        let _ = write!(s, " (+{} lines)", lines - 1);
    }
    s
}

async fn make_plan(
    ctx: &WorkerContext,
    task: &Task,
    observation: &Observation,
    missing: Option<&str>,
    emitter: &Emitter,
) -> Result<PlanStep, AgentError> {
    let messages = plan_messages(ctx, task, observation, missing);
    let kind = if missing.is_some() { "replan" } else { "plan" };
    Ok(ask_model(
        ctx.model.as_ref(),
        emitter,
        kind,
        messages,
        &plan_step_schema(),
        ctx.options.prompt_cap_tokens,
    )
    .await?)
}

async fn check(
    ctx: &WorkerContext,
    task: &Task,
    state: &WorkerState,
    emitter: &Emitter,
) -> Result<Verdict, AgentError> {
    let messages = check_messages(ctx, task, state);
    Ok(ask_model(
        ctx.model.as_ref(),
        emitter,
        "check",
        messages,
        &check_schema(),
        ctx.options.prompt_cap_tokens,
    )
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn searches_that_found_nothing_and_leads_are_read_from_outputs() {
        assert!(found_nothing(
            "find -- x",
            "find: no section of /d matches 'x' (try…)"
        ));
        assert!(found_nothing(
            "grep -i x",
            "grep: no line below /d matches 'x'"
        ));
        assert!(!found_nothing("cat x", "cat: no child 'x'"));
        assert!(!found_nothing("find x", "/d/1  2.00  Title: find: no "));
        let out = "== faq › A ==\ntext\n[see also: #2 Usage, /guide/#1.8 R commands, case sensitivity, etc., /guide Guide, /faq/#3 Own (+2 more)]";
        assert_eq!(
            see_also_elsewhere(out, "faq"),
            vec![
                "/guide/#1.8 R commands, case sensitivity, etc.",
                "/guide Guide"
            ]
        );
        assert!(see_also_elsewhere("no line", "faq").is_empty());
    }
}
