//! Keeping the section index and the catalog in step: the writer lock, the consistency check on
//! open, and [`reconcile`], which makes the index hold exactly the catalog's documents (used to
//! repair an interrupted index run, to rebuild a missing or damaged index, and after every
//! index run).

use std::fs::File;
use std::path::{Path, PathBuf};

use super::{decode_tree_file, open_store, read_catalog, Catalog, CatalogStore, WorkspaceError};
use crate::index::{SectionIndex, SectionIndexError};

/// The workspace's exclusive writer lock (`lock`, an OS file lock released when dropped or when
/// the process dies).
pub(crate) struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Take the lock on `dir` (created if missing), waiting for another holder with a message on
    /// stderr. Every write to a workspace takes it, so this is where a workspace on a network
    /// filesystem is refused ([`super::local_disk`]).
    ///
    /// Errors: [`WorkspaceError::PublishedReadOnly`] for a publish folder or a generation in
    /// one; [`WorkspaceError::NetworkFilesystem`] for a folder on a network filesystem;
    /// [`WorkspaceError::Io`] when the lock file cannot be opened or locked.
    pub(crate) fn acquire(dir: &Path) -> Result<WriterLock, WorkspaceError> {
        super::publish::refuse_writes(dir)?;
        super::local_disk::require_local_disk(dir)?;
        let path = dir.join("lock");
        let io = |source| WorkspaceError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        if file.try_lock().is_err() {
            eprintln!(
                "waiting for another `docnav index` to finish with `{}`",
                dir.display()
            );
            file.lock().map_err(io)?;
        }
        Ok(WriterLock { _file: file })
    }
}

pub(crate) fn search_error(dir: &Path, e: SectionIndexError) -> WorkspaceError {
    WorkspaceError::Search {
        dir: dir.to_path_buf(),
        reason: e.to_string(),
    }
}

/// What [`open_consistent`] does when the index and the catalog are at different generations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OnMismatch {
    /// Wait for any writer, then repair the index from the catalog's tree files.
    WaitAndRepair,
    /// Return [`WorkspaceError::Busy`] at once (a long-running reader keeps what it has).
    Refuse,
}

/// The catalog and the index at the commit it matches. See [`super::Workspace::open`].
pub(super) fn open_consistent(
    dir: &Path,
    store: CatalogStore,
    on_mismatch: OnMismatch,
) -> Result<(CatalogStore, Result<SectionIndex, String>), WorkspaceError> {
    let index_dir = dir.join("index");
    let opened = if super::publish::is_generation(dir) {
        SectionIndex::open_published(&index_dir)
    } else {
        SectionIndex::open_for_search(&index_dir)
    };
    let index = match opened {
        Ok(index) => index,
        Err(e) => return Ok((store, Err(unusable(&index_dir, &e)))),
    };
    let generation = store.head().index_generation;
    let found = match index.generation() {
        Ok(Some(g)) if g == generation => return Ok((store, Ok(index))),
        Ok(found) => found,
        Err(e) => return Ok((store, Err(unusable(&index_dir, &e)))),
    };
    if on_mismatch == OnMismatch::Refuse {
        return Err(WorkspaceError::Busy {
            dir: dir.to_path_buf(),
            catalog: generation,
            index: found,
        });
    }
    drop(store);
    // The index and the catalog disagree: an index run is between its two commits, or one was
    // interrupted there. Wait for any writer, then look again before repairing.
    drop(index);
    let _lock = WriterLock::acquire(dir)?;
    let store = open_store(dir)?;
    let index = match SectionIndex::open(&index_dir) {
        Ok(index) => index,
        Err(e) => return Ok((store, Err(unusable(&index_dir, &e)))),
    };
    if index.generation().map_err(|e| search_error(dir, e))? == Some(store.head().index_generation)
    {
        return Ok((store, Ok(index)));
    }
    let catalog = read_catalog(dir)?;
    let (added, removed) = reconcile(dir, &catalog, &index)?;
    eprintln!(
        "warning: the search index of `{}` did not match its catalog (an interrupted `docnav \
         index`?); repaired: {added} document(s) re-indexed from their trees, {removed} removed",
        dir.display()
    );
    Ok((store, Ok(index)))
}

fn unusable(index_dir: &Path, e: &SectionIndexError) -> String {
    if !index_dir.join("meta.json").exists() {
        format!("`{}` has no search index", index_dir.display())
    } else {
        e.to_string()
    }
}

/// Make `index` hold exactly the documents of `catalog`: entries of documents the catalog does
/// not list are deleted, documents whose indexed build differs from the catalog's tree file (or
/// that are missing) are re-indexed from their tree files, and the result is committed with the
/// catalog's generation (then merged into one segment when that re-indexed much of it).
/// Returns `(re-indexed, removed)` document counts. The caller holds the writer lock.
///
/// Errors: [`WorkspaceError::Search`] when the index cannot be read or written; tree file
/// errors (`Io`, `Corrupt`, `Version`) naming the file.
pub(crate) fn reconcile(
    dir: &Path,
    catalog: &Catalog,
    index: &SectionIndex,
) -> Result<(usize, usize), WorkspaceError> {
    let search = |e| search_error(dir, e);
    let indexed = index.documents().map_err(search)?;
    let writer = index.writer(1).map_err(search)?;
    let mut removed = 0;
    for doc_id in indexed.keys() {
        if catalog
            .documents
            .binary_search_by(|e| e.doc_id.as_str().cmp(doc_id))
            .is_err()
        {
            writer.delete(doc_id);
            removed += 1;
        }
    }
    let mut added = 0;
    let docs_dir: PathBuf = dir.join("docs");
    for entry in &catalog.documents {
        if indexed.get(&entry.doc_id) == Some(&entry.tree_file) {
            continue;
        }
        let path = docs_dir.join(&entry.tree_file);
        let bytes = std::fs::read(&path).map_err(|source| WorkspaceError::Io {
            path: path.clone(),
            source,
        })?;
        let doc = decode_tree_file(&path, &bytes)?;
        writer
            .replace(index.entries(&doc.card, &doc.tree, &entry.tree_file))
            .map_err(search)?;
        added += 1;
    }
    let committed = writer.commit(catalog.index_generation).map_err(search)?;
    // A rebuild from the trees is a bulk run: one segment after it (`index::sections::merge`).
    // The entries are committed already; a failed merge leaves them as they are, slower.
    let merged = committed
        .bulk_merge()
        .and_then(|bulk| committed.finish(bulk.as_ref()));
    if let Err(e) = merged {
        tracing::warn!("the repaired search index was not merged: {e}");
    }
    index.reload().map_err(search)?;
    Ok((added, removed))
}
