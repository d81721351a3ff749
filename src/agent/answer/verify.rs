//! Verification of a drafted answer against the evidence it cites: the numbers exist, and each
//! quoted span occurs verbatim in a cited item. Quoted spans are text in straight or curly double
//! quotes and backtick code spans; whitespace runs compare as one space.

use super::{AnswerSentence, DraftAnswer};
use crate::agent::evidence::Evidence;

/// The quoted spans of `sentence`: `"…"`, `“…”` and `` `…` `` (non-empty, trimmed), in order.
pub fn quoted_spans(sentence: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let chars: Vec<char> = sentence.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let close = match chars[i] {
            '"' => Some('"'),
            '“' => Some('”'),
            '`' => Some('`'),
            _ => None,
        };
        if let Some(close) = close {
            if let Some(len) = chars[i + 1..].iter().position(|&c| c == close) {
                let span: String = chars[i + 1..i + 1 + len].iter().collect();
                let span = span.trim();
                if !span.is_empty() {
                    spans.push(span.to_string());
                }
                i += len + 2;
                continue;
            }
        }
        i += 1;
    }
    spans
}

/// `text` with every whitespace run as one space.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Verify each sentence of `draft` against `evidence` (ranked; citation `n` is `evidence[n-1]`).
/// A sentence is unsupported when it cites nothing, cites a number with no item, or quotes a span
/// that none of the items it cites contains verbatim; `problem` says which (the first problem).
pub fn verify(draft: &DraftAnswer, evidence: &[Evidence]) -> Vec<AnswerSentence> {
    let texts: Vec<String> = evidence.iter().map(|e| squeeze(&e.text)).collect();
    draft
        .sentences
        .iter()
        .map(|s| {
            let problem = sentence_problem(&s.text, &s.citations, &texts);
            AnswerSentence {
                text: s.text.clone(),
                citations: s.citations.clone(),
                supported: problem.is_none(),
                problem,
            }
        })
        .collect()
}

fn sentence_problem(text: &str, citations: &[u32], evidence: &[String]) -> Option<String> {
    if citations.is_empty() {
        return Some("it cites no evidence".into());
    }
    if let Some(bad) = citations
        .iter()
        .find(|&&n| n == 0 || n as usize > evidence.len())
    {
        return Some(format!(
            "it cites [{bad}], and there are {} evidence items",
            evidence.len()
        ));
    }
    for span in quoted_spans(text) {
        let needle = squeeze(&span);
        let found = citations
            .iter()
            .any(|&n| evidence[n as usize - 1].contains(&needle));
        if !found {
            let cited: String = citations.iter().map(|n| format!("[{n}]")).collect();
            return Some(format!(
                "it quotes \"{needle}\", which {cited} does not contain"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::answer::DraftSentence;

    fn evidence(texts: &[&str]) -> Vec<Evidence> {
        texts
            .iter()
            .map(|t| Evidence {
                doc_id: "d".into(),
                path: vec!["Title".into()],
                structure: "1".into(),
                lines: Some([1, 2]),
                pages: None,
                paragraphs: None,
                text: (*t).into(),
                score: 1.0,
                explain: None,
                cited_lines: Vec::new(),
            })
            .collect()
    }

    fn draft(sentences: &[(&str, &[u32])]) -> DraftAnswer {
        DraftAnswer {
            sentences: sentences
                .iter()
                .map(|(t, c)| DraftSentence {
                    text: (*t).into(),
                    citations: c.to_vec(),
                })
                .collect(),
        }
    }

    #[test]
    fn spans_are_straight_curly_and_backtick_quotes() {
        assert_eq!(
            quoted_spans(r#"Use `-z` or "search  zip" and “this”; an odd " stays"#),
            vec!["-z", "search  zip", "this"]
        );
        assert!(quoted_spans("no quotes here").is_empty());
    }

    #[test]
    fn a_sentence_holds_when_its_quotes_are_in_what_it_cites() {
        let ev = evidence(&[
            "The `-z/--search-zip`\nflag searches   compressed files.",
            "Other.",
        ]);
        let v = verify(
            &draft(&[
                (
                    "Pass `-z/--search-zip` to search \"compressed files\".",
                    &[1],
                ),
                ("Quoted from the wrong item: `--search-zip`.", &[2]),
                ("Cites past the end.", &[1, 7]),
                ("Cites nothing.", &[]),
                ("Whitespace differs: \"flag searches compressed\".", &[2, 1]),
            ]),
            &ev,
        );
        assert_eq!(
            v.iter().map(|s| s.supported).collect::<Vec<_>>(),
            [true, false, false, false, true]
        );
        assert_eq!(
            v[1].problem.as_deref(),
            Some("it quotes \"--search-zip\", which [2] does not contain")
        );
        assert_eq!(
            v[2].problem.as_deref(),
            Some("it cites [7], and there are 2 evidence items")
        );
        assert_eq!(v[3].problem.as_deref(), Some("it cites no evidence"));
    }
}
