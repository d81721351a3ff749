//! `docnav eval`: run a navigator over a question set and score what it returns.
//!
//! A question set is JSON Lines, one question per line:
//! `{"doc": "<path or doc_id, optional>", "question": "...", "gold_path": ["Title", "Sub"],
//! "answer": "<exact phrase from the text>"}`. Blank lines and lines starting with `//` are
//! skipped. A bad line (invalid JSON, missing or empty field) becomes a [`QaLineError`] and the
//! rest of the set still runs.
//!
//! Scoring ([`run::run_eval`]): an evidence item is a *section hit* when it is the gold section or
//! one of its descendants (same document); an *answer hit* when the whitespace-normalised answer
//! phrase occurs in its text. hit@k counts a hit among the first k items; MRR averages 1/rank of
//! the first section hit (0 when none). A gold path that does not exist (or is ambiguous, or whose
//! section does not contain the answer) is a data error, reported and not scored.

pub mod agent_navigator;
pub mod gold;
pub mod report;
pub mod run;

use serde::Deserialize;

pub use gold::{library_from_qa, normalize_heading, normalize_space, DocResolver, GoldIndex};
pub use report::{render_table, write_folder};
pub use run::{
    run_eval, EvalReport, LexicalNavigator, Navigation, Navigator, NavigatorError, QuestionResult,
    Status, Summary,
};

/// One question of a set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QaItem {
    /// 1-based line in the question file.
    pub line: usize,
    /// Document the question is about (doc id or path); `None` searches every document.
    pub doc: Option<String>,
    /// The question, as a user would ask it.
    pub question: String,
    /// Titles from the first level below the document root down to the gold section (empty: the
    /// root itself).
    pub gold_path: Vec<String>,
    /// A phrase that occurs verbatim (up to whitespace) in the gold section's text.
    pub answer: String,
}

/// Why a line of a question set or one question could not be scored. Messages name the bad
/// value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    /// The line is not a JSON object of the expected shape (includes missing fields).
    #[error("invalid question: {0}")]
    Invalid(String),
    /// A required text field is empty or only whitespace.
    #[error("field `{0}` is empty")]
    EmptyField(&'static str),
    /// `doc` names neither a document id nor the source file of a document.
    #[error(
        "unknown document `{0}` (not a doc id of the library nor the path of an indexed file)"
    )]
    UnknownDocument(String),
    /// `doc` names a file that could not be read or parsed.
    #[error("document `{doc}` could not be indexed: {reason}")]
    DocumentFailed {
        /// The `doc` value.
        doc: String,
        /// Why it failed.
        reason: String,
    },
    /// No section has this title path.
    #[error("gold path `{path}` does not exist in {scope}")]
    GoldNotFound {
        /// The path joined with ` › `.
        path: String,
        /// `document `x`` or `any document`.
        scope: String,
    },
    /// Several sections have this title path.
    #[error("gold path `{path}` matches {count} sections (hint: add `doc` or a longer path)")]
    GoldAmbiguous {
        /// The path joined with ` › `.
        path: String,
        /// How many sections match.
        count: usize,
    },
    /// The answer phrase is not in the gold section's text.
    #[error("answer `{answer}` does not occur in the gold section `{path}`")]
    AnswerNotInGold {
        /// The answer phrase.
        answer: String,
        /// The gold path joined with ` › `.
        path: String,
    },
    /// Loading a document failed.
    #[error("{0}")]
    Library(String),
}

/// A line that could not be read as a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QaLineError {
    /// 1-based line in the question file.
    pub line: usize,
    /// What is wrong with it.
    pub error: DataError,
}

/// A parsed question set: the good questions and the bad lines, each in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QaSet {
    /// Questions that parsed.
    pub items: Vec<QaItem>,
    /// Lines that did not.
    pub errors: Vec<QaLineError>,
}

#[derive(Deserialize)]
struct RawQa {
    #[serde(default)]
    doc: Option<String>,
    question: String,
    gold_path: Vec<String>,
    answer: String,
}

/// Parse a JSON Lines question set (see the module docs). Never fails: each bad line becomes a
/// [`QaLineError`] with its 1-based line number. An empty or whitespace `doc` counts as absent.
pub fn parse_qa(text: &str) -> QaSet {
    let mut set = QaSet::default();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        match parse_line(trimmed, line_no) {
            Ok(item) => set.items.push(item),
            Err(error) => set.errors.push(QaLineError {
                line: line_no,
                error,
            }),
        }
    }
    set
}

fn parse_line(line: &str, line_no: usize) -> Result<QaItem, DataError> {
    let raw: RawQa = serde_json::from_str(line).map_err(|e| DataError::Invalid(e.to_string()))?;
    if raw.question.trim().is_empty() {
        return Err(DataError::EmptyField("question"));
    }
    if raw.answer.trim().is_empty() {
        return Err(DataError::EmptyField("answer"));
    }
    if raw.gold_path.iter().any(|t| t.trim().is_empty()) {
        return Err(DataError::EmptyField("gold_path"));
    }
    Ok(QaItem {
        line: line_no,
        doc: raw.doc.filter(|d| !d.trim().is_empty()),
        question: raw.question,
        gold_path: raw.gold_path,
        answer: raw.answer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn bad_lines_get_their_own_error_and_the_rest_parses() {
        let text = concat!(
            "{\"doc\": \"notes.txt\", \"question\": \"where is the index?\", \"gold_path\": [\"Getting started\"], \"answer\": \"workspace\"}\n",
            "\n",
            "{not json\n",
            "{\"question\": \"q\", \"gold_path\": [\"A\"]}\n",
            "{\"question\": \"  \", \"gold_path\": [\"A\"], \"answer\": \"x\"}\n",
            "{\"question\": \"q\", \"gold_path\": \"A\", \"answer\": \"x\"}\n",
            "// a comment\n",
            "{\"doc\": \"\", \"question\": \"q2\", \"gold_path\": [], \"answer\": \"x\"}\n",
        );
        let set = parse_qa(text);
        assert_eq!(
            set.items,
            vec![
                QaItem {
                    line: 1,
                    doc: Some("notes.txt".into()),
                    question: "where is the index?".into(),
                    gold_path: vec!["Getting started".into()],
                    answer: "workspace".into(),
                },
                QaItem {
                    line: 8,
                    doc: None,
                    question: "q2".into(),
                    gold_path: vec![],
                    answer: "x".into(),
                },
            ]
        );
        let lines: Vec<usize> = set.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 6]);
        assert!(matches!(set.errors[0].error, DataError::Invalid(_)));
        assert!(
            set.errors[1]
                .error
                .to_string()
                .contains("missing field `answer`"),
            "{}",
            set.errors[1].error
        );
        assert_eq!(set.errors[2].error, DataError::EmptyField("question"));
        assert!(set.errors[3].error.to_string().contains("invalid type"));
    }
}
