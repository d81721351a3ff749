//! `ask --answer` (issue 23): after the rerank, one more model call writes a concise answer in
//! which every sentence cites evidence items by number, and docnav then **verifies** it
//! ([`verify`]): every cited number exists, and every quoted or backticked span occurs verbatim in
//! the evidence the sentence cites. A sentence whose citation does not hold is kept and marked
//! unsupported, with the reason — never silently kept, never silently dropped. When the verdict is
//! insufficient or absent the answer ends with what is missing (docnav's own line, from the
//! verdict). Without any evidence no call is made: the answer is only what is missing.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::budget::clip;
use super::decisions::Outcome;
use super::events::Emitter;
use super::evidence::{AnswerVerdict, Evidence};
use super::prompts::{render, room_chars, untrusted};
use super::worker::ask_model;
use super::AgentError;
use crate::llm::{ChatMessage, ChatModel, ResponseSchema};

pub use super::grounded::{AnswerSentence, GroundedAnswer};

#[path = "answer_verify.rs"]
mod verify_spans;
pub use verify_spans::{quoted_spans, verify};

/// The system prompt of the answer call (`prompts/answer.txt`).
pub const ANSWER: &str = include_str!("../../prompts/answer.txt");

/// Cap of the answer call's prompt, in estimated tokens (chars / 4): the evidence is clipped to
/// fit. Issue 23 asks `--answer` to cost at most 3,000 prompt tokens on the typical question.
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

/// The user message: the question and the evidence, numbered, each clipped so the whole prompt
/// stays under [`ANSWER_PROMPT_TOKENS`] (an equal share of the room per item; a short item's
/// unused share goes to the others).
fn user_message(question: &str, evidence: &[Evidence], room: usize) -> String {
    let mut out = format!("Question: {question}\n\nEvidence:\n");
    let mut left = room;
    for (i, e) in evidence.iter().enumerate() {
        // The titles are document text: fenced with it.
        let location = e.location();
        let header = if location.is_empty() {
            format!("[{}]\n", i + 1)
        } else {
            format!("[{}] {location}\n", i + 1)
        };
        let mut titles = vec![e.doc_id.clone()];
        titles.extend(e.path.iter().cloned());
        let title_line = titles.join(" › ");
        let share = left / (evidence.len() - i);
        let text_room =
            share.saturating_sub(header.chars().count() + title_line.chars().count() + 80);
        let text = format!("{title_line}\n{}", clip(&e.text, text_room));
        let item = format!("{header}{}\n", untrusted(&e.doc_id, &text));
        left = left.saturating_sub(item.chars().count());
        out.push_str(&item);
    }
    out
}

/// Write and verify the answer to `question` from the ranked `evidence` under `verdict`, with one
/// model call (none when there is no evidence). The model's draft is recorded as the decision
/// `answer`, the verified answer as the decision `answer_verified` (replay checks both).
///
/// Errors: [`AgentError::Llm`] when the call fails or its reply does not parse after the repair
/// round.
pub async fn compose(
    model: &dyn ChatModel,
    emitter: &Emitter,
    question: &str,
    evidence: &[Evidence],
    verdict: &AnswerVerdict,
) -> Result<GroundedAnswer, AgentError> {
    let draft = if evidence.is_empty() {
        DraftAnswer {
            sentences: Vec::new(),
        }
    } else {
        let system = render(
            ANSWER,
            &[
                ("verdict_rule", verdict_rule(verdict)),
                ("answer_cap", ANSWER_PROMPT_TOKENS.to_string()),
            ],
        );
        let head = format!("Question: {question}\n\nEvidence:\n");
        let room = room_chars(ANSWER_PROMPT_TOKENS, &[&system, &head]);
        let messages = vec![
            ChatMessage::system(system),
            ChatMessage::user(user_message(question, evidence, room)),
        ];
        ask_model(
            model,
            emitter,
            "answer",
            messages,
            &draft_answer_schema(),
            ANSWER_PROMPT_TOKENS,
        )
        .await?
    };
    let answer = GroundedAnswer::new(verify(&draft, evidence), verdict.verdict, &verdict.missing);
    emitter.decision("answer_verified", &answer);
    Ok(answer)
}
