//! Replay (DESIGN.md §7): re-run the real pipeline with a model that answers each actor's requests
//! from that actor's recorded responses, in order, then compare what happened with the recording.
//!
//! [`recorded_calls`] is the pure part (trace → model calls per actor, each a request and its
//! response, failure, or nothing when the recording stopped mid-call), table-tested. The
//! comparison covers commands, observations (by sha256), evidence, decisions, model requests (by
//! sha256) and model failures; times and usage are ignored. The first difference is reported with
//! its actor, step, both sides and a short diff ([`super::diff`]).

mod library;
mod model;
pub mod verdict;

use std::sync::Arc;

pub use crate::agent::events::MemorySink;
pub use library::{check_documents, trace_library, DocumentCheck};
pub use model::{
    in_flight_actors, recorded_calls, CallOutcome, RecordedCall, ReplayModel, ReplayRouter,
};

use super::diff::short_diff;
use super::Trace;
use crate::agent::{AgentError, AgentEvent, AgentOptions, AgentRun, EventRecord};
use crate::workspace::Library;

/// Where a replay first differed from its recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// `orchestrator` or a worker id.
    pub actor: String,
    /// The actor's event sequence number.
    pub seq: u64,
    /// The worker's step as the transcript numbers it (commands after its first plan, the
    /// diverging one included when it is a command's output); 0 = before its first step.
    pub step: usize,
    /// The recorded event, summarised.
    pub expected: String,
    /// What happened instead, summarised.
    pub actual: String,
    /// The short diff of the two events' content (see [`short_diff`]): lines to print under
    /// `expected`/`actual`; empty when the summaries say it all (commands, one side ended…).
    pub diff: Vec<String>,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = if self.step == 0 {
            "before its first step (overview or plan)".to_string()
        } else {
            format!("at step {}", self.step)
        };
        write!(
            f,
            "replay diverged in {} {place} (event {}):\n  expected: {}\n  actual:   {}",
            self.actor, self.seq, self.expected, self.actual
        )?;
        for line in &self.diff {
            write!(f, "\n{line}")?;
        }
        Ok(())
    }
}

/// What a replay produced.
#[derive(Debug)]
pub struct ReplayOutcome {
    /// The re-run's result (`Err` when the orchestrator itself failed, e.g. on divergence).
    pub run: Result<AgentRun, String>,
    /// The first difference from the recording, if any.
    pub divergence: Option<Divergence>,
    /// Events of the re-run.
    pub events: Vec<EventRecord>,
    /// Actors whose recording ends with a model call in flight ([`in_flight_actors`]): the
    /// recording was interrupted there, so the replay is compared only up to it.
    pub in_flight: Vec<String>,
}

/// A comparable key of an event: what must be identical between recording and replay.
pub fn comparable(event: &AgentEvent) -> Option<String> {
    match event {
        AgentEvent::ModelRequest { sha256, .. } => Some(format!("model request sha256 {sha256}")),
        AgentEvent::ModelResponse { text, .. } => Some(format!("model response {}", short(text))),
        AgentEvent::ModelError { message, .. } => Some(format!("model call failed: {message}")),
        AgentEvent::Command { line } => Some(format!("command `{line}`")),
        AgentEvent::Observation {
            sha256,
            chars,
            text,
            ..
        } => Some(format!(
            "observation of {chars} chars, sha256 {} ({})",
            &sha256[..sha256.len().min(12)],
            short(text)
        )),
        AgentEvent::EvidenceCollected {
            doc_id,
            structure,
            chars,
        } => Some(format!("evidence {doc_id} #{structure} ({chars} chars)")),
        AgentEvent::Decision { kind, value } => Some(format!("{kind} decision {value}")),
        AgentEvent::WorkerStarted { doc_id, task, .. } => {
            Some(format!("worker on {doc_id}: {task}"))
        }
        AgentEvent::WorkerFinished {
            steps,
            evidence,
            error,
        } => Some(format!(
            "worker finished: {steps} steps, {evidence} evidence{}",
            error
                .as_ref()
                .map(|e| format!(", error: {e}"))
                .unwrap_or_default()
        )),
        AgentEvent::Error { message } => Some(format!("error: {message}")),
    }
}

fn short(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut s: String = first.chars().take(80).collect();
    if first.chars().count() > 80 || text.lines().count() > 1 {
        s.push('…');
    }
    format!("{s:?}")
}

/// First difference between recorded and replayed events, compared per actor in sequence order.
/// The one reported is the cause, not a consequence: the orchestrator's, when it differs before
/// or at its first decision (analyze, or understand — nothing a Worker did can change those);
/// else the first Worker's, visiting workers by round and index (their evidence and outcomes feed
/// the orchestrator's later prompts, so a Worker that diverged makes evaluate diverge too); else
/// the orchestrator's later one.
/// With `recording_cut`, an actor whose recording simply ends (the trace was truncated, or the
/// recording stopped with a call in flight) is not a divergence: replay goes on past the cut.
pub fn first_divergence(
    recorded: &[EventRecord],
    replayed: &[EventRecord],
    recording_cut: bool,
) -> Option<Divergence> {
    let mut actors: Vec<&str> = Vec::new();
    for r in recorded.iter().chain(replayed) {
        if !actors.contains(&r.actor.as_str()) {
            actors.push(&r.actor);
        }
    }
    actors.sort_by_key(|a| crate::agent::events::actor_order_key(a));
    let by_actor = |events: &[EventRecord], actor: &str| -> Vec<EventRecord> {
        let mut v: Vec<EventRecord> = events
            .iter()
            .filter(|e| e.actor == actor)
            .cloned()
            .collect();
        v.sort_by_key(|e| e.seq);
        v
    };
    let mut orchestrator_later = None;
    for actor in actors {
        let a = by_actor(recorded, actor);
        let b = by_actor(replayed, actor);
        let Some(d) = actor_divergence(actor, &a, &b, recording_cut) else {
            continue;
        };
        if actor != crate::agent::events::ORCHESTRATOR {
            return Some(d);
        }
        let first_decision = a
            .iter()
            .position(|e| matches!(e.event, AgentEvent::Decision { .. }))
            .unwrap_or(usize::MAX);
        if d.seq as usize <= first_decision {
            return Some(d);
        }
        orchestrator_later = Some(d);
    }
    orchestrator_later
}

/// The first difference between one actor's recorded events `a` and replayed events `b`.
fn actor_divergence(
    actor: &str,
    a: &[EventRecord],
    b: &[EventRecord],
    recording_cut: bool,
) -> Option<Divergence> {
    let mut step = 0;
    let mut planned = false;
    for i in 0..a.len().max(b.len()) {
        let ea = a.get(i).and_then(|e| comparable(&e.event));
        let eb = b.get(i).and_then(|e| comparable(&e.event));
        if ea.is_none() && recording_cut {
            break;
        }
        if ea != eb {
            // A diverging command is the next step itself.
            let is_command = matches!(a.get(i).map(|e| &e.event), Some(AgentEvent::Command { .. }));
            return Some(Divergence {
                actor: actor.to_string(),
                seq: i as u64,
                step: step + usize::from(planned && is_command),
                expected: ea.unwrap_or_else(|| "(the recording ends here)".into()),
                actual: eb.unwrap_or_else(|| "(the replay ends here)".into()),
                diff: short_diff(a.get(i).map(|e| &e.event), b.get(i).map(|e| &e.event)),
            });
        }
        // Steps as the transcript numbers them: a worker's commands after its first plan;
        // the orchestrator has none.
        match a.get(i).map(|e| &e.event) {
            Some(AgentEvent::Decision { kind, .. }) if kind == "plan" => planned = true,
            Some(AgentEvent::Command { .. }) if planned => step += 1,
            _ => {}
        }
    }
    None
}

/// Replay `trace` against the documents of `library` that its header names ([`trace_library`]:
/// other documents of the workspace are not seen) with the recorded options; never calls a real
/// model. Check the documents first with [`check_documents`]: a missing one makes the run fail,
/// a changed one diverge.
pub async fn replay(trace: &Trace, library: Arc<dyn Library>) -> ReplayOutcome {
    // A catalog recorded by its digest is the whole workspace (checked by `check_documents`).
    let library: Arc<dyn Library> = if trace.header.catalog.is_some() {
        library
    } else {
        Arc::new(trace_library(&trace.header, library))
    };
    replay_placed(
        trace,
        library,
        &crate::agent::orchestrator::Placement::local(),
    )
    .await
}

/// [`replay`] with the Workers run and the catalog ranked where `placement` says (a catalog
/// split into shards: each Worker replayed in its document's shard with
/// [`ReplayModel::for_actor`]); `library` is the catalog as the run sees it, used as it
/// is (not narrowed to the header's documents). Never calls a real model.
pub async fn replay_placed(
    trace: &Trace,
    library: Arc<dyn Library>,
    placement: &crate::agent::orchestrator::Placement,
) -> ReplayOutcome {
    let options: AgentOptions =
        serde_json::from_value(trace.header.options.clone()).unwrap_or_default();
    let sink = Arc::new(MemorySink::default());
    let router = Arc::new(ReplayRouter::new(trace));
    let run = crate::agent::ask_placed(
        library,
        router,
        sink.clone(),
        &options,
        &trace.header.memory,
        &trace.header.question,
        placement,
    )
    .await
    .map_err(|e: AgentError| e.to_string());
    let events = sink.events();
    let in_flight = in_flight_actors(&trace.events);
    let cut = trace.truncated_at_line.is_some() || !in_flight.is_empty();
    let divergence = first_divergence(&trace.events, &events, cut);
    ReplayOutcome {
        run,
        divergence,
        events,
        in_flight,
    }
}
