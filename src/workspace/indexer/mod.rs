//! `docnav index`: collect input files, build documents in parallel, keep each text once
//! ([`duplicates`]), commit them to the workspace crash-safely (see the module doc of
//! [`crate::workspace`]).

mod duplicates;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, UNIX_EPOCH};

use globset::Glob;
use rustc_hash::{FxHashMap, FxHashSet};

use super::site_files::{is_not_found_page, is_sphinx_output, sources_beside_pages};
use super::source_stat::{SourceStat, SourceStatter};
use super::sync::{search_error, WriterLock};
use super::{
    atomic::{sync_filesystem, write_atomic_deferred},
    build_key, decode_tree_file, doc_id_base, encode_tree_file, fingerprint, store, tree_file_name,
    unique_slug, Catalog, CatalogEntry, Document, Workspace, WorkspaceError,
};
use crate::index::sections::DocumentEntries;
use crate::index::sections::Merged;
use crate::index::{DocCard, SectionIndex, SectionIndexError, SectionWriter};
use crate::parse::format_for_path;
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
    /// of it instead of as documents (each is also a line in `notices`; see [`duplicates`]).
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

/// A file to index; `explicit` when named on the command line (not found by recursion).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Absolute path.
    pub path: PathBuf,
    /// Named directly by the user.
    pub explicit: bool,
}

/// True when a command-line path is a glob (`docs/**/*.md`): it has `*`, `?`, `[` or `{`.
pub fn is_glob(arg: &str) -> bool {
    arg.contains(['*', '?', '[', '{'])
}

fn is_hidden(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0
        && entry
            .file_name()
            .to_str()
            .is_some_and(|s| s.starts_with('.'))
}

/// A walked entry that is a site's by-product, not one of its pages: Sphinx's own output beside
/// the pages of an HTML build ([`is_sphinx_output`]) or a "not found" page
/// ([`is_not_found_page`]); never the walk's root.
fn is_walked_site_output(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0
        && match (entry.path().parent(), entry.file_name().to_str()) {
            (Some(parent), Some(name)) => {
                (entry.file_type().is_file() && is_not_found_page(name))
                    || is_sphinx_output(parent, name)
            }
            _ => false,
        }
}

/// Expand command-line arguments (files, folders, globs) into input files of `formats`.
///
/// Folders are walked recursively for the extensions of `formats` ([`DocFormat::extensions`]:
/// `.md .markdown .pdf .txt .html .htm .xhtml .docx .epub` for all), passing over hidden entries,
/// [Sphinx's own output](is_sphinx_output) beside a build's pages, a site's `404.html`
/// ([`is_not_found_page`]) and a `.txt` file beside an HTML page of its stem
/// ([`sources_beside_pages`]); globs
/// (`docs/**/*.md`) are matched with globset from their literal prefix, and their matches of
/// known extensions outside `formats` passed over. Returns the inputs (deduplicated, sorted)
/// and one error line per argument that matched nothing, per one that is neither a file nor a
/// folder (a device, pipe or socket) and per named file of a format outside `formats`.
pub fn collect_inputs(args: &[String], formats: &[DocFormat]) -> (Vec<Input>, Vec<String>) {
    let mut found: Vec<Input> = Vec::new();
    let mut errors = Vec::new();
    let excluded = |p: &Path| format_for_path(p).is_some_and(|f| !formats.contains(&f));
    let names: Vec<&str> = formats.iter().map(|f| f.flag_name()).collect();
    for arg in args {
        let path = Path::new(arg);
        // One stat per argument, following links as `Path::is_file` does.
        let kind = std::fs::metadata(path).ok().map(|m| m.file_type());
        if kind.is_some_and(|k| k.is_file()) {
            if excluded(path) {
                errors.push(format!(
                    "`{arg}` is {}, not one of --formats {}",
                    format_for_path(path).map_or("", |f| f.flag_name()),
                    names.join(",")
                ));
                continue;
            }
            found.push(Input {
                path: absolute(path),
                explicit: true,
            });
        } else if kind.is_some_and(|k| k.is_dir()) {
            let before = found.len();
            // Resolved once: below it the walk meets real folders and regular files only (links
            // are not followed), so a file's path is the root's plus its own name; resolving
            // each of 100,000 files took a third of a one-file re-index (issue 24).
            let root = absolute(path);
            let mut pages = false;
            for entry in walkdir::WalkDir::new(path)
                // By file name, compared as whole paths: siblings share their parent's path, so
                // the order is the same, without parsing each name out of its path for each of
                // 1.7 million comparisons (8% of a one-file re-index at 100,000 documents).
                .sort_by(|a, b| a.path().as_os_str().cmp(b.path().as_os_str()))
                .into_iter()
                .filter_entry(|e| !is_hidden(e) && !is_walked_site_output(e))
                .flatten()
            {
                if !entry.file_type().is_file() {
                    continue;
                }
                let format = format_for_path(entry.path());
                if format.is_some_and(|f| formats.contains(&f)) {
                    pages |= format == Some(DocFormat::Html);
                    let path = match entry.path().strip_prefix(path) {
                        Ok(relative) => root.join(relative),
                        Err(_) => absolute(entry.path()),
                    };
                    found.push(Input {
                        path,
                        explicit: false,
                    });
                }
            }
            // Only a walk that found HTML pages can have their sources beside them.
            let sources: HashSet<usize> = if pages {
                let paths: Vec<&Path> = found[before..].iter().map(|i| i.path.as_path()).collect();
                sources_beside_pages(&paths).into_iter().collect()
            } else {
                HashSet::new()
            };
            if !sources.is_empty() {
                let walked = found.split_off(before);
                found.extend(
                    walked
                        .into_iter()
                        .enumerate()
                        .filter(|(i, _)| !sources.contains(i))
                        .map(|(_, input)| input),
                );
            }
            if found.len() == before {
                errors.push(format!(
                    "`{arg}` contains no {} files",
                    crate::parse::extension_list(formats)
                ));
            }
        } else if is_glob(arg) {
            let before = found.len();
            match Glob::new(arg) {
                Ok(glob) => {
                    let matcher = glob.compile_matcher();
                    let base = glob_base(arg);
                    for entry in walkdir::WalkDir::new(&base)
                        .sort_by_file_name()
                        .into_iter()
                        .flatten()
                    {
                        let p = entry.path();
                        let rel = p.strip_prefix("./").unwrap_or(p);
                        if entry.file_type().is_file()
                            && (matcher.is_match(rel) || matcher.is_match(p))
                            && !excluded(p)
                        {
                            found.push(Input {
                                path: absolute(p),
                                explicit: true,
                            });
                        }
                    }
                    if found.len() == before {
                        errors.push(format!("`{arg}` matches no files"));
                    }
                }
                Err(e) => errors.push(format!("`{arg}` is not a valid glob: {e}")),
            }
        } else if kind.is_some() {
            // There, but not something to read to its end: /dev/zero never ends, a pipe waits.
            errors.push(format!(
                "`{arg}` is not a file or a folder (a device, pipe or socket); not indexed"
            ));
        } else {
            errors.push(format!("`{arg}`: no such file or directory"));
        }
    }
    dedup_inputs(&mut found);
    (found, errors)
}

/// Where an index run of files named one by one starts (see [`named_files_start`]).
struct NamedFilesStart {
    /// The catalog's rows of those files only.
    catalog: Catalog,
    walked: (Vec<Input>, Vec<String>),
    /// Those rows' tree files that exist.
    tree_files: FxHashSet<String>,
    /// The catalog, to check new ids against the rows not read.
    store: super::CatalogStore,
    /// The named files' sources (absolute), present and gone: only their aliases are pruned.
    sources: FxHashSet<String>,
}

/// For a run over files named one by one (no folder or glob), on a workspace of this format:
/// their inputs, their rows only, and which of those rows' tree files exist — a re-index of one
/// file at 100,000 documents read every row (0.1 s) and listed `docs/` (issue 24). With
/// `--prune`, a named file that is gone is named for its row, which the run then drops (what
/// `docnav index --watch` does when a file is deleted); one that no document came from is an
/// error. `None` for any other run, or when the catalog cannot be opened as it is (missing,
/// older, damaged: the whole-catalog path reports or repairs it).
fn named_files_start(
    dir: &Path,
    args: &[String],
    options: &IndexOptions,
    docs_dir: &Path,
) -> Option<NamedFilesStart> {
    let gone = |a: &String| options.prune && !is_glob(a) && !Path::new(a).exists();
    if args.is_empty() || !args.iter().all(|a| Path::new(a).is_file() || gone(a)) {
        return None;
    }
    let store = super::open_store(dir).ok()?;
    let (present, gone): (Vec<String>, Vec<String>) = args.iter().cloned().partition(|a| !gone(a));
    let mut walked = collect_inputs(&present, &options.formats);
    let gone_sources: Vec<String> = gone
        .iter()
        .map(|a| resolved_path(Path::new(a)).to_string_lossy().into_owned())
        .collect();
    let sources: Vec<String> = walked
        .0
        .iter()
        .map(|i| i.path.to_string_lossy().into_owned())
        .chain(gone_sources.iter().cloned())
        .collect();
    let rows = store.entries_for_sources(&sources).ok()?;
    let aliases = store.aliases().ok()?;
    for (arg, source) in gone.iter().zip(&gone_sources) {
        let known = rows.iter().any(|r| r.source == *source)
            || aliases.iter().any(|a| a.row.source == *source);
        if !known {
            walked.1.push(format!("`{arg}`: no such file or directory"));
        }
    }
    let tree_files = rows
        .iter()
        .filter(|r| docs_dir.join(&r.tree_file).is_file())
        .map(|r| r.tree_file.clone())
        .collect();
    Some(NamedFilesStart {
        catalog: Catalog {
            index_generation: store.head().index_generation,
            documents: rows,
            aliases,
        },
        walked,
        tree_files,
        store,
        sources: sources.into_iter().collect(),
    })
}

/// The result of a scoped thread; its panic goes on in the caller, as if it had run there.
fn join_scoped<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Keep the first input of each path, sorted by path. A stable sort keeps equal paths in their
/// order, and the sort is linear on a walk's output, which is nearly sorted (hashing 100,000
/// paths to find duplicates first was 5% of a one-file re-index, issue 24).
fn dedup_inputs(inputs: &mut Vec<Input>) {
    inputs.sort_by(|a, b| a.path.cmp(&b.path));
    inputs.dedup_by(|later, first| later.path == first.path);
}

/// The names of the files in the workspace's `docs/` (tree files, stray temp files), read once: a
/// stat per document was a tenth of a one-file re-index at 100,000 documents. Empty when it
/// cannot be read (the writes that follow report that).
fn list_tree_files(docs_dir: &Path) -> FxHashSet<String> {
    std::fs::read_dir(docs_dir)
        .map(|read| {
            read.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The literal directory prefix of a glob (`docs/**/*.md` → `docs`), `.` when none.
fn glob_base(glob: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for part in Path::new(glob).components() {
        let s = part.as_os_str().to_string_lossy();
        if is_glob(&s) {
            break;
        }
        base.push(part);
    }
    if base.as_os_str().is_empty() || base.is_file() {
        PathBuf::from(".")
    } else {
        base
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The path the catalog knows a file by, whether or not it still exists: [`absolute`] of the
/// path when it exists; when it is gone, its folder's (when that is still there) joined with
/// its name — what [`absolute`] made of it while it existed.
pub fn resolved_path(path: &Path) -> PathBuf {
    if path.exists() {
        return absolute(path);
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            absolute(parent).join(name)
        }
        _ => absolute(path),
    }
}

/// One unit of parallel work.
struct Job<'a> {
    input: Input,
    /// The row's id, or a new one.
    doc_id: std::borrow::Cow<'a, str>,
    /// The source's row in the starting catalog.
    previous: Option<Previous>,
}

/// Where a source's row is in the starting catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Previous {
    /// A document's row (an index into [`Catalog::documents`]).
    Document(usize),
    /// An alias's (an index into [`Catalog::aliases`]).
    Alias(usize),
}

impl Previous {
    /// The row itself.
    fn row<'a>(
        self,
        rows: &'a [CatalogEntry],
        aliases: &'a [super::AliasEntry],
    ) -> &'a CatalogEntry {
        match self {
            Previous::Document(i) => &rows[i],
            Previous::Alias(i) => &aliases[i].row,
        }
    }
}

/// Threads that write tree files and hand index entries to tantivy (waiting on its backlog,
/// and off Linux on each tree file's fsync) while the compute threads go on.
const WRITER_THREADS: usize = 4;

/// At most this many tantivy indexing threads (see [`Workspace::index`]).
const INDEXING_THREADS_MAX: usize = 2;

enum Outcome {
    Built(CatalogEntry, Box<DocCard>, Vec<String>, u64),
    /// Kept as it was; with the source's new size and modification time when only they moved.
    Unchanged(Option<(u64, u64)>),
    Failed(String),
    /// Built and serialized; the tree file still has to be written.
    Write(Box<PendingWrite>),
}

/// A built document whose tree file is not written yet.
struct PendingWrite {
    entry: CatalogEntry,
    card: DocCard,
    warnings: Vec<String>,
    source_bytes: u64,
    source: PathBuf,
    target: PathBuf,
    encoded: Vec<u8>,
    entries: DocumentEntries,
}

impl PendingWrite {
    /// Write the tree file (temp + rename; made durable before the commit, see
    /// [`write_atomic_deferred`]), then replace the document's entries in the section index
    /// (visible at its commit).
    fn commit(self, writer: &SectionWriter) -> Outcome {
        if let Err(e) = write_atomic_deferred(&self.target, &self.encoded) {
            return Outcome::Failed(format!(
                "cannot write `{}` for `{}`: {e}",
                self.target.display(),
                self.source.display()
            ));
        }
        match writer.replace(self.entries) {
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

/// The catalog an index run starts from, read under the lock. A catalog of an older format is
/// read for its rows only (ids, sources), all of which must be rebuilt.
fn starting_catalog(dir: &Path) -> Result<(Catalog, Option<u32>), WorkspaceError> {
    match super::read_catalog(dir) {
        Ok(catalog) => Ok((catalog, None)),
        Err(WorkspaceError::Missing(_)) => Ok((Catalog::default(), None)),
        Err(WorkspaceError::Outdated { found, .. }) => {
            let documents = super::read_legacy_catalog(dir)
                .map(|(_, rows)| rows)
                .unwrap_or_default();
            // Tree files of another format are not read again: every row is rebuilt.
            let documents = documents
                .into_iter()
                .map(|mut e| {
                    e.build_key.clear();
                    e
                })
                .collect();
            Ok((
                Catalog {
                    index_generation: 0,
                    documents,
                    aliases: Vec::new(),
                },
                Some(found),
            ))
        }
        Err(e) => Err(e),
    }
}

/// The section index an index run writes to: the workspace's, or a new one when it is missing,
/// damaged or belongs to an older format (with a notice saying so).
fn starting_index(
    dir: &Path,
    outdated: bool,
    documents: usize,
    notices: &mut Vec<String>,
) -> Result<SectionIndex, WorkspaceError> {
    let index_dir = dir.join("index");
    if !outdated {
        match SectionIndex::open(&index_dir) {
            Ok(index) => return Ok(index),
            Err(SectionIndexError::Schema { .. }) => notices.push(format!(
                "the search index of `{}` was made by another docnav version; rebuilding it \
                 from the tree files",
                dir.display()
            )),
            Err(e) if index_dir.join("meta.json").exists() => notices.push(format!(
                "the search index of `{}` is damaged ({e}); rebuilding it from the tree files",
                dir.display()
            )),
            Err(_) if documents > 0 => notices.push(format!(
                "the search index of `{}` is missing; rebuilding it from the tree files",
                dir.display()
            )),
            Err(_) => {}
        }
    }
    if index_dir.exists() {
        std::fs::remove_dir_all(&index_dir).map_err(|source| WorkspaceError::Io {
            path: index_dir.clone(),
            source,
        })?;
    }
    SectionIndex::create(&index_dir).map_err(|e| search_error(dir, e))
}

impl Workspace {
    /// Index `args` (files, folders, globs) into the workspace at `dir`, creating it if needed.
    ///
    /// Unchanged documents (same size and mtime, or same sha256) are skipped; a failing input is
    /// reported and counted, its previous state kept, and the rest of the run goes on. The catalog is
    /// replaced atomically at the end. Errors: only workspace-level failures (cannot create the
    /// directory, take the lock, or write the catalog), and [`WorkspaceError::Cancelled`] when
    /// `progress` cancels the run; per-file failures are in the report.
    pub fn index(
        dir: &Path,
        args: &[String],
        options: &IndexOptions,
        progress: &dyn IndexProgress,
    ) -> Result<IndexReport, WorkspaceError> {
        let started = Instant::now();
        // Where a run's time goes, at `RUST_LOG=docnav=debug` (issue 24's one-file re-index).
        let lap = |phase: &str| {
            tracing::debug!(
                "index: {phase} done at {} ms",
                started.elapsed().as_millis()
            )
        };
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| WorkspaceError::Io { path, source }
        };
        let docs_dir = dir.join("docs");
        std::fs::create_dir_all(&docs_dir).map_err(io(&docs_dir))?;
        let _lock = WriterLock::acquire(dir)?;
        // Read under the lock: another writer may have committed since we were started. The
        // catalog is read while the sources are walked and the tree files listed: one after
        // another, the three were 90, 170 and 60 ms of a one-file re-index at 100,000 documents
        // (issue 24).
        let named = named_files_start(dir, args, options, &docs_dir);
        let mut named_sources = named.as_ref().map(|start| start.sources.clone());
        let (starting, walked, mut tree_files, mut named_store) = match named {
            Some(start) => (
                Ok((start.catalog, None)),
                Some(start.walked),
                start.tree_files,
                Some(start.store),
            ),
            None => {
                let (starting, walked, tree_files) = std::thread::scope(|scope| {
                    let walk = (!args.is_empty())
                        .then(|| scope.spawn(|| collect_inputs(args, &options.formats)));
                    let listing = scope.spawn(|| list_tree_files(&docs_dir));
                    let starting = starting_catalog(dir);
                    (starting, walk.map(join_scoped), join_scoped(listing))
                });
                (starting, walked, tree_files, None)
            }
        };
        let mut notices = Vec::new();
        let (mut catalog, outdated) = match starting {
            // The damage message's hint is `docnav index --force`: keep the damaged file beside
            // the workspace and start from an empty catalog (the paths given are indexed again).
            Err(WorkspaceError::Corrupt { path, reason })
                if options.force && path == super::catalog_path(dir) =>
            {
                let aside = path.with_extension(format!(
                    "db.damaged-{}",
                    std::time::SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs())
                ));
                std::fs::rename(&path, &aside).map_err(io(&path))?;
                for log in ["catalog.db-wal", "catalog.db-shm"] {
                    let _ = std::fs::remove_file(dir.join(log));
                }
                notices.push(format!(
                    "the catalog `{}` was damaged ({reason}); kept as `{}`, starting a new one",
                    path.display(),
                    aside.display()
                ));
                (Catalog::default(), None)
            }
            other => other?,
        };
        lap("catalog read");
        if let Some(found) = outdated {
            notices.push(format!(
                "`{}` was made by an older docnav (format {found}; this one reads format {}); \
                 rebuilding its {} document(s)",
                dir.display(),
                super::FORMAT_VERSION,
                catalog.documents.len()
            ));
        }
        let index = starting_index(
            dir,
            outdated.is_some(),
            catalog.documents.len(),
            &mut notices,
        )?;
        // An index made before issue 24's sorting stays unsorted until it is made anew; when
        // this run rebuilds every document anyway (all were built by an older builder), the
        // index is made anew, sorted, and filled from the rebuilt trees at no extra cost.
        let index = if named_store.is_none()
            && outdated.is_none()
            && !index.sorted_by_doc_id()
            && !catalog.documents.is_empty()
            && catalog
                .documents
                .iter()
                .all(|row| !super::built_by_this_builder(&row.build_key))
        {
            drop(index);
            notices.push(format!(
                "the search index of `{}` is made anew, sorted by document (faster searches \
                 at scale; every document is rebuilt by this docnav anyway)",
                dir.display()
            ));
            starting_index(dir, true, 0, &mut notices)?
        } else {
            index
        };
        lap("index opened");
        // What the index holds, document by document. When its last commit is the catalog's
        // (every run ends that way; an interrupted one does not), it holds exactly the
        // catalog's rows, and reading its 100,000 card entries back was a fifth of a one-file
        // re-index (issue 24); otherwise it is read.
        let in_step = outdated.is_none()
            && index.generation().ok().flatten() == Some(catalog.index_generation)
            && catalog.index_generation > 0;
        // Named files over an index out of step (an interrupted run): the index is checked
        // against every row, so every row is read.
        if named_store.is_some() && !in_step {
            named_store = None;
            named_sources = None;
            catalog = super::read_catalog(dir)?;
            tree_files = list_tree_files(&docs_dir);
        }
        let indexed: Option<HashMap<String, String>> = if in_step {
            None
        } else {
            Some(index.documents().map_err(|e| search_error(dir, e))?)
        };
        // Two tantivy indexing threads when there are two cores: with one, it was the slowest
        // stage and the threads feeding it spun on its full queue (crossbeam's backoff, 18% of
        // the CPU of a 100,000-heading file). Measured on 2 cores (BENCHMARKS.md, "Scale"):
        // corpus Markdown 0.22 → 0.18 s, 100,000 sibling headings 0.64 → 0.47 s. Capped so a
        // many-core machine does not cut a small index into many segments (each thread writes
        // its own, with its own memory budget); more than 2 is unmeasured.
        let writer = index
            .writer(options.jobs.clamp(1, INDEXING_THREADS_MAX))
            .map_err(|e| search_error(dir, e))?;

        // No paths: refresh every document of the catalog (an older workspace: the same).
        let refresh = args.is_empty() || outdated.is_some();
        let (mut inputs, mut errors) = walked.unwrap_or_default();
        if refresh {
            // The sources of aliases too: one changed since may no longer have its document's text.
            let (present, gone): (Vec<&CatalogEntry>, Vec<&CatalogEntry>) = catalog
                .documents
                .iter()
                .chain(catalog.aliases.iter().map(|a| &a.row))
                .partition(|e| Path::new(&e.source).is_file());
            // Sources of formats outside `--formats` are left as they are, not refused.
            let sources: Vec<String> = present
                .iter()
                .filter(|e| options.formats.contains(&e.format))
                .map(|e| e.source.clone())
                .collect();
            if outdated.is_some() {
                // Their tree files are of the old format: nothing of them can be kept.
                for e in &gone {
                    notices.push(format!(
                        "`{}` ({}) is gone; dropped from the workspace",
                        e.source, e.doc_id
                    ));
                }
                let gone: HashSet<String> = gone.iter().map(|e| e.doc_id.clone()).collect();
                catalog.documents.retain(|e| !gone.contains(&e.doc_id));
                catalog.aliases.retain(|a| !gone.contains(a.alias()));
            }
            let (more, more_errors) = collect_inputs(&sources, &options.formats);
            inputs.extend(more);
            errors.extend(more_errors);
            dedup_inputs(&mut inputs);
        }
        lap("inputs walked");
        let mut report = IndexReport {
            failed: errors.len(),
            notices,
            ..IndexReport::default()
        };
        progress.start(inputs.len());

        // Rows are referred to by their index, not copied: 100,000 of them were cloned three
        // times over in a one-file re-index (issue 24).
        let rows = &catalog.documents;
        let aliases = &catalog.aliases;
        let by_source: FxHashMap<&str, Previous> = rows
            .iter()
            .enumerate()
            .map(|(i, e)| (e.source.as_str(), Previous::Document(i)))
            .chain(
                aliases
                    .iter()
                    .enumerate()
                    .map(|(i, a)| (a.row.source.as_str(), Previous::Alias(i))),
            )
            .collect();
        // The ids in use, gathered only when a new document needs one.
        let mut known: Option<FxHashSet<&str>> = None;
        let mut taken: HashSet<String> = HashSet::new();
        let jobs: Vec<Job> = inputs
            .into_iter()
            .map(|input| {
                let previous = by_source.get(&*input.path.to_string_lossy()).copied();
                let doc_id = match previous {
                    Some(previous) => {
                        std::borrow::Cow::Borrowed(previous.row(rows, aliases).doc_id.as_str())
                    }
                    None => {
                        let known = known.get_or_insert_with(|| {
                            rows.iter()
                                .map(|e| e.doc_id.as_str())
                                .chain(aliases.iter().map(|a| a.alias()))
                                .collect()
                        });
                        // With only the named files' rows read, the catalog is asked.
                        let in_catalog = |c: &str| {
                            named_store
                                .as_ref()
                                .is_some_and(|s| !matches!(s.entry(c), Ok(None)))
                        };
                        let id = unique_slug(&doc_id_base(&input.path), |c| {
                            known.contains(c) || taken.contains(c) || in_catalog(c)
                        });
                        taken.insert(id.clone());
                        std::borrow::Cow::Owned(id)
                    }
                };
                Job {
                    input,
                    doc_id,
                    previous,
                }
            })
            .collect();

        let key = build_key(&options.build);
        let context = JobContext {
            docs_dir: &docs_dir,
            tree_files: &tree_files,
            build_key: &key,
            options,
            index: &index,
        };
        let next = AtomicUsize::new(0);
        lap("jobs planned");
        let outcomes: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::new());
        // Documents kept as they were are only counted: 100,000 outcomes pushed under a lock
        // into a growing vector were a third of a one-file re-index's job phase (issue 24).
        let unchanged = AtomicUsize::new(0);
        let threads = options.jobs.max(1).min(jobs.len().max(1));
        // Compute threads (one per core) parse, build and serialize; a few writer threads write
        // tree files and hand entries to tantivy, so waits (tantivy's backlog; off Linux, an
        // fsync per file) overlap the CPU work instead of stalling it. On Linux the tree files
        // are made durable together, by one syncfs before the index commit.
        // Bounded: a built document waits here with its tree and index entries in memory, and the
        // writer threads are slower than parsing whenever tantivy is busy (unbounded, a
        // 10,000-document run held 3.7 GB).
        let (to_writers, writes) =
            std::sync::mpsc::sync_channel::<(usize, PendingWrite)>(WRITER_THREADS * 2);
        let writes = Mutex::new(writes);
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
                    let outcome = pending.commit(&writer);
                    if let Ok(mut all) = outcomes.lock() {
                        all.push((i, outcome));
                    }
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
                        let outcome = run_job(job, previous, &context, &mut statter);
                        progress.file_done(&job.input.path);
                        let outcome = match outcome {
                            Outcome::Write(pending) => match to_writers.send((i, *pending)) {
                                Ok(()) => continue,
                                Err(std::sync::mpsc::SendError((_, pending))) => {
                                    pending.commit(&writer)
                                }
                            },
                            Outcome::Unchanged(None) => {
                                unchanged.fetch_add(1, Ordering::Relaxed);
                                continue;
                            }
                            other => other,
                        };
                        if let Ok(mut all) = outcomes.lock() {
                            all.push((i, outcome));
                        }
                    }
                });
            }
            drop(to_writers);
        });
        if progress.cancelled() {
            return Err(WorkspaceError::Cancelled(dir.to_path_buf()));
        }
        report.unchanged = unchanged.into_inner();
        let mut outcomes = outcomes.into_inner().unwrap_or_default();
        outcomes.sort_by_key(|(i, _)| *i);
        lap("jobs run");

        // The rows of the new catalog: the starting rows (an older workspace's are in no store,
        // and one of them that is not rebuilt is dropped), rebuilt ones replaced, new ones added,
        // moved ones re-stated; only these changes are written.
        let in_store = outdated.is_none();
        let mut changes = store::CatalogChanges::default();
        let mut replaced: Vec<Option<CatalogEntry>> = Vec::new();
        replaced.resize_with(catalog.documents.len(), || None);
        let mut added: Vec<CatalogEntry> = Vec::new();
        let mut restat: Vec<(usize, (u64, u64))> = Vec::new();
        let mut built: HashMap<String, DocCard> = HashMap::new();
        let mut candidates: Vec<duplicates::Candidate> = Vec::new();
        let mut alias_stat: Vec<(usize, (u64, u64))> = Vec::new();
        // An alias whose source is an input is unchanged unless its outcome says otherwise.
        let mut alias_fates = vec![duplicates::AliasFate::Unread; catalog.aliases.len()];
        for job in &jobs {
            if let Some(Previous::Alias(a)) = job.previous {
                alias_fates[a] = duplicates::AliasFate::Kept;
            }
        }
        for (i, outcome) in outcomes {
            // Every write went through the writer threads; commit any left over here.
            let outcome = match outcome {
                Outcome::Write(pending) => pending.commit(&writer),
                done => done,
            };
            let previous = jobs.get(i).and_then(|job| job.previous);
            match outcome {
                Outcome::Built(entry, card, warnings, bytes) => {
                    report.indexed += 1;
                    report.bytes_built += bytes;
                    report.warnings.extend(warnings);
                    built.insert(entry.doc_id.clone(), *card);
                    let was = match previous {
                        Some(Previous::Document(_)) => duplicates::Was::Document,
                        Some(Previous::Alias(a)) => {
                            alias_fates[a] = duplicates::AliasFate::Rebuilt;
                            duplicates::Was::AliasOf(catalog.aliases[a].target.clone())
                        }
                        None => duplicates::Was::New,
                    };
                    candidates.push(duplicates::Candidate {
                        doc_id: entry.doc_id.clone(),
                        was,
                    });
                    match previous {
                        Some(Previous::Document(p)) => replaced[p] = Some(entry),
                        Some(Previous::Alias(_)) | None => added.push(entry),
                    }
                }
                Outcome::Unchanged(moved) => {
                    report.unchanged += 1;
                    match (previous, moved) {
                        (Some(Previous::Document(p)), Some(stat)) => restat.push((p, stat)),
                        (Some(Previous::Alias(a)), Some((len, mtime))) => {
                            alias_fates[a] = duplicates::AliasFate::Moved;
                            alias_stat.push((a, (len, mtime)));
                        }
                        _ => {}
                    }
                }
                Outcome::Failed(message) => {
                    report.failed += 1;
                    errors.push(message);
                    if let Some(Previous::Alias(a)) = previous {
                        alias_fates[a] = duplicates::AliasFate::Failed;
                    }
                }
                Outcome::Write(_) => {}
            }
        }
        drop(jobs);
        let mut documents: Vec<CatalogEntry> = std::mem::take(&mut catalog.documents);
        for (p, (len, mtime)) in restat {
            documents[p].source_len = len;
            documents[p].mtime_ms = mtime;
            changes.restat.push(documents[p].clone());
        }
        let mut removed: Vec<String> = Vec::new();
        let mut kept_rows = Vec::with_capacity(documents.len() + added.len());
        for (row, replacement) in documents.into_iter().zip(replaced) {
            match replacement {
                Some(entry) => kept_rows.push(entry),
                None if !in_store => {}
                None if options.prune && !Path::new(&row.source).exists() => {
                    report.pruned += 1;
                    removed.push(row.doc_id);
                }
                None => kept_rows.push(row),
            }
        }
        if options.prune {
            let before = added.len();
            added.retain(|e| Path::new(&e.source).exists());
            report.pruned += before - added.len();
        }
        kept_rows.extend(added);
        let mut documents = kept_rows;
        documents.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        // The aliases: re-stated, pruned like documents (when files are named, only theirs),
        // then each text kept once (`duplicates`), which may build an alias's source again.
        let mut starting_aliases = std::mem::take(&mut catalog.aliases);
        for (a, (len, mtime)) in alias_stat {
            starting_aliases[a].row.source_len = len;
            starting_aliases[a].row.mtime_ms = mtime;
        }
        let aliases = duplicates::unpruned(
            starting_aliases,
            alias_fates,
            duplicates::Pruning {
                prune: options.prune,
                named_sources: named_sources.as_ref(),
            },
            &mut report,
            &mut changes.remove_aliases,
        );
        let mut statter = SourceStatter::default();
        let mut build_again = |alias: &super::AliasEntry| {
            duplicates::build_source(alias, &context, &writer, &mut statter)
        };
        let decided = duplicates::keep_once(
            duplicates::Catalog {
                documents: &mut documents,
                built: &mut built,
                removed: &mut removed,
                store: named_store.as_ref(),
            },
            candidates,
            aliases,
            &mut build_again,
            &mut report,
            &mut errors,
        );
        // The catalog's snapshot is not needed past here (the write below opens its own).
        drop(named_store.take());
        for doc_id in &decided.unindexed {
            writer.delete(doc_id);
        }
        tree_files.extend(decided.discarded);
        changes.put_aliases = decided.put_aliases;
        changes.remove_aliases.extend(decided.remove_aliases);
        lap("rows merged");
        // The index must hold exactly these documents. In step with the starting catalog, it
        // holds that catalog's rows: delete the removed ones (the rebuilt ones were replaced).
        // Otherwise (a rebuilt or interrupted index), delete what it holds beyond these
        // documents, and index documents kept as they were whose entries are missing or from
        // another build.
        match &indexed {
            None => {
                for doc_id in &removed {
                    writer.delete(doc_id);
                }
            }
            Some(indexed) => {
                let kept: HashSet<&str> = documents.iter().map(|e| e.doc_id.as_str()).collect();
                for doc_id in indexed.keys() {
                    if !kept.contains(doc_id.as_str()) {
                        writer.delete(doc_id);
                    }
                }
            }
        }
        let mut restored = 0usize;
        for entry in indexed.iter().flat_map(|_| &documents) {
            if built.contains_key(&entry.doc_id)
                || indexed
                    .as_ref()
                    .is_some_and(|i| i.get(&entry.doc_id) == Some(&entry.tree_file))
            {
                continue;
            }
            let path = docs_dir.join(&entry.tree_file);
            let doc = std::fs::read(&path)
                .map_err(io(&path))
                .and_then(|bytes| decode_tree_file(&path, &bytes))?;
            writer
                .replace(index.entries(&doc.card, &doc.tree, &entry.tree_file))
                .map_err(|e| search_error(dir, e))?;
            restored += 1;
        }
        if restored > 0 && !refresh {
            tracing::debug!("{restored} unchanged document(s) re-entered in the search index");
        }
        // Every document as it was, the index in step with the catalog: there is nothing to
        // commit, and neither the index nor the catalog is written.
        if indexed.is_none()
            && built.is_empty()
            && removed.is_empty()
            && changes.restat.is_empty()
            && changes.put_aliases.is_empty()
            && changes.remove_aliases.is_empty()
        {
            // An index left in many segments by a run interrupted in its final merge is merged
            // by tantivy's log policy even so (eight similar segments; fewer cost nothing), or
            // into one when the merge is asked for.
            if options.merge {
                progress.phase("merging the search index");
            }
            let merge = writer.finish_without_commit(options.merge);
            report.errors = errors;
            record_merge(&mut report, merge, options.merge, dir);
            remove_unreferenced(&docs_dir, &tree_files, &documents);
            report.elapsed = started.elapsed();
            return Ok(report);
        }
        // The new tree files (content and names) must be durable before the index and the
        // catalog name them: one sync of the filesystem instead of one per file.
        sync_filesystem(&docs_dir).map_err(io(&docs_dir))?;
        lap("synced");
        crash_point("before-index-commit");
        let generation = catalog
            .index_generation
            .max(index.generation().ok().flatten().unwrap_or(0))
            + 1;
        let committed = writer
            .commit(generation)
            .map_err(|e| search_error(dir, e))?;
        crash_point("after-index-commit");
        lap("index committed");
        // Only the rows this run changed are written (issue 24): rebuilt documents with their
        // cards, unchanged ones whose size or time moved, and the removed ones.
        changes.index_generation = generation;
        changes.remove = removed;
        // A catalog of an older format is replaced whole: every document was rebuilt.
        changes.replace_all = outdated.is_some();
        for entry in &documents {
            if let Some(card) = built.remove(&entry.doc_id) {
                changes.upsert.push((entry.clone(), card));
            }
        }
        store::write(dir, &changes)?;
        crash_point("after-catalog");
        lap("catalog written");
        // Merges after the catalog names the commit: the run is whole already, and a failed
        // merge only leaves the index in more segments (see `index::sections::merge`).
        let plan = match options.merge {
            true => committed.full_merge(),
            false => committed.bulk_merge(),
        };
        let merge = plan.and_then(|plan| {
            if let Some(plan) = &plan {
                progress.phase(&format!(
                    "merging the search index ({} segments, {} entries)",
                    plan.segments(),
                    plan.entries
                ));
            }
            committed.finish(plan.as_ref())
        });
        report.errors = errors;
        record_merge(&mut report, merge, options.merge, dir);
        lap("index merged");
        // An older workspace's catalog, now superseded.
        let _ = std::fs::remove_file(super::catalog_v4_path(dir));
        let _ = std::fs::remove_file(super::legacy_catalog_path(dir));
        remove_unreferenced(&docs_dir, &tree_files, &documents);
        report.elapsed = started.elapsed();
        Ok(report)
    }
}

/// The warning of a run whose merge failed (its commit stands).
/// Puts the outcome of a run's merge in `report`: a failure is a warning, or an error when the
/// merge was asked for (`requested`, [`IndexOptions::merge`]).
fn record_merge(
    report: &mut IndexReport,
    merge: Result<Option<Merged>, SectionIndexError>,
    requested: bool,
    dir: &Path,
) {
    match merge {
        Ok(merged) => report.merged = merged,
        Err(e) if requested => {
            report.errors.push(not_merged(dir, &e));
            report.merge_failed = true;
        }
        Err(e) => report.warnings.push(not_merged(dir, &e)),
    }
}

fn not_merged(dir: &Path, e: &SectionIndexError) -> String {
    format!(
        "the search index of `{}` was not merged ({e}); its searches are right, and slower in \
         many segments until a later run merges them",
        dir.display()
    )
}

/// Fault injection for the crash-safety tests: when `DOCNAV_TEST_CRASH_AT` names this point
/// (`before-index-commit`, `after-index-commit`, `after-catalog`), the process dies on the spot
/// (`abort`: no destructor, no flush, no lock release but the OS's), as a SIGKILL there would.
fn crash_point(point: &str) {
    if std::env::var_os("DOCNAV_TEST_CRASH_AT").is_some_and(|v| v == point) {
        std::process::abort();
    }
}

/// Delete the files of `docs_dir` listed when the run started (`listed`: older trees, stray temp
/// files of an interrupted run) that the committed catalog does not name. Best effort; the files
/// this run wrote are all named (a temp file of a write that failed is left for the next run).
fn remove_unreferenced(docs_dir: &Path, listed: &FxHashSet<String>, documents: &[CatalogEntry]) {
    let keep: FxHashSet<&str> = documents.iter().map(|e| e.tree_file.as_str()).collect();
    for name in listed {
        if !keep.contains(name.as_str()) {
            let _ = std::fs::remove_file(docs_dir.join(name));
        }
    }
}

/// What every job of a run shares.
struct JobContext<'a> {
    docs_dir: &'a Path,
    /// The names in `docs_dir` when the run started.
    tree_files: &'a FxHashSet<String>,
    /// [`build_key`] of this run's options.
    build_key: &'a str,
    options: &'a IndexOptions,
    index: &'a SectionIndex,
}

fn run_job(
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
            && prev.build_key == key
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
    // A panic in a parser is a bug, but it must cost one file, not the run.
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Document::build_fingerprinted(
            path,
            &bytes,
            &fp,
            &job.doc_id,
            job.input.explicit,
            &options.build,
        )
    }));
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
    let tree_file = tree_file_name(&job.doc_id, &fp, key);
    // Tree files are about 1–2× their source (text + postings): reserve once, no regrowth.
    let encoded = match encode_tree_file(&built.document, bytes.len().saturating_mul(2)) {
        Ok(encoded) => encoded,
        Err(e) => return Outcome::Failed(format!("cannot serialize `{}`: {e}", path.display())),
    };
    let target = docs_dir.join(&tree_file);
    let entries = index.entries_with_terms(
        &built.document.card,
        &built.document.tree,
        &built.terms,
        &tree_file,
    );
    let entry = CatalogEntry::of(
        &built.document.card,
        tree_file,
        len,
        mtime,
        key.to_string(),
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
