//! The trace writer: an [`EventSink`] whose `record` only appends the event to a shared queue; one
//! writer thread drains the queue every [`FLUSH_INTERVAL`], writes one JSON line per event and
//! flushes. [`TraceWriter::finish`] (also run on drop, so on Ctrl-C handling and on unwinding
//! panics) writes everything left.
//!
//! Why a polled queue and not a channel: waking a sleeping writer thread on every event costs a
//! futex syscall on the agent's own threads (~5 µs × ~350 events per question ≈ 10% of `ask`'s
//! own time, measured in `benches/agent.rs`); polling every 2 ms costs them nothing. A crash that
//! kills the process outright loses at most the last 2 ms of events; the file always holds whole
//! lines, so it remains a valid prefix.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{header_line, TraceError, TraceHeader};
use crate::agent::{EventRecord, EventSink};

/// How often the writer thread drains the queue and flushes.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(2);

struct Shared {
    queue: Mutex<Vec<EventRecord>>,
    closed: AtomicBool,
}

/// Records events to a JSONL file. Dropping it (or [`TraceWriter::finish`]) flushes and closes.
pub struct TraceWriter {
    path: PathBuf,
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<Result<(), std::io::Error>>>>,
}

fn take(shared: &Shared) -> Vec<EventRecord> {
    match shared.queue.lock() {
        Ok(mut q) => std::mem::take(&mut *q),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
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
        let mut file = std::fs::File::create(path).map_err(io)?;
        writeln!(file, "{}", header_line(header)).map_err(io)?;
        file.flush().map_err(io)?;
        let shared = Arc::new(Shared {
            queue: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        });
        let worker = shared.clone();
        let thread = std::thread::spawn(move || -> Result<(), std::io::Error> {
            let mut file = std::io::BufWriter::new(file);
            loop {
                let closed = worker.closed.load(Ordering::SeqCst);
                let batch = take(&worker);
                for record in &batch {
                    serde_json::to_writer(&mut file, record).map_err(std::io::Error::other)?;
                    file.write_all(b"\n")?;
                }
                if !batch.is_empty() {
                    file.flush()?;
                }
                // `closed` was read before the last take: nothing can be queued after it.
                if closed {
                    return file.flush();
                }
                std::thread::park_timeout(FLUSH_INTERVAL);
            }
        });
        Ok(TraceWriter {
            path: path.to_path_buf(),
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The trace file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stop accepting events and wait until every queued event is written.
    ///
    /// Errors: the first write error the writer thread met.
    pub fn finish(&self) -> Result<(), TraceError> {
        self.shared.closed.store(true, Ordering::SeqCst);
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
    fn record(&self, record: EventRecord) {
        if self.shared.closed.load(Ordering::SeqCst) {
            return;
        }
        if let Ok(mut q) = self.shared.queue.lock() {
            q.push(record);
        }
    }
}

impl Drop for TraceWriter {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::agent::AgentEvent;

    #[test]
    fn events_reach_the_file_without_finish_and_all_of_them_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let header = TraceHeader {
            format_version: super::super::TRACE_FORMAT_VERSION,
            docnav_version: "0".into(),
            question: "q".into(),
            model: "m".into(),
            options: serde_json::json!({}),
            documents: vec![],
            started_unix_ms: 0,
        };
        let writer = TraceWriter::create(&path, &header).unwrap();
        let event = |seq| EventRecord {
            actor: "w".into(),
            seq,
            event: AgentEvent::Command { line: "ls".into() },
        };
        writer.record(event(0));
        // Flushed within the interval, while the run goes on (a crash would keep it).
        std::thread::sleep(FLUSH_INTERVAL * 20);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        for seq in 1..100 {
            writer.record(event(seq));
        }
        writer.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 101);
        assert!(text.ends_with('\n'));
        // After finish, events are refused rather than lost silently into a closed file.
        writer.record(event(100));
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 101);
    }
}
