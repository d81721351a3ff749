//! `docnav index`: collect input files, build documents in parallel, keep each text once
//! (`duplicates`), commit them to the workspace crash-safely (see the module doc of
//! [`crate::workspace`]).
//!
//! A run goes in phases, each a module: `start` (catalog and search index read under the
//! lock), `inputs` (arguments walked, a refresh's sources), `plan` (one job per input,
//! with its document id), `build` (the jobs run on compute and writer threads), `rows`
//! (the new catalog's rows, each text kept once) and `commit` (index aligned, committed,
//! catalog written, merged).

mod build;
mod commit;
mod duplicates;
mod inputs;
mod plan;
mod rows;
mod start;

use std::path::Path;
use std::time::{Duration, Instant};

use build::{run_job, JobContext, Outcome};
use plan::Job;

pub use inputs::{collect_inputs, is_glob, resolved_path, Input};

use super::sync::{search_error, WriterLock};
use super::{store, BuildKey, Workspace, WorkspaceError};
use crate::index::sections::{Merged, SectionIndex, SectionWriter};
use crate::tree::{BuildOptions, DocFormat};

/// Options of one index run.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Build-stage options (leaf split size).
    pub build: BuildOptions,
    /// Worker threads (≥ 1).
    pub jobs: usize,
    /// Remove catalog entries whose source file no longer exists.
    pub prune: bool,
    /// Rebuild even when the fingerprint is unchanged.
    pub force: bool,
    /// The formats to index ([`DocFormat::ALL`] by default): files of other formats found in
    /// folders or by globs are passed over, and one named on the command line is an error.
    pub formats: Vec<DocFormat>,
    /// Merge the whole search index into one segment at the end of the run, whatever the run
    /// wrote (without it, only a run that wrote a quarter of the index does; see
    /// [`crate::index::sections::Committed::full_merge`]). A failed merge is then an error of
    /// the run ([`IndexReport::merge_failed`]), not a warning.
    pub merge: bool,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            build: BuildOptions::default(),
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            prune: false,
            force: false,
            formats: DocFormat::ALL.to_vec(),
            merge: false,
        }
    }
}

/// What an index run did.
#[derive(Debug, Default)]
pub struct IndexReport {
    /// Documents (re)built and committed.
    pub indexed: usize,
    /// Documents skipped because their fingerprint (or size + mtime) was unchanged.
    pub unchanged: usize,
    /// Inputs that failed (missing, unreadable, corrupt…); their previous state is kept.
    pub failed: usize,
    /// Catalog entries (documents and aliases) removed by `--prune`.
    pub pruned: usize,
    /// Sources this run found to have the text of a document already kept, and kept as aliases
    /// of it instead of as documents (each is also a line in `notices`; see `duplicates`).
    pub duplicates: usize,
    /// One line per failure, naming the input.
    pub errors: Vec<String>,
    /// One line per warning, naming the input.
    pub warnings: Vec<String>,
    /// One line per thing the run did beyond the inputs (an older workspace rebuilt, a missing
    /// or damaged search index rebuilt).
    pub notices: Vec<String>,
    /// Bytes of source read and built.
    pub bytes_built: u64,
    /// The segments of the search index merged after the run (into one after a bulk run, see
    /// [`crate::index::sections::Committed::finish`]); `None` when nothing was merged.
    pub merged: Option<Merged>,
    /// `true` when the merge [`IndexOptions::merge`] asked for failed (its message is in
    /// `errors`; the run's documents are committed all the same).
    pub merge_failed: bool,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// Progress events for a progress bar. `total` is the number of files found.
pub trait IndexProgress: Sync {
    /// Files to look at are known.
    fn start(&self, total: usize);
    /// One file is done (built, unchanged or failed).
    fn file_done(&self, path: &Path);
    /// Every file is done, and the run is at a later step that may take a while (`step`: what
    /// it does, for a person, such as "merging the search index").
    fn phase(&self, _step: &str) {}
    /// Whether the run should stop. Asked before each file and once before the commit; when it
    /// says so, the files not yet begun are skipped and nothing is committed (the run returns
    /// [`WorkspaceError::Cancelled`], the workspace is as it was: a tree file already written
    /// is named by no catalog and removed by the next run).
    fn cancelled(&self) -> bool {
        false
    }
}

/// No progress output.
pub struct NoProgress;

impl IndexProgress for NoProgress {
    fn start(&self, _total: usize) {}
    fn file_done(&self, _path: &Path) {}
}

/// At most this many tantivy indexing threads (see [`Workspace::index`]).
const INDEXING_THREADS_MAX: usize = 2;

/// Where a run's time goes, at `RUST_LOG=docnav=debug`: each phase's end, in ms from the start.
struct Laps {
    started: Instant,
}

impl Laps {
    /// Log that `phase` is done.
    fn lap(&self, phase: &str) {
        tracing::debug!(
            "index: {phase} done at {} ms",
            self.started.elapsed().as_millis()
        );
    }
}

/// The error of an I/O failure on `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WorkspaceError {
    let path = path.to_path_buf();
    move |source| WorkspaceError::Io { path, source }
}

impl Workspace {
    /// Index `args` (files, folders, globs) into the workspace at `dir`, creating it if needed.
    ///
    /// Unchanged documents (same size and mtime, or same sha256) are skipped; a failing input is
    /// reported and counted, its previous state kept, and the rest of the run goes on. The catalog is
    /// replaced atomically at the end. Errors: only workspace-level failures (a publish folder,
    /// [`WorkspaceError::PublishedReadOnly`]; a folder on a network
    /// filesystem, [`WorkspaceError::NetworkFilesystem`]; cannot create the directory, take the
    /// lock, or write the catalog), and [`WorkspaceError::Cancelled`] when
    /// `progress` cancels the run; per-file failures are in the report.
    pub fn index(
        dir: &Path,
        args: &[String],
        options: &IndexOptions,
        progress: &dyn IndexProgress,
    ) -> Result<IndexReport, WorkspaceError> {
        let laps = Laps {
            started: Instant::now(),
        };
        // Before anything is created there.
        crate::workspace::publish::refuse_writes(dir)?;
        crate::workspace::local_disk::require_local_disk(dir)?;
        let docs_dir = dir.join("docs");
        std::fs::create_dir_all(&docs_dir).map_err(io(&docs_dir))?;
        let _lock = WriterLock::acquire(dir)?;
        let start::Start {
            mut catalog,
            outdated,
            index,
            walked,
            mut tree_files,
            mut named_store,
            named_sources,
            mut notices,
            indexed,
        } = start::open(dir, args, options, &docs_dir, &laps)?;
        let writer = section_writer(dir, &index, options)?;
        // No paths: refresh every document of the catalog (an older workspace: the same).
        let refresh = args.is_empty() || outdated.is_some();
        let (inputs, mut errors) = inputs::gather(
            walked,
            refresh,
            outdated.is_some(),
            &mut catalog,
            options,
            &mut notices,
        );
        laps.lap("inputs walked");
        let mut report = IndexReport {
            failed: errors.len(),
            notices,
            ..IndexReport::default()
        };
        progress.start(inputs.len());
        let jobs = plan::plan_jobs(inputs, &catalog, named_store.as_ref());
        writer.plan_documents(jobs.len());
        let context = JobContext {
            docs_dir: &docs_dir,
            tree_files: &tree_files,
            build_key: BuildKey::of(&options.build),
            options,
            index: &index,
            writer: &writer,
        };
        laps.lap("jobs planned");
        let (outcomes, unchanged) = build::run_jobs(&jobs, &catalog, &context, &writer, progress);
        if progress.cancelled() {
            return Err(WorkspaceError::Cancelled(dir.to_path_buf()));
        }
        report.unchanged = unchanged;
        laps.lap("jobs run");
        let tally = rows::tally(&jobs, outcomes, &catalog, &writer, &mut report, &mut errors);
        drop(jobs);
        // A catalog of an older format is replaced whole: every document was rebuilt.
        let mut changes = store::CatalogChanges {
            replace_all: outdated.is_some(),
            ..store::CatalogChanges::default()
        };
        let merge = rows::Merge {
            in_store: outdated.is_none(),
            options,
            context: &context,
            writer: &writer,
            named_store: named_store.as_ref(),
            named_sources: named_sources.as_ref(),
        };
        let mut rows = rows::merge(
            tally,
            &mut catalog,
            merge,
            &mut report,
            &mut errors,
            &mut changes,
        );
        // The catalog's snapshot is not needed past here (the write below opens its own).
        drop(named_store.take());
        tree_files.extend(std::mem::take(&mut rows.discarded));
        laps.lap("rows merged");
        let restored =
            commit::align_index(dir, &docs_dir, &index, &writer, indexed.as_ref(), &rows)?;
        if restored > 0 && !refresh {
            tracing::debug!("{restored} unchanged document(s) re-entered in the search index");
        }
        report.errors = errors;
        let finish = commit::Finish {
            dir,
            docs_dir: &docs_dir,
            options,
            progress,
            laps: &laps,
            tree_files: &tree_files,
        };
        if indexed.is_none() && commit::nothing_changed(&rows, &changes) {
            finish.without_commit(writer, &rows.documents, &mut report);
        } else {
            finish.commit(
                writer,
                &index,
                catalog.index_generation,
                rows,
                changes,
                &mut report,
            )?;
        }
        report.elapsed = laps.started.elapsed();
        Ok(report)
    }
}

/// The run's section index writer: two tantivy indexing threads when there are two cores (with
/// one, it is the slowest stage and the threads feeding it spin on its full queue; the benchmark
/// history, docs/src/benchmarks-history.md, "Sibling headings and a 30 MB one-line section"),
/// capped at [`INDEXING_THREADS_MAX`] so a many-core machine does not cut a small index into
/// many segments (each thread writes its own, with its own memory budget).
///
/// Errors: [`WorkspaceError::Search`] when the index cannot be opened for writing.
fn section_writer(
    dir: &Path,
    index: &SectionIndex,
    options: &IndexOptions,
) -> Result<SectionWriter, WorkspaceError> {
    index
        .writer(options.jobs.clamp(1, INDEXING_THREADS_MAX))
        .map_err(|e| search_error(dir, e))
}
