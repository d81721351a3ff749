//! Cutting the document text into sections: at outline entries' printed headings, at detected
//! headings, or (fallback) one section per page.

use std::collections::HashMap;
use std::ops::Range;

use super::locate;
use super::outline::OutlineEntry;
use super::{one_line, MAX_PAGE_TITLE_CHARS, RUNNING_HEADER_PAGES};
use crate::parse::RawSection;

/// Separator between page texts in the joined document text (a paragraph break).
pub const PAGE_SEP: &str = "\n\n";

/// No outline: one level-1 section per page, titled by its first non-empty line — skipping
/// bare page numbers (`12`, `iv`) and running headers (a first line shared by at least
/// [`RUNNING_HEADER_PAGES`] pages) when the page has another line.
pub fn page_sections(texts: &[String]) -> Vec<RawSection> {
    let mut first_lines: HashMap<&str, usize> = HashMap::new();
    for text in texts {
        if let Some(line) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
            *first_lines.entry(line).or_default() += 1;
        }
    }
    let is_furniture = |line: &str| {
        let page_number = line.len() <= 6
            && (line.chars().all(|c| c.is_ascii_digit())
                || line.chars().all(|c| "ivxlcdm".contains(c)));
        page_number
            || first_lines
                .get(line)
                .is_some_and(|&n| n >= RUNNING_HEADER_PAGES)
    };
    (1u32..)
        .zip(texts)
        .map(|(n, text)| {
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next();
            let title = match first {
                Some(line) if is_furniture(line) => lines
                    .find(|l| !is_furniture(l))
                    .map_or_else(|| clip_title(line), clip_title),
                Some(line) => clip_title(line),
                None => format!("Page {n}"),
            };
            RawSection {
                level: 1,
                title,
                content: text.clone(),
                content_first_line: None,
                lines: None,
                pages: Some(n..n + 1),
                anchor: None,
            }
        })
        .collect()
}

/// `line` cut to at most [`MAX_PAGE_TITLE_CHARS`] chars, at a word boundary when one is near.
fn clip_title(line: &str) -> String {
    let line = one_line(line);
    if line.chars().count() <= MAX_PAGE_TITLE_CHARS {
        return line;
    }
    let cut: String = line.chars().take(MAX_PAGE_TITLE_CHARS - 1).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > MAX_PAGE_TITLE_CHARS / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

/// The joined document text and each page's byte range in it.
fn join_pages(texts: &[String]) -> (String, Vec<Range<usize>>) {
    let mut full = String::with_capacity(texts.iter().map(|t| t.len() + PAGE_SEP.len()).sum());
    let mut ranges = Vec::with_capacity(texts.len());
    for (i, t) in texts.iter().enumerate() {
        if i > 0 {
            full.push_str(PAGE_SEP);
        }
        let start = full.len();
        full.push_str(t);
        ranges.push(start..full.len());
    }
    (full, ranges)
}

/// Outline entries become sections cut at their printed headings.
pub fn outline_sections(
    texts: &[String],
    entries: &[OutlineEntry],
) -> (RawSection, Vec<RawSection>) {
    let (full, ranges) = join_pages(texts);
    let last_page = ranges.len().max(1);
    // Pass 1: locate headings in order; `None` = shares a page with an earlier section and its
    // heading was not found, so it stays empty.
    let mut starts: Vec<Option<usize>> = Vec::with_capacity(entries.len());
    let mut cursor = 0usize; // nothing before this may start a later section
    let mut last_start: Option<usize> = None;
    let mut page = 1usize;
    for entry in entries {
        page = entry
            .page
            .map_or(page, |p| usize::try_from(p).unwrap_or(1))
            .clamp(1, last_page);
        let range = ranges[page - 1].clone();
        let from = cursor.max(range.start);
        let found = (from <= range.end)
            .then(|| locate::find_heading(&full[range.clone()], from - range.start, &entry.title))
            .flatten();
        let start = match found {
            Some((s, e)) => {
                cursor = range.start + e;
                Some(range.start + s)
            }
            None if last_start.is_none_or(|l| range.start > l) && range.start >= cursor => {
                cursor = range.start;
                Some(range.start)
            }
            None => None,
        };
        if start.is_some() {
            last_start = start;
        }
        starts.push(start);
    }
    // Pass 2: empty sections start where the next located one does.
    let mut resolved = vec![full.len(); starts.len()];
    let mut next = full.len();
    for (i, s) in starts.iter().enumerate().rev() {
        next = s.unwrap_or(next).min(next);
        resolved[i] = next;
    }
    let page_of = |offset: usize| ranges.partition_point(|r| r.start <= offset).max(1);
    let span = |start: usize, end: usize| -> (String, Option<Range<u32>>) {
        let text = full[start..end].trim();
        if text.is_empty() {
            let p = u32::try_from(page_of(start)).unwrap_or(1);
            return (String::new(), Some(p..p + 1));
        }
        let lead = full[start..end].len() - full[start..end].trim_start().len();
        let first = page_of(start + lead);
        let mut last = page_of(start + lead + text.len() - 1);
        // Only running headers / page numbers before the next heading: that page is the next
        // section's, not this one's.
        if last > first {
            let tail = &full[ranges[last - 1].start..start + lead + text.len()];
            if tail.lines().count() <= 2 && tail.chars().count() <= 160 {
                last -= 1;
            }
        }
        let to_u32 = |p: usize| u32::try_from(p).unwrap_or(u32::MAX);
        (text.to_string(), Some(to_u32(first)..to_u32(last) + 1))
    };
    let first_start = resolved.first().copied().unwrap_or(full.len());
    let (pre_text, pre_pages) = span(0, first_start);
    let preamble = RawSection {
        pages: (!pre_text.is_empty()).then_some(pre_pages).flatten(),
        content: pre_text,
        ..RawSection::default()
    };
    let sections = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let end = resolved.get(i + 1).copied().unwrap_or(full.len());
            let (content, pages) = span(resolved[i], end.max(resolved[i]));
            RawSection {
                level: entry.level,
                title: if entry.title.is_empty() {
                    "(untitled)".into()
                } else {
                    entry.title.clone()
                },
                content,
                content_first_line: None,
                lines: None,
                pages,
                anchor: None,
            }
        })
        .collect();
    (preamble, sections)
}
