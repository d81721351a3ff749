use pretty_assertions::assert_eq;

use super::*;
use crate::parse::{markdown::parse_markdown, text::parse_text};
use crate::tree::{build_tree, BuildOptions};

fn md(text: &str) -> Tree {
    build_tree(parse_markdown(text), &BuildOptions::default())
}

/// `(title, [titles it references])` for every node with references, in reading order.
fn refs(tree: &Tree) -> Vec<(String, Vec<String>)> {
    tree.preorder(NodeId::ROOT)
        .into_iter()
        .map(|id| tree.node(id))
        .filter(|n| !n.references.is_empty())
        .map(|n| {
            let to = n.references.iter().map(|r| tree.node(*r).title.clone());
            (n.title.clone(), to.collect())
        })
        .collect()
}

fn pairs(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.iter().map(|s| s.to_string()).collect()))
        .collect()
}

#[test]
fn markdown_links_resolve_to_slugs_and_explicit_anchors() {
    let tree = md("# Guide\n\
        See [usage](#usage), [again](#usage-1 \"title\"), [faq][f], <a href=\"#q\">q</a>,\n\
        [nowhere](#missing), [other file](other.md#usage) and [self](#guide).\n\n\
        [f]: #faq\n\n\
        ## Usage\n\nFirst. Back to [the top](#guide) and [me](#usage).\n\n\
        ## Usage\n\nSecond: [first](#Usage), [again](#usage), [encoded](#q--%61).\n\n\
        <h2 id=\"faq\">Questions</h2>\n\nSee [the tag](#tagged).\n\n\
        <a name=\"q\"></a>\n\
        ## Q & A {#qa}\n\n<span id=\"tagged\">tagged</span> text, [qa](#qa).\n\n\
        ```\n[in a fence](#usage)\n```\n");
    assert_eq!(
        refs(&tree),
        pairs(&[
            ("Guide", &["Usage", "Usage", "Questions", "Q & A"]),
            ("Usage", &["Guide"]),
            ("Usage", &["Usage", "Q & A"]),
            ("Questions", &["Q & A"]),
        ])
    );
    // `#usage-1` names the second `Usage`, `#usage` the first; `[faq][f]` counts where it is
    // used, not where `[f]: #faq` is defined.
    let at = |s: &str| tree.by_structure(s).unwrap();
    assert_eq!(
        tree.root().references,
        vec![at("1"), at("2"), at("3"), at("4")]
    );
}

#[test]
fn markdown_duplicate_slug_links_name_the_right_heading() {
    let tree = md("# Doc\n\n[a](#usage-1)\n\n## Usage\n\nx\n\n## Usage\n\ny\n");
    assert_eq!(
        tree.root().references,
        vec![tree.by_structure("2").unwrap()]
    );
}

#[test]
fn textual_references_use_printed_numbers_and_keywords() {
    let text = "Manual\n\n\
        1 Start\n\nRead this first. See Section 2.1 for searching, see Chapter 2, and\n\
        the end §3; see section 1.1 too.\n\n\
        1.1 Choosing\n\nPer RFC 7230 Section 3 and Subsection 2.1 nothing happens.\n\
        Section 1.1 is this one. see also Section 9 is missing.\n\n\
        2 Navigating\n\nUse ls.\n\n\
        2.1 Searching\n\nfind ranks; Section 1 is where to begin.\n\
        Chapter 3: End 12\n\
        Chapter 3. End\n\
        12 Chapter 2. Navigating\n\
        Chapter 3\n\
        Section 1.1 [Choosing] starts a line but is a reference; see Chapter 2 again.\n\n\
        3 End\n\nBye (section 1 is not a reference without see).\n";
    let tree = build_tree(parse_text(text), &BuildOptions::default());
    assert_eq!(
        refs(&tree),
        pairs(&[
            (
                "1 Start",
                &["2.1 Searching", "2 Navigating", "3 End", "1.1 Choosing"]
            ),
            // `12 Chapter 2. Navigating` names the parent without "see": a running header.
            (
                "2.1 Searching",
                &["1 Start", "1.1 Choosing", "2 Navigating"]
            ),
        ])
    );
}

#[test]
fn table_of_contents_lines_are_not_references() {
    let tree = md("# Manual\n\n\
        Table of Contents\n\
        Appendix A A sample session . . . . . . 78\n\
        Chapter 2 Navigating........ix\n\
        See Chapter 2 for the commands (and 3 more).\n\n\
        ## 1 Start\n\nSee Appendix A, pages 1...3.\n\n\
        ## 2 Navigating\n\nUse ls.\n\n\
        ## Appendix A A sample session\n\nHello.\n");
    assert_eq!(
        refs(&tree),
        pairs(&[
            ("Manual", &["2 Navigating"]),
            ("1 Start", &["Appendix A A sample session"]),
        ])
    );
}

#[test]
fn derived_numbers_and_keyword_agreement() {
    // Outline-like tree: chapters print numbers, their sections do not (as in R-intro).
    let tree = md(
        "# Book\n\nSee Section 2.2.1 and Chapter 1; Section 3 is a man page section.\n\n\
        ## Preface\n\nx\n\n## 1 Intro\n\ny\n\n## Chapter 2. Lists\n\nz\n\n### Making lists\n\n\
        ### Changing lists\n\n#### Concatenating lists\n\nSee Section 2.1.\n\n\
        ## Chapter 3. Files\n\nSee Chapter 3 here.\n",
    );
    assert_eq!(
        refs(&tree),
        pairs(&[
            ("Book", &["Concatenating lists", "1 Intro"]),
            ("Concatenating lists", &["Making lists"]),
        ])
    );
}

#[test]
fn structure_numbers_only_when_no_title_is_numbered_and_not_in_markdown() {
    // Unnumbered headings: root → A → A.x, and B.
    let doc = crate::parse::ParsedDoc {
        format: DocFormat::Pdf,
        title: None,
        metadata: vec![],
        preamble: crate::parse::RawSection {
            content: "See Section 2 and see Section 1.1 and Section 3. Section 1 alone and \
                Chapter 2 of Another Book are not."
                .into(),
            ..Default::default()
        },
        sections: [("A", 1), ("A.x", 2), ("B", 1)]
            .iter()
            .map(|(t, level)| crate::parse::RawSection {
                level: *level,
                title: (*t).into(),
                ..Default::default()
            })
            .collect(),
        pages_without_text: vec![],
        source_units: 1,
        warnings: vec![],
    };
    let tree = build_tree(doc.clone(), &BuildOptions::default());
    assert_eq!(refs(&tree), pairs(&[("document", &["B", "A.x"])]));
    let markdown = crate::parse::ParsedDoc {
        format: DocFormat::Markdown,
        ..doc
    };
    let tree = build_tree(markdown, &BuildOptions::default());
    assert_eq!(refs(&tree), pairs(&[]));
}

#[test]
fn printed_numbers_of_titles() {
    let cases: [(&str, Option<(RefKind, &str)>); 10] = [
        ("2.1 Vectors", Some((RefKind::Any, "2.1"))),
        ("3.18. /tmp : Temporary files", Some((RefKind::Any, "3.18"))),
        (
            "Chapter 3. The Root Filesystem",
            Some((RefKind::Chapter, "3")),
        ),
        ("A A sample session", Some((RefKind::Any, "A"))),
        ("Appendix B Invoking R", Some((RefKind::Appendix, "B"))),
        ("12 Graphical procedures", Some((RefKind::Any, "12"))),
        ("Preface", None),
        ("I/O", None),
        ("X11 forwarding", None),
        ("A", None),
    ];
    for (title, want) in cases {
        let want = want.map(|(k, n)| (k, n.to_string()));
        assert_eq!(printed_number(title), want, "{title}");
    }
}

#[test]
fn reference_style_links_count_where_used() {
    let tree = md(
        "# Doc\n\n## Intro\n\nSee [`fs.Stats`][] and [the options][opts], [Opts] too.\n\
        [Not defined][] is no link.\n\n\
        ## Class: fs.Stats\n\nx\n\n## Options\n\ny\n\n\
        [`fs.Stats`]: #class-fsstats\n[OPTS]: #options\n",
    );
    assert_eq!(
        refs(&tree),
        pairs(&[("Intro", &["Class: fs.Stats", "Options"])])
    );
}

#[test]
fn headings_named_by_title_as_man_pages_do() {
    let section = |level: u32, title: &str, content: &str| crate::parse::RawSection {
        level,
        title: title.into(),
        content: content.into(),
        ..Default::default()
    };
    let doc = crate::parse::ParsedDoc {
        format: crate::tree::DocFormat::Pdf,
        title: None,
        metadata: Vec::new(),
        preamble: Default::default(),
        sections: vec![
            section(1, "OPTIONS", "-l act as a login shell (see INVOCATION below).\nSee SEE\nALSO below; see POSIX below; oversee INVOCATION below."),
            section(1, "INVOCATION", "A login shell (see OPTIONS above), see Arrays below."),
            section(1, "PARAMETERS", "the TIMEFORMAT variable under Shell Variables below"),
            section(2, "Shell Variables", "see INVOCATION above"),
            section(2, "Arrays", "arrays"),
            section(1, "SEE ALSO", "bash(1)"),
        ],
        pages_without_text: Vec::new(),
        source_units: 1,
        warnings: Vec::new(),
    };
    let tree = build_tree(doc, &BuildOptions::default());
    assert_eq!(
        refs(&tree),
        pairs(&[
            ("OPTIONS", &["INVOCATION", "SEE ALSO"]),
            ("INVOCATION", &["OPTIONS", "Arrays"]),
            ("PARAMETERS", &["Shell Variables"]),
            ("Shell Variables", &["INVOCATION"]),
        ])
    );
}

/// `(node title, name, section)` of every other document named in `tree`.
fn named(tree: &Tree) -> Vec<(String, String, Option<String>)> {
    tree.links
        .named
        .iter()
        .map(|m| {
            let title = tree.node(m.from).title.clone();
            (title, m.name.clone(), m.section.clone())
        })
        .collect()
}

fn mention(title: &str, name: &str, section: Option<&str>) -> (String, String, Option<String>) {
    (title.into(), name.into(), section.map(String::from))
}

#[test]
fn other_documents_named_in_the_text_are_kept_as_written() {
    let tree = md("# Policy\n\n\
        Packages must not create subdirectories in /usr/local itself, except those listed in\n\
        FHS, section 4.9. As mandated by the FHS, nothing else (see the FHS web site).\n\n\
        ## Libraries\n\n\
        Triplet directories (see the FHS for a definition); see section 4.9 of the\n\
        Filesystem Hierarchy Standard; In FHS section 3.2 too; see the FHS for a definition.\n\n\
        ## R\n\n\
        Lower limit: see ‘An Introduction to R’). For more, see the ‘Introduction to R’ manual.\n\
        See Also\nAn Introduction to R for more command-line options. Read the Node.js `fs`\n\
        docs; see the Node.js `fs` documentation.\n\n\
        ## Not names\n\n\
        See Section 2.1, see below, see the documentation, see chmod(2), Chapter 3 of this\n\
        manual, New York. Sections 3.3, and\nTable of Contents\nChapter 1: Overview . . . . 5\n\n\
        ```\nsee the FHS\n```\n");
    assert_eq!(
        named(&tree),
        vec![
            mention("Policy", "FHS", Some("section 4.9")),
            mention("Libraries", "FHS", None),
            mention(
                "Libraries",
                "Filesystem Hierarchy Standard",
                Some("section 4.9")
            ),
            mention("Libraries", "FHS", Some("section 3.2")),
            mention("R", "An Introduction to R", None),
            mention("R", "Introduction to R manual", None),
            mention("R", "Introduction to R", None),
            mention("R", "Node.js fs documentation", None),
        ]
    );
    // Plain text and PDFs are scanned too.
    let text = build_tree(
        parse_text("Manual\n\n1 Start\n\nSee the Stream documentation.\n"),
        &BuildOptions::default(),
    );
    assert_eq!(
        named(&text),
        vec![mention("1 Start", "Stream documentation", None)]
    );
}
