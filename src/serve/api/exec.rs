//! `POST /exec`: one command of the navigation language (`ls`, `cat`, `grep`, `find`…) run from
//! `cwd` on a fresh session, as `docnav exec` runs it: the output is the same text.

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};

use super::ApiJson;
use crate::nav::lexer::quote_word;
use crate::serve::error::ApiError;
use crate::serve::state::AppState;

/// Longest command line, in chars.
pub const MAX_COMMAND_CHARS: usize = 4_000;

/// Most chars of one output (`budget`).
pub const MAX_BUDGET: usize = 200_000;

/// The request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecRequest {
    /// One command line, e.g. `grep -i 'exit status' /bashref`.
    pub command: String,
    /// Where to run it (default `/`).
    #[serde(default = "root")]
    pub cwd: String,
    /// Output budget in chars (default the shell's, 4,000).
    pub budget: Option<usize>,
}

fn root() -> String {
    "/".into()
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct ExecResponse {
    /// The command's output, as `docnav exec` prints it.
    pub output: String,
    /// `false` when the command reported an error (the output says which and what to try).
    pub ok: bool,
    /// The directory after the command (`cd` moves it).
    pub cwd: String,
}

/// `POST /api/v1/exec` with `{"command": "ls /", "cwd": "/"}`.
///
/// Errors: 400 for an empty or too long command, a bad `budget`, or a `cwd` that does not
/// resolve; 503 without a workspace. A command that reports an error is `ok: false`, not an
/// HTTP error: the output is the shell's message.
pub async fn exec(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ExecRequest>,
) -> Result<Json<ExecResponse>, ApiError> {
    if req.command.trim().is_empty() {
        return Err(ApiError::bad_request("the command is empty (try `help`)"));
    }
    if req.command.chars().count() > MAX_COMMAND_CHARS {
        return Err(ApiError::bad_request(format!(
            "the command is over {MAX_COMMAND_CHARS} chars"
        )));
    }
    let budget = match req.budget {
        Some(b) if b == 0 || b > MAX_BUDGET => {
            return Err(ApiError::bad_request(format!(
                "budget must be 1 to {MAX_BUDGET} chars, not {b}"
            )))
        }
        other => other,
    };
    let opened = state.opened().await?;
    let answer = state
        .blocking(move || {
            let mut session = opened.session.clone();
            if let Some(b) = budget {
                session = session.with_budget(b);
            }
            let internal = ApiError::from_nav;
            if req.cwd != "/" {
                let moved = session
                    .execute(&format!("cd {}", quote_word(&req.cwd)))
                    .map_err(internal)?;
                if !moved.is_ok() {
                    return Err(ApiError::bad_request(format!("cwd: {}", moved.text)));
                }
            }
            let out = session.execute(&req.command).map_err(internal)?;
            Ok(ExecResponse {
                ok: out.is_ok(),
                output: out.text,
                cwd: session.pwd().map_err(internal)?,
            })
        })
        .await?;
    Ok(Json(answer))
}
