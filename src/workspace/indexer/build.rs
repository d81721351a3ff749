//! The build phase of an index run: compute threads (one per core) parse, build and serialize
//! each job's document; a few writer threads write tree files and hand entries to tantivy, so
//! waits (tantivy's backlog; off Linux, an fsync per file) overlap the CPU work instead of
//! stalling it. On Linux the tree files are made durable together, by one syncfs before the
//! index commit.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rustc_hash::FxHashSet;

use super::plan::Job;
use super::{IndexOptions, IndexProgress};
use crate::durable::write_atomic_deferred;
use crate::index::sections::DocumentEntries;
use crate::index::{DocCard, SectionIndex, SectionWriter};
use crate::workspace::source_stat::{SourceStat, SourceStatter};
use crate::workspace::{
    encode_tree_file, fingerprint, tree_file_name, BuildKey, Catalog, CatalogEntry, Document,
};

/// Threads that write tree files and hand index entries to tantivy (waiting on its backlog,
/// and off Linux on each tree file's fsync) while the compute threads go on.
const WRITER_THREADS: usize = 4;

pub(super) enum Outcome {
    Built(CatalogEntry, Box<DocCard>, Vec<String>, u64),
    /// Kept as it was; with the source's new size and modification time when only they moved.
    Unchanged(Option<(u64, u64)>),
    Failed(String),
    /// Built and serialized; the tree file still has to be written.
    Write(Box<PendingWrite>),
}

/// A built document whose tree file is not written yet.
pub(super) struct PendingWrite {
    entry: CatalogEntry,
    card: DocCard,
    warnings: Vec<String>,
    source_bytes: u64,
    source: PathBuf,
    target: PathBuf,
    encoded: Vec<u8>,
    /// The entries to hand to the section index; `None` when they were handed over while
    /// they were built ([`SectionWriter::stream_entries`]).
    entries: Option<DocumentEntries>,
}

impl PendingWrite {
    /// Write the tree file (temp + rename; made durable before the commit, see
    /// [`write_atomic_deferred`]), then replace the document's entries in the section index
    /// (visible at its commit). Entries already handed over are deleted when the tree file
    /// cannot be written (the document had none before, see [`run_job`]).
    pub(super) fn commit(self, writer: &SectionWriter) -> Outcome {
        if let Err(e) = write_atomic_deferred(&self.target, &self.encoded) {
            if self.entries.is_none() {
                writer.delete(&self.entry.doc_id);
            }
            return Outcome::Failed(format!(
                "cannot write `{}` for `{}`: {e}",
                self.target.display(),
                self.source.display()
            ));
        }
        let replaced = match self.entries {
            Some(entries) => writer.replace(entries),
            None => Ok(()),
        };
        match replaced {
            Ok(()) => Outcome::Built(
                self.entry,
                Box::new(self.card),
                self.warnings,
                self.source_bytes,
            ),
            Err(e) => Outcome::Failed(format!("cannot index `{}`: {e}", self.source.display())),
        }
    }
}

/// What every job of a run shares.
pub(super) struct JobContext<'a> {
    pub(super) docs_dir: &'a Path,
    /// The names in `docs_dir` when the run started.
    pub(super) tree_files: &'a FxHashSet<String>,
    /// The key of this run's build.
    pub(super) build_key: BuildKey,
    pub(super) options: &'a IndexOptions,
    pub(super) index: &'a SectionIndex,
    /// The run's writer, which a large new document's entries are handed to as they are built.
    pub(super) writer: &'a SectionWriter,
}

pub(super) fn run_job(
    job: &Job,
    previous: Option<&CatalogEntry>,
    context: &JobContext<'_>,
    statter: &mut SourceStatter,
) -> Outcome {
    let JobContext {
        docs_dir,
        tree_files,
        build_key: key,
        options,
        index,
        writer,
    } = *context;
    let path = &job.input.path;
    let SourceStat {
        len,
        mtime_ms: mtime,
    } = match statter.stat(path) {
        Ok(stat) => stat,
        Err(e) => return Outcome::Failed(format!("cannot read `{}`: {e}", path.display())),
    };
    // A row is reusable only if the same build (version and options) made its tree. An alias's
    // row names no tree file (its tree is its document's, whose text the run checks after the
    // jobs, see `duplicates`).
    let reusable = |prev: &CatalogEntry| {
        !options.force
            && prev.build_key == Some(key)
            && (prev.tree_file.is_empty() || tree_files.contains(&prev.tree_file))
    };
    if let Some(prev) = previous {
        if reusable(prev) && prev.source_len == len && prev.mtime_ms == mtime && mtime != 0 {
            return Outcome::Unchanged(None);
        }
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(format!("cannot read `{}`: {e}", path.display())),
    };
    let fp = fingerprint(&bytes);
    if let Some(prev) = previous {
        if reusable(prev) && prev.fingerprint == fp {
            let moved = (prev.source_len, prev.mtime_ms) != (len, mtime);
            return Outcome::Unchanged(moved.then_some((len, mtime)));
        }
    }
    let tree_file = tree_file_name(&job.doc_id, &fp, &key);
    // A large document the index holds nothing of (no previous row: a new id) has its entries
    // handed to an indexing thread as soon as its tree is tokenized, which indexes them while
    // this thread goes on (card, encoding, then the tree file written); should any of that
    // fail, they are deleted.
    let mut streamed = None;
    // A panic in a parser is a bug, but it must cost one file, not the run.
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Document::build_fingerprinted_with(
            path,
            &bytes,
            &fp,
            &job.doc_id,
            job.input.explicit,
            &options.build,
            |tree, terms| {
                if previous.is_none() {
                    streamed = Some(writer.stream_entries(&job.doc_id, tree, terms));
                }
            },
        )
    }));
    let streamed = match streamed.transpose() {
        Ok(streamed) => streamed.flatten(),
        Err(e) => return Outcome::Failed(format!("cannot index `{}`: {e}", path.display())),
    };
    let built = match built {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return Outcome::Failed(e.to_string()),
        Err(_) => {
            return Outcome::Failed(format!(
                "internal error while parsing `{}` (please report it)",
                path.display()
            ))
        }
    };
    // The card entry completes the streamed entries (dropped unfinished above, when the build
    // failed, they were deleted).
    let streamed = streamed
        .map(|entries| entries.finish(&built.document.card, &tree_file))
        .is_some();
    // Tree files are about 1–2× their source (text + postings): reserve once, no regrowth.
    let encoded = match encode_tree_file(&built.document, bytes.len().saturating_mul(2)) {
        Ok(encoded) => encoded,
        Err(e) => {
            if streamed {
                writer.delete(&job.doc_id);
            }
            return Outcome::Failed(format!("cannot serialize `{}`: {e}", path.display()));
        }
    };
    let target = docs_dir.join(&tree_file);
    let entries = (!streamed).then(|| {
        index.entries_with_terms(
            &built.document.card,
            &built.document.tree,
            &built.terms,
            &tree_file,
        )
    });
    let entry = CatalogEntry::of(
        &built.document.card,
        tree_file,
        len,
        mtime,
        Some(key),
        built.text_sha256,
    );
    Outcome::Write(Box::new(PendingWrite {
        entry,
        card: built.document.card,
        warnings: built.warnings,
        source_bytes: bytes.len() as u64,
        source: path.clone(),
        target,
        encoded,
        entries,
    }))
}

/// Run every job of `jobs` on compute threads (`--jobs`, at most one per job) and [`WRITER_THREADS`] writer
/// threads, writing through `writer`. Returns the outcomes of the jobs that were not kept
/// unchanged as they were, by job index, in job order, and how many were kept unchanged.
pub(super) fn run_jobs(
    jobs: &[Job],
    catalog: &Catalog,
    context: &JobContext<'_>,
    writer: &SectionWriter,
    progress: &dyn IndexProgress,
) -> (Vec<(usize, Outcome)>, usize) {
    let (rows, aliases) = (&catalog.documents, &catalog.aliases);
    let threads = context.options.jobs.max(1).min(jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::new());
    // Documents kept as they were are only counted, not pushed under the lock.
    let unchanged = AtomicUsize::new(0);
    // Bounded: a built document waits here with its tree and index entries in memory, and the
    // writer threads are slower than parsing whenever tantivy is busy (unbounded, a large run
    // holds every built document at once).
    let (to_writers, writes) =
        std::sync::mpsc::sync_channel::<(usize, PendingWrite)>(WRITER_THREADS * 2);
    let writes = Mutex::new(writes);
    let push = |i: usize, outcome: Outcome| {
        if let Ok(mut all) = outcomes.lock() {
            all.push((i, outcome));
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..WRITER_THREADS {
            scope.spawn(|| loop {
                let next_write = writes.lock().ok().and_then(|rx| rx.recv().ok());
                let Some((i, pending)) = next_write else {
                    break;
                };
                if progress.cancelled() {
                    // Nothing of a cancelled run is committed: its writes are dropped.
                    continue;
                }
                push(i, pending.commit(writer));
            });
        }
        for _ in 0..threads {
            let to_writers = to_writers.clone();
            scope.spawn(|| {
                let to_writers = to_writers;
                let mut statter = SourceStatter::default();
                loop {
                    if progress.cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let previous = job.previous.map(|p| p.row(rows, aliases));
                    let outcome = run_job(job, previous, context, &mut statter);
                    progress.file_done(&job.input.path);
                    let outcome = match outcome {
                        Outcome::Write(pending) => match to_writers.send((i, *pending)) {
                            Ok(()) => continue,
                            Err(std::sync::mpsc::SendError((_, pending))) => pending.commit(writer),
                        },
                        Outcome::Unchanged(None) => {
                            unchanged.fetch_add(1, Ordering::Relaxed);
                            continue;
                        }
                        other => other,
                    };
                    push(i, outcome);
                }
            });
        }
        drop(to_writers);
    });
    let mut outcomes = outcomes.into_inner().unwrap_or_default();
    outcomes.sort_by_key(|(i, _)| *i);
    (outcomes, unchanged.into_inner())
}
