//! One document: `GET /docs/{doc_id}` (its card and whole outline), `GET
//! /docs/{doc_id}/section` (a section's verbatim text, paged, with its neighbours and the
//! sections it refers to) and `GET /docs/{doc_id}/grep` (regex matches, through the shell's own
//! `grep`).

use axum::extract::{Path, State};
use axum::Json;
use serde::{Deserialize, Serialize};

use super::ApiQuery;
use crate::agent::evidence::{inclusive, location_label};
use crate::agent::search::DocEntry;
use crate::nav::commands::cat::{see_also_targets, SeeAlso};
use crate::nav::lexer::quote_word;
use crate::nav::render::page;
use crate::serve::error::ApiError;
use crate::serve::render::{section_html, source_html, Placement};
use crate::serve::state::AppState;
use crate::tree::outline::OutlineNode;
use crate::tree::{NodeId, Tree};
use crate::workspace::Library;

/// Chars of a section page without `budget`.
pub const SECTION_PAGE_CHARS: usize = 50_000;

/// Most chars of one section page.
pub const MAX_SECTION_PAGE_CHARS: usize = 500_000;

/// Matching lines one `grep` returns at most.
pub const GREP_MAX: usize = 200;

/// `GET /docs/{doc_id}`'s answer.
#[derive(Debug, Serialize)]
pub struct DocumentView {
    /// The card.
    pub card: DocEntry,
    /// The source path as indexed.
    pub source: String,
    /// The whole outline.
    pub outline: OutlineNode,
}

/// `GET /api/v1/docs/{doc_id}`. Errors: 404 for an unknown id; 503 without a workspace.
pub async fn document(
    State(state): State<AppState>,
    Path(doc_id): Path<String>,
) -> Result<Json<DocumentView>, ApiError> {
    let opened = state.opened().await?;
    let view = state
        .blocking(move || {
            let ws = opened.workspace.as_ref();
            let card = ws
                .card(&doc_id)
                .ok_or_else(|| ApiError::not_found(unknown_document(&doc_id)))?;
            let doc = ws.document(&doc_id)?;
            Ok(DocumentView {
                card: DocEntry::of(&card),
                source: card.source.clone(),
                outline: OutlineNode::of(&doc.tree, NodeId::ROOT, u32::MAX),
            })
        })
        .await?;
    Ok(Json(view))
}

fn unknown_document(doc_id: &str) -> String {
    format!(
        "document not found: {} (hint: /api/v1/docs lists the ids)",
        doc_id.chars().take(200).collect::<String>()
    )
}

/// `/section`'s query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionQuery {
    /// Dotted structure number (`2.1`); empty or absent for the document's root.
    #[serde(default)]
    pub structure: String,
    /// First char of the section's text to return.
    #[serde(default)]
    pub offset: usize,
    /// Chars to return (default [`SECTION_PAGE_CHARS`]).
    pub budget: Option<usize>,
    /// Also return the page as the Reader's formatted, sanitized HTML (`html`).
    #[serde(default)]
    pub html: bool,
}

/// A node named by its structure number and title.
#[derive(Debug, Clone, Serialize)]
pub struct NodeRef {
    /// Dotted structure number (`""` for the root).
    pub structure: String,
    /// Title.
    pub title: String,
}

/// `GET /docs/{doc_id}/section`'s answer.
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
    /// With `html=true`: `text` as formatted HTML, sanitized, one `<div class="block"
    /// data-line data-last data-from data-to>` per top-level block ([`section_html`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
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
/// Errors: 400 for a structure number that is not dotted digits; 404 when the document has no
/// such section.
pub fn find_node(tree: &Tree, doc_id: &str, structure: &str) -> Result<NodeId, ApiError> {
    if structure.is_empty() {
        return Ok(NodeId::ROOT);
    }
    if !structure
        .split('.')
        .all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(ApiError::bad_request(format!(
            "bad structure number '{}': dotted numbers like 2.1",
            structure.chars().take(40).collect::<String>()
        )));
    }
    tree.by_structure(structure).ok_or_else(|| {
        ApiError::not_found(format!(
            "{doc_id} has no section {structure} (hint: /api/v1/docs/{doc_id} has the outline)"
        ))
    })
}

/// `GET /api/v1/docs/{doc_id}/section?structure=2.1&offset=0&budget=50000`.
///
/// Errors: 400 for a bad structure number, `budget` out of range or `offset` past the end; 404
/// for an unknown document or section; 503 without a workspace.
pub async fn section(
    State(state): State<AppState>,
    Path(doc_id): Path<String>,
    ApiQuery(q): ApiQuery<SectionQuery>,
) -> Result<Json<SectionView>, ApiError> {
    let opened = state.opened().await?;
    let view = state
        .blocking(move || {
            let html = q.html.then(SectionHtml::default);
            read_section(
                opened.workspace.as_ref(),
                &doc_id,
                &q.structure,
                q.offset,
                q.budget,
                html.as_ref(),
            )
        })
        .await?;
    Ok(Json(view))
}

/// How [`read_section`] renders [`SectionView::html`].
#[derive(Debug, Clone, Default)]
pub struct SectionHtml {
    /// The numbered source lines ([`source_html`]) instead of the formatted blocks.
    pub source: bool,
    /// Chars `A..B` of the section's whole text to mark (an evidence span).
    pub mark: Option<std::ops::Range<usize>>,
    /// 1-based line of the section's whole text to mark as the target (a grep hit).
    pub line: Option<usize>,
}

/// Section `structure` (`""`: the root) of `doc_id` in `library`, its text from char `offset`
/// within `budget` chars (default [`SECTION_PAGE_CHARS`]), with the page as HTML when `html`
/// says how: what `/section` answers and the Reader shows. Blocking (reads the document).
///
/// Errors: 400 for a bad structure number, `budget` out of range or `offset` past the end; 404
/// for an unknown document or section.
pub fn read_section(
    library: &dyn Library,
    doc_id: &str,
    structure: &str,
    offset: usize,
    budget: Option<usize>,
    html: Option<&SectionHtml>,
) -> Result<SectionView, ApiError> {
    let budget = budget.unwrap_or(SECTION_PAGE_CHARS);
    if budget == 0 || budget > MAX_SECTION_PAGE_CHARS {
        return Err(ApiError::bad_request(format!(
            "budget must be 1 to {MAX_SECTION_PAGE_CHARS} chars, not {budget}"
        )));
    }
    if library.card(doc_id).is_none() {
        return Err(ApiError::not_found(unknown_document(doc_id)));
    }
    let doc = library.document(doc_id)?;
    let tree = &doc.tree;
    let id = find_node(tree, doc_id, structure)?;
    let node = tree.node(id);
    let text = tree.text_of(id);
    let p = page(&text, offset, budget);
    if offset > 0 && offset >= p.total {
        return Err(ApiError::bad_request(format!(
            "offset {offset} is past the end of the section ({} chars)",
            p.total
        )));
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
    let html = html.map(|how| {
        let placement = Placement {
            first_line,
            first_char: p.chars.start,
            page_marks: page_marks(tree, id),
            mark: how.mark.clone(),
            line: how.line,
        };
        if how.source {
            source_html(p.body, &placement)
        } else {
            section_html(p.body, tree.format, &placement)
        }
    });
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
            crate::tree::DocFormat::Docx => {
                crate::nav::render::location_label(tree, id).unwrap_or_default()
            }
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
        html,
    })
}

/// `(line, "pages A–B")` for each heading in the text of `id` whose node has pages (PDFs).
fn page_marks(tree: &Tree, id: NodeId) -> Vec<(usize, String)> {
    tree.heading_lines(id)
        .into_iter()
        .filter_map(|(line, n)| {
            let pages = inclusive(&tree.node(n).pages)?;
            Some((line, location_label(None, Some(pages))))
        })
        .collect()
}

/// `/grep`'s query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrepQuery {
    /// A regular expression (Rust `regex` syntax).
    pub pattern: String,
    /// Match case-insensitively.
    #[serde(default)]
    pub ignore_case: bool,
}

/// One matching line.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct GrepMatch {
    /// The section whose own text holds the line.
    pub structure: String,
    /// Line of the section's text (as `cat` prints it; 1 is its heading).
    pub line: usize,
    /// The line, cut to 160 chars.
    pub text: String,
}

/// `GET /docs/{doc_id}/grep`'s answer.
#[derive(Debug, Serialize)]
pub struct GrepView {
    /// Matching lines in reading order, at most [`GREP_MAX`].
    pub matches: Vec<GrepMatch>,
    /// What `grep` said besides the matches (no match, more not shown, a bad regex), if anything.
    pub note: Option<String>,
}

/// `GET /api/v1/docs/{doc_id}/grep?pattern=…&ignore_case=true`: the shell's `grep` over the
/// document, its `path:N: text` lines as data.
///
/// Errors: 400 for an empty pattern; 404 for an unknown document; 503 without a workspace. A
/// regex that does not compile is a `note`, as in the shell.
pub async fn grep(
    State(state): State<AppState>,
    Path(doc_id): Path<String>,
    ApiQuery(q): ApiQuery<GrepQuery>,
) -> Result<Json<GrepView>, ApiError> {
    if q.pattern.is_empty() {
        return Err(ApiError::bad_request("the pattern is empty"));
    }
    let opened = state.opened().await?;
    let view = state
        .blocking(move || {
            if opened.workspace.card(&doc_id).is_none() {
                return Err(ApiError::not_found(unknown_document(&doc_id)));
            }
            let flags = if q.ignore_case { "-i " } else { "" };
            let command = format!(
                "grep {flags}-m {GREP_MAX} {} {}",
                quote_word(&q.pattern),
                quote_word(&format!("/{doc_id}"))
            );
            let mut session = opened.session.clone().with_budget(GREP_MAX * 200);
            let out = session.execute(&command).map_err(ApiError::from_nav)?;
            Ok(parse_grep(&doc_id, &out.text))
        })
        .await?;
    Ok(Json(view))
}

/// `grep`'s output as matches: `/doc/1/8:3: text` is section `1.8`, line 3; other lines are
/// the note.
fn parse_grep(doc_id: &str, output: &str) -> GrepView {
    let prefix = format!("/{doc_id}");
    let mut matches = Vec::new();
    let mut note: Vec<&str> = Vec::new();
    for line in output.lines() {
        let parsed = line.strip_prefix(&prefix).and_then(|rest| {
            let (path, rest) = rest.split_once(':')?;
            let (number, text) = rest
                .split_once(": ")
                .or_else(|| rest.strip_suffix(':').map(|n| (n, "")))?;
            let line: usize = number.parse().ok()?;
            let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            if !parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())) {
                return None;
            }
            Some(GrepMatch {
                structure: parts.join("."),
                line,
                text: text.to_string(),
            })
        });
        match parsed {
            Some(m) => matches.push(m),
            None => note.push(line),
        }
    }
    GrepView {
        matches,
        note: (!note.is_empty()).then(|| note.join("\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grep_lines_become_sections_and_line_numbers() {
        let view = parse_grep(
            "ripgrep-faq",
            "/ripgrep-faq/1:10: * [How do I search compressed files?](#compressed)\n\
             /ripgrep-faq/1/8:3: ripgrep's `-z` flag: yes\n\
             … 3 more matching line(s) not shown (narrow the regex or the path, or -m)",
        );
        assert_eq!(
            view.matches,
            vec![
                GrepMatch {
                    structure: "1".into(),
                    line: 10,
                    text: "* [How do I search compressed files?](#compressed)".into()
                },
                GrepMatch {
                    structure: "1.8".into(),
                    line: 3,
                    text: "ripgrep's `-z` flag: yes".into()
                },
            ]
        );
        assert_eq!(
            view.note.as_deref(),
            Some("… 3 more matching line(s) not shown (narrow the regex or the path, or -m)")
        );
    }
}
