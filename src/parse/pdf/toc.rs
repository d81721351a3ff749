//! A printed table of contents: its entries (number, title, level) and where it sits, so the
//! headings it lists can be confirmed in the body and the table itself is not taken for them.
//!
//! Entry lines are either
//! - a title, a dot leader of at least three dots and a page number (`3.18.1. Purpose ........
//!   17`, `Appendix A A sample session . . . 78`, `Preface ..... xi`), or
//! - a numbered title and a page number without a leader (`17 What This Package Can Not Do 6`),
//!   counted only in runs of at least [`MIN_RUN`] such lines.
//!
//! An entry's level is its number's depth; an unnumbered entry takes the level of numbered
//! entries indented like it, else the rank of its indentation among the entries.

use std::sync::LazyLock;

use regex::Regex;

use super::numbering::{self, Numbering, Scheme};
use super::text::TextLine;

/// Leaderless numbered lines count as entries only in runs of at least this many.
pub const MIN_RUN: usize = 3;
/// A group line (`Part II`, `PART I — FINANCIAL INFORMATION`) is at most this many chars.
const MAX_GROUP_CHARS: usize = 60;
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
static NUMBERED_PAGE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(.*\S)\s+([0-9]{1,4})$").ok());

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
    for (i, line) in lines.iter().enumerate() {
        let text = line.text.as_str();
        if let Some(caps) = LEADER.as_ref().and_then(|re| re.captures(text)) {
            if run.iter().all(|(_, t, _)| group(t)) {
                found.append(&mut run);
            } else {
                flush(&mut run, &mut found);
            }
            if let Some(title) = caps.get(1) {
                found.push((i, title.as_str().trim().to_string(), line.x));
            }
            continue;
        }
        let numbered = NUMBERED_PAGE
            .as_ref()
            .and_then(|re| re.captures(text))
            .and_then(|caps| caps.get(1))
            .map(|t| t.as_str())
            .filter(|t| numbering::numbering(t).is_some());
        match numbered {
            Some(title) => run.push((i, title.to_string(), line.x)),
            None if group(text) && !line.in_table => run.push((i, text.to_string(), line.x)),
            None => flush(&mut run, &mut found),
        }
    }
    flush(&mut run, &mut found);
    found.sort_by_key(|(i, _, _)| *i);
    levels(found)
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn line(x: f32, text: &str) -> TextLine {
        TextLine {
            text: text.into(),
            x,
            x_end: 0.0,
            y: 0.0,
            size: 10.0,
            bold: false,
            para_before: false,
            marks: Vec::new(),
            notes: Vec::new(),
            cells: Vec::new(),
            in_table: false,
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
