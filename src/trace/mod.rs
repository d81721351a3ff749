//! Traces (DESIGN.md §7): every `ask` can be recorded as JSONL — a header line, then one
//! [`EventRecord`] per line — and replayed without a model ([`replay`]) or shown as a readable
//! transcript ([`show`]). A workspace's `traces/` is listed, read a page at a time and added to
//! by upload through [`folder`]; a trace is laid out as a timeline for display by [`timeline`].
//!
//! Format version 4. Line 1: `{"type":"header","format_version":4,…}`. Then one event per line:
//! `{"actor":"r1-w1-guide","seq":3,"type":"command","line":"ls"}`. Events carry the actor id and a
//! per-actor sequence number, so replay does not depend on task scheduling. Observations are cut to
//! [`crate::agent::events::OBSERVATION_EVENT_CHARS`] chars with their full length and sha256 kept.
//! A model call is a `model_request` written when it is sent, then its `model_response` (usage,
//! latency) or `model_error`; a request with neither after it was in flight when the recording
//! stopped. API keys and HTTP headers never enter a trace: events hold only messages and replies.
//!
//! Version 4: the same events; a header of a workspace of more than
//! [`LISTED_DOCUMENTS_MAX`] documents has `catalog` (a count and a digest) and no `documents`
//! list, and a follow-up's header carries the conversation `memory`. Version 3 recordings replay
//! as before.
//!
//! Version 3: the same events; the decisions changed shape — `analyze` also carries
//! the understanding (`intent`, `key_concepts`, `strategy`), `plan` its first `command`,
//! `check` and `evaluate` a three-way `verdict` (sufficient / insufficient / absent) instead of
//! `sufficient: bool`, `evaluate` the next round's `tasks` (no separate `replan` call) — and the
//! prompts differ, so a recording is replayed only by the version that wrote it.
//!
//! Older versions are still read and shown (`docnav replay --show` renders their decisions):
//! version 2 (separate `understand`, `plan`, `replan` calls; `sufficient: bool` verdicts) and
//! version 1 (before `model_error`: a request and its response were written together once the
//! reply had arrived, a failed call left no request). Re-running them is refused
//! ([`REPLAY_FORMAT_VERSION`]). Other versions are refused with a message naming both.

pub mod cache;
pub mod diff;
pub mod folder;
pub mod record;
pub mod replay;
pub mod show;
pub mod timeline;
pub mod writer;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent::EventRecord;

pub use writer::TraceWriter;

/// Trace format version written by this build.
pub const TRACE_FORMAT_VERSION: u32 = 4;

/// A workspace of more documents than this is recorded in a trace header by a digest of its
/// catalog ([`CatalogDigest`]) instead of one entry per document: the list grows every header
/// with the catalog (1.3 MB at 10,000 documents), and every `ask` is recorded.
pub const LISTED_DOCUMENTS_MAX: usize = 500;

/// The oldest format version this build re-runs with `docnav replay`: older recordings were made
/// with other prompts and decisions, so only `--show` reads them.
pub const REPLAY_FORMAT_VERSION: u32 = 3;

/// The oldest format version this build reads (up to [`TRACE_FORMAT_VERSION`]).
pub const OLDEST_READ_FORMAT_VERSION: u32 = 1;

/// A document involved in the run and its fingerprint (sha256 of the source bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocFingerprint {
    /// Document id.
    pub doc_id: String,
    /// sha256 hex of the source when indexed.
    pub fingerprint: String,
}

/// The catalog a run saw, when it is too large to list document by document
/// ([`LISTED_DOCUMENTS_MAX`]): [`crate::workspace::Library::catalog_digest`].
pub use crate::workspace::CatalogDigest;

/// The first line of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceHeader {
    /// [`TRACE_FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// docnav version of the writer.
    pub docnav_version: String,
    /// The question asked.
    pub question: String,
    /// Model id (`replay` when recorded from a replay).
    pub model: String,
    /// The agent options, as JSON (`max_steps`, `rounds`, `doc_ids`, …).
    pub options: serde_json::Value,
    /// Every document of the workspace at recording time with its fingerprint — empty when the
    /// workspace held more than [`LISTED_DOCUMENTS_MAX`]; then `catalog` describes it.
    pub documents: Vec<DocFingerprint>,
    /// The catalog's size and digest, for a workspace too large to list (format version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<CatalogDigest>,
    /// Unix time of the start, ms.
    pub started_unix_ms: u64,
    /// The conversation memory the question was asked in (a follow-up in the shell), oldest
    /// turn first: replay rewrites the question from it again. Absent for a question asked on
    /// its own, so such traces keep the header of format version 3 as it was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<crate::agent::followup::Turn>,
    /// The shard workspaces of a catalog split into shards, in shard order (each Worker's
    /// `worker_started` event names the shard it ran in); absent for one workspace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<String>,
}

/// Milliseconds since the Unix epoch now (0 if the clock is before it): a run's start time in
/// its trace header and file name.
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0))
}

impl TraceHeader {
    /// The header of a run over `library` (every document's fingerprint, or past
    /// [`LISTED_DOCUMENTS_MAX`] documents the catalog's digest), started at `unix_ms`.
    pub fn for_run(
        library: &dyn crate::workspace::Library,
        question: &str,
        model: &str,
        options: &crate::agent::AgentOptions,
        unix_ms: u64,
    ) -> TraceHeader {
        let listed = library.document_count() <= LISTED_DOCUMENTS_MAX;
        TraceHeader {
            format_version: TRACE_FORMAT_VERSION,
            docnav_version: env!("CARGO_PKG_VERSION").to_string(),
            question: question.to_string(),
            model: model.to_string(),
            options: serde_json::to_value(options).unwrap_or_default(),
            documents: if listed {
                library
                    .cards_page(0, LISTED_DOCUMENTS_MAX)
                    .iter()
                    .map(|c| DocFingerprint {
                        doc_id: c.doc_id.clone(),
                        fingerprint: c.fingerprint.clone(),
                    })
                    .collect()
            } else {
                Vec::new()
            },
            catalog: (!listed).then(|| library.catalog_digest()),
            started_unix_ms: unix_ms,
            memory: Vec::new(),
            shards: Vec::new(),
        }
    }

    /// This header with the shard layout of a catalog split into shards: the shard
    /// workspaces, in shard order.
    pub fn with_shards(mut self, shards: Vec<String>) -> TraceHeader {
        self.shards = shards;
        self
    }

    /// How many documents the workspace held when the run was recorded.
    pub fn document_count(&self) -> usize {
        self.catalog
            .as_ref()
            .map_or(self.documents.len(), |c| c.documents)
    }

    /// This header with the conversation memory the question is asked in.
    pub fn with_memory(mut self, memory: &[crate::agent::followup::Turn]) -> TraceHeader {
        self.memory = memory.to_vec();
        self
    }

    /// The whole trace as JSONL text: this header, then one line per event.
    pub fn to_jsonl(&self, events: &[EventRecord]) -> String {
        let mut out = header_line(self);
        out.push('\n');
        for e in events {
            out.push_str(&serde_json::to_string(e).unwrap_or_default());
            out.push('\n');
        }
        out
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename = "header")]
struct HeaderLine {
    #[serde(flatten)]
    header: TraceHeader,
}

/// Trace reading failures; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be read or written.
    #[error("trace `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The first line is not a trace header.
    #[error("`{path}` is not a docnav trace: {reason}")]
    NotATrace {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The trace was written in a format version this build does not read.
    #[error(
        "trace `{path}` has format version {found}; this docnav reads format versions {oldest} \
         to {expected} (hint: {})",
        if .found > .expected { "it was written by a newer docnav; read it with that version" }
        else { "re-record it with this docnav" }
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// The oldest version this build reads ([`OLDEST_READ_FORMAT_VERSION`]).
        oldest: u32,
        /// The version this build writes and the newest it reads ([`TRACE_FORMAT_VERSION`]).
        expected: u32,
    },
    /// A line in the middle of the trace is not an event.
    #[error("trace `{path}` line {line}: {reason}")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The parse error.
        reason: String,
    },
}

/// A trace read from disk.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The header.
    pub header: TraceHeader,
    /// Events in file order.
    pub events: Vec<EventRecord>,
    /// Set when the last line was cut (a crash or Ctrl-C while writing): the 1-based line number.
    pub truncated_at_line: Option<usize>,
}

/// Serialize the header line (no newline).
pub fn header_line(header: &TraceHeader) -> String {
    serde_json::to_string(&HeaderLine {
        header: header.clone(),
    })
    .unwrap_or_default()
}

/// Read a trace. A last line that does not parse (cut mid-write) is dropped and reported in
/// [`Trace::truncated_at_line`]; a bad line elsewhere is an error.
///
/// Errors: [`TraceError`] naming the file: unreadable, not a trace, a format version outside
/// [`OLDEST_READ_FORMAT_VERSION`]..=[`TRACE_FORMAT_VERSION`], bad line.
pub fn read_trace(path: &Path) -> Result<Trace, TraceError> {
    let text = std::fs::read_to_string(path).map_err(|source| TraceError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_trace(path, &text)
}

/// Parse trace text; `path` is used in messages. See [`read_trace`].
pub fn parse_trace(path: &Path, text: &str) -> Result<Trace, TraceError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(TraceError::NotATrace {
            path: path.to_path_buf(),
            reason: "the file is empty".into(),
        });
    };
    let raw: serde_json::Value =
        serde_json::from_str(first).map_err(|e| TraceError::NotATrace {
            path: path.to_path_buf(),
            reason: format!("line 1 is not JSON: {e}"),
        })?;
    if raw.get("type").and_then(|t| t.as_str()) != Some("header") {
        return Err(TraceError::NotATrace {
            path: path.to_path_buf(),
            reason: "line 1 is not a header".into(),
        });
    }
    let found = raw
        .get("format_version")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    if !(u64::from(OLDEST_READ_FORMAT_VERSION)..=u64::from(TRACE_FORMAT_VERSION)).contains(&found) {
        return Err(TraceError::Version {
            path: path.to_path_buf(),
            found: u32::try_from(found).unwrap_or(u32::MAX),
            oldest: OLDEST_READ_FORMAT_VERSION,
            expected: TRACE_FORMAT_VERSION,
        });
    }
    let header: HeaderLine = serde_json::from_value(raw).map_err(|e| TraceError::NotATrace {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let rest: Vec<(usize, &str)> = lines.collect();
    let mut events = Vec::new();
    let mut truncated_at_line = None;
    let ends_with_newline = text.ends_with('\n');
    for (k, (i, line)) in rest.iter().enumerate() {
        match serde_json::from_str::<EventRecord>(line) {
            Ok(e) => events.push(e),
            Err(e) => {
                let last = k + 1 == rest.len();
                if last && !ends_with_newline {
                    truncated_at_line = Some(i + 1);
                } else {
                    return Err(TraceError::BadLine {
                        path: path.to_path_buf(),
                        line: i + 1,
                        reason: e.to_string(),
                    });
                }
            }
        }
    }
    Ok(Trace {
        header: header.header,
        events,
        truncated_at_line,
    })
}

/// A file name for `DOCNAV_TRACE_DIR`: `20261122T140431Z-how-do-i-rename-a-file.jsonl`.
pub fn trace_file_name(unix_ms: u64, question: &str) -> String {
    let secs = unix_ms / 1000;
    let (y, mo, d, h, mi, s) = civil_from_unix(secs);
    let mut slug = crate::workspace::slugify(question);
    if slug.chars().count() > 48 {
        slug = slug
            .chars()
            .take(48)
            .collect::<String>()
            .trim_end_matches('-')
            .to_string();
    }
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z-{slug}.jsonl")
}

/// `2026-11-25 14:04 UTC` for `unix_ms`, ms since the Unix epoch: when a run was recorded, as
/// the trace list and a reused answer show it.
pub fn utc_minute(unix_ms: u64) -> String {
    let (y, mo, d, h, mi, _) = civil_from_unix(unix_ms / 1000);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02} UTC")
}

/// UTC calendar time of a Unix timestamp (Howard Hinnant's `civil_from_days` algorithm).
fn civil_from_unix(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    let h = u32::try_from(rem / 3600).unwrap_or(0);
    let mi = u32::try_from(rem % 3600 / 60).unwrap_or(0);
    let s = u32::try_from(rem % 60).unwrap_or(0);
    (y, m, d, h, mi, s)
}

#[cfg(test)]
mod tests;
