use super::*;
use crate::parse::parse_bytes;
use crate::tree::{build_tree, BuildOptions, DocFormat};
use pretty_assertions::assert_eq;

fn fixture_tree(name: &str, options: &BuildOptions) -> (Tree, Vec<String>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docs")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    let source = String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::to_string)
        .collect();
    (
        build_tree(parse_bytes(&path, &bytes, true).unwrap(), options),
        source,
    )
}

fn notes_tree() -> Tree {
    fixture_tree("notes.txt", &BuildOptions::default()).0
}

fn explain() -> ScoreExplain {
    ScoreExplain {
        units: 4,
        length: 12.0,
        average_length: 20.5,
        terms: vec![TermContribution {
            term: "b".into(),
            tf: 2.0,
            df: 1,
            idf: 1.5,
            contribution: 1.5,
        }],
    }
}

#[test]
fn json_shape_matches_the_documented_fields() {
    let mut answer = Answer {
        question: "q".into(),
        standalone_question: None,
        from_trace: None,
        evidence: vec![Evidence {
            doc_id: "notes".into(),
            path: vec!["A".into(), "B".into()],
            structure: "1.2".into(),
            lines: Some([3, 9]),
            pages: None,
            paragraphs: None,
            text: "# B\n".into(),
            score: 1.5,
            explain: Some(explain()),
            cited_lines: Vec::new(),
        }],
        stats: AskStats::default(),
        answer: None,
        verdict: None,
        worker_errors: vec![],
    };
    let v = serde_json::to_value(&answer).unwrap();
    let stats = serde_json::json!({"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
        "wall_ms": 0, "rounds": 0, "workers": []});
    assert_eq!(
        v,
        serde_json::json!({
            "question": "q",
            "evidence": [{"doc_id": "notes", "path": ["A", "B"], "structure": "1.2",
                "lines": [3, 9], "pages": null, "text": "# B\n", "score": 1.5,
                "explain": {"units": 4, "length": 12.0, "average_length": 20.5,
                    "terms": [{"term": "b", "tf": 2.0, "df": 1, "idf": 1.5,
                        "contribution": 1.5}]}}],
            "stats": stats,
            "worker_errors": []
        })
    );
    let back: Answer = serde_json::from_value(v).unwrap();
    assert_eq!(back, answer);

    // The agent's answer ends with its verdict and the Workers that failed.
    let mut judged = answer.clone();
    judged.verdict = Some(AnswerVerdict {
        verdict: crate::agent::Outcome::Insufficient,
        missing: "the Windows default".into(),
        judged_by: "evaluate".into(),
    });
    judged.worker_errors = vec![WorkerFailure {
        worker: "r1-w2-faq".into(),
        doc_id: "faq".into(),
        task: "find x".into(),
        error: "model reply is not a valid decision".into(),
    }];
    let v = serde_json::to_value(&judged).unwrap();
    assert_eq!(
        (&v["verdict"], &v["worker_errors"]),
        (
            &serde_json::json!({"verdict": "insufficient", "missing": "the Windows default",
                "judged_by": "evaluate"}),
            &serde_json::json!([{"worker": "r1-w2-faq", "doc_id": "faq", "task": "find x",
                "error": "model reply is not a valid decision"}])
        )
    );
    assert_eq!(serde_json::from_value::<Answer>(v).unwrap(), judged);
    let text = render_text(&judged);
    assert!(
        text.ends_with(
            "worker r1-w2-faq on faq failed: model reply is not a valid decision\n\
             verdict: insufficient — missing: the Windows default (judged by evaluate)\n"
        ),
        "{text}"
    );

    // Without an explanation the documented fields are exactly what is printed, and JSON
    // written before `explain` existed still reads.
    answer.evidence[0].explain = None;
    let v = serde_json::to_value(&answer).unwrap();
    assert_eq!(
        v["evidence"][0],
        serde_json::json!({"doc_id": "notes", "path": ["A", "B"], "structure": "1.2",
            "lines": [3, 9], "pages": null, "text": "# B\n", "score": 1.5})
    );
    assert_eq!(serde_json::from_value::<Answer>(v).unwrap(), answer);
}

#[test]
fn from_node_is_verbatim_text_of_with_inclusive_location() {
    let tree = notes_tree();
    let last = NodeId(u32::try_from(tree.len() - 1).unwrap());
    let e = Evidence::from_node("notes", &tree, last, 2.0).unwrap();
    assert_eq!(e.text, tree.text_of(last));
    assert_eq!(e.path, tree.title_path(last));
    let lines = tree.node(last).lines.clone().unwrap();
    assert_eq!(e.lines, Some([lines.start, lines.end - 1]));
    assert_eq!(e.explain, None);
    assert_eq!(Evidence::from_node("notes", &tree, NodeId(9999), 1.0), None);
}

fn answer_with(e: Evidence) -> Answer {
    Answer {
        question: "how to install".into(),
        standalone_question: None,
        from_trace: None,
        evidence: vec![e],
        stats: AskStats {
            wall_ms: 7,
            ..AskStats::default()
        },
        answer: None,
        verdict: None,
        worker_errors: vec![],
    }
}

#[test]
fn text_rendering_has_header_rule_text_and_stats() {
    let e = Evidence {
        doc_id: "guide".into(),
        path: vec!["Install".into(), "Linux".into()],
        structure: "2.1".into(),
        lines: None,
        pages: Some([4, 4]),
        paragraphs: None,
        text: "# Linux\n\napt install x\n".into(),
        score: 3.25,
        explain: Some(explain()),
        cited_lines: Vec::new(),
    };
    let header = "[1] guide › Install › Linux  §2.1  page 4  score 3.250";
    let rule = "─".repeat(header.chars().count());
    let body = "# Linux\n\napt install x\n\n1 evidence · 0 model calls · 0 prompt + 0 completion tokens · 7 ms\n";
    let answer = answer_with(e);
    // The explanation is shown only when asked for.
    assert_eq!(render_text(&answer), format!("{header}\n{rule}\n{body}"));
    assert_eq!(
        render_text_with(&answer, true),
        format!("{header}\n  bm25 over 4 texts: this one 12 terms long, mean 20.5\n  \"b\" tf 2 · df 1 · idf 1.500 → 1.500\n{rule}\n{body}")
    );
    assert_eq!(
        render(&answer, AnswerFormat::TextExplained).unwrap(),
        render_text_with(&answer, true)
    );
    assert!(render(&answer, AnswerFormat::Json)
        .unwrap()
        .contains("\"contribution\": 1.5"));
}

/// The char offset just after the `n`-th occurrence of `needle` in `text`.
fn after(text: &str, needle: &str) -> usize {
    let byte = text.find(needle).unwrap() + needle.len();
    text[..byte].chars().count()
}

#[test]
fn a_part_read_reports_the_source_lines_of_that_part() {
    let tree = notes_tree();
    let getting_started = tree.by_structure("1").unwrap();
    let text = tree.text_of(getting_started);
    let total = text.chars().count();
    // Source: `1 Getting started` on line 6, its paragraph on 8–9, `1.1 …` on 11, text 13–14.
    // The section's own lines stop at 1.1; its evidence (with the subtree) runs to line 15.
    assert_eq!(tree.node(getting_started).lines, Some(6..11));
    let whole = Evidence::from_node("notes", &tree, getting_started, 1.0).unwrap();
    assert_eq!(whole.lines, Some([6, 15]));
    let first_page = after(&text, "current directory.\n\n");
    assert_eq!(
        part_lines(&tree, getting_started, &(0..first_page)),
        Some(6..10)
    );
    assert_eq!(
        part_lines(&tree, getting_started, &(first_page..total)),
        Some(11..16)
    );
    let second_line = after(&text, "workspace\n");
    assert_eq!(
        part_lines(&tree, getting_started, &(second_line..first_page)),
        Some(9..10)
    );
    assert_eq!(part_lines(&tree, getting_started, &(0..total)), Some(6..16));
    assert_eq!(part_lines(&tree, getting_started, &(5..5)), None);
    assert_eq!(part_lines(&tree, getting_started, &(0..total + 1)), None);

    // Evidence built from that part: the part's text and lines; the whole read keeps the node's.
    let part: String = text.chars().take(first_page).collect();
    let e = Evidence::from_read(
        "notes",
        &tree,
        getting_started,
        &(0..first_page),
        part.clone(),
        1.0,
    )
    .unwrap();
    assert_eq!((e.text.as_str(), e.lines), (part.as_str(), Some([6, 9])));
    let e = Evidence::from_read(
        "notes",
        &tree,
        getting_started,
        &(0..total),
        text.clone(),
        1.0,
    )
    .unwrap();
    assert_eq!(e.lines, Some([6, 15]));
}

/// Every part boundary of every section of the Markdown/text fixtures (also with large leaves
/// split into `Part N`): when lines are reported, the part's last non-blank line is the last
/// reported source line (verbatim for content, a heading line for a heading), and its first is
/// the first; when they are not, the caller keeps the node's range. Most parts are placed.
#[test]
fn part_lines_match_the_source_or_give_up() {
    let (mut placed, mut gave_up) = (0, 0);
    for name in [
        "notes.txt",
        "nodejs-doc__fs.md",
        "ripgrep__FAQ.md",
        "multilingual.md",
    ] {
        for max_leaf_tokens in [4000, 150] {
            let options = BuildOptions {
                max_leaf_tokens,
                ..BuildOptions::default()
            };
            let (tree, source) = fixture_tree(name, &options);
            assert!(matches!(tree.format, DocFormat::Markdown | DocFormat::Text));
            for n in 0..tree.len() {
                let id = NodeId(u32::try_from(n).unwrap());
                let text = tree.text_of(id);
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                let ends: Vec<usize> = lines
                    .iter()
                    .scan(0, |acc, l| {
                        *acc += l.chars().count();
                        Some(*acc)
                    })
                    .collect();
                // About a dozen cuts per section keeps this fast on large documents.
                for i in (0..lines.len()).step_by(lines.len() / 12 + 1) {
                    let cut = ends[i];
                    for part in [0..cut, cut..text.chars().count()] {
                        let shown: Vec<&str> = if part.start == 0 {
                            lines[..=i].to_vec()
                        } else {
                            lines[i + 1..].to_vec()
                        };
                        let nonblank: Vec<&str> = shown
                            .iter()
                            .copied()
                            .filter(|l| !l.trim().is_empty())
                            .collect();
                        let Some(r) = part_lines(&tree, id, &part) else {
                            if !nonblank.is_empty() {
                                gave_up += 1;
                            }
                            continue;
                        };
                        placed += 1;
                        let src = |line: u32| source[(line - 1) as usize].trim_end();
                        let matches = |rendered: &str, line: u32| {
                            let rendered = rendered.trim_end();
                            if rendered.starts_with('#') && !src(line).starts_with(rendered) {
                                !src(line).trim().is_empty()
                            } else {
                                src(line) == rendered
                            }
                        };
                        let last = nonblank.last().unwrap();
                        if part.end < text.chars().count() {
                            assert!(
                                matches(last, r.end - 1),
                                "{name} #{}: {last:?} vs line {}: {:?}",
                                tree.node(id).structure,
                                r.end - 1,
                                src(r.end - 1)
                            );
                        }
                        if part.start > 0 {
                            let first = nonblank[0];
                            assert!(
                                matches(first, r.start),
                                "{name} #{}: {first:?} vs line {}: {:?}",
                                tree.node(id).structure,
                                r.start,
                                src(r.start)
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(placed > 10 * gave_up, "placed {placed}, gave up {gave_up}");
}
