//! The workspace as a long-running server sees it: opened on first use, and opened again when
//! catalog (`catalog.bin`) changes (a `docnav index` while the server runs), so new documents appear
//! without a restart while loaded trees, and the per-document numbers the commands need
//! ([`NodeStats`](crate::nav::stats::NodeStats), shared by clones of one [`Session`]), stay
//! cached between calls.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::nav::{Role, Session};
use crate::workspace::{Workspace, WorkspaceError};

/// What identifies one version of the catalog: modification time and length in bytes.
type Stamp = (Option<SystemTime>, u64);

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

/// A workspace directory, reopened when its catalog changes.
#[derive(Debug)]
pub struct LiveLibrary {
    dir: PathBuf,
    open: Mutex<Option<(Stamp, Opened)>>,
}

impl LiveLibrary {
    /// A library over the workspace in `dir` (nothing is read yet).
    pub fn new(dir: &Path) -> LiveLibrary {
        LiveLibrary {
            dir: dir.to_path_buf(),
            open: Mutex::new(None),
        }
    }

    /// The workspace directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The workspace as its catalog is now: the one opened before when the catalog file has the
    /// same modification time and length (one `stat`), else freshly opened.
    ///
    /// Errors: [`WorkspaceError::Missing`] without a catalog (`no workspace at … hint: run docnav
    /// index …`); `Corrupt`/`Version`/`Io` for a catalog that cannot be read.
    pub fn get(&self) -> Result<Opened, WorkspaceError> {
        let catalog = crate::workspace::catalog_path(&self.dir);
        let stamp = std::fs::metadata(&catalog)
            .ok()
            .map(|m| (m.modified().ok(), m.len()));
        let mut open = match self.open.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let (Some(stamp), Some((seen, opened))) = (stamp, open.as_ref()) {
            if stamp == *seen {
                return Ok(opened.clone());
            }
        }
        let opened = Opened::new(Workspace::open(&self.dir)?);
        if let Some(stamp) = stamp {
            *open = Some((stamp, opened.clone()));
        }
        Ok(opened)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::workspace::Library;

    #[test]
    fn missing_workspace_is_the_workspace_error_and_a_later_catalog_is_seen() {
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
        assert_eq!(first.workspace.cards().len(), 1);
        // Unchanged catalog: the same opened workspace (its tree cache survives).
        assert!(Arc::ptr_eq(
            &first.workspace,
            &live.get().unwrap().workspace
        ));
    }
}
