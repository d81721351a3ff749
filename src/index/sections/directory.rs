//! Where the section index lives: tantivy's `MmapDirectory`, with its files made durable
//! together instead of one by one.
//!
//! tantivy syncs every file it writes when the file is finished (`sync_data`), rewrites its
//! list of managed files with a sync each time it creates one, and syncs the directory before
//! it writes `meta.json`. A corpus index run made about sixty such calls; on this machine's
//! disk they cost ~20 ms of wall time and ~20 ms of kernel CPU (writeback charged to the
//! caller) of a ~200 ms run (BENCHMARKS.md, "Scale"). Here, on Linux, finished files are only
//! flushed to the OS, and [`Directory::sync_directory`] — which tantivy calls before every
//! `meta.json` it writes — makes everything written on the filesystem durable at once
//! (`syncfs(2)`). So the guarantee tantivy relies on still holds: every file a `meta.json`
//! names is on disk before that `meta.json` is written (itself synced before its rename).
//! `.managed.json` (the list tantivy's garbage collector reads) is renamed into place without
//! a sync of its own; the next `syncfs` makes it durable. A power failure before that can leave
//! an older list (tantivy then never deletes the newer files: disk, not correctness) or an
//! empty one (the index does not open; `docnav index` says so and rebuilds it from the tree
//! files). Elsewhere than Linux, tantivy's own per-file syncs are kept.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, FileSlice, Lock, MmapDirectory,
    TerminatingWrite, WatchCallback, WatchHandle, WritePtr,
};

use crate::workspace::atomic::{sync_filesystem, write_atomic_deferred};

/// tantivy's list of the files it manages.
const MANAGED_LIST: &str = ".managed.json";

/// An `MmapDirectory` whose writes become durable at [`Directory::sync_directory`] (see the
/// module documentation).
#[derive(Debug, Clone)]
pub(super) struct BatchSyncDirectory {
    inner: MmapDirectory,
    root: PathBuf,
}

impl BatchSyncDirectory {
    /// The index directory `root` (it must exist).
    ///
    /// Errors: tantivy's, when `root` is missing or not a directory.
    pub(super) fn open(root: &Path) -> Result<BatchSyncDirectory, OpenDirectoryError> {
        Ok(BatchSyncDirectory {
            inner: MmapDirectory::open(root)?,
            root: root.to_path_buf(),
        })
    }

    /// [`BatchSyncDirectory::open`] for a reader that searches: its memory maps are advised
    /// random access (`MADV_RANDOM`), so a page fault reads that page and not the kernel's
    /// read-ahead around it. A search touches scattered blocks of long posting lists; with
    /// read-ahead, `ask --lexical` over 100,000 documents mapped 92 MB of index files (issue 24).
    pub(super) fn open_for_search(root: &Path) -> Result<BatchSyncDirectory, OpenDirectoryError> {
        Ok(BatchSyncDirectory {
            inner: MmapDirectory::open_with_madvice(root, tantivy::directory::Advice::Random)?,
            root: root.to_path_buf(),
        })
    }
}

/// A file tantivy writes: flushed to the OS when finished, synced by the next
/// [`sync_filesystem`] (on Linux; elsewhere when finished, as tantivy does).
struct DeferredSyncFile(File);

impl Write for DeferredSyncFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TerminatingWrite for DeferredSyncFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()?;
        if !cfg!(target_os = "linux") {
            self.0.sync_data()?;
        }
        Ok(())
    }
}

impl Directory for BatchSyncDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn open_read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        self.inner.open_read(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.root.join(path))
            .map_err(|e| {
                if e.kind() == io::ErrorKind::AlreadyExists {
                    OpenWriteError::FileAlreadyExists(path.to_path_buf())
                } else {
                    OpenWriteError::wrap_io_error(e, path.to_path_buf())
                }
            })?;
        Ok(BufWriter::new(Box::new(DeferredSyncFile(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        if path == Path::new(MANAGED_LIST) {
            // Synced by the next `sync_directory` on Linux, at once elsewhere.
            return write_atomic_deferred(&self.root.join(path), data);
        }
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        sync_filesystem(&self.root)
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn writes_read_back_and_leave_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let directory = BatchSyncDirectory::open(dir.path()).unwrap();

        let mut file = directory.open_write(Path::new("seg.idx")).unwrap();
        file.write_all(b"postings").unwrap();
        file.terminate().unwrap();
        assert!(matches!(
            directory.open_write(Path::new("seg.idx")),
            Err(OpenWriteError::FileAlreadyExists(_))
        ));
        let read = directory.open_read(Path::new("seg.idx")).unwrap();
        assert_eq!(read.read_bytes().unwrap().as_slice(), b"postings");

        for list in [&b"[\"a\"]"[..], &b"[\"a\",\"b\"]"[..]] {
            directory
                .atomic_write(Path::new(MANAGED_LIST), list)
                .unwrap();
            assert_eq!(
                directory.atomic_read(Path::new(MANAGED_LIST)).unwrap(),
                list
            );
        }
        directory
            .atomic_write(Path::new("meta.json"), b"{}")
            .unwrap();
        directory.sync_directory().unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [MANAGED_LIST, "meta.json", "seg.idx"]);
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(BatchSyncDirectory::open(&dir.path().join("absent")).is_err());
        assert!(sync_filesystem(&dir.path().join("absent")).is_err());
    }
}
