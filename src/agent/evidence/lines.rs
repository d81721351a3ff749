//! Source lines of a part of a section's text: when `cat` stops at the output budget, the
//! evidence is the part read, and its `lines` should be the lines of that part, not of the whole
//! section.
//!
//! [`Tree::text_of`] is a rendering: each node's heading (re-written as `#`…), then its content
//! with leading blank lines and trailing whitespace trimmed. The tree does not store where each
//! node's content starts in the source, but for Markdown and text the parsers keep it verbatim up
//! to the next heading (or the end), and `lines.end` is that heading's line; so the content of
//! `k` source lines starts at `lines.end - k`. That is exact for a section whatever its heading
//! took (ATX, setext, an HTML block, a numbered text heading) and for a root without a heading.
//! It is **not** exact, and the mapping gives up (the caller keeps the node's whole range), for:
//! - a Markdown root merged with its single h1 (the text before the h1 is trimmed and joined to
//!   the h1's content, which moves lines): a root is mapped only when its content starts on its
//!   first line;
//! - the synthetic heading line of a `Part N` child that the build stage split off a large leaf
//!   (its content *is* placed: it starts exactly on the part's first line, see [`is_split_part`]);
//! - PDF (pages, no lines), and any tree whose rendering does not match [`Tree::text_of`].
//!
//! Only the first and last non-blank lines of the part need a source line: the rendering keeps
//! reading order, so they bound the part.

use std::ops::Range;

use crate::tree::{DocFormat, NodeId, Tree};

/// 1-based source lines (end exclusive) of chars `chars` (end exclusive) of
/// `tree.text_of(id)`: from the line of the part's first non-blank char (the subtree's first
/// line when the part starts at 0) to the line of its last (the subtree's end when the part runs
/// to the end). `None` when they cannot be computed exactly (see the module doc), when the part is
/// empty or out of range, or when `id` is not a node.
pub fn part_lines(tree: &Tree, id: NodeId, chars: &Range<usize>) -> Option<Range<u32>> {
    if !matches!(tree.format, DocFormat::Markdown | DocFormat::Text) {
        return None;
    }
    let whole = tree.subtree_span(id, |n| n.lines.clone())?;
    let (text, sources) = rendered_lines(tree, id)?;
    let total = text.chars().count();
    if chars.start >= chars.end || chars.end > total {
        return None;
    }
    let (mut line, mut first, mut last) = (0usize, None, None);
    for (i, c) in text.chars().enumerate().take(chars.end) {
        if i >= chars.start && !c.is_whitespace() {
            first = first.or(Some(line));
            last = Some(line);
        }
        if c == '\n' {
            line += 1;
        }
    }
    let start = if chars.start == 0 {
        whole.start
    } else {
        (*sources.get(first?)?)?
    };
    let end = if chars.end == total {
        whole.end
    } else {
        (*sources.get(last?)?)? + 1
    };
    (whole.start <= start && start < end && end <= whole.end).then_some(start..end)
}

/// `tree.text_of(id)` rebuilt the same way, with the source line of each of its lines (`None`
/// for blank separators, headings not in the source and content that cannot be placed).
/// `None` when the rebuilt text differs from [`Tree::text_of`].
fn rendered_lines(tree: &Tree, id: NodeId) -> Option<(String, Vec<Option<u32>>)> {
    let mut out = String::new();
    let mut sources: Vec<Option<u32>> = Vec::new();
    let base = tree.node(id).depth;
    for n in tree.preorder(id) {
        let node = tree.node(n);
        let split_part = is_split_part(tree, n);
        if !node.title.is_empty() {
            if !out.is_empty() && !out.ends_with("\n\n") {
                let sep = if out.ends_with('\n') { "\n" } else { "\n\n" };
                push(&mut out, &mut sources, sep, |_| None);
            }
            let level = (node.depth - base + 1).min(6) as usize;
            let heading = format!("{} {}\n\n", "#".repeat(level), node.title);
            let line = match (&node.lines, node.parent, split_part) {
                (Some(lines), Some(_), false) => Some(lines.start),
                _ => None,
            };
            push(&mut out, &mut sources, &heading, |k| {
                line.filter(|_| k == 0)
            });
        }
        let content = node.content.trim_start_matches(['\n', '\r']).trim_end();
        if !content.is_empty() {
            let first = content_first_line(tree, n, split_part);
            push(&mut out, &mut sources, content, |k| first.map(|f| f + k));
            push(&mut out, &mut sources, "\n", |_| None);
        }
    }
    (out == tree.text_of(id)).then_some((out, sources))
}

/// Append `piece` to `out`, recording `source(k)` for the `k`-th line that `piece` starts.
fn push(
    out: &mut String,
    sources: &mut Vec<Option<u32>>,
    piece: &str,
    source: impl Fn(u32) -> Option<u32>,
) {
    let mut at_start = out.is_empty() || out.ends_with('\n');
    let mut k = 0;
    for c in piece.chars() {
        if at_start {
            sources.push(source(k));
            k += 1;
        }
        out.push(c);
        at_start = c == '\n';
    }
}

/// Source line of the first line of node `n`'s content as `text_of` shows it (leading blank
/// lines skipped), when it can be placed exactly (see the module doc). A `split_part` starts on
/// its first line (its content is verbatim from there, only trimmed at the end).
fn content_first_line(tree: &Tree, n: NodeId, split_part: bool) -> Option<u32> {
    let node = tree.node(n);
    let lines = node.lines.clone()?;
    let raw = node.content.as_str();
    let trimmed = raw.len() - raw.trim_start_matches(['\n', '\r']).len();
    let leading = u32::try_from(raw[..trimmed].matches('\n').count()).ok()?;
    if split_part {
        return lines.start.checked_add(leading);
    }
    let count = raw.matches('\n').count() + usize::from(!raw.is_empty() && !raw.ends_with('\n'));
    let start = lines.end.checked_sub(u32::try_from(count).ok()?)?;
    let heading = start.checked_sub(lines.start)?;
    // A root has no heading line of its own unless it was merged with the h1 (not placeable);
    // a section's heading takes at least one line (more for setext or HTML headings).
    let placed = match node.parent {
        None => heading == 0,
        Some(_) => heading >= 1,
    };
    if !placed {
        return None;
    }
    start.checked_add(leading)
}

/// A part split off a large leaf by the build stage ([`Tree::is_split`]): its parent has no
/// content of its own and its lines start exactly on the part's first line.
fn is_split_part(tree: &Tree, n: NodeId) -> bool {
    tree.is_split(n)
}
