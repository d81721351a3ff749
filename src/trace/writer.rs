//! The trace writer: one writer thread fed through a channel (STYLE.md "Traces").
//!
//! [`TraceWriter::record`] only sends the event down an unbounded `std::sync::mpsc` channel. The
//! writer thread takes events one at a time, serializes each to one JSON line and writes that whole
//! line with one `write(2)` on the unbuffered file as soon as it takes it — nothing is held back in
//! a user-space buffer. When the channel is empty the writer parks for [`FLUSH_INTERVAL`]; senders
//! never wake it, so recording costs the agent's threads no syscall per event (a blocking receiver
//! would cost them a futex wake per event; the figures: the benchmark history,
//! docs/src/benchmarks-history.md, "The agent").
//! [`TraceWriter::finish`] (also run on drop, so after Ctrl-C handling and on unwinding panics)
//! closes the channel and waits until every event sent before it is written.
//!
//! What a crash can lose. Every line the writer has written is in the OS page cache, so it
//! survives the process dying (SIGKILL, abort, a panic with `panic = "abort"`); only an OS crash or
//! power loss can lose written lines (there is no `fsync`). A SIGKILL loses the events still in the
//! channel — those recorded since the writer last took one: at most about [`FLUSH_INTERVAL`] of
//! events when the writer keeps up, more if it lags behind — and, when it lands in the middle of
//! writing a large line, may leave that last line cut. Everything before it is whole lines, a
//! valid prefix; [`super::read_trace`] drops a cut last line and reports where the trace ends.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::{Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{header_line, trace_file_name, TraceError, TraceHeader};
use crate::agent::{EventRecord, EventSink};

/// The longest the writer thread sleeps while the channel is empty; so also about the longest an
/// event waits in the channel before it is written.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(2);

/// Records events to a JSONL file. Dropping it (or [`TraceWriter::finish`]) writes what is left
/// and closes the file.
pub struct TraceWriter {
    path: PathBuf,
    /// `None` once finished. Read-locked per event (an atomic, no syscall: only `finish` writes).
    sender: RwLock<Option<Sender<EventRecord>>>,
    thread: Mutex<Option<JoinHandle<Result<(), std::io::Error>>>>,
}

/// The writer thread: take each event as it comes, write it as one line, until every sender is
/// gone and the channel is empty.
///
/// Errors: the first serialization or write error; the thread stops there (later events are
/// dropped, since the receiver goes with it).
fn write_events(mut file: std::fs::File, events: Receiver<EventRecord>) -> std::io::Result<()> {
    let mut line = Vec::with_capacity(16 * 1024);
    loop {
        match events.try_recv() {
            Ok(record) => {
                line.clear();
                serde_json::to_writer(&mut line, &record).map_err(std::io::Error::other)?;
                line.push(b'\n');
                // One write of the whole line on an unbuffered file: it reaches the OS now.
                file.write_all(&line)?;
            }
            Err(TryRecvError::Empty) => std::thread::park_timeout(FLUSH_INTERVAL),
            Err(TryRecvError::Disconnected) => return file.flush(),
        }
    }
}

impl TraceWriter {
    /// Create `path` (parents too), write the header line, and start the writer thread.
    ///
    /// Errors: [`TraceError::Io`] when the file cannot be created or written.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<TraceWriter, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let file = std::fs::File::create(path).map_err(io)?;
        TraceWriter::start(path, file, header)
    }

    /// Create a new trace in `dir` (created if missing) named by [`trace_file_name`] for the
    /// header's start time and question, or, when that name is taken (another run of the same
    /// question in the same second), the first free `NAME-2.jsonl`, `NAME-3.jsonl`…: the file is
    /// created exclusively, so concurrent runs never share one.
    ///
    /// Errors: [`TraceError::Io`] when the directory or the file cannot be created or written.
    pub fn create_in(dir: &Path, header: &TraceHeader) -> Result<TraceWriter, TraceError> {
        let base = trace_file_name(header.started_unix_ms, &header.question);
        let stem = base.trim_end_matches(".jsonl");
        std::fs::create_dir_all(dir).map_err(|source| TraceError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut n = 1;
        loop {
            let name = if n == 1 {
                base.clone()
            } else {
                format!("{stem}-{n}.jsonl")
            };
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => return TraceWriter::start(&path, file, header),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => n += 1,
                Err(source) => return Err(TraceError::Io { path, source }),
            }
        }
    }

    fn start(path: &Path, mut file: File, header: &TraceHeader) -> Result<TraceWriter, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut first = header_line(header);
        first.push('\n');
        file.write_all(first.as_bytes()).map_err(io)?;
        let (sender, receiver) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("docnav-trace".into())
            .spawn(move || write_events(file, receiver))
            .map_err(io)?;
        Ok(TraceWriter {
            path: path.to_path_buf(),
            sender: RwLock::new(Some(sender)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The trace file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stop accepting events and wait until every event recorded before this call is written.
    /// Later calls (and drop) do nothing.
    ///
    /// Errors: [`TraceError::Io`] with the first write error the writer thread met.
    pub fn finish(&self) -> Result<(), TraceError> {
        // Dropping the only sender disconnects the channel once it is drained.
        match self.sender.write() {
            Ok(mut s) => drop(s.take()),
            Err(poisoned) => drop(poisoned.into_inner().take()),
        }
        let handle = self.thread.lock().ok().and_then(|mut t| t.take());
        let Some(handle) = handle else {
            return Ok(());
        };
        handle.thread().unpark();
        let io = |source| TraceError::Io {
            path: self.path.clone(),
            source,
        };
        match handle.join() {
            Ok(result) => result.map_err(io),
            Err(_) => Err(io(std::io::Error::other("trace writer thread panicked"))),
        }
    }
}

impl EventSink for TraceWriter {
    /// Send the event to the writer thread; dropped once [`TraceWriter::finish`] has run or the
    /// writer has stopped on an error.
    fn record(&self, record: EventRecord) {
        if let Ok(sender) = self.sender.read() {
            if let Some(sender) = sender.as_ref() {
                let _ = sender.send(record);
            }
        }
    }
}

impl Drop for TraceWriter {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::tests::header;
    use super::*;
    use crate::agent::AgentEvent;

    fn event(actor: &str, seq: u64) -> EventRecord {
        EventRecord {
            actor: actor.into(),
            seq,
            event: AgentEvent::Command { line: "ls".into() },
        }
    }

    #[test]
    fn events_reach_the_file_without_finish_and_all_of_them_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let writer = TraceWriter::create(&path, &header()).unwrap();
        writer.record(event("w", 0));
        // Written within the interval, while the run goes on (a crash would keep it).
        std::thread::sleep(FLUSH_INTERVAL * 20);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        for seq in 1..100 {
            writer.record(event("w", seq));
        }
        writer.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 101);
        assert!(text.ends_with('\n'));
        // After finish, events are refused rather than lost silently into a closed file.
        writer.record(event("w", 100));
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 101);
        writer.finish().unwrap();
    }

    #[test]
    fn events_from_many_threads_are_whole_lines_and_all_written_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let writer = Arc::new(TraceWriter::create(&path, &header()).unwrap());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let writer = writer.clone();
                std::thread::spawn(move || {
                    for seq in 0..500 {
                        writer.record(event(&format!("w{t}"), seq));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        drop(writer);
        let trace = super::super::read_trace(&path).unwrap();
        assert_eq!(trace.events.len(), 2000);
        assert_eq!(trace.truncated_at_line, None);
        for t in 0..4 {
            let seqs: Vec<u64> = trace
                .events
                .iter()
                .filter(|e| e.actor == format!("w{t}"))
                .map(|e| e.seq)
                .collect();
            assert_eq!(seqs, (0..500).collect::<Vec<_>>(), "w{t} in order");
        }
    }
}
