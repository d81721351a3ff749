//! The trace writer: an [`EventSink`] that sends each event through a channel to one writer
//! thread, which appends a JSON line per event and flushes whenever the queue is empty, so a crash
//! or Ctrl-C leaves a valid prefix (whole lines only).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;

use super::{header_line, TraceError, TraceHeader};
use crate::agent::{EventRecord, EventSink};

enum Msg {
    Event(Box<EventRecord>),
}

/// Records events to a JSONL file. Dropping it (or [`TraceWriter::finish`]) flushes and closes.
pub struct TraceWriter {
    path: PathBuf,
    sender: Mutex<Option<Sender<Msg>>>,
    thread: Mutex<Option<JoinHandle<Result<(), std::io::Error>>>>,
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
        let (sender, receiver) = channel::<Msg>();
        let thread = std::thread::spawn(move || -> Result<(), std::io::Error> {
            let mut file = std::io::BufWriter::new(file);
            let write = |msg: Msg, file: &mut std::io::BufWriter<std::fs::File>| {
                let Msg::Event(record) = msg;
                serde_json::to_writer(&mut *file, &record).map_err(std::io::Error::other)?;
                file.write_all(b"\n")
            };
            // Write whatever is queued, then flush before waiting again: every event that reached
            // this thread is on disk as whole lines before it sleeps, so a crash or Ctrl-C
            // leaves a valid prefix, without one write syscall per event under load.
            while let Ok(msg) = receiver.recv() {
                write(msg, &mut file)?;
                while let Ok(more) = receiver.try_recv() {
                    write(more, &mut file)?;
                }
                file.flush()?;
            }
            file.flush()
        });
        Ok(TraceWriter {
            path: path.to_path_buf(),
            sender: Mutex::new(Some(sender)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The trace file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stop accepting events, wait for every queued event to be written.
    ///
    /// Errors: the first write error the writer thread met.
    pub fn finish(&self) -> Result<(), TraceError> {
        if let Ok(mut s) = self.sender.lock() {
            s.take();
        }
        let handle = self.thread.lock().ok().and_then(|mut t| t.take());
        if let Some(handle) = handle {
            match handle.join() {
                Ok(Ok(())) => {}
                Ok(Err(source)) => {
                    return Err(TraceError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
                Err(_) => {
                    return Err(TraceError::Io {
                        path: self.path.clone(),
                        source: std::io::Error::other("trace writer thread panicked"),
                    })
                }
            }
        }
        Ok(())
    }
}

impl EventSink for TraceWriter {
    fn record(&self, record: EventRecord) {
        if let Ok(guard) = self.sender.lock() {
            if let Some(sender) = guard.as_ref() {
                let _ = sender.send(Msg::Event(Box::new(record)));
            }
        }
    }
}

impl Drop for TraceWriter {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
