//! A workspace's `traces/` folder as a face lists and opens it: names checked before any file
//! is touched ([`trace_path`]), one summary per file (question, date, model, verdict, calls,
//! tokens) cached by modification time and length ([`TraceCatalog`]), a trace read only as far
//! as one page shows ([`load_page`]), and uploads written atomically and bounded in number and
//! bytes ([`UploadLimits`]: the oldest uploads go first, recorded runs never).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde::Serialize;

use crate::agent::events::ORCHESTRATOR;
use crate::agent::steps::DecisionKind;
use crate::agent::AgentEvent;
pub use crate::trace::utc_minute;
use crate::trace::{parse_trace, read_trace, Trace};

/// Why a trace of the folder could not be named, read or stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FolderError {
    /// A name [`valid_name`] refuses (its first 80 chars).
    #[error(
        "bad trace name '{0}': names are letters, digits, `.`, `_` and `-`, ending in `.jsonl`"
    )]
    BadName(String),
    /// No regular file has the name.
    #[error("no trace `{0}` in this workspace")]
    NotFound(String),
    /// The file is not a trace this build reads (why, with the file and line).
    #[error("{0}")]
    Unreadable(String),
    /// An upload is not a trace this build reads (the parse error, naming the line).
    #[error("{0}")]
    BadUpload(String),
    /// The folder or the file could not be written.
    #[error("{0}")]
    Write(String),
}

/// Longest trace name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 200;

/// Whether `name` may name a trace file: ASCII letters, digits, `.`, `_`, `-`, not starting with
/// `.` or `-`, ending `.jsonl`, no `..`, at most [`MAX_NAME_BYTES`]. Nothing else (no `/`, no
/// `\`, no NUL, no percent-escapes) can reach the file system.
pub fn valid_name(name: &str) -> bool {
    name.len() <= MAX_NAME_BYTES
        && name.ends_with(".jsonl")
        && name.len() > ".jsonl".len()
        && !name.starts_with(['.', '-'])
        && !name.contains("..")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The file of trace `name` in `dir` (the workspace's `traces/`).
///
/// Errors: [`FolderError::BadName`] for a name [`valid_name`] refuses;
/// [`FolderError::NotFound`] when no regular file has that name (a symbolic link is not
/// followed out of the directory).
pub fn trace_path(dir: &Path, name: &str) -> Result<PathBuf, FolderError> {
    if !valid_name(name) {
        return Err(FolderError::BadName(name.chars().take(80).collect()));
    }
    let path = dir.join(name);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_file() => Ok(path),
        _ => Err(FolderError::NotFound(name.to_string())),
    }
}

/// One trace file, summarised.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceSummary {
    /// File name in `traces/`.
    pub name: String,
    /// The question.
    pub question: String,
    /// Start of the run, ms since the Unix epoch.
    pub started_unix_ms: u64,
    /// Start of the run, `2026-11-25 14:04 UTC`.
    pub started: String,
    /// The model id.
    pub model: String,
    /// The final verdict (`sufficient`, `insufficient`, `absent`), `null` when the run did not
    /// get that far.
    pub verdict: Option<String>,
    /// Model calls sent.
    pub calls: u32,
    /// Prompt tokens over the calls that answered.
    pub prompt_tokens: u64,
    /// Completion tokens over the calls that answered.
    pub completion_tokens: u64,
    /// Events after the header.
    pub events: usize,
    /// Set when the last line was cut (a crash while writing): its line number.
    pub truncated_at_line: Option<usize>,
    /// The run's error (the orchestrator's last event), if it failed.
    pub error: Option<String>,
    /// Why the file could not be read as a trace (then the other fields are empty).
    pub unreadable: Option<String>,
    /// File size in bytes.
    pub bytes: u64,
}

impl TraceSummary {
    /// The summary of `trace`, read from a file `name` of `bytes` bytes.
    pub fn of(name: &str, trace: &Trace, bytes: u64) -> TraceSummary {
        let mut calls = 0;
        let mut prompt_tokens = 0;
        let mut completion_tokens = 0;
        let mut verdict = None;
        let mut last_orchestrator: Option<(u64, &AgentEvent)> = None;
        for e in &trace.events {
            match &e.event {
                AgentEvent::ModelRequest { .. } => calls += 1,
                AgentEvent::ModelResponse { usage, .. } => {
                    prompt_tokens += usage.prompt_tokens;
                    completion_tokens += usage.completion_tokens;
                }
                AgentEvent::Decision { kind, value }
                    if DecisionKind::of(kind) == DecisionKind::Verdict =>
                {
                    verdict = value
                        .get("verdict")
                        .and_then(|v| v.as_str())
                        .map(str::to_string);
                }
                _ => {}
            }
            if e.actor == ORCHESTRATOR && last_orchestrator.is_none_or(|(s, _)| e.seq >= s) {
                last_orchestrator = Some((e.seq, &e.event));
            }
        }
        let error = match last_orchestrator {
            Some((_, AgentEvent::Error { message })) => Some(message.clone()),
            _ => None,
        };
        TraceSummary {
            name: name.to_string(),
            question: trace.header.question.clone(),
            started_unix_ms: trace.header.started_unix_ms,
            started: utc_minute(trace.header.started_unix_ms),
            model: trace.header.model.clone(),
            verdict,
            calls,
            prompt_tokens,
            completion_tokens,
            events: trace.events.len(),
            truncated_at_line: trace.truncated_at_line,
            error,
            unreadable: None,
            bytes,
        }
    }

    fn unreadable(name: &str, why: String, bytes: u64) -> TraceSummary {
        TraceSummary {
            name: name.to_string(),
            question: String::new(),
            started_unix_ms: 0,
            started: String::new(),
            model: String::new(),
            verdict: None,
            calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            events: 0,
            truncated_at_line: None,
            error: None,
            unreadable: Some(why),
            bytes,
        }
    }

    /// Whether `needle` (lowercase) occurs in the name, question, model or verdict.
    pub fn matches(&self, needle: &str) -> bool {
        needle.is_empty()
            || [
                self.name.as_str(),
                self.question.as_str(),
                self.model.as_str(),
                self.verdict.as_deref().unwrap_or(""),
            ]
            .iter()
            .any(|field| field.to_lowercase().contains(needle))
    }
}

type Stamp = (Option<SystemTime>, u64);

/// Summaries of the files in `traces/`, each read once per version of the file.
#[derive(Debug, Default)]
pub struct TraceCatalog {
    cache: Mutex<HashMap<String, (Stamp, TraceSummary)>>,
}

impl TraceCatalog {
    /// Every trace in `dir`, newest first, whose summary [`TraceSummary::matches`] `filter`
    /// (case-insensitive). A missing directory is an empty list; a file that is not a trace is
    /// listed with [`field@TraceSummary::unreadable`] set.
    pub fn list(&self, dir: &Path, filter: &str) -> Vec<TraceSummary> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let needle = filter.trim().to_lowercase();
        let mut seen = Vec::new();
        let mut out = Vec::new();
        let mut cache = match self.cache.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !valid_name(&name) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let stamp = (meta.modified().ok(), meta.len());
            let summary = match cache.get(&name) {
                Some((s, summary)) if *s == stamp => summary.clone(),
                _ => {
                    let summary = match read_trace(&entry.path()) {
                        Ok(trace) => TraceSummary::of(&name, &trace, meta.len()),
                        Err(e) => TraceSummary::unreadable(&name, e.to_string(), meta.len()),
                    };
                    cache.insert(name.clone(), (stamp, summary.clone()));
                    summary
                }
            };
            seen.push(name);
            if summary.matches(&needle) {
                out.push(summary);
            }
        }
        cache.retain(|name, _| seen.contains(name));
        out.sort_by(|a, b| {
            b.started_unix_ms
                .cmp(&a.started_unix_ms)
                .then_with(|| a.name.cmp(&b.name))
        });
        out
    }
}

/// Read trace `name` from `dir`.
///
/// Errors: as [`trace_path`]; [`FolderError::Unreadable`] for a file that is not a trace this
/// build reads.
pub fn load(dir: &Path, name: &str) -> Result<Trace, FolderError> {
    let path = trace_path(dir, name)?;
    read_trace(&path).map_err(|e| FolderError::Unreadable(e.to_string()))
}

/// Steps one timeline shows, Orchestrator and Workers together; later ones are counted only.
pub const PAGE_STEPS: usize = 2_000;

/// How much of a trace file one timeline page reads: the page's memory is bounded by these,
/// whatever the file's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageBounds {
    /// Events read at most (more than a page shows: the rest are counted, not parsed).
    pub events: usize,
    /// Bytes of event lines read at most.
    pub bytes: usize,
    /// Bytes of one line at most; a longer line ends the reading there.
    pub line_bytes: usize,
}

impl Default for PageBounds {
    /// [`PAGE_STEPS`] events, 8 MiB, 2 MiB a line.
    fn default() -> Self {
        PageBounds {
            events: PAGE_STEPS,
            bytes: 8 << 20,
            line_bytes: 2 << 20,
        }
    }
}

/// The start of a trace, read for one page.
#[derive(Debug)]
pub struct TracePage {
    /// The header and the events read (`truncated_at_line` set only when the last line of the
    /// file was reached and was cut).
    pub trace: Trace,
    /// Events after those read, counted (non-empty lines) but not parsed.
    pub unread_events: usize,
}

/// Trace `name` of `dir` read line by line for a page: the header, then events up to `bounds`
/// (the rest counted by streaming through the file in fixed-size chunks), so the memory one
/// view takes is bounded by `bounds`, not by the file.
///
/// Errors: as [`load`] (a bad line before the bound is an error as there; a line after it is
/// not read).
pub fn load_page(dir: &Path, name: &str, bounds: PageBounds) -> Result<TracePage, FolderError> {
    use std::io::{BufRead, BufReader, Read};

    let path = trace_path(dir, name)?;
    let unreadable =
        |e: String| FolderError::Unreadable(format!("trace `{}`: {e}", path.display()));
    let file = std::fs::File::open(&path).map_err(|e| unreadable(e.to_string()))?;
    let mut reader = BufReader::new(file);
    // One line into `buf`, at most `limit` bytes of it: (bytes read, whether it ended with a
    // newline, whether it was longer than the limit).
    fn read_line(
        reader: &mut impl BufRead,
        buf: &mut Vec<u8>,
        limit: usize,
    ) -> std::io::Result<(usize, bool, bool)> {
        buf.clear();
        let n = reader
            .by_ref()
            .take(limit as u64 + 1)
            .read_until(b'\n', buf)?;
        let newline = buf.last() == Some(&b'\n');
        Ok((n, newline, !newline && n > limit))
    }
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    // The header: the first non-empty line.
    let header = loop {
        let (n, _, long) = read_line(&mut reader, &mut buf, bounds.line_bytes)
            .map_err(|e| unreadable(e.to_string()))?;
        line_no += 1;
        if long {
            return Err(unreadable(format!(
                "its header line is over {} bytes",
                bounds.line_bytes
            )));
        }
        if n == 0 || !buf.trim_ascii().is_empty() {
            break String::from_utf8_lossy(&buf).into_owned();
        }
    };
    let mut trace =
        parse_trace(&path, &header).map_err(|e| FolderError::Unreadable(e.to_string()))?;
    let mut read_bytes = 0usize;
    let mut stopped = false;
    loop {
        if trace.events.len() >= bounds.events || read_bytes >= bounds.bytes {
            stopped = true;
            break;
        }
        let (n, newline, long) = read_line(&mut reader, &mut buf, bounds.line_bytes)
            .map_err(|e| unreadable(e.to_string()))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        read_bytes += n;
        if long {
            // This event and the rest are counted, not read: the line's tail is skipped first.
            let rest = skip_line(&mut reader)
                .and_then(|()| count_lines(&mut reader))
                .map_err(|e| unreadable(e.to_string()))?;
            return Ok(TracePage {
                trace,
                unread_events: 1 + rest,
            });
        }
        if buf.trim_ascii().is_empty() {
            continue;
        }
        match serde_json::from_slice::<crate::agent::EventRecord>(&buf) {
            Ok(e) => trace.events.push(e),
            Err(_) if !newline => trace.truncated_at_line = Some(line_no),
            Err(e) => {
                return Err(FolderError::Unreadable(format!(
                    "trace `{}` line {line_no}: {e}",
                    path.display()
                )))
            }
        }
    }
    let unread_events = if stopped {
        count_lines(&mut reader).map_err(|e| unreadable(e.to_string()))?
    } else {
        0
    };
    Ok(TracePage {
        trace,
        unread_events,
    })
}

/// Skips `reader` past the next newline (or to its end), in fixed-size chunks.
fn skip_line(reader: &mut impl std::io::BufRead) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
}

/// Non-empty lines left in `reader`, read in fixed-size chunks (a line with only spaces counts:
/// a trace has none).
fn count_lines(reader: &mut impl std::io::BufRead) -> std::io::Result<usize> {
    let mut lines = 0;
    let mut in_line = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(lines + usize::from(in_line));
        }
        for &b in chunk {
            if b == b'\n' {
                lines += usize::from(in_line);
                in_line = false;
            } else {
                in_line = true;
            }
        }
        let n = chunk.len();
        reader.consume(n);
    }
}

/// The default of `docnav serve --max-uploads`.
pub const DEFAULT_MAX_UPLOADS: usize = 100;

/// Bytes all uploaded traces of a workspace may take together: 16 uploads at the size limit.
pub const MAX_UPLOADS_BYTES: u64 = 256 * 1024 * 1024;

/// How many uploaded traces a workspace keeps and how many bytes they may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadLimits {
    /// Uploads kept at most.
    pub max_count: usize,
    /// Bytes of all uploads together, at most.
    pub max_bytes: u64,
}

impl Default for UploadLimits {
    fn default() -> Self {
        UploadLimits {
            max_count: DEFAULT_MAX_UPLOADS,
            max_bytes: MAX_UPLOADS_BYTES,
        }
    }
}

/// Store `text`, an uploaded trace, in `dir` under a new name (`upload-` + the recorded start and
/// question + 8 hex digits of its sha256, so the same upload twice gets the same name) and
/// return the name. The file is written atomically (temp file, fsync, rename); then the oldest
/// uploads are removed until `limits` hold ([`prune_uploads`]).
///
/// Errors: [`FolderError::BadUpload`] when `text` is not a trace this build reads (the parse
/// error names the line); [`FolderError::Write`] when the file cannot be written.
pub fn store_upload(dir: &Path, text: &str, limits: UploadLimits) -> Result<String, FolderError> {
    let trace = parse_trace(Path::new("upload"), text)
        .map_err(|e| FolderError::BadUpload(e.to_string()))?;
    let hash = crate::digest::sha256_hex(text.as_bytes());
    let base = crate::trace::trace_file_name(trace.header.started_unix_ms, &trace.header.question);
    let stem = base.trim_end_matches(".jsonl");
    let name = format!("upload-{stem}-{}.jsonl", &hash[..8]);
    std::fs::create_dir_all(dir)
        .map_err(|e| FolderError::Write(format!("cannot create `{}`: {e}", dir.display())))?;
    let path = dir.join(&name);
    crate::workspace::write_atomic(&path, text.as_bytes())
        .map_err(|e| FolderError::Write(format!("cannot write `{}`: {e}", path.display())))?;
    prune_uploads(dir, &name, limits);
    Ok(name)
}

/// Remove uploaded traces (`upload-*.jsonl`) from `dir`, oldest first (by modification time,
/// then name), until at most `limits.max_count` remain and they take at most
/// `limits.max_bytes`. `keep` (the upload just stored) and recorded runs are never removed.
/// Returns the names removed; a file that cannot be removed is logged and skipped.
pub fn prune_uploads(dir: &Path, keep: &str, limits: UploadLimits) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut uploads: Vec<(SystemTime, String, u64)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let meta = e.metadata().ok()?;
            (name.starts_with("upload-") && valid_name(&name) && meta.is_file()).then(|| {
                (
                    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    name,
                    meta.len(),
                )
            })
        })
        .collect();
    uploads.sort();
    let mut count = uploads.len();
    let mut bytes: u64 = uploads.iter().map(|(_, _, len)| len).sum();
    let mut removed = Vec::new();
    for (_, name, len) in uploads {
        if count <= limits.max_count && bytes <= limits.max_bytes {
            break;
        }
        if name == keep {
            continue;
        }
        match std::fs::remove_file(dir.join(&name)) {
            Ok(()) => {
                count -= 1;
                bytes = bytes.saturating_sub(len);
                removed.push(name);
            }
            Err(e) => tracing::warn!("cannot remove the old upload `{name}`: {e}"),
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_leave_the_directory_are_refused() {
        for bad in [
            "../catalog.db",
            "..jsonl",
            "a/../../etc/passwd.jsonl",
            "a\\b.jsonl",
            ".hidden.jsonl",
            "-rf.jsonl",
            "x.json",
            "%2e%2e.jsonl",
            "a\0.jsonl",
            ".jsonl",
            "trace..jsonl",
        ] {
            assert!(!valid_name(bad), "{bad:?}");
        }
        for good in [
            "20261125T140431Z-how-do-i.jsonl",
            "upload_1.jsonl",
            "A-b.c.jsonl",
        ] {
            assert!(valid_name(good), "{good:?}");
        }
        let long = format!("{}.jsonl", "a".repeat(MAX_NAME_BYTES));
        assert!(!valid_name(&long));
    }

    #[test]
    fn the_oldest_uploads_go_first_and_recorded_runs_stay() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: usize, age_s: u64| {
            let path = dir.path().join(name);
            std::fs::write(&path, vec![b'x'; bytes]).unwrap();
            let when = SystemTime::now() - std::time::Duration::from_secs(age_s);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        write("20260101T000000Z-recorded.jsonl", 1_000, 500);
        write("upload-a.jsonl", 100, 400);
        write("upload-b.jsonl", 100, 300);
        write("upload-c.jsonl", 100, 200);
        write("upload-d.jsonl", 100, 100);
        let by_count = UploadLimits {
            max_count: 3,
            max_bytes: u64::MAX,
        };
        assert_eq!(
            prune_uploads(dir.path(), "upload-d.jsonl", by_count),
            ["upload-a.jsonl"]
        );
        let by_bytes = UploadLimits {
            max_count: 100,
            max_bytes: 150,
        };
        // The upload just stored stays even when it is the oldest one.
        assert_eq!(
            prune_uploads(dir.path(), "upload-b.jsonl", by_bytes),
            ["upload-c.jsonl", "upload-d.jsonl"]
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["20260101T000000Z-recorded.jsonl", "upload-b.jsonl"]);
    }

    #[test]
    fn utc_minutes() {
        assert_eq!(utc_minute(1_795_622_671_000), "2026-11-25 16:04 UTC");
    }

    /// A trace of `events` command events, each line about `pad` bytes, its last line cut
    /// when `cut`.
    fn big_trace(events: usize, pad: usize, cut: bool) -> String {
        let mut text = serde_json::json!({
            "type": "header", "format_version": 4, "docnav_version": "0.1.0",
            "question": "q", "model": "m", "options": {}, "documents": [],
            "started_unix_ms": 1u64,
        })
        .to_string();
        text.push('\n');
        for i in 0..events {
            let line = format!("cat {i} {}", "x".repeat(pad));
            text.push_str(
                &serde_json::json!({"actor": "r1-w1-d", "seq": i, "type": "command", "line": line})
                    .to_string(),
            );
            text.push('\n');
        }
        if cut {
            text.push_str("{\"actor\": \"r1-w1-d\", \"seq\"");
        }
        text
    }

    #[test]
    fn a_page_reads_a_trace_only_as_far_as_its_bounds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.jsonl"), big_trace(1_000, 1_000, false)).unwrap();
        let bounds = |events, bytes, line_bytes| PageBounds {
            events,
            bytes,
            line_bytes,
        };
        // By events: the first 100 parsed, the other 900 counted.
        let page = load_page(dir.path(), "t.jsonl", bounds(100, usize::MAX, 1 << 20)).unwrap();
        assert_eq!((page.trace.events.len(), page.unread_events), (100, 900));
        // By bytes: lines are about 1,070 bytes, so 10 KB is 10 of them.
        let page = load_page(dir.path(), "t.jsonl", bounds(usize::MAX, 10_000, 1 << 20)).unwrap();
        assert_eq!((page.trace.events.len(), page.unread_events), (10, 990));
        // A line over the line bound ends the reading there; it is counted, not read.
        let page = load_page(dir.path(), "t.jsonl", bounds(usize::MAX, usize::MAX, 500)).unwrap();
        assert_eq!((page.trace.events.len(), page.unread_events), (0, 1_000));
        // Within the bounds, the whole trace, as `load` reads it.
        let page = load_page(dir.path(), "t.jsonl", PageBounds::default()).unwrap();
        let whole = load(dir.path(), "t.jsonl").unwrap();
        assert_eq!(
            (page.trace.events.len(), page.unread_events),
            (whole.events.len(), 0)
        );
        // A cut last line is reported as `load` reports it; a bad line in the middle is an error.
        std::fs::write(dir.path().join("c.jsonl"), big_trace(3, 10, true)).unwrap();
        let page = load_page(dir.path(), "c.jsonl", PageBounds::default()).unwrap();
        assert_eq!(page.trace.truncated_at_line, Some(5));
        assert_eq!(
            load(dir.path(), "c.jsonl").unwrap().truncated_at_line,
            Some(5)
        );
        let mut bad = big_trace(3, 10, false);
        bad.insert_str(bad.find("\n").unwrap() + 1, "not json\n");
        std::fs::write(dir.path().join("b.jsonl"), bad).unwrap();
        let e = load_page(dir.path(), "b.jsonl", PageBounds::default()).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
