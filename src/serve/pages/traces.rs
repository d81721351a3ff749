//! Traces: the list (`/traces`: question, date, model, verdict, calls, tokens; filtered by text;
//! upload; pick two to compare) and one trace as a timeline (`/trace/NAME`, `?compare=OTHER`
//! for two side by side), with a Replay button that re-runs it from the recorded replies.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::{api_error_page, human_bytes, render_page, shown};
use crate::serve::links::segment;
use crate::serve::state::AppState;
use crate::trace::folder::{load_page, PageBounds};
use crate::trace::timeline::{timeline, LaneView, TimelineView, PAGE_STEPS};

/// One row of the list.
pub struct TraceRow {
    /// Link to the timeline.
    pub href: String,
    /// The file name (valid names are plain ASCII).
    pub name: String,
    /// The question, shown.
    pub question: String,
    /// `2026-11-25 14:04 UTC`.
    pub started: String,
    /// Model id, shown.
    pub model: String,
    /// `sufficient`, `insufficient`, `absent`, or `—`.
    pub verdict: String,
    /// Model calls.
    pub calls: u32,
    /// Prompt + completion tokens.
    pub tokens: u64,
    /// `cut at line N`, `failed: …`, `unreadable: …`, or empty.
    pub note: String,
    /// File size.
    pub size: String,
}

#[derive(Template)]
#[template(path = "traces.html")]
struct TracesPage {
    active: &'static str,
    filter: String,
    total: usize,
    rows: Vec<TraceRow>,
}

/// `?q=` filters the list.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    q: String,
}

/// `GET /traces`.
pub async fn list_page(State(state): State<AppState>, Query(q): Query<ListQuery>) -> Response {
    let opened = match state.opened().await {
        Ok(o) => o,
        Err(e) => return api_error_page(&e),
    };
    let filter = q.q.clone();
    let state2 = state.clone();
    let listed = state
        .blocking(move || {
            let dir = opened.workspace.traces_dir();
            Ok((
                state2.traces.list(&dir, "").len(),
                state2.traces.list(&dir, &q.q),
            ))
        })
        .await;
    let (total, traces) = match listed {
        Ok(l) => l,
        Err(e) => return api_error_page(&e),
    };
    let rows = traces
        .into_iter()
        .map(|t| TraceRow {
            href: format!("/trace/{}", segment(&t.name)),
            note: match (&t.unreadable, t.truncated_at_line, &t.error) {
                (Some(why), _, _) => shown(&format!("unreadable: {why}")),
                (None, Some(line), _) => format!("cut at line {line}"),
                (None, None, Some(e)) => shown(&format!("failed: {e}")),
                _ => String::new(),
            },
            name: t.name,
            question: shown(&t.question),
            started: t.started,
            model: shown(&t.model),
            verdict: t.verdict.unwrap_or_else(|| "—".into()),
            calls: t.calls,
            tokens: t.prompt_tokens + t.completion_tokens,
            size: human_bytes(t.bytes),
        })
        .collect();
    render_page(&TracesPage {
        active: "traces",
        filter,
        total,
        rows,
    })
}

impl LaneView {
    /// Link to the lane's document in the Reader.
    pub fn doc_href(&self) -> String {
        format!("/doc/{}/", segment(&self.doc))
    }
}

#[derive(Template)]
#[template(path = "trace.html")]
struct TracePage {
    active: &'static str,
    views: Vec<TimelineView>,
    compare: bool,
    /// [`PAGE_STEPS`], named in the bound's note.
    page_steps: usize,
}

/// `?compare=OTHER` shows another trace beside this one.
#[derive(Debug, Deserialize)]
pub struct TraceQuery {
    compare: Option<String>,
}

/// `GET /trace/{name}`.
pub async fn trace_page(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<TraceQuery>,
) -> Response {
    let opened = match state.opened().await {
        Ok(o) => o,
        Err(e) => return api_error_page(&e),
    };
    let built = state
        .blocking(move || {
            let dir = opened.workspace.traces_dir();
            // Each trace is read only as far as a page shows ([`PageBounds`]).
            let view = |name: &str| -> Result<TimelineView, crate::serve::error::ApiError> {
                let page = load_page(&dir, name, PageBounds::default())?;
                let mut view = timeline(name, &page.trace);
                view.unread_events = page.unread_events;
                Ok(view)
            };
            let mut views = vec![view(&name)?];
            if let Some(other) = q.compare.filter(|o| !o.is_empty()) {
                views.push(view(&other)?);
            }
            Ok(views)
        })
        .await;
    match built {
        Ok(views) => render_page(&TracePage {
            active: "traces",
            compare: views.len() > 1,
            views,
            page_steps: PAGE_STEPS,
        }),
        Err(e) => api_error_page(&e),
    }
}
