//! Cutting the document text into sections: at outline entries' printed headings, at detected
//! headings, or (fallback) one section per page.

use std::collections::HashMap;
use std::ops::Range;

use super::headings::Heading;
use super::locate;
use super::outline::OutlineEntry;
use super::text::TextLine;
use super::{one_line, MAX_PAGE_TITLE_CHARS, RUNNING_HEADER_PAGES};
use crate::parse::RawSection;

/// Separator between page texts in the joined document text (a paragraph break).
pub const PAGE_SEP: &str = "\n\n";

/// The document text: every page's lines (one per line, a blank line before a paragraph gap),
/// pages joined by [`PAGE_SEP`].
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// The whole text.
    pub full: String,
    /// Each page's byte range in `full`.
    pub pages: Vec<Range<usize>>,
    /// Byte offset in `full` of every line, all pages, in reading order.
    pub line_starts: Vec<usize>,
    /// Baseline of every line (PDF user-space points from the page's bottom), parallel to
    /// `line_starts`.
    pub line_baselines: Vec<f32>,
    /// Footnotes (`[^N]: text`, [`TextLine::notes`]) with the offset in `full` of the line
    /// referring to them, in reading order: a section's footnotes follow its text.
    pub notes: Vec<(usize, String)>,
}

impl Rendered {
    /// The text of page `i` (0-based).
    pub fn page(&self, i: usize) -> &str {
        self.pages.get(i).map_or("", |r| &self.full[r.clone()])
    }
}

/// Render `pages` (see [`Rendered`]).
pub fn render(pages: &[Vec<TextLine>]) -> Rendered {
    let size = pages
        .iter()
        .flatten()
        .map(|l| l.text.len() + 2)
        .sum::<usize>()
        + pages.len() * PAGE_SEP.len();
    let mut out = Rendered {
        full: String::with_capacity(size),
        pages: Vec::with_capacity(pages.len()),
        line_starts: Vec::with_capacity(pages.iter().map(Vec::len).sum()),
        line_baselines: Vec::with_capacity(pages.iter().map(Vec::len).sum()),
        notes: Vec::new(),
    };
    for (i, lines) in pages.iter().enumerate() {
        if i > 0 {
            out.full.push_str(PAGE_SEP);
        }
        let start = out.full.len();
        for (k, line) in lines.iter().enumerate() {
            if k > 0 {
                out.full
                    .push_str(if line.para_before { "\n\n" } else { "\n" });
            }
            out.line_starts.push(out.full.len());
            out.line_baselines.push(line.y);
            for note in &line.notes {
                out.notes.push((out.full.len(), note.clone()));
            }
            out.full.push_str(&line.text);
        }
        out.pages.push(start..out.full.len());
    }
    out
}

/// No outline: one level-1 section per page, titled by its first non-empty line — skipping
/// bare page numbers (`12`, `iv`) and running headers (a first line shared by at least
/// [`RUNNING_HEADER_PAGES`] pages) when the page has another line.
pub fn page_sections(doc: &Rendered) -> Vec<RawSection> {
    let texts: Vec<&str> = (0..doc.pages.len()).map(|i| doc.page(i)).collect();
    let mut first_lines: HashMap<&str, usize> = HashMap::new();
    for text in &texts {
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
            let range = doc.pages.get(n as usize - 1).cloned().unwrap_or(0..0);
            RawSection {
                level: 1,
                title,
                content: with_notes(text.to_string(), doc, range),
                content_first_line: None,
                source_marks: Vec::new(),
                page_marks: Vec::new(),
                lines: None,
                pages: Some(n..n + 1),
                anchor: None,
                ids: Vec::new(),
                links: Vec::new(),
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

/// Outline entries become sections cut at their printed headings.
pub fn outline_sections(doc: &Rendered, entries: &[OutlineEntry]) -> (RawSection, Vec<RawSection>) {
    let (full, ranges) = (&doc.full, &doc.pages);
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
        let find = |from: usize| {
            (from <= range.end)
                .then(|| {
                    locate::find_heading(&full[range.clone()], from - range.start, &entry.title)
                })
                .flatten()
        };
        // Where the destination points, when it names a height: a heading printed there wins
        // over the same words higher on the page (an R help page's title `attributes` below a
        // `See Also` list that names it); else the first match from the page's top.
        let found = entry
            .top
            .and_then(|top| first_line_below(doc, range.clone(), top))
            .filter(|&at| at > from)
            .and_then(find)
            .or_else(|| find(from));
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
    let heads = entries.iter().map(|entry| {
        let title = if entry.title.is_empty() {
            "(untitled)".to_string()
        } else {
            entry.title.clone()
        };
        (entry.level, title)
    });
    cut(doc, &starts, heads)
}

/// How far above a destination's `top` (points) a heading's baseline may be: a destination is
/// set at or a line above its heading, so one line of large type.
const DESTINATION_SLACK_PT: f32 = 24.0;

/// Byte offset in `doc.full` of the first line (reading order) of the page `range` whose
/// baseline is at or below `top` (within [`DESTINATION_SLACK_PT`]); `None` when no line is.
fn first_line_below(doc: &Rendered, range: Range<usize>, top: f32) -> Option<usize> {
    let first = doc.line_starts.partition_point(|&at| at < range.start);
    doc.line_starts[first..]
        .iter()
        .zip(&doc.line_baselines[first..])
        .take_while(|(&at, _)| at < range.end)
        .find(|(_, &y)| y <= top + DESTINATION_SLACK_PT)
        .map(|(&at, _)| at)
}

/// Detected printed headings become sections, each from its heading line to the next.
pub fn heading_sections(doc: &Rendered, headings: &[Heading]) -> (RawSection, Vec<RawSection>) {
    let starts: Vec<Option<usize>> = headings
        .iter()
        .map(|h| doc.line_starts.get(h.at).copied())
        .collect();
    let heads = headings.iter().map(|h| (h.level, one_line(&h.title)));
    cut(doc, &starts, heads)
}

/// `content` without its first line when that line is the section's printed heading (`title`,
/// compared with whitespace runs as one space and case ignored): the tree shows the title as the
/// section's `# heading` already, and the model read FHS's `# 3.13.2. Requirements` followed by
/// `3.13.2. Requirements`. A heading printed over two lines is left as it is.
fn without_printed_heading(content: String, title: &str) -> String {
    static NUMBER: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^(?i)(chapter\s+\d+\.?|appendix\s+[a-z]\.?|[a-z]?\d+(\.\d+)*\.?|[a-z]\.)\s+",
        )
        .ok()
    });
    let squeeze = |t: &str| {
        t.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let (first, rest) = content.split_once('\n').unwrap_or((content.as_str(), ""));
    let (first, title) = (squeeze(first), squeeze(title));
    // The outline's title may leave out the printed number (R-intro: "The R environment",
    // printed "1.1 The R environment").
    let unnumbered = NUMBER
        .as_ref()
        .map(|re| re.replace(&first, "").into_owned())
        .unwrap_or_default();
    if !title.is_empty() && (first == title || unnumbered == title) {
        rest.trim_start_matches(['\n', '\r']).to_string()
    } else {
        content
    }
}

/// `content` followed by the footnotes of `doc` referred to from `range` (byte offsets in
/// `doc.full`), each after a blank line.
fn with_notes(mut content: String, doc: &Rendered, range: Range<usize>) -> String {
    let from = doc.notes.partition_point(|(at, _)| *at < range.start);
    for (_, note) in doc.notes[from..]
        .iter()
        .take_while(|(at, _)| *at < range.end)
    {
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str(note);
    }
    content
}

/// Cut `doc` into a preamble and one section per `(level, title)` of `heads`, section `i`
/// starting at byte `starts[i]` (`None`: where the next located one starts, i.e. empty) and
/// running to the next start. Pages are those the trimmed text touches.
fn cut(
    doc: &Rendered,
    starts: &[Option<usize>],
    heads: impl Iterator<Item = (u32, String)>,
) -> (RawSection, Vec<RawSection>) {
    let (full, ranges) = (&doc.full, &doc.pages);
    let mut resolved = vec![full.len(); starts.len()];
    let mut next = full.len();
    for (i, s) in starts.iter().enumerate().rev() {
        next = s.unwrap_or(next).min(next);
        resolved[i] = next;
    }
    let page_of = |offset: usize| ranges.partition_point(|r| r.start <= offset).max(1);
    // The trimmed text of `start..end`, the pages it touches, and where each later page starts
    // in it.
    let span = |start: usize, end: usize| -> (String, Option<Range<u32>>, Vec<(usize, u32)>) {
        let text = full[start..end].trim();
        if text.is_empty() {
            let p = u32::try_from(page_of(start)).unwrap_or(1);
            return (String::new(), Some(p..p + 1), Vec::new());
        }
        let lead = full[start..end].len() - full[start..end].trim_start().len();
        let from = start + lead;
        let first = page_of(from);
        let last = page_of(from + text.len() - 1);
        let to_u32 = |p: usize| u32::try_from(p).unwrap_or(u32::MAX);
        let marks = (first..last)
            .filter_map(|index| {
                let at = ranges.get(index)?.start.checked_sub(from)?;
                Some((at.min(text.len()), to_u32(index + 1)))
            })
            .collect();
        (
            text.to_string(),
            Some(to_u32(first)..to_u32(last) + 1),
            marks,
        )
    };
    let first_start = resolved.first().copied().unwrap_or(full.len());
    let (pre_text, pre_pages, pre_marks) = span(0, first_start);
    let pre_text = with_notes(pre_text, doc, 0..first_start);
    let preamble = RawSection {
        pages: (!pre_text.is_empty()).then_some(pre_pages).flatten(),
        page_marks: pre_marks,
        content: pre_text,
        ..RawSection::default()
    };
    let sections = heads
        .enumerate()
        .map(|(i, (level, title))| {
            let end = resolved.get(i + 1).copied().unwrap_or(full.len());
            let (content, pages, marks) = span(resolved[i], end.max(resolved[i]));
            // The pages still count the printed heading's line.
            let printed = content.len();
            let content = without_printed_heading(content, &title);
            let dropped = printed - content.len();
            let page_marks = marks
                .into_iter()
                .map(|(at, page)| (at.saturating_sub(dropped), page))
                .collect();
            let content = with_notes(content, doc, resolved[i]..end.max(resolved[i]));
            RawSection {
                level,
                title,
                content,
                content_first_line: None,
                source_marks: Vec::new(),
                page_marks,
                lines: None,
                pages,
                anchor: None,
                ids: Vec::new(),
                links: Vec::new(),
            }
        })
        .collect();
    (preamble, sections)
}
