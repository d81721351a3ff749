//! Property test of Markdown parsing and tree building over generated heading structures (issue
//! 11, point 6): ATX, setext and HTML headings at random (skipping) levels, with paragraphs, lists
//! and code fences holding heading-like lines between them, built with small and default leaf
//! budgets.
//!
//! The invariant, stated on source lines because that is what nodes carry (`Node::lines`):
//! every line of the document lies in exactly one node's *own span* — a node's `lines`, except
//! that a node split into `Part N` children owns only its heading line(s) and each Part owns its
//! chunk. And byte for byte: a heading node's own span is its heading's source followed by
//! exactly its `content`; the root's is the text before the first heading (its `content`); a
//! Part's is its `content` up to trailing whitespace (the build stage trims a chunk's end). A
//! document rooted at its only h1 keeps the text before the h1 and the h1's content in the root
//! with the h1's line(s) emptied (the title is the root's heading), so its content and its Parts
//! still line up with the source. So every byte of the source is in exactly one node's span, and
//! no node's text comes from outside its span. (Front matter, which the generator does not
//! make, is metadata and in no node.)

use docnav::parse::markdown::parse_markdown;
use docnav::tree::{build_tree, BuildOptions, NodeId, Tree};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Style {
    Atx,
    Setext,
    Html,
}

#[derive(Debug, Clone)]
enum Block {
    Heading {
        level: u32,
        style: Style,
        title: String,
    },
    Paragraph(Vec<String>),
    List(Vec<String>),
    /// A closed code fence whose lines look like headings and setext underlines.
    Fence(Vec<String>),
}

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "δέλτα",
    "日本語",
    "café",
    "see",
    "Section",
    "2.1",
    "x1",
    "§3",
    "#tag",
    "`code`",
    "*em*",
    "word",
];

fn words(min: usize, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), min..max).prop_map(|w| w.join(" "))
}

/// Title words: no inline markup (a title is shown without it).
fn title_words() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(&["alpha", "δέλτα", "日本語", "café", "x1", "2.1"][..]),
        0..3,
    )
    .prop_map(|w| w.join(" "))
}

/// A line of prose that starts with a letter (so it opens no other block).
fn prose() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["Text", "More", "Über", "Then"][..]),
        words(0, 8),
    )
        .prop_map(|(first, rest)| format!("{first} {rest}").trim_end().to_string())
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        4 => (1u32..=6, 0u8..3, prop::sample::select(&["Intro", "Usage", "Über", "FAQ", "日本"][..]), title_words())
            .prop_map(|(level, style, first, rest)| {
                let style = match style {
                    1 if level <= 2 => Style::Setext,
                    2 => Style::Html,
                    _ => Style::Atx,
                };
                Block::Heading { level, style, title: format!("{first} {rest}").trim_end().to_string() }
            }),
        3 => prop::collection::vec(prose(), 1..4).prop_map(Block::Paragraph),
        1 => prop::collection::vec(prose(), 1..3).prop_map(Block::List),
        1 => prop::collection::vec(prop::sample::select(&["# not a heading", "## nor this", "===", "---", "<h2>no</h2>", "plain"][..]), 0..4)
            .prop_map(|l| Block::Fence(l.into_iter().map(String::from).collect())),
    ]
}

/// The heading's source lines, without the final line end.
fn heading_source(level: u32, style: &Style, title: &str) -> String {
    match style {
        Style::Atx => format!("{} {title}", "#".repeat(level as usize)),
        Style::Setext => format!("{title}\n{}", if level == 1 { "=====" } else { "-----" }),
        Style::Html => format!("<h{level}>{title}</h{level}>"),
    }
}

fn render(blocks: &[Block], trailing_newline: bool) -> (String, Vec<(u32, String, String)>) {
    let mut parts = Vec::new();
    let mut headings = Vec::new();
    for b in blocks {
        parts.push(match b {
            Block::Heading {
                level,
                style,
                title,
            } => {
                let src = heading_source(*level, style, title);
                headings.push((*level, title.clone(), src.clone()));
                src
            }
            Block::Paragraph(lines) => lines.join("\n"),
            Block::List(items) => items
                .iter()
                .map(|i| format!("- {i}"))
                .collect::<Vec<_>>()
                .join("\n"),
            Block::Fence(lines) => format!("```\n{}\n```", lines.join("\n")),
        });
    }
    let mut text = parts.join("\n\n");
    if trailing_newline && !text.is_empty() {
        text.push('\n');
    }
    (text, headings)
}

/// Byte offset where 1-based `line` starts (the text length past the end).
fn line_start(text: &str, line: u32) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n')
        .nth(line as usize - 2)
        .map_or(text.len(), |(i, _)| i + 1)
}

fn span<'a>(text: &'a str, lines: &std::ops::Range<u32>) -> &'a str {
    &text[line_start(text, lines.start)..line_start(text, lines.end)]
}

/// Byte offset of `heading`'s source at a line start in `text`.
fn heading_at(text: &str, heading: &str) -> Option<usize> {
    text.match_indices(heading)
        .map(|(i, _)| i)
        .find(|i| *i == 0 || text[..*i].ends_with('\n'))
}

/// Check the invariant of the module doc on `tree` built from `text`.
fn check(text: &str, headings: &[(u32, String, String)], tree: &Tree) -> Result<(), TestCaseError> {
    let rooted = headings.first().is_some_and(|h| h.0 == 1)
        && headings.iter().filter(|h| h.0 == 1).count() == 1;
    let heading_end = headings.len() + 1 - usize::from(rooted);
    let nodes: Vec<NodeId> = (0..tree.len()).map(|i| NodeId(i as u32)).collect();
    // Titles, in source order.
    let titles: Vec<&str> = nodes[1..heading_end]
        .iter()
        .map(|id| tree.node(*id).title.as_str())
        .collect();
    let want: Vec<&str> = headings
        .iter()
        .skip(usize::from(rooted))
        .map(|h| h.1.as_str())
        .collect();
    prop_assert_eq!(titles, want);

    // Own spans tile the document's lines.
    let part_of = |id: NodeId| id.index() >= heading_end;
    let mut owned: Vec<(std::ops::Range<u32>, NodeId)> = Vec::new();
    for id in &nodes {
        let node = tree.node(*id);
        let lines = node.lines.clone().expect("Markdown nodes have lines");
        let own = match node.children.first().filter(|c| part_of(**c)) {
            Some(part) => lines.start..tree.node(*part).lines.clone().unwrap().start,
            None => lines,
        };
        owned.push((own, *id));
    }
    owned.sort_by_key(|(r, id)| (r.start, r.end, id.index()));
    let line_count = text.lines().count() as u32;
    let mut next = 1;
    for (range, id) in &owned {
        prop_assert_eq!(
            range.start,
            next,
            "gap or overlap at node {:?} {:?}",
            id,
            range
        );
        prop_assert!(range.end >= range.start);
        next = range.end;
    }
    prop_assert_eq!(next, line_count + 1);

    // Byte for byte. A document rooted at its only h1 with text before it keeps that text and
    // the h1's content in the root, the h1's line(s) emptied: compare with `reference`.
    let mut reference = text.to_string();
    let mut blank_before_h1 = false;
    if rooted {
        let h1 = &headings[0].2;
        let at = heading_at(text, h1);
        prop_assert!(at.is_some(), "h1 {:?} not found", h1);
        let (pre, rest) = text.split_at(at.unwrap_or_default());
        let after = &rest[h1.len()..];
        let after = after.strip_prefix('\n').unwrap_or(after);
        if pre.trim().is_empty() {
            blank_before_h1 = true;
        } else {
            reference = format!("{pre}{}{after}", "\n".repeat(h1.lines().count()));
        }
    }
    for (range, id) in &owned {
        let node = tree.node(*id);
        let i = id.index();
        if part_of(*id) {
            let source = span(&reference, range);
            prop_assert_eq!(source.trim_end(), node.content.trim_end(), "Part {}", i);
            continue;
        }
        let has_parts = node.children.first().is_some_and(|c| part_of(*c));
        let source = span(text, range);
        if i == 0 && !rooted {
            prop_assert_eq!(source, node.content.as_str(), "root");
            continue;
        }
        let heading = &headings[if i == 0 {
            0
        } else {
            i - 1 + usize::from(rooted)
        }]
        .2;
        if has_parts {
            // The node owns its heading (and, for the root, blank lines before it) only.
            prop_assert_eq!(node.content.as_str(), "");
            if !(i == 0 && reference != text) {
                prop_assert_eq!(source.trim(), heading.as_str(), "node {}", i);
            }
            continue;
        }
        if i == 0 {
            if blank_before_h1 {
                // Blank lines, the h1, then exactly the root's content.
                let at = heading_at(source, heading);
                prop_assert!(at.is_some(), "root span {:?}", source);
                let (pre, rest) = source.split_at(at.unwrap_or_default());
                prop_assert_eq!(pre.trim(), "");
                let rest = &rest[heading.len()..];
                let rest = rest.strip_prefix('\n').unwrap_or(rest);
                prop_assert_eq!(node.content.as_str(), rest, "root");
            } else {
                prop_assert_eq!(node.content.as_str(), span(&reference, range), "root");
            }
            continue;
        }
        let rest = source.strip_prefix(heading.as_str());
        prop_assert!(
            rest.is_some(),
            "node {} span {:?} does not start with {:?}",
            i,
            source,
            heading
        );
        let rest = rest.unwrap_or_default();
        let rest = rest.strip_prefix('\n').unwrap_or(rest);
        prop_assert_eq!(rest, node.content.as_str(), "node {}", i);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_line_and_byte_is_in_exactly_one_node(
        blocks in prop::collection::vec(block(), 0..24),
        trailing_newline in any::<bool>(),
        leading_blank in any::<bool>(),
        max_leaf_tokens in prop::sample::select(vec![8u32, 30, 4000]),
    ) {
        let (mut text, headings) = render(&blocks, trailing_newline);
        if leading_blank {
            text.insert_str(0, "\n\n");
        }
        let tree = build_tree(
            parse_markdown(&text),
            &BuildOptions { max_leaf_tokens, ..BuildOptions::default() },
        );
        check(&text, &headings, &tree)?;
    }
}
