//! The library as data for the faces that return JSON (MCP's `docs` and `search` tools, the
//! HTTP API's `/api/v1/docs` and `/api/v1/search`): a page of DocCards ([`docs_page`]) and the
//! model-free section search ([`search_sections`], the BM25 ranking of
//! [`super::lexical::rank_sections`], as `ask --lexical` ranks: Robertson & Zaragoza 2009, k1 = 1.2, b = 0.75) with each
//! hit's text cut to a budget and a snippet whose query terms are marked.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::evidence::inclusive;
use super::lexical::{first_slots, rank_sections_given, LexicalError, Slot};
use crate::index::tokenize::Tokenizer;
use crate::index::DocCard;
use crate::index::QueryStatistics;
use crate::nav::path::section_uri;
use crate::nav::render::page;
use crate::workspace::Library;

/// Most results of one search or one ranking of the documents for a question, on every face
/// (the HTTP API's `/search`, `/docs?for=` and lexical `/ask`, the MCP `search` and `docs`
/// tools).
pub const MAX_K: usize = 50;

/// `k` when it is 1 to [`MAX_K`]; otherwise the one-line error `k must be 1 to 50, not K`,
/// which the face prefixes with its own name.
pub fn check_k(k: usize) -> Result<usize, String> {
    if (1..=MAX_K).contains(&k) {
        Ok(k)
    } else {
        Err(format!("k must be 1 to {MAX_K}, not {k}"))
    }
}

/// One page of the catalog.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocsPage {
    /// Documents in the workspace.
    pub total: usize,
    /// Index of the first document on this page.
    pub offset: usize,
    /// `offset` of the next page; `null` on the last one.
    pub next_offset: Option<usize>,
    /// The documents on this page.
    pub documents: Vec<DocEntry>,
}

/// One document of [`DocsPage`].
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocEntry {
    /// Document id: paths start with `/doc_id`.
    pub doc_id: String,
    /// Title.
    pub title: String,
    /// `markdown`, `pdf` or `text`.
    pub format: String,
    /// Source size in bytes.
    pub bytes: u64,
    /// Sections in the tree, root included.
    pub node_count: u32,
    /// Summary (first sentences).
    pub summary: String,
    /// Depth 1–2 sections, `"2.1 Title"`, in reading order (may end with `… (+N more)`).
    pub outline: Vec<String>,
    /// The document as a resource.
    pub uri: String,
    /// Why it ranks where it does, when listed for a question (`docs` with `for`): name match,
    /// period match, section hits, BM25 over the card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl DocEntry {
    /// The entry of `card`.
    pub fn of(card: &DocCard) -> DocEntry {
        DocEntry {
            doc_id: card.doc_id.clone(),
            title: card.title.clone(),
            format: card.format.as_str().to_string(),
            bytes: card.bytes,
            node_count: card.node_count,
            summary: card.summary.clone(),
            outline: card.outline.clone(),
            uri: section_uri(&card.doc_id, ""),
            why: None,
        }
    }
}

impl DocsPage {
    /// The page of `cards` found at `offset` (asked for `limit`) among `total` documents.
    fn of(
        total: usize,
        cards: &[std::sync::Arc<DocCard>],
        offset: usize,
        limit: usize,
    ) -> DocsPage {
        let end = offset.min(total) + cards.len();
        DocsPage {
            total,
            offset,
            next_offset: (end < total && limit > 0).then_some(end),
            documents: cards.iter().map(|c| DocEntry::of(c)).collect(),
        }
    }
}

/// The documents `offset..offset + limit` of `library` (catalog order: by doc id). An `offset`
/// past the end gives an empty page with the right `total`; `limit` 0 gives an empty page.
pub fn docs_page(library: &dyn Library, offset: usize, limit: usize) -> DocsPage {
    let total = library.document_count();
    DocsPage::of(total, &library.cards_page(offset, limit), offset, limit)
}

/// The documents `offset..offset + limit` of those whose id or title contains `needle` (ASCII
/// letters in either case) or whose format is `needle` ([`Library::cards_matching`], catalog
/// order), `total` being how many match.
/// An `offset` past the end gives an empty page with the right `total`.
pub fn docs_matching(library: &dyn Library, needle: &str, offset: usize, limit: usize) -> DocsPage {
    let (total, cards) = library.cards_matching(needle, offset, limit);
    DocsPage::of(total, &cards, offset, limit)
}

/// Ranked sections for a query.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SearchResults {
    /// The query as given.
    pub query: String,
    /// Ranked sections, best first.
    pub results: Vec<SearchHit>,
}

/// One ranked section of [`SearchResults`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchHit {
    /// Document id.
    pub doc_id: String,
    /// Path for `cat`/`ls` (`/doc_id/#2.1`; `/doc_id` for the whole document).
    pub path: String,
    /// The section as a resource.
    pub uri: String,
    /// Titles from the document's first level down to the section.
    pub titles: Vec<String>,
    /// Dotted structure number (`2.1`; `""` for the document root).
    pub structure: String,
    /// 1-based source lines `[first, last]` (Markdown and text).
    pub lines: Option<[u32; 2]>,
    /// 1-based PDF pages `[first, last]`.
    pub pages: Option<[u32; 2]>,
    /// BM25 score (higher is better).
    pub score: f32,
    /// The section's text, verbatim, cut to the budget (chars) at a line boundary.
    pub text: String,
    /// Chars of the section's whole text (`cat` reads the rest).
    pub text_chars: usize,
    /// About [`SNIPPET_CHARS`] chars of the text around its first query term, whitespace runs
    /// collapsed to one space, in parts: `hit` parts are the query's terms. Concatenated, the
    /// parts are the snippet.
    pub snippet: Vec<SnippetPart>,
}

/// A piece of a snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// Whether it is one of the query's terms.
    pub hit: bool,
}

/// Chars of a snippet (about; it is cut at word boundaries where it can be).
pub const SNIPPET_CHARS: usize = 240;

/// Chars of a section's head the snippet looks for the query's terms in.
const SNIPPET_SCAN_CHARS: usize = 20_000;

/// Chars of the snippet before its first term.
const SNIPPET_LEAD: usize = 60;

/// The `k` best sections for `query` over `library` (or only `doc_ids`), best score first (a
/// stable sort: equal scores keep the ranking's order), each with its text cut to `budget` chars
/// and a [`snippet`].
///
/// Errors: [`LexicalError`] for an unknown id in `doc_ids`, an unreadable tree file or an
/// unusable search index.
pub fn search_sections(
    library: &dyn Library,
    query: &str,
    doc_ids: Option<&[String]>,
    k: usize,
    budget: usize,
) -> Result<SearchResults, LexicalError> {
    let hits = search_slotted(library, query, doc_ids, k, budget, None)?;
    Ok(SearchResults {
        query: query.to_string(),
        results: hits.into_iter().map(|h| h.hit).collect(),
    })
}

/// One shard's part of a search over a corpus split into several libraries (each an ordinary
/// workspace holding whole documents): its best hits scored with the whole corpus's statistics,
/// each with its [`Slot`], for [`merge_shards`].
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ShardResults {
    /// The query as given.
    pub query: String,
    /// The shard's best hits, best first.
    pub results: Vec<SlottedHit>,
}

/// A hit of [`ShardResults`] and the slot it holds in its shard's ranking.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SlottedHit {
    /// Where it sits in the ranking before hits are ordered by score.
    pub slot: Slot,
    /// The hit.
    #[serde(flatten)]
    pub hit: SearchHit,
}

/// [`search_sections`] over one shard, scored with `stats`, the merged statistics of every
/// shard for this query and scope ([`super::lexical::query_statistics`] of each, then
/// [`QueryStatistics::merged`]): the `k` best of the shard's sections, each scored as in one
/// library holding every shard's documents. `doc_ids` may name documents of other shards
/// (they are passed over); an id no shard holds is the caller's to refuse.
///
/// Errors: [`LexicalError`] for an unreadable tree file or an unusable search index.
pub fn search_shard(
    library: &dyn Library,
    query: &str,
    doc_ids: Option<&[String]>,
    k: usize,
    budget: usize,
    stats: &QueryStatistics,
) -> Result<ShardResults, LexicalError> {
    let held: Option<Vec<String>> =
        doc_ids.map(|ids| ids.iter().filter_map(|id| library.resolve_id(id)).collect());
    let results = search_slotted(library, query, held.as_deref(), k, budget, Some(stats))?;
    Ok(ShardResults {
        query: query.to_string(),
        results,
    })
}

/// The `k` best hits of `shards` (each a [`search_shard`] of one shard with the same query,
/// statistics, `doc_ids` and `k`): what [`search_sections`] gives over one library holding all
/// their documents. The first `k` slots of all shards in ranking order (score, then position in
/// `doc_ids` — by `doc_id` when `None` — then reading order), then ordered by score, ties kept
/// in that order, as [`search_sections`] orders its hits.
pub fn merge_shards(
    query: &str,
    shards: Vec<ShardResults>,
    doc_ids: Option<&[String]>,
    k: usize,
) -> SearchResults {
    let position = |id: &str| -> usize {
        doc_ids
            .and_then(|ids| ids.iter().position(|x| x == id))
            .unwrap_or(0)
    };
    let all: Vec<SlottedHit> = shards.into_iter().flat_map(|s| s.results).collect();
    let results: Vec<SearchHit> = first_slots(
        all,
        k,
        |h| h.slot,
        |h| h.hit.doc_id.as_str(),
        |h| h.hit.score,
        position,
    )
    .into_iter()
    .map(|h| h.hit)
    .collect();
    SearchResults {
        query: query.to_string(),
        results,
    }
}

/// The hits of [`search_sections`] with their slots, scored with `stats` when given.
fn search_slotted(
    library: &dyn Library,
    query: &str,
    doc_ids: Option<&[String]>,
    k: usize,
    budget: usize,
    stats: Option<&QueryStatistics>,
) -> Result<Vec<SlottedHit>, LexicalError> {
    // The ranking of `ask --lexical` without its per-hit score explanations, which a search
    // result does not show, and without building the whole text of a section that may be a
    // whole book: only its head is read.
    let ranked = rank_sections_given(library, query, doc_ids, k, stats)?;
    let mut terms = Vec::new();
    Tokenizer::default().for_each(query, |t| terms.push(t.to_string()));
    let mut results = Vec::with_capacity(ranked.len());
    for r in ranked {
        let doc = library.document(&r.doc_id)?;
        let tree = &doc.tree;
        if tree.get(r.node).is_none() {
            continue;
        }
        // The budget plus one char tells `page` whether the text goes on; the snippet's terms
        // are in the section's own title and text, which come first.
        let (head, total) = tree.text_head(r.node, budget.max(SNIPPET_SCAN_CHARS) + 1);
        let p = page(&head, 0, budget);
        let structure = tree.node(r.node).structure.clone();
        let hit = SearchHit {
            uri: section_uri(&r.doc_id, &structure),
            path: if structure.is_empty() {
                format!("/{}", r.doc_id)
            } else {
                format!("/{}/#{}", r.doc_id, structure)
            },
            titles: tree.title_path(r.node),
            lines: inclusive(&tree.subtree_span(r.node, |n| n.lines.clone())),
            pages: inclusive(&tree.subtree_span(r.node, |n| n.pages.clone())),
            score: r.score,
            text: p.body.to_string(),
            text_chars: total,
            snippet: snippet(&head, &terms),
            structure,
            doc_id: r.doc_id,
        };
        results.push(SlottedHit { slot: r.slot, hit });
    }
    // Deduplication puts a subsection that replaces its parent at the parent's rank, with its
    // own (lower) score: ranks follow the scores the hits show.
    results.sort_by(|a, b| b.hit.score.total_cmp(&a.hit.score));
    Ok(results)
}

/// About [`SNIPPET_CHARS`] chars of `text` from a little before the first token in `terms`
/// (the start of the text when none occurs), whitespace collapsed, split into parts with the
/// tokens in `terms` marked as hits (the tokenizer of the section index decides what a token
/// is, so `fs.Stats` or `--max-count` are marked whole).
pub fn snippet(text: &str, terms: &[String]) -> Vec<SnippetPart> {
    let mut hits: Vec<std::ops::Range<usize>> = Vec::new();
    Tokenizer::default().for_each_with_range(text, |token, range| {
        if terms.iter().any(|t| t == token) {
            match hits.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => hits.push(range),
            }
        }
    });
    let first = hits.first().map_or(0, |r| r.start);
    // Back up SNIPPET_LEAD chars, then forward to a word start.
    let mut start = text[..first]
        .char_indices()
        .rev()
        .nth(SNIPPET_LEAD.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    if start > 0 {
        if let Some(space) = text[start..first].find(char::is_whitespace) {
            start += space;
        }
    }
    let end = text[start..]
        .char_indices()
        .nth(SNIPPET_CHARS)
        .map_or(text.len(), |(i, _)| start + i);
    let end = hits
        .iter()
        .find(|r| r.start < end && r.end > end)
        .map_or(end, |r| r.end);
    let mut parts: Vec<SnippetPart> = Vec::new();
    let mut push = |piece: &str, hit: bool| {
        let mut collapsed = String::with_capacity(piece.len());
        let mut space = false;
        for c in piece.chars() {
            if c.is_whitespace() {
                space = true;
            } else {
                if space && !(collapsed.is_empty() && parts.is_empty()) {
                    collapsed.push(' ');
                }
                space = false;
                collapsed.push(c);
            }
        }
        if space {
            collapsed.push(' ');
        }
        if !collapsed.is_empty() {
            parts.push(SnippetPart {
                text: collapsed,
                hit,
            });
        }
    };
    let mut at = start;
    for r in hits.iter().filter(|r| r.start >= start && r.end <= end) {
        push(&text[at..r.start], false);
        push(&text[r.start..r.end], true);
        at = r.end;
    }
    push(&text[at..end], false);
    if let Some(last) = parts.last_mut() {
        let trimmed = last.text.trim_end().len();
        last.text.truncate(trimmed);
        if end < text.len() && !last.hit {
            last.text.push('…');
        }
    }
    if start > 0 {
        if let Some(first) = parts.first_mut() {
            first.text.insert(0, '…');
        }
    }
    parts
}

#[cfg(test)]
#[path = "search_shards_tests.rs"]
mod shards_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(parts: &[SnippetPart]) -> String {
        parts
            .iter()
            .map(|p| {
                if p.hit {
                    format!("[{}]", p.text)
                } else {
                    p.text.clone()
                }
            })
            .collect()
    }

    #[test]
    fn snippet_marks_query_terms_and_collapses_whitespace() {
        // `--search-zip` is one technical token whose parts include `search`: marked whole.
        let terms = vec!["compressed".to_string(), "search".to_string()];
        let text = "# How do I search compressed files?\n\nripgrep's `-z/--search-zip` flag will\ncause it to search Compressed files.";
        assert_eq!(
            shown(&snippet(text, &terms)),
            "# How do I [search] [compressed] files? ripgrep's `-z/[--search-zip]` flag will cause it to [search] [Compressed] files."
        );
    }

    #[test]
    fn snippet_starts_near_the_first_term_and_marks_technical_tokens_whole() {
        let terms = vec!["fs.stats".to_string()];
        let text = format!("{}\nThe fs.Stats object tells.", "lorem ipsum ".repeat(40));
        let s = shown(&snippet(&text, &terms));
        assert!(s.starts_with('…'), "{s}");
        assert!(s.contains("The [fs.Stats] object tells."), "{s}");
        assert!(s.chars().count() < SNIPPET_CHARS + 10, "{s}");
    }

    #[test]
    fn snippet_without_terms_is_the_start_of_the_text() {
        let text = "alpha beta gamma";
        assert_eq!(
            snippet(text, &["zeta".into()]),
            vec![SnippetPart {
                text: "alpha beta gamma".into(),
                hit: false
            }]
        );
    }
}
