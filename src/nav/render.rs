//! Output helpers shared by the commands: location headers, `ls` lines, char-budget paging and
//! one-line snippets. All lengths are in `char`s; no function splits a UTF-8 character.

use std::ops::Range;

use super::stats::NodeStats;
use crate::tree::{NodeId, Tree};

/// `lines 40–88`, `line 7`, `pages 3–5` or `page 3`: the span of the node with its whole subtree
/// (what `cat` shows), from the nodes' half-open ranges; `None` when no node has a location.
pub fn location_label(tree: &Tree, node: NodeId) -> Option<String> {
    let n = tree.get(node)?;
    let pick = |n: &crate::tree::Node| {
        if n.lines.is_some() {
            n.lines.clone()
        } else {
            n.pages.clone()
        }
    };
    let unit = if n.lines.is_some() {
        "line"
    } else if n.pages.is_some() {
        "page"
    } else {
        return None;
    };
    let range = tree.subtree_span(node, pick)?;
    let last = range.end.saturating_sub(1).max(range.start);
    Some(if last == range.start {
        format!("{unit} {}", range.start)
    } else {
        format!("{unit}s {}–{last}", range.start)
    })
}

/// `== guide › Install › Linux  (lines 40–88) ==`: the document id, then the titles below the
/// root, then the location when known.
pub fn location_header(doc_id: &str, tree: &Tree, node: NodeId) -> String {
    let mut parts = vec![doc_id.to_string()];
    parts.extend(tree.title_path(node));
    let mut out = format!("== {}", parts.join(" › "));
    if let Some(label) = location_label(tree, node) {
        out.push_str(&format!("  ({label})"));
    }
    out.push_str(" ==");
    out
}

/// `N. Title  [L leaves, W words]  — summary` for child number `number` (1-based); the counts
/// come from the document's [`NodeStats`].
pub fn ls_line(tree: &Tree, stats: &NodeStats, number: usize, child: NodeId) -> String {
    let node = tree.node(child);
    let leaves = stats.leaves.get(child.index()).copied().unwrap_or(0);
    let words = stats.words.get(child.index()).copied().unwrap_or(0);
    let mut out = format!(
        "{number}. {}  [{leaves} {}, {words} {}]",
        one_line(&node.title, 120),
        if leaves == 1 { "leaf" } else { "leaves" },
        if words == 1 { "word" } else { "words" },
    );
    let summary = one_line(&node.summary, 200);
    if !summary.is_empty() {
        out.push_str("  — ");
        out.push_str(&summary);
    }
    out
}

/// Human size of a byte count: `873 B`, `40.7 KB`, `2.9 MB` (1 KB = 1000 bytes, as `docnav docs`).
pub fn human_size(bytes: u64) -> String {
    const KB: f64 = 1000.0;
    let b = bytes as f64;
    if b < KB {
        format!("{bytes} B")
    } else if b < KB * KB {
        format!("{:.1} KB", b / KB)
    } else {
        format!("{:.1} MB", b / (KB * KB))
    }
}

/// Whitespace collapsed to single spaces, cut to at most `max` chars (ending in `…` when cut).
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
            count += 1;
        }
        out.push_str(word);
        count += word.chars().count();
        if count > max {
            break;
        }
    }
    if count <= max {
        return out;
    }
    let mut cut: String = out.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// Byte index of char `n` in `text` (`text.len()` when `n` is past the end).
pub fn char_to_byte(text: &str, n: usize) -> usize {
    text.char_indices()
        .nth(n)
        .map(|(b, _)| b)
        .unwrap_or(text.len())
}

/// One page of a text cut by a char budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<'a> {
    /// The page's text.
    pub body: &'a str,
    /// Char range of `body` in the whole text, end exclusive.
    pub chars: Range<usize>,
    /// Chars in the whole text.
    pub total: usize,
}

/// The page of `text` starting at char `offset` and holding at most `budget` chars (at least one
/// char when any is left). When the text goes on, the page ends after the last blank line in the
/// second half of the window, else after the last line break in its last three quarters, else
/// exactly at the budget. Pages taken one after another (`offset` = previous `chars.end`)
/// concatenate to `text` exactly.
pub fn page(text: &str, offset: usize, budget: usize) -> Page<'_> {
    let total = text.chars().count();
    let offset = offset.min(total);
    let start_byte = char_to_byte(text, offset);
    let rest = &text[start_byte..];
    let budget = budget.max(1);
    let window_end = char_to_byte(rest, budget);
    if window_end == rest.len() {
        return Page {
            body: rest,
            chars: offset..total,
            total,
        };
    }
    let window = &rest[..window_end];
    let half = window_end / 2;
    let quarter = window_end / 4;
    let cut = match window.rfind("\n\n") {
        Some(i) if i + 2 >= half && i > 0 => i + 2,
        _ => match window.rfind('\n') {
            Some(i) if i + 1 >= quarter && i > 0 => i + 1,
            _ => window_end,
        },
    };
    let body = &rest[..cut];
    let end = offset + body.chars().count();
    Page {
        body,
        chars: offset..end,
        total,
    }
}

/// Cut `text` to at most `budget` chars at a line boundary, adding a note with how many lines
/// were left out. Text within budget is returned unchanged.
pub fn cap_output(text: String, budget: usize) -> String {
    if text.chars().count() <= budget {
        return text;
    }
    let p = page(&text, 0, budget);
    let shown = p.body.trim_end_matches('\n');
    let left = text[p.body.len()..].lines().count();
    format!("{shown}\n… output cut at {budget} chars: {left} more line(s) not shown (narrow the command or raise --budget)")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn page_prefers_paragraph_then_line_boundaries() {
        let text = "aaaa\n\nbbbb\ncccc\ndddd";
        let p = page(text, 0, 12);
        assert_eq!(p.body, "aaaa\n\n");
        assert_eq!(p.chars, 0..6);
        let p = page(text, 6, 8);
        assert_eq!(p.body, "bbbb\n");
        let p = page(text, 11, 100);
        assert_eq!(p.body, "cccc\ndddd");
        assert_eq!(p.total, 20);
        // No boundary at all: a hard cut at the budget, on a char boundary.
        let p = page("日本語のテキスト", 2, 3);
        assert_eq!(p.body, "語のテ");
        assert_eq!(p.chars, 2..5);
    }

    #[test]
    fn labels_are_inclusive() {
        assert_eq!(one_line("  a \n b  ", 10), "a b");
        assert_eq!(one_line("alpha beta gamma", 12), "alpha beta…");
        assert_eq!(human_size(873), "873 B");
        assert_eq!(human_size(40_701), "40.7 KB");
    }

    proptest! {
        #[test]
        fn pages_concatenate_to_the_text(text in "(\\PC|\n){0,300}", budget in 1usize..60) {
            let mut offset = 0;
            let mut joined = String::new();
            let total = text.chars().count();
            while offset < total {
                let p = page(&text, offset, budget);
                prop_assert!(p.chars.end > offset);
                prop_assert!(p.chars.end - p.chars.start <= budget);
                joined.push_str(p.body);
                offset = p.chars.end;
            }
            prop_assert_eq!(joined, text);
        }

        #[test]
        fn one_line_respects_its_bound(text in "\\PC{0,200}", max in 1usize..50) {
            prop_assert!(one_line(&text, max).chars().count() <= max);
        }
    }
}
