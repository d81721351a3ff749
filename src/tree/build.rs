//! Build stage (DESIGN.md §2): a [`ParsedDoc`] becomes a [`Tree`].
//!
//! - Every heading or outline entry becomes a node. A skipped level (`###` right under `#`) makes
//!   the deeper heading a child of the nearest shallower one, so no synthetic wrapper nodes are ever
//!   created and none need removing.
//! - A Markdown document whose first heading is its only level-1 heading is rooted at that heading:
//!   the h1 is the document title, its sections are the top level.
//! - Leaves over `max_leaf_tokens` are split at paragraph boundaries (blank lines outside code
//!   fences; GFM tables have no blank lines, so they are never split) into children titled by
//!   what they hold ([`part_title`]), appended after the headings ([`Tree::first_split`]).
//! - Structure numbers, depths, token estimates and quick summaries are filled in last, then
//!   cross-references are resolved ([`super::references`]).

use std::ops::Range;

use super::parts::{part_pages, part_title};
use super::references::{resolve_references, HeadingNodes};
use super::summary::{quick_summary, QUICK_SUMMARY_MAX_CHARS};
use super::{estimate_tokens, DocFormat, Node, NodeId, SummaryStrategy, Tree};
use crate::parse::{ParsedDoc, RawLink, RawSection};

/// Options of the build stage.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Leaves with more estimated tokens than this are split into `Part N` children (default 4000).
    pub max_leaf_tokens: u32,
    /// Title used when the document names none (usually the file stem).
    pub fallback_title: String,
    /// How the source is parsed (the PDF per-page work bound).
    pub parse: crate::parse::ParseOptions,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_leaf_tokens: 4000,
            fallback_title: String::from("document"),
            parse: crate::parse::ParseOptions::default(),
        }
    }
}

/// Build a tree from a parsed document. Never fails: any parse output makes a valid tree.
pub fn build_tree(doc: ParsedDoc, options: &BuildOptions) -> Tree {
    build_tree_with(doc, options, |_| {})
}

/// [`build_tree`], calling `shaped` with the tree once its nodes are final (titles, content,
/// structure numbers, locations), before their summaries and references are filled: the indexer
/// starts on a large document's entries there.
pub fn build_tree_with(doc: ParsedDoc, options: &BuildOptions, shaped: impl FnOnce(&Tree)) -> Tree {
    let ParsedDoc {
        format,
        title,
        metadata,
        mut preamble,
        sections,
        pages_without_text,
        source_units,
        warnings: _,
    } = doc;

    let single_h1_first = single_h1_first(format, &sections);
    // One node per section and the root: every per-node vector is sized once, so a document of
    // many headings does not copy its nodes on each regrowth.
    let capacity = sections.len() + 1;
    let mut sections = sections.into_iter();
    let root_title;
    let mut anchors: Vec<Option<String>> = Vec::with_capacity(capacity);
    // Link targets inside sections and the links themselves, by the node they belong to.
    let mut section_ids: Vec<(String, NodeId)> = Vec::new();
    let mut links: Vec<(NodeId, RawLink)> = Vec::new();
    let mut take_links = |id: NodeId, section: &mut RawSection| {
        section_ids.extend(section.ids.drain(..).map(|a| (a, id)));
        links.extend(section.links.drain(..).map(|l| (id, l)));
    };
    take_links(NodeId::ROOT, &mut preamble);
    let h1 = if single_h1_first {
        sections.next()
    } else {
        None
    };
    if let Some(mut h1) = h1 {
        take_links(NodeId::ROOT, &mut h1);
        root_title = h1.title.clone();
        anchors.push(h1.anchor.clone());
        preamble = merge_preamble(preamble, h1);
    } else {
        root_title = title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| options.fallback_title.clone());
        anchors.push(None);
    }

    let root = Node {
        title: root_title,
        content: preamble.content,
        summary: String::new(),
        structure: String::new(),
        depth: 0,
        parent: None,
        children: Vec::new(),
        lines: preamble.lines,
        pages: preamble.pages,
        token_count: 0,
        references: Vec::new(),
    };
    let mut nodes = per_node(capacity, root);
    let mut levels: Vec<u32> = per_node(capacity, 0);
    // Stack of open nodes: (id, level).
    let mut stack: Vec<NodeId> = vec![NodeId::ROOT];
    let mut first_lines = per_node(capacity, preamble.content_first_line);
    let mut source_marks = per_node(capacity, preamble.source_marks);
    let mut page_marks = per_node(capacity, preamble.page_marks);
    for mut section in sections {
        let level = section.level.max(1);
        while stack.len() > 1 && levels[stack[stack.len() - 1].index()] >= level {
            stack.pop();
        }
        let parent = stack[stack.len() - 1];
        let id = NodeId(u32::try_from(nodes.len()).unwrap_or(u32::MAX));
        take_links(id, &mut section);
        anchors.push(section.anchor);
        nodes.push(Node {
            title: section.title,
            content: section.content,
            summary: String::new(),
            structure: String::new(),
            depth: 0,
            parent: Some(parent),
            children: Vec::new(),
            lines: section.lines,
            pages: section.pages,
            token_count: 0,
            references: Vec::new(),
        });
        levels.push(level);
        first_lines.push(section.content_first_line);
        source_marks.push(section.source_marks);
        page_marks.push(section.page_marks);
        nodes[parent.index()].children.push(id);
        stack.push(id);
    }

    let mut tree = Tree {
        nodes,
        format,
        metadata,
        summary_strategy: SummaryStrategy::Quick,
        pages_without_text,
        source_units,
        links: super::Links::default(),
        first_split: 0,
    };
    let headings = HeadingNodes {
        end: tree.nodes.len(),
        root_is_heading: single_h1_first,
        anchors,
        section_anchors: section_ids,
        links,
    };
    tree.first_split = u32::try_from(tree.nodes.len()).unwrap_or(u32::MAX);
    split_large_leaves(
        &mut tree,
        &Marks {
            first_lines: &first_lines,
            source: &source_marks,
            pages: &page_marks,
        },
        options.max_leaf_tokens,
    );
    number(&mut tree);
    shaped(&tree);
    summarize(&mut tree);
    resolve_references(&mut tree, &headings);
    tree
}

/// A vector for one value per node, room for `capacity`, holding the root's `first`.
fn per_node<T>(capacity: usize, first: T) -> Vec<T> {
    let mut values = Vec::with_capacity(capacity);
    values.push(first);
    values
}

/// `true` when the document is rooted at its first heading, its only one of the top level: that
/// heading is then the root's title.
fn single_h1_first(format: DocFormat, sections: &[RawSection]) -> bool {
    root_level(format, sections).is_some_and(|level| {
        sections.first().is_some_and(|s| s.level == level)
            && sections.iter().filter(|s| s.level <= level).count() == 1
    })
}

/// `true` when the tree [`build_tree`] makes of `doc` takes its root's title from the document
/// itself (its title, or the heading it is rooted at), `false` when the title is
/// [`BuildOptions::fallback_title`] (for an indexed file, its file name's stem). Used by the
/// duplicate check, which must not tell two copies of one text apart by their file names.
pub fn names_its_title(doc: &ParsedDoc) -> bool {
    doc.title.as_ref().is_some_and(|t| !t.trim().is_empty())
        || single_h1_first(doc.format, &doc.sections)
}

/// The level of the heading that becomes the document's root when it comes first and is the only
/// one of its level or shallower: the h1 of Markdown; the shallowest heading of an HTML page (a
/// Sphinx page's h1, a DocBook page's h2). `None` for formats whose top level is never one
/// heading (PDF, text).
fn root_level(format: DocFormat, sections: &[RawSection]) -> Option<u32> {
    match format {
        // Pandoc writes a Markdown `#` as `Heading 1`: the same rule gives the same tree.
        DocFormat::Markdown | DocFormat::Docx => Some(1),
        DocFormat::Html | DocFormat::Epub => sections.iter().map(|s| s.level).min(),
        DocFormat::Pdf | DocFormat::Text => None,
    }
}

/// The h1 becomes the root: text before it and the h1's own content are joined. The h1's own
/// line(s) become empty lines in between (the title is the root's heading), so the content keeps
/// the source's line layout and `Part N` splits of it get the right source lines.
fn merge_preamble(preamble: RawSection, h1: RawSection) -> RawSection {
    let keep_preamble = !preamble.content.trim().is_empty();
    let mut source_marks = if keep_preamble {
        preamble.source_marks
    } else {
        Vec::new()
    };
    let content = if keep_preamble {
        // Markdown: as many line ends as the heading took, so lines stay in place; text that
        // is rendered (HTML, DOCX) has no such lines: a paragraph break.
        let heading_lines = match (&h1.lines, h1.content_first_line) {
            (Some(l), Some(first)) => first.saturating_sub(l.start).max(1),
            _ => 2,
        };
        let mut joined = preamble.content;
        joined.push_str(&"\n".repeat(heading_lines as usize));
        let shift = joined.len();
        source_marks.extend(h1.source_marks.iter().map(|&(at, line)| (at + shift, line)));
        joined.push_str(&h1.content);
        joined
    } else {
        source_marks = h1.source_marks;
        h1.content
    };
    // The root spans the preamble too, blank or not, so every source line stays in a node.
    let lines = match (&preamble.lines, &h1.lines) {
        (Some(p), Some(h)) => Some(p.start.min(h.start)..h.end),
        (_, h) => h.clone(),
    };
    RawSection {
        level: 0,
        title: String::new(),
        content,
        content_first_line: if keep_preamble {
            preamble.content_first_line
        } else {
            h1.content_first_line
        },
        source_marks,
        page_marks: Vec::new(),
        lines,
        pages: h1.pages,
        anchor: h1.anchor,
        ids: Vec::new(),
        links: Vec::new(),
    }
}

/// Where the text of each heading node (by index) comes from, for placing its parts.
struct Marks<'a> {
    /// The source line of the content's first line (Markdown, text).
    first_lines: &'a [Option<u32>],
    /// `(byte offset, source line)` of rendered text (HTML lines, DOCX paragraphs).
    source: &'a [Vec<(usize, u32)>],
    /// `(byte offset, page)` where each later page starts (PDF).
    pages: &'a [Vec<(usize, u32)>],
}

/// Split every leaf whose own text exceeds `max_tokens` into parts. A part's lines run from its
/// first line to the next part's: counted from the content's first source line (Markdown and
/// text), else taken from the source marks of the rendered text (HTML lines and DOCX
/// paragraphs), else the parent's. A PDF part covers the pages its own text touches.
fn split_large_leaves(tree: &mut Tree, marks: &Marks, max_tokens: u32) {
    let count = tree.nodes.len();
    for i in 0..count {
        let node = &tree.nodes[i];
        if !node.children.is_empty() || estimate_tokens(&node.content) <= max_tokens {
            continue;
        }
        let chunks = split_paragraph_chunks(&node.content, max_tokens);
        if chunks.len() < 2 {
            continue;
        }
        let parent = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
        let pages = node.pages.clone();
        let parent_title = node.title.clone();
        let first_line = marks.first_lines.get(i).copied().flatten();
        let node_lines = node.lines.clone();
        let node_lines_end = node.lines.as_ref().map(|l| l.end);
        let content = std::mem::take(&mut tree.nodes[i].content);
        // Line of each chunk's start, counted once over the whole content (linear, however
        // many chunks a large leaf makes).
        let mut starts = Vec::with_capacity(chunks.len());
        let mut newlines = 0u32;
        let mut counted = 0;
        for chunk in &chunks {
            newlines = newlines.saturating_add(count_newlines(&content[counted..chunk.start]));
            counted = chunk.start;
            starts.push(newlines);
        }
        // Rendered text (HTML, DOCX): each part starts where the source of its first text does.
        let page_marks = marks.pages.get(i).map_or(&[][..], Vec::as_slice);
        let marks = marks.source.get(i).map_or(&[][..], Vec::as_slice);
        let marked: Option<Vec<u32>> = node_lines.as_ref().filter(|_| !marks.is_empty()).map(|l| {
            let mut previous = l.start;
            chunks
                .iter()
                .map(|chunk| {
                    let at = marks.partition_point(|m| m.0 <= chunk.start);
                    let line = at.checked_sub(1).map_or(l.start, |m| marks[m].1);
                    previous = line.clamp(previous, l.end.saturating_sub(1).max(l.start));
                    previous
                })
                .collect()
        });
        let mut children = Vec::new();
        for (n, chunk) in chunks.iter().enumerate() {
            let lines = first_line
                .map(|first| {
                    let start = first + starts[n];
                    let end = match starts.get(n + 1) {
                        Some(next) => first + next,
                        None => node_lines_end.unwrap_or(start + 1),
                    };
                    start..end.max(start + 1)
                })
                .or_else(|| {
                    let starts = marked.as_ref()?;
                    let start = starts[n];
                    let end = match starts.get(n + 1) {
                        Some(&next) => next,
                        None => node_lines_end.unwrap_or(start + 1),
                    };
                    Some(start..end.max(start + 1))
                })
                .or_else(|| node_lines.clone());
            let id = NodeId(u32::try_from(tree.nodes.len()).unwrap_or(u32::MAX));
            tree.nodes.push(Node {
                title: part_title(&content[chunk.clone()], &parent_title, n + 1),
                content: content[chunk.clone()].trim_end().to_string(),
                summary: String::new(),
                structure: String::new(),
                depth: 0,
                parent: Some(parent),
                children: Vec::new(),
                lines,
                pages: part_pages(pages.as_ref(), page_marks, &content, chunk.clone()),
                token_count: 0,
                references: Vec::new(),
            });
            children.push(id);
        }
        tree.nodes[i].children = children;
    }
}

fn count_newlines(text: &str) -> u32 {
    u32::try_from(text.bytes().filter(|b| *b == b'\n').count()).unwrap_or(u32::MAX)
}

/// Byte ranges of `text` that each hold at most about `max_tokens` tokens, cut only at blank
/// lines outside fenced code. A single paragraph larger than the budget stays whole.
pub fn split_paragraph_chunks(text: &str, max_tokens: u32) -> Vec<Range<usize>> {
    // Candidate cut points: byte offsets of lines that follow a blank line, outside fences.
    let mut cuts = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut prev_blank = false;
    // Blank lines before the first text are no paragraph break: cutting there would make an
    // empty `Part 1` (as a one-paragraph leaf after its heading's blank line would).
    let mut seen_text = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let blank = trimmed.trim().is_empty();
        if prev_blank && !blank && fence.is_none() && seen_text {
            cuts.push(offset);
        }
        seen_text |= !blank;
        if let Some(marker) = super::fence::fence_marker(trimmed) {
            match fence {
                None => fence = Some(marker),
                Some((c, n))
                    if marker.0 == c && marker.1 >= n && trimmed.trim().len() == marker.1 =>
                {
                    fence = None
                }
                Some(_) => {}
            }
        }
        prev_blank = blank;
        offset += line.len();
    }
    let max_chars = usize::try_from(max_tokens)
        .unwrap_or(usize::MAX)
        .saturating_mul(4);
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut last_cut = 0;
    // Chars of `text[start..last_cut]`, kept as a running count so each char is counted once.
    let mut held = 0usize;
    for &cut in &cuts {
        let piece = text[last_cut..cut].chars().count();
        if held + piece > max_chars && last_cut > start {
            chunks.push(start..last_cut);
            start = last_cut;
            held = 0;
        }
        held += piece;
        last_cut = cut;
    }
    if held + text[last_cut..].chars().count() > max_chars && last_cut > start {
        chunks.push(start..last_cut);
        start = last_cut;
    }
    chunks.push(start..text.len());
    chunks
}

/// Fill in structure numbers, depths and token counts. Linear in the number of nodes: a parent
/// numbers its children as it is visited (pre-order visits a parent first), so no child looks
/// for its own position among its siblings (that search made 100,000 sibling headings take
/// seconds).
fn number(tree: &mut Tree) {
    let root = &mut tree.nodes[NodeId::ROOT.index()];
    root.structure = String::new();
    root.depth = 0;
    for id in tree.preorder(NodeId::ROOT) {
        let parent = &mut tree.nodes[id.index()];
        parent.token_count = estimate_tokens(&parent.title) + estimate_tokens(&parent.content);
        let (prefix, depth) = (parent.structure.clone(), parent.depth + 1);
        let children = std::mem::take(&mut parent.children);
        for (i, child) in children.iter().enumerate() {
            let pos = i + 1;
            let node = &mut tree.nodes[child.index()];
            node.structure = if prefix.is_empty() {
                pos.to_string()
            } else {
                format!("{prefix}.{pos}")
            };
            node.depth = depth;
        }
        tree.nodes[id.index()].children = children;
    }
}

/// Fill in summaries: the node's own prose, else the first descendant's with prose.
fn summarize(tree: &mut Tree) {
    let order = tree.preorder(NodeId::ROOT);
    for id in order.into_iter().rev() {
        let own = quick_summary(&tree.nodes[id.index()].content, QUICK_SUMMARY_MAX_CHARS);
        let summary = if own.is_empty() {
            tree.nodes[id.index()]
                .children
                .iter()
                .map(|c| tree.nodes[c.index()].summary.clone())
                .find(|s| !s.is_empty())
                .unwrap_or_default()
        } else {
            own
        };
        tree.nodes[id.index()].summary = summary;
    }
}

/// For tests of a parser's `Part N` locations: `doc` built with leaves of at most
/// `max_leaf_tokens`, and its `Part N` nodes in order, each as the first number in its text (the
/// test writes `Paragraph 12 …`) with its lines; panics unless there are at least five parts and
/// each starts where the one before ends.
#[cfg(test)]
pub(crate) fn numbered_parts(
    doc: ParsedDoc,
    max_leaf_tokens: u32,
) -> (Tree, Vec<(u32, Range<u32>)>) {
    let options = BuildOptions {
        max_leaf_tokens,
        ..BuildOptions::default()
    };
    let tree = build_tree(doc, &options);
    let parts: Vec<(u32, Range<u32>)> = tree
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| tree.is_split(NodeId(u32::try_from(*i).unwrap_or(u32::MAX))))
        .map(|(_, n)| n)
        .map(|n| {
            let k = n
                .content
                .split_whitespace()
                .find_map(|w| w.parse().ok())
                .unwrap();
            (k, n.lines.clone().unwrap())
        })
        .collect();
    assert!(parts.len() >= 5, "{} parts", parts.len());
    for pair in parts.windows(2) {
        assert_eq!(
            pair[0].1.end, pair[1].1.start,
            "parts follow each other: {pair:?}"
        );
    }
    (tree, parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(level: u32, title: &str, content: &str) -> RawSection {
        RawSection {
            level,
            title: title.into(),
            content: content.into(),
            ..RawSection::default()
        }
    }

    fn doc(sections: Vec<RawSection>) -> ParsedDoc {
        ParsedDoc {
            format: DocFormat::Text,
            title: None,
            metadata: vec![],
            preamble: RawSection::default(),
            sections,
            pages_without_text: vec![],
            source_units: 0,
            warnings: vec![],
        }
    }

    #[test]
    fn skipped_levels_attach_to_nearest_shallower_heading() {
        let tree = build_tree(
            doc(vec![
                section(1, "A", "a"),
                section(3, "A.x", "ax"),
                section(2, "A.y", "ay"),
                section(1, "B", "b"),
            ]),
            &BuildOptions::default(),
        );
        let titles: Vec<_> = tree
            .preorder(NodeId::ROOT)
            .iter()
            .map(|id| {
                (
                    tree.node(*id).structure.clone(),
                    tree.node(*id).title.clone(),
                )
            })
            .collect();
        assert_eq!(
            titles,
            vec![
                ("".into(), "document".into()),
                ("1".into(), "A".into()),
                ("1.1".into(), "A.x".into()),
                ("1.2".into(), "A.y".into()),
                ("2".into(), "B".into()),
            ]
        );
        assert_eq!(tree.by_structure("1.2"), tree.by_title_path(&["a", "A.Y"]));
    }

    /// Numbering children must not search each child's position among its siblings, which is
    /// quadratic in sibling headings.
    #[test]
    fn many_siblings_get_their_numbers_and_depths() {
        let sections = (0..3000)
            .map(|i| section(2, &format!("S{i}"), "x"))
            .chain([section(3, "Deep", "y")])
            .collect();
        let tree = build_tree(doc(sections), &BuildOptions::default());
        let root = tree.node(NodeId::ROOT);
        assert_eq!(root.children.len(), 3000);
        for (i, id) in root.children.iter().enumerate() {
            let node = tree.node(*id);
            assert_eq!(
                (node.structure.as_str(), node.depth),
                (&*(i + 1).to_string(), 1)
            );
            assert_eq!(node.title, format!("S{i}"));
        }
        let deep = tree
            .by_structure("3000.1")
            .map(|id| tree.node(id).title.clone());
        assert_eq!(deep.as_deref(), Some("Deep"));
    }

    /// Each `Part N` starts on the source line of its first paragraph and ends where the next
    /// part starts (the last one where its parent ends).
    #[test]
    fn parts_carry_the_source_lines_of_their_paragraphs() {
        let body: String = (0..40)
            .map(|n| format!("{}{n}\n\n", "word ".repeat(60)))
            .collect();
        let text = format!("# Title\n\n## Big\n\n{body}## After\n\nend\n");
        let doc = crate::parse::markdown::parse_markdown(&text);
        let tree = build_tree(
            doc,
            &BuildOptions {
                max_leaf_tokens: 300,
                ..BuildOptions::default()
            },
        );
        let big = tree.by_structure("1").unwrap();
        let parts = &tree.node(big).children;
        assert!(parts.len() >= 5, "{}", parts.len());
        let lines: Vec<&str> = text.lines().collect();
        let mut expected_start = tree.node(big).lines.clone().unwrap().start + 1;
        for id in parts {
            let part = tree.node(*id);
            let range = part.lines.clone().unwrap();
            assert_eq!(range.start, expected_start, "{}", part.title);
            let source = lines[range.start as usize - 1..range.end as usize - 1].join("\n");
            assert_eq!(source.trim(), part.content.trim(), "{}", part.title);
            expected_start = range.end;
        }
        assert_eq!(expected_start, tree.node(big).lines.clone().unwrap().end);
    }

    /// A huge one-paragraph leaf whose content starts with the blank line under its heading is
    /// not split into an empty `Part 1` and the paragraph.
    #[test]
    fn leading_blank_lines_are_not_a_paragraph_break() {
        let text = format!("\n\n{}\n", "word ".repeat(2000));
        assert_eq!(split_paragraph_chunks(&text, 100), vec![0..text.len()]);
        let two = format!("\n{}\n\n{}\n", "a ".repeat(300), "b ".repeat(300));
        let cut = two.find('b').unwrap();
        assert_eq!(
            split_paragraph_chunks(&two, 100),
            vec![0..cut, cut..two.len()]
        );
    }

    #[test]
    fn large_leaf_splits_at_paragraphs_but_not_inside_fences() {
        let para = "word ".repeat(300);
        let fence = format!(
            "```\n{}\n\n{}\n```",
            "code ".repeat(300),
            "more ".repeat(300)
        );
        let content = format!("{para}\n\n{fence}\n\n{para}\n\n{para}\n");
        let chunks = split_paragraph_chunks(&content, 100);
        for c in &chunks {
            let piece = &content[c.clone()];
            assert_eq!(
                piece.matches("```").count() % 2,
                0,
                "fence split: {piece:?}"
            );
        }
        assert_eq!(chunks.len(), 4);
        let joined: String = chunks.iter().map(|c| &content[c.clone()]).collect();
        assert_eq!(joined, content);
    }
}
