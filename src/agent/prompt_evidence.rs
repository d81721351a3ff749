//! Evidence as the evaluate and answer prompts show it, one renderer for both so the answer
//! sees what the verdict saw: each item numbered, fenced as untrusted data, under its heading
//! path (`changelog › 2.32.0 › Added`: a section's text starts with its own heading only), and
//! shortened — never dropped — to fit the prompt's room.
//!
//! Shortening leaves out whole lines: it keeps an item's first line (its heading), the lines a
//! Worker cited (read by line numbers, `cat path:N-M`: an item's share of the room is never
//! less than they take), the lines that hold the most terms of the question (and of the key
//! concepts, when known), each kept table row's header and delimiter rows (see
//! [`crate::tree::tables`]), then the lines from the top in reading order as the room allows;
//! each run of lines left out is one `[… N lines not shown]` line. A line too long for the
//! room is cut around its first term ([`one_line_around`]).

use std::collections::HashSet;
use std::fmt::Write as _;

use super::prompts::untrusted;
use crate::index::tokenize::Tokenizer;
use crate::nav::render::{one_line, one_line_around};
use crate::tree::{tables, NodeId};
use crate::workspace::Library;

/// Chars every item keeps of its text however short the room (so none is reduced to its
/// label).
pub const MIN_ITEM_CHARS: usize = 240;

/// Chars an item's label, heading path and fence take besides the label and heading text.
const ITEM_FRAME_CHARS: usize = 64;

/// One evidence item for a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptItem {
    /// What follows the item's number on its first line (`lines 40–88`, a location; may be
    /// empty).
    pub header: String,
    /// The fence's `source` (document id, section number, chars read).
    pub source: String,
    /// The heading path, first line inside the fence ([`heading_path`]).
    pub heading: String,
    /// The text, verbatim.
    pub text: String,
    /// Lines of `text` a Worker cited (1-based, inclusive `[first, last]`; see
    /// [`crate::agent::evidence::Evidence::cited_lines`]): kept however short the room.
    pub cited: Vec<[u32; 2]>,
}

/// The terms of `query` as the section index tokenizes it, lowercased, each once: what
/// [`shorten`] keeps lines for.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut terms = Vec::new();
    Tokenizer::default().for_each(query, |t| {
        if seen.insert(t.to_string()) {
            terms.push(t.to_string());
        }
    });
    terms
}

/// `doc_id › Title › Sub` for node `node` of document `doc_id`: the titles from the first
/// level down to the node; for the document's root (its own text outside every section), the
/// document's title. Just `doc_id` when the document cannot be loaded or has no title.
pub fn heading_path(library: &dyn Library, doc_id: &str, node: NodeId) -> String {
    let Ok(doc) = library.document(doc_id) else {
        return doc_id.to_string();
    };
    let mut titles = doc.tree.title_path(node);
    if titles.is_empty() {
        titles.push(doc.tree.node(NodeId::ROOT).title.clone());
    }
    let mut out = doc_id.to_string();
    for title in titles.iter().filter(|t| !t.trim().is_empty()) {
        out.push_str(" › ");
        out.push_str(&one_line(title, 120));
    }
    out
}

/// Every item of `items`, numbered from 1, in at most about `room` chars: an item shorter than
/// its fair share is shown whole and leaves the rest to the others; the others are
/// [`shorten`]ed to an equal share of what is left (at least [`MIN_ITEM_CHARS`] each and at
/// least what its first line and cited lines take, [`cited_chars`], so many items or long
/// citations can take more than `room`). No item is ever left out. `terms` are what
/// [`shorten`] keeps lines for.
pub fn render_items(items: &[PromptItem], room: usize, terms: &[String]) -> String {
    let frame = |item: &PromptItem| {
        item.header.chars().count()
            + 2 * item.source.chars().count()
            + item.heading.chars().count()
            + ITEM_FRAME_CHARS
    };
    let lengths: Vec<usize> = items.iter().map(|i| i.text.chars().count()).collect();
    let mut left = room.saturating_sub(items.iter().map(frame).sum());
    // Water-filling: the shortest first; each takes the whole of its text or an equal share.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| lengths[i]);
    let mut shares = vec![0; items.len()];
    for (n, &i) in order.iter().enumerate() {
        let share = left / (items.len() - n);
        let floor = MIN_ITEM_CHARS.max(cited_chars(&items[i].text, &items[i].cited));
        shares[i] = lengths[i].min(share.max(floor));
        left = left.saturating_sub(shares[i]);
    }
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        let head = if item.header.is_empty() {
            format!("[{}]", i + 1)
        } else {
            format!("[{}] {}", i + 1, item.header)
        };
        let body = format!(
            "{}\n{}",
            item.heading,
            shorten(&item.text, shares[i], terms, &item.cited)
        );
        let _ = writeln!(out, "{head}\n{}", untrusted(&item.source, &body));
    }
    out
}

/// Lines (0-based indices) of a text that `cited` (1-based, inclusive) names, with the header
/// and delimiter rows of the tables they sit in ([`tables::body_headers`] of the text, one
/// entry per line), in order.
fn cited_indices(cited: &[[u32; 2]], headers: &[Option<usize>]) -> Vec<usize> {
    let count = headers.len();
    let mut out: Vec<usize> = Vec::new();
    for &[a, b] in cited {
        for line in a.max(1)..=b {
            let i = line as usize - 1;
            if i >= count {
                break;
            }
            if let Some(h) = headers[i] {
                out.extend([h, h + 1].into_iter().filter(|&j| j < count));
            }
            out.push(i);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Chars [`shorten`] needs to show `text`'s first line and the lines `cited` (1-based,
/// inclusive) with their tables' header rows, gap lines counted; 0 when nothing is cited.
pub fn cited_chars(text: &str, cited: &[[u32; 2]]) -> usize {
    if cited.is_empty() {
        return 0;
    }
    let text = text.trim_end();
    let lens: Vec<usize> = text.split('\n').map(|l| l.chars().count()).collect();
    let mut keep = vec![false; lens.len()];
    keep[0] = true;
    for i in cited_indices(cited, &tables::body_headers(text)) {
        keep[i] = true;
    }
    shown_chars(&keep, &lens)
}

/// `text` in at most about `max_chars` chars, by leaving out whole lines (see the module
/// documentation for which are kept); `text` itself when it fits. The lines `cited` (1-based,
/// inclusive) are kept when they fit, in order ([`cited_chars`] is the room they need). Each
/// run of lines left out becomes one `[… N lines not shown]` line, counted in the bound.
pub fn shorten(text: &str, max_chars: usize, terms: &[String], cited: &[[u32; 2]]) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    // Blank lines at the end are no lines left out.
    let text = text.trim_end();
    let lines: Vec<&str> = text.split('\n').collect();
    let headers = tables::body_headers(text);
    let wanted: HashSet<&str> = terms.iter().map(String::as_str).collect();
    // Distinct query terms per line, and where the first one is.
    let hits: Vec<(usize, Option<std::ops::Range<usize>>)> = lines
        .iter()
        .map(|line| {
            let mut seen: HashSet<&str> = HashSet::new();
            let mut first = None;
            Tokenizer::default().for_each_with_range(line, |token, range| {
                if let Some(&t) = wanted.get(token) {
                    seen.insert(t);
                    first.get_or_insert(range);
                }
            });
            (seen.len(), first)
        })
        .collect();
    // Chars of each line as shown (a line cut around its term is shorter).
    let mut lens: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
    let mut keep = vec![false; lines.len()];
    // Lines `add`, when the result still fits.
    let take_all = |mut add: Vec<usize>, keep: &mut [bool], lens: &[usize]| -> bool {
        add.retain(|&j| j < lines.len() && !keep[j]);
        for &j in &add {
            keep[j] = true;
        }
        if shown_chars(keep, lens) <= max_chars {
            return true;
        }
        for &j in &add {
            keep[j] = false;
        }
        false
    };
    // Line `i` with its table's header and delimiter rows, when the result still fits.
    let take = |i: usize, keep: &mut [bool], lens: &[usize]| -> bool {
        let mut add: Vec<usize> = vec![i];
        if let Some(h) = headers[i] {
            add.extend([h, h + 1]);
        }
        take_all(add, keep, lens)
    };
    // The first line (a heading, or the header of the table a read started in).
    take(0, &mut keep, &lens);
    // The lines a Worker cited: all together ([`cited_chars`] is what they take), or as many
    // as fit in order.
    let cited = cited_indices(cited, &headers);
    if !take_all(cited.clone(), &mut keep, &lens) {
        for i in cited {
            if !keep[i] {
                take(i, &mut keep, &lens);
            }
        }
    }
    // Lines with the most terms first, in reading order among equals.
    let mut by_terms: Vec<usize> = (0..lines.len()).filter(|&i| hits[i].0 > 0).collect();
    by_terms.sort_by_key(|&i| (std::cmp::Reverse(hits[i].0), i));
    let mut cut_lines: Vec<(usize, String)> = Vec::new();
    for &i in &by_terms {
        if keep[i] || take(i, &mut keep, &lens) {
            continue;
        }
        // Too long for what is left: the line around its first term, when that fits.
        let Some(at) = hits[i].1.clone() else {
            continue;
        };
        let full = lens[i];
        lens[i] = 0;
        let room = max_chars.saturating_sub(shown_chars(&keep, &lens) + GAP_LINE_CHARS);
        if room >= 60 {
            let cut = one_line_around(lines[i], at, room);
            lens[i] = cut.chars().count();
            if take(i, &mut keep, &lens) {
                cut_lines.push((i, cut));
                continue;
            }
        }
        lens[i] = full;
    }
    // Then context from the top, in reading order.
    for i in 0..lines.len() {
        if !keep[i] && !take(i, &mut keep, &lens) {
            break;
        }
    }
    let mut out = String::with_capacity(max_chars + 64);
    let mut skipped = 0usize;
    for (i, line) in lines.iter().enumerate() {
        if !keep[i] {
            skipped += 1;
            continue;
        }
        if skipped > 0 {
            let _ = writeln!(out, "{}", gap_line(skipped));
            skipped = 0;
        }
        match cut_lines.iter().find(|(j, _)| *j == i) {
            Some((_, cut)) => out.push_str(cut),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    if skipped > 0 {
        out.push_str(&gap_line(skipped));
    }
    out.truncate(out.trim_end().len());
    out
}

/// Chars of a gap line, at most (`[… 99999 lines not shown]`).
const GAP_LINE_CHARS: usize = 28;

/// `[… N lines not shown]`.
fn gap_line(skipped: usize) -> String {
    format!(
        "[… {skipped} line{} not shown]",
        if skipped == 1 { "" } else { "s" }
    )
}

/// Chars of [`shorten`]'s result when the lines marked in `keep` are kept, line `i` shown in
/// `lens[i]` chars.
fn shown_chars(keep: &[bool], lens: &[usize]) -> usize {
    let mut total = 0;
    let mut skipped = 0;
    for (i, kept) in keep.iter().enumerate() {
        if *kept {
            if skipped > 0 {
                total += gap_line(skipped).chars().count() + 1;
                skipped = 0;
            }
            total += lens[i] + 1;
        } else {
            skipped += 1;
        }
    }
    if skipped > 0 {
        total += gap_line(skipped).chars().count();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const STATEMENT: &str = "Item 8. Financial Statements\n\
Intro line one about the company and its filings.\n\
Intro line two about the company and its filings.\n\
CONSOLIDATED STATEMENTS OF INCOME\n\
| (In millions) | 2015 | 2014 |\n\
| --- | ---: | ---: |\n\
| Revenue | 4,796 | 4,147 |\n\
| Cost of revenue | 744 | 622 |\n\
| Research and development | 862 | 844 |\n\
| Operating income | 903 | 413 |\n\
| Net income | 630 | 268 |\n\
Notes follow on later pages of the report.";

    #[test]
    fn a_text_that_fits_is_whole() {
        assert_eq!(shorten(STATEMENT, 10_000, &[], &[]), STATEMENT);
    }

    /// The rows holding the terms stay with their table's header; the lines left out are
    /// counted, and the result keeps to its bound.
    #[test]
    fn shortening_keeps_term_lines_and_their_table_header() {
        let terms = query_terms("operating income margin");
        let short = shorten(STATEMENT, 300, &terms, &[]);
        assert!(short.chars().count() <= 300, "{short}");
        assert_eq!(
            short,
            "Item 8. Financial Statements\n\
Intro line one about the company and its filings.\n\
[… 1 line not shown]\n\
CONSOLIDATED STATEMENTS OF INCOME\n\
| (In millions) | 2015 | 2014 |\n\
| --- | ---: | ---: |\n\
[… 3 lines not shown]\n\
| Operating income | 903 | 413 |\n\
| Net income | 630 | 268 |\n\
[… 1 line not shown]"
        );
    }

    /// However many items and however little room, every item is shown, numbered, with its
    /// heading path.
    #[test]
    fn no_item_is_ever_left_out() {
        let items: Vec<PromptItem> = (0..6)
            .map(|i| PromptItem {
                header: format!("lines {i}–{i}"),
                source: format!("d #{i}"),
                heading: format!("d › Part {i}"),
                text: STATEMENT.repeat(3),
                cited: Vec::new(),
            })
            .collect();
        let shown = render_items(&items, 500, &query_terms("net income"));
        for i in 0..6 {
            assert!(
                shown.contains(&format!(
                    "[{}] lines {i}–{i}\n<document-data source=\"d #{i}\">\nd › Part {i}\n",
                    i + 1
                )),
                "{shown}"
            );
        }
        assert_eq!(
            shown.matches("| Net income | 630 | 268 |").count(),
            6,
            "{shown}"
        );
    }

    /// Lines cited with no term of the question are kept, with their table's header rows, and
    /// an item's share is never less than they take.
    #[test]
    fn cited_lines_are_kept_with_their_table_header() {
        let terms = query_terms("operating income");
        // Line 9 is `| Research and development | 862 | 844 |`.
        let short = shorten(STATEMENT, 300, &terms, &[[9, 9]]);
        assert!(
            short.contains("| Research and development | 862 | 844 |\n"),
            "{short}"
        );
        assert!(short.contains("| (In millions) | 2015 | 2014 |\n| --- | ---: | ---: |\n"));
        assert!(
            short.contains("| Operating income | 903 | 413 |"),
            "{short}"
        );
        assert!(short.chars().count() <= 300, "{short}");
        // Too little room for them: the share grows to what they need.
        let need = cited_chars(STATEMENT, &[[2, 3], [9, 9]]);
        let items = [PromptItem {
            header: String::new(),
            source: "d".into(),
            heading: "d".into(),
            text: STATEMENT.into(),
            cited: vec![[2, 3], [9, 9]],
        }];
        let shown = render_items(&items, 10, &terms);
        for line in [2, 3, 9] {
            let text = STATEMENT.split('\n').nth(line - 1).unwrap();
            assert!(shown.contains(text), "{text} in {shown}");
        }
        assert!(need > MIN_ITEM_CHARS, "{need}");
    }
}
