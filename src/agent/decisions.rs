//! The small JSON objects the agent asks the model for, with the JSON Schemas sent as
//! `response_format` (when enabled) and stated in the prompts.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::llm::ResponseSchema;

/// Understand → query plan (DESIGN.md §6.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryPlan {
    /// `factual`, `analytical`, `navigational` or `summary`.
    pub intent: String,
    /// Short search phrases (2–6).
    pub key_concepts: Vec<String>,
    /// `focused`, `exploratory`, `comparative` or `summary`.
    pub strategy: String,
}

/// One worker task: a document and what to find in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Document id from the catalog.
    pub doc_id: String,
    /// What to find, one sentence.
    pub task: String,
}

/// Analyze → the understanding of the question and the tasks, in one reply (DESIGN.md §6.1–2:
/// understanding is folded into the analysis of the DocCards, so it costs no call of its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// `factual`, `analytical`, `navigational` or `summary` (may be left out with no tasks).
    #[serde(default)]
    pub intent: String,
    /// Short search phrases (2–6); joined into each Worker's first `find`.
    #[serde(default)]
    pub key_concepts: Vec<String>,
    /// `focused`, `exploratory`, `comparative` or `summary`.
    #[serde(default)]
    pub strategy: String,
    /// Tasks, best first; empty when no listed document can cover the question.
    pub tasks: Vec<Task>,
    /// Catalog searches asked for instead of tasks, when the shown cards do not fit the question
    /// (titles, file names, card text and sections are searched; the next prompt shows the cards
    /// found). Empty otherwise; replies without the field mean none.
    #[serde(default)]
    pub search: Vec<String>,
    /// With no tasks: what the documents do not cover (the answer's "not covered").
    #[serde(default)]
    pub reason: String,
}

impl Analysis {
    /// The understanding part.
    pub fn query_plan(&self) -> QueryPlan {
        QueryPlan {
            intent: self.intent.clone(),
            key_concepts: self.key_concepts.clone(),
            strategy: self.strategy.clone(),
        }
    }
}

/// Worker plan, with the first command (the plan and its first step in one reply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// Up to 5 steps.
    pub plan: Vec<String>,
    /// Why the first command, one sentence.
    #[serde(default)]
    pub reason: String,
    /// The first command line.
    pub command: String,
}

/// One navigation step (also the shell's `suggest`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavStep {
    /// Why, one sentence.
    #[serde(default)]
    pub reason: String,
    /// One command line.
    pub command: String,
}

/// What a judge (a Worker's `check`, the Orchestrator's evaluate) found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The evidence holds the passages that answer.
    Sufficient,
    /// Something is missing and may still be found (the `missing` text says what).
    Insufficient,
    /// The documents (a Worker's check: this document) do not cover it: searching on is useless.
    Absent,
}

impl Outcome {
    /// `sufficient`, `insufficient` or `absent`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Sufficient => "sufficient",
            Outcome::Insufficient => "insufficient",
            Outcome::Absent => "absent",
        }
    }
}

/// A Worker's `check`: does its evidence answer its task?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The judgement.
    pub verdict: Outcome,
    /// What is missing (insufficient) or not covered (absent); empty when sufficient.
    #[serde(default)]
    pub missing: String,
}

/// The Orchestrator's evaluate: is the union of the evidence sufficient for the question, and if
/// not, what do the next round's Workers look for (replan folded into the same reply)?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The judgement.
    pub verdict: Outcome,
    /// What is missing (insufficient) or not covered (absent); empty when sufficient.
    #[serde(default)]
    pub missing: String,
    /// Tasks for the next round (insufficient, when a round is left); empty otherwise.
    #[serde(default)]
    pub tasks: Vec<Task>,
}

fn strings() -> serde_json::Value {
    json!({"type": "array", "items": {"type": "string"}})
}

/// Schema of [`QueryPlan`].
pub fn query_plan_schema() -> ResponseSchema {
    ResponseSchema::new(
        "query_plan",
        json!({"type": "object", "additionalProperties": false,
               "required": ["intent", "key_concepts", "strategy"],
               "properties": {
                 "intent": {"type": "string", "enum": ["factual", "analytical", "navigational", "summary"]},
                 "key_concepts": strings(),
                 "strategy": {"type": "string", "enum": ["focused", "exploratory", "comparative", "summary"]}}}),
    )
}

fn tasks_schema() -> serde_json::Value {
    json!({"type": "array", "items": {
        "type": "object", "additionalProperties": false, "required": ["doc_id", "task"],
        "properties": {"doc_id": {"type": "string"}, "task": {"type": "string"}}}})
}

fn outcome_schema() -> serde_json::Value {
    json!({"type": "string", "enum": ["sufficient", "insufficient", "absent"]})
}

/// Schema of [`Analysis`].
pub fn analysis_schema() -> ResponseSchema {
    ResponseSchema::new(
        "analysis",
        json!({"type": "object", "additionalProperties": false,
               "required": ["tasks", "search"],
               "properties": {
                 "intent": {"type": "string", "enum": ["factual", "analytical", "navigational", "summary"]},
                 "key_concepts": strings(),
                 "strategy": {"type": "string", "enum": ["focused", "exploratory", "comparative", "summary"]},
                 "tasks": tasks_schema(),
                 "search": strings(),
                 "reason": {"type": "string"}}}),
    )
}

/// Schema of [`PlanStep`].
pub fn plan_step_schema() -> ResponseSchema {
    ResponseSchema::new(
        "plan_step",
        json!({"type": "object", "additionalProperties": false,
               "required": ["plan", "reason", "command"],
               "properties": {"plan": strings(), "reason": {"type": "string"},
                              "command": {"type": "string"}}}),
    )
}

/// Schema of [`NavStep`].
pub fn nav_step_schema() -> ResponseSchema {
    ResponseSchema::new(
        "nav_step",
        json!({"type": "object", "additionalProperties": false, "required": ["reason", "command"],
               "properties": {"reason": {"type": "string"}, "command": {"type": "string"}}}),
    )
}

/// Schema of [`Verdict`] (a Worker's `check`).
pub fn check_schema() -> ResponseSchema {
    ResponseSchema::new(
        "check",
        json!({"type": "object", "additionalProperties": false, "required": ["verdict", "missing"],
               "properties": {"verdict": outcome_schema(), "missing": {"type": "string"}}}),
    )
}

/// Schema of [`Evaluation`].
pub fn evaluation_schema() -> ResponseSchema {
    ResponseSchema::new(
        "evaluation",
        json!({"type": "object", "additionalProperties": false,
               "required": ["verdict", "missing", "tasks"],
               "properties": {"verdict": outcome_schema(), "missing": {"type": "string"},
                              "tasks": tasks_schema()}}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_have_three_outcomes_in_snake_case() {
        let v: Evaluation =
            serde_json::from_str(r#"{"verdict": "absent", "missing": "no word on Windows"}"#)
                .unwrap();
        assert_eq!(
            (v.verdict, v.missing.as_str(), v.tasks.len()),
            (Outcome::Absent, "no word on Windows", 0)
        );
        let v: Verdict = serde_json::from_str(r#"{"verdict": "insufficient"}"#).unwrap();
        assert_eq!(v.verdict.as_str(), "insufficient");
        assert!(serde_json::from_str::<Verdict>(r#"{"verdict": true}"#).is_err());
        assert!(serde_json::from_str::<Verdict>(r#"{"sufficient": true}"#).is_err());
    }
}
