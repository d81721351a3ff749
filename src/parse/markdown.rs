//! Markdown parser (DESIGN.md §2): headings found with pulldown-cmark (CommonMark + GFM tables,
//! footnotes, strikethrough, task lists) become [`RawSection`]s whose `content` is the verbatim
//! source between headings.
//!
//! One pass over pulldown-cmark's offset iterator collects heading byte ranges; a line-start table
//! (`lines::LineIndex`) turns offsets into 1-based lines by binary search, so the whole parse is
//! linear in the input. Headings are ATX and setext headings (at any container depth, as
//! CommonMark defines them — `#` lines inside code fences are code) and HTML blocks that open with
//! `<h1>`…`<h6>`. Front matter is handled by `front_matter`.

mod front_matter;
pub(crate) mod lines;
pub(crate) mod title;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use self::lines::LineIndex;
use super::DocFormat;
use super::{ParsedDoc, RawSection};

/// A heading located in the source.
#[derive(Debug)]
struct Heading {
    level: u32,
    title: String,
    /// Byte offset of the start of the heading's first line.
    start: usize,
    /// 1-based line of `start`.
    line: u32,
    /// 1-based line after the heading (after a setext underline or the line holding `</hN>`).
    content_line: u32,
    /// Byte offset where `content_line` starts (the text length past the end).
    content_start: usize,
    /// Explicit anchor (`<h3 name="x">`, `{#x}`), see [`RawSection::anchor`].
    anchor: Option<String>,
}

/// pulldown-cmark extensions used: GFM tables, footnotes, strikethrough and task lists, so that
/// their syntax is never mistaken for headings or paragraphs. Metadata blocks are NOT enabled: see
/// [`front_matter`].
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
}

/// Parse Markdown `text` into a [`ParsedDoc`] (format Markdown). Never fails and never panics.
///
/// - `sections`: one per heading, in order; `level` 1–6 (levels may skip); `title` is the inline
///   text with markup and HTML tags removed and whitespace collapsed; `content` is the verbatim
///   source from the line after the heading to the line before the next heading;
///   `content_first_line` is that first line; `lines` is the heading's line up to the next
///   heading's line (end exclusive, 1-based; the last section ends at line count + 1).
/// - `preamble`: the text between the front matter (or the start) and the first heading.
/// - `metadata`/`title`: front matter key/values and its `title`; front matter is in no content.
/// - `source_units`: number of lines (as [`str::lines`] counts them).
///
/// A leading byte-order mark is ignored.
pub fn parse_markdown(text: &str) -> ParsedDoc {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let index = LineIndex::new(text);
    let front = front_matter::detect(text);
    let body_start = front.as_ref().map_or(0, |f| f.body_start);
    let headings = find_headings(text, body_start, &index);

    let line_count = index.line_count();
    let end_line = line_count.saturating_add(1);
    // Front matter ends with a newline, so the body starts on a fresh line.
    let body_line = if body_start == 0 {
        1
    } else {
        index.line_of(body_start.saturating_sub(1)) + 1
    };
    let first_heading = headings.first().map_or(text.len(), |h| h.start);
    let preamble = RawSection {
        level: 0,
        title: String::new(),
        content: text[body_start..first_heading].to_string(),
        content_first_line: Some(body_line),
        source_marks: Vec::new(),
        page_marks: Vec::new(),
        lines: Some(
            index.line_of(body_start)
                ..headings
                    .first()
                    .map_or(end_line, |h| index.line_of(h.start)),
        ),
        pages: None,
        anchor: None,
        ids: Vec::new(),
        links: Vec::new(),
    };
    let mut sections = Vec::with_capacity(headings.len());
    let mut headings = headings.into_iter().peekable();
    while let Some(h) = headings.next() {
        let next_start = headings.peek().map_or(text.len(), |n| n.start);
        let next_line = headings.peek().map_or(end_line, |n| n.line);
        let content_start = h.content_start.min(next_start);
        sections.push(RawSection {
            level: h.level,
            title: h.title,
            content: text[content_start..next_start].to_string(),
            content_first_line: Some(h.content_line.min(next_line)),
            source_marks: Vec::new(),
            page_marks: Vec::new(),
            lines: Some(h.line..next_line.max(h.line + 1)),
            pages: None,
            anchor: h.anchor,
            ids: Vec::new(),
            links: Vec::new(),
        });
    }
    let (title, metadata) = match front {
        Some(f) => (f.title(), f.metadata),
        None => (None, Vec::new()),
    };
    ParsedDoc {
        format: DocFormat::Markdown,
        title,
        metadata,
        preamble,
        sections,
        pages_without_text: Vec::new(),
        source_units: line_count,
        warnings: Vec::new(),
    }
}

/// All headings of `text[body_start..]`, in order, with offsets into `text`. Every heading starts
/// on a later line than the previous heading's content start, so sections never overlap.
fn find_headings(text: &str, body_start: usize, index: &LineIndex) -> Vec<Heading> {
    let body = &text[body_start..];
    let mut headings: Vec<Heading> = Vec::new();
    // (level, start offset in text, title so far) of the heading being read.
    let mut open: Option<(u32, usize, String)> = None;
    let push = |headings: &mut Vec<Heading>,
                level,
                (title, anchor): (String, Option<String>),
                start,
                last_byte| {
        // Headings come in source order: look forward from the previous one.
        let line = index.line_of_from(start, headings.last().map_or(1, |p| p.line));
        if headings.last().is_some_and(|p| line < p.content_line) {
            return;
        }
        let content_line = index.line_of_from(last_byte, line).saturating_add(1);
        headings.push(Heading {
            level,
            title,
            start: index.start_of(line),
            line,
            content_line,
            content_start: index.start_of(content_line),
            anchor,
        });
    };
    for (event, range) in Parser::new_ext(body, options()).into_offset_iter() {
        let (from, to) = (body_start + range.start, body_start + range.end);
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                open = Some((level as u32, from, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start, raw)) = open.take() {
                    let last = to.saturating_sub(1).max(start);
                    let title = title::clean_title_and_id(&raw);
                    push(&mut headings, level, title, start, last);
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                if let Some((_, _, raw)) = open.as_mut() {
                    raw.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, raw)) = open.as_mut() {
                    raw.push(' ');
                }
            }
            Event::Start(Tag::HtmlBlock) if open.is_none() => {
                let block = text.get(from..to).unwrap_or("");
                if let Some(h) = title::html_heading(block) {
                    let last = (from + h.end).saturating_sub(1).max(from);
                    push(&mut headings, h.level, (h.title, h.anchor), from, last);
                }
            }
            _ => {}
        }
    }
    headings
}

#[cfg(test)]
mod tests;
