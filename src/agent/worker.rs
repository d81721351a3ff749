//! The Worker (DESIGN.md §6.4): navigates ONE document under model control and returns the
//! evidence it collected with `cat`.
//!
//! Loop: bird's-eye `ls` of the document root + `find` hits for the key concepts → **plan** →
//! { **navigate** picks one command → execute → observe } until `done`, a sufficient **check**,
//! or the step/evidence budget runs out. An insufficient check triggers a worker replan (the plan
//! prompt again, told what is missing).
//!
//! Prompt size does not grow with steps or document size: each navigate prompt carries the task,
//! the plan, one line per earlier step (compacted history), the evidence list (paths and sizes)
//! and only the latest observation in full, fitted to the prompt cap; all document text in it is
//! fenced as untrusted data (see `worker_prompts.rs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Arc;

use super::budget::enforce_cap;
use super::decisions::{
    nav_step_schema, plan_schema, verdict_schema, NavStep, Plan, Task, Verdict,
};
use super::events::{AgentEvent, Emitter};
use super::{AgentError, AgentOptions};
use crate::llm::{decide, ChatMessage, ChatModel, LlmError, ResponseSchema};
use crate::nav::{Effect, Role, Session, Status};
use crate::tree::NodeId;
use crate::workspace::Library;

#[path = "worker_prompts.rs"]
mod prompt;
use prompt::{check_messages, history_line, navigate_messages, plan_messages, Observation};

/// Text a Worker collected from one node: the union of the char ranges it read.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectedEvidence {
    /// Document id.
    pub doc_id: String,
    /// The node.
    pub node: NodeId,
    /// Char range of the node's rendered text (`Tree::text_of`) that was read, end exclusive.
    pub chars: Range<usize>,
    /// The text read, verbatim.
    pub text: String,
}

/// What a Worker returns.
#[derive(Debug, Clone)]
pub struct WorkerOutcome {
    /// Worker id (`r1-w2-doc_id`).
    pub worker_id: String,
    /// Document id.
    pub doc_id: String,
    /// Commands executed.
    pub steps: usize,
    /// Evidence in the order first collected.
    pub evidence: Vec<CollectedEvidence>,
    /// Set when the worker failed (e.g. the model's reply did not parse twice); its evidence so
    /// far is still returned.
    pub error: Option<String>,
    /// (model calls, prompt tokens, completion tokens).
    pub usage: (u64, u64, u64),
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
    /// Key concepts from understand (for the bird's-eye `find`).
    pub key_concepts: Vec<String>,
}

/// Ask the model for a decision, each call recorded as it happens (request when sent, then its
/// response or error); a failure is recorded and returned.
pub(crate) async fn ask_model<T: serde::Serialize + serde::de::DeserializeOwned>(
    model: &dyn ChatModel,
    emitter: &Emitter,
    kind: &str,
    mut messages: Vec<ChatMessage>,
    schema: &ResponseSchema,
    cap_tokens: usize,
) -> Result<T, LlmError> {
    enforce_cap(&mut messages, cap_tokens);
    match decide::<T>(&emitter.recording(model), messages, schema).await {
        Ok(decision) => {
            emitter.decision(kind, &decision.value);
            Ok(decision.value)
        }
        Err(err) => {
            emitter.emit(AgentEvent::Error {
                message: format!("{kind}: {err}"),
            });
            Err(err)
        }
    }
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
    });
    let mut session =
        Session::new(ctx.library.clone(), Role::Agent).with_budget(ctx.options.output_budget);
    let mut state = WorkerState {
        steps: 0,
        history: Vec::new(),
        evidence: BTreeMap::new(),
        order: Vec::new(),
    };
    let result = drive(&ctx, &task, &mut session, &mut state, &emitter).await;
    let error = result.err().map(|e| e.to_string());
    let evidence: Vec<CollectedEvidence> = state
        .order
        .iter()
        .filter_map(|key| state.evidence.get(key).cloned())
        .collect();
    emitter.emit(AgentEvent::WorkerFinished {
        steps: state.steps,
        evidence: evidence.len(),
        error: error.clone(),
    });
    WorkerOutcome {
        worker_id,
        doc_id: task.doc_id,
        steps: state.steps,
        evidence,
        error,
        usage: emitter.usage(),
    }
}

struct WorkerState {
    steps: usize,
    /// One line per executed command.
    history: Vec<String>,
    evidence: BTreeMap<(String, u32), CollectedEvidence>,
    order: Vec<(String, u32)>,
}

impl WorkerState {
    fn evidence_chars(&self) -> usize {
        self.evidence.values().map(|e| e.chars.len()).sum()
    }
}

async fn drive(
    ctx: &WorkerContext,
    task: &Task,
    session: &mut Session,
    state: &mut WorkerState,
    emitter: &Emitter,
) -> Result<(), AgentError> {
    let cap = ctx.options.prompt_cap_tokens;
    // Bird's-eye view: the document's top level and keyword hits, not counted as steps.
    let mut overview = Observation::default();
    let keywords = if ctx.key_concepts.is_empty() {
        ctx.question.clone()
    } else {
        ctx.key_concepts.join(" ")
    };
    for line in [
        format!("cd {}", quote(&format!("/{}", task.doc_id))),
        "ls".to_string(),
        format!("find {}", quote(&keywords)),
    ] {
        let out = run_command(session, &line, emitter)?;
        if !line.starts_with("cd ") {
            overview.outputs.push((line.clone(), out.text.clone()));
        } else if out.status == Status::Error {
            return Err(AgentError::UnknownDocument(task.doc_id.clone()));
        }
    }

    let mut plan = make_plan(ctx, task, &overview, None, emitter).await?;
    let mut last_observation = overview;
    while state.steps < ctx.options.max_steps {
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
        let line = step.command.trim().to_string();
        state.steps += 1;
        let out = run_command(session, &line, emitter)?;
        match &out.effect {
            Effect::Done => {
                state.history.push(format!("{}. {line}", state.steps));
                return Ok(());
            }
            Effect::Check => {
                let verdict = check(ctx, task, state, emitter).await?;
                if verdict.sufficient {
                    state
                        .history
                        .push(format!("{}. check → sufficient", state.steps));
                    return Ok(());
                }
                state.history.push(format!(
                    "{}. check → insufficient: {}",
                    state.steps,
                    one_line(&verdict.missing, 160)
                ));
                plan = make_plan(
                    ctx,
                    task,
                    &last_observation,
                    Some(&verdict.missing),
                    emitter,
                )
                .await?;
                last_observation = Observation::note(format!(
                    "check said the evidence is not sufficient yet. Missing: {}\nNew plan made.",
                    verdict.missing
                ));
                continue;
            }
            Effect::Evidence(ev) => {
                // Only the chars read are evidence (a `cat` that stopped at the output budget
                // read a part); rerank reports that part's own source lines where they can be
                // computed exactly, else the node's ([`super::evidence::Evidence::from_read`]).
                let text = match ctx.library.document(&ev.doc_id) {
                    Ok(doc) => {
                        let full = doc.tree.text_of(ev.node);
                        full.chars()
                            .skip(ev.chars.start)
                            .take(ev.chars.len())
                            .collect::<String>()
                    }
                    Err(e) => return Err(AgentError::Workspace(e.to_string())),
                };
                let key = (ev.doc_id.clone(), ev.node.0);
                emitter.emit(AgentEvent::EvidenceCollected {
                    doc_id: ev.doc_id.clone(),
                    structure: ctx
                        .library
                        .document(&ev.doc_id)
                        .map(|d| d.tree.node(ev.node).structure.clone())
                        .unwrap_or_default(),
                    chars: ev.chars.len(),
                });
                merge_evidence(
                    state,
                    key,
                    ev.doc_id.clone(),
                    ev.node,
                    ev.chars.clone(),
                    text,
                );
                state.history.push(format!(
                    "{}. {line} → {} chars collected as evidence",
                    state.steps,
                    ev.chars.len()
                ));
            }
            Effect::None => {
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
            return Ok(());
        }
    }
    Ok(())
}

fn merge_evidence(
    state: &mut WorkerState,
    key: (String, u32),
    doc_id: String,
    node: NodeId,
    chars: Range<usize>,
    text: String,
) {
    match state.evidence.get_mut(&key) {
        Some(existing) if chars.start == existing.chars.end => {
            existing.chars.end = chars.end;
            existing.text.push_str(&text);
        }
        Some(existing) if chars.len() > existing.chars.len() => {
            *existing = CollectedEvidence {
                doc_id,
                node,
                chars,
                text,
            };
        }
        Some(_) => {}
        None => {
            state.order.push(key.clone());
            state.evidence.insert(
                key,
                CollectedEvidence {
                    doc_id,
                    node,
                    chars,
                    text,
                },
            );
        }
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
) -> Result<Plan, AgentError> {
    let messages = plan_messages(ctx, task, observation, missing);
    let kind = if missing.is_some() { "replan" } else { "plan" };
    Ok(ask_model(
        ctx.model.as_ref(),
        emitter,
        kind,
        messages,
        &plan_schema(),
        ctx.options.prompt_cap_tokens,
    )
    .await?)
}

fn structure_of(ctx: &WorkerContext, ev: &CollectedEvidence) -> String {
    ctx.library
        .document(&ev.doc_id)
        .map(|d| d.tree.node(ev.node).structure.clone())
        .unwrap_or_default()
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
        &verdict_schema(),
        ctx.options.prompt_cap_tokens,
    )
    .await?)
}
