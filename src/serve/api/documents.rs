//! One document: `GET /docs/{doc_id}` (its card and whole outline), `GET
//! /docs/{doc_id}/section` (a section's verbatim text, paged, with its neighbours and the
//! sections it refers to) and `GET /docs/{doc_id}/grep` (regex matches, through the shell's own
//! `grep`).

use axum::extract::{Path, State};
use axum::Json;
use serde::{Deserialize, Serialize};

use super::ApiQuery;
use crate::agent::search::DocEntry;
use crate::agent::section::{self, SectionView};
use crate::nav::lexer::quote_word;
use crate::serve::error::ApiError;
use crate::serve::render::{section_html, source_html, PageView};
use crate::serve::state::AppState;
use crate::tree::outline::OutlineNode;
use crate::tree::NodeId;
use crate::workspace::Library;

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
    /// Chars to return (default
    /// [`SECTION_PAGE_CHARS`](crate::agent::section::SECTION_PAGE_CHARS)).
    pub budget: Option<usize>,
    /// Also return the page as the Reader's formatted, sanitized HTML (`html`).
    #[serde(default)]
    pub html: bool,
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
/// within `budget` chars (default [`SECTION_PAGE_CHARS`](crate::agent::section::SECTION_PAGE_CHARS)),
/// with the page as HTML when `html` says how: what `/section` answers and the Reader shows
/// ([`crate::agent::section::read_section`]). Blocking (reads the document).
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
    let mut view = section::read_section(library, doc_id, structure, offset, budget)?;
    view.html = html.map(|how| {
        let page_view = PageView {
            first_line: view.first_line,
            first_char: view.offset,
            page_marks: view.page_marks(),
            mark: how.mark.clone(),
            line: how.line,
        };
        if how.source {
            source_html(&view.text, &page_view)
        } else {
            section_html(&view.text, view.format(), &page_view)
        }
    });
    Ok(view)
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
