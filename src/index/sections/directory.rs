//! Where the section index lives: tantivy's `MmapDirectory`, with its files made durable
//! together instead of one by one, written in aligned 2 MiB pieces so the page cache holds them
//! in 2 MiB folios ([`WRITE_CHUNK_BYTES`]), and mapped by a searching reader with advice chosen
//! per file ([`BatchSyncDirectory::open_for_search`]).
//!
//! tantivy syncs every file it writes when the file is finished (`sync_data`), rewrites its list of
//! managed files with a sync each time it creates one, and syncs the directory before it writes
//! `meta.json`: dozens of calls in one index run, each waiting for the disk, with the writeback
//! charged to the caller's CPU (the benchmark history, docs/src/benchmarks-history.md, "Scale").
//! Here, on Linux, finished files are only flushed to the OS, and [`Directory::sync_directory`] —
//! which tantivy calls before every `meta.json` it writes — makes everything written on the
//! filesystem durable at once (`syncfs(2)`). So the guarantee tantivy relies on still holds: every
//! file a `meta.json` names is on disk before that `meta.json` is written (itself synced before its
//! rename). `.managed.json` (the list tantivy's garbage collector reads) is renamed into place
//! without a sync of its own; the next `syncfs` makes it durable. A power failure before that can
//! leave an older list (tantivy then never deletes the newer files: disk, not correctness) or an
//! empty one (the index does not open; `docnav index` says so and rebuilds it from the tree files).
//! Elsewhere than Linux, tantivy's own per-file syncs are kept.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Advice, AntiCallToken, Directory, DirectoryLock, FileHandle, FileSlice, Lock, MmapDirectory,
    TerminatingWrite, WatchCallback, WatchHandle, WritePtr,
};

use crate::durable::{sync_filesystem, write_atomic_deferred};

/// tantivy's list of the files it manages.
const MANAGED_LIST: &str = ".managed.json";

/// An `MmapDirectory` whose writes become durable at [`Directory::sync_directory`] (see the
/// module documentation).
#[derive(Debug, Clone)]
pub(super) struct BatchSyncDirectory {
    inner: MmapDirectory,
    /// In a reader that searches, the maps of the document store (advised random access), which
    /// `inner` maps with [`SEARCH_ADVICE`]; `None` elsewhere.
    store: Option<MmapDirectory>,
    root: PathBuf,
    /// The index of a published generation, which nothing writes: its locks are taken without
    /// a lock file (a replica may have no write access to the folder).
    published: bool,
}

/// How a reader that searches advises the kernel on the maps of the files written in
/// [`WRITE_CHUNK_BYTES`] pieces (postings, terms, field norms, fast fields, deletions).
///
/// On Linux, `MADV_HUGEPAGE`: on a page-cache miss the kernel reads the aligned 2 MiB around the
/// fault into one folio (and may read the next 2 MiB ahead) instead of one 4 KiB page, so an
/// index read back after the page cache dropped it is again in 2 MiB folios, each mapped by one
/// fault (see [`WRITE_CHUNK_BYTES`]). Read 4 KiB at a time (`MADV_RANDOM`), it would come back
/// in 4 KiB folios and stay that slow to map until rewritten. A cold search reads
/// more this way (2–4 MiB per region it touches), but the regions a search touches are dense:
/// one byte of field norms per matching section, whole posting lists. Elsewhere, `MADV_RANDOM`.
#[cfg(target_os = "linux")]
const SEARCH_ADVICE: Advice = Advice::HugePage;
#[cfg(not(target_os = "linux"))]
const SEARCH_ADVICE: Advice = Advice::Random;

impl BatchSyncDirectory {
    /// The index directory `root` (it must exist).
    ///
    /// Errors: tantivy's, when `root` is missing or not a directory.
    pub(super) fn open(root: &Path) -> Result<BatchSyncDirectory, OpenDirectoryError> {
        Ok(BatchSyncDirectory {
            inner: MmapDirectory::open(root)?,
            store: None,
            root: root.to_path_buf(),
            published: false,
        })
    }

    /// [`BatchSyncDirectory::open`] for a reader that searches. The document store, read a
    /// block per hit, is mapped with random-access advice (`MADV_RANDOM`): a page fault reads
    /// that page, not the kernel's read-ahead around it (read-ahead would map store blocks no
    /// hit needs into a search's resident memory). The other files are mapped with
    /// [`SEARCH_ADVICE`]. `published`: the index of a published generation, which nothing
    /// writes: its locks create no file.
    ///
    /// Errors: tantivy's, when `root` is missing or not a directory.
    pub(super) fn open_for_search(
        root: &Path,
        published: bool,
    ) -> Result<BatchSyncDirectory, OpenDirectoryError> {
        Ok(BatchSyncDirectory {
            inner: MmapDirectory::open_with_madvice(root, SEARCH_ADVICE)?,
            store: Some(MmapDirectory::open_with_madvice(root, Advice::Random)?),
            root: root.to_path_buf(),
            published,
        })
    }

    /// The directory whose maps read `path`.
    fn reading(&self, path: &Path) -> &MmapDirectory {
        match &self.store {
            Some(store) if !written_in_chunks(path) => store,
            _ => &self.inner,
        }
    }
}

/// The size of the aligned pieces an index file is handed to the OS in: 2 MiB (bytes), the
/// huge-page size of x86-64 and of arm64 with 4 KiB pages.
///
/// The page cache keeps a file's data in folios no larger than the writes that made them and
/// aligned to their offset. Handed over in 8 KiB pieces (tantivy's `BufWriter`), a 120 MB
/// `.fieldnorm` file sits in 8 KiB folios, and a search that reads one byte of it per matching
/// section maps (and at exit unmaps) thousands of 4 KiB pages, a fault each, which in a large
/// index costs a search more than its scoring. Written in aligned 2 MiB pieces, on a filesystem
/// with large folios (ext4 since Linux 6.16, XFS), the same data sits in 2 MiB folios that one
/// fault maps whole.
/// Elsewhere the pieces are only fewer, larger writes.
const WRITE_CHUNK_BYTES: usize = 2 << 20;

/// A file tantivy writes: handed to the OS in aligned [`WRITE_CHUNK_BYTES`] pieces (except the
/// document store, see [`written_in_chunks`]), flushed to the OS when finished, synced by the
/// next [`sync_filesystem`] (on Linux; elsewhere when finished, as tantivy does).
struct DeferredSyncFile(AlignedChunks<File>);

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
            self.0.inner.sync_data()?;
        }
        Ok(())
    }
}

/// A writer that hands `inner` its bytes in pieces ending at multiples of `chunk` bytes (each
/// piece at most `chunk` bytes, or whole multiples of it straight from a large write), so every
/// piece but a file's last starts and ends aligned. [`Write::flush`] hands over what is
/// pending; the piece after it ends at the next multiple, so alignment resumes. With `chunk`
/// `None`, writes pass straight through.
struct AlignedChunks<W: Write> {
    inner: W,
    chunk: Option<usize>,
    /// Bytes not yet handed to `inner`; they never cross a multiple of `chunk`.
    pending: Vec<u8>,
    /// Bytes handed to `inner` so far (the offset `pending` starts at).
    written: usize,
}

impl<W: Write> AlignedChunks<W> {
    fn new(inner: W, chunk: Option<usize>) -> AlignedChunks<W> {
        AlignedChunks {
            inner,
            chunk: chunk.filter(|&c| c > 0),
            pending: Vec::new(),
            written: 0,
        }
    }

    fn write_pending(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.pending)?;
        self.written += self.pending.len();
        self.pending.clear();
        Ok(())
    }
}

/// Hands over what is pending, as `BufWriter` does when dropped (errors ignored): a file tantivy
/// drops without finishing it keeps every byte written to it.
impl<W: Write> Drop for AlignedChunks<W> {
    fn drop(&mut self) {
        let _ = self.write_pending();
    }
}

impl<W: Write> Write for AlignedChunks<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let Some(chunk) = self.chunk else {
            return self.inner.write(buf);
        };
        let len = buf.len();
        while !buf.is_empty() {
            let to_boundary = chunk - (self.written + self.pending.len()) % chunk;
            if self.pending.is_empty() && to_boundary == chunk && buf.len() >= chunk {
                // Whole aligned pieces go straight from the caller's buffer.
                let whole = buf.len() - buf.len() % chunk;
                self.inner.write_all(&buf[..whole])?;
                self.written += whole;
                buf = &buf[whole..];
                continue;
            }
            let take = to_boundary.min(buf.len());
            self.pending.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if take == to_boundary {
                self.write_pending()?;
            }
        }
        Ok(len)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.inner.flush()
    }
}

/// `false` for the document store (`<segment>.store`): a search reads a block of it per hit,
/// and in 2 MiB folios each such block would map 2 MiB and count it in the process's resident
/// memory (`bench/scale` holds commands to 100 MB). The same split chooses the advice a
/// searching reader maps a file with ([`BatchSyncDirectory::open_for_search`]).
fn written_in_chunks(path: &Path) -> bool {
    path.extension().is_none_or(|e| e != "store")
}

impl Directory for BatchSyncDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.reading(path).get_file_handle(path)
    }

    fn open_read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        self.reading(path).open_read(path)
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
        let chunk = written_in_chunks(path).then_some(WRITE_CHUNK_BYTES);
        Ok(BufWriter::new(Box::new(DeferredSyncFile(
            AlignedChunks::new(file, chunk),
        ))))
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
        // A reader takes tantivy's meta lock so no writer deletes files while it opens them; a
        // published generation has no writer.
        if self.published {
            return Ok(DirectoryLock::from(Box::new(())));
        }
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_generations_reader_locks_without_a_lock_file() {
        let root = tempfile::tempdir().unwrap();
        let index = root.path().join("index");
        std::fs::create_dir_all(&index).unwrap();
        let lock_file = index.join(".tantivy-meta.lock");
        let held = |dir: &BatchSyncDirectory| {
            let made = {
                let _held = dir.acquire_lock(&tantivy::directory::META_LOCK).unwrap();
                lock_file.exists()
            };
            // tantivy leaves its lock file behind.
            std::fs::remove_file(&lock_file).ok();
            made
        };
        // A workspace's reader: tantivy's lock file, while the lock is held.
        assert!(held(
            &BatchSyncDirectory::open_for_search(&index, false).unwrap()
        ));
        assert!(!held(
            &BatchSyncDirectory::open_for_search(&index, true).unwrap()
        ));
        // A writer's directory takes real locks anywhere.
        assert!(held(&BatchSyncDirectory::open(&index).unwrap()));
    }

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

    /// Records where each piece handed to it starts and how long it is.
    #[derive(Default)]
    struct Pieces {
        bytes: Vec<u8>,
        pieces: Vec<(usize, usize)>,
    }

    impl Write for Pieces {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.pieces.push((self.bytes.len(), buf.len()));
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn pieces_end_on_chunk_boundaries_and_keep_every_byte() {
        let input: Vec<u8> = (0..200u8).collect();
        let mut out = AlignedChunks::new(Pieces::default(), Some(16));
        let mut at = 0;
        for size in [3, 5, 7, 40, 1, 16, 2, 33, 60, 33] {
            assert_eq!(out.write(&input[at..at + size]).unwrap(), size);
            at += size;
        }
        out.flush().unwrap();
        assert_eq!(at, input.len());
        assert_eq!(out.inner.bytes, input);
        let (last, rest) = out.inner.pieces.split_last().unwrap();
        for &(start, len) in rest {
            assert_eq!(
                (start + len) % 16,
                0,
                "piece {start}+{len} ends off a boundary"
            );
            assert!(
                start / 16 == (start + len - 1) / 16 || (start % 16 == 0 && len % 16 == 0),
                "piece {start}+{len} crosses a boundary"
            );
        }
        assert_eq!(*last, (192, 8));
        // The 40-byte write starting at offset 15 becomes 1 byte (to 16), 32 whole bytes
        // straight through, and 7 pending.
        assert!(out.inner.pieces.contains(&(16, 32)));
    }

    #[test]
    fn a_flush_hands_over_what_is_pending_and_the_next_piece_realigns() {
        let mut out = AlignedChunks::new(Pieces::default(), Some(8));
        out.write_all(b"abc").unwrap();
        out.flush().unwrap();
        out.write_all(b"defghijklmnopqrstuvwx").unwrap();
        out.flush().unwrap();
        out.flush().unwrap();
        assert_eq!(out.inner.bytes, b"abcdefghijklmnopqrstuvwx");
        assert_eq!(out.inner.pieces, [(0, 3), (3, 5), (8, 16)]);
    }

    #[test]
    fn a_dropped_writer_hands_over_what_is_pending() {
        let mut pieces = Pieces::default();
        {
            let mut out = AlignedChunks::new(&mut pieces, Some(8));
            out.write_all(b"abcdefghijk").unwrap();
        }
        assert_eq!(pieces.bytes, b"abcdefghijk");
        assert_eq!(pieces.pieces, [(0, 8), (8, 3)]);
    }

    #[test]
    fn without_a_chunk_writes_pass_straight_through() {
        let mut out = AlignedChunks::new(Pieces::default(), None);
        out.write_all(b"abc").unwrap();
        out.write_all(b"defghijklmnop").unwrap();
        assert_eq!(out.inner.pieces, [(0, 3), (3, 13)]);
    }

    #[test]
    fn a_file_of_several_chunks_reads_back_whole_and_the_store_too() {
        let dir = tempfile::tempdir().unwrap();
        let directory = BatchSyncDirectory::open(dir.path()).unwrap();
        let data: Vec<u8> = (0..WRITE_CHUNK_BYTES * 2 + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        for name in ["seg.fieldnorm", "seg.store"] {
            let mut file = directory.open_write(Path::new(name)).unwrap();
            for piece in data.chunks(7_919) {
                file.write_all(piece).unwrap();
            }
            file.terminate().unwrap();
            let read = directory.open_read(Path::new(name)).unwrap();
            assert_eq!(read.read_bytes().unwrap().as_slice(), &data[..], "{name}");
        }
        assert!(written_in_chunks(Path::new("seg.fieldnorm")));
        assert!(written_in_chunks(Path::new("seg.store.temp")));
        assert!(!written_in_chunks(Path::new("seg.store")));
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(BatchSyncDirectory::open(&dir.path().join("absent")).is_err());
        assert!(sync_filesystem(&dir.path().join("absent")).is_err());
    }
}
