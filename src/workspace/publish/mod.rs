//! Published generations: read-only copies of a workspace that other machines can copy with
//! `rsync` or an object store and open without any coordination with the writer.
//!
//! A workspace is written in place (SQLite in WAL mode, tantivy segments, tree files), so a copy
//! taken while `docnav index` runs can mix two states, and its catalog needs its `-wal` file
//! and shared memory. [`publish`] takes the workspace's writer lock and writes a *generation*
//! into a publish folder:
//!
//! ```text
//! DIR/docnav-publish.json      the marker: this folder holds generations
//! DIR/gen-000007/catalog.db    a self-contained SQLite file (rollback journal, no -wal/-shm)
//! DIR/gen-000007/docs/…        the tree files the catalog names, one per document
//! DIR/gen-000007/index/…       the section index's files (tantivy)
//! DIR/gen-000007/docs.sha256   every tree file with its sha256 (`sha256sum` lines)
//! DIR/gen-000007/manifest.json the files above but the tree files with their sizes and sha256,
//!                              and the tree files' count, bytes and names digest; written last
//! DIR/.docnav-checked/gen-…    written by readers: generations whose docs/ listing matched
//! ```
//!
//! The generation is built under a temporary name (`.tmp-gen-000007`, which readers pass over)
//! and renamed into place once its manifest is written, so on the publishing machine it appears
//! whole. Tree files and index files are never rewritten in place once written, so they are
//! hard-linked from the workspace when the publish folder is on the same filesystem (copied
//! otherwise); the catalog is copied with SQLite's `VACUUM INTO`, a consistent snapshot.
//!
//! A copy on another machine may arrive in any file order, so readers do not trust a folder's
//! name: [`Workspace::open`](super::Workspace::open) given a publish folder opens the newest
//! generation that is complete ([`manifest::check`]); a half-copied newer one is passed over for
//! the previous one. Every read command opens a generation, so that check must cost the same at
//! 100,000 documents as at 1,000: the manifest is small (tens of entries: the tree files are
//! summarised, their per-file listing is a separate file only `--verify` reads), the files it
//! lists are checked with a `stat` each, and `docs/` with one directory listing compared by name
//! ([`listing::check_docs`]), which a reader remembers per generation so that later opens skip
//! it. Names and sizes suffice because copy tools write each file under a temporary name and
//! rename it into place when whole; checksums are read only by `docnav publish --verify`.
//! Nothing but [`publish`] writes a generation: `docnav index` refuses one (`refuse_writes`).

pub mod listing;
pub mod manifest;

use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::sync::WriterLock;
use super::{store, CatalogStore, Workspace, WorkspaceError, FORMAT_VERSION};
use crate::index::SectionIndex;
pub use manifest::{Manifest, ManifestFile, MANIFEST};

/// The marker file of a publish folder.
pub const MARKER: &str = "docnav-publish.json";

/// How many generations [`publish`] keeps by default (the newest ones): a replica that is
/// copying, or a reader that opened one a moment ago, still finds the previous ones.
pub const DEFAULT_KEEP: u64 = 3;

/// Prefix of a generation folder's name; the number follows, zero-padded to six digits.
const PREFIX: &str = "gen-";

/// Prefix of a generation being written.
const TEMP_PREFIX: &str = ".tmp-gen-";

/// The folder name of generation `number`.
pub fn generation_name(number: u64) -> String {
    format!("{PREFIX}{number:06}")
}

/// The generation number a folder name stands for (`gen-000007` → 7), `None` for other names.
fn generation_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether `dir` is a publish folder (it holds the [`MARKER`]).
pub fn is_publish_folder(dir: &Path) -> bool {
    dir.join(MARKER).is_file()
}

/// Whether `dir` is a generation inside a publish folder.
pub fn is_generation(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file() && dir.parent().is_some_and(is_publish_folder)
}

/// The generation folders of the publish folder `dir`, newest (highest number) first, complete
/// or not. A folder that cannot be listed has none.
pub fn generations(dir: &Path) -> Vec<(u64, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let number = generation_number(&e.file_name().to_string_lossy())?;
            e.file_type()
                .is_ok_and(|t| t.is_dir())
                .then(|| (number, e.path()))
        })
        .collect();
    found.sort_by_key(|(number, _)| std::cmp::Reverse(*number));
    found
}

/// The newest complete generation of the publish folder `dir` and its manifest (see
/// [`manifest::check`]); newer incomplete ones are passed over with a debug log line.
///
/// Errors: [`WorkspaceError::NoGeneration`] naming `dir`, with why the newest one is incomplete
/// (or that there is none).
pub fn newest_complete(dir: &Path) -> Result<(PathBuf, Manifest), WorkspaceError> {
    let mut first_problem = None;
    for (_, path) in generations(dir) {
        match manifest::check(&path) {
            Ok(manifest) => return Ok((path, manifest)),
            Err(why) => {
                tracing::debug!("passing over incomplete generation: {why}");
                first_problem.get_or_insert(why);
            }
        }
    }
    Err(WorkspaceError::NoGeneration {
        dir: dir.to_path_buf(),
        reason: first_problem.unwrap_or_else(|| "it holds no generation".into()),
    })
}

/// Where the files of the workspace named `dir` are read from: `dir` itself, or for a publish
/// folder its newest complete generation (with its number).
///
/// Errors: as [`newest_complete`].
pub(crate) fn data_dir(dir: &Path) -> Result<(PathBuf, Option<u64>), WorkspaceError> {
    if !is_publish_folder(dir) {
        return Ok((dir.to_path_buf(), None));
    }
    let (path, manifest) = newest_complete(dir)?;
    Ok((path, Some(manifest.generation)))
}

/// The newest generation of the publish folder `dir` by name, complete or not (what a
/// long-running reader compares against the one it has open); `None` when `dir` is not a
/// publish folder or holds none.
pub fn newest_named(dir: &Path) -> Option<(u64, PathBuf)> {
    if !is_publish_folder(dir) {
        return None;
    }
    generations(dir).into_iter().next()
}

/// Fails when `dir` is a publish folder or one of its generations: those are written only by
/// [`publish`], and a reader trusts a generation never to change.
///
/// Errors: [`WorkspaceError::PublishedReadOnly`] naming `dir`.
pub(crate) fn refuse_writes(dir: &Path) -> Result<(), WorkspaceError> {
    if is_publish_folder(dir) || is_generation(dir) {
        return Err(WorkspaceError::PublishedReadOnly(dir.to_path_buf()));
    }
    Ok(())
}

/// What [`publish`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The new generation's folder.
    pub path: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// Files hard-linked from the workspace.
    pub linked: usize,
    /// Files copied (the catalog, and everything when hard links are not possible).
    pub copied: usize,
    /// Older generation folders deleted ([`prune`]).
    pub pruned: Vec<PathBuf>,
}

impl Published {
    /// Total size of the generation's files, in bytes.
    pub fn bytes(&self) -> u64 {
        self.manifest.bytes()
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WorkspaceError {
    let path = path.to_path_buf();
    move |source| WorkspaceError::Io { path, source }
}

/// Publish the workspace `workspace` into the publish folder `out` (created, with its marker,
/// if missing) as a new generation numbered one past the highest there, then delete all but the
/// `keep` newest complete generations (at least 1 is kept). Holds the workspace's writer lock
/// while copying (an index run waits, and the copy is of one committed state) and an exclusive
/// lock on `out`'s marker (two publishers into one folder take turns).
///
/// Errors: [`WorkspaceError::Missing`] without a workspace; [`WorkspaceError::Search`] when its
/// search index is unusable; [`WorkspaceError::PublishedReadOnly`] when `workspace` is itself
/// published; [`WorkspaceError::NotPublishFolder`] when `out` is a folder that holds other
/// things; `Busy` when the index and catalog disagree; `Io`/`Corrupt` naming the file that
/// failed. On any error the new generation is left only under its temporary name, which readers
/// pass over and the next publish removes.
pub fn publish(workspace: &Path, out: &Path, keep: u64) -> Result<Published, WorkspaceError> {
    refuse_writes(workspace)?;
    // Opening repairs an index run interrupted between its commits, and says whether the
    // workspace can be searched at all.
    let opened = Workspace::open(workspace)?;
    crate::workspace::Library::sections(&opened)?;
    drop(opened);
    let marker = open_publish_folder(out)?;
    marker.lock().map_err(io(&out.join(MARKER)))?;
    let _lock = WriterLock::acquire(workspace)?;
    remove_temporaries(out)?;
    let number = generations(out).first().map_or(1, |(n, _)| n + 1);
    let temp = out.join(format!("{TEMP_PREFIX}{number:06}"));
    let (linked, copied) = write_generation(workspace, &temp)?;
    let store = CatalogStore::open(&temp)?;
    let (files, docs) = listing::write_docs_listing(&temp, manifest::list_files(&temp)?)?;
    let manifest = Manifest {
        format: manifest::MANIFEST_FORMAT,
        generation: number,
        workspace_format: FORMAT_VERSION,
        index_generation: store.head().index_generation,
        documents: store.head().documents,
        docnav_version: env!("CARGO_PKG_VERSION").to_string(),
        docs,
        files,
    };
    drop(store);
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| WorkspaceError::Corrupt {
        path: temp.join(MANIFEST),
        reason: e.to_string(),
    })?;
    crate::durable::sync_filesystem(&temp).map_err(io(&temp))?;
    crate::workspace::write_atomic(&temp.join(MANIFEST), &json).map_err(io(&temp))?;
    let path = out.join(generation_name(number));
    std::fs::rename(&temp, &path).map_err(io(&path))?;
    crate::durable::sync_dir(out).map_err(io(out))?;
    let pruned = prune(out, keep)?;
    Ok(Published {
        path,
        manifest,
        linked,
        copied,
        pruned,
    })
}

/// Open (creating it and its marker when missing) the publish folder `out` and return its
/// marker file. Errors: [`WorkspaceError::NotPublishFolder`] for a folder without the marker
/// that is not empty; `Io` naming what could not be created.
fn open_publish_folder(out: &Path) -> Result<File, WorkspaceError> {
    let marker = out.join(MARKER);
    if !marker.is_file() {
        let empty = match std::fs::read_dir(out) {
            Ok(mut entries) => entries.next().is_none(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => return Err(io(out)(e)),
        };
        if !empty {
            return Err(WorkspaceError::NotPublishFolder(out.to_path_buf()));
        }
        std::fs::create_dir_all(out).map_err(io(out))?;
        let body = format!(
            "{{\"docnav_publish\": {}, \"note\": \"generations of a docnav workspace; open this \
             folder with --workspace\"}}\n",
            manifest::MANIFEST_FORMAT
        );
        crate::workspace::write_atomic(&marker, body.as_bytes()).map_err(io(&marker))?;
    }
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&marker)
        .map_err(io(&marker))
}

/// Remove generations left half-written by a publish that failed or died (the caller holds the
/// marker's lock, so none is being written).
fn remove_temporaries(out: &Path) -> Result<(), WorkspaceError> {
    for entry in std::fs::read_dir(out).map_err(io(out))?.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            let path = entry.path();
            std::fs::remove_dir_all(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// Write the files of `workspace` into the new folder `temp`: the catalog by `VACUUM INTO`
/// switched to a rollback journal (a reader needs no `-wal`/`-shm` and no write access), the tree
/// files the catalog names and the section index's files hard-linked or copied. Returns
/// `(linked, copied)` file counts. The caller holds the writer lock.
fn write_generation(workspace: &Path, temp: &Path) -> Result<(usize, usize), WorkspaceError> {
    let source = CatalogStore::open(workspace)?;
    let generation = source.head().index_generation;
    let index_dir = workspace.join("index");
    let index = SectionIndex::open_for_search(&index_dir)
        .map_err(|e| super::sync::search_error(workspace, e))?;
    let indexed = index
        .generation()
        .map_err(|e| super::sync::search_error(workspace, e))?;
    drop(index);
    if indexed != Some(generation) {
        return Err(WorkspaceError::Busy {
            dir: workspace.to_path_buf(),
            catalog: generation,
            index: indexed,
        });
    }
    let entries = source.entries()?;
    drop(source);
    for folder in [temp.to_path_buf(), temp.join("docs"), temp.join("index")] {
        std::fs::create_dir_all(&folder).map_err(io(&folder))?;
    }
    copy_catalog(workspace, temp)?;
    let (mut linked, mut copied) = (0, 1);
    let mut place = |from: PathBuf, to: PathBuf| -> Result<(), WorkspaceError> {
        if std::fs::hard_link(&from, &to).is_ok() {
            linked += 1;
        } else {
            std::fs::copy(&from, &to).map_err(io(&from))?;
            copied += 1;
        }
        Ok(())
    };
    for entry in &entries {
        place(
            workspace.join("docs").join(&entry.tree_file),
            temp.join("docs").join(&entry.tree_file),
        )?;
    }
    for file in std::fs::read_dir(&index_dir).map_err(io(&index_dir))? {
        let file = file.map_err(io(&index_dir))?;
        let name = file.file_name();
        let text = name.to_string_lossy();
        // Lock files and a crashed write's temporaries are no part of the index.
        let skip = text.ends_with(".lock") || text.starts_with(".tmp");
        if skip || !file.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        place(file.path(), temp.join("index").join(&name))?;
    }
    Ok((linked, copied))
}

/// `VACUUM INTO` the catalog of `workspace` as `temp/catalog.db`, then switch the copy to a
/// rollback journal. Errors: `Corrupt` naming the file when SQLite fails.
fn copy_catalog(workspace: &Path, temp: &Path) -> Result<(), WorkspaceError> {
    let from = store::store_path(workspace);
    let to = store::store_path(temp);
    let sql = |path: &Path| {
        let path = path.to_path_buf();
        move |e: rusqlite::Error| WorkspaceError::Corrupt {
            path,
            reason: e.to_string(),
        }
    };
    let target = to.to_str().ok_or_else(|| WorkspaceError::Io {
        path: to.clone(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the publish folder's path is not UTF-8",
        ),
    })?;
    let conn =
        Connection::open_with_flags(&from, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sql(&from))?;
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(sql(&from))?;
    conn.execute("VACUUM INTO ?1", [target])
        .map_err(sql(&from))?;
    drop(conn);
    let copy = Connection::open(&to).map_err(sql(&to))?;
    copy.pragma_update(None, "journal_mode", "DELETE")
        .map_err(sql(&to))?;
    copy.close().map_err(|(_, e)| sql(&to)(e))?;
    Ok(())
}

/// Delete the generations of `out` older than its `keep` newest complete ones (at least one is
/// kept); incomplete generations newer than those are left alone (another publisher's copy may
/// be arriving). Returns the deleted folders, oldest last.
///
/// Errors: `Io` naming a folder that could not be deleted.
pub fn prune(out: &Path, keep: u64) -> Result<Vec<PathBuf>, WorkspaceError> {
    let keep = keep.max(1);
    let all = generations(out);
    let mut complete = 0;
    let mut pruned = Vec::new();
    for (_, path) in all {
        if complete >= keep {
            std::fs::remove_dir_all(&path).map_err(io(&path))?;
            if let Some(name) = path.file_name() {
                // Best effort: a reader lists a generation again when its memo is gone.
                let _ = std::fs::remove_file(out.join(listing::CHECKED).join(name));
            }
            pruned.push(path);
        } else if manifest::check(&path).is_ok() {
            complete += 1;
        }
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests;
