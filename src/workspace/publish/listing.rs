//! The `docs/` folder of a published generation: one tree file per document, so as many files as
//! documents. `manifest.json` holds only their count, total size and a digest of their sorted
//! names ([`DocsSummary`]); their sizes and checksums are in the listing file [`DOCS_LISTING`]
//! (`sha256sum` lines), which only `docnav publish --verify` reads.
//!
//! Opening a generation checks `docs/` with one directory listing and no `stat` per file
//! ([`check_docs`]): the set of tree-file names in the folder must be the set the manifest
//! names. A copy tool that writes each file under a temporary name and renames it when whole
//! (`rsync`, object-storage sync tools) leaves a missing or in-progress tree file absent under its
//! own name, so the sets differ until the copy is done. Even a listing costs time in proportion
//! to the documents (tens of milliseconds at 100,000), so a listing that matched is remembered in
//! the publish folder's [`CHECKED`] folder, keyed by the identity and change time of that `docs/`
//! folder: every file created, renamed or deleted in a folder changes its change time (`ctime`,
//! which no copy tool can set), so while the key holds the names are the ones counted, and the
//! next open of that generation costs one `stat` and one small read. Where that folder cannot be
//! written (a read-only copy), every open lists `docs/`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::manifest::{file_path, Incomplete, ManifestFile};
use crate::workspace::WorkspaceError;

/// The listing of `docs/` inside a generation folder: one `sha256sum` line per tree file,
/// `<sha256>  docs/<name>`, sorted by name (`sha256sum -c docs.sha256` in the generation folder
/// checks it by hand).
pub const DOCS_LISTING: &str = "docs.sha256";

/// Folder of the publish folder where readers remember the `docs/` listings that matched their
/// manifest (one small file per generation); never copied meaningfully, since its keys name
/// this machine's folders.
pub const CHECKED: &str = ".docnav-checked";

/// What `manifest.json` says of `docs/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocsSummary {
    /// How many tree files `docs/` holds.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
    /// sha256 (lowercase hex) of their names, sorted, each followed by `\n` ([`names_digest`]).
    pub names_sha256: String,
}

/// Whether a name in `docs/` is a tree file's (`<doc id>-<hash>.bin`): temporaries of copy
/// tools (rsync's `.name.XXXXXX`, `name.bin.partial`, …) are not.
pub fn is_tree_file_name(name: &str) -> bool {
    !name.starts_with('.') && name.ends_with(".bin")
}

/// sha256 of `names` (sorted by the caller), each followed by `\n`, lowercase hex.
pub fn names_digest<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut hasher = Sha256::new();
    for name in names {
        hasher.update(name.as_bytes());
        hasher.update(b"\n");
    }
    crate::digest::lower_hex(&hasher.finalize())
}

/// Split `files` (every file of a new generation, sorted by path) into the tree files under
/// `docs/` and the others, write the tree files' listing as `generation/`[`DOCS_LISTING`], and
/// return the other files plus the listing (sorted by path) and the summary of `docs/`.
///
/// Errors: `Corrupt` when a file in `docs/` is not named as a tree file (a reader could never
/// count it); `Io` when the listing cannot be written.
pub fn write_docs_listing(
    generation: &Path,
    files: Vec<ManifestFile>,
) -> Result<(Vec<ManifestFile>, DocsSummary), WorkspaceError> {
    let (docs, mut others): (Vec<ManifestFile>, Vec<ManifestFile>) =
        files.into_iter().partition(|f| f.path.starts_with("docs/"));
    let mut text = String::new();
    let mut names = Vec::with_capacity(docs.len());
    for file in &docs {
        let name = &file.path["docs/".len()..];
        if !is_tree_file_name(name) || name.contains(['/', '\n', '\\']) {
            return Err(WorkspaceError::Corrupt {
                path: generation.join(&file.path),
                reason: "not a tree file's name; a reader would never count it".into(),
            });
        }
        text.push_str(&format!("{}  {}\n", file.sha256, file.path));
        names.push(name);
    }
    let summary = DocsSummary {
        files: docs.len(),
        bytes: docs.iter().map(|f| f.bytes).sum(),
        names_sha256: names_digest(names),
    };
    let path = generation.join(DOCS_LISTING);
    std::fs::write(&path, text.as_bytes()).map_err(|source| WorkspaceError::Io {
        path: path.clone(),
        source,
    })?;
    others.push(ManifestFile {
        path: DOCS_LISTING.into(),
        bytes: text.len() as u64,
        sha256: crate::digest::sha256_hex(text.as_bytes()),
    });
    others.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((others, summary))
}

/// The tree files [`DOCS_LISTING`] of `generation` lists, checked against `summary`.
///
/// Errors: a listing that cannot be read, has a bad line, or does not agree with `summary`.
pub fn read_docs_listing(
    generation: &Path,
    summary: &DocsSummary,
) -> Result<Vec<ManifestFile>, Incomplete> {
    let path = generation.join(DOCS_LISTING);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("`{}`: {e}", path.display()))?;
    let mut files = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let bad = || {
            format!(
                "`{}` line {}: not `<sha256>  docs/<name>`",
                path.display(),
                n + 1
            )
        };
        let (sha256, file) = line.split_once("  ").ok_or_else(bad)?;
        let name = file.strip_prefix("docs/").ok_or_else(bad)?;
        if sha256.len() != 64 || !is_tree_file_name(name) {
            return Err(bad());
        }
        let bytes = std::fs::metadata(file_path(generation, file)?).map_or(0, |m| m.len());
        files.push(ManifestFile {
            path: file.to_string(),
            bytes,
            sha256: sha256.to_string(),
        });
    }
    let digest = names_digest(files.iter().map(|f| &f.path["docs/".len()..]));
    if files.len() != summary.files || digest != summary.names_sha256 {
        return Err(format!(
            "`{}` lists {} tree files that are not the {} the manifest names",
            path.display(),
            files.len(),
            summary.files
        ));
    }
    Ok(files)
}

/// Whether `generation/docs` holds exactly the tree files `summary` names (by name; see the
/// module docs for why names suffice), remembered per generation in the publish folder's
/// [`CHECKED`] folder when that can be written.
///
/// Errors: why `docs/` is incomplete, one line naming the folder.
pub fn check_docs(generation: &Path, summary: &DocsSummary) -> Result<(), Incomplete> {
    let docs = generation.join("docs");
    let memo = memo_path(generation);
    let key = std::fs::metadata(&docs)
        .ok()
        .and_then(|m| memo_key(&m, summary));
    if let (Some(key), Some(memo)) = (&key, &memo) {
        if std::fs::read(memo).is_ok_and(|held| held == key.as_bytes()) {
            return Ok(());
        }
    }
    let entries = std::fs::read_dir(&docs).map_err(|e| format!("`{}`: {e}", docs.display()))?;
    let mut names = Vec::with_capacity(summary.files);
    for entry in entries {
        let entry = entry.map_err(|e| format!("`{}`: {e}", docs.display()))?;
        let name = entry.file_name();
        if let Some(name) = name.to_str().filter(|n| is_tree_file_name(n)) {
            names.push(name.to_string());
        }
    }
    if names.len() != summary.files {
        return Err(format!(
            "`{}` holds {} of the {} tree files its manifest lists",
            docs.display(),
            names.len(),
            summary.files
        ));
    }
    names.sort_unstable();
    if names_digest(names.iter().map(String::as_str)) != summary.names_sha256 {
        return Err(format!(
            "`{}` does not hold the tree files its manifest lists",
            docs.display()
        ));
    }
    if let (Some(key), Some(memo)) = (key, memo) {
        remember(&memo, &key);
    }
    Ok(())
}

/// Write `key` as `memo`, and remove the memos of generations no longer in the publish folder
/// (copies made with `rsync --delete --exclude /.docnav-checked` delete the generations only).
/// Best effort: a publish folder this reader cannot write is listed on every open.
fn remember(memo: &Path, key: &str) {
    let Some(folder) = memo.parent() else {
        return;
    };
    if std::fs::create_dir_all(folder).is_err()
        || crate::durable::write_atomic_deferred(memo, key.as_bytes()).is_err()
    {
        return;
    }
    let (Some(publish_folder), Ok(entries)) = (folder.parent(), std::fs::read_dir(folder)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let temporary = name.to_string_lossy().starts_with('.');
        if !temporary && !publish_folder.join(&name).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Where [`check_docs`] remembers `generation`: `<publish folder>/.docnav-checked/<gen name>`.
fn memo_path(generation: &Path) -> Option<PathBuf> {
    let name = generation.file_name()?;
    Some(generation.parent()?.join(CHECKED).join(name))
}

/// The key a listing of the `docs/` folder with metadata `meta` is remembered under: the folder's
/// device, inode, change and modification times (nanoseconds), and what the manifest says of it.
/// `None` where the platform gives no change time.
fn memo_key(meta: &std::fs::Metadata, summary: &DocsSummary) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(format!(
            "docs-listing 1 dev {} ino {} ctime {}.{:09} mtime {}.{:09} files {} names {}\n",
            meta.dev(),
            meta.ino(),
            meta.ctime(),
            meta.ctime_nsec(),
            meta.mtime(),
            meta.mtime_nsec(),
            summary.files,
            summary.names_sha256
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = (meta, summary);
        None
    }
}
