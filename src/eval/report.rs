//! The `docnav eval` table for people, and the report folder (`eval --out DIR`) for tools.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::run::{EvalReport, Status};

/// Longest question shown in the table, in chars (longer ones end with `…`).
const QUESTION_CHARS: usize = 60;

fn rank(r: Option<usize>) -> String {
    r.map_or_else(|| "-".to_string(), |r| r.to_string())
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// Render a report: one row per line of the set (`LINE SEC ANS CHARS CALLS TOKENS MS QUESTION`,
/// where SEC/ANS are the 1-based ranks of the first section/answer hit or `-`; data and
/// navigator errors show `ERR`/`FAIL` and the message), then the summary lines (hit@1/3/5 and
/// MRR as fractions, median ms, model calls and tokens, mean evidence chars).
pub fn render_table(report: &EvalReport) -> String {
    let mut out = String::from("LINE  SEC  ANS   CHARS  CALLS   TOKENS       MS  QUESTION\n");
    for q in &report.questions {
        match q.status {
            Status::DataError => {
                let _ = writeln!(
                    out,
                    "{:>4}  ERR  {}",
                    q.line,
                    q.error.as_deref().unwrap_or_default()
                );
            }
            Status::NavError => {
                let _ = writeln!(
                    out,
                    "{:>4}  FAIL {}  ({})",
                    q.line,
                    shorten(&q.question, QUESTION_CHARS),
                    q.error.as_deref().unwrap_or_default()
                );
            }
            Status::Ok => {
                let _ = writeln!(
                    out,
                    "{:>4}  {:>3}  {:>3}  {:>6}  {:>5}  {:>7}  {:>7.2}  {}",
                    q.line,
                    rank(q.section_rank),
                    rank(q.answer_rank),
                    q.evidence_chars,
                    q.llm_calls,
                    q.prompt_tokens + q.completion_tokens,
                    q.wall_ms,
                    shorten(&q.question, QUESTION_CHARS)
                );
            }
        }
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "\n{} questions scored, {} data errors, {} navigator errors",
        s.n, s.data_errors, s.nav_errors
    );
    let _ = writeln!(
        out,
        "section hit@1 {:.3}  hit@3 {:.3}  hit@5 {:.3}  MRR {:.3}",
        s.section_hit_at_1, s.section_hit_at_3, s.section_hit_at_5, s.mrr
    );
    let _ = writeln!(
        out,
        "answer  hit@1 {:.3}  hit@3 {:.3}  hit@5 {:.3}",
        s.answer_hit_at_1, s.answer_hit_at_3, s.answer_hit_at_5
    );
    let _ = writeln!(
        out,
        "median {:.2} ms/question · {} model calls · {} prompt + {} completion tokens · {:.0} evidence chars/question",
        s.median_ms, s.llm_calls, s.prompt_tokens, s.completion_tokens, s.mean_evidence_chars
    );
    out
}

/// A file or folder of an eval's output folder that could not be written; the message names it
/// (`cannot write `DIR/report.json``), the source says why.
#[derive(Debug, thiserror::Error)]
#[error("{what} `{}`", path.display())]
pub struct WriteError {
    /// What failed: `cannot create output folder` or `cannot write`.
    pub what: &'static str,
    /// The folder or file.
    pub path: PathBuf,
    /// The OS error.
    #[source]
    pub source: std::io::Error,
}

/// Write `report` into the folder `dir` (created with its parents if missing): `report.json`,
/// the report as `eval --json` prints it, and each question's trace, when its navigator
/// recorded one, as `line-N.trace.jsonl` (N the question's line in the set). Existing files of
/// those names are overwritten.
///
/// Errors: the folder cannot be created or a file written; files written before it stay.
pub fn write_folder(dir: &Path, report: &EvalReport) -> Result<(), WriteError> {
    std::fs::create_dir_all(dir).map_err(|source| WriteError {
        what: "cannot create output folder",
        path: dir.to_path_buf(),
        source,
    })?;
    let write = |name: String, body: &str| {
        let path = dir.join(name);
        std::fs::write(&path, body).map_err(|source| WriteError {
            what: "cannot write",
            path,
            source,
        })
    };
    let json = serde_json::to_string_pretty(report).map_err(|e| WriteError {
        what: "cannot write",
        path: dir.join("report.json"),
        source: std::io::Error::other(e),
    })? + "\n";
    write("report.json".into(), &json)?;
    for q in &report.questions {
        if let Some(trace) = &q.trace {
            write(format!("line-{}.trace.jsonl", q.line), trace)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_questions_are_cut_on_char_boundaries() {
        let q = "設定ファイルはどこに置きますか".repeat(10);
        let s = shorten(&q, 10);
        assert_eq!(s.chars().count(), 10);
        assert!(s.ends_with('…'));
        assert_eq!(shorten("short", 10), "short");
    }
}
