//! `docnav index --watch`: after the first run, keep the workspace in step with its paths. Each
//! change the system reports (inotify on Linux, through the `notify` crate) is gathered with
//! the ones that follow it within [`QUIET`], and the batch is indexed by name: changed and new
//! files are (re)built, deleted or moved-away files have their documents dropped. A run over
//! named files reads only their catalog rows, so a change costs the same at 100,000 documents
//! as at 1,000 (re-indexing the folder has to `stat` every file of it instead).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::EventKind;
use notify::{RecursiveMode, Watcher};

use crate::parse::format_for_path;
use crate::tree::DocFormat;
use crate::workspace::site_files::{
    is_not_found_page, is_source_beside_page, is_under_sphinx_output,
};

/// A batch closes once no change has come for this long (an editor's save is a few events
/// within milliseconds: write a temporary file, rename it over the old one).
pub const QUIET: Duration = Duration::from_millis(200);

/// A batch closes after this long even while changes keep coming (a file rewritten without
/// pause is still indexed every so often).
pub const BATCH_MAX: Duration = Duration::from_secs(2);

/// One watched command-line path, resolved.
#[derive(Debug, Clone)]
pub struct Root {
    /// Absolute, symbolic links resolved (as the catalog names sources).
    pub path: PathBuf,
    /// A folder (watched recursively) or a file (its folder watched for its name only).
    pub is_dir: bool,
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
    /// The system lost events (its queue overflowed): re-index the roots, and drop the
    /// documents from under them whose files are gone.
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
    /// out, as the index walk leaves them out).
    pub fn new(roots: Vec<Root>, formats: Vec<DocFormat>, workspace: &Path) -> Watch {
        // Resolved as the events will name it (the folder may not exist yet).
        let workspace = crate::workspace::indexer::resolved_path(workspace);
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

    /// The plan for one batch of changed paths. The file system decides what each path is
    /// now, whatever the events said on the way (a save is often a write to a temporary file
    /// and a rename over the old one). Folders that appeared are remembered, gone ones
    /// forgotten.
    pub fn plan(&mut self, changed: &BTreeSet<PathBuf>) -> Plan {
        let mut plan = Plan::default();
        for path in changed {
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
}

fn hidden_name(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|s| s.starts_with('.'))
}

/// Start watching `roots`: folders recursively, a file through its folder.
///
/// Errors: the system's watcher cannot be made (e.g. inotify's limits) or a path cannot be
/// watched; the message names the path.
pub fn start(
    roots: &[Root],
) -> anyhow::Result<(
    notify::RecommendedWatcher,
    Receiver<notify::Result<notify::Event>>,
)> {
    let (tx, rx) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx)
        .map_err(|e| anyhow::anyhow!("cannot watch for changes: {e}"))?;
    for root in roots {
        let (path, mode) = match (root.is_dir, root.path.parent()) {
            (true, _) | (false, None) => (root.path.as_path(), RecursiveMode::Recursive),
            (false, Some(parent)) => (parent, RecursiveMode::NonRecursive),
        };
        watcher.watch(path, mode).map_err(|e| {
            anyhow::anyhow!(
                "cannot watch `{}`: {e} (on Linux, see /proc/sys/fs/inotify/max_user_watches)",
                path.display()
            )
        })?;
    }
    Ok((watcher, rx))
}

/// Wait for the next batch of changes: block for the first event, then gather the ones that
/// follow until [`QUIET`] passes without one or [`BATCH_MAX`] has passed. `None` when the
/// watcher is gone. A lost-events notice, or a watch error, is a change to `rescan` for.
pub fn next_batch(
    rx: &Receiver<notify::Result<notify::Event>>,
) -> Option<(BTreeSet<PathBuf>, bool)> {
    let mut changed = BTreeSet::new();
    let mut rescan = false;
    let mut take = |event: notify::Result<notify::Event>| match event {
        Ok(event) => {
            rescan |= event.need_rescan();
            if !matches!(event.kind, EventKind::Access(_)) {
                changed.extend(event.paths);
            }
        }
        Err(e) => {
            tracing::warn!("watching: {e}; re-indexing the watched paths");
            rescan = true;
        }
    };
    take(rx.recv().ok()?);
    let started = Instant::now();
    loop {
        let left = BATCH_MAX.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        match rx.recv_timeout(QUIET.min(left)) {
            Ok(event) => take(event),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
        }
    }
    Some((changed, rescan))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(list: &[&Path]) -> BTreeSet<PathBuf> {
        list.iter().map(|p| p.to_path_buf()).collect()
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
}
