//! The workspace as a long-running process sees it (the MCP server, `docnav serve`): opened on
//! first use, and opened again when its catalog (`catalog.db`) or its section index's segments
//! change — a `docnav index` in any process, and the merge after it — so new documents appear
//! without a restart, while loaded trees and the
//! per-document numbers the commands need ([`NodeStats`](crate::nav::stats::NodeStats), shared by
//! clones of one [`Session`]) stay cached between calls.
//!
//! A reopen never blocks readers and never serves a half-written state: one caller reopens while
//! the others keep the workspace they had, and when the new catalog and the section index are not
//! at the same generation yet (an index run between its two commits) the previous workspace stays
//! in service and the reopen is tried again [`RETRY_BUSY`] later. Only a process that has nothing
//! opened yet waits for the writer (and repairs an interrupted run), as `docnav ask` does.
//!
//! Over a publish folder ([`crate::workspace::publish`]) the same holds per generation: a newer
//! generation folder is opened once it is complete; until then the previous one stays in service
//! and the newer one is looked at again [`RETRY_INCOMPLETE`] later.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::{Duration, Instant};

use crate::nav::{Role, Session};
use crate::workspace::{Workspace, WorkspaceError};

/// What identifies one version of the catalog ([`crate::workspace::store::stamp`]).
type Stamp = crate::workspace::store::CatalogStamp;

/// How long a reader keeps its workspace before trying again to open a catalog whose index is
/// not committed yet ([`WorkspaceError::Busy`]).
pub const RETRY_BUSY: Duration = Duration::from_millis(100);

/// How long a reader of a publish folder keeps the generation it has open before looking again
/// at a newer one that was not complete yet (a copy still arriving).
pub const RETRY_INCOMPLETE: Duration = Duration::from_secs(1);

/// An opened workspace and a session at `/` over it. Every call clones the session (clones share
/// its statistics cache) and never moves the original.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The workspace.
    pub workspace: Arc<Workspace>,
    /// A [`Role::Person`] session at `/` with the default budget.
    pub session: Session,
}

impl Opened {
    fn new(workspace: Workspace) -> Opened {
        let workspace = Arc::new(workspace);
        let session = Session::new(workspace.clone(), Role::Person);
        Opened { workspace, session }
    }
}

#[derive(Debug, Default)]
struct Current {
    /// The catalog version `opened` was read from.
    stamp: Option<Stamp>,
    opened: Option<Opened>,
    /// No reopen before this instant (set when the last one met [`WorkspaceError::Busy`]).
    quiet_until: Option<Instant>,
}

/// A workspace directory, reopened when its catalog changes.
#[derive(Debug)]
pub struct LiveLibrary {
    dir: PathBuf,
    current: Mutex<Current>,
    /// Held by the one caller that is reopening.
    reopening: Mutex<()>,
}

impl LiveLibrary {
    /// A library over the workspace in `dir` (nothing is read yet).
    pub fn new(dir: &Path) -> LiveLibrary {
        LiveLibrary {
            dir: dir.to_path_buf(),
            current: Mutex::new(Current::default()),
            reopening: Mutex::new(()),
        }
    }

    /// The workspace directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Current> {
        match self.current.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The workspace opened before, when the catalog file still has the modification time and
    /// length it was read with (one `stat`, nothing read), or while a reopen is held back
    /// ([`RETRY_BUSY`]); `None` when [`LiveLibrary::get`] has work to do.
    pub fn get_if_current(&self) -> Option<Opened> {
        let stamp = crate::workspace::store::stamp(&self.dir)?;
        let current = self.current();
        let opened = current.opened.as_ref()?;
        let quiet = current.quiet_until.is_some_and(|t| Instant::now() < t);
        (current.stamp == Some(stamp) || quiet).then(|| opened.clone())
    }

    /// The workspace as its catalog is now: the one opened before when the catalog file has the
    /// same modification time and length (one `stat`), else freshly opened (see the module docs
    /// for what happens while an index run is committing).
    ///
    /// Errors: [`WorkspaceError::Missing`] without a catalog (`no workspace at … hint: run docnav
    /// index …`); `Corrupt`/`Version`/`Io` for a catalog that cannot be read; `Outdated` for an
    /// older workspace; `Search` when a needed repair fails.
    pub fn get(&self) -> Result<Opened, WorkspaceError> {
        let stamp = crate::workspace::store::stamp(&self.dir);
        let previous = {
            let current = self.current();
            if let (Some(stamp), Some(opened)) = (stamp, &current.opened) {
                let quiet = current.quiet_until.is_some_and(|t| Instant::now() < t);
                if current.stamp == Some(stamp) || quiet {
                    return Ok(opened.clone());
                }
            }
            current.opened.clone()
        };
        // One caller reopens; the others keep what they have (or, with nothing yet, wait).
        let _reopening = match (self.reopening.try_lock(), &previous) {
            (Ok(guard), _) => guard,
            (Err(TryLockError::WouldBlock), Some(previous)) => return Ok(previous.clone()),
            (Err(TryLockError::WouldBlock), None) => match self.reopening.lock() {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            },
            (Err(TryLockError::Poisoned(poisoned)), _) => poisoned.into_inner(),
        };
        {
            // Another caller may have reopened while this one waited.
            let current = self.current();
            if let (Some(stamp), Some(opened)) = (stamp, &current.opened) {
                if current.stamp == Some(stamp) {
                    return Ok(opened.clone());
                }
            }
        }
        let opened = match &previous {
            Some(previous) => match Workspace::open_without_repair(&self.dir) {
                Ok(ws) => Opened::new(ws),
                Err(WorkspaceError::Busy { .. }) => {
                    self.current().quiet_until = Some(Instant::now() + RETRY_BUSY);
                    return Ok(previous.clone());
                }
                Err(e) => return Err(e),
            },
            None => Opened::new(Workspace::open(&self.dir)?),
        };
        // A publish folder whose newest generation is still being copied: the previous one is
        // open, and the newer one is looked at again a little later.
        let behind = stamp.and_then(|s| s.published()).is_some_and(|newest| {
            opened
                .workspace
                .published_generation()
                .is_none_or(|g| g < newest)
        });
        let mut current = self.current();
        current.stamp = if behind { None } else { stamp };
        current.quiet_until = behind.then(|| Instant::now() + RETRY_INCOMPLETE);
        if let Some(previous) = previous.filter(|p| {
            behind && p.workspace.published_generation() == opened.workspace.published_generation()
        }) {
            // The same generation as before: its loaded trees and statistics stay.
            return Ok(previous);
        }
        if let Some(old) = current.opened.replace(opened.clone()) {
            // Requests still running on the old generation keep the trees they hold.
            old.workspace.drop_cached_trees();
        }
        Ok(opened)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::Library;

    #[test]
    fn missing_workspace_is_the_workspace_error_and_a_later_catalog_or_merge_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let ws_dir = dir.path().join("ws");
        let live = LiveLibrary::new(&ws_dir);
        let err = live.get().unwrap_err();
        assert!(matches!(err, WorkspaceError::Missing(_)), "{err}");

        let source = dir.path().join("a.md");
        std::fs::write(&source, "# A\n\ntext\n").unwrap();
        Workspace::index(
            &ws_dir,
            &[source.display().to_string()],
            &crate::workspace::IndexOptions::default(),
            &crate::workspace::indexer::NoProgress,
        )
        .unwrap();
        let first = live.get().unwrap();
        assert_eq!(first.workspace.document_count(), 1);
        // Unchanged catalog: the same opened workspace (its tree cache survives).
        assert!(Arc::ptr_eq(
            &first.workspace,
            &live.get().unwrap().workspace
        ));
        // The index's `meta.json` rewritten (as a merge after a run rewrites it, the catalog
        // unchanged): opened again, to search the segments it now names.
        let meta = ws_dir.join("index").join("meta.json");
        let later = std::fs::metadata(&meta).unwrap().modified().unwrap() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&meta)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let second = live.get().unwrap();
        assert!(!Arc::ptr_eq(&first.workspace, &second.workspace));
        assert_eq!(second.workspace.document_count(), 1);
        assert!(Arc::ptr_eq(
            &second.workspace,
            &live.get().unwrap().workspace
        ));
    }
}
