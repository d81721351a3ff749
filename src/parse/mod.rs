//! Parsing (DESIGN.md §2): a file becomes a [`ParsedDoc`], a flat list of headed sections with
//! levels and source locations. The build stage ([`crate::tree::build_tree`]) turns it into a tree.

pub mod docx;
pub mod epub;
mod format;
pub mod html;
pub mod markdown;
pub mod pdf;
pub mod text;
pub(crate) mod xml;
pub mod zipped;

use std::ops::Range;
use std::path::{Path, PathBuf};

pub use format::DocFormat;

/// One heading (or PDF outline entry) and the text that belongs to it alone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawSection {
    /// Heading level, 1 = top. Levels may skip (`###` right under `#`).
    pub level: u32,
    /// Heading text, inline markup removed.
    pub title: String,
    /// Verbatim text from after the heading up to the next heading (any level).
    pub content: String,
    /// 1-based source line of the first line of `content` (Markdown/text), used to place `Part N`
    /// splits; `None` for PDF.
    pub content_first_line: Option<u32>,
    /// Where the text of `content` comes from when it is not verbatim (HTML: source lines; DOCX:
    /// paragraph numbers): `(byte offset into content, line or paragraph the text from there
    /// on starts at)`, offsets and lines increasing, used to place `Part N` splits. Empty for
    /// Markdown and text (`content_first_line` places every line) and for PDF and EPUB.
    pub source_marks: Vec<(usize, u32)>,
    /// Where each page after the first starts in `content` (PDF): `(byte offset into content,
    /// 1-based page)`, offsets and pages increasing, so a `Part N` split of a long section
    /// covers only its own pages. Empty for other formats and one-page sections.
    pub page_marks: Vec<(usize, u32)>,
    /// 1-based source lines covered, heading included, end exclusive (Markdown/text).
    pub lines: Option<Range<u32>>,
    /// 1-based pages covered, end exclusive (PDF).
    pub pages: Option<Range<u32>>,
    /// The heading's explicit anchor, a link target beside its GitHub slug (Markdown): the `id`
    /// (else `name`) of an HTML heading (`<h3 name="config">` → `config`) or the `#id` of an
    /// attribute list (`## Stages {: #stages }` → `stages`). `None` otherwise.
    pub anchor: Option<String>,
    /// More link targets inside the section (HTML, DOCX, EPUB): the ids of its elements, in
    /// reading order, and further ids of its heading beside `anchor`. Markdown's in-section
    /// anchors are found in its text instead.
    pub ids: Vec<String>,
    /// The section's links, in reading order (HTML, DOCX, EPUB; Markdown's are found in its
    /// text).
    pub links: Vec<RawLink>,
}

/// A link found by a parser: to a fragment of the same document (`file` `None`), or to another
/// file, possibly to a fragment in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawLink {
    /// The target's relative path as written, percent-decoded, without the fragment
    /// (`../library/sys.html`); `None` for a link inside the document.
    pub file: Option<String>,
    /// The fragment after `#`, percent-decoded, if any.
    pub anchor: Option<String>,
}

/// A parsed document before tree building.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDoc {
    /// Source format.
    pub format: DocFormat,
    /// Title from the document itself (front matter `title`, PDF `/Title`), if any.
    pub title: Option<String>,
    /// Front-matter or PDF info key/values.
    pub metadata: Vec<(String, String)>,
    /// Text before the first heading; becomes the root's content. Same location fields as a
    /// section (`level` 0, `title` empty).
    pub preamble: RawSection,
    /// Headed sections in reading order.
    pub sections: Vec<RawSection>,
    /// 1-based pages without extractable text (PDF).
    pub pages_without_text: Vec<u32>,
    /// Pages (PDF) or lines (text) in the source.
    pub source_units: u32,
    /// Non-fatal problems worth telling the user, one line each (e.g. lossy UTF-8 decoding).
    pub warnings: Vec<String>,
}

/// Why a file could not be parsed. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not text (NUL bytes or mostly control characters) though named like text.
    #[error("`{path}` is binary, not {expected} text")]
    Binary {
        /// The file.
        path: PathBuf,
        /// The expected format, e.g. `Markdown`.
        expected: &'static str,
    },
    /// The file is empty (0 bytes or only whitespace).
    #[error("`{path}` is empty")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The PDF cannot be read (corrupt, truncated, encrypted).
    #[error("cannot parse PDF `{path}`: {reason}")]
    Pdf {
        /// The file.
        path: PathBuf,
        /// What went wrong, one line.
        reason: String,
    },
    /// A zip-based document (DOCX, EPUB) that cannot be read: not a zip, a part missing, a part
    /// that inflates past the bound (a zip bomb) or cannot be inflated.
    #[error("cannot read {kind} `{path}`: {reason}")]
    Archive {
        /// The file.
        path: PathBuf,
        /// What it should be, e.g. `Word document`.
        kind: &'static str,
        /// What went wrong, one line.
        reason: String,
    },
    /// An HTML page (or an EPUB chapter) whose elements nest deeper than any browser builds
    /// ([`html::MAX_ELEMENT_DEPTH`]): refused rather than parsed in time that grows with the
    /// square of its depth.
    #[error(
        "`{path}`{part} nests elements more than {limit} deep, deeper than browsers build \
         pages; not indexed",
        limit = html::MAX_ELEMENT_DEPTH
    )]
    TooDeep {
        /// The file.
        path: PathBuf,
        /// The part of it, e.g. ` (chapter `ch1.xhtml`)`; empty for a page.
        part: String,
    },
    /// The extension is not one docnav reads and the content is not UTF-8 text.
    #[error("`{path}` is not a supported document (.md, .markdown, .pdf, .txt, .html, .htm, .xhtml, .docx, .epub or UTF-8 text)")]
    Unsupported {
        /// The file.
        path: PathBuf,
    },
}

/// Format chosen by file extension (case-insensitive): `.md`/`.markdown` → Markdown, `.pdf` →
/// PDF, `.txt` → text, `.html`/`.htm`/`.xhtml` → HTML; `None` for anything else.
pub fn format_for_path(path: &Path) -> Option<DocFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    DocFormat::ALL
        .iter()
        .copied()
        .find(|f| f.extensions().contains(&ext.as_str()))
}

/// `.md, .markdown, .pdf or .txt`: the extensions of `formats`, for messages.
pub fn extension_list(formats: &[DocFormat]) -> String {
    let all: Vec<String> = formats
        .iter()
        .flat_map(|f| f.extensions())
        .filter(|e| **e != "text")
        .map(|e| format!(".{e}"))
        .collect();
    match all.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Decode bytes as UTF-8 text for Markdown/text parsing.
///
/// Policy: NUL bytes in the first 8 KiB mean a binary file → error. Invalid
/// UTF-8 is decoded lossily (U+FFFD) and a warning naming the file and the count of bad sequences
/// is returned, so one Latin-1 byte does not lose a whole document. A BOM is stripped.
pub fn decode_text(
    path: &Path,
    bytes: &[u8],
    expected: &'static str,
) -> Result<(String, Option<String>), ParseError> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(ParseError::Binary {
            path: path.to_path_buf(),
            expected,
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok((s.to_string(), None)),
        Err(_) => {
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let bad = lossy.matches('\u{FFFD}').count();
            // Mostly-garbage input is binary, not text with a few bad bytes.
            if bad * 10 > lossy.chars().count().max(1) {
                return Err(ParseError::Binary {
                    path: path.to_path_buf(),
                    expected,
                });
            }
            let warning = format!(
                "`{}` is not valid UTF-8: {bad} invalid byte sequence(s) replaced with U+FFFD",
                path.display()
            );
            Ok((lossy, Some(warning)))
        }
    }
}

/// How files are parsed: the work bounds of PDFs and zip-based documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// PDF reading options: the per-page work bound.
    pub pdf: pdf::PdfOptions,
    /// DOCX and EPUB: the bound on what one zip entry may inflate to.
    pub zip: zipped::ZipOptions,
}

/// Read and parse one file. `explicit` is true when the user named the file itself (not found by
/// folder recursion): then a file with an unknown extension is read as plain text when it is
/// valid UTF-8.
///
/// Errors: [`ParseError`] naming the file — unreadable, binary, empty, corrupt PDF, unsupported.
pub fn parse_file(path: &Path, explicit: bool) -> Result<ParsedDoc, ParseError> {
    let bytes = std::fs::read(path).map_err(|source| ParseError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_bytes(path, &bytes, explicit)
}

/// Parse already-read bytes; `path` is used for the format and in messages. See [`parse_file`].
pub fn parse_bytes(path: &Path, bytes: &[u8], explicit: bool) -> Result<ParsedDoc, ParseError> {
    parse_bytes_with(path, bytes, explicit, &ParseOptions::default())
}

/// [`parse_bytes`] with explicit options. Errors: as [`parse_file`], and for a PDF page past
/// the work bound of `options.pdf`.
pub fn parse_bytes_with(
    path: &Path,
    bytes: &[u8],
    explicit: bool,
    options: &ParseOptions,
) -> Result<ParsedDoc, ParseError> {
    let format = match format_for_path(path) {
        Some(f) => f,
        None if explicit && !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok() => {
            DocFormat::Text
        }
        None => {
            return Err(ParseError::Unsupported {
                path: path.to_path_buf(),
            })
        }
    };
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ParseError::Empty {
            path: path.to_path_buf(),
        });
    }
    match format {
        DocFormat::Pdf => pdf::parse_pdf_with(path, bytes, &options.pdf),
        DocFormat::Docx => docx::parse_docx(path, bytes, &options.zip),
        DocFormat::Epub => epub::parse_epub(path, bytes, &options.zip),
        DocFormat::Markdown => {
            let (text, warning) = decode_text(path, bytes, "Markdown")?;
            let mut doc = markdown::parse_markdown(&text);
            doc.warnings.extend(warning);
            Ok(doc)
        }
        DocFormat::Text => {
            let (text, warning) = decode_text(path, bytes, "plain")?;
            let mut doc = text::parse_text(&text);
            doc.warnings.extend(warning);
            Ok(doc)
        }
        DocFormat::Html => {
            let (text, warning) = decode_text(path, bytes, "HTML")?;
            let name = path.file_name().and_then(|n| n.to_str());
            let mut doc = html::parse_html(&text, name, DocFormat::Html).map_err(|_| {
                ParseError::TooDeep {
                    path: path.to_path_buf(),
                    part: String::new(),
                }
            })?;
            doc.warnings.extend(warning);
            Ok(doc)
        }
    }
}
