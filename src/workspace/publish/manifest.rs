//! The manifest of a published generation (`manifest.json`): written last, it defines when a
//! copy of the generation is complete ([`check`]). It lists the catalog, the section index's files
//! and the `docs/` listing ([`DOCS_LISTING`]) each with its size and sha256, and of `docs/` (one
//! tree file per document) only the count, total size and a digest of the names
//! ([`DocsSummary`]), so that reading it and checking a generation costs the same at 100,000
//! documents as at 1,000 (see [`super::listing`] for how `docs/` is checked).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::listing::{self, DocsSummary, DOCS_LISTING};
use crate::workspace::WorkspaceError;

/// The manifest's file name inside a generation folder.
pub const MANIFEST: &str = "manifest.json";

/// Version of the manifest layout this build writes and reads. Format 1 listed every tree file
/// in the manifest; its generations are refused with a hint to publish again.
pub const MANIFEST_FORMAT: u32 = 2;

/// What `manifest.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: u32,
    /// The generation's number (its folder is `gen-<number>`, zero-padded).
    pub generation: u64,
    /// The workspace format of the copied files ([`crate::workspace::FORMAT_VERSION`]).
    pub workspace_format: u32,
    /// The catalog's index generation when it was published.
    pub index_generation: u64,
    /// How many documents the catalog holds.
    pub documents: usize,
    /// The docnav that published it.
    pub docnav_version: String,
    /// What `docs/` holds: its tree files are listed in [`DOCS_LISTING`], not here.
    pub docs: DocsSummary,
    /// Every other file of the generation but the manifest (the catalog, the index's files and
    /// [`DOCS_LISTING`]), sorted by path.
    pub files: Vec<ManifestFile>,
}

impl Manifest {
    /// How many files the generation holds besides its manifest.
    pub fn file_count(&self) -> usize {
        self.files.len() + self.docs.files
    }

    /// Their total size, in bytes.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum::<u64>() + self.docs.bytes
    }
}

/// Only the format of a manifest, read before the rest so that another format is named as such.
#[derive(Deserialize)]
struct FormatOnly {
    format: u32,
}

/// One file of a generation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFile {
    /// Path relative to the generation folder, `/`-separated (`index/meta.json`).
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// sha256 of the contents, lowercase hex (what `sha256sum` prints).
    pub sha256: String,
}

/// Why a generation folder is not complete (one line).
pub type Incomplete = String;

/// The manifest of `generation` when the folder is complete: its manifest is present, decodes,
/// every file it lists is present with the listed size, and `docs/` holds the tree files it names
/// ([`listing::check_docs`]: one directory listing, remembered per generation). Sizes and names
/// only: a copy tool writes each file under a temporary name and renames it when done (`rsync`,
/// object-storage sync), so a file under its own name is whole, and the cost of an open does not
/// grow with the documents; the checksums are read by [`verify`] (`docnav publish --verify`).
///
/// Errors: why the folder is incomplete, one line naming the file; a manifest of another format
/// says to publish again.
pub fn check(generation: &Path) -> Result<Manifest, Incomplete> {
    let path = generation.join(MANIFEST);
    let bytes = std::fs::read(&path).map_err(|e| format!("`{}`: {e}", path.display()))?;
    let format = serde_json::from_slice::<FormatOnly>(&bytes)
        .map_err(|e| format!("`{}` does not decode: {e}", path.display()))?
        .format;
    if format != MANIFEST_FORMAT {
        return Err(format!(
            "`{}` has format {format}; this docnav reads {MANIFEST_FORMAT} (publish the \
             workspace again with this docnav: docnav publish DIR)",
            path.display(),
        ));
    }
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| format!("`{}` does not decode: {e}", path.display()))?;
    for file in &manifest.files {
        let on_disk = file_path(generation, &file.path)?;
        match std::fs::metadata(&on_disk) {
            Ok(m) if m.is_file() && m.len() == file.bytes => {}
            Ok(m) => {
                return Err(format!(
                    "`{}` has {} bytes, the manifest lists {}",
                    on_disk.display(),
                    m.len(),
                    file.bytes
                ))
            }
            Err(e) => return Err(format!("`{}`: {e}", on_disk.display())),
        }
    }
    listing::check_docs(generation, &manifest.docs)?;
    Ok(manifest)
}

/// [`check`], then the sha256 of every file against the manifest, the tree files' against
/// [`DOCS_LISTING`] (reads the whole generation). Returns the manifest.
///
/// Errors: the first file that is missing or differs, one line naming it.
pub fn verify(generation: &Path) -> Result<Manifest, Incomplete> {
    let manifest = check(generation)?;
    let docs = listing::read_docs_listing(generation, &manifest.docs)?;
    for file in manifest.files.iter().chain(&docs) {
        let on_disk = file_path(generation, &file.path)?;
        let sum = crate::digest::sha256_file_hex(&on_disk)
            .map_err(|e| format!("`{}`: {e}", on_disk.display()))?;
        if sum != file.sha256 {
            let listed_in = if file.path.starts_with("docs/") {
                DOCS_LISTING
            } else {
                MANIFEST
            };
            return Err(format!(
                "`{}` does not have the sha256 `{listed_in}` lists",
                on_disk.display()
            ));
        }
    }
    Ok(manifest)
}

/// The file a manifest path names inside `generation`. Errors: a path that leaves the folder
/// (absolute, or with a `..` or empty component).
pub(super) fn file_path(generation: &Path, relative: &str) -> Result<PathBuf, Incomplete> {
    let mut path = generation.to_path_buf();
    for part in relative.split('/') {
        if part.is_empty() || part == "." || part == ".." {
            return Err(format!("the manifest lists a bad path `{relative}`"));
        }
        path.push(part);
    }
    Ok(path)
}

/// The [`ManifestFile`]s of every regular file under `root`, sorted by path.
///
/// Errors: [`WorkspaceError::Io`] naming a file or folder that cannot be read.
pub fn list_files(root: &Path) -> Result<Vec<ManifestFile>, WorkspaceError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WorkspaceError::Io { path, source }
    };
    let mut files = Vec::new();
    let mut folders = vec![(root.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = folders.pop() {
        for entry in std::fs::read_dir(&folder).map_err(io(&folder))? {
            let entry = entry.map_err(io(&folder))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = format!("{prefix}{name}");
            let kind = entry.file_type().map_err(io(&entry.path()))?;
            if kind.is_dir() {
                folders.push((entry.path(), format!("{relative}/")));
            } else if kind.is_file() && relative != MANIFEST {
                let path = entry.path();
                let bytes = entry.metadata().map_err(io(&path))?.len();
                let sha256 = crate::digest::sha256_file_hex(&path).map_err(io(&path))?;
                files.push(ManifestFile {
                    path: relative,
                    bytes,
                    sha256,
                });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}
