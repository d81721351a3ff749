//! Strict reads ([`super::Workspace::strict`]): the [`super::Library`] reads of a workspace log
//! a catalog read that fails after the catalog opened and answer as an empty catalog would,
//! which a listing or a ranking must not pass off as the catalog. While a strict scope is open,
//! such a failure is held for the scope instead of logged, and the scope ends with it as its
//! error.
//!
//! A server shares one workspace between requests, so scopes may be open on several threads at
//! once: each open scope gets the failures met while it is open (the first one each), whichever
//! thread met them, and ending one scope leaves the others open.

use std::sync::{Mutex, MutexGuard};

use super::WorkspaceError;

/// The open scopes of one workspace and the first failure each has met.
#[derive(Debug, Default)]
pub(super) struct Scopes(Mutex<Open>);

#[derive(Debug, Default)]
struct Open {
    /// The id the next scope gets.
    next: u64,
    /// Each open scope: its id and the first failure met while it was open.
    scopes: Vec<(u64, Option<WorkspaceError>)>,
}

/// An open scope; dropping it (also on a panic) closes it.
#[derive(Debug)]
pub(super) struct Scope<'a> {
    owner: &'a Scopes,
    id: u64,
}

impl Scopes {
    fn lock(&self) -> MutexGuard<'_, Open> {
        // A panic elsewhere while holding the lock leaves the list consistent (every change is
        // one push, remove or assignment), so a poisoned lock is used as it is.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Open a scope: failures met until it ends are held for it.
    pub(super) fn open(&self) -> Scope<'_> {
        let mut open = self.lock();
        let id = open.next;
        open.next += 1;
        open.scopes.push((id, None));
        Scope { owner: self, id }
    }

    /// Hold `e` for every open scope that has no failure yet; `Err(e)` back when no scope is
    /// open (the caller logs it).
    pub(super) fn hold(&self, e: WorkspaceError) -> Result<(), WorkspaceError> {
        let mut open = self.lock();
        let mut waiting = open.scopes.iter_mut().filter(|(_, first)| first.is_none());
        let Some((_, first)) = waiting.next() else {
            return if open.scopes.is_empty() {
                Err(e)
            } else {
                // Every open scope already fails with an earlier failure.
                Ok(())
            };
        };
        for (_, other) in waiting {
            *other = Some(copy_of(&e));
        }
        *first = Some(e);
        Ok(())
    }
}

impl Scope<'_> {
    /// Close the scope: the first failure met while it was open, if any.
    pub(super) fn close(self) -> Option<WorkspaceError> {
        let mut open = self.owner.lock();
        let at = open.scopes.iter().position(|(id, _)| *id == self.id);
        let first = at.and_then(|at| open.scopes.remove(at).1);
        // Unlocked before `self` drops (its drop locks again).
        drop(open);
        first
    }
}

impl Drop for Scope<'_> {
    fn drop(&mut self) {
        let mut open = self.owner.lock();
        open.scopes.retain(|(id, _)| *id != self.id);
    }
}

/// `e` again, with the same message (an I/O error keeps its kind and text, not its OS code).
fn copy_of(e: &WorkspaceError) -> WorkspaceError {
    use WorkspaceError as E;
    match e {
        E::Outdated { dir, found } => E::Outdated {
            dir: dir.clone(),
            found: *found,
        },
        E::Search { dir, reason } => E::Search {
            dir: dir.clone(),
            reason: reason.clone(),
        },
        E::NotFound(id) => E::NotFound(id.clone()),
        E::Busy {
            dir,
            catalog,
            index,
        } => E::Busy {
            dir: dir.clone(),
            catalog: *catalog,
            index: *index,
        },
        E::Missing(dir) => E::Missing(dir.clone()),
        E::Cancelled(dir) => E::Cancelled(dir.clone()),
        E::NetworkFilesystem { dir, kind } => E::NetworkFilesystem {
            dir: dir.clone(),
            kind,
        },
        E::NoGeneration { dir, reason } => E::NoGeneration {
            dir: dir.clone(),
            reason: reason.clone(),
        },
        E::PublishedReadOnly(dir) => E::PublishedReadOnly(dir.clone()),
        E::NotPublishFolder(dir) => E::NotPublishFolder(dir.clone()),
        E::Io { path, source } => E::Io {
            path: path.clone(),
            source: std::io::Error::new(source.kind(), source.to_string()),
        },
        E::Corrupt { path, reason } => E::Corrupt {
            path: path.clone(),
            reason: reason.clone(),
        },
        E::OutdatedTree {
            path,
            built_by,
            current,
        } => E::OutdatedTree {
            path: path.clone(),
            built_by: built_by.clone(),
            current: current.clone(),
        },
        E::Version {
            path,
            found,
            expected,
        } => E::Version {
            path: path.clone(),
            found: *found,
            expected: *expected,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corrupt(reason: &str) -> WorkspaceError {
        WorkspaceError::Corrupt {
            path: "ws/catalog.db".into(),
            reason: reason.into(),
        }
    }

    #[test]
    fn without_a_scope_the_failure_goes_back_to_be_logged() {
        let scopes = Scopes::default();
        let back = scopes.hold(corrupt("a")).unwrap_err();
        assert!(back.to_string().contains("damaged: a"), "{back}");
    }

    #[test]
    fn each_open_scope_ends_with_the_first_failure_met_while_it_was_open() {
        let scopes = Scopes::default();
        let outer = scopes.open();
        scopes.hold(corrupt("first")).unwrap();
        let inner = scopes.open();
        scopes.hold(corrupt("second")).unwrap();
        let second = inner.close().unwrap().to_string();
        assert!(second.contains("damaged: second"), "{second}");
        // Closing the inner scope left the outer one open, with its own first failure.
        scopes.hold(corrupt("third")).unwrap();
        let first = outer.close().unwrap().to_string();
        assert!(first.contains("damaged: first"), "{first}");
        // All closed: failures are logged again, and a clean scope ends clean.
        assert!(scopes.hold(corrupt("fourth")).is_err());
        assert!(scopes.open().close().is_none());
    }

    #[test]
    fn a_scope_dropped_without_closing_holds_nothing_more() {
        let scopes = Scopes::default();
        drop(scopes.open());
        assert!(scopes.hold(corrupt("late")).is_err());
    }

    #[test]
    fn a_copied_io_error_reads_the_same() {
        let e = WorkspaceError::Io {
            path: "ws/catalog.db".into(),
            source: std::io::Error::from_raw_os_error(2),
        };
        assert_eq!(copy_of(&e).to_string(), e.to_string());
    }
}
