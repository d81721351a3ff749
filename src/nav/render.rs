//! Output helpers shared by the commands: location headers, `ls` lines, char-budget paging and
//! one-line snippets. All lengths are in `char`s; no function splits a UTF-8 character.

use std::ops::Range;

use super::stats::NodeStats;
use crate::tree::{NodeId, Tree};

/// `lines 40–88`, `line 7`, `pages 3–5`, `page 3` (`paragraphs 3–7` in a Word document): the span of the node with its whole subtree
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
        tree.format.location_unit()
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

/// `N. Title  [S subsections, W words]  — summary` (`[no subsections, W words]` for a section
/// with none) for child number `number` (1-based): S counts every section below it, W the words
/// of its text with theirs; from the document's [`NodeStats`]. (Not "L leaves": a model reads
/// `[1 leaf]` as "this is a leaf" when the section has one child.)
pub fn ls_line(tree: &Tree, stats: &NodeStats, number: usize, child: NodeId) -> String {
    let node = tree.node(child);
    let below = stats.below.get(child.index()).copied().unwrap_or(0);
    let words = stats.words.get(child.index()).copied().unwrap_or(0);
    let sections = match below {
        0 => "no subsections".to_string(),
        1 => "1 subsection".to_string(),
        n => format!("{n} subsections"),
    };
    let mut out = format!(
        "{number}. {}  [{sections}, {words} {}]",
        one_line(&node.title, 120),
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

/// [`one_line`] of `text` around the byte range `at` (a match in it): whitespace collapsed,
/// at most `max` chars, the match always shown — from the start of `text` when the match fits
/// there, otherwise from a word start about a third of the room before the match, with `…` for
/// the text left out at either end. A `grep` hit in a long line (a paragraph, a table row) is
/// read at its match, not cut before it. `at` is clamped to `text` and to char boundaries.
pub fn one_line_around(text: &str, at: std::ops::Range<usize>, max: usize) -> String {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (start, end) = (floor(at.start), floor(at.end.max(at.start)));
    let whole = one_line(text, max);
    if !whole.ends_with('…') {
        return whole;
    }
    // Chars of the collapsed text before the match, and of the match.
    let before = one_line(&text[..start], usize::MAX);
    let matched = one_line(&text[start..end], usize::MAX).chars().count();
    let lead_room = max.saturating_sub(matched.min(max)) / 3;
    // Shown whole when it ends before the `…` that cuts `whole` (a space between).
    if before.chars().count() + 1 + matched <= max.saturating_sub(1) {
        return whole;
    }
    // Start at a word boundary `lead_room` chars or less before the match.
    let lead: String = {
        let chars: Vec<char> = before.chars().collect();
        let from = chars.len().saturating_sub(lead_room);
        let tail: String = chars[from..].iter().collect();
        match tail.find(' ') {
            Some(space) if from > 0 && space + 1 < tail.len() => tail[space + 1..].to_string(),
            _ => tail,
        }
    };
    let rest = one_line(&text[start..], usize::MAX);
    let sep = if !lead.is_empty() && text[..start].ends_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    let shown = format!("…{lead}{sep}{rest}");
    one_line(&shown, max)
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

    /// A match past the room of a line is shown with the text around it, never cut off.
    #[test]
    fn one_line_around_shows_the_match() {
        let line = format!("{} any % of the rows", "word ".repeat(60));
        let at = line.find("any %").unwrap();
        let shown = one_line_around(&line, at..at + 5, 60);
        assert!(
            shown.starts_with('…') && shown.contains("any % of the rows"),
            "{shown}"
        );
        assert!(shown.chars().count() <= 60, "{shown}");
        // A match that fits in the first `max` chars: the start of the line, as one_line.
        assert_eq!(one_line_around("a  b c", 3..4, 60), "a b c");
        let head = format!("any % {}", "x ".repeat(100));
        assert_eq!(one_line_around(&head, 0..5, 20), one_line(&head, 20));
    }

    proptest! {
        #[test]
        fn one_line_around_respects_its_bound_and_shows_the_match(
            words in proptest::collection::vec("[a-z]{1,8}", 1..80),
            pick in 0usize..80,
            max in 20usize..120,
        ) {
            let text = words.join(" ");
            let word = &words[pick % words.len()];
            let at: usize = words[..pick % words.len()].iter().map(|w| w.len() + 1).sum();
            let shown = one_line_around(&text, at..at + word.len(), max);
            prop_assert!(shown.chars().count() <= max, "{}", shown);
            if word.len() + 2 < max {
                prop_assert!(shown.contains(word.as_str()), "{} not in {}", word, shown);
            }
        }

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

/// Document text made safe to show a person, on a terminal or a web page: every character that could move the cursor,
/// recolour, hide or reorder what a person sees is shown as a visible Rust-style escape
/// (`\u{1b}`); everything else, tab and newline included, passes through unchanged.
///
/// Escaped: C0 controls (U+0000–U+001F) other than tab and newline, DEL (U+007F), C1 controls
/// (U+0080–U+009F), the bidi embeddings and overrides U+202A–U+202E and the bidi isolates
/// U+2066–U+2069 (the "Trojan Source" set, CVE-2021-42574). A carriage return directly before a
/// newline (a CRLF line end) is kept: it only moves to the start of a line that is about to end.
/// A lone `\r` is escaped, since it lets later text overwrite earlier text.
///
/// Returns the input borrowed when nothing needs escaping (the common case: one scan, no copy).
/// Apply it to text shown to a person only (the CLI and shell print it, the web app shows it):
/// `--json` output, API responses, prompts to the model and command outputs fed to the model keep
/// the exact text. HTML escaping is separate: a web page escapes markup after this.
pub fn for_display(text: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write as _;
    let mut chars = text.char_indices().peekable();
    let mut out: Option<String> = None;
    while let Some((at, c)) = chars.next() {
        let unsafe_char = match c {
            '\r' => chars.peek().is_none_or(|(_, next)| *next != '\n'),
            _ => is_unsafe_for_display(c),
        };
        if unsafe_char {
            let buf = out.get_or_insert_with(|| {
                let mut s = String::with_capacity(text.len() + 16);
                s.push_str(&text[..at]);
                s
            });
            let _ = write!(buf, "\\u{{{:x}}}", u32::from(c));
        } else if let Some(buf) = out.as_mut() {
            buf.push(c);
        }
    }
    match out {
        Some(s) => std::borrow::Cow::Owned(s),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// Whether `c` (other than `\r`, which depends on what follows) is escaped by [`for_display`].
fn is_unsafe_for_display(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod display_tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn controls_and_bidi_controls_become_visible_escapes() {
        assert_eq!(
            for_display("\u{1b}[31mred\u{1b}[0m \u{202e}evil\u{2069} \u{7}\u{0}\u{9b}"),
            "\\u{1b}[31mred\\u{1b}[0m \\u{202e}evil\\u{2069} \\u{7}\\u{0}\\u{9b}"
        );
        assert_eq!(for_display("a\rb\r"), "a\\u{d}b\\u{d}");
        assert_eq!(
            for_display("\u{7f}\u{80}\u{202a}\u{2066}"),
            "\\u{7f}\\u{80}\\u{202a}\\u{2066}"
        );
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for text in [
            "",
            "plain",
            "tab\tnew\nline\r\n",
            "日本語 é — “quotes” \u{200f}\u{a0}\u{a1}",
        ] {
            assert!(
                matches!(for_display(text), Cow::Borrowed(t) if t == text),
                "{text:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn output_has_no_unsafe_char_and_is_identity_on_safe_text(s in "\\PC{0,40}|[\\x00-\\x20\\u{80}-\\u{a0}\\u{2060}-\\u{2070}\\u{2020}-\\u{2030}a\r\n]{0,40}") {
            let shown = for_display(&s);
            let mut chars = shown.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\r' {
                    proptest::prop_assert_eq!(chars.peek(), Some(&'\n'));
                } else {
                    proptest::prop_assert!(!is_unsafe_for_display(c), "{:?} in {:?}", c, shown);
                }
            }
            if !s.chars().any(|c| is_unsafe_for_display(c) || c == '\r') {
                proptest::prop_assert_eq!(shown.as_ref(), s.as_str());
            }
        }
    }
}
