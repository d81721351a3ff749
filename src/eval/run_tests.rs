use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;
use crate::agent::evidence::AskStats;
use crate::eval::{library_from_qa, parse_qa, DocResolver};
use crate::tree::BuildOptions;

fn base() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

const SET: &str = concat!(
    r#"{"doc": "docs/notes.txt", "question": "how do I keep several indexes apart?", "gold_path": ["1 Getting started", "1.1 Choosing a workspace"], "answer": "set DOCNAV_WORKSPACE"}"#,
    "\n",
    r#"{"doc": "docs/notes.txt", "question": "what if my PDF has no text?", "gold_path": ["3 Troubleshooting"], "answer": "Re-run OCR"}"#,
    "\n",
    r#"{"doc": "docs/notes.txt", "question": "q", "gold_path": ["No such section"], "answer": "x"}"#,
    "\n",
    r#"{"doc": "docs/missing.md", "question": "q", "gold_path": ["A"], "answer": "x"}"#,
    "\n",
    "not json\n",
    r#"{"doc": "docs/notes.txt", "question": "q", "gold_path": ["2 Navigating"], "answer": "not in this section"}"#,
    "\n",
);

#[test]
fn lexical_eval_scores_hits_and_reports_data_errors_per_line() {
    let qa = parse_qa(SET);
    let (lib, warnings) = library_from_qa(&qa.items, &base(), &BuildOptions::default());
    assert!(warnings.is_empty(), "{warnings:?}");
    let nav = LexicalNavigator {
        library: &lib,
        k: 5,
    };
    let report = run_eval(&lib, &DocResolver::new(&lib, &base()), &qa, &nav);
    let statuses: Vec<(usize, Status)> = report
        .questions
        .iter()
        .map(|q| (q.line, q.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            (1, Status::Ok),
            (2, Status::Ok),
            (3, Status::DataError),
            (4, Status::DataError),
            (5, Status::DataError),
            (6, Status::DataError),
        ]
    );
    let errors: Vec<String> = report.questions[2..]
        .iter()
        .map(|q| q.error.clone().unwrap())
        .collect();
    assert_eq!(
        errors[0],
        "gold path `No such section` does not exist in document `notes`"
    );
    assert!(errors[1].starts_with("unknown document `docs/missing.md`"));
    assert!(errors[2].starts_with("invalid question"));
    assert!(errors[3].starts_with("answer `not in this section` does not occur"));
    for q in &report.questions[..2] {
        assert_eq!(
            q.section_rank,
            Some(1),
            "{}: {:?}",
            q.question,
            q.evidence_paths
        );
        assert_eq!(q.answer_rank, Some(1));
        assert_eq!(q.doc_id.as_deref(), Some("notes"));
        assert!(q.evidence_chars > 0);
    }
    let s = &report.summary;
    assert_eq!((s.n, s.data_errors, s.nav_errors), (2, 4, 0));
    assert_eq!(
        (s.section_hit_at_1, s.answer_hit_at_5, s.mrr),
        (1.0, 1.0, 1.0)
    );
    assert_eq!(s.llm_calls, 0);
}

#[test]
fn closures_are_navigators_and_their_failures_are_misses() {
    let qa = parse_qa(SET);
    let (lib, _) = library_from_qa(&qa.items, &base(), &BuildOptions::default());
    // A navigator that returns the root for the first question and fails on the second.
    let nav = |item: &QaItem, scope: Option<&[String]>| -> Result<Navigation, NavigatorError> {
        if item.line == 2 {
            return Err("model unreachable".into());
        }
        let id = scope.unwrap()[0].clone();
        let doc = lib.document(&id)?;
        let root = crate::agent::evidence::Evidence::from_node(
            &id,
            &doc.tree,
            crate::tree::NodeId::ROOT,
            1.0,
        )
        .unwrap();
        Ok(Navigation {
            answer: Answer {
                question: item.question.clone(),
                standalone_question: None,
                from_trace: None,
                evidence: vec![root],
                stats: AskStats {
                    llm_calls: 3,
                    prompt_tokens: 100,
                    completion_tokens: 10,
                    ..AskStats::default()
                },
                answer: None,
                verdict: None,
                worker_errors: Vec::new(),
            },
            trace: Some("{}\n".into()),
        })
    };
    let report = run_eval(&lib, &DocResolver::new(&lib, &base()), &qa, &nav);
    let q1 = &report.questions[0];
    // The root is not inside the gold section, but its text contains the answer.
    assert_eq!((q1.section_rank, q1.answer_rank), (None, Some(1)));
    assert_eq!(q1.trace.as_deref(), Some("{}\n"));
    let q2 = &report.questions[1];
    assert_eq!(q2.status, Status::NavError);
    assert_eq!(q2.error.as_deref(), Some("model unreachable"));
    let s = &report.summary;
    assert_eq!(
        (s.n, s.nav_errors, s.llm_calls, s.prompt_tokens),
        (2, 1, 3, 100)
    );
    assert_eq!((s.section_hit_at_5, s.answer_hit_at_1), (0.0, 0.5));
}
