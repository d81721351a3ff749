//! `GET /health`, `GET /docs` (a page of DocCards) and `GET /search` (BM25 over every section).

use crate::agent::search::check_k;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

use super::ApiQuery;
use crate::agent::search::{docs_matching, docs_page, search_sections};
use crate::serve::error::ApiError;
use crate::serve::pages::library::MAX_FILTER_CHARS;
use crate::serve::search_cache::{generation_of, SearchKey};
use crate::serve::state::AppState;
use crate::workspace::Library;

/// Documents per `/docs` page without `limit`.
pub const DOCS_PAGE: usize = 50;

/// Most documents on one `/docs` page.
pub const MAX_DOCS_PAGE: usize = 1_000;

/// Results of `/search` without `k`.
pub const DEFAULT_K: usize = 10;

/// Most results of one `/search` (the limit of every face).
pub use crate::agent::search::MAX_K;

/// Chars of each result's text without `budget`.
pub const SEARCH_TEXT_CHARS: usize = 800;

/// Most chars of each result's text.
pub const MAX_SEARCH_TEXT_CHARS: usize = 20_000;

/// Longest query, in chars.
pub const MAX_QUERY_CHARS: usize = 1_000;

/// `/health`'s answer.
#[derive(Debug, Serialize)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// Documents in the workspace.
    pub documents: usize,
    /// The index generation the server reads (changes with every `docnav index` commit).
    pub generation: u64,
}

/// `GET /api/v1/health`. Errors: 503 without a workspace (`no_workspace`).
pub async fn health(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    let opened = state.opened().await?;
    Ok(Json(Health {
        status: "ok",
        documents: opened.workspace.document_count(),
        generation: opened.workspace.index_generation(),
    }))
}

/// `/docs`' query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocsQuery {
    /// First document (0-based).
    #[serde(default)]
    pub offset: usize,
    /// Documents on the page (default [`DOCS_PAGE`], at most [`MAX_DOCS_PAGE`]).
    pub limit: Option<usize>,
    /// A question: the cards ranked for it as the Orchestrator ranks them, each with why
    /// ([`crate::agent::routing::explain`]), instead of a catalog page.
    #[serde(rename = "for")]
    pub for_question: Option<String>,
    /// With `for`: how many cards (default [`DEFAULT_K`], at most [`MAX_K`]).
    pub k: Option<usize>,
    /// A filter, as the Library's: only documents whose id or title contains it (ASCII
    /// letters in either case) or whose format it is; `total` counts those. Blank: no filter.
    pub q: Option<String>,
}

/// `GET /api/v1/docs?for=QUESTION&k=N`'s body.
#[derive(Debug, Serialize)]
pub struct RankedDocs {
    /// The question.
    pub question: String,
    /// How many documents the workspace holds.
    pub total: usize,
    /// The first `k` cards, best first, each with its rank and why.
    pub cards: Vec<crate::agent::routing::RankedCard>,
}

/// `GET /api/v1/docs?offset=&limit=[&q=FILTER]`: a page of the catalog (of the documents the
/// filter keeps); `GET /api/v1/docs?for=QUESTION&k=N`: the cards ranked for a question
/// ([`RankedDocs`]). Errors: 400 for `limit` 0 or over [`MAX_DOCS_PAGE`], a filter over
/// [`MAX_FILTER_CHARS`] chars, `q` with `for`, an empty or too long question, `k` out of range;
/// 503 without a workspace; with `for`, 500 (`internal`, the detail naming the file and saying
/// to re-index) when the catalog's cards do not decode.
pub async fn docs(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<DocsQuery>,
) -> Result<Response, ApiError> {
    if q.for_question.is_some() && q.q.is_some() {
        return Err(ApiError::bad_request(
            "give either `for` (rank for a question) or `q` (filter by id, title or format)",
        ));
    }
    if let Some(question) = q.for_question {
        if question.trim().is_empty() || question.chars().count() > MAX_QUERY_CHARS {
            return Err(ApiError::bad_request(format!(
                "the question `for` must be 1 to {MAX_QUERY_CHARS} chars"
            )));
        }
        let k = check_k(q.k.unwrap_or(DEFAULT_K)).map_err(ApiError::bad_request)?;
        let opened = state.opened().await?;
        let ranked = state
            .blocking(move || {
                let library = opened.workspace.as_ref();
                Ok(RankedDocs {
                    cards: crate::agent::routing::explain(library, &question, k)?,
                    total: library.document_count(),
                    question,
                })
            })
            .await?;
        return Ok(Json(ranked).into_response());
    }
    let limit = q.limit.unwrap_or(DOCS_PAGE);
    if limit == 0 || limit > MAX_DOCS_PAGE {
        return Err(ApiError::bad_request(format!(
            "limit must be 1 to {MAX_DOCS_PAGE}, not {limit}"
        )));
    }
    let filter = q.q.as_deref().unwrap_or("").trim().to_string();
    if filter.chars().count() > MAX_FILTER_CHARS {
        return Err(ApiError::bad_request(format!(
            "the filter `q` is over {MAX_FILTER_CHARS} chars (ids and titles are shorter)"
        )));
    }
    let opened = state.opened().await?;
    if filter.is_empty() {
        return Ok(Json(docs_page(opened.workspace.as_ref(), q.offset, limit)).into_response());
    }
    let page = state
        .blocking(move || {
            Ok(docs_matching(
                opened.workspace.as_ref(),
                &filter,
                q.offset,
                limit,
            ))
        })
        .await?;
    Ok(Json(page).into_response())
}

/// `/search`'s query. `doc_id` may repeat.
#[derive(Debug, Default)]
pub struct SearchQuery {
    /// The query.
    pub q: String,
    /// Results (default [`DEFAULT_K`]).
    pub k: Option<usize>,
    /// Only these documents.
    pub doc_ids: Vec<String>,
    /// Chars of each result's text (default [`SEARCH_TEXT_CHARS`]).
    pub budget: Option<usize>,
}

impl<'de> Deserialize<'de> for SearchQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A repeated `doc_id` comes as repeated pairs, which the derive cannot collect.
        let pairs: Vec<(String, String)> = Vec::deserialize(d)?;
        let mut q = SearchQuery::default();
        let number = |key: &str, v: &str| {
            v.parse::<usize>().map_err(|_| {
                serde::de::Error::custom(format!("{key} must be a whole number, not '{v}'"))
            })
        };
        for (key, value) in pairs {
            match key.as_str() {
                "q" => q.q = value,
                "k" => q.k = Some(number("k", &value)?),
                "budget" => q.budget = Some(number("budget", &value)?),
                "doc_id" => q.doc_ids.push(value),
                other => {
                    return Err(serde::de::Error::custom(format!(
                        "unknown parameter '{other}' (expected q, k, doc_id, budget)"
                    )))
                }
            }
        }
        Ok(q)
    }
}

/// `GET /api/v1/search?q=…&k=…[&doc_id=…][&budget=…]`: the
/// [`SearchResults`](crate::agent::search::SearchResults) as JSON, from the generation's cache
/// when the same search ran before ([`crate::serve::search_cache`]).
///
/// Errors: 400 for an empty or too long query, `k` or `budget` out of range; 404 for an unknown
/// `doc_id`; 503 without a workspace; 500 when the index is unusable.
pub async fn search(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<SearchQuery>,
) -> Result<Response, ApiError> {
    if q.q.trim().is_empty() {
        return Err(ApiError::bad_request(
            "the query `q` is empty (give keywords or a question)",
        ));
    }
    if q.q.chars().count() > MAX_QUERY_CHARS {
        return Err(ApiError::bad_request(format!(
            "the query is over {MAX_QUERY_CHARS} chars"
        )));
    }
    let k = check_k(q.k.unwrap_or(DEFAULT_K)).map_err(ApiError::bad_request)?;
    let budget = q.budget.unwrap_or(SEARCH_TEXT_CHARS);
    if budget == 0 || budget > MAX_SEARCH_TEXT_CHARS {
        return Err(ApiError::bad_request(format!(
            "budget must be 1 to {MAX_SEARCH_TEXT_CHARS} chars, not {budget}"
        )));
    }
    let opened = state.opened().await?;
    let key = SearchKey {
        generation: generation_of(&opened.workspace),
        query: q.q.clone(),
        k,
        budget,
        doc_ids: q.doc_ids.clone(),
    };
    if let Some(body) = state.searches.get(&key) {
        return Ok(json_body(body));
    }
    let body = state
        .blocking(move || {
            let scope = (!q.doc_ids.is_empty()).then_some(q.doc_ids.as_slice());
            let results = search_sections(opened.workspace.as_ref(), &q.q, scope, k, budget)
                .map_err(|e| match e {
                    crate::agent::lexical::LexicalError::Workspace(w) => ApiError::from(w),
                })?;
            serde_json::to_vec(&results)
                .map(Bytes::from)
                .map_err(|e| ApiError::internal(e.to_string()))
        })
        .await?;
    state.searches.insert(key, body.clone());
    Ok(json_body(body))
}

fn json_body(body: Bytes) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}
