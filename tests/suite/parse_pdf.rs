//! PDF parser on the committed fixtures (the corpus-wide checks are in `pdf_corpus.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use docnav::parse::pdf::parse_pdf;
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
        .starts_with("This introduction to R is derived"));

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
    assert!(env.content.starts_with("R is an integrated suite"));
    // The printed heading is the tree's `# heading`, not repeated as the text's first line.
    assert!(!related.content.is_empty());
    assert!(!related.content.starts_with("1.2 Related software"));
    assert!(!env.content.contains("1.2 Related software"));
    assert!(!related.content.contains("R is an integrated suite"));
    // Every section starts at its printed heading in this texinfo manual: the heading is not
    // left at the end of the section before it, and it is not repeated as the section's first
    // line (the tree shows it as the section's `# heading`).
    let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut_right = doc
        .sections
        .windows(2)
        .filter(|pair| {
            let title = squeeze(&pair[1].title);
            !pair[0].content.lines().any(|l| squeeze(l) == title)
                && pair[1]
                    .content
                    .lines()
                    .next()
                    .is_none_or(|l| squeeze(l) != title)
        })
        .count();
    assert!(
        cut_right >= 140,
        "only {cut_right} of 144 section boundaries at a printed heading"
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

fn tree_of(name: &str) -> docnav::tree::Tree {
    docnav::tree::build_tree(parse_fixture(name), &docnav::tree::BuildOptions::default())
}

fn node_by_title(tree: &docnav::tree::Tree, title: &str) -> docnav::tree::NodeId {
    let found: Vec<docnav::tree::NodeId> = tree
        .preorder(docnav::tree::NodeId::ROOT)
        .into_iter()
        .filter(|&id| tree.node(id).title == title)
        .collect();
    assert_eq!(found.len(), 1, "{title:?}");
    found[0]
}

/// The printed table of contents of fhs-3.0, read here from the raw page lines (not by the
/// parser's own table reader): `(number, title, printed page)` for `3.18.1. Purpose ..... 17`.
fn fhs_printed_toc() -> Vec<(String, String, u32)> {
    let bytes = std::fs::read(fixture("fhs-3.0.pdf")).unwrap();
    let pages = docnav::parse::pdf::page_lines(&bytes, &Default::default()).unwrap();
    // The title's own final dot (`include files.`) runs into the leader: keep it.
    let entry =
        regex::Regex::new(r"^([0-9]+(?:\.[0-9]+)*)\. (.+?(?:[a-z]\.)?) ?(?:\. ?){3,}([0-9]+)$")
            .unwrap();
    pages[..7]
        .iter()
        .flatten()
        .filter_map(|l| entry.captures(&l.text))
        .map(|c| {
            (
                c[1].to_string(),
                c[2].trim().to_string(),
                c[3].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn fhs_without_outline_follows_its_printed_table_of_contents() {
    let doc = parse_fixture("fhs-3.0.pdf");
    assert_eq!(doc.source_units, 50);
    assert_eq!(doc.warnings, Vec::<String>::new());
    let tree = docnav::tree::build_tree(doc, &docnav::tree::BuildOptions::default());
    let toc = fhs_printed_toc();
    // 160 entries, as `pdftotext -f 1 -l 7 fhs-3.0.pdf - | grep -c '\.\.\.\.\.'` counts.
    assert_eq!(toc.len(), 160, "{toc:#?}");
    // Printed page 1 is the 8th page (front matter i–v, title pages).
    const FRONT_PAGES: u32 = 7;
    let mut problems = Vec::new();
    for (number, title, page) in &toc {
        let depth = number.split('.').count();
        let printed = if depth == 1 {
            format!("Chapter {number}. {title}")
        } else {
            format!("{number}. {title}")
        };
        let found: Vec<docnav::tree::NodeId> = tree
            .preorder(docnav::tree::NodeId::ROOT)
            .into_iter()
            .filter(|&id| tree.node(id).title == printed)
            .collect();
        let [id] = found[..] else {
            problems.push(format!("{printed:?}: {} nodes", found.len()));
            continue;
        };
        let node = tree.node(id);
        // At its numbering depth, under the heading its number extends.
        if node.depth as usize != depth {
            problems.push(format!("{printed:?} at depth {}", node.depth));
        }
        if let Some((parent_number, _)) = number.rsplit_once('.') {
            let parent = tree.node(node.parent.unwrap());
            let want = if parent_number.contains('.') {
                format!("{parent_number}. ")
            } else {
                format!("Chapter {parent_number}. ")
            };
            if !parent.title.starts_with(&want) {
                problems.push(format!("{printed:?} under {:?}", parent.title));
            }
        }
        // On the page the table gives.
        let start = node.pages.clone().unwrap().start;
        if start != page + FRONT_PAGES {
            problems.push(format!(
                "{printed:?} starts on page {start}, toc says {page}"
            ));
        }
    }
    assert_eq!(problems, Vec::<String>::new());
    // Numbered headings deeper than the table goes are nodes too, at their depth.
    let deeper = node_by_title(&tree, "3.7.4.1. Purpose");
    assert_eq!(tree.node(deeper).depth, 4);
    let purpose = node_by_title(&tree, "3.18.1. Purpose");
    assert_eq!(
        tree.title_path(purpose),
        [
            "Chapter 3. The Root Filesystem",
            "3.18. /tmp : Temporary files",
            "3.18.1. Purpose"
        ]
    );
    let text = &tree.node(purpose).content;
    assert!(
        text.starts_with("The /tmp directory must be made available"),
        "{text}"
    );
    // The table itself and the front matter are the root's text, not sections; the boxed
    // "Rationale" notes are text of their section.
    assert!(tree
        .node(docnav::tree::NodeId::ROOT)
        .content
        .contains("Table of Contents"));
    assert!(tree.nodes.iter().all(|n| n.title != "Rationale"));
    assert!(tree
        .node(node_by_title(&tree, "3.1. Purpose"))
        .content
        .contains("\nRationale\n"));
}

#[test]
fn fhs_text_has_no_running_headers_or_page_numbers() {
    let doc = parse_fixture("fhs-3.0.pdf");
    for s in &doc.sections {
        // Printed page numbers of the pages this section covers (printed 1 = page 8).
        let pages = s.pages.clone().unwrap();
        let printed: Vec<String> = pages.map(|p| p.saturating_sub(7).to_string()).collect();
        for line in s.content.lines() {
            assert_ne!(line, "The Root Filesystem", "in {:?}", s.title);
            assert_ne!(line, "Filesystem Hierarchy Standard", "in {:?}", s.title);
            assert!(
                !printed.iter().any(|p| p == line),
                "page number {line:?} in {:?}",
                s.title
            );
        }
    }
}

/// The section headings bash's man page prints, in order (`grep '^[A-Z][A-Z ]*$'` over
/// `pdftotext -layout bash-manpage.pdf`).
const BASH_SECTIONS: [&str; 38] = [
    "NAME",
    "SYNOPSIS",
    "COPYRIGHT",
    "DESCRIPTION",
    "OPTIONS",
    "ARGUMENTS",
    "INVOCATION",
    "DEFINITIONS",
    "RESERVED WORDS",
    "SHELL GRAMMAR",
    "COMMENTS",
    "QUOTING",
    "PARAMETERS",
    "EXPANSION",
    "REDIRECTION",
    "ALIASES",
    "FUNCTIONS",
    "ARITHMETIC EVALUATION",
    "CONDITIONAL EXPRESSIONS",
    "SIMPLE COMMAND EXPANSION",
    "COMMAND EXECUTION",
    "COMMAND EXECUTION ENVIRONMENT",
    "ENVIRONMENT",
    "EXIT STATUS",
    "SIGNALS",
    "JOB CONTROL",
    "PROMPTING",
    "READLINE",
    "HISTORY",
    "HISTORY EXPANSION",
    "SHELL BUILTIN COMMANDS",
    "SHELL COMPATIBILITY MODE",
    "RESTRICTED SHELL",
    "SEE ALSO",
    "FILES",
    "AUTHORS",
    "BUG REPORTS",
    "BUGS",
];

#[test]
fn bash_manpage_sections_and_subsections_from_typography() {
    let tree = tree_of("bash-manpage.pdf");
    let titles = |id: docnav::tree::NodeId| -> Vec<&str> {
        tree.node(id)
            .children
            .iter()
            .map(|&c| tree.node(c).title.as_str())
            .collect()
    };
    assert_eq!(titles(docnav::tree::NodeId::ROOT), BASH_SECTIONS);
    assert_eq!(
        titles(node_by_title(&tree, "SHELL GRAMMAR")),
        [
            "Simple Commands",
            "Pipelines",
            "Lists",
            "Compound Commands",
            "Coprocesses",
            "Shell Function Definitions"
        ]
    );
    let pipelines = tree.node(node_by_title(&tree, "Pipelines"));
    assert!(
        pipelines
            .content
            .starts_with("A pipeline is a sequence of one or more commands"),
        "{}",
        pipelines.content
    );
    assert_eq!(pipelines.pages, Some(4..5));
    // "−l  Make bash act as if it had been invoked as a login shell (see INVOCATION below)."
    let options = tree.node(node_by_title(&tree, "OPTIONS"));
    assert!(options
        .content
        .contains("login shell (see INVOCATION below)"));
    let invocation = node_by_title(&tree, "INVOCATION");
    assert!(
        options.references.contains(&invocation),
        "{:?}",
        options.references
    );
    // Variable names in a definition list are text, not headings (a part the long section is
    // split into may be titled by the first of them).
    let variables = node_by_title(&tree, "Shell Variables");
    assert!(tree
        .node(variables)
        .children
        .iter()
        .all(|&c| tree.is_split(c) || tree.node(c).title != "BASHOPTS"));
    // No running header or footer inside the text.
    assert!(tree
        .nodes
        .iter()
        .all(|n| !n.content.contains("General Commands Manual")
            && !n.content.contains("2022 September 19")));
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

/// A one-page PDF saying `text`, built with lopdf.
pub fn one_page_pdf(text: &str) -> lopdf::Document {
    one_page_content(&format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET"))
}

/// A one-page PDF with this content stream and Helvetica (no widths: 0.55 em a glyph) as `/F1`.
pub fn one_page_content(content: &str) -> lopdf::Document {
    let mut doc = crate::support::pdf_bomb::one_page_document(content.as_bytes().to_vec(), false);
    doc.trailer.set(
        "ID",
        vec![
            lopdf::Object::string_literal(b"0123456789abcdef".to_vec()),
            lopdf::Object::string_literal(b"0123456789abcdef".to_vec()),
        ],
    );
    doc
}

/// Make `outlines` the document's outline root, its entries running `first` to `last`
/// (`count` of them).
pub fn attach_outlines(
    doc: &mut lopdf::Document,
    outlines: lopdf::ObjectId,
    (first, last, count): (lopdf::ObjectId, lopdf::ObjectId, i64),
) {
    use lopdf::dictionary;
    doc.objects.insert(
        outlines,
        lopdf::Object::Dictionary(dictionary! {
            "Type" => "Outlines", "First" => first, "Last" => last, "Count" => count,
        }),
    );
    let catalog = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    doc.get_object_mut(catalog)
        .unwrap()
        .as_dict_mut()
        .unwrap()
        .set("Outlines", outlines);
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
fn pdf_without_headings_falls_back_to_page_sections_with_a_warning_naming_it() {
    let path = Path::new("notes/plain.pdf");
    let doc = parse_pdf(path, &save(one_page_pdf("Just one plain line"))).unwrap();
    assert_eq!(
        doc.warnings,
        vec!["`notes/plain.pdf`: no outline and no printed headings found: one section per page"]
    );
    assert_eq!(doc.sections.len(), 1);
    assert_eq!(doc.sections[0].title, "Just one plain line");
    assert_eq!(doc.sections[0].pages, Some(1..2));
}

#[test]
fn footnote_markers_are_separated_from_their_word() {
    // "critical" in 10 pt ends at 72 + 8 × 5.5 = 116; a raised 6 pt "12" starts right there (a
    // footnote marker), a same-size "ly" right after it on the next line continues the word.
    let content = "BT /F1 10 Tf 1 0 0 1 72 720 Tm (critical) Tj ET \
                   BT /F1 6 Tf 1 0 0 1 116 724 Tm (12) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 72 708 Tm (critical) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 116 708 Tm (ly) Tj ET";
    let doc = parse_pdf(Path::new("f.pdf"), &save(one_page_content(content))).unwrap();
    assert_eq!(doc.sections[0].content, "critical 12\ncritically");
}

#[test]
fn a_space_narrowed_to_a_kerning_device_is_no_word_break() {
    // groff sets "given" as `(giv en) Tj` with negative character and word spacing: the space
    // advances 5.5 − 0.25 − 4.75 = 0.5 pt (0.05 em), so `v` and `e` touch. A space at its
    // full width on the next line stays one.
    let content = "BT /F1 10 Tf 1 0 0 1 72 720 Tm (as ) Tj -0.25 Tc -4.75 Tw (giv en) Tj \
                   0 Tc 0 Tw ( by) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 72 708 Tm (as giv en by) Tj ET";
    let doc = parse_pdf(Path::new("f.pdf"), &save(one_page_content(content))).unwrap();
    assert_eq!(doc.sections[0].content, "as given by\nas giv en by");
}

#[test]
fn a_stray_space_inside_a_word_goes_when_the_document_prints_the_word_whole() {
    // 3M's 10-K draws "LIQUIDI", then a lone space over the end of its `I` (0.5 pt, 0.05 em),
    // then "TY" over the end of that space; the body prints "liquidity", and "liquidi" is never
    // a word of its own. "PURSUANT TO" is drawn the same way, but "pursuantto" is no word of
    // the document: it keeps its space.
    let content = "BT /F1 10 Tf 1 0 0 1 72 720 Tm (LIQUIDI) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 110 720 Tm ( ) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 115 720 Tm (TY) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 72 708 Tm (PURSUANT) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 115.5 708 Tm ( ) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 120.5 708 Tm (TO) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 72 696 Tm (Our liquidity is strong.) Tj ET";
    let doc = parse_pdf(Path::new("f.pdf"), &save(one_page_content(content))).unwrap();
    assert_eq!(
        doc.sections[0].content,
        "LIQUIDITY\nPURSUANT TO\nOur liquidity is strong."
    );
    // Drawn at full width after the `I` (no overlap), the space is a word break.
    let content = content
        .replace("110 720 Tm", "110.5 720 Tm")
        .replace("115 720", "116 720");
    let doc = parse_pdf(Path::new("f.pdf"), &save(one_page_content(&content))).unwrap();
    assert!(
        doc.sections[0].content.starts_with("LIQUIDI TY\n"),
        "{}",
        doc.sections[0].content
    );
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

/// FHS sets paths in a non-embedded Courier without widths: measured at Courier's 0.6 em pitch,
/// a path ends where it was drawn, and no space appears before the comma or colon after it
/// (pdftotext's text: "/opt/bin, /opt/doc", "man6: Games"; issue 25.5).
#[test]
fn fhs_paths_in_courier_take_no_space_before_punctuation() {
    let doc = parse_fixture("fhs-3.0.pdf");
    let text: String = std::iter::once(doc.preamble.content.as_str())
        .chain(doc.sections.iter().map(|s| s.content.as_str()))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("The directories /opt/bin, /opt/doc, /opt/include, /opt/info"));
    assert!(text.contains("man6: Games"));
    assert!(!text.contains("/opt/bin , /opt/doc"));
    // Spaces before a comma, colon or semicolon after a word: 242 before the fix, 128 in
    // pdftotext's text of the same file (bench/pdf_punct).
    let spots = regex::Regex::new(r"(?m)[A-Za-z0-9/] [,:;](\s|$)")
        .unwrap()
        .find_iter(&text)
        .count();
    assert!(spots <= 128, "{spots} spaces before punctuation");
}
