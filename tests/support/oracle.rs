//! A model that always answers an agent decision correctly and briefly, by reading the request:
//! the right answer behind the fault server in the fault suite and the `faults` bench.
//!
//! Decisions are told apart by the name of the `response_format` json_schema (json_schema is on
//! by default), never by prompt wording, so prompt rewrites do not break it:
//! - `analysis` (understand and analyze in one reply; `query_plan` alone when documents are
//!   named): a factual, focused plan whose key concepts are the question's longer words, and one
//!   task for the document of the question found in the request (the first known question
//!   whose text appears), whose text carries a marker `[oracle-doc:ID]`;
//! - `plan_step` (a Worker's plan and first command) and `nav_step`: `cat /ID/1` for the
//!   document named by the marker, then `done` once that command appears in the conversation;
//! - `check` and `evaluation`: sufficient;
//! - any other schema: the smallest object its JSON Schema allows (required properties only;
//!   the first enum value, `""`, `0`, `true`, `[]`), so a new decision still gets a valid reply.

use serde_json::{json, Map, Value};

/// Questions and the document each one is about.
#[derive(Debug, Clone, Default)]
pub struct Oracle {
    /// `(question, doc_id)`, searched in order.
    pub questions: Vec<(String, String)>,
    /// Document used when no known question appears in a request.
    pub default_doc: String,
}

fn messages_text(request: &Value) -> String {
    request["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

const MARKER: &str = "[oracle-doc:";

impl Oracle {
    /// The message content of the right reply to `request` (a chat-completions body).
    pub fn answer(&self, request: &Value) -> String {
        let text = messages_text(request);
        let schema = request.pointer("/response_format/json_schema");
        let name = schema.and_then(|s| s["name"].as_str()).unwrap_or_default();
        let plan = || {
            let question = self.question_in(&text).unwrap_or_default();
            let concepts: Vec<String> = question
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().count() > 3)
                .take(4)
                .map(str::to_lowercase)
                .collect();
            json!({"intent": "factual", "key_concepts": concepts, "strategy": "focused"})
        };
        let step = || {
            let doc = marked_doc(&text).unwrap_or_else(|| self.default_doc.clone());
            let read = format!("cat /{doc}/1");
            if text.contains(&read) {
                "done".to_string()
            } else {
                read
            }
        };
        let reply = match name {
            "query_plan" => plan(),
            "analysis" => {
                let doc = self.doc_for(&text);
                let mut reply = plan();
                reply["tasks"] = json!([{"doc_id": doc, "task": format!("read the section that answers the question {MARKER}{doc}]")}]);
                reply
            }
            "plan_step" => {
                json!({"plan": ["read the first section", "stop"], "reason": "oracle", "command": step()})
            }
            "nav_step" => json!({"reason": "oracle", "command": step()}),
            "check" => json!({"verdict": "sufficient", "missing": ""}),
            "evaluation" => json!({"verdict": "sufficient", "missing": "", "tasks": []}),
            _ => schema.map_or(json!({}), |s| minimal(&s["schema"])),
        };
        reply.to_string()
    }

    fn question_in(&self, text: &str) -> Option<String> {
        self.questions
            .iter()
            .find(|(q, _)| text.contains(q.as_str()))
            .map(|(q, _)| q.clone())
    }

    fn doc_for(&self, text: &str) -> String {
        self.questions
            .iter()
            .find(|(q, _)| text.contains(q.as_str()))
            .map_or_else(|| self.default_doc.clone(), |(_, d)| d.clone())
    }
}

/// The document id in the first `[oracle-doc:ID]` marker of `text`.
fn marked_doc(text: &str) -> Option<String> {
    let from = text.find(MARKER)? + MARKER.len();
    let rest = &text[from..];
    Some(rest[..rest.find(']')?].to_string())
}

/// The smallest value `schema` allows (see the module doc).
pub fn minimal(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match schema["type"].as_str().unwrap_or("object") {
        "string" => json!(""),
        "boolean" => json!(true),
        "integer" | "number" => json!(0),
        "array" => json!([]),
        "null" => Value::Null,
        _ => {
            let mut object = Map::new();
            for name in schema["required"].as_array().into_iter().flatten() {
                if let Some(name) = name.as_str() {
                    object.insert(name.to_string(), minimal(&schema["properties"][name]));
                }
            }
            Value::Object(object)
        }
    }
}
