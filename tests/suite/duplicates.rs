//! Duplicates through the real binary: a file whose text equals an indexed document's is kept
//! once, the other name an alias that `cd`, `tree` and `--doc` accept, across re-index runs
//! (the copy edited, the original edited or pruned).

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use regex::Regex;
use serde_json::Value;

use super::agent::{command, evaluation, plan, understand};
use super::common::{docnav, fixture, run, Run};
use crate::support::fake_model::FakeModel;

/// A source folder holding `notes.txt` (the fixture) and its copy `notes2.txt`, and a workspace
/// path beside it (not indexed yet).
struct Copies {
    _dir: tempfile::TempDir,
    src: PathBuf,
    ws: PathBuf,
}

impl Copies {
    fn new() -> Copies {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir(&src).unwrap();
        std::fs::copy(fixture("notes.txt"), src.join("notes.txt")).unwrap();
        std::fs::copy(fixture("notes.txt"), src.join("notes2.txt")).unwrap();
        // As the catalog names them (a temp folder may be reached through a link).
        let src = std::fs::canonicalize(&src).unwrap();
        let ws = dir.path().join("ws");
        Copies { _dir: dir, src, ws }
    }

    /// `src/<name>` as a string.
    fn file(&self, name: &str) -> String {
        self.src.join(name).to_string_lossy().into_owned()
    }

    /// `docnav index [--prune] <args…>`, which must exit 0.
    fn index(&self, args: &[&str]) -> Run {
        let mut all = vec!["index"];
        all.extend(args);
        ok(run(&self.ws, &all))
    }

    /// `docnav index src`.
    fn index_src(&self) -> Run {
        self.index(&[self.src.to_str().unwrap()])
    }

    /// `docnav exec <line>`: its stdout.
    fn exec(&self, line: &str) -> String {
        ok(run(&self.ws, &["exec", line])).stdout
    }

    /// `(doc_id, aliases)` of each card of `docs --json`.
    fn listing(&self) -> Vec<(String, Vec<String>)> {
        let r = ok(run(&self.ws, &["docs", "--json"]));
        let cards: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
        cards
            .iter()
            .map(|card| {
                let aliases = card.get("aliases").map_or_else(Vec::new, |a| {
                    a.as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap().to_string())
                        .collect()
                });
                (card["doc_id"].as_str().unwrap().to_string(), aliases)
            })
            .collect()
    }
}

fn ok(r: Run) -> Run {
    assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    r
}

/// The `note:` lines of a run's stderr.
fn notes(r: &Run) -> Vec<&str> {
    r.stderr
        .lines()
        .filter_map(|l| l.strip_prefix("note: "))
        .collect()
}

/// The summary line of a run without its wall time (`… in 0.12 s`).
fn summary(r: &Run) -> String {
    let last = r.stderr.lines().last().unwrap_or_default();
    Regex::new(r" in \d+\.\d\d s$")
        .unwrap()
        .replace(last, "")
        .into_owned()
}

fn one_document_with_its_alias() -> Vec<(String, Vec<String>)> {
    vec![("notes".to_string(), vec!["notes2".to_string()])]
}

#[test]
fn a_copy_indexed_with_its_original_is_kept_once_as_an_alias() {
    let c = Copies::new();
    let r = c.index_src();
    assert_eq!(
        notes(&r),
        vec![format!(
            "`{}` has the same text as `notes` (kept once; `notes2` is an alias)",
            c.file("notes2.txt")
        )]
    );
    assert_eq!(
        summary(&r),
        "indexed 1 documents (0 unchanged, 0 failed, 1 duplicates kept as aliases)"
    );
    assert_eq!(c.listing(), one_document_with_its_alias());
    assert_eq!(ok(run(&c.ws, &["docs", "--count"])).stdout, "1\n");
    let table = ok(run(&c.ws, &["docs"])).stdout;
    let line = table.lines().nth(1).unwrap();
    assert!(
        line.starts_with("notes ") && line.ends_with("  (aliases: notes2)"),
        "{table}"
    );
    // Indexed again, nothing changed: both files are unchanged, nothing is reported.
    let r = c.index_src();
    assert_eq!(notes(&r), Vec::<&str>::new());
    assert_eq!(summary(&r), "indexed 0 documents (2 unchanged, 0 failed)");
    assert_eq!(c.listing(), one_document_with_its_alias());
}

#[test]
fn cd_tree_and_lexical_ask_accept_an_alias_for_its_document() {
    let c = Copies::new();
    c.index_src();
    assert_eq!(c.exec("cd /notes2"), "/notes\n");
    assert_eq!(c.exec("cd /notes2/2/2.1"), "/notes/2/1\n");
    assert_eq!(c.exec("cd notes2"), "/notes\n");
    assert_eq!(c.exec("ls /").lines().count(), 1);
    let tree = |id: &str| ok(run(&c.ws, &["tree", id])).stdout;
    assert_eq!(tree("notes2"), tree("notes"));
    assert!(
        tree("notes2").starts_with("notes (notes)"),
        "{}",
        tree("notes2")
    );
    // The last line is the wall time.
    let ask = |id: &str| {
        let out = ok(run(&c.ws, &["ask", "--lexical", "--doc", id, "OCR"])).stdout;
        let mut lines: Vec<String> = out.lines().map(String::from).collect();
        lines.pop();
        lines
    };
    let by_alias = ask("notes2");
    assert!(
        by_alias[0].starts_with("[1] notes › 3 Troubleshooting"),
        "{by_alias:?}"
    );
    assert_eq!(by_alias, ask("notes"));
    let r = run(&c.ws, &["tree", "nowhere"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
}

/// `docnav ask --doc <alias>` runs the agent on the document: its worker and evidence name the
/// document's id.
#[tokio::test(flavor = "multi_thread")]
async fn ask_with_an_alias_as_doc_asks_the_document() {
    let c = Copies::new();
    c.index_src();
    let fake = FakeModel::start(vec![
        understand(&["OCR"]),
        plan("notes", &["cat 3"], "cat '#3'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let out = docnav(&c.ws)
        .env("DOCNAV_MODEL", "fake-model")
        .env("OPENAI_BASE_URL", fake.base_url())
        .args(["ask", "--json", "--doc", "notes2", "--rounds", "1", "OCR?"])
        .output()
        .unwrap();
    let r = ok(out.into());
    fake.verify().unwrap();
    let answer: Value = serde_json::from_str(&r.stdout).unwrap();
    let evidence: Vec<(&str, &str)> = answer["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["doc_id"].as_str().unwrap(),
                e["structure"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(evidence, vec![("notes", "3")]);
}

#[test]
fn an_alias_whose_file_changes_its_text_becomes_a_document_and_again_an_alias() {
    let c = Copies::new();
    c.index_src();
    std::fs::write(
        c.file("notes2.txt"),
        "Other notes\n\n1 Elsewhere\n\nA text of its own, longer than before it was edited.\n",
    )
    .unwrap();
    let r = c.index_src();
    assert_eq!(
        notes(&r),
        vec![format!(
            "`{}` is indexed as `notes2`, no longer an alias of `notes` (their texts differ now)",
            c.file("notes2.txt")
        )]
    );
    assert_eq!(summary(&r), "indexed 1 documents (1 unchanged, 0 failed)");
    assert_eq!(
        c.listing(),
        vec![
            ("notes".to_string(), vec![]),
            ("notes2".to_string(), vec![])
        ]
    );
    assert_eq!(c.exec("cd /notes2"), "/notes2\n");
    assert!(c.exec("cat /notes2/1").contains("A text of its own"));

    // The same text as `notes` again: the document `notes2` is an alias once more.
    std::fs::copy(fixture("notes.txt"), c.file("notes2.txt")).unwrap();
    let r = c.index_src();
    assert_eq!(
        summary(&r),
        "indexed 0 documents (1 unchanged, 0 failed, 1 duplicates kept as aliases)"
    );
    assert_eq!(c.listing(), one_document_with_its_alias());
    assert_eq!(c.exec("cd /notes2"), "/notes\n");
}

#[test]
fn a_copy_named_later_is_the_alias_whatever_its_name_and_pruning_it_drops_the_alias() {
    let c = Copies::new();
    std::fs::remove_file(c.file("notes2.txt")).unwrap();
    c.index(&[&c.file("notes.txt")]);
    // `a-notes` sorts before `notes`: the document indexed first is kept all the same. A run
    // naming the file reads only its row, and finds the document by its text.
    std::fs::copy(fixture("notes.txt"), c.file("a-notes.txt")).unwrap();
    let r = c.index(&[&c.file("a-notes.txt")]);
    assert_eq!(
        notes(&r),
        vec![format!(
            "`{}` has the same text as `notes` (kept once; `a-notes` is an alias)",
            c.file("a-notes.txt")
        )]
    );
    assert_eq!(
        c.listing(),
        vec![("notes".to_string(), vec!["a-notes".to_string()])]
    );
    let r = c.index_src();
    assert_eq!(summary(&r), "indexed 0 documents (2 unchanged, 0 failed)");

    std::fs::remove_file(c.file("a-notes.txt")).unwrap();
    let r = c.index(&["--prune", &c.file("a-notes.txt")]);
    assert_eq!(
        summary(&r),
        "indexed 0 documents (0 unchanged, 0 failed, 1 pruned)"
    );
    assert_eq!(c.listing(), vec![("notes".to_string(), vec![])]);
    let r = run(&c.ws, &["exec", "cd /a-notes"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
}

/// The decision for a kept document whose file is deleted: without `--prune` it stays (as any
/// document does) and so does its alias; with `--prune` it goes, and the alias's file, which
/// still has the text, is indexed in its place under the alias's id.
#[test]
fn when_the_kept_document_is_pruned_its_alias_is_indexed_in_its_place() {
    let c = Copies::new();
    c.index_src();
    std::fs::remove_file(c.file("notes.txt")).unwrap();
    let r = c.index_src();
    assert_eq!(summary(&r), "indexed 0 documents (1 unchanged, 0 failed)");
    assert_eq!(c.listing(), one_document_with_its_alias());

    let r = c.index(&["--prune", c.src.to_str().unwrap()]);
    assert_eq!(
        notes(&r),
        vec![format!(
            "`{}` is indexed as `notes2`, no longer an alias of `notes` (that document is gone)",
            c.file("notes2.txt")
        )]
    );
    assert_eq!(
        summary(&r),
        "indexed 1 documents (0 unchanged, 0 failed, 1 pruned)"
    );
    assert_eq!(c.listing(), vec![("notes2".to_string(), vec![])]);
    assert_eq!(c.exec("cd /notes2/3"), "/notes2/3\n");
    assert!(c.exec("cat /notes2/3").contains("Re-run OCR"));
}

#[test]
fn when_the_kept_document_changes_its_alias_keeps_the_old_text_as_a_document() {
    let c = Copies::new();
    c.index_src();
    // A named run: the alias's file is not named, and is built again all the same.
    std::fs::write(
        c.file("notes.txt"),
        "New notes\n\n1 Changed\n\nEntirely new text.\n",
    )
    .unwrap();
    let r = c.index(&[&c.file("notes.txt")]);
    assert_eq!(
        notes(&r),
        vec![format!(
            "`{}` is indexed as `notes2`, no longer an alias of `notes` (their texts differ now)",
            c.file("notes2.txt")
        )]
    );
    assert_eq!(summary(&r), "indexed 2 documents (0 unchanged, 0 failed)");
    assert_eq!(
        c.listing(),
        vec![
            ("notes".to_string(), vec![]),
            ("notes2".to_string(), vec![])
        ]
    );
    assert!(c.exec("cat /notes2/3").contains("Re-run OCR"));
    assert!(c.exec("cat /notes/1").contains("Entirely new text"));
    // The section index holds each document's own text once.
    let found = ok(run(&c.ws, &["exec", "find OCR"])).stdout;
    assert_eq!(found.lines().count(), 1, "{found}");
    assert!(found.starts_with("/notes2/3"), "{found}");
}

/// Two files with headings and no text under them (a scanned PDF without a text layer reads
/// this way: pages, no content) are not duplicates of each other: keeping both loses nothing.
#[test]
fn files_without_text_are_never_duplicates() {
    let c = Copies::new();
    std::fs::write(c.file("notes.txt"), "1 Page\n\n2 Page\n").unwrap();
    std::fs::write(c.file("notes2.txt"), "1 Page\n\n2 Page\n").unwrap();
    let r = c.index_src();
    assert_eq!(notes(&r), Vec::<&str>::new());
    assert_eq!(
        c.listing(),
        vec![
            ("notes".to_string(), vec![]),
            ("notes2".to_string(), vec![])
        ]
    );
}

/// `docnav index --watch`: a deleted alias file drops the alias, as a deleted document file
/// drops the document.
#[test]
fn watch_drops_the_alias_of_a_deleted_copy() {
    use std::time::{Duration, Instant};

    let c = Copies::new();
    let mut child = docnav(&c.ws)
        .args(["index", "--watch", c.src.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let eventually = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done() {
            assert!(Instant::now() < deadline, "{what}: not seen within 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let listing = || {
        let r = run(&c.ws, &["docs", "--json"]);
        (r.code == 0).then(|| c.listing())
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        eventually("the first run", &|| {
            listing() == Some(one_document_with_its_alias())
        });
        std::fs::remove_file(c.file("notes2.txt")).unwrap();
        eventually("the copy deleted", &|| {
            listing() == Some(vec![("notes".to_string(), vec![])])
        });
    }));
    let _ = child.kill();
    let _ = child.wait();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// The catalog a shard sends for a sharded ask carries the aliases, and an alias table that
/// cannot be read is the shard's error, not a catalog without aliases (a Worker would then not
/// know `notes2`).
#[test]
fn a_shards_catalog_part_carries_its_aliases_and_fails_when_they_cannot_be_read() {
    use docnav::agent::orchestrator::placement::CatalogPart;
    let c = Copies::new();
    c.index_src();
    let ws = docnav::workspace::Workspace::open(&c.ws).unwrap();
    let part = CatalogPart::of_library(&ws).unwrap();
    assert_eq!(
        part.aliases,
        vec![("notes2".to_string(), "notes".to_string())]
    );
    assert_eq!(part.cards.len(), 1);
    drop(ws);
    let catalog = rusqlite::Connection::open(c.ws.join("catalog.db")).unwrap();
    catalog.execute_batch("DROP TABLE aliases").unwrap();
    let ws = docnav::workspace::Workspace::open(&c.ws).unwrap();
    let failed = CatalogPart::of_library(&ws).unwrap_err().to_string();
    assert!(failed.contains("aliases"), "{failed}");
}

/// A folder of 25 copies of one file: the run prints 20 of the 24 alias notes and one line for
/// the other 4 (its warnings and summary stay in view), and `docs` lists all 24 aliases.
#[test]
fn a_folder_of_many_copies_prints_twenty_notes_and_counts_the_rest() {
    let c = Copies::new();
    for i in 3..=25 {
        std::fs::copy(fixture("notes.txt"), c.src.join(format!("notes{i}.txt"))).unwrap();
    }
    let r = c.index_src();
    let notes = notes(&r);
    assert_eq!(notes.len(), 21, "{}", r.stderr);
    assert!(
        notes[..20]
            .iter()
            .all(|n| n.contains("has the same text as `notes`")),
        "{notes:?}"
    );
    assert_eq!(
        notes[20],
        "… and 4 more notes (20 shown; `docnav docs` lists every document with its aliases)"
    );
    assert_eq!(
        summary(&r),
        "indexed 1 documents (0 unchanged, 0 failed, 24 duplicates kept as aliases)"
    );
    let listing = c.listing();
    assert_eq!((listing.len(), listing[0].1.len()), (1, 24), "{listing:?}");
}
