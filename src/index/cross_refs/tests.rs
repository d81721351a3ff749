use pretty_assertions::assert_eq;

use crate::index::DocCard;
use crate::parse::markdown::parse_markdown;
use crate::tree::{build_tree, BuildOptions, DocumentMention, NodeId, Tree};

fn md(text: &str) -> Tree {
    build_tree(parse_markdown(text), &BuildOptions::default())
}

/// A card for `source` titled `title` whose summary starts with `summary`.
fn card(doc_id: &str, source: &str, title: &str, summary: &str) -> DocCard {
    let mut card = DocCard::new(doc_id, source, 1, "f", &md("# x\n\ny\n"));
    card.title = title.into();
    card.summary = summary.into();
    card
}

#[test]
fn named_documents_resolve_by_title_acronym_file_name_and_title_page() {
    use super::named::named_document;
    let cards = vec![
        card(
            "policy",
            "/c/debian-policy.pdf",
            "Debian Policy Manual",
            "Debian Policy",
        ),
        card(
            "fhs",
            "/c/fhs-3.0.pdf",
            "fhs-3.0",
            "LSB Workgroup, The Linux Foundation Filesystem Hierarchy Standard LSB Workgroup, \
             The Linux Foundation Version 3.0",
        ),
        card(
            "r-intro",
            "/c/R-intro.pdf",
            "R-intro",
            "An Introduction to R Notes on R: A Programming Environment for Data Analysis",
        ),
        card(
            "glpk",
            "/c/glpk.pdf",
            "GNU Linear Programming Kit",
            "Reference Manual",
        ),
        card(
            "fs",
            "/c/nodejs-doc__fs.md",
            "File system",
            "The node:fs module",
        ),
        card(
            "stream",
            "/c/nodejs-doc__stream.md",
            "Stream",
            "A stream is",
        ),
        card(
            "run",
            "/c/docker-doc__run.md",
            "Docker run reference",
            "Docker runs",
        ),
        card(
            "toc",
            "/c/python-markdown__toc.md",
            "Table of Contents",
            "Summary",
        ),
        card("guide-a", "/c/a__GUIDE.md", "Guide", "A"),
        card("guide-b", "/c/b__GUIDE.md", "Guide", "B"),
        card(
            "buffer-authors",
            "/c/buffer__AUTHORS.md",
            "Authors",
            "Names",
        ),
    ];
    let policy = md("# Debian Policy Manual\n\n## Stream\n\nx\n");
    let resolve = |from: &str, name: &str, section: Option<&str>| {
        let m = DocumentMention {
            from: NodeId::ROOT,
            name: name.into(),
            section: section.map(String::from),
        };
        let all = named_document(&m, from, &policy, &cards);
        // The same answer from the cards the catalog files under the mention's keys: the keys
        // never hide a card a rule accepts.
        let keys = super::named::mention_keys(&m);
        let candidates: Vec<&DocCard> = cards
            .iter()
            .filter(|c| c.doc_id == from || super::lookup_keys(c).iter().any(|k| keys.contains(k)))
            .collect();
        assert!(candidates.len() < cards.len(), "{name}: {keys:?}");
        assert_eq!(
            named_document(&m, from, &policy, &candidates),
            all,
            "{name}: {keys:?}"
        );
        all
    };
    // Title page (a PDF titled by its file name): acronym, then phrase.
    assert_eq!(resolve("policy", "FHS", Some("section 4.9")), Some("fhs"));
    assert_eq!(resolve("policy", "FHS", None), Some("fhs"));
    assert_eq!(
        resolve("policy", "Filesystem Hierarchy Standard", None),
        Some("fhs")
    );
    assert_eq!(
        resolve("policy", "An Introduction to R", None),
        Some("r-intro")
    );
    assert_eq!(
        resolve("policy", "Introduction to R manual", None),
        Some("r-intro")
    );
    assert_eq!(resolve("policy", "The Linux", None), None);
    // Title and its acronym.
    let debian = DocumentMention {
        from: NodeId::ROOT,
        name: "Debian Policy Manual".into(),
        section: None,
    };
    assert_eq!(
        named_document(
            &debian,
            "fhs",
            &md("# fhs-3.0
"),
            &cards
        ),
        Some("policy")
    );
    assert_eq!(resolve("policy", "GLPK", None), Some("glpk"));
    // A capitalized word alone matches a title only as written: `see AUTHORS` in one
    // package's notices is not another package's document titled "Authors".
    assert_eq!(resolve("policy", "AUTHORS", None), None);
    assert_eq!(
        resolve("policy", "Authors documentation", None),
        Some("buffer-authors")
    );
    assert_eq!(resolve("policy", "glpk", None), None);
    assert_eq!(
        resolve("policy", "File system documentation", None),
        Some("fs")
    );
    // File names need a generic noun or a section.
    assert_eq!(
        resolve("policy", "Node.js fs documentation", None),
        Some("fs")
    );
    assert_eq!(
        resolve("policy", "Node.js fs", Some("section 2")),
        Some("fs")
    );
    assert_eq!(resolve("policy", "Node.js fs", None), None);
    assert_eq!(resolve("policy", "docker run", None), None);
    // One word needs a noun or a section; the mentioning document's own heading wins.
    assert_eq!(resolve("fhs", "Stream documentation", None), None);
    assert_eq!(resolve("fs", "Stream", None), None);
    // Itself, parts of a document, and ambiguous names name nothing.
    assert_eq!(resolve("fhs", "FHS", None), None);
    assert_eq!(resolve("policy", "Table of Contents", None), None);
    assert_eq!(resolve("policy", "Guide documentation", None), None);
    let from_a = vec![card("faq-a", "/c/a__FAQ.md", "FAQ", "Q")];
    let all: Vec<_> = cards.iter().cloned().chain(from_a).collect();
    let m = DocumentMention {
        from: NodeId::ROOT,
        name: "Guide documentation".into(),
        section: None,
    };
    assert_eq!(
        named_document(&m, "faq-a", &md("# FAQ\n"), &all),
        Some("guide-a")
    );
}

#[test]
fn a_named_section_is_a_printed_number_of_an_agreeing_keyword() {
    use crate::tree::references::section_node;
    let fhs = md("# FHS\n\n## Chapter 4. The /usr Hierarchy\n\nx\n\n\
        ### 4.9. /usr/local : Local hierarchy\n\ny\n\n#### Purpose\n\nz\n");
    let title = |s: Option<NodeId>| s.map(|id| fhs.node(id).title.clone());
    assert_eq!(
        title(section_node(&fhs, "section 4.9")),
        Some("4.9. /usr/local : Local hierarchy".into())
    );
    assert_eq!(
        title(section_node(&fhs, "§4.9")),
        Some("4.9. /usr/local : Local hierarchy".into())
    );
    assert_eq!(
        title(section_node(&fhs, "Section 4.9.1")),
        Some("Purpose".into())
    );
    assert_eq!(
        title(section_node(&fhs, "Chapter 4")),
        Some("Chapter 4. The /usr Hierarchy".into())
    );
    assert_eq!(title(section_node(&fhs, "section 4")), None);
    assert_eq!(title(section_node(&fhs, "section 7.1")), None);
}
