//! A printed table of contents: its entries (number, title, level) and where it sits, so the
//! headings it lists can be confirmed in the body and the table itself is not taken for them.
//!
//! Entry lines are either
//! - a title, a dot leader of at least three dots and a page number (`3.18.1. Purpose ........
//!   17`, `Appendix A A sample session . . . 78`, `Preface ..... xi`), or
//! - a numbered title and a page number without a leader (`17 What This Package Can Not Do 6`),
//!   counted only in runs of at least [`MIN_RUN`] such lines, or
//! - an unnumbered title and a page number without a leader (McDonald's 10-K: `About
//!   McDonald's 3`, `Business Summary 3`, … `Signatures 66`), counted only in runs of at least
//!   [`MIN_UNNUMBERED_RUN`] consecutive lines whose page numbers end at one right edge and
//!   never go back, outside tables, each title starting with a capital and holding at most
//!   one number — what a contents list looks like and a column of figures does not.
//!
//! An entry's level is its number's depth; an unnumbered entry takes the level of numbered
//! entries indented like it, else the rank of its indentation among the entries.

use std::sync::LazyLock;

use regex::Regex;

use super::numbering::{self, Numbering, Scheme};
use super::text::TextLine;

/// Leaderless numbered lines count as entries only in runs of at least this many.
pub const MIN_RUN: usize = 3;
/// Unnumbered leaderless lines count as entries only in runs of at least this many.
/// (A 10-K's index to its financial statements lists six or seven: the auditor's report and
/// the statements, which are headings of the body, not its contents.)
pub const MIN_UNNUMBERED_RUN: usize = 8;
/// A group line (`Part II`, `PART I — FINANCIAL INFORMATION`) is at most this many chars.
const MAX_GROUP_CHARS: usize = 60;
/// A column header `Item` names the numbers of at most this many lines below it.
const ITEM_COLUMN_LINES: usize = 80;
/// Entries more than this many lines apart belong to different contents lists.
const LIST_GAP_LINES: usize = 40;
/// Two entries indented within this many points are at the same indentation.
const SAME_INDENT: f32 = 3.0;

/// One table-of-contents entry.
#[derive(Debug, Clone, PartialEq)]
pub struct TocEntry {
    /// Index of its line in the document's lines in reading order.
    pub at: usize,
    /// Its printed number, if any.
    pub numbering: Option<Numbering>,
    /// The title without number, leader and page.
    pub title: String,
    /// Nesting level, 1 = top.
    pub level: u32,
}

static LEADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(.*?[^.\s])\s*(?:\.\s*){3,}\s*([0-9]{1,4}|[ivxlc]{1,7})$").ok());
/// A bare Item number in a column headed `Item`: `7.`, `1A.`, `15`.
static BARE_ITEM_NUMBER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[0-9]{1,2}[A-Z]?\.?\s+\S").ok());
static NUMBERED_PAGE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(.*\S)\s+([0-9]{1,4})$").ok());

/// The page number a contents entry's line `text` ends with (`Controls and Procedures 62`,
/// `Purpose ...... 17`), if any; roman numerals are none.
pub fn printed_page(text: &str) -> Option<u32> {
    let caps = NUMBERED_PAGE.as_ref()?.captures(text.trim_end())?;
    caps.get(2)?.as_str().parse().ok()
}

/// The entries of the printed tables of contents among `lines` (reading order), in order.
pub fn entries(lines: &[&TextLine]) -> Vec<TocEntry> {
    let mut found: Vec<(usize, String, f32)> = Vec::new();
    let mut run: Vec<(usize, String, f32)> = Vec::new();
    let flush = |run: &mut Vec<(usize, String, f32)>, found: &mut Vec<(usize, String, f32)>| {
        if run.len() >= MIN_RUN {
            found.append(run);
        }
        run.clear();
    };
    // `Part II` alone on its line groups the entries after it (a 10-K's contents list prints
    // no page number for it).
    let group = |text: &str| {
        text.chars().count() <= MAX_GROUP_CHARS
            && numbering::numbering(text).is_some_and(|n| n.scheme == Scheme::Part)
    };
    // The page number and right edge of the last entry of the run: unnumbered entries
    // between numbered ones (a 10-K's `Overview 23` under `Item 7.`) continue the run when
    // their page numbers line up under its and do not go back.
    let mut last_numbered: Option<(u32, f32)> = None;
    // Up to which line the number column is headed `Item` (`ITEM NO.  DESCRIPTION  PAGE NO.`):
    // its bare numbers (`7.`, `1A.`) are Items.
    let mut item_column_until = 0;
    let mut skip_to = 0;
    for (i, line) in lines.iter().enumerate() {
        if i < skip_to {
            continue;
        }
        if item_column_header(line) {
            item_column_until = i + ITEM_COLUMN_LINES;
            continue;
        }
        let mut owned = std::borrow::Cow::Borrowed(line.text.as_str());
        if i < item_column_until
            && BARE_ITEM_NUMBER
                .as_ref()
                .is_some_and(|re| re.is_match(&owned))
        {
            owned = format!("Item {owned}").into();
        }
        // An entry wrapped over two lines, its page number on the second.
        let x = line.x;
        let mut line: &TextLine = line;
        if let Some(next) = wrapped_entry_end(lines, i, &owned) {
            owned = format!("{owned} {}", next.text).into();
            line = next;
            skip_to = i + 2;
        }
        let text = owned.as_ref();
        if let Some(caps) = LEADER.as_ref().and_then(|re| re.captures(text)) {
            if run.iter().all(|(_, t, _)| group(t)) {
                found.append(&mut run);
            } else {
                flush(&mut run, &mut found);
            }
            if let Some(title) = caps.get(1) {
                found.push((i, title.as_str().trim().to_string(), x));
            }
            continue;
        }
        let with_page = NUMBERED_PAGE.as_ref().and_then(|re| re.captures(text));
        let title_and_page = with_page.as_ref().and_then(|caps| {
            let page: u32 = caps.get(2)?.as_str().parse().ok()?;
            Some((caps.get(1)?.as_str(), page))
        });
        match title_and_page {
            Some((title, page)) if numbering::numbering(title).is_some() => {
                run.push((i, title.to_string(), x));
                last_numbered = Some((page, line.x_end));
            }
            Some((title, page)) if continues_run(title, page, line, last_numbered) => {
                run.push((i, title.to_string(), x));
                last_numbered = last_numbered.map(|(_, x_end)| (page, x_end));
            }
            _ if group(text) && !line.in_table => run.push((i, text.to_string(), line.x)),
            _ => {
                flush(&mut run, &mut found);
                last_numbered = None;
            }
        }
    }
    flush(&mut run, &mut found);
    let taken: std::collections::HashSet<usize> = found.iter().map(|(i, _, _)| *i).collect();
    found.extend(unnumbered_runs(lines, &taken));
    found.sort_by_key(|(i, _, _)| *i);
    // Each contents list's indentation is its own: an exhibit's list further on does not
    // shift the levels of the document's.
    let mut all = Vec::with_capacity(found.len());
    let mut list: Vec<(usize, String, f32)> = Vec::new();
    for entry in found {
        if list
            .last()
            .is_some_and(|(at, _, _)| entry.0 > at + LIST_GAP_LINES)
        {
            all.extend(levels(std::mem::take(&mut list)));
        }
        list.push(entry);
    }
    all.extend(levels(list));
    all
}

/// The runs of unnumbered leaderless entries among `lines` (see the module doc), leaving out
/// the lines in `taken`: (line index, title, x) per entry.
fn unnumbered_runs(
    lines: &[&TextLine],
    taken: &std::collections::HashSet<usize>,
) -> Vec<(usize, String, f32)> {
    let mut found = Vec::new();
    // The run so far, and the page number and right edge of its last entry.
    let mut run: Vec<(usize, String, f32)> = Vec::new();
    let mut last: Option<(u32, f32)> = None;
    let mut flush = |run: &mut Vec<(usize, String, f32)>| {
        if run.len() >= MIN_UNNUMBERED_RUN {
            found.append(run);
        }
        run.clear();
    };
    for (i, line) in lines.iter().enumerate() {
        let entry = (!taken.contains(&i) && !line.in_table)
            .then(|| NUMBERED_PAGE.as_ref()?.captures(&line.text))
            .flatten()
            .and_then(|caps| {
                let page: u32 = caps.get(2)?.as_str().parse().ok()?;
                let title = caps.get(1)?.as_str();
                // A capital first, or a year and then one (`2022 Financial Performance`).
                let capital = |w: &str| w.starts_with(char::is_uppercase);
                let mut words = title.split_whitespace();
                let reads_as_title = match words.next() {
                    Some(w) if w.chars().all(|c| c.is_ascii_digit()) => {
                        words.next().is_some_and(capital)
                    }
                    Some(w) => capital(w),
                    None => false,
                };
                (numbering::numbering(title).is_none() && reads_as_title && figures(title) <= 1)
                    .then(|| (title.to_string(), page))
            });
        let Some((title, page)) = entry else {
            flush(&mut run);
            continue;
        };
        let continues = last.is_some_and(|(last_page, x_end)| {
            page >= last_page && (line.x_end - x_end).abs() <= SAME_INDENT
        });
        if !continues {
            flush(&mut run);
        }
        run.push((i, title, line.x));
        last = Some((page, line.x_end));
    }
    flush(&mut run);
    found
}

/// Words of `title` holding a digit (a title holds at most one; a table row more).
fn figures(title: &str) -> usize {
    title
        .split_whitespace()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .count()
}

/// True for a contents list's column header naming its number column `Item` (`ITEM NO.
/// DESCRIPTION PAGE NO.`, `Item  Page`).
fn item_column_header(line: &TextLine) -> bool {
    let first = line
        .cells
        .first()
        .map_or(line.text.as_str(), |c| c.text.as_str());
    let folded = numbering::fold(first);
    let lower = line.text.to_lowercase();
    let named = if line.cells.is_empty() {
        lower.starts_with("item no") || lower.starts_with("item number")
    } else {
        folded == "item" || folded == "itemno" || folded == "itemnumber"
    };
    named && lower.contains("page")
}

/// The line after `lines[i]` (whose text, maybe rewritten, is `text`) when the two are one
/// contents entry wrapped: `text` is numbered and ends without a page number, the next line
/// is unnumbered, starts right of it and ends with one (`7. MANAGEMENT'S DISCUSSION … OF` /
/// `OPERATIONS 43`).
fn wrapped_entry_end<'a>(lines: &[&'a TextLine], i: usize, text: &str) -> Option<&'a TextLine> {
    let next = *lines.get(i + 1)?;
    let ends_with_page = |t: &str| NUMBERED_PAGE.as_ref().is_some_and(|re| re.is_match(t));
    (numbering::numbering(text).is_some()
        && !ends_with_page(text)
        && !LEADER.as_ref().is_some_and(|re| re.is_match(text))
        && numbering::numbering(&next.text).is_none()
        && next.x > lines[i].x + SAME_INDENT
        && (ends_with_page(&next.text)
            || LEADER.as_ref().is_some_and(|re| re.is_match(&next.text)))
        && !next.in_table)
        .then_some(next)
}

/// True when an unnumbered `title` with page number `page` on `line` continues a leaderless
/// run whose last entry had page number and right edge `last`: its page number is right-aligned
/// with the last one (within [`SAME_INDENT`]) and not smaller, and the title reads as one (a
/// capital first, at most one number: no table row ends up in the contents).
fn continues_run(title: &str, page: u32, line: &TextLine, last: Option<(u32, f32)>) -> bool {
    let Some((last_page, last_x_end)) = last else {
        return false;
    };
    let numbers = figures(title);
    !line.in_table
        && page >= last_page
        && (line.x_end - last_x_end).abs() <= SAME_INDENT
        && title.starts_with(char::is_uppercase)
        && numbers <= 1
}

/// Entries with levels (see the module doc).
fn levels(found: Vec<(usize, String, f32)>) -> Vec<TocEntry> {
    let mut indents: Vec<f32> = Vec::new();
    for (_, _, x) in &found {
        if !indents.iter().any(|i| (i - x).abs() <= SAME_INDENT) {
            indents.push(*x);
        }
    }
    indents.sort_by(f32::total_cmp);
    let rank = |x: f32| {
        let r = indents
            .iter()
            .position(|i| (i - x).abs() <= SAME_INDENT)
            .unwrap_or(0);
        u32::try_from(r).unwrap_or(0) + 1
    };
    let numbered_at = |x: f32| {
        found.iter().find_map(|(_, t, fx)| {
            ((fx - x).abs() <= SAME_INDENT)
                .then(|| numbering::numbering(t).map(|n| n.depth))
                .flatten()
        })
    };
    found
        .iter()
        .map(|(at, title, x)| {
            let number = numbering::numbering(title);
            let level = match &number {
                Some(n) => n.depth,
                None => numbered_at(*x).unwrap_or_else(|| rank(*x)),
            };
            TocEntry {
                at: *at,
                title: numbering::strip(title).to_string(),
                numbering: number,
                level,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(x: f32, text: &str) -> TextLine {
        TextLine {
            text: text.into(),
            x,
            y: 0.0,
            size: 10.0,
            bold: false,
            ..TextLine::default()
        }
    }

    fn summary(entries: &[TocEntry]) -> Vec<(usize, Option<String>, &str, u32)> {
        entries
            .iter()
            .map(|e| {
                (
                    e.at,
                    e.numbering.as_ref().map(|n| n.key.clone()),
                    e.title.as_str(),
                    e.level,
                )
            })
            .collect()
    }

    #[test]
    fn leader_entries_with_levels_from_numbers_and_indentation() {
        let lines = [
            line(72.0, "Table of Contents"),
            line(72.0, "Preface ........ xi"),
            line(72.0, "1. Introduction ........................ 1"),
            line(90.0, "1.1. Purpose . . . . . . . . . 1"),
            line(110.0, "1.1.1. /tmp : Temporary files ..... 17"),
            line(90.0, "Acknowledgments ...... 43"),
            line(72.0, "Some body text that ends with a number 12"),
        ];
        let refs: Vec<&TextLine> = lines.iter().collect();
        assert_eq!(
            summary(&entries(&refs)),
            vec![
                (1, None, "Preface", 1),
                (2, Some("1".into()), "Introduction", 1),
                (3, Some("1.1".into()), "Purpose", 2),
                (4, Some("1.1.1".into()), "/tmp : Temporary files", 3),
                (5, None, "Acknowledgments", 2),
            ]
        );
    }

    #[test]
    fn unnumbered_entries_with_aligned_rising_page_numbers_continue_a_run() {
        let at = |x: f32, x_end: f32, text: &str| TextLine {
            x_end,
            ..line(x, text)
        };
        let lines = [
            at(23.0, 577.0, "Item 6. [Reserved]. 22"),
            at(
                23.0,
                577.0,
                "Item 7. Management's Discussion and Analysis 23",
            ),
            at(33.0, 577.0, "Overview 23"),
            at(33.0, 577.0, "Results of Operations 24"),
            at(
                23.0,
                577.0,
                "Item 7A. Quantitative and Qualitative Disclosures 48",
            ),
            // Page number not aligned, going back, a row of figures: the run ends before them.
            at(33.0, 540.0, "Liquidity 50"),
            at(23.0, 577.0, "Net sales 2019 2018 12"),
        ];
        let refs: Vec<&TextLine> = lines.iter().collect();
        let got = entries(&refs);
        assert_eq!(
            got.iter().map(|e| e.title.as_str()).collect::<Vec<_>>(),
            vec![
                "[Reserved].",
                "Management's Discussion and Analysis",
                "Overview",
                "Results of Operations",
                "Quantitative and Qualitative Disclosures"
            ]
        );
        assert!(got[2].level > got[1].level, "{got:?}");
    }

    #[test]
    fn a_number_column_headed_item_names_items_and_wrapped_entries_join() {
        let lines = [
            line(14.0, "ITEM NO. DESCRIPTION PAGE NO."),
            line(14.0, "PART I 1"),
            line(14.0, "1. BUSINESS 1"),
            line(14.0, "1A. RISK FACTORS 13"),
            line(
                14.0,
                "7. MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND",
            ),
            line(77.0, "RESULTS OF OPERATIONS 43"),
            line(14.0, "8. FINANCIAL STATEMENTS AND SUPPLEMENTARY DATA 103"),
        ];
        let refs: Vec<&TextLine> = lines.iter().collect();
        let found = entries(&refs);
        let got = summary(&found);
        assert_eq!(
            got.iter()
                .map(|(at, key, title, _)| (*at, key.clone().unwrap_or_default(), *title))
                .collect::<Vec<_>>(),
            vec![
                (1, "I".to_string(), ""),
                (2, "1".to_string(), "BUSINESS"),
                (3, "1A".to_string(), "RISK FACTORS"),
                (
                    4,
                    "7".to_string(),
                    "MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF OPERATIONS"
                ),
                (6, "8".to_string(), "FINANCIAL STATEMENTS AND SUPPLEMENTARY DATA"),
            ]
        );
        let entries = entries(&refs);
        assert_eq!(
            entries[1].numbering.as_ref().map(|n| n.scheme),
            Some(Scheme::Item)
        );
    }

    /// McDonald's 10-K for 2022 prints its contents with no numbers and no leaders: titles,
    /// indented sub-entries, page numbers at one right edge.
    #[test]
    fn a_run_of_unnumbered_titles_with_aligned_rising_pages_is_a_contents_list() {
        let at = |x: f32, x_end: f32, text: &str| TextLine {
            x_end,
            ..line(x, text)
        };
        let mut lines = vec![
            at(18.0, 580.0, "The order of content differs from the form 2"),
            at(19.0, 593.0, "Forward-Looking Statements 3"),
            at(19.0, 593.0, "About McDonald's 3"),
            at(28.0, 593.0, "Business Summary 3"),
            at(19.0, 593.0, "Management's Discussion and Analysis 8"),
            at(28.0, 593.0, "2022 Financial Performance 8"),
            at(28.0, 593.0, "Outlook 10"),
            at(28.0, 593.0, "Cash Flows 19"),
            at(28.0, 593.0, "Other Matters 24"),
            at(19.0, 593.0, "Other Key Information 25"),
            at(19.0, 593.0, "Signatures 66"),
            at(
                18.0,
                378.0,
                "All trademarks used herein are the property of their owners",
            ),
            // Aligned rows of a table of figures: too short a run, and one goes back.
            at(19.0, 400.0, "Restaurants 2022 40"),
            at(19.0, 400.0, "Employees 150"),
            at(19.0, 400.0, "Markets 100"),
            at(19.0, 400.0, "Segments 3"),
            at(19.0, 400.0, "Brands 1"),
        ];
        let refs: Vec<&TextLine> = lines.iter().collect();
        let got = entries(&refs);
        assert_eq!(
            got.iter()
                .map(|e| (e.at, e.title.as_str(), e.level))
                .collect::<Vec<_>>(),
            vec![
                (1, "Forward-Looking Statements", 1),
                (2, "About McDonald's", 1),
                (3, "Business Summary", 2),
                (4, "Management's Discussion and Analysis", 1),
                (5, "2022 Financial Performance", 2),
                (6, "Outlook", 2),
                (7, "Cash Flows", 2),
                (8, "Other Matters", 2),
                (9, "Other Key Information", 1),
                (10, "Signatures", 1),
            ]
        );
        // Seven such lines (an index to the financial statements) are no contents list.
        lines.drain(5..8);
        let refs: Vec<&TextLine> = lines.iter().collect();
        assert!(entries(&refs).is_empty());
    }

    #[test]
    fn leaderless_numbered_runs_only() {
        let lines = [
            line(58.0, "Contents"),
            line(58.0, "1 Introduction 1"),
            line(58.0, "2 Installation 2"),
            line(58.0, "3 Changes from older Versions 2"),
            line(58.0, "text"),
            line(58.0, "4 Lonely line 12"),
            line(58.0, "5 Another 13"),
        ];
        let refs: Vec<&TextLine> = lines.iter().collect();
        let got = entries(&refs);
        assert_eq!(got.iter().map(|e| e.at).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(got[2].title, "Changes from older Versions");
    }
}
