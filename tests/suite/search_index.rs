//! The workspace's section index (issue 13): crashes at every step of an index run, a damaged
//! or missing index, workspaces of an older docnav, and what `find`, `docs` and
//! `ask --lexical` then do — never a panic, never wrong or silently empty results.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::common::{docnav, fixture, run, Run};

fn ok(r: Run) -> Run {
    assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    r
}

fn index(ws: &Path, files: &[&str]) -> Run {
    let mut args = vec!["index".to_string()];
    args.extend(
        files
            .iter()
            .map(|f| fixture(f).to_string_lossy().into_owned()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(ws, &args)
}

fn catalog_ids(ws: &Path) -> BTreeSet<String> {
    let r = ok(run(ws, &["docs", "--json"]));
    let cards: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    cards
        .iter()
        .map(|c| c["doc_id"].as_str().unwrap().to_string())
        .collect()
}

/// `find` at `/`, `ask --lexical` and `docs` work and agree with the catalog: every hit is a
/// catalog document, and every hit's path shows, in the document's tree, the title `find`
/// printed for it.
fn assert_search_agrees_with_catalog(ws: &Path, query: &str, context: &str) {
    let ids = catalog_ids(ws);
    let found = ok(run(ws, &["exec", &format!("find -n 5 {query}")]));
    assert!(!found.stdout.trim().is_empty(), "{context}: no find output");
    for line in found.stdout.lines().filter(|l| l.starts_with('/')) {
        let path = line.split("  ").next().unwrap();
        let rest = line.split("  ").nth(2).unwrap();
        let title = rest
            .split(" — line ")
            .next()
            .unwrap()
            .split(": ")
            .next()
            .unwrap();
        let doc = path.trim_start_matches('/').split('/').next().unwrap();
        assert!(
            ids.contains(doc),
            "{context}: find hit {path} not in the catalog"
        );
        let head = ok(run(ws, &["exec", &format!("head -n 1 {path}")]));
        assert!(
            head.stdout.contains(title.trim_end_matches('…')),
            "{context}: {path} is {:?}, find said {title:?}",
            head.stdout
        );
    }
    let asked = ok(run(ws, &["ask", "--lexical", "--json", query]));
    let answer: Value = serde_json::from_str(&asked.stdout).unwrap();
    let evidence = answer["evidence"].as_array().unwrap();
    assert!(!evidence.is_empty(), "{context}: no evidence");
    for e in evidence {
        assert!(
            ids.contains(e["doc_id"].as_str().unwrap()),
            "{context}: {e}"
        );
    }
}

#[test]
fn a_crash_at_any_step_of_an_index_run_leaves_consistent_search() {
    for point in ["before-index-commit", "after-index-commit", "after-catalog"] {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let notes = dir.path().join("notes.txt");
        std::fs::copy(fixture("notes.txt"), &notes).unwrap();
        ok(run(
            &ws,
            &[
                "index",
                notes.to_str().unwrap(),
                fixture("ripgrep__FAQ.md").to_str().unwrap(),
            ],
        ));
        // Change one document and add another, then die at `point`.
        std::fs::write(&notes, "1 Zebra care\n\nFeed the zebra twice a day.\n").unwrap();
        let r: Run = docnav(&ws)
            .env("DOCNAV_TEST_CRASH_AT", point)
            .args([
                "index",
                notes.to_str().unwrap(),
                fixture("ripgrep__GUIDE.md").to_str().unwrap(),
            ])
            .output()
            .unwrap()
            .into();
        assert_ne!(r.code, 0, "{point}: the run did not die");
        // The first command after the crash: a repair (with its warning) only where the index
        // was committed and the catalog was not.
        let first = ok(run(&ws, &["docs"]));
        assert_eq!(
            first.stderr.contains("did not match its catalog"),
            point == "after-index-commit",
            "{point}: {}",
            first.stderr
        );
        let ids = catalog_ids(&ws);
        let zebra = ok(run(&ws, &["exec", "find zebra"]));
        if point == "after-catalog" {
            // Committed: the new state, whole.
            assert!(ids.contains("ripgrep-guide"), "{point}: {ids:?}");
            assert!(zebra.stdout.starts_with("/notes/1"), "{}", zebra.stdout);
        } else {
            // Not committed: the previous state, whole.
            assert_eq!(ids, BTreeSet::from(["notes".into(), "ripgrep-faq".into()]));
            assert!(
                zebra.stdout.starts_with("find: no section"),
                "{}",
                zebra.stdout
            );
        }
        assert_search_agrees_with_catalog(&ws, "compressed files", point);
        assert_search_agrees_with_catalog(&ws, "regular expression search", point);
        // The next run completes the work.
        ok(run(
            &ws,
            &[
                "index",
                notes.to_str().unwrap(),
                fixture("ripgrep__GUIDE.md").to_str().unwrap(),
            ],
        ));
        let zebra = ok(run(&ws, &["exec", "find zebra"]));
        assert!(
            zebra.stdout.starts_with("/notes/1"),
            "{point}: {}",
            zebra.stdout
        );
        assert_search_agrees_with_catalog(&ws, "compressed files", point);
    }
}

#[test]
fn an_index_one_commit_ahead_of_its_catalog_is_repaired_on_open_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let notes = dir.path().join("notes.txt");
    std::fs::copy(fixture("notes.txt"), &notes).unwrap();
    ok(run(&ws, &["index", notes.to_str().unwrap()]));
    std::fs::write(&notes, "1 Zebra care\n\nFeed the zebra twice a day.\n").unwrap();
    let r: Run = docnav(&ws)
        .env("DOCNAV_TEST_CRASH_AT", "after-index-commit")
        .args(["index", notes.to_str().unwrap()])
        .output()
        .unwrap()
        .into();
    assert_ne!(r.code, 0);
    // The catalog still names the old tree; the index holds the new one: repaired to the
    // catalog's state before any result is served.
    let r = ok(run(&ws, &["exec", "find zebra"]));
    assert!(r.stdout.starts_with("find: no section"), "{}", r.stdout);
    assert!(
        r.stderr.contains("warning: the search index of")
            && r.stderr.contains("did not match its catalog")
            && r.stderr.contains("1 document(s) re-indexed"),
        "{}",
        r.stderr
    );
    let r = ok(run(&ws, &["exec", "find workspace"]));
    assert!(r.stdout.starts_with("/notes/"), "{}", r.stdout);
    assert_eq!(r.stderr, "", "repaired once, then quiet");
}

/// A workspace (in a temporary directory, removed when the first value is dropped) holding
/// `notes.txt` and ripgrep's FAQ, with what `find compressed` printed there: what the tests that
/// break or age a workspace compare its rebuild with.
fn two_documents_indexed() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    ok(index(&ws, &["notes.txt", "ripgrep__FAQ.md"]));
    let before = ok(run(&ws, &["exec", "find compressed"])).stdout;
    (dir, ws, before)
}

#[test]
fn a_damaged_or_missing_index_is_a_clear_error_until_index_rebuilds_it() {
    let (_dir, ws, before) = two_documents_indexed();
    let index_dir = ws.join("index");
    type Harm<'a> = Box<dyn Fn() + 'a>;
    let damage: [(&str, Harm); 4] = [
        (
            "a segment file deleted",
            Box::new(|| {
                let seg = std::fs::read_dir(&index_dir)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.extension().is_some_and(|e| e == "idx"))
                    .unwrap();
                std::fs::remove_file(seg).unwrap();
            }),
        ),
        (
            "meta.json truncated",
            Box::new(|| {
                let meta = index_dir.join("meta.json");
                let bytes = std::fs::read(&meta).unwrap();
                std::fs::write(&meta, &bytes[..bytes.len() / 3]).unwrap();
            }),
        ),
        (
            "the index removed",
            Box::new(|| std::fs::remove_dir_all(&index_dir).unwrap()),
        ),
        (
            "an index of another schema (another docnav version)",
            Box::new(|| {
                std::fs::remove_dir_all(&index_dir).unwrap();
                std::fs::create_dir(&index_dir).unwrap();
                let mut schema = tantivy::schema::Schema::builder();
                schema.add_text_field("text", tantivy::schema::TEXT | tantivy::schema::STORED);
                let other = tantivy::Index::create_in_dir(&index_dir, schema.build()).unwrap();
                let mut writer: tantivy::IndexWriter = other.writer(15_000_000).unwrap();
                writer.commit().unwrap();
            }),
        ),
    ];
    for (what, harm) in damage {
        harm();
        for args in [
            vec!["exec", "find compressed"],
            vec!["ask", "--lexical", "compressed files"],
        ] {
            let r = run(&ws, &args);
            assert_eq!(r.code, 1, "{what}: {args:?}: {}", r.stdout);
            assert_eq!(r.stdout, "", "{what}: no results, not even empty ones");
            let line = r.stderr.trim_end();
            assert!(
                line.starts_with("error: the search index of workspace `")
                    && line.contains("run `docnav index` to rebuild it")
                    && !line.contains('\n'),
                "{what}: {line}"
            );
        }
        // Listing needs no search index.
        assert_eq!(catalog_ids(&ws).len(), 2, "{what}");
        let r = ok(run(&ws, &["index"]));
        assert!(
            r.stderr.contains("note: the search index of"),
            "{what}: {}",
            r.stderr
        );
        assert_eq!(
            ok(run(&ws, &["exec", "find compressed"])).stdout,
            before,
            "{what}"
        );
    }
}

/// A workspace of the format before this one (its catalog already in SQLite, its rows in this
/// format's columns) is refused by every reader with the hint to run `docnav index`, and that
/// run, given no paths, rebuilds every document its catalog lists (it rebuilt none: the rows
/// were read in format 5's columns only, which such a catalog no longer has).
#[test]
fn a_workspace_of_the_previous_format_is_rebuilt_whole_by_index_without_paths() {
    let (_dir, ws, before) = two_documents_indexed();
    let previous = docnav::workspace::FORMAT_VERSION - 1;
    let catalog = rusqlite::Connection::open(docnav::workspace::catalog_path(&ws)).unwrap();
    let changed = catalog
        .execute(
            "UPDATE meta SET value = ?1 WHERE key = 'format_version'",
            [previous.to_string()],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(catalog);
    let r = run(&ws, &["ask", "--lexical", "compressed"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("run `docnav index`"), "{}", r.stderr);
    let r = ok(run(&ws, &["index"]));
    assert!(
        r.stderr.contains(&format!(
            "(format {previous}; this one reads format {}); rebuilding its 2 document(s)",
            docnav::workspace::FORMAT_VERSION
        )),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("indexed 2 documents"), "{}", r.stderr);
    assert_eq!(ok(run(&ws, &["exec", "find compressed"])).stdout, before);
}

#[test]
fn a_workspace_of_an_older_docnav_is_detected_and_rebuilt_by_index() {
    let (_dir, ws, before) = two_documents_indexed();
    // What docnav 0.1 with format 2 left: a JSON catalog, tree files of that format, no index.
    let cards: Vec<Value> =
        serde_json::from_str(&ok(run(&ws, &["docs", "--json"])).stdout).unwrap();
    let rows: Vec<Value> = cards
        .into_iter()
        .map(|card| {
            serde_json::json!({"card": card, "tree_file": "gone.bin", "source_len": 0,
                               "mtime_ms": 0, "build_key": ""})
        })
        .collect();
    let legacy = serde_json::json!({"format_version": 2, "docnav_version": "0.1.0",
                                    "documents": rows});
    std::fs::write(ws.join("catalog.json"), legacy.to_string()).unwrap();
    std::fs::remove_file(docnav::workspace::catalog_path(&ws)).unwrap();
    std::fs::remove_dir_all(ws.join("index")).unwrap();
    for args in [
        vec!["docs"],
        vec!["exec", "ls /"],
        vec!["ask", "--lexical", "compressed"],
    ] {
        let r = run(&ws, &args);
        assert_eq!(r.code, 1, "{args:?}");
        assert!(
            r.stderr.contains("was made by an older docnav (format 2")
                && r.stderr.contains("run `docnav index`"),
            "{args:?}: {}",
            r.stderr
        );
    }
    let r = ok(run(&ws, &["index"]));
    assert!(
        r.stderr.contains(&format!(
            "was made by an older docnav (format 2; this one reads format {}); rebuilding its \
                 2 document(s)",
            docnav::workspace::FORMAT_VERSION
        )),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("indexed 2 documents"), "{}", r.stderr);
    assert_eq!(ok(run(&ws, &["exec", "find compressed"])).stdout, before);
    assert!(!ws.join("catalog.json").exists(), "the old catalog is gone");
}

#[test]
fn index_without_paths_refreshes_changed_sources_and_keeps_doc_ids() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let notes = dir.path().join("notes.txt");
    std::fs::copy(fixture("notes.txt"), &notes).unwrap();
    ok(run(
        &ws,
        &[
            "index",
            notes.to_str().unwrap(),
            fixture("ripgrep__FAQ.md").to_str().unwrap(),
        ],
    ));
    std::fs::write(&notes, "1 Zebra care\n\nFeed the zebra twice a day.\n").unwrap();
    let r = ok(run(&ws, &["index"]));
    assert!(
        r.stderr
            .contains("indexed 1 documents (1 unchanged, 0 failed)"),
        "{}",
        r.stderr
    );
    let r = ok(run(&ws, &["exec", "find zebra"]));
    assert!(r.stdout.starts_with("/notes/1  "), "{}", r.stdout);
}

#[test]
fn find_shows_the_passage_around_the_match_not_the_sections_first_words() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    ok(index(&ws, &["ripgrep__GUIDE.md"]));
    let r = ok(run(
        &ws,
        &[
            "exec",
            "--cwd",
            "/ripgrep-guide",
            "find -n 1 compressed files search-zip gzip",
        ],
    ));
    let line = r.stdout.lines().next().unwrap();
    assert!(line.starts_with("/ripgrep-guide/1/12  "), "{line}");
    assert!(line.contains("Common options — line "), "{line}");
    assert!(line.contains("`-z/--search-zip`"), "{line}");
    // The hit's line is where its passage starts, numbered as `cat path:N-M` reads: the line
    // and the next hold the passage's match.
    let n: usize = line
        .split(" — line ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no line number in {line}"));
    let snippet_start = line
        .split(": … ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let read = ok(run(
        &ws,
        &["exec", &format!("cat /ripgrep-guide/1/12:{n}-{}", n + 1)],
    ));
    let body: Vec<&str> = read.stdout.lines().skip(1).take(2).collect();
    assert!(
        body[0].contains(snippet_start),
        "{snippet_start:?} not on line {n}: {body:?}"
    );
    assert!(body.join(" ").contains("--search-zip"), "{body:?}");
}

/// `ask --lexical`'s explanation of each score over real documents: the terms' contributions
/// add up to the evidence's score, each idf is `ln(1 + (N − df + 0.5)/(df + 0.5))` of its `N`
/// and `df`, and each contribution is BM25 (k1 = 1.2, b = 0.75) of its tf and lengths — in the
/// whole workspace and inside one document, over long sections and short ones.
#[test]
fn explained_contributions_add_up_to_each_lexical_score() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    ok(index(
        &ws,
        &[
            "ripgrep__GUIDE.md",
            "ripgrep__FAQ.md",
            "nodejs-doc__fs.md",
            "docker-doc__builder.md",
            "notes.txt",
        ],
    ));
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-4 * a.abs().max(1.0);
    let mut checked = 0;
    for (query, doc) in [
        ("how do I search compressed files", None),
        ("read a file stream with encoding", None),
        ("build cache invalidation from the Dockerfile", None),
        (
            "ignore hidden files and gitignore rules",
            Some("ripgrep-guide"),
        ),
        ("file descriptor close error", Some("nodejs-doc-fs")),
    ] {
        let mut args = vec!["ask", "--lexical", "--json", "-k", "8"];
        if let Some(doc) = doc {
            args.extend(["--doc", doc]);
        }
        args.push(query);
        let r = ok(run(&ws, &args));
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let evidence = v["evidence"].as_array().unwrap();
        assert!(evidence.len() >= 3, "{query}: {}", r.stdout);
        for e in evidence {
            let x = &e["explain"];
            let n = x["units"].as_f64().unwrap();
            let (dl, avgdl) = (
                x["length"].as_f64().unwrap(),
                x["average_length"].as_f64().unwrap(),
            );
            let terms = x["terms"].as_array().unwrap();
            assert!(!terms.is_empty(), "{query}: {e}");
            let mut sum = 0.0;
            for t in terms {
                let (tf, df) = (t["tf"].as_f64().unwrap(), t["df"].as_f64().unwrap());
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                assert!(
                    close(t["idf"].as_f64().unwrap(), idf),
                    "{query}: {t} vs idf {idf}"
                );
                let part = idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl));
                let contribution = t["contribution"].as_f64().unwrap();
                assert!(close(contribution, part), "{query}: {t} vs {part}");
                sum += contribution;
            }
            let score = e["score"].as_f64().unwrap();
            assert!((sum - score).abs() < 1e-4, "{query}: {sum} vs {score}");
            checked += 1;
        }
    }
    assert!(checked >= 15, "{checked}");
}
