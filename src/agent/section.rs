//! One section as a reader reads it ([`read_section`]): a page of the text `cat` reads, where it
//! is in the source (lines, pages), its neighbours in reading order and the sections it refers
//! to — what the HTTP API's `/api/v1/docs/{doc_id}/section` answers and the web Reader shows.
//! The faces only render it (the Reader's HTML is made from [`SectionView::text`] and the marks
//! the view carries).

use std::sync::Arc;

use serde::Serialize;

use super::evidence::{inclusive, location_label};
use crate::nav::commands::cat::{see_also_targets, SeeAlso};
use crate::nav::render::page;
use crate::tree::{DocFormat, NodeId, Tree};
use crate::workspace::{Document, Library, WorkspaceError};

/// Chars of a section page without a budget.
pub const SECTION_PAGE_CHARS: usize = 50_000;

/// Most chars of one section page.
pub const MAX_SECTION_PAGE_CHARS: usize = 500_000;

/// Why a section could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SectionError {
    /// A budget of 0 or over [`MAX_SECTION_PAGE_CHARS`].
    #[error("budget must be 1 to {MAX_SECTION_PAGE_CHARS} chars, not {0}")]
    BadBudget(usize),
    /// No document has this id (its first 200 chars).
    #[error("document not found: {0}")]
    UnknownDocument(String),
    /// A structure number that is not dotted digits (its first 40 chars).
    #[error("bad structure number '{0}': dotted numbers like 2.1")]
    BadStructure(String),
    /// The document has no section of this number.
    #[error("{doc_id} has no section {structure}")]
    NoSection {
        /// The document.
        doc_id: String,
        /// The structure number asked for.
        structure: String,
    },
    /// An offset at or past the end of a non-empty text.
    #[error("offset {offset} is past the end of the section ({total} chars)")]
    OffsetPastEnd {
        /// The offset asked for, in chars.
        offset: usize,
        /// Chars of the section's text.
        total: usize,
    },
    /// The document could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

/// A node named by its structure number and title.
#[derive(Debug, Clone, Serialize)]
pub struct NodeRef {
    /// Dotted structure number (`""` for the root).
    pub structure: String,
    /// Title.
    pub title: String,
}

/// A page of one section, with where it is and what is around it.
#[derive(Debug, Serialize)]
pub struct SectionView {
    /// The document.
    pub doc_id: String,
    /// The document's title.
    pub doc_title: String,
    /// Structure number (`""` for the root).
    pub structure: String,
    /// The section's title.
    pub title: String,
    /// Titles from the first level down to the section (empty for the root).
    pub titles: Vec<String>,
    /// 1-based source lines `[first, last]` of the section with its subsections.
    pub lines: Option<[u32; 2]>,
    /// 1-based PDF pages `[first, last]` of the section with its subsections.
    pub pages: Option<[u32; 2]>,
    /// `lines 40–88`, `pages 3–5`, or empty.
    pub location: String,
    /// The text `cat` reads (the section with its subsections, headings as `#`), from char
    /// `offset`, cut at a line or paragraph boundary within the budget.
    pub text: String,
    /// The first char of `text` within the whole text.
    pub offset: usize,
    /// Where the next page starts; `null` on the last page.
    pub next_offset: Option<usize>,
    /// Chars of the whole text.
    pub text_chars: usize,
    /// Line (1-based, of the whole text) `text` starts on: `grep`'s `path:N` numbering.
    pub first_line: usize,
    /// The parent (`null` for the root).
    pub parent: Option<NodeRef>,
    /// The section before this one in reading order (`null` for the root).
    pub previous: Option<NodeRef>,
    /// The section after this one in reading order (`null` for the last).
    pub next: Option<NodeRef>,
    /// The subsections.
    pub children: Vec<NodeRef>,
    /// The sections the text refers to outside itself, in this document or another.
    pub see_also: Vec<SeeAlso>,
    /// The page as formatted HTML, when a face renders it (the HTTP API's `html=true`); never
    /// set by [`read_section`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// The document read, for a rendering ([`SectionView::format`],
    /// [`SectionView::page_marks`]).
    #[serde(skip)]
    doc: Arc<Document>,
    #[serde(skip)]
    node: NodeId,
}

impl SectionView {
    /// The document's format: how its text is rendered.
    pub fn format(&self) -> DocFormat {
        self.doc.tree.format
    }

    /// `(line, "pages A–B")` for each heading in the section's whole text whose node has pages
    /// (PDFs): a rendering shows the label before that line.
    pub fn page_marks(&self) -> Vec<(usize, String)> {
        let tree = &self.doc.tree;
        tree.heading_lines(self.node)
            .into_iter()
            .filter_map(|(line, n)| {
                let pages = inclusive(&tree.node(n).pages)?;
                Some((line, location_label(None, Some(pages))))
            })
            .collect()
    }
}

fn node_ref(tree: &Tree, id: NodeId) -> NodeRef {
    let n = tree.node(id);
    NodeRef {
        structure: n.structure.clone(),
        title: n.title.clone(),
    }
}

/// The section of `tree` numbered `structure` (`""`: the root).
///
/// Errors: [`SectionError::BadStructure`] for a structure number that is not dotted digits;
/// [`SectionError::NoSection`] when the document has no such section.
pub fn find_node(tree: &Tree, doc_id: &str, structure: &str) -> Result<NodeId, SectionError> {
    if structure.is_empty() {
        return Ok(NodeId::ROOT);
    }
    if !structure
        .split('.')
        .all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(SectionError::BadStructure(
            structure.chars().take(40).collect(),
        ));
    }
    tree.by_structure(structure)
        .ok_or_else(|| SectionError::NoSection {
            doc_id: doc_id.to_string(),
            structure: structure.to_string(),
        })
}

/// Section `structure` (`""`: the root) of `doc_id` in `library`, its text from char `offset`
/// within `budget` chars (default [`SECTION_PAGE_CHARS`]). Blocking (reads the document).
///
/// Errors: [`SectionError::BadBudget`], [`SectionError::UnknownDocument`],
/// [`SectionError::BadStructure`], [`SectionError::NoSection`],
/// [`SectionError::OffsetPastEnd`]; [`SectionError::Workspace`] when the document cannot be
/// read.
pub fn read_section(
    library: &dyn Library,
    doc_id: &str,
    structure: &str,
    offset: usize,
    budget: Option<usize>,
) -> Result<SectionView, SectionError> {
    let budget = budget.unwrap_or(SECTION_PAGE_CHARS);
    if budget == 0 || budget > MAX_SECTION_PAGE_CHARS {
        return Err(SectionError::BadBudget(budget));
    }
    if library.card(doc_id).is_none() {
        return Err(SectionError::UnknownDocument(
            doc_id.chars().take(200).collect(),
        ));
    }
    let doc = library.document(doc_id)?;
    let tree = &doc.tree;
    let id = find_node(tree, doc_id, structure)?;
    let node = tree.node(id);
    let text = tree.text_of(id);
    let p = page(&text, offset, budget);
    if offset > 0 && offset >= p.total {
        return Err(SectionError::OffsetPastEnd {
            offset,
            total: p.total,
        });
    }
    let first_line = 1 + text
        .chars()
        .take(p.chars.start)
        .filter(|&c| c == '\n')
        .count();
    let order = tree.preorder(NodeId::ROOT);
    let at = order.iter().position(|&n| n == id).unwrap_or(0);
    let lines = inclusive(&tree.subtree_span(id, |n| n.lines.clone()));
    let pages = inclusive(&tree.subtree_span(id, |n| n.pages.clone()));
    Ok(SectionView {
        doc_id: doc_id.to_string(),
        doc_title: tree.title().to_string(),
        structure: node.structure.clone(),
        title: node.title.clone(),
        titles: tree.title_path(id),
        lines,
        pages,
        // A Word document's `lines` are paragraphs: the tree's own label says so.
        location: match tree.format {
            DocFormat::Docx => crate::nav::render::location_label(tree, id).unwrap_or_default(),
            _ => location_label(lines, pages),
        },
        text: p.body.to_string(),
        offset: p.chars.start,
        next_offset: (p.chars.end < p.total).then_some(p.chars.end),
        text_chars: p.total,
        first_line,
        parent: node.parent.map(|p| node_ref(tree, p)),
        previous: at.checked_sub(1).map(|i| node_ref(tree, order[i])),
        next: order.get(at + 1).map(|&n| node_ref(tree, n)),
        children: node.children.iter().map(|&c| node_ref(tree, c)).collect(),
        see_also: see_also_targets(library, doc_id, tree, id),
        html: None,
        node: id,
        doc: doc.clone(),
    })
}
