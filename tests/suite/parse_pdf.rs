//! PDF parser on the committed fixtures and (ignored by default: ~75 s in debug) the corpus.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use docnav::parse::pdf::{parse_pdf, MAX_PAGE_TITLE_CHARS};
use docnav::parse::{ParseError, ParsedDoc, RawSection};
use pretty_assertions::assert_eq;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docs")
        .join(name)
}

fn parse_fixture(name: &str) -> ParsedDoc {
    let path = fixture(name);
    let bytes = std::fs::read(&path).unwrap();
    parse_pdf(&path, &bytes).unwrap()
}

fn section<'a>(doc: &'a ParsedDoc, title: &str) -> &'a RawSection {
    doc.sections
        .iter()
        .find(|s| s.title == title)
        .unwrap_or_else(|| panic!("no section {title:?}"))
}

#[test]
fn r_intro_follows_its_outline_with_page_ranges() {
    let doc = parse_fixture("R-intro.pdf");
    assert_eq!(doc.sections.len(), 145);
    assert_eq!(doc.source_units, 113);
    assert!(doc.pages_without_text.is_empty());
    assert!(doc.preamble.content.starts_with("An Introduction to R\n"));
    assert_eq!(doc.preamble.pages, Some(1..7));

    let preface = &doc.sections[0];
    assert_eq!((preface.level, preface.title.as_str()), (1, "Preface"));
    assert_eq!(preface.pages, Some(7..8));
    assert!(preface
        .content
        .starts_with("Preface\nThis introduction to R is derived"));

    let chapter = &doc.sections[1];
    assert_eq!(
        (chapter.level, chapter.title.as_str()),
        (1, "1 Introduction and preliminaries")
    );
    assert_eq!(chapter.pages, Some(8..9));
    let mixed = section(
        &doc,
        "Mixed vector and array arithmetic. The recycling rule",
    );
    assert_eq!(mixed.level, 3);
    assert_eq!(mixed.pages, Some(28..30));
    // Levels follow outline depth and never jump by more than one.
    for pair in doc.sections.windows(2) {
        assert!(pair[1].level <= pair[0].level + 1, "{:?}", pair[1].title);
    }
}

#[test]
fn r_intro_sections_sharing_a_page_do_not_share_text() {
    let doc = parse_fixture("R-intro.pdf");
    let env = section(&doc, "The R environment");
    let related = section(&doc, "Related software and documentation");
    assert_eq!(env.pages, Some(8..9));
    assert_eq!(related.pages, Some(8..9));
    assert!(env
        .content
        .starts_with("1.1 The R environment\nR is an integrated suite"));
    assert!(related
        .content
        .starts_with("1.2 Related software and documentation\n"));
    assert!(!env.content.contains("1.2 Related software"));
    assert!(!related.content.contains("R is an integrated suite"));
    // Every section's text starts with its printed heading in this texinfo manual.
    let headed = doc
        .sections
        .iter()
        .filter(|s| s.content.replace('\n', " ").contains(&s.title))
        .count();
    assert!(
        headed >= 140,
        "only {headed} of 145 sections contain their title"
    );
}

#[test]
fn live_manual_keeps_pages_without_text_and_its_outline() {
    let doc = parse_fixture("live-manual-broken.pdf");
    assert_eq!(doc.sections.len(), 187);
    assert_eq!(doc.source_units, 64);
    assert!(
        doc.pages_without_text.len() > 10,
        "{:?}",
        doc.pages_without_text
    );
    assert!(doc.pages_without_text.contains(&1));
    assert_eq!(doc.title.as_deref(), Some("SiSU: - Live Systems Manual"));
    assert!(doc
        .metadata
        .iter()
        .any(|(k, v)| k == "Producer" && v.starts_with("xdvipdfmx")));
    assert_eq!(doc.sections[0].title, "About");
    assert_eq!(doc.sections.iter().map(|s| s.level).max(), Some(4));
}

#[test]
fn fhs_without_outline_is_one_section_per_page_titled_by_its_first_line() {
    let doc = parse_fixture("fhs-3.0.pdf");
    assert_eq!(doc.sections.len(), 50);
    assert_eq!(doc.source_units, 50);
    for (n, s) in (1u32..).zip(&doc.sections) {
        assert_eq!(s.level, 1);
        assert_eq!(s.pages, Some(n..n + 1));
        assert!(
            s.title.chars().count() <= MAX_PAGE_TITLE_CHARS,
            "{:?}",
            s.title
        );
        assert!(
            s.content.contains(s.title.trim_end_matches('…')),
            "page {n}: {:?}",
            s.title
        );
    }
    // "Filesystem Hierarchy Standard" heads 5 pages (running header), so the next line titles.
    assert_eq!(doc.sections[0].title, "LSB Workgroup, The Linux Foundation");
    assert_eq!(doc.sections[2].title, "Dedication");
    assert_eq!(doc.sections[7].title, "Chapter 1. Introduction");
    // Running header and page number skipped: "The Root Filesystem\n\n17\n\n3.18. /tmp …".
    assert_eq!(doc.sections[23].title, "3.18. /tmp : Temporary files");
}

fn assert_pdf_error(err: ParseError, path: &Path) {
    let message = err.to_string();
    match err {
        ParseError::Pdf { path: p, reason } => {
            assert_eq!(p, path);
            assert!(!reason.contains('\n'), "{reason}");
        }
        other => panic!("expected ParseError::Pdf, got {other:?}"),
    }
    assert!(message.contains(&path.display().to_string()), "{message}");
}

#[test]
fn truncated_pdf_is_an_error_naming_the_file() {
    let bytes = std::fs::read(fixture("R-intro.pdf")).unwrap();
    let path = Path::new("cut/R-intro-half.pdf");
    let err = parse_pdf(path, &bytes[..bytes.len() / 2]).unwrap_err();
    assert_pdf_error(err, path);
}

#[test]
fn garbage_named_pdf_is_an_error_naming_the_file() {
    let path = Path::new("junk/garbage.pdf");
    let garbage: Vec<u8> = (0u32..4096)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    assert_pdf_error(parse_pdf(path, &garbage).unwrap_err(), path);
    assert_pdf_error(parse_pdf(path, b"").unwrap_err(), path);
    assert_pdf_error(
        parse_pdf(
            path,
            b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF",
        )
        .unwrap_err(),
        path,
    );
}

#[test]
#[ignore = "parses all 16 corpus PDFs (4,499 pages): ~75 s in debug, ~8 s in release"]
fn corpus_pdfs_parse_and_outline_counts_match_manifest() {
    // `/work/main` sits next to `/work/shared`; a worktree under `/work/wt/` is one level deeper.
    let candidates = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/pdf"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/pdf"),
    ];
    let Some(dir) = candidates
        .iter()
        .map(Path::new)
        .find(|d| d.join("../MANIFEST.tsv").is_file())
    else {
        eprintln!("skipped: corpus not found at {}", candidates[0]);
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("../MANIFEST.tsv")).unwrap();
    let mut checked = 0;
    for line in manifest.lines().filter(|l| l.starts_with("pdf/")) {
        let cols: Vec<&str> = line.split('\t').collect();
        let name = cols[0].trim_start_matches("pdf/");
        let expected: usize = cols[7]
            .split("; ")
            .find_map(|kv| kv.strip_prefix("outline_entries="))
            .unwrap()
            .parse()
            .unwrap();
        let pages: u32 = cols[7]
            .split("; ")
            .find_map(|kv| kv.strip_prefix("pages="))
            .unwrap()
            .parse()
            .unwrap();
        let path = dir.join(name);
        let bytes = std::fs::read(&path).unwrap();
        let start = std::time::Instant::now();
        let doc = parse_pdf(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{name}: {} pages in {:?}",
            doc.source_units,
            start.elapsed()
        );
        assert_eq!(doc.source_units, pages, "{name}");
        let sections = if expected == 0 {
            pages as usize
        } else {
            expected
        };
        assert_eq!(doc.sections.len(), sections, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 16);
}

/// A one-page PDF saying `text`, built with lopdf.
pub fn one_page_pdf(text: &str) -> lopdf::Document {
    use lopdf::{dictionary, Object, Stream};
    let mut doc = lopdf::Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let content = format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET");
    let content_id = doc.add_object(Stream::new(dictionary! {}, content.into_bytes()));
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font_id } },
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    doc.trailer.set(
        "ID",
        vec![
            Object::string_literal(b"0123456789abcdef".to_vec()),
            Object::string_literal(b"0123456789abcdef".to_vec()),
        ],
    );
    doc
}

pub fn save(mut doc: lopdf::Document) -> Vec<u8> {
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

#[test]
fn password_encrypted_pdf_is_an_error_naming_the_file() {
    let plain = save(one_page_pdf("Secret plans"));
    let path = Path::new("vault/plans.pdf");
    // The unencrypted twin parses, so the failure below is the encryption.
    let doc = parse_pdf(path, &plain).unwrap();
    assert_eq!(doc.preamble.content.trim(), "", "{doc:?}");
    assert_eq!(doc.sections[0].content.trim(), "Secret plans");

    let mut locked = one_page_pdf("Secret plans");
    let version = lopdf::EncryptionVersion::V2 {
        document: &locked,
        owner_password: "owner",
        user_password: "user-password",
        key_length: 128,
        permissions: lopdf::Permissions::all(),
    };
    let state = lopdf::EncryptionState::try_from(version).unwrap();
    locked.encrypt(&state).unwrap();
    let bytes = save(locked);
    assert!(bytes.windows(8).any(|w| w == b"/Encrypt"));
    let err = parse_pdf(path, &bytes).unwrap_err();
    let message = err.to_string();
    assert_pdf_error(err, path);
    assert!(message.contains("encrypted"), "{message}");
}

#[test]
fn duplicate_outline_titles_are_kept_apart_by_structure() {
    // live-manual's outline has two "Customizing contents" entries (pages 28 and 35) and two
    // "Examples" (pages 53 and 54).
    let path = fixture("live-manual-broken.pdf");
    let bytes = std::fs::read(&path).unwrap();
    let tree = docnav::tree::build_tree(
        parse_pdf(&path, &bytes).unwrap(),
        &docnav::tree::BuildOptions::default(),
    );
    for (title, want) in [
        ("Customizing contents", [("9", 28..29), ("11", 35..36)]),
        ("Examples", [("21", 53..54), ("22", 54..55)]),
    ] {
        let found: Vec<(String, std::ops::Range<u32>)> = tree
            .nodes
            .iter()
            .filter(|n| n.title == title)
            .map(|n| (n.structure.clone(), n.pages.clone().unwrap()))
            .collect();
        let want: Vec<(String, std::ops::Range<u32>)> = want
            .iter()
            .map(|(s, p)| (s.to_string(), p.clone()))
            .collect();
        assert_eq!(found, want, "{title}");
        for (structure, _) in &want {
            let id = tree.by_structure(structure).unwrap();
            assert_eq!(tree.node(id).title, title);
        }
    }
}
