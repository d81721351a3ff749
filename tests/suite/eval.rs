//! `docnav ask --lexical`, `docnav eval` and the committed question set `fixtures/qa.jsonl`.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::{fixture, index_notes_and_faq, run};
use docnav::eval::{library_from_qa, parse_qa, DocResolver, GoldIndex};
use docnav::tree::BuildOptions;
use docnav::workspace::Library;

fn qa_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/qa.jsonl")
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

/// Needs the real Markdown, text and PDF parsers: every gold path of the committed set names
/// exactly one section, and that section contains the answer phrase.
#[test]
fn fixture_qa_gold_paths_exist_exactly_once_and_contain_the_answer() {
    let text = std::fs::read_to_string(qa_path()).unwrap();
    let qa = parse_qa(&text);
    assert_eq!(qa.errors, Vec::new());
    assert!(qa.items.len() >= 30, "{} questions", qa.items.len());
    let base = qa_path().parent().unwrap().to_path_buf();
    let (lib, failures) = library_from_qa(&qa.items, &base, &BuildOptions::default());
    assert_eq!(failures, Vec::new());
    let resolver = DocResolver::new(&lib, &base);
    let mut gold = GoldIndex::new();
    let mut problems = Vec::new();
    for item in &qa.items {
        let scope = match &item.doc {
            Some(doc) => vec![resolver.resolve(doc).unwrap()],
            None => lib.all_cards().iter().map(|c| c.doc_id.clone()).collect(),
        };
        if let Err(e) = gold.find(&lib, &scope, &item.gold_path, &item.answer) {
            problems.push(format!("line {}: {e}", item.line));
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}

fn notes_qa(dir: &Path, extra: &str) -> PathBuf {
    let notes = fixture("notes.txt");
    let notes = notes.to_str().unwrap();
    let good = |q: &str, gold: &[&str], answer: &str| {
        serde_json::json!({"doc": notes, "question": q, "gold_path": gold, "answer": answer})
            .to_string()
    };
    let text = [
        good(
            "how do I keep several indexes apart?",
            &["1 Getting started", "1.1 Choosing a workspace"],
            "DOCNAV_WORKSPACE",
        ),
        extra.to_string(),
        good(
            "what if a PDF has no text?",
            &["3 Troubleshooting"],
            "Re-run OCR",
        ),
    ]
    .join("\n");
    let path = dir.join("qa.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn eval_json_summary_has_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let qa = notes_qa(dir.path(), "");
    let out = dir.path().join("out");
    let r = run(
        &dir.path().join("no-ws"),
        &[
            "eval",
            qa.to_str().unwrap(),
            "--lexical",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(keys(&v), vec!["questions", "summary"]);
    let s = &v["summary"];
    for field in [
        "n",
        "section_hit_at_1",
        "section_hit_at_3",
        "section_hit_at_5",
        "answer_hit_at_1",
        "answer_hit_at_3",
        "answer_hit_at_5",
        "mrr",
        "data_errors",
        "median_ms",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
    ] {
        assert!(s.get(field).is_some(), "missing {field} in {s}");
    }
    assert_eq!(s["n"], 2);
    assert_eq!(s["data_errors"], 0);
    assert_eq!(s["llm_calls"], 0);
    assert_eq!(s["section_hit_at_1"], 1.0);
    assert_eq!(s["answer_hit_at_1"], 1.0);
    let q = &v["questions"][0];
    assert_eq!(q["line"], 1);
    assert_eq!(q["status"], "ok");
    assert_eq!(q["section_rank"], 1);
    assert_eq!(q["doc_id"], "notes");
    // --out writes the report (the lexical navigator has no traces).
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(written["summary"], v["summary"]);
}

#[test]
fn bad_qa_lines_get_a_per_line_error_and_the_rest_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    for (bad, message) in [
        ("{\"question\": \"oops\"", "invalid question"),
        (
            "{\"question\": \"q\", \"gold_path\": [\"A\"]}",
            "missing field `answer`",
        ),
        (
            "{\"doc\": \"nowhere.md\", \"question\": \"q\", \"gold_path\": [\"A\"], \"answer\": \"x\"}",
            "unknown document `nowhere.md`",
        ),
    ] {
        let qa = notes_qa(dir.path(), bad);
        let r = run(
            &dir.path().join("no-ws"),
            &["eval", qa.to_str().unwrap(), "--lexical"],
        );
        assert_eq!(r.code, 1, "{bad}: {}", r.stderr);
        let prefix = format!("error: {}:2: ", qa.display());
        let line = r
            .stderr
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("{bad}: {}", r.stderr));
        assert!(line.contains(message), "{line}");
        assert!(
            r.stdout.contains("2 questions scored, 1 data errors"),
            "{}",
            r.stdout
        );
        assert!(r.stdout.contains("section hit@1 1.000"), "{}", r.stdout);
    }
}

#[test]
fn ask_lexical_json_has_the_agent_shape() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    index_notes_and_faq(&ws);
    let r = run(
        &ws,
        &[
            "ask",
            "--lexical",
            "--json",
            "-k",
            "3",
            "how do I search compressed files",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        keys(&v),
        vec!["evidence", "question", "stats", "worker_errors"]
    );
    assert_eq!(v["question"], "how do I search compressed files");
    let evidence = v["evidence"].as_array().unwrap();
    assert!(!evidence.is_empty() && evidence.len() <= 3);
    assert_eq!(
        keys(&evidence[0]),
        vec![
            "doc_id",
            "explain",
            "lines",
            "pages",
            "path",
            "score",
            "structure",
            "text"
        ]
    );
    assert_eq!(
        keys(&evidence[0]["explain"]),
        vec!["average_length", "length", "terms", "units"]
    );
    assert_eq!(
        keys(&evidence[0]["explain"]["terms"][0]),
        vec!["contribution", "df", "idf", "term", "tf"]
    );
    assert_eq!(evidence[0]["doc_id"], "ripgrep-faq");
    assert_eq!(
        evidence[0]["path"],
        serde_json::json!(["FAQ", "How do I search compressed files?"])
    );
    assert_eq!(evidence[0]["pages"], Value::Null);
    assert!(evidence[0]["text"]
        .as_str()
        .unwrap()
        .contains("--search-zip"));
    assert_eq!(
        keys(&v["stats"]),
        vec![
            "completion_tokens",
            "llm_calls",
            "prompt_tokens",
            "rounds",
            "wall_ms",
            "workers"
        ]
    );
    assert_eq!(v["stats"]["llm_calls"], 0);

    // The text form: one header per evidence item, then the stats line.
    let r = run(&ws, &["ask", "--lexical", "--doc", "notes", "OCR"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("[1] notes › 3 Troubleshooting  §3  lines 26–29  score "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Re-run OCR"));
    assert!(r.stdout.trim_end().ends_with(" ms"), "{}", r.stdout);
    assert!(!r.stdout.contains("bm25 over"), "{}", r.stdout);

    // --explain: the terms of each score under its header, before the rule.
    let r = run(
        &ws,
        &["ask", "--lexical", "--explain", "--doc", "notes", "OCR"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].starts_with("[1] notes › 3 Troubleshooting"),
        "{}",
        r.stdout
    );
    assert!(
        lines[1].starts_with("  bm25 over 6 texts: "),
        "{}",
        r.stdout
    );
    assert!(
        lines[2].starts_with("  \"ocr\" tf 1 · df 1 · idf "),
        "{}",
        r.stdout
    );
    assert!(lines[3].starts_with('─'), "{}", r.stdout);
}

#[test]
fn without_lexical_there_is_no_silent_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(dir.path(), &["ask", "anything"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no model configured"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    let qa = notes_qa(dir.path(), "");
    let r = run(dir.path(), &["eval", qa.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--lexical"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
}
