//! `docnav index`, `docs`, `tree`: real fixtures through the real binary.

use std::path::Path;

use pretty_assertions::assert_eq;
use regex::Regex;
use serde_json::{json, Value};

use super::common::{fixture, index_notes_and_faq, run};

fn docs_json(ws: &Path) -> Vec<Value> {
    let r = run(ws, &["docs", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str::<Vec<Value>>(&r.stdout).unwrap()
}

fn ids(ws: &Path) -> Vec<String> {
    docs_json(ws)
        .iter()
        .map(|c| c["doc_id"].as_str().unwrap().to_string())
        .collect()
}

/// `docs --json` streams the catalog card by card and prints the bytes the whole array
/// pretty-printed at once would be; `docs --count` prints the count alone (issue 24).
#[test]
fn docs_json_streams_the_pretty_array_and_count_prints_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    index_notes_and_faq(&ws);
    let r = run(&ws, &["docs", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cards: Vec<docnav::index::DocCard> = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(cards.len(), 2);
    assert_eq!(
        r.stdout,
        format!("{}\n", serde_json::to_string_pretty(&cards).unwrap())
    );
    let count = run(&ws, &["docs", "--count"]);
    assert_eq!(
        (count.code, count.stdout.as_str()),
        (0, "2\n"),
        "{}",
        count.stderr
    );
    let both = run(&ws, &["docs", "--count", "--json"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}

#[test]
fn docs_json_cards_have_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let r = index_notes_and_faq(&ws);
    // The summary is the last stderr line, with the wall time in seconds.
    let summary =
        Regex::new(r"^indexed 2 documents \(0 unchanged, 0 failed\) in \d+\.\d\d s$").unwrap();
    let last = r.stderr.lines().last().unwrap_or_default();
    assert!(summary.is_match(last), "{}", r.stderr);
    let cards = docs_json(&ws);
    assert_eq!(cards.len(), 2);
    for card in &cards {
        for field in [
            "doc_id",
            "title",
            "source",
            "format",
            "bytes",
            "node_count",
            "fingerprint",
        ] {
            assert!(card.get(field).is_some(), "missing {field} in {card}");
        }
    }
    assert_eq!(cards[0]["doc_id"], "notes");
    assert_eq!(cards[0]["format"], "text");
    assert_eq!(cards[1]["doc_id"], "ripgrep-faq");
    assert_eq!(cards[1]["bytes"], 41724);
}

#[test]
fn reindex_skips_unchanged_keeps_ids_and_prunes_vanished_sources() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::copy(fixture("notes.txt"), src.join("guide.txt")).unwrap();
    std::fs::copy(fixture("multilingual.md"), src.join("guide.md")).unwrap();
    let ws = dir.path().join("ws");
    let src_s = src.to_str().unwrap();
    let r = run(&ws, &["index", src_s]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(ids(&ws), vec!["guide", "guide-2"]);

    let r = run(&ws, &["index", src_s]);
    assert!(
        r.stderr
            .contains("indexed 0 documents (2 unchanged, 0 failed)"),
        "{}",
        r.stderr
    );

    // A changed file is rebuilt under the same id.
    std::fs::write(src.join("guide.txt"), "1 Changed\n\nNew text here.\n").unwrap();
    let r = run(&ws, &["index", src_s]);
    assert!(
        r.stderr
            .contains("indexed 1 documents (1 unchanged, 0 failed)"),
        "{}",
        r.stderr
    );
    assert_eq!(ids(&ws), vec!["guide", "guide-2"]);

    // A vanished source stays until --prune.
    std::fs::remove_file(src.join("guide.txt")).unwrap();
    run(&ws, &["index", src_s]);
    assert_eq!(ids(&ws).len(), 2);
    let r = run(&ws, &["index", "--prune", src_s]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // guide.md sorts first and got `guide`; guide.txt (`guide-2`) is gone.
    assert_eq!(ids(&ws), vec!["guide"]);
    // Only referenced tree files remain.
    assert_eq!(std::fs::read_dir(ws.join("docs")).unwrap().count(), 1);
}

#[test]
fn bad_inputs_are_named_counted_and_do_not_stop_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let empty_dir = dir.path().join("nothing-here");
    std::fs::create_dir(&empty_dir).unwrap();
    std::fs::write(empty_dir.join("image.png"), [0x89, b'P', b'N', b'G']).unwrap();
    std::fs::write(src.join("binary.md"), [0u8, 159, 146, 150, 0, 1, 2, 3]).unwrap();
    std::fs::write(src.join("empty.md"), "").unwrap();
    std::fs::write(
        src.join("latin1.txt"),
        b"Caf\xe9 cr\xe8me is made with espresso and hot milk.\n",
    )
    .unwrap();
    let pdf = std::fs::read(fixture("R-intro.pdf")).unwrap();
    std::fs::write(src.join("truncated.pdf"), &pdf[..pdf.len() / 2]).unwrap();
    std::fs::write(
        src.join("garbage.pdf"),
        b"%PDF-1.4\nthis is not a pdf at all",
    )
    .unwrap();
    std::fs::copy(fixture("notes.txt"), src.join("good.txt")).unwrap();
    // A real PDF whose outline is rich but most pages have no text layer: indexed, with a warning.
    std::fs::copy(fixture("live-manual-broken.pdf"), src.join("no-text.pdf")).unwrap();
    let ws = dir.path().join("ws");
    let r = run(
        &ws,
        &[
            "index",
            src.to_str().unwrap(),
            empty_dir.to_str().unwrap(),
            "missing/file.md",
            "/dev/null",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let expect = [
        "error: `missing/file.md`: no such file or directory",
        "error: `/dev/null` is not a file or a folder (a device, pipe or socket); not indexed",
        "contains no .md, .markdown, .pdf, .html, .htm, .xhtml, .docx, .epub or .txt files",
        "binary.md` is binary, not Markdown text",
        "empty.md` is empty",
        "truncated.pdf`",
        "garbage.pdf`",
        "warning: `",
        "latin1.txt` is not valid UTF-8: 2 invalid byte sequence(s) replaced with U+FFFD",
        "no-text.pdf`: 42 of 64 page(s) have no extractable text (kept with empty content)",
    ];
    for e in expect {
        assert!(r.stderr.contains(e), "missing {e:?} in:\n{}", r.stderr);
    }
    // Every error is one line naming its input.
    for line in r.error_lines() {
        assert!(line.contains('`'), "{line}");
    }
    assert!(
        r.stderr
            .contains("indexed 3 documents (0 unchanged, 7 failed)"),
        "{}",
        r.stderr
    );
    assert_eq!(ids(&ws), vec!["good", "latin1", "no-text"]);
}

#[test]
fn injected_write_failure_keeps_the_previous_state() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("notes.txt");
    std::fs::copy(fixture("notes.txt"), &src).unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(run(&ws, &["index", src.to_str().unwrap()]).code, 0);
    let before = run(&ws, &["tree", "notes", "--json"]).stdout;

    // The next version's tree file cannot be written: its name is taken by a directory.
    let changed = "1 Rewritten\n\nEverything changed.\n";
    std::fs::write(&src, changed).unwrap();
    let fp = docnav::workspace::fingerprint(changed.as_bytes());
    let key = docnav::workspace::BuildKey::of(&docnav::tree::BuildOptions::default());
    let name = docnav::workspace::tree_file_name("notes", &fp, &key);
    std::fs::create_dir(ws.join("docs").join(name)).unwrap();
    let r = run(&ws, &["index", src.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("cannot write"), "{}", r.stderr);
    assert_eq!(run(&ws, &["tree", "notes", "--json"]).stdout, before);
}

#[test]
fn killing_index_midway_leaves_a_loadable_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let first = fixture("notes.txt");
    assert_eq!(run(&ws, &["index", first.to_str().unwrap()]).code, 0);
    let docs = fixture("");
    for delay_ms in [5u64, 20, 60, 150] {
        let mut child = super::common::docnav(&ws)
            .args(["index", "--force", docs.to_str().unwrap()])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        // Whatever point it died at, the catalog loads and every tree file it names loads.
        let known = ids(&ws);
        for id in &known {
            let r = run(&ws, &["tree", id, "--depth", "1"]);
            assert_eq!(
                r.code, 0,
                "after kill at {delay_ms} ms, tree {id}: {}",
                r.stderr
            );
        }
        // And search agrees with that catalog: every hit of `find` at `/` and of
        // `ask --lexical` is one of its documents.
        let found = run(&ws, &["exec", "find -n 5 workspace index"]);
        assert_eq!(
            found.code, 0,
            "after kill at {delay_ms} ms: {}",
            found.stderr
        );
        for line in found.stdout.lines().filter(|l| l.starts_with('/')) {
            let doc = line[1..].split('/').next().unwrap();
            assert!(
                known.iter().any(|k| k == doc),
                "after kill at {delay_ms} ms: {line}"
            );
        }
        let asked = run(&ws, &["ask", "--lexical", "--json", "workspace index"]);
        assert_eq!(
            asked.code, 0,
            "after kill at {delay_ms} ms: {}",
            asked.stderr
        );
        let answer: Value = serde_json::from_str(&asked.stdout).unwrap();
        for e in answer["evidence"].as_array().unwrap() {
            let doc = e["doc_id"].as_str().unwrap();
            assert!(
                known.iter().any(|k| k == doc),
                "after kill at {delay_ms} ms: {doc}"
            );
        }
    }
}

/// `{structure, title, lines, token_count, references, children}` of a `tree --json` node
/// without pages (Markdown and text).
fn text_node(
    structure: &str,
    title: &str,
    lines: [u32; 2],
    tokens: u32,
    children: Vec<Value>,
) -> Value {
    json!({
        "structure": structure, "title": title, "lines": lines, "pages": null,
        "token_count": tokens, "references": [], "children": children,
    })
}

#[test]
fn tree_json_nests_children_and_depth_limits() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let notes = fixture("notes.txt");
    let faq = fixture("ripgrep__FAQ.md");
    let r = run(
        &ws,
        &["index", notes.to_str().unwrap(), faq.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let tree = |args: &[&str]| -> Value {
        let r = run(&ws, args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        serde_json::from_str(&r.stdout).unwrap()
    };
    // Line ranges are inclusive: `1 Getting started` is on line 6, its text runs to line 10.
    let full = text_node(
        "",
        "notes",
        [1, 5],
        42,
        vec![
            text_node(
                "1",
                "1 Getting started",
                [6, 10],
                39,
                vec![text_node(
                    "1.1",
                    "1.1 Choosing a workspace",
                    [11, 15],
                    41,
                    vec![],
                )],
            ),
            text_node(
                "2",
                "2 Navigating",
                [16, 20],
                37,
                vec![text_node("2.1", "2.1 Searching", [21, 25], 33, vec![])],
            ),
            text_node("3", "3 Troubleshooting", [26, 29], 40, vec![]),
        ],
    );
    assert_eq!(tree(&["tree", "notes", "--json"]), full);
    // `--depth 1` keeps the top level and cuts below it.
    let mut cut = full.clone();
    for child in cut["children"].as_array_mut().unwrap() {
        child["children"] = json!([]);
    }
    assert_eq!(tree(&["tree", "notes", "--json", "--depth", "1"]), cut);
    assert_eq!(
        tree(&["tree", "notes", "--json", "--depth", "0"]),
        json!({
            "structure": "", "title": "notes", "lines": [1, 5], "pages": null,
            "token_count": 42, "references": [], "children": [],
        })
    );
    // References are structure numbers: the colours answer points to "like The Silver
    // Searcher's output" (#silver-searcher-output), the index lists all 27 questions.
    let faq = tree(&["tree", "ripgrep-faq", "--json"]);
    let questions = &faq["children"][0];
    assert_eq!(questions["title"], "FAQ");
    assert_eq!(questions["references"].as_array().unwrap().len(), 27);
    assert_eq!(questions["children"][10]["structure"], "1.11");
    assert_eq!(questions["children"][10]["references"], json!(["1.17"]));

    let r = run(&ws, &["tree", "nope"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("document not found: nope"),
        "{}",
        r.stderr
    );
}

#[test]
fn tree_json_of_a_pdf_has_page_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let r = run(&ws, &["index", fixture("R-intro.pdf").to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(&ws, &["tree", "r-intro", "--json", "--depth", "2"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let root: Value = serde_json::from_str(&r.stdout).unwrap();
    let intro = &root["children"][1];
    assert_eq!(
        (
            &intro["structure"],
            &intro["title"],
            &intro["pages"],
            &intro["lines"]
        ),
        (
            &json!("2"),
            &json!("1 Introduction and preliminaries"),
            &json!([8, 8]),
            &json!(null)
        )
    );
    let stats = &intro["children"][2];
    assert_eq!(
        (&stats["title"], &stats["pages"]),
        (&json!("R and statistics"), &json!([8, 9]))
    );
    // `see Chapter 13 [Packages]` on that page: printed chapter 13 is structure 14.
    assert_eq!(stats["references"], json!(["14"]));
    // Depth 2 is the last level shown.
    let deepest = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["children"].as_array().unwrap())
        .map(|g| g["children"].as_array().unwrap().len())
        .max();
    assert_eq!(deepest, Some(0));
}

#[test]
fn plain_tree_and_docs_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    index_notes_and_faq(&ws);
    let tree = run(&ws, &["tree", "notes"]);
    assert_eq!(
        tree.stdout,
        "notes (notes)  (lines 1–5)\n\
         1 1 Getting started  (lines 6–10)\n\
         \x20 1.1 1.1 Choosing a workspace  (lines 11–15)\n\
         2 2 Navigating  (lines 16–20)\n\
         \x20 2.1 2.1 Searching  (lines 21–25)\n\
         3 3 Troubleshooting  (lines 26–29)\n"
    );
    let shallow = run(&ws, &["tree", "notes", "-d", "1"]);
    assert_eq!(
        shallow.stdout,
        "notes (notes)  (lines 1–5)\n\
         1 1 Getting started  (lines 6–10)\n\
         2 2 Navigating  (lines 16–20)\n\
         3 3 Troubleshooting  (lines 26–29)\n"
    );
    let docs = run(&ws, &["docs"]);
    assert_eq!(
        docs.stdout,
        "DOC_ID       FORMAT         SIZE   NODES  TITLE\n\
         notes        text          906 B       6  notes\n\
         ripgrep-faq  markdown    41.7 KB      29  ripgrep__FAQ\n"
    );
}

#[test]
fn usage_errors_exit_2_and_missing_workspace_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(run(&ws, &["index"]).code, 2);
    assert_eq!(run(&ws, &["frobnicate"]).code, 2);
    let r = run(&ws, &["docs"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no workspace at"), "{}", r.stderr);
    assert!(r.stderr.contains("docnav index"), "{}", r.stderr);
}

/// `--formats` restricts what folders and globs give, refuses a named file of another format,
/// and leaves other formats' documents alone when refreshing the workspace.
#[test]
fn formats_flag_restricts_the_formats_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::copy(fixture("notes.txt"), src.join("notes.txt")).unwrap();
    std::fs::copy(fixture("ripgrep__FAQ.md"), src.join("faq.md")).unwrap();
    std::fs::copy(
        super::parse_html::html_fixture("git/gitignore.html"),
        src.join("gitignore.html"),
    )
    .unwrap();
    let ws = dir.path().join("ws");
    let r = run(
        &ws,
        &["index", "--formats", "md,html", src.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("indexed 2 documents"), "{}", r.stderr);
    let docs = run(&ws, &["docs"]);
    assert!(docs.stdout.contains("faq") && docs.stdout.contains("gitignore"));
    assert!(!docs.stdout.contains("notes"), "{}", docs.stdout);

    let txt = src.join("notes.txt");
    let r = run(
        &ws,
        &[
            "index",
            "--formats",
            "pdf",
            src.to_str().unwrap(),
            txt.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let errors = r.error_lines();
    assert_eq!(
        errors,
        vec![
            format!("error: `{}` contains no .pdf files", src.display()).as_str(),
            format!(
                "error: `{}` is txt, not one of --formats pdf",
                txt.display()
            )
            .as_str(),
        ]
    );
    // Refreshing only Markdown: the HTML page is neither rebuilt nor dropped.
    let r = run(&ws, &["index", "--formats", "md", "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("indexed 1 documents"), "{}", r.stderr);
    assert!(run(&ws, &["docs"]).stdout.contains("gitignore"));

    let r = run(
        &ws,
        &["index", "--formats", "md,odt", src.to_str().unwrap()],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("unknown format `odt` (known: md, pdf, html, docx, epub, txt)"),
        "{}",
        r.stderr
    );
}

/// `--prune` with a named file that is gone drops that document only, reading only its row
/// (`docnav index --watch` relies on it); a gone file no document came from is an error.
#[test]
fn a_named_gone_file_is_pruned_alone_and_an_unknown_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::copy(fixture("notes.txt"), src.join("notes.txt")).unwrap();
    std::fs::copy(fixture("ripgrep__FAQ.md"), src.join("faq.md")).unwrap();
    std::fs::copy(fixture("multilingual.md"), src.join("other.md")).unwrap();
    let ws = dir.path().join("ws");
    let r = run(&ws, &["index", src.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    std::fs::remove_file(src.join("faq.md")).unwrap();
    std::fs::remove_file(src.join("other.md")).unwrap();
    // Named relative to the working directory, as a user (or the watcher) names it.
    let r = super::common::docnav_in(&src)
        .arg("--workspace")
        .arg(&ws)
        .args(["index", "--prune", "faq.md"])
        .output()
        .unwrap();
    let r = super::common::Run::from(r);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("indexed 0 documents (0 unchanged, 0 failed, 1 pruned)"),
        "{}",
        r.stderr
    );
    // other.md is gone too, but was not named: it stays until named or a folder is pruned.
    assert_eq!(ids(&ws), vec!["notes", "other"]);
    let missing = src.join("never-indexed.md");
    let r = run(&ws, &["index", "--prune", missing.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("never-indexed.md`: no such file or directory"),
        "{}",
        r.stderr
    );
    assert_eq!(ids(&ws), vec!["notes", "other"]);
}

/// `docnav index --watch`: after the first run, a new file, an edit saved the way editors save
/// (a temporary file renamed over the old one), a deleted file and a folder moved away are each
/// indexed as they happen, one report line per batch, until the process is stopped.
#[test]
fn watch_indexes_each_change_as_it_happens() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("guide/deeper")).unwrap();
    std::fs::create_dir_all(src.join("guide-notes")).unwrap();
    std::fs::write(src.join("a.md"), "# Alpha\n\nThe first page.\n").unwrap();
    std::fs::write(src.join("guide/b.md"), "# Beta\n\nA guide page.\n").unwrap();
    std::fs::write(src.join("guide/deeper/d.md"), "# Delta\n\nDeeper.\n").unwrap();
    std::fs::write(src.join("guide-notes/e.md"), "# Epsilon\n\nNotes.\n").unwrap();
    // A document from outside the watched folder whose file is gone: the watcher leaves it.
    let outside = dir.path().join("x.md");
    std::fs::write(&outside, "# Outside\n").unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(run(&ws, &["index", outside.to_str().unwrap()]).code, 0);
    std::fs::remove_file(&outside).unwrap();
    let mut child = super::common::docnav(&ws)
        .args(["index", "--watch", src.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let stderr = child.stderr.take().unwrap();
    let collected = std::sync::Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            collected.lock().unwrap().push(line);
        }
    });
    let lines = move || lines.lock().unwrap().clone();
    // Each step polls what a user would look at until it shows the change (at most 30 s): how
    // the watcher cuts changes into batches depends on timing, what it ends with does not.
    let eventually = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done() {
            assert!(
                Instant::now() < deadline,
                "{what}: not seen within 30 s; stderr: {:#?}",
                lines()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        eventually("the first run", &|| {
            lines().iter().any(|l| l.contains("watching 1 path(s)"))
        });
        assert!(
            lines()[0].contains("indexed 4 documents (0 unchanged, 0 failed)"),
            "{:?}",
            lines()
        );
        std::fs::write(src.join("c.md"), "# Gamma\n\nA zebracorn grazes.\n").unwrap();
        eventually("a new file", &|| {
            run(&ws, &["ask", "--lexical", "--json", "zebracorn"])
                .stdout
                .contains("\"c\"")
        });

        std::fs::write(src.join(".a.md.swp"), "# Alpha two\n\nEdited.\n").unwrap();
        std::fs::rename(src.join(".a.md.swp"), src.join("a.md")).unwrap();
        eventually("a save by rename", &|| {
            run(&ws, &["tree", "a"]).stdout.contains("Alpha two")
        });

        std::fs::remove_file(src.join("c.md")).unwrap();
        eventually("a deleted file", &|| ids(&ws) == ["a", "b", "d", "e", "x"]);
        // A folder moved away: the documents from under it go, its namesake's stay, and so
        // does the document from outside the watched folder.
        std::fs::rename(src.join("guide"), dir.path().join("guide-away")).unwrap();
        eventually("a folder moved away", &|| ids(&ws) == ["a", "e", "x"]);
        // A document file made and gone at once names no document: no error.
        std::fs::write(src.join("brief.md"), "# Brief\n").unwrap();
        std::fs::remove_file(src.join("brief.md")).unwrap();
        std::fs::write(src.join("f.md"), "# Phi\n").unwrap();
        eventually("a file after a short-lived one", &|| {
            ids(&ws) == ["a", "e", "f", "x"]
        });
        let all = lines();
        assert!(all.iter().any(|l| l.contains("2 pruned")), "{all:#?}");
        assert!(!all.iter().any(|l| l.contains("error")), "{all:#?}");
    }));
    let _ = child.kill();
    let _ = child.wait();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// `--watch` needs files or folders: a glob and no path at all are usage errors (exit 2).
#[test]
fn watch_refuses_globs_and_needs_paths() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let glob = format!("{}/*.md", dir.path().display());
    let r = run(&ws, &["index", "--watch", &glob]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("is a glob"), "{}", r.stderr);
    assert!(!ws.join("catalog.db").exists(), "nothing indexed");
    let r = run(&ws, &["index", "--watch"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("<PATH>"), "{}", r.stderr);
}

/// `index --merge` says what it merged: a changed file's run leaves two segments, the merge one;
/// a second `--merge` finds nothing to merge; `--merge` with `--watch` is a usage error (issue 24).
#[test]
fn index_merge_reports_the_merge_and_then_nothing_to_merge() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let notes = dir.path().join("notes.md");
    let faq = dir.path().join("faq.md");
    std::fs::write(&notes, "# Notes\n\n## Kiwi\n\nkiwi mango\n").unwrap();
    std::fs::copy(fixture("ripgrep__FAQ.md"), &faq).unwrap();
    let (notes, faq) = (notes.to_str().unwrap(), faq.to_str().unwrap());
    let first = run(&ws, &["index", notes, faq]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(!first.stderr.contains("merged"), "{}", first.stderr);
    std::fs::write(notes, "# Notes\n\n## Kiwi\n\nkiwi kiwi papaya\n").unwrap();
    let changed = run(&ws, &["index", "--merge", notes]);
    assert_eq!(changed.code, 0, "{}", changed.stderr);
    let merged =
        Regex::new(r"(?m)^merged the search index into 1 segment \(2 before\) in \d+\.\d\d s$")
            .unwrap();
    assert!(merged.is_match(&changed.stderr), "{}", changed.stderr);
    let again = run(&ws, &["index", "--merge"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again
            .stderr
            .contains("the search index is one segment without deleted entries: nothing to merge"),
        "{}",
        again.stderr
    );
    let papaya = run(&ws, &["ask", "--lexical", "papaya"]);
    assert_eq!(papaya.code, 0, "{}", papaya.stderr);
    assert!(
        papaya.stdout.contains("kiwi kiwi papaya"),
        "{}",
        papaya.stdout
    );
    let watch = run(&ws, &["index", "--merge", "--watch", notes]);
    assert_eq!(watch.code, 2, "{}", watch.stderr);
}
