//! Follow-up questions: in a conversation (the shell, the web app's Ask page) a
//! question may lean on the ones before it — "and on Windows?", "what about the second option?".
//! The Orchestrator keeps a short memory ([`Conversation`]: the earlier questions and the key
//! points of their answers, bounded to [`MEMORY_TOKENS`]) and, when it is not empty, first
//! rewrites the question to stand alone ([`standalone_question`], one model call recorded as the
//! decision `standalone`); the run then proceeds with the rewritten question, which is shown to
//! the user and kept in the answer (`standalone_question`).
//!
//! The key points of an answer are docnav's own summary of it, not a model's: the sentences of a
//! written answer that verified, else the titles and first words of the best evidence, and what
//! the verdict said was missing.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::budget::clip;
use super::events::Emitter;
use super::evidence::Answer;
use super::model::ask_model;
use super::prompts::{render, untrusted};
use super::AgentError;
use crate::llm::{ChatMessage, ChatModel, ResponseSchema};

/// The system prompt of the rewrite call (`prompts/standalone.txt`).
pub const STANDALONE: &str = include_str!("../../prompts/standalone.txt");

/// The memory's bound in estimated tokens (chars / 4): the oldest turns are forgotten first.
pub const MEMORY_TOKENS: usize = 800;

/// The key points kept of one answer, in chars.
const KEY_POINTS_CHARS: usize = 600;

/// A remembered question, in chars (the server's longest question).
const MAX_TURN_QUESTION_CHARS: usize = 2_000;

/// Evidence items whose titles and first words make an answer's key points.
const KEY_EVIDENCE: usize = 3;

/// One earlier question and what its answer found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// The question as the agent searched for it (standalone when it was rewritten).
    pub question: String,
    /// [`key_points`] of its answer (document text: fenced as untrusted in the prompt).
    pub key_points: String,
}

impl Turn {
    /// The turn `answer` leaves: its question (standalone when it was rewritten) and its
    /// [`key_points`].
    pub fn of(answer: &Answer) -> Turn {
        Turn {
            question: answer
                .standalone_question
                .clone()
                .unwrap_or_else(|| answer.question.clone()),
            key_points: key_points(answer),
        }
    }

    fn chars(&self) -> usize {
        self.question.chars().count() + self.key_points.chars().count()
    }
}

/// A conversation's memory: earlier turns, oldest first, at most [`MEMORY_TOKENS`] estimated
/// tokens together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conversation {
    turns: Vec<Turn>,
}

impl Conversation {
    /// An empty memory: the next question is taken as it stands.
    pub fn new() -> Conversation {
        Conversation::default()
    }

    /// A memory of `turns` (oldest first) as a client sent them (the web app's Ask page keeps
    /// its conversation): each question clipped to 2,000 chars and each key points to 600, then
    /// the oldest forgotten until the memory fits [`MEMORY_TOKENS`].
    pub fn from_turns(turns: Vec<Turn>) -> Conversation {
        let mut memory = Conversation {
            turns: turns
                .into_iter()
                .map(|t| Turn {
                    question: clip(t.question.trim(), MAX_TURN_QUESTION_CHARS),
                    key_points: clip(t.key_points.trim(), KEY_POINTS_CHARS),
                })
                .filter(|t| !t.question.is_empty())
                .collect(),
        };
        memory.bound();
        memory
    }

    /// The turns remembered, oldest first.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    /// Forget everything (the shell's `new`).
    pub fn forget(&mut self) {
        self.turns.clear();
    }

    /// Remember `answer`'s question (its standalone form when it was rewritten) and its
    /// [`key_points`], then forget the oldest turns until the memory fits [`MEMORY_TOKENS`] (the
    /// newest turn always stays).
    pub fn remember(&mut self, answer: &Answer) {
        self.turns.push(Turn::of(answer));
        self.bound();
    }

    /// Forget the oldest turns until the memory fits [`MEMORY_TOKENS`]; the newest stays.
    fn bound(&mut self) {
        while self.turns.len() > 1
            && self.turns.iter().map(Turn::chars).sum::<usize>() > MEMORY_TOKENS * 4
        {
            self.turns.remove(0);
        }
    }
}

/// What an answer found, in at most 600 chars: the supported sentences of its written answer
/// when it has one; else the document and section titles of its best three evidence items with
/// their first words; then what the verdict said was missing. "No evidence found" when there was
/// none.
pub fn key_points(answer: &Answer) -> String {
    let mut points: Vec<String> = Vec::new();
    if let Some(written) = &answer.answer {
        points.extend(
            written
                .sentences
                .iter()
                .filter(|s| s.supported)
                .map(|s| s.text.trim().to_string()),
        );
    }
    if points.is_empty() {
        for e in answer.evidence.iter().take(KEY_EVIDENCE) {
            let mut titles = vec![e.doc_id.clone()];
            titles.extend(e.path.iter().cloned());
            let words: String = e.text.split_whitespace().collect::<Vec<_>>().join(" ");
            points.push(format!("{}: {}", titles.join(" › "), clip(&words, 120)));
        }
    }
    if points.is_empty() {
        points.push("No evidence found.".into());
    }
    if let Some(v) = answer
        .verdict
        .as_ref()
        .filter(|v| !v.missing.trim().is_empty())
    {
        points.push(format!("Missing: {}", v.missing.trim()));
    }
    clip(&points.join("\n"), KEY_POINTS_CHARS)
}

/// The rewrite call's reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandaloneQuestion {
    /// The question, standing on its own.
    pub standalone: String,
}

/// Schema of [`StandaloneQuestion`].
pub fn standalone_schema() -> ResponseSchema {
    ResponseSchema::new(
        "standalone",
        json!({"type": "object", "additionalProperties": false,
               "required": ["standalone"],
               "properties": {"standalone": {"type": "string"}}}),
    )
}

/// The user message: the remembered turns, oldest first (key points fenced as document data),
/// then the follow-up.
fn user_message(turns: &[Turn], question: &str) -> String {
    let mut out = String::from("Conversation so far, oldest first:\n");
    for (i, turn) in turns.iter().enumerate() {
        out.push_str(&format!(
            "{}. Question: {}\n   Key points of its answer:\n{}\n",
            i + 1,
            turn.question,
            untrusted("earlier answer", &turn.key_points)
        ));
    }
    out.push_str(&format!("\nFollow-up question: {question}"));
    out
}

/// Rewrite `question` to stand alone given the earlier `turns`, with one model call on
/// `model` recorded by `emitter` as the decision `standalone`. A blank rewrite keeps the
/// question as asked.
///
/// Errors: [`AgentError::Llm`] when the call fails or its reply does not parse after the repair
/// round.
pub async fn standalone_question(
    model: &dyn ChatModel,
    emitter: &Emitter,
    turns: &[Turn],
    question: &str,
    cap_tokens: usize,
) -> Result<String, AgentError> {
    let system = render(STANDALONE, &[("memory_tokens", MEMORY_TOKENS.to_string())]);
    let messages = vec![
        ChatMessage::system(system),
        ChatMessage::user(user_message(turns, question)),
    ];
    let reply: StandaloneQuestion = ask_model(
        model,
        emitter,
        "standalone",
        messages,
        &standalone_schema(),
        cap_tokens,
    )
    .await?;
    let standalone = reply.standalone.trim();
    Ok(if standalone.is_empty() {
        question.to_string()
    } else {
        standalone.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::evidence::{AnswerVerdict, Evidence};
    use crate::agent::Outcome;

    fn answer(question: &str, text: &str) -> Answer {
        Answer {
            question: question.into(),
            standalone_question: None,
            from_trace: None,
            evidence: vec![Evidence {
                doc_id: "guide".into(),
                path: vec!["Install".into(), "On Linux".into()],
                structure: "2.1".into(),
                lines: Some([10, 20]),
                pages: None,
                paragraphs: None,
                text: text.into(),
                score: 1.0,
                explain: None,
                cited_lines: Vec::new(),
            }],
            stats: Default::default(),
            worker_errors: Vec::new(),
            answer: None,
            verdict: Some(AnswerVerdict {
                verdict: Outcome::Insufficient,
                missing: "the Windows steps".into(),
                judged_by: "evaluate".into(),
            }),
        }
    }

    #[test]
    fn key_points_name_the_sections_found_and_what_is_missing() {
        let points = key_points(&answer("how do I install it?", "Run  apt install\ntool."));
        assert_eq!(
            points,
            "guide › Install › On Linux: Run apt install tool.\nMissing: the Windows steps"
        );
    }

    #[test]
    fn memory_forgets_the_oldest_turns_past_its_bound_but_keeps_the_newest() {
        let mut memory = Conversation::new();
        let long = "word ".repeat(200);
        for i in 0..40 {
            memory.remember(&answer(&format!("question {i}"), &long));
        }
        let chars: usize = memory.turns().iter().map(Turn::chars).sum();
        assert!(chars <= MEMORY_TOKENS * 4, "{chars}");
        assert_eq!(memory.turns().last().unwrap().question, "question 39");
        assert!(memory.turns().len() < 40);
        memory.forget();
        assert!(memory.is_empty());
    }
}
