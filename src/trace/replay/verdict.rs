//! How a replay ended, judged once for every face: `docnav replay` prints it, the web app's
//! Replay button shows it. [`version_refusal`] and [`missing_refusal`] say why a trace cannot be
//! re-run at all; [`judge`]
//! reads a [`ReplayOutcome`]; [`notes`] are what to say before the verdict.

use serde::Serialize;

use super::{check_documents, DocumentCheck, ReplayOutcome};
use crate::agent::events::ORCHESTRATOR;
use crate::agent::AgentEvent;
use crate::trace::{Trace, REPLAY_FORMAT_VERSION};
use crate::workspace::Library;

/// The end of a replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ReplayVerdict {
    /// Every event was reproduced and the run answered.
    Identical {
        /// Events of the re-run.
        events: usize,
        /// Model replies answered from the trace.
        model_replies: u32,
        /// Evidence items of the answer.
        evidence: usize,
    },
    /// The trace was cut (a crash, Ctrl-C); every event up to the cut was reproduced.
    IdenticalToCut {
        /// Events of the re-run.
        events: usize,
        /// How the re-run stopped at the cut.
        error: String,
    },
    /// The recorded run failed and the replay failed the same way, every event reproduced.
    FailedTheSameWay {
        /// Events of the re-run.
        events: usize,
        /// The run's error.
        error: String,
    },
    /// The first event that differs.
    Diverged {
        /// The recording's `orchestrator` or worker id.
        actor: String,
        /// The actor's event number.
        seq: u64,
        /// The worker's step (0: before its first step).
        step: usize,
        /// The recorded event, summarised.
        expected: String,
        /// What happened instead, summarised.
        actual: String,
        /// The short diff of the two (lines).
        diff: Vec<String>,
        /// The whole report as `docnav replay` prints it.
        message: String,
    },
    /// The replay failed otherwise.
    Failed {
        /// The error.
        error: String,
    },
}

impl ReplayVerdict {
    /// Whether `docnav replay` exits 0 for it.
    pub fn is_success(&self) -> bool {
        matches!(
            self,
            ReplayVerdict::Identical { .. }
                | ReplayVerdict::IdenticalToCut { .. }
                | ReplayVerdict::FailedTheSameWay { .. }
        )
    }
}

/// Why a trace cannot be re-run: one line, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What is wrong.
    pub error: String,
    /// What to do.
    pub hint: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (hint: {})", self.error, self.hint)
    }
}

/// Why `trace` (named `label`) cannot be re-run by this build: it was recorded in an older format,
/// with other prompts and decisions. `None` when it can.
pub fn version_refusal(trace: &Trace, label: &str) -> Option<Refusal> {
    (trace.header.format_version < REPLAY_FORMAT_VERSION).then(|| Refusal {
        error: format!(
            "`{label}` is a trace of format version {}, recorded by an older docnav whose \
             prompts and decisions differ: it cannot be re-run",
            trace.header.format_version
        ),
        hint: format!(
            "`docnav replay --show {label}` shows it; record the question again to replay it"
        ),
    })
}

/// Why `trace` (named `label`) cannot be re-run against `library`: it names documents the
/// library does not hold. `None` when it holds them all.
pub fn missing_refusal(trace: &Trace, label: &str, library: &dyn Library) -> Option<Refusal> {
    let missing = check_documents(&trace.header, library)
        .iter()
        .filter(|c| matches!(c, DocumentCheck::Missing { .. }))
        .count();
    (missing > 0).then(|| Refusal {
        error: format!(
            "cannot replay `{label}`: {missing} of its {} document(s) not in this workspace",
            trace.header.document_count()
        ),
        hint: "index them (`docnav index <files>`), or replay in the workspace it was recorded \
               in"
        .to_string(),
    })
}

/// What to say before the verdict: documents changed since the recording, a cut last line,
/// actors whose recording stops with a model call in flight.
pub fn notes(trace: &Trace, library: &dyn Library, outcome: Option<&ReplayOutcome>) -> Vec<String> {
    let mut notes: Vec<String> = check_documents(&trace.header, library)
        .iter()
        .map(ToString::to_string)
        .collect();
    if let Some(line) = trace.truncated_at_line {
        notes.push(format!(
            "the trace ends at line {line} (last line cut); replayed up to there"
        ));
    }
    for actor in outcome.map(|o| o.in_flight.as_slice()).unwrap_or_default() {
        notes.push(format!(
            "the recording of {actor} stops with a model call in flight (the run was \
             interrupted); replayed up to there"
        ));
    }
    notes
}

/// The verdict of `outcome`, the replay of `trace`.
pub fn judge(trace: &Trace, outcome: &ReplayOutcome) -> ReplayVerdict {
    let cut = trace.truncated_at_line.is_some() || !outcome.in_flight.is_empty();
    if let Some(d) = &outcome.divergence {
        return ReplayVerdict::Diverged {
            actor: d.actor.clone(),
            seq: d.seq,
            step: d.step,
            expected: d.expected.clone(),
            actual: d.actual.clone(),
            diff: d.diff.clone(),
            message: d.to_string(),
        };
    }
    let events = outcome.events.len();
    match &outcome.run {
        Ok(run) => ReplayVerdict::Identical {
            events,
            model_replies: run.answer.stats.llm_calls,
            evidence: run.answer.evidence.len(),
        },
        Err(e) if cut => ReplayVerdict::IdenticalToCut {
            events,
            error: e.clone(),
        },
        // Every recorded event was reproduced, up to the orchestrator's own error: the recorded
        // run failed the same way (e.g. a model call that failed is answered with its failure).
        Err(e) if recorded_run_failed(trace) => ReplayVerdict::FailedTheSameWay {
            events,
            error: e.clone(),
        },
        Err(e) => ReplayVerdict::Failed { error: e.clone() },
    }
}

/// Whether the recorded run itself failed: the orchestrator's last event is an error.
fn recorded_run_failed(trace: &Trace) -> bool {
    trace
        .events
        .iter()
        .filter(|e| e.actor == ORCHESTRATOR)
        .max_by_key(|e| e.seq)
        .is_some_and(|e| matches!(e.event, AgentEvent::Error { .. }))
}
