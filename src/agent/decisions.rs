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

/// Analyze / replan → tasks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskList {
    /// Tasks, best first; may be empty after a replan.
    pub tasks: Vec<Task>,
}

/// Worker plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Up to 5 steps.
    pub plan: Vec<String>,
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

/// Check (worker) and evaluate (orchestrator) verdicts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The evidence answers the task/question.
    pub sufficient: bool,
    /// What is missing; empty when sufficient.
    #[serde(default)]
    pub missing: String,
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

/// Schema of [`TaskList`].
pub fn task_list_schema() -> ResponseSchema {
    ResponseSchema::new(
        "task_list",
        json!({"type": "object", "additionalProperties": false, "required": ["tasks"],
               "properties": {"tasks": {"type": "array", "items": {
                 "type": "object", "additionalProperties": false, "required": ["doc_id", "task"],
                 "properties": {"doc_id": {"type": "string"}, "task": {"type": "string"}}}}}}),
    )
}

/// Schema of [`Plan`].
pub fn plan_schema() -> ResponseSchema {
    ResponseSchema::new(
        "plan",
        json!({"type": "object", "additionalProperties": false, "required": ["plan"],
               "properties": {"plan": strings()}}),
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

/// Schema of [`Verdict`].
pub fn verdict_schema() -> ResponseSchema {
    ResponseSchema::new(
        "verdict",
        json!({"type": "object", "additionalProperties": false, "required": ["sufficient", "missing"],
               "properties": {"sufficient": {"type": "boolean"}, "missing": {"type": "string"}}}),
    )
}
