//! The formats docnav reads: what a parser is chosen by and what a tree records it was parsed
//! from.

use serde::{Deserialize, Serialize};

/// Source format of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocFormat {
    /// CommonMark + GFM Markdown (`.md`, `.markdown`).
    Markdown,
    /// PDF, text extracted with lopdf.
    Pdf,
    /// Plain UTF-8 text.
    Text,
    /// An HTML page (`.html`, `.htm`, `.xhtml`), its main content only.
    Html,
    /// A Word document (`.docx`); its locations are paragraph numbers, kept in `lines`.
    Docx,
    /// An e-book (`.epub`): chapters in reading order, without locations.
    Epub,
}

impl DocFormat {
    /// Every format docnav reads, in the order `--formats` lists them.
    pub const ALL: &'static [DocFormat] = &[
        DocFormat::Markdown,
        DocFormat::Pdf,
        DocFormat::Html,
        DocFormat::Docx,
        DocFormat::Epub,
        DocFormat::Text,
    ];

    /// The short name `docnav index --formats` takes (`md`, `pdf`, `html`, `txt`).
    pub fn flag_name(self) -> &'static str {
        match self {
            DocFormat::Markdown => "md",
            DocFormat::Pdf => "pdf",
            DocFormat::Text => "txt",
            DocFormat::Html => "html",
            DocFormat::Docx => "docx",
            DocFormat::Epub => "epub",
        }
    }

    /// The format a `--formats` name stands for (`md`/`markdown`, `pdf`, `html`, `txt`/`text`),
    /// case-insensitive; `None` for other names.
    pub fn from_flag_name(name: &str) -> Option<DocFormat> {
        match name.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(DocFormat::Markdown),
            "pdf" => Some(DocFormat::Pdf),
            "txt" | "text" => Some(DocFormat::Text),
            "html" | "htm" | "xhtml" => Some(DocFormat::Html),
            "docx" => Some(DocFormat::Docx),
            "epub" => Some(DocFormat::Epub),
            _ => None,
        }
    }

    /// The file extensions of the format, lowercase, without the dot.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            DocFormat::Markdown => &["md", "markdown"],
            DocFormat::Pdf => &["pdf"],
            DocFormat::Text => &["txt", "text"],
            DocFormat::Html => &["html", "htm", "xhtml"],
            DocFormat::Docx => &["docx"],
            DocFormat::Epub => &["epub"],
        }
    }

    /// Lowercase name as shown by `docnav docs` (`markdown`, `pdf`, `text`, `html`).
    pub fn as_str(self) -> &'static str {
        match self {
            DocFormat::Markdown => "markdown",
            DocFormat::Pdf => "pdf",
            DocFormat::Text => "text",
            DocFormat::Html => "html",
            DocFormat::Docx => "docx",
            DocFormat::Epub => "epub",
        }
    }

    /// What a node's `lines` count: source lines, or paragraphs in a Word document (which has
    /// neither lines nor pages). The singular noun, as location labels use it (`paragraph 3`,
    /// `paragraphs 3–7`).
    pub fn location_unit(self) -> &'static str {
        match self {
            DocFormat::Docx => "paragraph",
            _ => "line",
        }
    }

    /// True when the author marked the headings up (Markdown, HTML), so the structure is the
    /// author's own; false when docnav infers it from layout or numbering (PDF, text).
    pub fn is_markup(self) -> bool {
        matches!(
            self,
            DocFormat::Markdown | DocFormat::Html | DocFormat::Docx | DocFormat::Epub
        )
    }
}
