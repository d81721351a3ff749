//! Resources: each document as `docnav://DOC_ID`, each section as `docnav://DOC_ID/#2.1` (its
//! structure number, as `tree` shows it). Reading one gives the text `cat` reads (the node with
//! its subtree), at most [`READ_PAGE_CHARS`] per read; a longer text ends with a note naming the
//! URI of the next page, `docnav://DOC_ID/?offset=N#2.1`.
//!
//! `resources/list` lists, document by document in catalog order, the document and its sections
//! down to depth [`LIST_DEPTH`] (the outline a DocCard shows), [`LIST_PAGE`] per page; deeper
//! sections are read through the template `docnav://{doc_id}/#{structure}`. The cursor is
//! `D.K`: document number `D`, item `K` of that document (0 is the document itself).

use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

use crate::nav::path::{page_uri, parse_uri, section_uri, SCHEME};
use crate::nav::render::{one_line, page};
use crate::tree::{DocFormat, NodeId};
use crate::workspace::{Library, WorkspaceError};

/// Most chars of text returned by one `resources/read` (~25k tokens).
pub const READ_PAGE_CHARS: usize = 100_000;

/// Resources per `resources/list` page.
pub const LIST_PAGE: usize = 100;

/// Deepest sections listed (1 = top-level sections).
pub const LIST_DEPTH: u32 = 2;

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// No such document or section (JSON-RPC "resource not found").
    NotFound(String),
    /// A URI or offset that cannot be read (invalid params).
    Invalid(String),
}

fn mime(format: DocFormat) -> &'static str {
    match format {
        DocFormat::Markdown => "text/markdown",
        _ => "text/plain",
    }
}

/// Read a resource: the page of the node's text at the URI's offset.
///
/// Errors: [`ReadError::NotFound`] for an unknown document or section, [`ReadError::Invalid`]
/// for a malformed URI, an offset past the end, or a tree file that cannot be loaded.
pub fn read(library: &dyn Library, uri: &str) -> Result<ResourceContents, ReadError> {
    let r = parse_uri(uri).map_err(ReadError::Invalid)?;
    let doc = match library.document(&r.doc_id) {
        Ok(doc) => doc,
        Err(e @ WorkspaceError::NotFound(_)) => return Err(ReadError::NotFound(e.to_string())),
        Err(e) => return Err(ReadError::Invalid(e.to_string())),
    };
    let node = if r.structure.is_empty() {
        NodeId::ROOT
    } else {
        doc.tree.by_structure(&r.structure).ok_or_else(|| {
            ReadError::NotFound(format!(
                "no section #{} in document `{}` (the tree tool lists its structure numbers)",
                r.structure, r.doc_id
            ))
        })?
    };
    let text = doc.tree.text_of(node);
    let p = page(&text, r.offset, READ_PAGE_CHARS);
    if r.offset > 0 && r.offset >= p.total {
        return Err(ReadError::Invalid(format!(
            "offset {} is past the end of {} ({} chars)",
            r.offset,
            section_uri(&r.doc_id, &r.structure),
            p.total
        )));
    }
    let mut body = p.body.to_string();
    if p.chars.end < p.total {
        if !body.ends_with('\n') {
            body.push('\n');
        }
        body.push_str(&format!(
            "[chars {}–{} of {} shown; read on: {}]",
            p.chars.start,
            p.chars.end,
            p.total,
            page_uri(&r.doc_id, &r.structure, p.chars.end)
        ));
    }
    Ok(ResourceContents::text(body, uri).with_mime_type(mime(doc.card.format)))
}

/// Parse a `resources/list` cursor `D.K`.
fn parse_cursor(cursor: &str) -> Option<(usize, usize)> {
    let (d, k) = cursor.split_once('.')?;
    Some((d.parse().ok()?, k.parse().ok()?))
}

/// One page of resources from `cursor` (`None`: the start) and the cursor of the next page.
///
/// Errors: a cursor this server did not hand out. A document whose tree cannot be loaded is
/// listed without its sections.
pub fn list(
    library: &dyn Library,
    cursor: Option<&str>,
) -> Result<(Vec<Resource>, Option<String>), String> {
    let (mut d, mut k) = match cursor {
        None => (0, 0),
        Some(c) => parse_cursor(c).ok_or_else(|| format!("bad resources/list cursor '{c}'"))?,
    };
    let mut out = Vec::new();
    // Cards a page at a time from the cursor's document (the catalog is not walked from its
    // start for each one).
    loop {
        let page = library.cards_page(d, CARDS_READ);
        if page.is_empty() {
            break;
        }
        for card in page {
            let mime = mime(card.format);
            let mut items = vec![
                Resource::new(section_uri(&card.doc_id, ""), card.doc_id.clone())
                    .with_title(card.title.clone())
                    .with_description(card.summary.clone())
                    .with_mime_type(mime),
            ];
            if let Ok(doc) = library.document(&card.doc_id) {
                let tree = &doc.tree;
                for id in tree.preorder(NodeId::ROOT).into_iter().skip(1) {
                    let node = tree.node(id);
                    if node.depth == 0 || node.depth > LIST_DEPTH {
                        continue;
                    }
                    let mut r = Resource::new(
                        section_uri(&card.doc_id, &node.structure),
                        format!("{}#{}", card.doc_id, node.structure),
                    )
                    .with_title(tree.title_path(id).join(" › "))
                    .with_mime_type(mime);
                    let summary = one_line(&node.summary, 200);
                    if !summary.is_empty() {
                        r = r.with_description(summary);
                    }
                    items.push(r);
                }
            }
            while k < items.len() {
                if out.len() == LIST_PAGE {
                    return Ok((out, Some(format!("{d}.{k}"))));
                }
                out.push(items[k].clone());
                k += 1;
            }
            d += 1;
            k = 0;
        }
    }
    Ok((out, None))
}

/// Cards read from the catalog at once while listing.
const CARDS_READ: usize = 64;

/// The resource templates: any section by structure number.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{SCHEME}{{doc_id}}/#{{structure}}"), "section")
            .with_title("A section of a document")
            .with_description(
                "The text of a section with its subsections; structure numbers as the tree tool \
                 shows them (2.1.3). docnav://{doc_id} alone is the whole document.",
            ),
    ]
}
