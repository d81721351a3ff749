use std::collections::HashMap;

use pretty_assertions::assert_eq;

use super::*;
use crate::tree::DocFormat;

/// A row of `doc_id` from `/src/<doc_id>.md` with the text hash `text`.
fn row(doc_id: &str, text: &str) -> CatalogEntry {
    CatalogEntry {
        doc_id: doc_id.into(),
        source: format!("/src/{doc_id}.md"),
        format: DocFormat::Markdown,
        fingerprint: format!("bytes of {doc_id}"),
        tree_file: format!("{doc_id}-000000000000.bin"),
        source_len: 10,
        mtime_ms: 1,
        build_key: None,
        text_sha256: text.into(),
    }
}

fn card(doc_id: &str) -> DocCard {
    DocCard {
        doc_id: doc_id.into(),
        title: doc_id.into(),
        source: format!("/src/{doc_id}.md"),
        format: DocFormat::Markdown,
        bytes: 10,
        node_count: 1,
        outline: Vec::new(),
        summary: String::new(),
        top_terms: Vec::new(),
        fingerprint: format!("bytes of {doc_id}"),
        names: Vec::new(),
        period: None,
    }
}

fn candidate(doc_id: &str, was: Was) -> Candidate {
    Candidate {
        doc_id: doc_id.into(),
        was,
    }
}

/// The alias `alias` of `target`, its source's text `text`.
fn alias(alias: &str, target: &str, text: &str) -> AliasEntry {
    AliasEntry::new(row(alias, text), target.into())
}

/// The alias `b` of `a` (text `T`) whose source is a file `dir/b.md` that exists, so that a
/// run can build it again.
fn alias_b_in(dir: &std::path::Path) -> AliasEntry {
    let source = dir.join("b.md");
    std::fs::write(&source, "# B\n").unwrap();
    let mut b = alias("b", "a", "T");
    b.row.source = source.to_string_lossy().into_owned();
    b
}

/// A run over `documents` (those in `built` were built by it), its outcome and the new rows.
struct Run {
    documents: Vec<CatalogEntry>,
    built: HashMap<String, DocCard>,
    removed: Vec<String>,
    report: IndexReport,
    errors: Vec<String>,
    /// Aliases `build` was asked to build again.
    built_again: Vec<String>,
}

impl Run {
    fn new(documents: Vec<CatalogEntry>, built: &[&str]) -> Run {
        Run {
            documents,
            built: built.iter().map(|id| (id.to_string(), card(id))).collect(),
            removed: Vec::new(),
            report: IndexReport::default(),
            errors: Vec::new(),
            built_again: Vec::new(),
        }
    }

    /// [`keep_once`]; an alias built again reads `rebuilt_text` (its source's text now).
    fn check(
        &mut self,
        candidates: Vec<Candidate>,
        aliases: Vec<(AliasEntry, AliasFate)>,
        rebuilt_text: &str,
    ) -> Decided {
        let built_again = &mut self.built_again;
        let mut build = |alias: &AliasEntry| {
            built_again.push(alias.alias().to_string());
            Ok(Rebuilt {
                entry: row(alias.alias(), rebuilt_text),
                card: card(alias.alias()),
                warnings: Vec::new(),
                bytes: 10,
            })
        };
        keep_once(
            Catalog {
                documents: &mut self.documents,
                built: &mut self.built,
                removed: &mut self.removed,
                store: None,
            },
            candidates,
            aliases,
            &mut build,
            &mut self.report,
            &mut self.errors,
        )
    }

    fn ids(&self) -> Vec<&str> {
        self.documents.iter().map(|d| d.doc_id.as_str()).collect()
    }
}

#[test]
fn of_two_new_sources_with_one_text_the_first_is_kept_and_the_second_is_an_alias() {
    let mut run = Run::new(vec![row("a", "T"), row("b", "T")], &["a", "b"]);
    run.report.indexed = 2;
    let decided = run.check(
        vec![candidate("a", Was::New), candidate("b", Was::New)],
        Vec::new(),
        "",
    );
    assert_eq!(run.ids(), vec!["a"]);
    assert_eq!(
        decided,
        Decided {
            put_aliases: vec![alias("b", "a", "T")],
            remove_aliases: Vec::new(),
            unindexed: vec!["b".into()],
            discarded: vec!["b-000000000000.bin".into()],
        }
    );
    assert!(!run.built.contains_key("b"));
    assert_eq!(
        (
            run.report.indexed,
            run.report.duplicates,
            run.report.unchanged
        ),
        (1, 1, 0)
    );
    assert_eq!(
        run.report.notices,
        vec!["`/src/b.md` has the same text as `a` (kept once; `b` is an alias)"]
    );
}

#[test]
fn a_document_kept_as_it_was_keeps_its_text_over_a_new_source_whatever_their_ids() {
    // `a` is new and sorts first; `z` was indexed before and is unchanged.
    let mut run = Run::new(vec![row("a", "T"), row("z", "T")], &["a"]);
    run.report.indexed = 1;
    let decided = run.check(vec![candidate("a", Was::New)], Vec::new(), "");
    assert_eq!(run.ids(), vec!["z"]);
    assert_eq!(decided.put_aliases, vec![alias("a", "z", "T")]);
    assert_eq!(run.removed, Vec::<String>::new());
}

#[test]
fn an_edited_document_is_kept_over_a_new_source_with_its_text_and_drops_its_row_when_aliased() {
    // `b` was a document and is edited to the text of `c`, new in this run but earlier in the
    // input; `d`, an edited document, takes the text of `e`, unchanged.
    let mut run = Run::new(
        vec![row("b", "T"), row("c", "T"), row("d", "U"), row("e", "U")],
        &["b", "c", "d"],
    );
    run.report.indexed = 3;
    let decided = run.check(
        vec![
            candidate("c", Was::New),
            candidate("b", Was::Document),
            candidate("d", Was::Document),
        ],
        Vec::new(),
        "",
    );
    assert_eq!(run.ids(), vec!["b", "e"]);
    assert_eq!(
        decided.put_aliases,
        vec![alias("d", "e", "U"), alias("c", "b", "T")]
    );
    // `d` was a document of the catalog: its row goes; `c` was never in it.
    assert_eq!(run.removed, vec!["d".to_string()]);
    assert_eq!(run.report.duplicates, 2);
}

#[test]
fn re_indexing_an_unchanged_alias_decides_nothing() {
    let mut run = Run::new(vec![row("a", "T")], &[]);
    let decided = run.check(
        Vec::new(),
        vec![(alias("b", "a", "T"), AliasFate::Kept)],
        "",
    );
    assert_eq!(decided, Decided::default());
    assert_eq!(run.ids(), vec!["a"]);
    assert!(run.built_again.is_empty());
    assert!(run.report.notices.is_empty());
}

#[test]
fn an_alias_whose_source_moved_has_its_row_written_again() {
    let mut run = Run::new(vec![row("a", "T")], &[]);
    let decided = run.check(
        Vec::new(),
        vec![(alias("b", "a", "T"), AliasFate::Moved)],
        "",
    );
    assert_eq!(decided.put_aliases, vec![alias("b", "a", "T")]);
}

#[test]
fn an_alias_whose_document_is_gone_is_built_and_indexed_under_its_own_id() {
    // `a` was pruned: it is among the removed, not the documents.
    let mut run = Run::new(vec![], &[]);
    run.removed.push("a".into());
    let decided = run.check(
        Vec::new(),
        vec![(alias("b", "a", "T"), AliasFate::Kept)],
        "T",
    );
    // The source of `b` does not exist in this test: it is dropped, not built.
    assert_eq!(decided.remove_aliases, vec!["b".to_string()]);
    assert!(run.built_again.is_empty());
    assert_eq!(
        run.report.notices,
        vec!["`/src/b.md` (b) is gone and no document has its text any more; dropped"]
    );
}

#[test]
fn an_alias_whose_document_changed_its_text_is_built_again() {
    let dir = tempfile::tempdir().unwrap();
    let b = alias_b_in(dir.path());
    let mut run = Run::new(vec![row("a", "U")], &["a"]);
    run.report.indexed = 1;
    let decided = run.check(
        vec![candidate("a", Was::Document)],
        vec![(b, AliasFate::Kept)],
        "T",
    );
    assert_eq!(run.built_again, vec!["b".to_string()]);
    assert_eq!(run.ids(), vec!["a", "b"]);
    assert!(run.built.contains_key("b"));
    assert_eq!(decided.remove_aliases, vec!["b".to_string()]);
    assert_eq!(run.report.indexed, 2);
    assert_eq!(
        run.report.notices,
        vec!["`/src/b.md` is indexed as `b`, no longer an alias of `a` (their texts differ now)"]
    );
}

#[test]
fn an_alias_built_again_with_another_document_s_text_becomes_its_alias() {
    let dir = tempfile::tempdir().unwrap();
    let b = alias_b_in(dir.path());
    // `a` changed to `U`; `b` still reads `T`, which `c` has.
    let mut run = Run::new(vec![row("a", "U"), row("c", "T")], &["a"]);
    run.report.indexed = 1;
    let decided = run.check(
        vec![candidate("a", Was::Document)],
        vec![(b, AliasFate::Kept)],
        "T",
    );
    assert_eq!(run.ids(), vec!["a", "c"]);
    assert_eq!(decided.put_aliases.len(), 1);
    assert_eq!(
        (
            decided.put_aliases[0].alias(),
            decided.put_aliases[0].target.as_str()
        ),
        ("b", "c")
    );
    assert_eq!((run.report.indexed, run.report.duplicates), (1, 1));
}

#[test]
fn an_alias_of_a_document_become_an_alias_names_the_document_kept() {
    // `b` (a document) and `z` (unchanged) read alike after `b` was rebuilt with its old text;
    // `x`, an alias of `b`, now names `z`.
    let mut run = Run::new(vec![row("b", "T"), row("z", "T")], &["b"]);
    run.report.indexed = 1;
    let decided = run.check(
        vec![candidate("b", Was::Document)],
        vec![(alias("x", "b", "T"), AliasFate::Kept)],
        "",
    );
    assert_eq!(run.ids(), vec!["z"]);
    assert_eq!(
        decided.put_aliases,
        vec![alias("b", "z", "T"), alias("x", "z", "T")]
    );
}

#[test]
fn an_alias_built_again_with_its_document_s_text_stays_as_it_was() {
    // `--force`, or the alias's bytes changed and not its text.
    let mut run = Run::new(vec![row("a", "T"), row("b", "T")], &["b"]);
    run.report.indexed = 1;
    let decided = run.check(
        vec![candidate("b", Was::AliasOf("a".into()))],
        Vec::new(),
        "",
    );
    assert_eq!(run.ids(), vec!["a"]);
    assert_eq!(decided.put_aliases, vec![alias("b", "a", "T")]);
    assert_eq!(
        (
            run.report.indexed,
            run.report.unchanged,
            run.report.duplicates
        ),
        (0, 1, 0)
    );
    assert!(run.report.notices.is_empty());
}

#[test]
fn an_alias_whose_source_failed_is_kept_as_it_was() {
    let mut run = Run::new(vec![row("a", "U")], &["a"]);
    let decided = run.check(
        vec![candidate("a", Was::Document)],
        vec![(alias("b", "a", "T"), AliasFate::Failed)],
        "T",
    );
    assert_eq!(decided, Decided::default());
    assert!(run.built_again.is_empty());
}
