//! PDF parser (DESIGN.md §2) on lopdf: the outline gives the hierarchy, page text gives content.
//!
//! - With an outline (`outline`): one section per entry, level = outline depth. A section's
//!   content runs from its printed heading (`locate`) to the next entry's heading, even
//!   mid-page; when a heading is not found on its page the section starts at that page's start
//!   (or, when an earlier section already started on that page, the section stays empty rather
//!   than sharing text). Text before the first entry is the preamble. An outline that does not
//!   cover its document (`outline_covers`: under [`MIN_OUTLINE_ENTRIES`] bookmarks, or more
//!   than [`MAX_OUTLINE_ROOT_SHARE`] of the text before the first — bookmarks over an exhibit
//!   only) is replaced by the printed headings when those are found and leave less text
//!   outside every section.
//! - Without an outline: one section per printed heading (`headings`), found from
//!   typography (size, weight, position, numbering) and confirmed by a printed table of contents
//!   (`toc`) when there is one; a section runs from its heading line to the next. Only when
//!   nothing heading-like is found: one level-1 section per page titled by its first line, with
//!   a warning.
//!
//! Before sections are cut, running headers, footers and page numbers are removed from the
//! page lines (`furniture`), so they never start a section nor sit inside one, line-end
//! hyphenation is joined (`hyphenation`), and footnotes are taken out of the running text
//! and written at the end of the section referring to them (`footnotes`). Every page is read
//! under a work bound ([`PageBudget`]): a page whose content inflates or runs past it makes the
//! document an error naming the page.
//!
//! Text extraction (`text`) is our own content-stream interpreter on lopdf, not lopdf's
//! `Document::extract_text`, which has no line breaks inside text objects, ignores `/ToUnicode`
//! when a font also has `/Encoding`, and falls back to StandardEncoding for TeX fonts whose
//! encoding is built into the font program (`: : :` for `...`, no bullets, glpk's body text
//! lost). Ours reads built-in Type 1 encodings and places strings by their matrices. It must
//! agree with poppler's `pdftotext` on the words and characters of every corpus PDF while using
//! a fraction of its CPU (the comparison: BENCHMARKS.md, "Indexing" and "PDF text and structure";
//! the benchmark history, docs/src/benchmarks-history.md, "Indexing"). Pages are extracted
//! independently (only a font cache is shared). The extractor also separates glyphs set with a
//! character spacing wider than a word gap (groff's `.I` + `ft` for `. If`, without which
//! bash-manpage reads `invokedasalogin` and `Avariable`) and footnote markers.

mod budget;
mod fonts;
mod footnotes;
mod fragments;
mod furniture;
mod headings;
mod hyphenation;
mod listed;
mod locate;
mod nesting;
mod numbering;
mod outline;
mod sections;
mod spacing;
mod tables;
mod text;
mod title;
mod toc;

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use lopdf::{Document, LoadOptions, Object};

use super::DocFormat;
use super::{ParseError, ParsedDoc, RawSection};
pub use budget::{PageBudget, DEFAULT_MAX_PAGE_MIB};
pub use text::TextLine;

/// Longest title (in chars) taken from a page's first line when the PDF has no outline.
pub const MAX_PAGE_TITLE_CHARS: usize = 80;

/// A page's first line shared by this many pages is a running header, not a title.
pub const RUNNING_HEADER_PAGES: usize = 3;

/// Streams decoded while loading (object and cross-reference streams) may inflate to this many
/// times the per-page content bound.
const LOAD_BOUND_PAGES: usize = 4;

/// How PDFs are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PdfOptions {
    /// The work bound per page ([`PageBudget`]); a page past it makes the document an error.
    pub page_budget: PageBudget,
}

/// Parse PDF bytes into sections (see the module doc for the rules) with default options.
///
/// Out: a [`ParsedDoc`] with `source_units` = page count, `pages` ranges 1-based end-exclusive,
/// `title` from the Info `/Title`, Info entries in `metadata`, pages without text listed,
/// warnings (one line each, naming `path`) for unreadable pages and the page-section fallback.
/// Errors: [`ParseError::Pdf`] naming `path` when the bytes are not a readable PDF (corrupt,
/// truncated, encrypted with a password, no pages), including when lopdf panics on hostile
/// input (caught here), and when a page passes the work bound (naming the page). A single
/// unreadable page only adds a warning.
pub fn parse_pdf(path: &Path, bytes: &[u8]) -> Result<ParsedDoc, ParseError> {
    parse_pdf_with(path, bytes, &PdfOptions::default())
}

/// [`parse_pdf`] with explicit options (the per-page work bound).
pub fn parse_pdf_with(
    path: &Path,
    bytes: &[u8],
    options: &PdfOptions,
) -> Result<ParsedDoc, ParseError> {
    let fail = |reason: String| ParseError::Pdf {
        path: path.to_path_buf(),
        reason: one_line(&reason),
    };
    match catch_unwind(AssertUnwindSafe(|| parse_inner(bytes, options))) {
        Ok(Ok(mut doc)) => {
            for w in &mut doc.warnings {
                *w = format!("`{}`: {w}", path.display());
            }
            Ok(doc)
        }
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

/// Load `bytes` as a PDF with bounded stream decoding. Errors: one line saying why not.
fn load(bytes: &[u8], options: &PdfOptions) -> Result<Document, String> {
    if !bytes.starts_with(b"%PDF")
        && !bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
    {
        return Err("no `%PDF-` header: not a PDF file".into());
    }
    let load_options = LoadOptions {
        max_decompressed_size: Some(
            options
                .page_budget
                .max_bytes
                .saturating_mul(LOAD_BOUND_PAGES),
        ),
        ..LoadOptions::default()
    };
    let doc = Document::load_mem_with_options(bytes, load_options).map_err(|e| format!("{e}"))?;
    if doc.is_encrypted() && !doc.was_encrypted() {
        return Err("the PDF is encrypted and needs a password".into());
    }
    Ok(doc)
}

/// The lines of every page, in page order (an unreadable page is empty and adds a warning).
/// Errors: the first page past the work bound, named.
pub fn read_pages(
    doc: &Document,
    options: &PdfOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<Vec<TextLine>>, String> {
    let pages = doc.get_pages();
    let mut extractor = text::TextExtractor::new(doc, options.page_budget);
    let mut out = Vec::with_capacity(pages.len());
    for (&number, &id) in &pages {
        match extractor.page_lines(id) {
            Ok(lines) => out.push(lines),
            Err(text::PageError::Unreadable(e)) => {
                warnings.push(format!("page {number}: {}", one_line(&e)));
                out.push(Vec::new());
            }
            Err(text::PageError::OverBudget(over)) => {
                return Err(format!(
                    "page {number} refused: {over}; the bound is {} MiB per page \
                     (raise it with --max-pdf-page-mib)",
                    options.page_budget.max_bytes >> 20
                ))
            }
        }
    }
    Ok(out)
}

/// The lines of every page of a PDF, as the parser sees them before furniture removal and
/// sectioning (for diagnostics and tests). Errors: as [`parse_pdf`], one line.
pub fn page_lines(bytes: &[u8], options: &PdfOptions) -> Result<Vec<Vec<TextLine>>, String> {
    let doc = load(bytes, options)?;
    read_pages(&doc, options, &mut Vec::new())
}

/// The lines of every page after running headers, footers and page numbers are removed
/// (`furniture`), line-end hyphenation is joined (`hyphenation`) and footnotes are moved
/// to the lines referring to them ([`TextLine::notes`], `footnotes`): the text sections are
/// cut from. Errors: as [`parse_pdf`], one line.
pub fn body_lines(bytes: &[u8], options: &PdfOptions) -> Result<Vec<Vec<TextLine>>, String> {
    let mut pages = page_lines(bytes, options)?;
    clean(&mut pages);
    Ok(pages)
}

/// A printed heading as a diagnostic shows it: `(page, level, title)`, page 1-based.
pub type PrintedHeading = (usize, u32, String);

/// The printed headings `headings::detect` finds in a PDF without reading its outline, each
/// as `(page, level, title)` (1-based page), and how they were found (`"toc N/M"`,
/// `"typography"`), or `None` when none are found: for diagnostics and tests. Errors: as
/// [`parse_pdf`], one line.
pub fn printed_headings(
    bytes: &[u8],
    options: &PdfOptions,
) -> Result<Option<(String, Vec<PrintedHeading>)>, String> {
    let pages = body_lines(bytes, options)?;
    let (flat, page_of) = flatten(&pages);
    Ok(headings::detect(&flat, &page_of).map(|found| {
        let method = match found.method {
            headings::Method::Toc { entries, matched } => format!("toc {matched}/{entries}"),
            headings::Method::Typography => "typography".to_string(),
        };
        let list = found
            .headings
            .iter()
            .map(|h| (page_of[h.at] + 1, h.level, h.title.clone()))
            .collect();
        (method, list)
    }))
}

/// The entries of the printed contents lists `toc::entries` finds, each as `(page, level,
/// text)` (1-based page; the text with its number, without leader and page number): for
/// diagnostics. Errors: as [`parse_pdf`], one line.
pub fn contents_entries(
    bytes: &[u8],
    options: &PdfOptions,
) -> Result<Vec<(usize, u32, String)>, String> {
    let pages = body_lines(bytes, options)?;
    let (flat, page_of) = flatten(&pages);
    Ok(toc::entries(&flat)
        .into_iter()
        .map(|e| {
            let number = e.numbering.map(|n| format!("[{:?} {}] ", n.scheme, n.key));
            (
                page_of[e.at] + 1,
                e.level,
                number.unwrap_or_default() + &e.title,
            )
        })
        .collect())
}

/// Furniture removal, words split by a stray space rejoined ([`spacing`]), hyphenation joining,
/// then footnotes moved to their references (after the joining, so a word hyphenated inside a
/// footnote is joined like the body's: the other order loses such joins and gains none), then
/// tables rewritten as pipe tables ([`tables`]).
fn clean(pages: &mut [Vec<TextLine>]) {
    furniture::remove_furniture(pages);
    spacing::join_split_words(pages);
    hyphenation::join_hyphens(pages);
    footnotes::separate_footnotes(pages);
    for page in pages.iter_mut() {
        tables::rewrite_tables(page);
    }
}

fn parse_inner(bytes: &[u8], options: &PdfOptions) -> Result<ParsedDoc, String> {
    let doc = load(bytes, options)?;
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err("no pages found (truncated or corrupt file)".into());
    }
    let page_count = u32::try_from(pages.len()).unwrap_or(u32::MAX);
    let mut warnings = Vec::new();
    let mut lines = read_pages(&doc, options, &mut warnings)?;
    // Before furniture removal: a page with only a running header has text, just none of use.
    let pages_without_text: Vec<u32> = (1..=page_count)
        .zip(&lines)
        .filter(|(_, l)| l.is_empty())
        .map(|(n, _)| n)
        .collect();
    clean(&mut lines);
    let rendered = sections::render(&lines);
    let page_numbers: HashMap<_, _> = pages.iter().map(|(&n, &id)| (id, n)).collect();
    let entries = outline::read_outline(&doc, &page_numbers);
    let metadata = info_metadata(&doc);
    let title = document_title(&metadata, &lines);
    let (preamble, sections) = if entries.is_empty() {
        printed_sections(&lines, &rendered, &mut warnings)
    } else {
        let from_outline = sections::outline_sections(&rendered, &entries);
        if outline_covers(&from_outline, entries.len()) {
            from_outline
        } else {
            // An outline of a bookmark or two, or of an exhibit only: the printed headings
            // replace it when they are found and leave no more text outside every section.
            let mut printed_warnings = Vec::new();
            let printed = printed_sections(&lines, &rendered, &mut printed_warnings);
            if printed_warnings.is_empty() && root_share(&printed) <= root_share(&from_outline) {
                printed
            } else {
                from_outline
            }
        }
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

/// The document's title: an SEC cover page's (registrant, form, period), else the Info
/// `/Title` unless it is junk ([`title::is_junk_title`]), else the first page's title line;
/// `None` when none of these exists (the build stage then uses the file name).
fn document_title(metadata: &[(String, String)], pages: &[Vec<TextLine>]) -> Option<String> {
    let info = metadata
        .iter()
        .find(|(k, v)| k == "Title" && !v.trim().is_empty())
        .map(|(_, v)| one_line(v.trim()));
    let first_page = pages.iter().find(|p| !p.is_empty());
    let from_page = first_page.and_then(|p| title::page_title(p));
    match (info, from_page) {
        (_, Some((cover, true))) => Some(cover),
        (Some(info), _) if !title::is_junk_title(&info) => Some(info),
        (_, Some((line, false))) => Some(line),
        (info, None) => info.filter(|t| !title::is_junk_title(t)),
    }
}

/// An outline (bookmarks) with fewer entries than this does not describe a document's
/// structure (a single bookmark on an earnings release).
pub const MIN_OUTLINE_ENTRIES: usize = 3;
/// An outline leaving more than this share of the text outside every section (bookmarks over
/// an exhibit only) does not cover its document.
pub const MAX_OUTLINE_ROOT_SHARE: f32 = 0.3;

/// True when an outline of `entries` entries, cut into `sections`, covers its document: at
/// least [`MIN_OUTLINE_ENTRIES`] entries and at most [`MAX_OUTLINE_ROOT_SHARE`] of the text
/// before the first of them.
fn outline_covers(sections: &(RawSection, Vec<RawSection>), entries: usize) -> bool {
    entries >= MIN_OUTLINE_ENTRIES && root_share(sections) <= MAX_OUTLINE_ROOT_SHARE
}

/// Share of the text (bytes) in the preamble, outside every section; 0 for no text.
fn root_share((preamble, sections): &(RawSection, Vec<RawSection>)) -> f32 {
    let total = preamble.content.len() + sections.iter().map(|s| s.content.len()).sum::<usize>();
    if total == 0 {
        return 0.0;
    }
    preamble.content.len() as f32 / total as f32
}

/// Sections of a PDF without an outline: at its printed headings ([`headings`]), else one
/// per page with a warning saying so.
fn printed_sections(
    pages: &[Vec<TextLine>],
    rendered: &sections::Rendered,
    warnings: &mut Vec<String>,
) -> (RawSection, Vec<RawSection>) {
    let (flat, page_of) = flatten(pages);
    match headings::detect(&flat, &page_of) {
        Some(found) => sections::heading_sections(rendered, &found.headings),
        None => {
            warnings
                .push("no outline and no printed headings found: one section per page".to_string());
            (RawSection::default(), sections::page_sections(rendered))
        }
    }
}

/// Every page's lines in reading order, and the page index (0-based) of each.
fn flatten(pages: &[Vec<TextLine>]) -> (Vec<&TextLine>, Vec<usize>) {
    let flat = pages.iter().flatten().collect();
    let page_of = pages
        .iter()
        .enumerate()
        .flat_map(|(p, lines)| std::iter::repeat_n(p, lines.len()))
        .collect();
    (flat, page_of)
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
