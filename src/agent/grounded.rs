//! The written answer of `ask --answer` as data: its sentences, each verified against
//! the evidence it cites, and what is missing. [`super::answer`] writes and verifies it; the
//! answer of a run ([`super::evidence::Answer`]) carries it.

use serde::{Deserialize, Serialize};

use super::decisions::Outcome;

/// A verified sentence of the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerSentence {
    /// The sentence as the model wrote it.
    pub text: String,
    /// Evidence numbers it cites (1-based ranks of the answer's evidence).
    pub citations: Vec<u32>,
    /// Whether every citation holds: each number names an evidence item, and each quoted or
    /// backticked span occurs verbatim in an item it cites.
    pub supported: bool,
    /// Why it is unsupported (absent when supported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// The grounded answer: its text (sentences with their `[n]` citations, unsupported ones marked,
/// then what is missing), the verified sentences, and what is missing when the verdict is not
/// sufficient.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroundedAnswer {
    /// The answer as people read it.
    pub text: String,
    /// Every sentence, verified.
    pub sentences: Vec<AnswerSentence>,
    /// What the evidence lacks (the verdict's `missing`) when it is insufficient or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

impl GroundedAnswer {
    /// The answer of verified `sentences` under the final verdict (`outcome`, and what is
    /// `missing`): the text joins the sentences, each followed by its citations (`… [1][2]`),
    /// an unsupported one by `[unsupported: why]`, and ends with `Missing: …` when the verdict
    /// is not sufficient.
    pub fn new(sentences: Vec<AnswerSentence>, outcome: Outcome, missing: &str) -> GroundedAnswer {
        let missing = (outcome != Outcome::Sufficient).then(|| {
            let m = missing.trim();
            if m.is_empty() {
                format!("the evidence was judged {}", outcome.as_str())
            } else {
                m.to_string()
            }
        });
        let mut parts: Vec<String> = sentences
            .iter()
            .map(|s| {
                let cites: String = s.citations.iter().map(|n| format!("[{n}]")).collect();
                let mut line = format!("{} {cites}", s.text.trim());
                if let Some(problem) = &s.problem {
                    line.push_str(&format!(" [unsupported: {problem}]"));
                }
                line
            })
            .collect();
        if let Some(m) = &missing {
            parts.push(format!("Missing: {m}"));
        }
        GroundedAnswer {
            text: parts.join("\n"),
            sentences,
            missing,
        }
    }
}
