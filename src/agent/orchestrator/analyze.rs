//! Analyze (DESIGN.md §6.2) with the catalog search: the model reads the section hits and the
//! DocCards the pre-rank put first and names the tasks; when the shown cards do not fit the
//! question it may instead ask for a search of the catalog (`{"search": ["eslint-plugin-import
//! changelog"]}`) and is asked again with the cards found. "No listed document covers it" is
//! taken only after a search: a first reply with no task and no search gets the cards a search
//! for the question finds, and must confirm. A question whose cards fit stays one call; a search
//! adds one.

use super::cards::{analyze_block, catalog_search_with, PreRank};
use super::placement::CatalogRanking;
use crate::agent::decisions::{analysis_schema, Analysis};
use crate::agent::events::Emitter;
use crate::agent::model::ask_model;
use crate::agent::prompts::{room_chars, system_prompt, Prompt};
use crate::agent::{AgentError, AgentOptions};
use crate::llm::{ChatMessage, ChatModel};
use crate::workspace::Library;

/// Catalog searches one question may run before the tasks are taken as they are.
pub const MAX_SEARCHES: usize = 1;

/// Queries of one search request kept (the rest are dropped).
pub const MAX_QUERIES: usize = 4;

/// Analyze `question` over `library`, its catalog ranked as `pre`: the analysis, and the
/// documents a catalog search found (empty without a search; the Orchestrator lists them to
/// evaluate first).
///
/// Errors: [`AgentError::Llm`] when a model call fails or its reply does not parse after the
/// repair round.
pub(super) async fn analyze(
    model: &dyn ChatModel,
    emitter: &Emitter,
    (library, ranking): (&dyn Library, &dyn CatalogRanking),
    options: &AgentOptions,
    question: &str,
    pre: &PreRank,
) -> Result<(Analysis, Vec<String>), AgentError> {
    let cap = options.prompt_cap_tokens;
    let system = system_prompt(Prompt::Analyze, options, &[]);
    let head = format!("Question: {question}\n\n");
    let room = room_chars(cap, &[&system, &head]);
    let user = format!(
        "{head}{}",
        analyze_block(library, pre, options.max_cards, room)
    );
    let first = ask(model, emitter, cap, &system, user).await?;
    let (queries, why) = if !first.search.is_empty() {
        let queries: Vec<String> = first
            .search
            .iter()
            .map(|q| q.trim().to_string())
            .filter(|q| !q.is_empty())
            .take(MAX_QUERIES)
            .collect();
        (queries, "You asked for a search of the catalog")
    } else if first.tasks.is_empty() {
        // "Absent" only after a search: the question's own words, and its key concepts.
        let mut queries = vec![question.to_string()];
        if !first.key_concepts.is_empty() {
            queries.push(first.key_concepts.join(" "));
        }
        (
            queries,
            "You said no listed document covers the question. Before that answer stands, the \
             catalog was searched",
        )
    } else {
        return Ok((first, Vec::new()));
    };
    if queries.is_empty() || MAX_SEARCHES == 0 {
        return Ok((first, Vec::new()));
    }
    let found = catalog_search_with(ranking, library, &queries, options.max_cards)?;
    emitter.decision(
        "catalog_search",
        &serde_json::json!({"queries": queries, "found": found.docs.len()}),
    );
    let quoted: Vec<String> = queries.iter().map(|q| format!("\"{q}\"")).collect();
    let head = format!(
        "Question: {question}\n\n{why} for {}: {} document(s) found. Choose the tasks from these \
         cards; {{\"tasks\": []}} now means the documents do not cover the question. No further \
         search is possible: \"search\" must be [].\n\n",
        quoted.join(", "),
        found.docs.len()
    );
    let room = room_chars(cap, &[&system, &head]);
    let block = if found.docs.is_empty() {
        "(The search found no document.)\n".to_string()
    } else {
        analyze_block(library, &found, options.max_cards, room)
    };
    let mut second = ask(model, emitter, cap, &system, format!("{head}{block}")).await?;
    second.search.clear();
    Ok((second, found.docs))
}

async fn ask(
    model: &dyn ChatModel,
    emitter: &Emitter,
    cap: usize,
    system: &str,
    user: String,
) -> Result<Analysis, AgentError> {
    let messages = vec![ChatMessage::system(system), ChatMessage::user(user)];
    Ok(ask_model(model, emitter, "analyze", messages, &analysis_schema(), cap).await?)
}
