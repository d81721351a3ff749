//! SEC filings as a reader sees them (`fixtures/filings/`): the cover page names the document,
//! the contents list and the Item/Note schemes give the tree, tables read as pipe tables whose
//! header travels with any read inside them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use docnav::nav::{Role, Session, Status};
use docnav::tree::{BuildOptions, NodeId, Tree};
use docnav::workspace::{InMemoryLibrary, Library};
use pretty_assertions::assert_eq;

/// `fixtures/filings/NAME`.
pub fn filing(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/filings")
        .join(name)
}

/// Apple's FY2019 10-K (`apple-2019-10k`) and Costco's 8-K of 2023-08-09.
fn library() -> Arc<dyn Library> {
    static LIB: OnceLock<Arc<InMemoryLibrary>> = OnceLock::new();
    LIB.get_or_init(|| {
        let paths = ["APPLE_2019_10K.pdf", "COSTCO_2023_8K_dated-2023-08-09.pdf"].map(filing);
        Arc::new(InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap())
    })
    .clone()
}

fn apple() -> Arc<docnav::workspace::Document> {
    library().document("apple-2019-10k").unwrap()
}

/// The first node titled `title`, in preorder.
fn node_titled(tree: &Tree, title: &str) -> NodeId {
    tree.preorder(NodeId::ROOT)
        .into_iter()
        .find(|&id| tree.node(id).title == title)
        .unwrap_or_else(|| panic!("no node {title:?}"))
}

/// The titles on the path from the root to the first node titled `title`.
fn path_to(tree: &Tree, title: &str) -> Vec<String> {
    let id = node_titled(tree, title);
    tree.title_path(id)
}

fn run(line: &str) -> String {
    let mut s = Session::new(library(), Role::Person);
    let out = s.execute(line).unwrap();
    assert_eq!(out.status, Status::Ok, "{line}: {}", out.text);
    out.text
}

#[test]
fn the_cover_page_names_registrant_form_and_period() {
    assert_eq!(
        apple().tree.root().title,
        "Apple Inc. — Form 10-K, fiscal year ended September 28, 2019"
    );
    let costco = library()
        .document("costco-2023-8k-dated-2023-08-09")
        .unwrap();
    assert_eq!(
        costco.tree.root().title,
        "COSTCO WHOLESALE CORPORATION — Form 8-K, August 9, 2023"
    );
}

#[test]
fn parts_hold_items_items_hold_their_sections_and_notes_nest() {
    let tree = &apple().tree;
    assert_eq!(
        path_to(tree, "Company Background"),
        ["PART I", "Item 1. Business", "Company Background"]
    );
    assert_eq!(
        path_to(tree, "Liquidity and Capital Resources"),
        [
            "PART II",
            "Item 7. Management’s Discussion and Analysis of Financial Condition and Results of Operations",
            "Liquidity and Capital Resources"
        ]
    );
    assert_eq!(
        path_to(tree, "CONSOLIDATED STATEMENTS OF CASH FLOWS"),
        [
            "PART II",
            "Item 8. Financial Statements and Supplementary Data",
            "CONSOLIDATED STATEMENTS OF CASH FLOWS"
        ]
    );
    assert_eq!(
        path_to(tree, "Basis of Presentation and Preparation"),
        [
            "PART II",
            "Item 8. Financial Statements and Supplementary Data",
            "Notes to Consolidated Financial Statements",
            "Note 1 – Summary of Significant Accounting Policies",
            "Basis of Presentation and Preparation"
        ]
    );
    // The body of the 10-K is in its sections, not in the root.
    assert!(tree.root().content.len() * 20 < tree.text_of(NodeId::ROOT).len());
    // No table row, column header or page label became a heading: no title of three or more
    // figures making a third of its words (a certification's title cites `18 U.S.C. SECTION
    // 1350` and `SECTION 906 OF THE SARBANES-OXLEY ACT OF 2002` among 25 words).
    for id in tree.preorder(NodeId::ROOT) {
        let title = &tree.node(id).title;
        let words = title.split_whitespace().count();
        let numbers = title
            .split_whitespace()
            .filter(|w| {
                w.chars().any(|c| c.is_ascii_digit()) && !w.chars().any(char::is_alphabetic)
            })
            .count();
        assert!(
            (numbers < 3 || numbers * 3 < words) && title != "Page",
            "{title:?}"
        );
    }
}

#[test]
fn statements_are_pipe_tables_with_one_header_line() {
    let tree = &apple().tree;
    let ops = node_titled(tree, "CONSOLIDATED STATEMENTS OF OPERATIONS");
    let text = tree.text_of(ops);
    assert!(
        text.contains(
            "| | Years ended September 28, 2019 | Years ended September 29, 2018 | Years ended September 30, 2017 |\n| --- | ---: | ---: | ---: |"
        ),
        "{text}"
    );
    assert!(
        text.contains("| Products | $ 213,883 | $ 225,847 | $ 196,534 |"),
        "{text}"
    );
    assert!(
        text.contains("| Total net sales | 260,174 | 265,595 | 229,234 |"),
        "{text}"
    );
}

/// Issue 42's check: `cat` of the single line holding "Total net sales 260,174" shows the years
/// above it; a grep hit in the table does too.
#[test]
fn a_line_read_inside_a_table_carries_its_header() {
    let grep = run("grep -m 40 'Total net sales \\| 260,174' /apple-2019-10k");
    let hit = grep
        .lines()
        .find(|l| l.contains("| Total net sales | 260,174 |"))
        .unwrap_or_else(|| panic!("{grep}"));
    let location = hit.split(": ").next().unwrap();
    let header = grep
        .lines()
        .take_while(|l| *l != hit)
        .filter(|l| l.contains("[table header]"))
        .last()
        .unwrap();
    assert!(header.contains("September 28, 2019"), "{grep}");
    let (path, line) = location.rsplit_once(':').unwrap();
    let read = run(&format!("cat {path}:{line}-{line}"));
    let lines: Vec<&str> = read.lines().collect();
    assert!(lines[1].starts_with("[table header, line "), "{read}");
    assert!(
        lines[1].contains("Years ended September 28, 2019"),
        "{read}"
    );
    assert_eq!(
        lines[2],
        "| Total net sales | 260,174 | 265,595 | 229,234 |"
    );
}

/// Evidence cut from inside a table (what a Worker's line-range read collects) starts with the
/// table's header line, marked as such.
#[test]
fn evidence_from_inside_a_table_carries_its_header() {
    let doc = apple();
    let tree = &doc.tree;
    let ops = node_titled(tree, "CONSOLIDATED STATEMENTS OF OPERATIONS");
    let text = tree.text_of(ops);
    let row = "| Total net sales | 260,174 | 265,595 | 229,234 |";
    let at = text.find(row).unwrap();
    let start = text[..at].chars().count();
    let chars = start..start + row.chars().count();
    let evidence = docnav::agent::evidence::Evidence::from_read(
        "apple-2019-10k",
        tree,
        ops,
        &chars,
        row.to_string(),
        1.0,
    )
    .unwrap();
    let mut lines = evidence.text.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("[table header, line "),
        "{}",
        evidence.text
    );
    assert!(
        header.contains("Years ended September 28, 2019"),
        "{header}"
    );
    assert_eq!(lines.next(), Some(row));
}

/// Issue 42.1: an outline that covers only an exhibit (one bookmark on the last page) does not
/// make the 10-K one root of text: the printed headings replace it.
#[test]
fn an_outline_of_one_exhibit_gives_way_to_the_printed_headings() {
    use lopdf::{dictionary, Object};
    let path = filing("APPLE_2019_10K.pdf");
    let mut doc = lopdf::Document::load(&path).unwrap();
    let last_page = *doc.get_pages().values().last().unwrap();
    let outlines = doc.new_object_id();
    let entry = doc.new_object_id();
    doc.objects.insert(
        entry,
        Object::Dictionary(dictionary! {
            "Title" => Object::string_literal("Deferred Compensation Plan (bookmark)"), "Parent" => outlines,
            "Dest" => vec![Object::Reference(last_page), "Fit".into()],
        }),
    );
    super::parse_pdf::attach_outlines(&mut doc, outlines, (entry, entry, 1));
    let bytes = super::parse_pdf::save(doc);

    let parsed = docnav::parse::pdf::parse_pdf(&path, &bytes).unwrap();
    let titles: Vec<&str> = parsed.sections.iter().map(|s| s.title.as_str()).collect();
    assert!(titles.len() > 50, "{titles:?}");
    assert!(
        titles.iter().any(|t| t.starts_with("Item 7.")),
        "{titles:?}"
    );
    assert!(
        !titles.contains(&"Deferred Compensation Plan (bookmark)"),
        "{titles:?}"
    );
    let total: usize = parsed.sections.iter().map(|s| s.content.len()).sum();
    assert!(parsed.preamble.content.len() * 10 < total);
}

/// McDonald's 10-K for 2022 prints a contents list of titles alone (no Items; page numbers at
/// one right edge), a cross-reference index whose `Part I` … `Part IV` sit on one page, and
/// exhibits in larger type than the 10-K: the list places its titles at its levels and holds
/// the subsections it leaves out, the cover page is no heading, the index's Parts divide
/// nothing, each exhibit is a top-level node, and an exhibit's paragraphs are no headings.
#[test]
fn a_contents_list_of_titles_alone_gives_the_tree_and_exhibits_stand_apart() {
    let path = filing("MCDONALDS_2022_10K.pdf");
    let library = InMemoryLibrary::from_paths(&[path], &BuildOptions::default()).unwrap();
    let tree = &library.document("mcdonalds-2022-10k").unwrap().tree;
    let top: Vec<&str> = tree
        .node(NodeId::ROOT)
        .children
        .iter()
        .map(|&id| tree.node(id).title.as_str())
        .collect();
    assert_eq!(
        top[..4],
        [
            "FORWARD-LOOKING STATEMENTS",
            "ABOUT McDONALD'S",
            "MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF OPERATIONS",
            "Other Key Information",
        ],
        "{top:?}"
    );
    for exhibit in [
        "Exhibit 10(l)",
        "Exhibit 21. Subsidiaries of the Registrant",
        "Exhibit 31.1. Rule 13a-14(a) Certification of Chief Executive Officer",
    ] {
        assert!(top.contains(&exhibit), "{exhibit} not top-level: {top:?}");
    }
    assert_eq!(
        path_to(tree, "GENERAL"),
        ["ABOUT McDONALD'S", "BUSINESS SUMMARY", "GENERAL"]
    );
    assert_eq!(
        path_to(tree, "RISK FACTORS"),
        ["Other Key Information", "RISK FACTORS"]
    );
    assert_eq!(
        path_to(tree, "Consolidated Statement of Cash Flows"),
        [
            "Financial Statements and Supplementary Data",
            "Consolidated Statement of Cash Flows"
        ]
    );
    assert_eq!(
        path_to(tree, "Part IV"),
        ["Form 10-K Cross-Reference Index", "Part IV"]
    );
    assert_eq!(
        path_to(tree, "ARTICLE III. Eligibility"),
        ["Exhibit 10(l)", "ARTICLE III. Eligibility"]
    );
    let titles: Vec<&str> = tree
        .preorder(NodeId::ROOT)
        .into_iter()
        .map(|id| tree.node(id).title.as_str())
        .collect();
    // The cover page's lines; the severance plan's definitions, set in its 10.8-point body
    // type (the 10-K's is 8.1).
    for not_a_heading in [
        "UNITED STATES",
        "Washington, DC 20549",
        "Termination Date.",
        "Code.",
        "Claim. “Claim” means a written application for Severance Benefits under Section 10.1 of the Plan.",
        "Company Vehicle: Section 4.8 of the Plan shall apply to each Participant who has a company-provided vehicle.",
    ] {
        assert!(
            !titles.contains(&not_a_heading),
            "{not_a_heading:?} is a node"
        );
    }
}

/// True when `title` stops mid-phrase: it ends in a comma or an article, preposition or
/// conjunction (`Cash and`, `CERTIFICATION PURSUANT TO`).
fn ends_mid_phrase(title: &str) -> bool {
    const FUNCTION_WORDS: &[&str] = &[
        "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "pursuant", "the",
        "to", "under", "with",
    ];
    let last = title.split_whitespace().last().unwrap_or("");
    title.ends_with(',') || FUNCTION_WORDS.contains(&last.to_lowercase().as_str())
}

/// A heading printed over several lines is one title — Apple's certification over five centred
/// lines, McDonald's plan sections over two — and what only looks like one stays text: a
/// table's header cell (`Cash and` over the `Cash Equivalents` column), a heading's lone second
/// line. No node of either 10-K ends mid-phrase.
#[test]
fn a_heading_over_several_lines_is_one_title_and_fragments_are_no_headings() {
    let apple = apple();
    let mcdonalds = InMemoryLibrary::from_paths(
        &[filing("MCDONALDS_2022_10K.pdf")],
        &BuildOptions::default(),
    )
    .unwrap()
    .document("mcdonalds-2022-10k")
    .unwrap();
    let certification = "CERTIFICATIONS OF CHIEF EXECUTIVE OFFICER AND CHIEF FINANCIAL OFFICER \
                         PURSUANT TO 18 U.S.C. SECTION 1350, AS ADOPTED PURSUANT TO SECTION 906 \
                         OF THE SARBANES-OXLEY ACT OF 2002";
    assert_eq!(
        path_to(&apple.tree, certification),
        ["Exhibit 32.1", certification]
    );
    assert_eq!(
        path_to(
            &mcdonalds.tree,
            "Severance Benefits for Qualifying Outsourced Employees"
        ),
        [
            "Exhibit 10(l)",
            "Appendix II – Schedules of Benefits",
            "Severance Benefits for Qualifying Outsourced Employees"
        ]
    );
    for doc in [&apple, &mcdonalds] {
        let tree = &doc.tree;
        let titles: Vec<&str> = tree
            .preorder(NodeId::ROOT)
            .into_iter()
            .map(|id| tree.node(id).title.as_str())
            .collect();
        let cut: Vec<&&str> = titles.iter().filter(|t| ends_mid_phrase(t)).collect();
        assert!(cut.is_empty(), "{}: {cut:?}", doc.card.doc_id);
        for fragment in [
            "Cash and",
            "Number of",
            "PURSUANT TO",
            "AS ADOPTED PURSUANT TO",
        ] {
            assert!(
                !titles.contains(&fragment),
                "{}: {fragment:?}",
                doc.card.doc_id
            );
        }
    }
}
