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
//! - `check`: sufficient;
//! - `evaluation`: what a careful judge says — sufficient when some task collected an excerpt
//!   and none failed; when a task failed (`→ FAILED:` in the request) and a round is left,
//!   insufficient with that document's task again (issue 11.2: a failed task may run again);
//!   insufficient with no tasks when nothing was collected and no round is left;
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

/// The conversation's text, without any reply the next message rejects as unparseable (a repair
/// round): a garbled reply is not something the model did, so it must not count as a command
/// already run (a cut-off `{"command":"cat /doc/1",…` would otherwise read as done).
fn messages_text(request: &Value) -> String {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let rejected = |i: usize| {
        messages.get(i + 1).is_some_and(|next| {
            next["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("Your previous reply could not be parsed"))
        })
    };
    messages
        .iter()
        .enumerate()
        .filter(|&(i, m)| !(m["role"] == "assistant" && rejected(i)))
        .filter_map(|(_, m)| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
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
            "evaluation" => self.evaluation(&text),
            _ => schema.map_or(json!({}), |s| minimal(&s["schema"])),
        };
        reply.to_string()
    }

    fn evaluation(&self, text: &str) -> Value {
        let failed = text.contains("→ FAILED:");
        // Task lines end "→ …; N excerpt(s)".
        let collected = text.lines().any(|l| {
            l.strip_suffix(" excerpt(s)")
                .and_then(|l| l.rsplit(' ').next())
                .and_then(|n| n.parse::<usize>().ok())
                .is_some_and(|n| n > 0)
        });
        if failed && !text.contains("No round is left") {
            let doc = marked_doc(text).unwrap_or_else(|| self.doc_for(text));
            let task = format!("read the section that answers the question {MARKER}{doc}]");
            return json!({"verdict": "insufficient", "missing": "the failed task's section",
                "tasks": [{"doc_id": doc, "task": task}]});
        }
        if collected {
            return json!({"verdict": "sufficient", "missing": "", "tasks": []});
        }
        json!({"verdict": "insufficient", "missing": "nothing was collected", "tasks": []})
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
