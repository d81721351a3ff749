//! The Reader (`/doc/DOC_ID/`, a section at `/doc/DOC_ID/?s=2.1`): the outline as a collapsible
//! tree with `tree`'s numbers beside the selected section, rendered here on the server so it
//! reads without a script. `?mark=A-B` marks chars `A..B` of the section's text (an evidence
//! span, linked from Ask); `?line=N` marks line N of it (a `grep` match) and `#LN` lands on it;
//! `?offset=K` shows the page of the text from char K; `?view=source` shows the numbered source
//! lines instead of the formatted text ([`crate::serve::render`]). Every link in the page is
//! such a URL. `?part=section` answers the section pane alone, which the page's script uses to
//! move between sections without reloading: its `#2.1` and `#2.1@N` fragments (the links the
//! Library and Ask make) name a section and a line the same way.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;

use super::{api_error_page, human_bytes, render_page, shown};
use crate::agent::section::SectionView;
use crate::serve::api::documents::{read_section, SectionHtml};
use crate::serve::error::ApiError;
use crate::serve::links::segment;
use crate::serve::state::AppState;
use crate::tree::outline::location;
use crate::tree::{NodeId, Tree};
use crate::workspace::Library;

/// One entry of the outline, in reading order. The template opens a nested list after an entry
/// with children and closes `closes` lists after it, so the flat list draws the tree.
pub struct OutlineRow {
    /// Structure number (the fragment).
    pub structure: String,
    /// Title, shown.
    pub title: String,
    /// `lines 40–88`, `pages 3–5`.
    pub location: String,
    /// Depth (1 = top level): the tree item's `aria-level`.
    pub depth: u32,
    /// Whether a nested list follows.
    pub has_children: bool,
    /// Nested lists to close after this entry.
    pub closes: usize,
}

/// The outline rows of `tree` below its root.
pub fn outline_rows(tree: &Tree) -> Vec<OutlineRow> {
    let order: Vec<NodeId> = tree
        .preorder(NodeId::ROOT)
        .into_iter()
        .filter(|&n| n != NodeId::ROOT)
        .collect();
    let mut rows: Vec<OutlineRow> = Vec::with_capacity(order.len());
    for (i, &id) in order.iter().enumerate() {
        let node = tree.node(id);
        let next_depth = order.get(i + 1).map_or(1, |&n| tree.node(n).depth);
        let has_children = !node.children.is_empty();
        rows.push(OutlineRow {
            structure: node.structure.clone(),
            title: shown(&node.title),
            location: location(tree, id),
            depth: node.depth,
            has_children,
            closes: if has_children {
                0
            } else {
                node.depth.saturating_sub(next_depth) as usize
            },
        });
    }
    rows
}

#[derive(Template)]
#[template(path = "reader.html")]
struct ReaderPage {
    active: &'static str,
    doc_id: String,
    doc_id_shown: String,
    title: String,
    format: &'static str,
    size: String,
    sections: usize,
    source: String,
    outline: Vec<OutlineRow>,
    /// `?view=source`: the section as numbered source lines, not formatted.
    source_view: bool,
    /// `view=source&` or nothing: the start of every section link's query.
    view_query: &'static str,
    /// The document root's URL in this view.
    root_href: String,
    /// The other view's URL (formatted ⇄ source) of the same section and marks.
    toggle_href: String,
    /// The section pane, rendered ([`SectionPane`]).
    pane_html: String,
    /// The pane's structure number, for the script.
    pane_structure: String,
}

/// A link the section pane shows.
pub struct PaneLink {
    /// The URL (built from a doc id and a structure number, never from a document).
    pub href: String,
    /// The structure number it opens in this document, for the script (`""`: the root);
    /// `None` for another document or another page of the text.
    pub s: Option<String>,
    /// The text, shown.
    pub label: String,
}

/// The section pane: what `/doc/DOC_ID/?s=…` shows beside the outline, and all that
/// `?part=section` answers.
#[derive(Template)]
#[template(path = "section.html")]
pub struct SectionPane {
    /// The section's structure number (`""`: the root).
    pub structure: String,
    /// `§2.1 Title`, or the document's title for the root.
    pub heading: String,
    /// The page title (the section's or the document's title).
    pub page_title: String,
    /// The path from the document down to the section's parent, as links.
    pub crumbs: Vec<PaneLink>,
    /// The section's own title in the path (none for the root).
    pub crumb_here: Option<String>,
    /// `lines 163–176 · 501 chars`.
    pub meta: String,
    /// The section before and after in reading order.
    pub previous: Option<PaneLink>,
    pub next: Option<PaneLink>,
    /// The page's text as sanitized HTML ([`crate::serve::render`]).
    pub body: String,
    /// Numbered source lines rather than formatted blocks.
    pub source_view: bool,
    /// The next page of a long section, with how many chars are left.
    pub more: Option<PaneLink>,
    /// Subsections and the sections the text refers to.
    pub children: Vec<PaneLink>,
    pub see_also: Vec<PaneLink>,
}

/// The Reader's query (unknown fields are ignored: a URL may carry more).
#[derive(Debug, Default, Clone, serde::Deserialize)]
pub struct ReaderQuery {
    /// `source` for the numbered source lines; absent for the formatted view.
    #[serde(default)]
    pub view: Option<String>,
    /// The section's structure number (absent or empty: the document's root).
    #[serde(default)]
    pub s: String,
    /// `A-B`: chars of the section's text to mark (anything else is ignored).
    #[serde(default)]
    pub mark: Option<String>,
    /// A 1-based line of the section's text to mark as the target.
    #[serde(default)]
    pub line: Option<usize>,
    /// The first char of the page of the section's text to show.
    #[serde(default)]
    pub offset: usize,
    /// `section`: answer the section pane alone.
    #[serde(default)]
    pub part: Option<String>,
}

impl ReaderQuery {
    fn source_view(&self) -> bool {
        self.view.as_deref() == Some("source")
    }

    fn mark_range(&self) -> Option<std::ops::Range<usize>> {
        let (a, b) = self.mark.as_deref()?.split_once('-')?;
        let (a, b) = (a.parse().ok()?, b.parse().ok()?);
        (a < b).then_some(a..b)
    }

    /// This query's URL (relative to the Reader's path) with `view` as given.
    fn href(&self, source: bool) -> String {
        let mut parts = Vec::new();
        if source {
            parts.push("view=source".to_string());
        }
        if !self.s.is_empty() {
            parts.push(format!("s={}", segment(&self.s)));
        }
        if let Some(m) = self.mark_range() {
            parts.push(format!("mark={}-{}", m.start, m.end));
        }
        if let Some(line) = self.line {
            parts.push(format!("line={line}"));
        }
        if self.offset > 0 {
            parts.push(format!("offset={}", self.offset));
        }
        let fragment = match self.line {
            Some(line) => format!("#L{line}"),
            None if !self.s.is_empty() => format!("#{}", self.s),
            None => String::new(),
        };
        format!("?{}{fragment}", parts.join("&"))
    }
}

/// The Reader's URL of section `structure` of `doc_id` (`None`: this document, a relative URL),
/// keeping the source view when `view_query` is `view=source&`.
fn section_href(doc_id: Option<&str>, structure: &str, view_query: &str) -> String {
    let base = doc_id.map_or(String::new(), |d| format!("/doc/{}/", segment(d)));
    match structure {
        "" if view_query.is_empty() => {
            if base.is_empty() {
                "?".to_string()
            } else {
                base
            }
        }
        "" => format!("{base}?{}", view_query.trim_end_matches('&')),
        s => format!("{base}?{view_query}s={}#{}", segment(s), segment(s)),
    }
}

/// The pane of `view` (read with `query`'s highlights).
fn pane_of(view: &SectionView, query: &ReaderQuery, doc_id: &str) -> SectionPane {
    let source_view = query.source_view();
    let vq = if source_view { "view=source&" } else { "" };
    let link = |structure: &str, label: String| PaneLink {
        href: section_href(None, structure, vq),
        s: Some(structure.to_string()),
        label: shown(&label),
    };
    let ancestors: Vec<String> = {
        let parts: Vec<&str> = view
            .structure
            .split('.')
            .filter(|p| !p.is_empty())
            .collect();
        (1..=parts.len()).map(|i| parts[..i].join(".")).collect()
    };
    let mut crumbs = vec![link("", view.doc_title.clone())];
    for (s, title) in ancestors
        .iter()
        .zip(&view.titles)
        .take(ancestors.len().saturating_sub(1))
    {
        crumbs.push(link(s, title.clone()));
    }
    let own_title = if view.title.is_empty() {
        view.doc_title.clone()
    } else {
        view.title.clone()
    };
    let more = view.next_offset.map(|next| {
        let mut q = query.clone();
        q.offset = next;
        PaneLink {
            href: q.href(source_view),
            s: None,
            label: format!("Read on ({} more chars)", view.text_chars - next),
        }
    });
    SectionPane {
        structure: view.structure.clone(),
        heading: shown(&if view.structure.is_empty() {
            own_title.clone()
        } else {
            format!("§{} {}", view.structure, own_title)
        }),
        page_title: shown(&own_title),
        crumb_here: (!view.structure.is_empty())
            .then(|| shown(view.titles.last().unwrap_or(&own_title))),
        crumbs,
        meta: [view.location.clone(), format!("{} chars", view.text_chars)]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" · "),
        previous: view
            .previous
            .as_ref()
            .map(|p| link(&p.structure, format!("← {}", p.title))),
        next: view
            .next
            .as_ref()
            .map(|n| link(&n.structure, format!("{} →", n.title))),
        body: view.html.clone().unwrap_or_default(),
        source_view,
        more,
        children: view
            .children
            .iter()
            .map(|c| link(&c.structure, format!("{} {}", c.structure, c.title)))
            .collect(),
        see_also: view
            .see_also
            .iter()
            .map(|t| {
                if t.doc_id == doc_id {
                    let label = if t.structure.is_empty() {
                        t.title.clone()
                    } else {
                        format!("#{} {}", t.structure, t.title)
                    };
                    link(&t.structure, label)
                } else {
                    let label = if t.structure.is_empty() {
                        format!("{} {}", t.doc_id, t.title)
                    } else {
                        format!("{} #{} {}", t.doc_id, t.structure, t.title)
                    };
                    PaneLink {
                        href: section_href(Some(&t.doc_id), &t.structure, vq),
                        s: None,
                        label: shown(&label),
                    }
                }
            })
            .collect(),
    }
}

/// `GET /doc/{doc_id}` and `GET /doc/{doc_id}/` with a [`ReaderQuery`]: the page, or with
/// `part=section` the section pane alone. Errors (an unknown document or section, a bad
/// structure number, an offset past the end) are the error page with their status.
pub async fn page(
    State(state): State<AppState>,
    Path(doc_id): Path<String>,
    Query(query): Query<ReaderQuery>,
) -> Response {
    let opened = match state.opened().await {
        Ok(o) => o,
        Err(e) => return api_error_page(&e),
    };
    let pane_only = query.part.as_deref() == Some("section");
    let built = state
        .blocking(move || {
            let ws = opened.workspace.as_ref();
            let card = ws.card(&doc_id).ok_or_else(|| {
                ApiError::not_found(format!(
                    "document not found: {} (the Library lists the documents)",
                    doc_id.chars().take(200).collect::<String>()
                ))
            })?;
            let how = SectionHtml {
                source: query.source_view(),
                mark: query.mark_range(),
                line: query.line,
            };
            let view = read_section(ws, &doc_id, &query.s, query.offset, None, Some(&how))?;
            let pane = pane_of(&view, &query, &doc_id);
            if pane_only {
                return Ok(Err(pane));
            }
            let doc = ws.document(&doc_id)?;
            let tree = &doc.tree;
            let source_view = query.source_view();
            Ok(Ok(ReaderPage {
                active: "library",
                doc_id_shown: shown(&doc_id),
                title: shown(tree.title()),
                format: card.format.as_str(),
                size: human_bytes(card.bytes),
                sections: tree.len().saturating_sub(1),
                source: shown(&card.source),
                outline: outline_rows(tree),
                source_view,
                view_query: if source_view { "view=source&" } else { "" },
                root_href: section_href(None, "", if source_view { "view=source&" } else { "" }),
                toggle_href: query.href(!source_view),
                pane_html: pane.render().map_err(|e| {
                    ApiError::internal(format!("the section could not be rendered: {e}"))
                })?,
                pane_structure: pane.structure,
                doc_id,
            }))
        })
        .await;
    match built {
        Ok(Ok(page)) => render_page(&page),
        Ok(Err(pane)) => render_page(&pane),
        Err(e) => api_error_page(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flat_outline_opens_and_closes_every_nested_list() {
        let md = "# A\n\n## A1\n\n### A1a\n\n## A2\n\n# B\n\ntext\n";
        let tree = crate::tree::build_tree(
            crate::parse::markdown::parse_markdown(md),
            &crate::tree::BuildOptions::default(),
        );
        let rows = outline_rows(&tree);
        let shape: Vec<(String, bool, usize)> = rows
            .iter()
            .map(|r| (r.structure.clone(), r.has_children, r.closes))
            .collect();
        assert_eq!(
            shape,
            [
                ("1".to_string(), true, 0),
                ("1.1".to_string(), true, 0),
                ("1.1.1".to_string(), false, 1),
                ("1.2".to_string(), false, 1),
                ("2".to_string(), false, 0),
            ]
        );
    }
}
