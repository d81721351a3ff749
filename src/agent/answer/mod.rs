//! `ask --answer`: after the rerank, one more model call writes a concise answer in
//! which every sentence cites evidence items by number, and docnav then **verifies** it
//! ([`verify`]): every cited number exists, and every quoted or backticked span occurs verbatim in
//! the evidence the sentence cites. A sentence whose citation does not hold is kept and marked
//! unsupported, with the reason — never silently kept, never silently dropped. When the verdict is
//! insufficient or absent the answer ends with what is missing (docnav's own line, from the
//! verdict). Without any evidence no call is made: the answer is only what is missing.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::budget::estimate_prompt_tokens;
use super::decisions::Outcome;
use super::events::Emitter;
use super::evidence::{AnswerVerdict, Evidence};
use super::model::ask_model;
use super::prompt_evidence::{heading_path, render_items, PromptItem};
use super::prompts::{render, room_chars};
use super::AgentError;
use crate::llm::{ChatMessage, ChatModel, ResponseSchema};
use crate::tree::NodeId;
use crate::workspace::Library;

pub use super::grounded::{AnswerSentence, GroundedAnswer};

mod verify;
pub use verify::{quoted_spans, verify};

/// The system prompt of the answer call (`prompts/answer.txt`).
pub const ANSWER: &str = include_str!("../../../prompts/answer.txt");

/// Cap of the answer call's prompt, in estimated tokens (chars / 4), for evidence that fits in
/// it: `--answer` costs at most 3,000 prompt tokens on the typical question. More evidence
/// raises the cap up to the run's prompt cap ([`answer_cap`]) rather than losing what the
/// verdict rested on.
pub const ANSWER_PROMPT_TOKENS: usize = 3_000;

/// One sentence as the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DraftSentence {
    /// The sentence.
    pub text: String,
    /// Evidence numbers it cites (1-based, as listed in the prompt).
    #[serde(default)]
    pub citations: Vec<u32>,
}

/// The model's reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DraftAnswer {
    /// The answer, one sentence per entry.
    #[serde(default)]
    pub sentences: Vec<DraftSentence>,
}

/// Schema of [`DraftAnswer`].
pub fn draft_answer_schema() -> ResponseSchema {
    ResponseSchema::new(
        "answer",
        json!({"type": "object", "additionalProperties": false,
               "required": ["sentences"],
               "properties": {"sentences": {"type": "array", "items": {
                   "type": "object", "additionalProperties": false,
                   "required": ["text", "citations"],
                   "properties": {"text": {"type": "string"},
                                  "citations": {"type": "array", "items": {"type": "integer"}}}}}}}),
    )
}

/// The verdict rule of the prompt.
fn verdict_rule(verdict: &AnswerVerdict) -> String {
    match verdict.verdict {
        Outcome::Sufficient => "The evidence was judged sufficient: answer the question.".into(),
        Outcome::Insufficient | Outcome::Absent => format!(
            "The evidence was judged {}: missing: {}. Say only what the passages do establish \
             and claim nothing about what is missing (docnav adds the missing part itself).",
            verdict.verdict.as_str(),
            verdict.missing.trim()
        ),
    }
}

/// The evidence as [`render_items`] shows it (to evaluate too): numbered, each item's location,
/// its heading path, its text shortened to share `room` chars, none left out.
fn evidence_items(
    library: &dyn Library,
    evidence: &[Evidence],
    room: usize,
    terms: &[String],
) -> String {
    let items: Vec<PromptItem> = evidence
        .iter()
        .map(|e| {
            let node = library
                .document(&e.doc_id)
                .ok()
                .and_then(|d| d.tree.by_structure(&e.structure))
                .unwrap_or(NodeId::ROOT);
            PromptItem {
                header: e.location(),
                source: e.doc_id.clone(),
                heading: heading_path(library, &e.doc_id, node),
                text: e.text.clone(),
                cited: e.cited_lines.clone(),
            }
        })
        .collect();
    render_items(&items, room, terms)
}

/// The prompt cap of the answer call for evidence whose unshortened prompt would take `needed`
/// estimated tokens: [`ANSWER_PROMPT_TOKENS`] for the typical question, more as the evidence
/// grows, at most `prompt_cap` (the cap of every prompt of the run, evaluate's included, so
/// the answer can see all that the verdict saw).
pub fn answer_cap(needed: usize, prompt_cap: usize) -> usize {
    needed.max(ANSWER_PROMPT_TOKENS).min(prompt_cap)
}

/// Write and verify the answer to `question` from the ranked `evidence` under `verdict`, with one
/// model call (none when there is no evidence). The prompt's cap grows with the evidence up to
/// `prompt_cap` estimated tokens ([`answer_cap`]); an item that does not fit is shortened to
/// the lines a Worker cited and those holding `terms` (the question's and key concepts', see
/// [`crate::agent::prompt_evidence`]), never left out. The model's draft is recorded as the
/// decision `answer`, the verified answer as the decision `answer_verified` (replay checks both).
///
/// Errors: [`AgentError::Llm`] when the call fails or its reply does not parse after the repair
/// round.
#[allow(clippy::too_many_arguments)]
pub async fn compose(
    model: &dyn ChatModel,
    emitter: &Emitter,
    library: &dyn Library,
    (question, terms): (&str, &[String]),
    evidence: &[Evidence],
    verdict: &AnswerVerdict,
    prompt_cap: usize,
) -> Result<GroundedAnswer, AgentError> {
    let draft = if evidence.is_empty() {
        DraftAnswer {
            sentences: Vec::new(),
        }
    } else {
        let system_for = |cap: usize| {
            render(
                ANSWER,
                &[
                    ("verdict_rule", verdict_rule(verdict)),
                    ("answer_cap", cap.to_string()),
                ],
            )
        };
        let head = format!("Question: {question}\n\nEvidence:\n");
        // Tokens of the prompt with every item whole (the system prompt at its longest).
        let whole = evidence_items(library, evidence, usize::MAX, terms);
        let needed = estimate_prompt_tokens(&[
            ChatMessage::system(system_for(prompt_cap)),
            ChatMessage::user(format!("{head}{whole}")),
        ]) + 32;
        let cap = answer_cap(needed, prompt_cap);
        let system = system_for(cap);
        let room = room_chars(cap, &[&system, &head]);
        let messages = vec![
            ChatMessage::system(system),
            ChatMessage::user(format!(
                "{head}{}",
                evidence_items(library, evidence, room, terms)
            )),
        ];
        ask_model(
            model,
            emitter,
            "answer",
            messages,
            &draft_answer_schema(),
            cap,
        )
        .await?
    };
    let answer = GroundedAnswer::new(verify(&draft, evidence), verdict.verdict, &verdict.missing);
    emitter.decision("answer_verified", &answer);
    Ok(answer)
}
