//! Every list the model reads means what it says, and the answer sees what the verdict saw: section
//! hits in score order in every face, counts of what is shown out of how many, root evidence
//! named by its document's title, evidence under its heading path, grep lines around their
//! match, attribute lists out of titles, and the answer prompt shortening items — never dropping
//! one — with a budget that grows with the evidence. Real documents through the real binary, or
//! the agent against the fake model on 127.0.0.1.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use docnav::agent::answer::ANSWER_PROMPT_TOKENS;
use docnav::agent::search::search_sections;
use docnav::agent::AgentOptions;
use docnav::tree::BuildOptions;
use docnav::workspace::{InMemoryLibrary, Library};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::agent::{analysis, command, evaluation, plan, requests_containing, run, EVALUATE_TAG};
use super::common::run as docnav_run;
use crate::support::fake_model::{FakeModel, Reply};

/// Text only the answer prompt holds.
const ANSWER_TAG: &str = "You write the answer to a question from numbered evidence";

/// Write `files` (`name`, text) into `dir`; their paths.
fn write(dir: &Path, files: &[(&str, &str)]) -> Vec<PathBuf> {
    files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect()
}

fn library_of(paths: &[PathBuf]) -> Arc<dyn Library> {
    Arc::new(InMemoryLibrary::from_paths(paths, &BuildOptions::default()).unwrap())
}

/// `docnav index` of `paths` into `ws`, which must succeed.
fn index(ws: &Path, paths: &[PathBuf]) {
    let mut args = vec!["index".to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = docnav_run(ws, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// `docnav exec LINE` in `ws`: its stdout, trimmed at the end.
fn exec(ws: &Path, line: &str) -> String {
    let r = docnav_run(ws, &["exec", line]);
    assert_eq!(r.code, 0, "{line}: {}", r.stderr);
    r.stdout.trim_end().to_string()
}

/// A parent section whose subsection scores at least half as much (so it takes the parent's
/// slot) but less than another document's section.
const KIWI_A: &str =
    "# A\n\n## Kiwi\n\nkiwi kiwi kiwi kiwi kiwi kiwi\n\n### Note\n\nkiwi kiwi papaya mango guava lime\n";
const KIWI_B: &str = "# B\n\n## Fruit\n\nkiwi kiwi lemon\n";

/// Regression: the analyze prompt's "Best sections across the workspace (BM25 …, best first)"
/// read 22.7, 17.7, 19.4; `ask --lexical` and `search` (MCP, HTTP, Python) showed the same
/// reorder. A subsection that replaces its parent takes its place in score order.
#[tokio::test]
async fn section_hits_are_in_score_order_in_every_face() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(dir.path(), &[("a.md", KIWI_A), ("b.md", KIWI_B)]);
    let ws = dir.path().join("ws");
    index(&ws, &paths);
    // `find` ranks sections without dedup: the parent, the other document, the subsection.
    let found: Vec<String> = exec(&ws, "find kiwi")
        .lines()
        .map(|l| l.split("  ").next().unwrap().to_string())
        .collect();
    assert_eq!(found, ["/a/1", "/b/1", "/a/1/1"]);
    // `ask --lexical`: the subsection replaced its parent, and the list is best first.
    let r = docnav_run(&ws, &["ask", "--lexical", "--json", "-k", "2", "kiwi"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let answer: Value = serde_json::from_str(&r.stdout).unwrap();
    let shown: Vec<(String, f64)> = answer["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"]
                    .as_array()
                    .unwrap()
                    .last()
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string(),
                e["score"].as_f64().unwrap(),
            )
        })
        .collect();
    let titles: Vec<&str> = shown.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(titles, ["Fruit", "Note"]);
    assert!(shown[0].1 > shown[1].1, "{shown:?}");
    // The search behind MCP's, the HTTP API's and Python's `search`.
    let lib = library_of(&paths);
    let results = search_sections(lib.as_ref(), "kiwi", None, 2, 1_000).unwrap();
    let hits: Vec<(&str, &str)> = results
        .results
        .iter()
        .map(|h| (h.path.as_str(), h.titles.last().unwrap().as_str()))
        .collect();
    assert_eq!(hits, [("/b/#1", "Fruit"), ("/a/#1.1", "Note")]);
    assert!(results.results[0].score > results.results[1].score);
    // The analyze prompt's section hits (one round; the Worker ends at once).
    let fake = FakeModel::start(vec![
        analysis(&["kiwi"], &[("b", "find the kiwi")]),
        plan("b", &["done"], "done"),
        evaluation("insufficient", "no kiwi read", &[]),
    ])
    .await;
    let options = AgentOptions {
        rounds: 1,
        ..AgentOptions::default()
    };
    run(&fake, lib, options, "kiwi").await.unwrap();
    fake.verify().unwrap();
    let [prompt] = requests_containing(&fake, "Best sections across the workspace")
        .try_into()
        .unwrap();
    let block = prompt
        .split("<document-data source=\"section hits\">\n")
        .nth(1)
        .and_then(|rest| rest.split("</document-data>").next())
        .unwrap();
    let scores: Vec<f64> = block
        .lines()
        .map(|l| {
            l.rsplit('(')
                .next()
                .unwrap()
                .trim_end_matches(')')
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(scores.len(), 2, "{prompt}");
    assert!(scores[0] >= scores[1], "{scores:?}\n{prompt}");
}

/// Regression: "49 document(s) found that no Worker searched yet" over 15 cards. The next
/// round's documents say how many of the workspace are listed.
#[tokio::test]
async fn the_next_rounds_documents_say_how_many_of_how_many() {
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<(String, String)> = (0..17)
        .map(|i| {
            (
                format!("d{i:02}.md"),
                format!("# Doc {i}\n\n## Part\n\nkiwi {i} text of document {i}\n"),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let lib = library_of(&write(dir.path(), &files));
    let fake = FakeModel::start(vec![
        analysis(&["kiwi"], &[("d00", "find the kiwi")]),
        plan("d00", &["cat 1"], "cat 1"),
        command("d00", "done"),
        evaluation("insufficient", "more kiwi", &[]),
    ])
    .await;
    run(&fake, lib, AgentOptions::default(), "Where is the kiwi?")
        .await
        .unwrap();
    fake.verify().unwrap();
    let [prompt] = requests_containing(&fake, EVALUATE_TAG).try_into().unwrap();
    assert!(
        prompt.contains(
            "Documents for the next round's tasks (15 of the 17 documents, best first for the \
             question; one line each):\n"
        ),
        "{prompt}"
    );
    assert_eq!(prompt.matches("\n- `d").count(), 15, "{prompt}");
}

/// Regression: evidence from a document's own text, outside every section, was named
/// `evidence # now holds chars …`, an empty section number. It is named by the document's
/// title, to the Worker and to evaluate.
#[tokio::test]
async fn root_evidence_is_named_by_its_documents_title() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(
        dir.path(),
        &[(
            "guide.md",
            "# Field Guide\n\nText of the guide outside every section.\n\n## One\n\nFirst part.\n",
        )],
    );
    let fake = FakeModel::start(vec![
        analysis(&["guide"], &[("guide", "read the guide")]),
        plan("guide", &["cat /guide"], "cat /guide"),
        command("guide", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    run(
        &fake,
        library_of(&paths),
        AgentOptions::default(),
        "What does the guide say?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    let [step] = requests_containing(&fake, "now holds").try_into().unwrap();
    assert!(
        step.contains(
            "cat /guide → 77 chars collected; evidence the document \"Field Guide\" now holds \
             chars 0–77 of 77 (77 chars)"
        ),
        "{step}"
    );
    assert!(
        step.contains("Evidence collected:\n  the document \"Field Guide\": chars 0–77"),
        "{step}"
    );
    let [judge] = requests_containing(&fake, EVALUATE_TAG).try_into().unwrap();
    assert!(
        judge.contains(
            "[1]\n<document-data source=\"guide 'Field Guide' chars 0–77\">\n\
             guide › Field Guide\n# Field Guide\n\nText of the guide"
        ),
        "{judge}"
    );
}

const CHANGELOG: &str = "# Changelog\n\n\
## [2.32.0] - 2025-06-01\n\n### Added\n\n\
- add [`enforce-node-protocol-usage`] rule to require the `node:` protocol\n\n\
## [2.31.0] - 2025-01-10\n\n### Added\n\n- add [`no-empty-named-blocks`] rule\n";

/// Regression: a changelog item reached evaluate as `# Added - add [...] rule…`, without the
/// release above it that answers "which version added it". Evaluate and the answer show each
/// excerpt under its heading path.
#[tokio::test]
async fn evaluate_and_answer_show_the_heading_path() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(dir.path(), &[("changelog.md", CHANGELOG)]);
    let fake = FakeModel::start(vec![
        analysis(
            &["enforce-node-protocol-usage"],
            &[("changelog", "which release added the rule")],
        ),
        plan("changelog", &["cat 1/1"], "cat 1/1"),
        command("changelog", "done"),
        evaluation("sufficient", "", &[]),
        Reply::text(
            json!({"sentences": [{"text": "Release 2.32.0 added it.", "citations": [1]}]})
                .to_string(),
        )
        .when(ANSWER_TAG),
    ])
    .await;
    let options = AgentOptions {
        answer: true,
        ..AgentOptions::default()
    };
    run(
        &fake,
        library_of(&paths),
        options,
        "Which version added enforce-node-protocol-usage?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    let under_release = "\nchangelog › [2.32.0] - 2025-06-01 › Added\n# Added\n\n- add [`enforce-node-protocol-usage`]";
    let [judge] = requests_containing(&fake, EVALUATE_TAG).try_into().unwrap();
    assert!(
        judge.contains("<document-data source=\"changelog #1.1 chars 0–"),
        "{judge}"
    );
    assert!(judge.contains(under_release), "{judge}");
    let [answer] = requests_containing(&fake, ANSWER_TAG).try_into().unwrap();
    assert!(answer.contains(under_release), "{answer}");
}

/// Regression: a grep hit in a long line was cut before its match (`… any %…`), so every hit
/// cost a `cat`. The line is shown around its match.
#[test]
fn a_grep_line_shows_the_text_around_its_match() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!(
        "{} and any % of the remaining rows are rounded.",
        "The table lists every segment of the business with its figures for the year".repeat(3)
    );
    let paths = write(
        dir.path(),
        &[("long.md", &format!("# Long\n\n## Rows\n\n{long}\n"))],
    );
    let ws = dir.path().join("ws");
    index(&ws, &paths);
    let out = exec(&ws, "grep '%' /long");
    let (at, line) = out.split_once(": ").unwrap();
    assert_eq!(at, "/long/1:3");
    assert!(line.starts_with('…'), "{line}");
    assert!(
        line.contains("any % of the remaining rows are rounded."),
        "{line}"
    );
    assert!(line.chars().count() <= 160, "{line}");
}

/// Attribute lists are no part of a heading's title: Python-Markdown's and kramdown's `{: #id }`,
/// Pandoc's `{#id .class}` and `{-}`, in Markdown and in HTML pages rendered without the
/// extension that reads them.
#[test]
fn attribute_lists_are_not_part_of_titles() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(
        dir.path(),
        &[
            (
                "api.html",
                "<html><head><title>API</title></head><body><main><h1>Writing Extensions</h1>\
                 <p>Intro.</p><h2>Phases of processing {: #stages }</h2><p>Preprocessors munge.</p>\
                 <h2>Appendix {#app .x}</h2><p>More.</p></main></body></html>",
            ),
            (
                "pandoc.md",
                "# Doc\n\n## Phases of processing {: #stages }\n\nText.\n\n## Appendix {-}\n\nMore.\n",
            ),
        ],
    );
    let ws = dir.path().join("ws");
    index(&ws, &paths);
    assert_eq!(
        exec(&ws, "ls /api"),
        "1. Phases of processing  [no subsections, 2 words]  — Preprocessors munge.\n\
         2. Appendix  [no subsections, 1 word]  — More."
    );
    assert_eq!(
        exec(&ws, "ls /pandoc"),
        "1. Phases of processing  [no subsections, 1 word]  — Text.\n\
         2. Appendix  [no subsections, 1 word]  — More."
    );
}

/// A 10-K's two statements, each long, their key rows at the end of a table (the two share
/// few words, so the rerank keeps both).
fn filing() -> String {
    let prose: String = (0..50)
        .map(|i| {
            format!(
                "The company discusses its segment results in paragraph {i} at some length here.\n"
            )
        })
        .collect();
    let rows: String = (0..100)
        .map(|i| format!("| Line item {i} | 1,{i:03} | 1,{i:03} |\n"))
        .collect();
    let flows: String = (0..50)
        .map(|i| {
            format!("Working capital moved with receivables and payables, as note {i} explains.\n")
        })
        .collect();
    let entries: String = (0..100)
        .map(|i| format!("| Change in other asset class {i} | ({i}) | ({i}) |\n"))
        .collect();
    format!(
        "# ACME 10-K\n\n## Statements of income\n\n{prose}\nCONSOLIDATED STATEMENTS OF INCOME\n\n\
         | (In millions) | 2015 | 2014 |\n| --- | ---: | ---: |\n| Revenue | 4,796 | 4,147 |\n\
         {rows}| Operating income | 903 | 413 |\n\n## Statements of cash flows\n\n{flows}\n\
         | (In millions) | 2015 | 2014 |\n| --- | ---: | ---: |\n{entries}\
         | Depreciation and amortization | 339 | 313 |\n"
    )
}

/// The run of [`the_answer_sees_what_the_verdict_saw`]: one Worker reads both statements whole,
/// evaluate says sufficient, the answer cites both. Returns the answer prompt.
async fn answer_prompt(prompt_cap_tokens: usize) -> String {
    let dir = tempfile::tempdir().unwrap();
    let paths = write(dir.path(), &[("acme.md", &filing())]);
    let fake = FakeModel::start(vec![
        analysis(
            &["operating income", "depreciation and amortization", "revenue"],
            &[("acme", "find revenue, operating income and D&A for 2015")],
        ),
        plan("acme", &["cat 1", "cat 2"], "cat 1"),
        command("acme", "cat 2"),
        command("acme", "done"),
        evaluation("sufficient", "", &[]),
        Reply::text(
            json!({"sentences": [{"text": "EBITDA is operating income plus D&A.", "citations": [1, 2]}]})
                .to_string(),
        )
        .when(ANSWER_TAG),
    ])
    .await;
    let options = AgentOptions {
        answer: true,
        output_budget: 40_000,
        evidence_chars: 100_000,
        prompt_cap_tokens,
        ..AgentOptions::default()
    };
    let run = run(
        &fake,
        library_of(&paths),
        options,
        "What is ACME's FY2015 EBITDA margin?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    assert_eq!(run.answer.evidence.len(), 2);
    let [prompt] = requests_containing(&fake, ANSWER_TAG).try_into().unwrap();
    prompt
}

/// Regression: evaluate saw the income statement and the cash flows and said "sufficient"; the
/// answer prompt, clipped to 3,000 tokens, kept only the head of each and the answer said the
/// margin cannot be computed. The answer's budget grows with the evidence up to the prompt
/// cap; past the cap, items are shortened around the lines that hold the question's terms,
/// with their table's header, and none is dropped.
#[tokio::test]
async fn the_answer_sees_what_the_verdict_saw() {
    let rows = [
        "| Revenue | 4,796 | 4,147 |",
        "| Operating income | 903 | 413 |",
        "| Depreciation and amortization | 339 | 313 |",
    ];
    // Under the run's cap of 12,000 tokens: both statements whole.
    let whole = answer_prompt(12_000).await;
    for row in rows {
        assert!(whole.contains(row), "{row} missing");
    }
    let tokens = whole.chars().count() / 4;
    assert!(
        tokens > ANSWER_PROMPT_TOKENS && tokens <= 12_000,
        "{tokens}"
    );
    // (The system prompt names the mark; the evidence holds none.)
    let evidence = |prompt: &str| prompt.rsplit("\nEvidence:\n").next().unwrap().to_string();
    assert!(!evidence(&whole).contains("lines not shown]"), "{whole}");
    // Over a cap of 4,000 tokens: both items, shortened, their key rows under their header.
    let short = answer_prompt(4_000).await;
    assert!(
        short.chars().count() / 4 <= 4_000,
        "{}",
        short.chars().count()
    );
    assert!(
        short.contains("[1] lines ") && short.contains("[2] lines "),
        "{short}"
    );
    for row in rows {
        assert!(short.contains(row), "{row} missing:\n{short}");
    }
    assert!(evidence(&short).contains("lines not shown]"), "{short}");
    // Each key row with its table's header above it, in its own item.
    for row in &rows[1..] {
        let at = short.find(row).unwrap();
        let header = short[..at].rfind("| (In millions) | 2015 | 2014 |\n| --- | ---: | ---: |\n");
        let header = header.unwrap_or_else(|| panic!("no header above {row}:\n{short}"));
        assert!(!short[header..at].contains("</document-data>"), "{short}");
    }
}
