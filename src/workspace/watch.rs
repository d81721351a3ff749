//! Watching files and folders and keeping the workspace in step with them (`docnav index
//! --watch`; any face can drive the same loop).
//!
//! The pieces, in the order a watcher uses them:
//! 1. [`roots`] resolves the paths to watch (files and folders, not globs) into [`Root`]s.
//! 2. [`Changes::start`] asks the system to report changes under them (inotify on Linux,
//!    through the `notify` crate). Start it before the first index run, so that a change made
//!    while that run goes on is not lost.
//! 3. [`Changes::next_batch`] waits for the next [`Batch`]: a change and those that follow it
//!    within [`QUIET`], for at most [`BATCH_MAX`].
//! 4. [`Watch::plan`] decides what a batch asks of the indexer ([`Plan`]): the file system says
//!    what each changed path is now, whatever the events said on the way.
//! 5. [`Watch::index`] runs the indexer for a plan: changed and new files are (re)built,
//!    deleted or moved-away files have their documents dropped, by name. A run over named files
//!    reads only their catalog rows, so the cost of a change does not grow with the workspace
//!    (re-indexing the folder has to `stat` every file of it instead).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::EventKind;
use notify::{RecursiveMode, Watcher};

use super::indexer::{IndexOptions, IndexReport, NoProgress};
use super::{CatalogStore, Workspace, WorkspaceError};
use crate::parse::format_for_path;
use crate::tree::DocFormat;
use crate::workspace::site_files::{
    is_not_found_page, is_source_beside_page, is_under_sphinx_output,
};

/// A batch closes once no change has come for this long (200 ms; an editor's save is a few
/// events within milliseconds: write a temporary file, rename it over the old one).
pub const QUIET: Duration = Duration::from_millis(200);

/// A batch closes after this long even while changes keep coming (2 s; a file rewritten without
/// pause is still indexed every so often).
pub const BATCH_MAX: Duration = Duration::from_secs(2);

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// A path to watch is a glob: a watch takes files and folders (a folder's files are chosen
    /// by [`IndexOptions::formats`]).
    #[error("`{0}` is a glob; a watch takes files and folders")]
    Glob(String),
    /// A path to watch does not exist (or cannot be resolved).
    #[error("cannot watch `{path}`: {source}")]
    Missing {
        /// The path as given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The system's watcher cannot be made.
    #[error("cannot watch for changes: {0}")]
    Start(notify::Error),
    /// A path cannot be watched (on Linux most often inotify's limit of watches).
    #[error(
        "cannot watch `{}`: {source} (on Linux, see /proc/sys/fs/inotify/max_user_watches)",
        path.display()
    )]
    Path {
        /// The file or folder given to the system's watcher.
        path: PathBuf,
        /// The watcher's error.
        source: notify::Error,
    },
}

/// One watched path, resolved.
#[derive(Debug, Clone)]
pub struct Root {
    /// Absolute, symbolic links resolved (as the catalog names sources).
    pub path: PathBuf,
    /// A folder (watched recursively) or a file (its folder watched for its name only).
    pub is_dir: bool,
}

/// The paths to watch (as a user names them, relative to the working directory), resolved.
///
/// Errors: [`WatchError::Glob`] for a glob, [`WatchError::Missing`] for a path that does not
/// exist; the first such path stops the resolution.
pub fn roots(paths: &[String]) -> Result<Vec<Root>, WatchError> {
    paths
        .iter()
        .map(|arg| {
            if super::indexer::is_glob(arg) {
                return Err(WatchError::Glob(arg.clone()));
            }
            let path = std::fs::canonicalize(arg).map_err(|source| WatchError::Missing {
                path: arg.clone(),
                source,
            })?;
            Ok(Root {
                is_dir: path.is_dir(),
                path,
            })
        })
        .collect()
}

/// One batch of changes, as the system reported them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// The paths changed (created, written, removed, renamed from or to), each once.
    pub changed: BTreeSet<PathBuf>,
    /// The system lost events (its queue overflowed) or reported an error: what changed is not
    /// known, and the roots must be indexed again.
    pub lost_events: bool,
}

/// The system's change reports for a set of roots; watching stops when this is dropped.
pub struct Changes {
    /// Kept for its lifetime: dropping it stops the reports.
    _watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
}

impl Changes {
    /// Start watching `roots`: folders recursively, a file through its folder.
    ///
    /// Errors: [`WatchError::Start`] when the system's watcher cannot be made,
    /// [`WatchError::Path`] when a path cannot be watched (e.g. inotify's limits).
    pub fn start(roots: &[Root]) -> Result<Changes, WatchError> {
        let (tx, events) = std::sync::mpsc::channel();
        let mut watcher = notify::recommended_watcher(tx).map_err(WatchError::Start)?;
        for root in roots {
            let (path, mode) = match (root.is_dir, root.path.parent()) {
                (true, _) | (false, None) => (root.path.as_path(), RecursiveMode::Recursive),
                (false, Some(parent)) => (parent, RecursiveMode::NonRecursive),
            };
            watcher
                .watch(path, mode)
                .map_err(|source| WatchError::Path {
                    path: path.to_path_buf(),
                    source,
                })?;
        }
        Ok(Changes {
            _watcher: watcher,
            events,
        })
    }

    /// Wait for the next batch of changes: block for the first event, then gather the ones
    /// that follow until [`QUIET`] passes without one or [`BATCH_MAX`] has passed. `None` when
    /// the watcher is gone. A lost-events notice, or a watch error (logged as a warning), sets
    /// [`Batch::lost_events`]; reads (access events) are no changes.
    pub fn next_batch(&self) -> Option<Batch> {
        let mut batch = Batch::default();
        let mut take = |event: notify::Result<notify::Event>| match event {
            Ok(event) => {
                batch.lost_events |= event.need_rescan();
                if !matches!(event.kind, EventKind::Access(_)) {
                    batch.changed.extend(event.paths);
                }
            }
            Err(e) => {
                tracing::warn!("watching: {e}; re-indexing the watched paths");
                batch.lost_events = true;
            }
        };
        take(self.events.recv().ok()?);
        let started = Instant::now();
        loop {
            let left = BATCH_MAX.saturating_sub(started.elapsed());
            if left.is_zero() {
                break;
            }
            match self.events.recv_timeout(QUIET.min(left)) {
                Ok(event) => take(event),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        Some(batch)
    }
}

/// What the changes of one batch ask of the indexer.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Files to (re)build, and folders that appeared (created or moved in) to index whole.
    pub index: Vec<PathBuf>,
    /// Files of a watched format that are gone (deleted, moved away): their documents go.
    pub gone: Vec<PathBuf>,
    /// Folders under a root that are gone: the documents from under them go.
    pub gone_folders: Vec<PathBuf>,
    /// The system lost events: re-index the roots, and drop the documents from under them
    /// whose files are gone.
    pub rescan: bool,
}

impl Plan {
    /// True when the batch asks for nothing.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
            && self.gone.is_empty()
            && self.gone_folders.is_empty()
            && !self.rescan
    }
}

/// One index run a plan needs: [`Workspace::index`] over `paths` with `prune` set as given
/// (the other options the watcher's).
#[derive(Debug, PartialEq, Eq)]
pub struct IndexRun {
    /// The files and folders to index, as the catalog names them.
    pub paths: Vec<String>,
    /// Drop the documents of the named files that are gone.
    pub prune: bool,
}

/// The watch state: the roots and the folders under them (to tell a vanished folder, whose
/// documents must go, from a vanished file of another format, which changes nothing).
pub struct Watch {
    roots: Vec<Root>,
    formats: Vec<DocFormat>,
    folders: HashSet<PathBuf>,
    /// The workspace, when it lies under a root: its own writes are no changes to index.
    workspace: PathBuf,
}

impl Watch {
    /// The watch over `roots` for files of `formats`, passing over the workspace folder
    /// `workspace` (which the runs write); lists the folders under the roots (hidden ones left
    /// out, as the index walk leaves them out). Make it after the first index run.
    pub fn new(roots: Vec<Root>, formats: Vec<DocFormat>, workspace: &Path) -> Watch {
        // Resolved as the events will name it (the folder may not exist yet).
        let workspace = super::indexer::resolved_path(workspace);
        let mut folders = HashSet::new();
        for root in roots.iter().filter(|r| r.is_dir) {
            for entry in walkdir::WalkDir::new(&root.path)
                .into_iter()
                .filter_entry(|e| e.depth() == 0 || !hidden_name(e.file_name()))
                .flatten()
            {
                if entry.file_type().is_dir() {
                    folders.insert(entry.into_path());
                }
            }
        }
        Watch {
            roots,
            formats,
            folders,
            workspace,
        }
    }

    /// The plan for one batch. The file system decides what each changed path is now,
    /// whatever the events said on the way (a save is often a write to a temporary file and a
    /// rename over the old one). Folders that appeared are remembered, gone ones forgotten.
    pub fn plan(&mut self, batch: &Batch) -> Plan {
        let mut plan = Plan {
            rescan: batch.lost_events,
            ..Plan::default()
        };
        for path in &batch.changed {
            if !self.covers(path) {
                continue;
            }
            let wanted = format_for_path(path).is_some_and(|f| self.formats.contains(&f));
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_file() => {
                    // A page's source beside it is passed over, as the folder walk does.
                    let source_of_page =
                        self.formats.contains(&DocFormat::Html) && is_source_beside_page(path);
                    let not_found_page = path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_not_found_page);
                    if wanted && !source_of_page && !not_found_page {
                        plan.index.push(path.clone());
                    }
                }
                Ok(m) if m.is_dir() => {
                    // A folder not known before appeared (created, or moved in with its files,
                    // which report no events of their own).
                    if self.folders.insert(path.clone()) {
                        self.folders.extend(
                            walkdir::WalkDir::new(path)
                                .into_iter()
                                .flatten()
                                .filter(|e| e.file_type().is_dir())
                                .map(walkdir::DirEntry::into_path),
                        );
                        plan.index.push(path.clone());
                    }
                }
                Ok(_) => {}
                Err(_) if wanted => plan.gone.push(path.clone()),
                Err(_) => {
                    if self.folders.remove(path) {
                        self.folders.retain(|f| !f.starts_with(path));
                        plan.gone_folders.push(path.clone());
                    }
                }
            }
        }
        plan
    }

    /// True when `path` is a root file, or lies under a root folder with no hidden name
    /// below it and outside Sphinx's own output (`_sources/`, `genindex.html`…: what the index
    /// walk leaves out, [`is_under_sphinx_output`]).
    fn covers(&self, path: &Path) -> bool {
        if path.starts_with(&self.workspace) {
            return false;
        }
        self.roots.iter().any(|root| {
            if !root.is_dir {
                return path == root.path;
            }
            path.strip_prefix(&root.path).is_ok_and(|rest| {
                rest.components().next().is_some()
                    && !rest.iter().any(hidden_name)
                    && !is_under_sphinx_output(&root.path, path)
            })
        })
    }

    /// The roots.
    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// The index runs `plan` needs in the workspace at `workspace`, in order (none for an
    /// empty plan). Documents are dropped by naming their gone files (prune over files only),
    /// so a watcher never drops documents from outside its paths; a file gone before it was
    /// ever indexed (a tool's short-lived file) is left out. Changed and gone files make one
    /// run, which reads only their catalog rows; a folder to walk gets a run of its own, and
    /// the gone files a second one.
    ///
    /// Errors: the catalog cannot be opened or read (only when something is gone).
    pub fn runs(&self, workspace: &Path, plan: &Plan) -> Result<Vec<IndexRun>, WorkspaceError> {
        if plan.is_empty() {
            return Ok(Vec::new());
        }
        let name = |p: &PathBuf| p.to_string_lossy().into_owned();
        let mut index: Vec<String> = plan.index.iter().map(name).collect();
        let mut gone: Vec<String> = plan.gone.iter().map(name).collect();
        let mut folders_gone: Vec<String> = plan.gone_folders.iter().map(name).collect();
        if plan.rescan {
            index = self.roots.iter().map(|r| name(&r.path)).collect();
            let dirs = self.roots.iter().filter(|r| r.is_dir);
            folders_gone.extend(dirs.map(|r| name(&r.path)));
            let files_gone = self.roots.iter().filter(|r| !r.is_dir && !r.path.exists());
            gone.extend(files_gone.map(|r| name(&r.path)));
        }
        if !gone.is_empty() || !folders_gone.is_empty() {
            let store = CatalogStore::open(workspace)?;
            // A file gone before it was ever indexed names no document and no alias (a source
            // kept once, its text a document's).
            let indexed: HashSet<String> = store
                .entries_for_sources(&gone)?
                .into_iter()
                .map(|row| row.source)
                .chain(store.aliases()?.into_iter().map(|alias| alias.row.source))
                .collect();
            gone.retain(|g| indexed.contains(g));
            for folder in &folders_gone {
                gone.extend(
                    store
                        .sources_under(folder)?
                        .into_iter()
                        .filter(|s| !Path::new(s).exists()),
                );
            }
        }
        let run = |paths: Vec<String>, prune: bool| IndexRun { paths, prune };
        if index.iter().any(|p| Path::new(p).is_dir()) {
            let mut runs = vec![run(index, false)];
            if !gone.is_empty() {
                runs.push(run(gone, true));
            }
            return Ok(runs);
        }
        let prune = !gone.is_empty();
        index.extend(gone);
        Ok(match index.is_empty() {
            true => Vec::new(),
            false => vec![run(index, prune)],
        })
    }

    /// Index what `plan` asks for in the workspace at `workspace`: each of [`Watch::runs`]
    /// with `options` (its `prune` the run's), handing each run's report to `on_report` as it
    /// ends. Returns whether anything ran.
    ///
    /// Errors: [`Watch::runs`]'s, and the first failing [`Workspace::index`] run's (the runs
    /// before it have reported; those after it do not run).
    pub fn index(
        &self,
        workspace: &Path,
        options: &IndexOptions,
        plan: &Plan,
        on_report: &mut dyn FnMut(&IndexReport),
    ) -> Result<bool, WorkspaceError> {
        let runs = self.runs(workspace, plan)?;
        for run in &runs {
            let options = IndexOptions {
                prune: run.prune,
                ..options.clone()
            };
            on_report(&Workspace::index(
                workspace,
                &run.paths,
                &options,
                &NoProgress,
            )?);
        }
        Ok(!runs.is_empty())
    }
}

fn hidden_name(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|s| s.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(list: &[&Path]) -> Batch {
        Batch {
            changed: list.iter().map(|p| p.to_path_buf()).collect(),
            lost_events: false,
        }
    }

    #[test]
    fn a_batch_indexes_changed_files_drops_gone_ones_and_reports_gone_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("guide/deep")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("a.md"), "# A\n").unwrap();
        std::fs::write(root.join("notes.bin"), "x").unwrap();
        std::fs::write(root.join(".git/HEAD.md"), "x").unwrap();
        let mut watch = Watch::new(
            vec![Root {
                path: root.clone(),
                is_dir: true,
            }],
            vec![DocFormat::Markdown],
            &root.join("ws"),
        );
        // A changed document, a file of no watched format, a hidden one, one outside the root,
        // a folder of the workspace, a gone document and a gone file of another format (vim's
        // `4913` probe).
        let outside = dir.path().parent().unwrap().join("elsewhere.md");
        // The workspace appears under the root with the first run, after the watch starts.
        std::fs::create_dir_all(root.join("ws/index")).unwrap();
        let plan = watch.plan(&changes(&[
            &root.join("a.md"),
            &root.join("notes.bin"),
            &root.join(".git/HEAD.md"),
            &outside,
            &root.join("ws/index"),
            &root.join("b.md"),
            &root.join("4913"),
        ]));
        assert_eq!(
            plan,
            Plan {
                index: vec![root.join("a.md")],
                gone: vec![root.join("b.md")],
                ..Plan::default()
            }
        );
        // A folder that appeared is indexed whole and known from then on; a known folder that
        // is gone is reported, and its subfolders are forgotten with it.
        std::fs::create_dir_all(root.join("moved-in/sub")).unwrap();
        let plan = watch.plan(&changes(&[&root.join("moved-in")]));
        assert_eq!(plan.index, vec![root.join("moved-in")]);
        std::fs::remove_dir_all(root.join("moved-in")).unwrap();
        std::fs::remove_dir_all(root.join("guide")).unwrap();
        let plan = watch.plan(&changes(&[&root.join("moved-in"), &root.join("guide")]));
        assert_eq!(
            plan,
            Plan {
                gone_folders: vec![root.join("guide"), root.join("moved-in")],
                ..Plan::default()
            }
        );
        let plan = watch.plan(&changes(&[&root.join("guide/deep")]));
        assert!(plan.is_empty(), "forgotten with its parent: {plan:?}");
    }

    #[test]
    fn sphinx_output_and_page_sources_are_no_change_to_index() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let build = root.join("html");
        std::fs::create_dir_all(build.join("_sources/library")).unwrap();
        std::fs::create_dir_all(build.join("library")).unwrap();
        let mut watch = Watch::new(
            vec![Root {
                path: root.clone(),
                is_dir: true,
            }],
            vec![DocFormat::Html, DocFormat::Text],
            &root.join("ws"),
        );
        let changed = [
            build.join("library/sys.html"),
            build.join("_sources/library/sys.rst.txt"),
            build.join("genindex-S.html"),
        ];
        // An AsciiDoc page's source beside it is no change to index either.
        std::fs::write(root.join("gitignore.html"), "<h1>gitignore</h1>").unwrap();
        std::fs::write(root.join("gitignore.txt"), "gitignore(5)\n").unwrap();
        std::fs::write(root.join("notes.txt"), "notes\n").unwrap();
        std::fs::write(root.join("404.html"), "<h1>Page not found</h1>").unwrap();
        let plan = watch.plan(&changes(&[
            &root.join("gitignore.txt"),
            &root.join("notes.txt"),
            &root.join("404.html"),
        ]));
        assert_eq!(plan.index, vec![root.join("notes.txt")]);
        for path in &changed {
            std::fs::write(path, "x").unwrap();
        }
        let all: Vec<&Path> = changed.iter().map(PathBuf::as_path).collect();
        // Without Sphinx's marker these are pages like any other.
        assert_eq!(watch.plan(&changes(&all)).index.len(), 3);
        std::fs::write(build.join(".buildinfo"), "# Sphinx build info version 1\n").unwrap();
        assert_eq!(
            watch.plan(&changes(&all)).index,
            vec![build.join("library/sys.html")]
        );
    }

    #[test]
    fn a_file_root_covers_that_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.md"), "# A\n").unwrap();
        std::fs::write(root.join("b.md"), "# B\n").unwrap();
        let mut watch = Watch::new(
            vec![Root {
                path: root.join("a.md"),
                is_dir: false,
            }],
            DocFormat::ALL.to_vec(),
            &root.join("ws"),
        );
        let plan = watch.plan(&changes(&[&root.join("a.md"), &root.join("b.md")]));
        assert_eq!(plan.index, vec![root.join("a.md")]);
    }

    /// Gone files are dropped by name, and only those the catalog knows; a folder to walk gets
    /// a run of its own; lost events re-index the roots and drop what is gone from under them.
    #[test]
    fn runs_name_the_files_to_index_and_the_indexed_ones_to_drop() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("src");
        std::fs::create_dir_all(root.join("guide")).unwrap();
        std::fs::write(root.join("a.md"), "# A\n").unwrap();
        std::fs::write(root.join("guide/b.md"), "# B\n").unwrap();
        let ws = dir.path().join("ws");
        let name = |p: PathBuf| p.to_string_lossy().into_owned();
        let options = IndexOptions::default();
        Workspace::index(&ws, &[name(root.clone())], &options, &NoProgress).unwrap();
        let watch = Watch::new(
            vec![Root {
                path: root.clone(),
                is_dir: true,
            }],
            DocFormat::ALL.to_vec(),
            &ws,
        );
        assert_eq!(watch.runs(&ws, &Plan::default()).unwrap(), vec![]);
        std::fs::remove_file(root.join("a.md")).unwrap();
        std::fs::write(root.join("c.md"), "# C\n").unwrap();
        let plan = Plan {
            index: vec![root.join("c.md")],
            gone: vec![root.join("a.md"), root.join("never-indexed.md")],
            ..Plan::default()
        };
        assert_eq!(
            watch.runs(&ws, &plan).unwrap(),
            vec![IndexRun {
                paths: vec![name(root.join("c.md")), name(root.join("a.md"))],
                prune: true,
            }]
        );
        std::fs::create_dir_all(root.join("new")).unwrap();
        let plan = Plan {
            index: vec![root.join("new")],
            gone: vec![root.join("a.md")],
            ..Plan::default()
        };
        assert_eq!(
            watch.runs(&ws, &plan).unwrap(),
            vec![
                IndexRun {
                    paths: vec![name(root.join("new"))],
                    prune: false,
                },
                IndexRun {
                    paths: vec![name(root.join("a.md"))],
                    prune: true,
                },
            ]
        );
        std::fs::remove_dir_all(root.join("guide")).unwrap();
        let plan = Plan {
            rescan: true,
            ..Plan::default()
        };
        let mut runs = watch.runs(&ws, &plan).unwrap();
        runs[1].paths.sort();
        assert_eq!(
            runs,
            vec![
                IndexRun {
                    paths: vec![name(root.clone())],
                    prune: false,
                },
                IndexRun {
                    paths: vec![name(root.join("a.md")), name(root.join("guide/b.md"))],
                    prune: true,
                },
            ]
        );
        // Running a plan reports each run: the gone file's document is dropped.
        let mut reports = Vec::new();
        let plan = Plan {
            gone: vec![root.join("a.md")],
            ..Plan::default()
        };
        let ran = watch
            .index(&ws, &options, &plan, &mut |r| reports.push(r.pruned))
            .unwrap();
        assert!(ran);
        assert_eq!(reports, vec![1]);
    }
}
