//! Fixture documents split over three libraries, each one's catalog passed through JSON as
//! between processes and gathered, answer the catalog as one library holding them all.

use std::path::PathBuf;

use super::*;
use crate::tree::BuildOptions;
use crate::workspace::InMemoryLibrary;

const SHARDS: [&[&str]; 3] = [
    &["ripgrep__FAQ.md", "ripgrep__GUIDE.md"],
    &["notes.txt", "multilingual.md", "clap__git.md"],
    &["nodejs-doc__fs.md", "python-markdown__toc.md"],
];

fn library(files: &[&str]) -> InMemoryLibrary {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/docs");
    let paths: Vec<PathBuf> = files.iter().map(|f| root.join(f)).collect();
    InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap()
}

/// The three shards (the second with an alias of one of its documents) and one library holding
/// every document with the same alias.
fn shards_and_whole() -> (Vec<InMemoryLibrary>, InMemoryLibrary) {
    let mut shards: Vec<InMemoryLibrary> = SHARDS.iter().map(|s| library(s)).collect();
    shards[1] = library(SHARDS[1]).with_alias("notes-copy", "notes");
    let files: Vec<&str> = SHARDS.iter().flat_map(|s| s.iter().copied()).collect();
    (shards, library(&files).with_alias("notes-copy", "notes"))
}

/// Each shard's part through JSON, gathered.
fn gathered(shards: &[InMemoryLibrary]) -> GatheredCatalog {
    let parts = shards
        .iter()
        .map(|s| {
            let json = CatalogPart::of_library(s).unwrap().to_json().unwrap();
            CatalogPart::from_json(&json).unwrap()
        })
        .collect();
    GatheredCatalog::new(Arc::new(GatheredCards::new(parts)))
}

#[test]
fn a_catalog_part_crosses_as_json_unchanged() {
    let shard = library(SHARDS[1]).with_alias("notes-copy", "notes");
    let part = CatalogPart::of_library(&shard).unwrap();
    assert_eq!(part.cards.len(), 3);
    assert_eq!(
        part.aliases,
        [("notes-copy".to_string(), "notes".to_string())]
    );
    let json = part.to_json().unwrap();
    assert_eq!(CatalogPart::from_json(&json).unwrap(), part);
    // The text a JSON object of the two keys gives: keys and card fields in name order.
    let object = serde_json::json!({"cards": part.cards, "aliases": part.aliases});
    assert_eq!(json, serde_json::to_string(&object).unwrap());
    assert!(json.starts_with(r#"{"aliases":[["notes-copy","notes"]],"cards":[{"#));
    // Either key order parses.
    let swapped = format!(
        r#"{{"cards":{},"aliases":[["a","b"]]}}"#,
        serde_json::to_string(&part.cards).unwrap()
    );
    let parsed = CatalogPart::from_json(&swapped).unwrap();
    assert_eq!(parsed.cards, part.cards);
    assert_eq!(parsed.aliases, [("a".to_string(), "b".to_string())]);
    assert!(CatalogPart::from_json(r#"{"cards":[]}"#).is_err());
    assert!(CatalogPart::from_json("[]").is_err());
}

#[test]
fn the_gathered_catalog_answers_as_one_library() {
    let (shards, whole) = shards_and_whole();
    let catalog = gathered(&shards);
    assert_eq!(catalog.document_count(), 7);
    assert_eq!(catalog.document_count(), whole.document_count());
    for (offset, limit) in [(0, 100), (0, 3), (2, 2), (6, 5), (7, 1), (20, 3)] {
        assert_eq!(
            catalog.cards_page(offset, limit),
            whole.cards_page(offset, limit),
            "page {offset}+{limit}"
        );
    }
    let ids: Vec<String> = whole
        .cards_page(0, 100)
        .iter()
        .map(|c| c.doc_id.clone())
        .collect();
    for id in ids
        .iter()
        .map(String::as_str)
        .chain(["nowhere", "notes-copy"])
    {
        assert_eq!(catalog.card(id), whole.card(id), "{id}");
        assert_eq!(catalog.card_position(id), whole.card_position(id), "{id}");
        assert_eq!(catalog.resolve_id(id), whole.resolve_id(id), "{id}");
    }
    assert_eq!(catalog.card_position("ripgrep-faq"), Some(5));
    for alias in ["notes-copy", "notes", "nowhere"] {
        assert_eq!(
            catalog.alias_target(alias),
            whole.alias_target(alias),
            "{alias}"
        );
    }
    assert_eq!(catalog.alias_target("notes-copy").as_deref(), Some("notes"));
    assert_eq!(catalog.aliases(), whole.aliases());
    assert_eq!(catalog.catalog_digest(), whole.catalog_digest());
}

#[test]
fn a_document_is_found_once_kept() {
    let (shards, whole) = shards_and_whole();
    let catalog = gathered(&shards);
    assert!(matches!(
        catalog.document("notes"),
        Err(WorkspaceError::NotFound(id)) if id == "notes"
    ));
    let notes = whole.document("notes").unwrap();
    catalog.keep(vec![Document::clone(&notes)]);
    let kept = catalog.document("notes").unwrap();
    assert_eq!(kept, notes);
    assert!(matches!(
        catalog.document("ripgrep-faq"),
        Err(WorkspaceError::NotFound(id)) if id == "ripgrep-faq"
    ));
    assert!(matches!(
        catalog.sections(),
        Err(WorkspaceError::Search { .. })
    ));
}
