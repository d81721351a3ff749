//! Ask (`/ask`): a question box; the run streamed live as it happens (one lane per Worker, the
//! Orchestrator's decisions), then the ranked evidence with its verdict, each item linking into
//! the Reader, and a link to the run's trace. Without a model the page says exactly what to set;
//! the BM25 baseline is offered, labelled, either way.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::render_page;
use crate::serve::state::AppState;

/// `?q=` fills the question box (a shareable question).
#[derive(Debug, Deserialize)]
pub struct AskQuery {
    #[serde(default)]
    q: String,
}

#[derive(Template)]
#[template(path = "ask.html")]
struct AskPage {
    active: &'static str,
    question: String,
    model: Option<String>,
    no_model: Option<String>,
    max_asks: usize,
    max_steps: usize,
    rounds: usize,
}

/// `GET /ask`.
pub async fn page(State(state): State<AppState>, Query(q): Query<AskQuery>) -> Response {
    let (model, no_model) = match &state.model {
        Ok(m) => (Some(m.model_id().to_string()), None),
        // The page says what to set; the reason's own `hint:` line would repeat it, and its
        // "no model configured: " the banner's own words.
        Err(why) => {
            let first = why.lines().next().unwrap_or_default();
            let missing = first.strip_prefix("no model configured: ").unwrap_or(first);
            (None, Some(missing.to_string()))
        }
    };
    render_page(&AskPage {
        active: "ask",
        question: q.q.chars().take(2_000).collect(),
        model,
        no_model,
        max_asks: state.max_asks,
        max_steps: state.agent.max_steps,
        rounds: state.agent.rounds,
    })
}
