use super::*;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// (level, title, lines, content) of each section.
fn outline(doc: &ParsedDoc) -> Vec<(u32, String, std::ops::Range<u32>, String)> {
    doc.sections
        .iter()
        .map(|s| {
            (
                s.level,
                s.title.clone(),
                s.lines.clone().unwrap(),
                s.content.clone(),
            )
        })
        .collect()
}

fn sec(
    level: u32,
    title: &str,
    lines: std::ops::Range<u32>,
    content: &str,
) -> (u32, String, std::ops::Range<u32>, String) {
    (level, title.to_string(), lines, content.to_string())
}

#[test]
fn atx_and_setext_with_exact_lines_and_verbatim_content() {
    let text = "intro\n\n# Title *em*\n\ntext\n\nSub `code`\n---\nbody\n### [Deep](x) <b>x</b>\n";
    let doc = parse_markdown(text);
    assert_eq!(doc.preamble.content, "intro\n\n");
    assert_eq!(doc.preamble.lines, Some(1..3));
    assert_eq!(
        outline(&doc),
        vec![
            sec(1, "Title em", 3..7, "\ntext\n\n"),
            sec(2, "Sub code", 7..10, "body\n"),
            sec(3, "Deep x", 10..11, ""),
        ]
    );
    assert_eq!(doc.sections[0].content_first_line, Some(4));
    assert_eq!(doc.sections[1].content_first_line, Some(9));
    assert_eq!(doc.source_units, 10);
}

#[test]
fn fenced_hash_and_dash_lines_are_not_headings() {
    let text = "# A\n```sh\n# comment\nfoo\n---\n```\n    # indented code\n## B\n";
    let doc = parse_markdown(text);
    let titles: Vec<_> = doc.sections.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, vec!["A", "B"]);
    assert_eq!(
        doc.sections[0].content,
        "```sh\n# comment\nfoo\n---\n```\n    # indented code\n"
    );
}

#[test]
fn front_matter_is_metadata_not_content() {
    let text = "---\ntitle: Guide\nlang: en\n---\n\nHello\n\n## One\n";
    let doc = parse_markdown(text);
    assert_eq!(doc.title.as_deref(), Some("Guide"));
    assert_eq!(doc.metadata.len(), 2);
    assert_eq!(doc.preamble.content, "\nHello\n\n");
    assert_eq!(doc.preamble.lines, Some(5..8));
    assert_eq!(outline(&doc), vec![sec(2, "One", 8..9, "")]);
}

#[test]
fn midway_dashes_are_setext_not_metadata() {
    let doc = parse_markdown("Para\n\n---\nkey: value\n---\n");
    assert_eq!(doc.metadata, vec![]);
    assert_eq!(outline(&doc), vec![sec(2, "key: value", 4..6, "")]);
}

#[test]
fn html_heading_blocks_are_headings() {
    let text = "<p>logo</p>\n\n<h1 align=\"center\">Vant</h1>\n\n## Intro\n\n<h3 name=\"q\">\nWhy?\n</h3>\n\nBecause.\n";
    let doc = parse_markdown(text);
    assert_eq!(
        outline(&doc),
        vec![
            sec(1, "Vant", 3..5, "\n"),
            sec(2, "Intro", 5..7, "\n"),
            sec(3, "Why?", 7..12, "\nBecause.\n"),
        ]
    );
    assert_eq!(doc.sections[2].content_first_line, Some(10));
}

#[test]
fn no_headings_is_all_preamble() {
    let doc = parse_markdown("just text\n\n- a list\n");
    assert!(doc.sections.is_empty());
    assert_eq!(doc.preamble.content, "just text\n\n- a list\n");
    assert_eq!(doc.preamble.lines, Some(1..4));
}

#[test]
fn empty_and_crlf_inputs() {
    let doc = parse_markdown("");
    assert_eq!((doc.source_units, doc.sections.len()), (0, 0));
    let doc = parse_markdown("\u{feff}# A\r\nx\r\n## B\r\n");
    assert_eq!(
        outline(&doc),
        vec![sec(1, "A", 1..3, "x\r\n"), sec(2, "B", 3..4, "")]
    );
}

/// Found by proptest: a last heading on a last line without `\n` has empty content that starts
/// at line count + 1, not back on its own line.
#[test]
fn last_heading_without_newline_has_content_after_it() {
    let text = "# H1\n-->\n# H1";
    let doc = parse_markdown(text);
    assert_eq!(
        outline(&doc),
        vec![sec(1, "H1", 1..3, "-->\n"), sec(1, "H1", 3..4, "")]
    );
    assert_eq!(doc.sections[1].content_first_line, Some(4));
    check_invariants(text, &doc);
}

/// Preamble and sections tile the body exactly: every content is the verbatim slice from its
/// first line to the next heading, and line ranges are contiguous up to line count + 1.
fn check_invariants(text: &str, doc: &ParsedDoc) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let idx = LineIndex::new(body);
    let starts: Vec<usize> = doc
        .sections
        .iter()
        .map(|s| idx.start_of(s.lines.clone().unwrap().start))
        .chain(std::iter::once(body.len()))
        .collect();
    let pre_from = idx.start_of(doc.preamble.content_first_line.unwrap());
    assert_eq!(&body[pre_from..starts[0]], doc.preamble.content);
    let mut line = doc.preamble.lines.clone().unwrap().end;
    for (i, s) in doc.sections.iter().enumerate() {
        let lines = s.lines.clone().unwrap();
        assert_eq!(lines.start, line, "gap or overlap before {:?}", s.title);
        assert!(lines.end > lines.start);
        assert!((1..=6).contains(&s.level));
        let from = idx.start_of(s.content_first_line.unwrap());
        assert_eq!(&body[from..starts[i + 1]], s.content);
        line = lines.end;
    }
    assert_eq!(line, doc.source_units + 1);
}

proptest! {
    #[test]
    fn never_panics_on_random_text(text in "\\PC{0,200}") {
        let doc = parse_markdown(&text);
        check_invariants(&text, &doc);
    }

    #[test]
    fn never_panics_on_markdown_line_mixes(lines in prop::collection::vec(prop::sample::select(vec![
        "# H1", "## H2 `c`", "###### H6 ###", "####### not", "Setext", "===", "---", "+++",
        "title: x", "```", "~~~", "    # code", "> # quoted", "- # item", "<h2>html</h2>",
        "<h3 name=x>", "</h3>", "<!--", "-->", "| a | b |", "|---|---|", "[^1]: note", "",
        "text é 日本", "\t# tab", "\r", "<pre>", "</pre>",
    ]), 0..40)) {
        let text = lines.join("\n");
        let doc = parse_markdown(&text);
        check_invariants(&text, &doc);
    }
}
