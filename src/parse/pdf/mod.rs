//! PDF parser (DESIGN.md §2) on lopdf: the outline gives the hierarchy, page text gives content.
//!
//! - With an outline ([`outline`]): one section per entry, level = outline depth. A section's
//!   content runs from its printed heading ([`locate`]) to the next entry's heading, even
//!   mid-page; when a heading is not found on its page the section starts at that page's start
//!   (or, when an earlier section already started on that page, the section stays empty rather
//!   than sharing text). Text before the first entry is the preamble.
//! - Without an outline: one level-1 section per page titled by its first line.
//!
//! Text extraction ([`text`]) is our own content-stream interpreter, chosen by measurement over
//! the 16 corpus PDFs (`/work/shared/corpus/pdf`, 4,499 pages), release build, against
//! poppler's `pdftotext` 22.12 (default mode) and lopdf 0.47's `Document::extract_text`:
//!
//! | extractor | word tokens shared with pdftotext (precision / recall) | R-fullrefman (2,415 p.) |
//! | --- | --- | --- |
//! | lopdf `extract_text` | 0.11–0.99 / 0.12–0.99; glpk 0.11/0.12, fhs 0.52/0.97 | 4.8 s (2.0 ms/page) |
//! | ours ([`text`]) | ≥ 0.94 / ≥ 0.91 on every file; ≥ 0.98 on 9 of 16 | 1.9 s (0.8 ms/page) |
//! | pdftotext | — | 13.2 s (5.5 ms/page) |
//!
//! lopdf's extractor has no line breaks inside text objects, ignores `/ToUnicode` when a font
//! also has `/Encoding`, and falls back to StandardEncoding for TeX fonts whose encoding is
//! built into the font program (`: : :` for `...`, no bullets, glpk's body text lost). Ours
//! reads built-in Type 1 encodings and places strings by their matrices. Non-whitespace chars
//! extracted: 7,595,814 vs pdftotext's 7,594,415 over the corpus (+0.02%); per file within
//! ±0.5% except glpk (−0.7%, math fonts); 0.4–6.4 ms/page (pari-refcard's dense 3-column pages
//! are the slowest), all files together 4.0 s vs pdftotext's 21.3 s.
//! Pages are extracted independently (only a font cache is shared).

mod fonts;
mod locate;
mod outline;
mod text;

use std::collections::HashMap;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use lopdf::{Document, Object};

use super::{ParseError, ParsedDoc, RawSection};
use crate::tree::DocFormat;
use outline::OutlineEntry;

/// Longest title (in chars) taken from a page's first line when the PDF has no outline.
pub const MAX_PAGE_TITLE_CHARS: usize = 80;

/// A page's first line shared by this many pages is a running header, not a title.
pub const RUNNING_HEADER_PAGES: usize = 3;

/// Separator between page texts in the joined document text (a paragraph break).
const PAGE_SEP: &str = "\n\n";

/// Parse PDF bytes into sections (see the module doc for the rules).
///
/// Out: a [`ParsedDoc`] with `source_units` = page count, `pages` ranges 1-based end-exclusive,
/// `title` from the Info `/Title`, Info entries in `metadata`, pages without text listed.
/// Errors: [`ParseError::Pdf`] naming `path` when the bytes are not a readable PDF (corrupt,
/// truncated, encrypted with a password, no pages), including when lopdf panics on hostile
/// input (caught here). A single unreadable page only adds a warning.
pub fn parse_pdf(path: &Path, bytes: &[u8]) -> Result<ParsedDoc, ParseError> {
    let fail = |reason: String| ParseError::Pdf {
        path: path.to_path_buf(),
        reason: one_line(&reason),
    };
    match catch_unwind(AssertUnwindSafe(|| parse_inner(bytes))) {
        Ok(Ok(doc)) => Ok(doc),
        Ok(Err(reason)) => Err(fail(reason)),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(fail(format!(
                "the PDF reader failed on malformed input: {msg}"
            )))
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn parse_inner(bytes: &[u8]) -> Result<ParsedDoc, String> {
    if !bytes.starts_with(b"%PDF")
        && !bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
    {
        return Err("no `%PDF-` header: not a PDF file".into());
    }
    let doc = Document::load_mem(bytes).map_err(|e| format!("{e}"))?;
    if doc.is_encrypted() && !doc.was_encrypted() {
        return Err("the PDF is encrypted and needs a password".into());
    }
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err("no pages found (truncated or corrupt file)".into());
    }
    let page_count = u32::try_from(pages.len()).unwrap_or(u32::MAX);
    let mut warnings = Vec::new();
    let mut extractor = text::TextExtractor::new(&doc);
    let mut texts = Vec::with_capacity(pages.len());
    for (&number, &id) in &pages {
        match extractor.page_text(id) {
            Ok(t) => texts.push(t),
            Err(e) => {
                warnings.push(format!("page {number}: {}", one_line(&e)));
                texts.push(String::new());
            }
        }
    }
    let pages_without_text: Vec<u32> = (1..=page_count)
        .zip(&texts)
        .filter(|(_, t)| t.trim().is_empty())
        .map(|(n, _)| n)
        .collect();
    let page_numbers: HashMap<_, _> = pages.iter().map(|(&n, &id)| (id, n)).collect();
    let entries = outline::read_outline(&doc, &page_numbers);
    let metadata = info_metadata(&doc);
    let title = metadata
        .iter()
        .find(|(k, v)| k == "Title" && !v.trim().is_empty())
        .map(|(_, v)| v.trim().to_string());
    let (preamble, sections) = if entries.is_empty() {
        (RawSection::default(), page_sections(&texts))
    } else {
        outline_sections(&texts, &entries)
    };
    Ok(ParsedDoc {
        format: DocFormat::Pdf,
        title,
        metadata,
        preamble,
        sections,
        pages_without_text,
        source_units: page_count,
        warnings,
    })
}

/// Info dictionary entries with text, name or number values, in file order.
fn info_metadata(doc: &Document) -> Vec<(String, String)> {
    let Some(info) = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|o| fonts::deref(doc, o).as_dict().ok())
    else {
        return Vec::new();
    };
    info.iter()
        .filter_map(|(k, v)| {
            let value = match fonts::deref(doc, v) {
                o @ Object::String(..) => lopdf::decode_text_string(o).ok()?,
                Object::Name(n) => String::from_utf8_lossy(n).into_owned(),
                Object::Integer(i) => i.to_string(),
                Object::Real(r) => r.to_string(),
                Object::Boolean(b) => b.to_string(),
                _ => return None,
            };
            let value = one_line(&value.replace('\0', ""));
            Some((String::from_utf8_lossy(k).into_owned(), value)).filter(|(_, v)| !v.is_empty())
        })
        .collect()
}

/// No outline: one level-1 section per page, titled by its first non-empty line — skipping
/// bare page numbers (`12`, `iv`) and running headers (a first line shared by at least
/// [`RUNNING_HEADER_PAGES`] pages) when the page has another line.
fn page_sections(texts: &[String]) -> Vec<RawSection> {
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
fn outline_sections(texts: &[String], entries: &[OutlineEntry]) -> (RawSection, Vec<RawSection>) {
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
