//! What `docnav.cluster` (a corpus split into shard workspaces, searched as one) needs of the
//! core, as module functions: the shard a source or document id belongs to
//! ([`docnav::workspace::shard_key`]), the sources an index run would read, one shard's part of
//! a query's statistics, a search scored with the merged statistics, and the merge of the
//! shards' hits ([`docnav::agent::search::merge_shards`]); the same two rounds for the ranking of
//! `docs_for` ([`docnav::agent::orchestrator::shards`]). Statistics and a shard's part cross
//! between processes as JSON text; the merges return `SearchHit`s and `RankedDoc`s.

use std::collections::HashMap;
use std::path::Path;

use pyo3::prelude::*;

use docnav::agent::lexical::query_statistics;
use docnav::agent::search::{merge_shards, search_shard, ShardResults};
use docnav::index::QueryStatistics;
use docnav::tree::DocFormat;
use docnav::workspace::indexer::collect_inputs;
use docnav::workspace::{doc_id_base, shard_key, Library};

use docnav::agent::orchestrator::shards::{
    explain_shards, merge_rank_statistics, rank_shard, rank_statistics, RankStatistics,
    ShardRanking,
};
use docnav::agent::search::check_k;

use crate::errors::Error;
use crate::results::{RankedDoc, SearchHit};
use crate::workspace::Workspace;

/// Add the functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shard_key_of_id, m)?)?;
    m.add_function(wrap_pyfunction!(shard_key_of_source, m)?)?;
    m.add_function(wrap_pyfunction!(collect_sources, m)?)?;
    m.add_function(wrap_pyfunction!(query_statistics_json, m)?)?;
    m.add_function(wrap_pyfunction!(merge_statistics_json, m)?)?;
    m.add_function(wrap_pyfunction!(search_shard_json, m)?)?;
    m.add_function(wrap_pyfunction!(merge_search, m)?)?;
    m.add_function(wrap_pyfunction!(rank_statistics_json, m)?)?;
    m.add_function(wrap_pyfunction!(merge_rank_statistics_json, m)?)?;
    m.add_function(wrap_pyfunction!(rank_shard_json, m)?)?;
    m.add_function(wrap_pyfunction!(merge_docs_for, m)?)?;
    Ok(())
}

/// The shard key of document id `doc_id` (its id without `unique_slug`'s `-2`, `-3`… suffixes).
#[pyfunction]
fn shard_key_of_id(doc_id: &str) -> String {
    shard_key(doc_id).to_string()
}

/// The shard key of the document a new source at `path` becomes: that of its id's base.
#[pyfunction]
fn shard_key_of_source(path: &str) -> String {
    shard_key(&doc_id_base(Path::new(path))).to_string()
}

/// The files `docnav index ARGS` would read (files, folders walked, globs; absolute, sorted)
/// and one error line per argument that matched nothing.
#[pyfunction]
fn collect_sources(args: Vec<String>) -> (Vec<String>, Vec<String>) {
    let (inputs, errors) = collect_inputs(&args, DocFormat::ALL);
    let paths = inputs
        .into_iter()
        .map(|i| i.path.to_string_lossy().into_owned())
        .collect();
    (paths, errors)
}

/// `workspace`'s part of the statistics of a search for `query` (over `doc_ids` it holds, or
/// all its documents), as JSON: `{"sections", "text_tokens", "doc_freqs": {term: n}}`.
/// Errors: `WorkspaceError` for an unusable workspace.
#[pyfunction]
#[pyo3(signature = (workspace, query, doc_ids = None))]
fn query_statistics_json(
    py: Python<'_>,
    workspace: &Bound<'_, Workspace>,
    query: &str,
    doc_ids: Option<Vec<String>>,
) -> PyResult<String> {
    let ws = workspace.get();
    Ok(py.detach(|| -> Result<String, Error> {
        let opened = ws.opened()?;
        let stats = query_statistics(opened.workspace.as_ref(), query, doc_ids.as_deref())?;
        Ok(serde_json::to_string(&stats)?)
    })?)
}

/// The sum of the statistics `parts` (JSON of [`query_statistics_json`]), as JSON.
/// Errors: `DocnavError` for a part that is not such JSON.
#[pyfunction]
fn merge_statistics_json(parts: Vec<String>) -> PyResult<String> {
    let mut merged = QueryStatistics::default();
    for part in &parts {
        let part: QueryStatistics = serde_json::from_str(part).map_err(Error::from)?;
        merged.merge(&part);
    }
    Ok(serde_json::to_string(&merged).map_err(Error::from)?)
}

/// `workspace`'s `k` best sections for `query`, scored with `stats` (the merged statistics, JSON),
/// as JSON `{"query", "results": [...]}`: each hit as `Workspace.search_json`'s, with its
/// `slot` and `source`. `doc_ids` may name documents of other shards. Errors: `WorkspaceError`
/// for an unusable workspace, `DocnavError` for `stats` that is not statistics JSON.
#[pyfunction]
#[pyo3(signature = (workspace, query, stats, k, doc_ids = None, budget = None))]
fn search_shard_json(
    py: Python<'_>,
    workspace: &Bound<'_, Workspace>,
    query: &str,
    stats: &str,
    k: usize,
    doc_ids: Option<Vec<String>>,
    budget: Option<usize>,
) -> PyResult<String> {
    let stats: QueryStatistics = serde_json::from_str(stats).map_err(Error::from)?;
    // No budget: more chars than any section has (and room for the search's own `+ 1`).
    let budget = budget.map_or(usize::MAX / 4, |b| b.max(1));
    let ws = workspace.get();
    Ok(py.detach(|| -> Result<String, Error> {
        let opened = ws.opened()?;
        let library = opened.workspace.as_ref();
        let found = search_shard(library, query, doc_ids.as_deref(), k, budget, &stats)?;
        let value = serde_json::to_value(&found)?;
        Ok(with_sources(value, |id| {
            library.card(id).map(|card| card.source.clone())
        }))
    })?)
}

/// The `k` best hits of `shards` (JSON of [`search_shard_json`] from each shard) as one
/// workspace holding all their documents ranks them, as `Workspace.search` returns them (each
/// hit with the `source` its shard gave). Errors: `DocnavError` for a part that is not such
/// JSON.
#[pyfunction]
#[pyo3(signature = (query, shards, k, doc_ids = None))]
fn merge_search(
    query: &str,
    shards: Vec<String>,
    k: usize,
    doc_ids: Option<Vec<String>>,
) -> PyResult<Vec<SearchHit>> {
    let mut sources: HashMap<String, String> = HashMap::new();
    let mut parts = Vec::with_capacity(shards.len());
    for shard in &shards {
        let part: ShardResults = serde_json::from_str(shard).map_err(Error::from)?;
        let value: serde_json::Value = serde_json::from_str(shard).map_err(Error::from)?;
        for hit in value["results"].as_array().into_iter().flatten() {
            if let (Some(id), Some(source)) = (hit["doc_id"].as_str(), hit["source"].as_str()) {
                sources.insert(id.to_string(), source.to_string());
            }
        }
        parts.push(part);
    }
    let merged = merge_shards(query, parts, doc_ids.as_deref(), k);
    Ok(merged
        .results
        .into_iter()
        .map(|hit| {
            let source = sources.get(&hit.doc_id).cloned().unwrap_or_default();
            SearchHit::of(hit, source)
        })
        .collect())
}

/// `workspace`'s part of the statistics `docs_for(question)` ranks with (document count,
/// section and card statistics, the documents the question names in it), as JSON.
/// Errors: `WorkspaceError` for an unusable workspace or a failed catalog read.
#[pyfunction]
fn rank_statistics_json(
    py: Python<'_>,
    workspace: &Bound<'_, Workspace>,
    question: &str,
) -> PyResult<String> {
    let ws = workspace.get();
    Ok(py.detach(|| -> Result<String, Error> {
        let opened = ws.opened()?;
        let stats = rank_statistics(opened.workspace.as_ref(), question)?;
        Ok(serde_json::to_string(&stats)?)
    })?)
}

/// The sum of the ranking statistics `parts` (JSON of [`rank_statistics_json`] from each
/// shard, same question), as JSON. Errors: `DocnavError` for a part that is not such JSON.
#[pyfunction]
fn merge_rank_statistics_json(parts: Vec<String>) -> PyResult<String> {
    let parts = parts
        .iter()
        .map(|p| serde_json::from_str::<RankStatistics>(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::from)?;
    Ok(serde_json::to_string(&merge_rank_statistics(&parts)).map_err(Error::from)?)
}

/// `workspace`'s part of the ranking of `question`, scored with `stats` (the merged statistics,
/// JSON of [`merge_rank_statistics_json`]), with the cards the first `k` documents need, as
/// JSON. Errors: `WorkspaceError` for an unusable workspace or a failed catalog read,
/// `DocnavError` for `stats` that is not such JSON.
#[pyfunction]
fn rank_shard_json(
    py: Python<'_>,
    workspace: &Bound<'_, Workspace>,
    question: &str,
    stats: &str,
    k: usize,
) -> PyResult<String> {
    let stats: RankStatistics = serde_json::from_str(stats).map_err(Error::from)?;
    let ws = workspace.get();
    Ok(py.detach(|| -> Result<String, Error> {
        let opened = ws.opened()?;
        let part = rank_shard(opened.workspace.as_ref(), question, &stats, k)?;
        Ok(serde_json::to_string(&part)?)
    })?)
}

/// The first `k` (1–50) documents ranked for a question from every shard's
/// [`rank_shard_json`] (all with `stats`, the merged statistics JSON), as `Workspace.docs_for`
/// returns them over one workspace holding every shard's documents. Raises `ValueError` for
/// `k` out of range, `DocnavError` for a part that is not such JSON.
#[pyfunction]
fn merge_docs_for(
    py: Python<'_>,
    stats: &str,
    parts: Vec<String>,
    k: usize,
) -> PyResult<Vec<RankedDoc>> {
    check_k(k).map_err(pyo3::exceptions::PyValueError::new_err)?;
    let stats: RankStatistics = serde_json::from_str(stats).map_err(Error::from)?;
    let parts = parts
        .iter()
        .map(|p| serde_json::from_str::<ShardRanking>(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::from)?;
    explain_shards(&stats, &parts, k)
        .iter()
        .map(|r| RankedDoc::of(py, r))
        .collect()
}

/// Search JSON (`{"results": [hit, ...], ...}`) with each hit's `source` added: the source
/// path `source_of(doc_id)` gives, or `""` for a document it does not know. Returns the JSON
/// text.
fn with_sources(
    mut value: serde_json::Value,
    source_of: impl Fn(&str) -> Option<String>,
) -> String {
    if let Some(hits) = value.get_mut("results").and_then(|r| r.as_array_mut()) {
        for hit in hits.iter_mut().filter_map(|h| h.as_object_mut()) {
            let source = hit
                .get("doc_id")
                .and_then(|id| id.as_str())
                .and_then(&source_of)
                .unwrap_or_default();
            hit.insert("source".into(), serde_json::Value::String(source));
        }
    }
    value.to_string()
}
