//! The workspace (DESIGN.md §3): a directory holding `catalog.json` (all DocCards) and one tree
//! file per document under `docs/`.
//!
//! Tree files are binary: [`TREE_FILE_MAGIC`], the format version, then the [`Document`] in
//! postcard ([`encode_tree_file`]). `catalog.json` stays JSON (small, read by people and scripts).
//!
//! Crash safety: tree files are named by doc id *and* fingerprint (`docs/guide-1a2b3c4d5e6f.bin`),
//! so a re-index writes new files next to the old ones, then replaces the catalog atomically, and
//! only then deletes files the new catalog no longer names. A crash at any point leaves a catalog
//! whose every file exists: the previous state or the new one, never a mix. Writers hold an
//! exclusive lock on `lock`; readers need no lock.
//!
//! A reader that opened the workspace before a re-index still holds the old catalog, whose tree
//! file for a rebuilt document may be gone when it first loads that document: it then re-reads
//! the catalog once and loads the document's current tree file (see [`Library::document`] for
//! [`Workspace`]).

pub mod atomic;
pub mod document;
pub mod indexer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

pub use atomic::write_atomic;
pub use document::{fingerprint, slugify, BuiltDocument, Document, InMemoryLibrary, Library};
pub use indexer::{IndexOptions, IndexReport};

use crate::index::DocCard;

/// Version of `catalog.json` and tree files this build reads and writes. Version 2: tree files
/// are binary (postcard) instead of JSON — loading a 7 MB tree (R-fullrefman.pdf) was most of a
/// cold `ask`'s own time. A change in what the parsers and the build stage produce, with the
/// same layout, bumps [`TREE_BUILDER_VERSION`] instead.
pub const FORMAT_VERSION: u32 = 2;

/// Version of the trees the parsers and build stage make from a source. Bump it whenever the same
/// source bytes give a different tree (headings, text cuts, summaries, references), so `docnav
/// index` rebuilds unchanged sources indexed by an older build instead of keeping stale trees.
/// 1: `Node::references` filled (trees before have none), table-of-contents lines reference
/// nothing. Catalog rows from before this field have `build_key` "" and are rebuilt.
/// 2: PDF text without running headers, footers and page numbers; PDFs without an outline
/// sectioned at their printed headings (issue 10).
pub const TREE_BUILDER_VERSION: u32 = 2;

/// What a tree was built with, kept in its catalog row ([`CatalogEntry::build_key`]): the
/// [`TREE_BUILDER_VERSION`] and the options that change trees (`max_leaf_tokens`). A source whose
/// bytes are unchanged is still rebuilt when this differs.
pub fn build_key(options: &crate::tree::BuildOptions) -> String {
    format!(
        "builder {TREE_BUILDER_VERSION}, max leaf {} tokens",
        options.max_leaf_tokens
    )
}

/// First bytes of a tree file, before its little-endian `u32` format version.
pub const TREE_FILE_MAGIC: &[u8; 8] = b"DOCNAVT\n";

/// Default workspace directory (relative to the current directory).
pub const DEFAULT_DIR: &str = ".docnav";

/// Workspace failures. Fatal for the command that met them.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// No document with this id.
    #[error("document not found: {0} (hint: `docnav docs` lists the ids)")]
    NotFound(String),
    /// The workspace directory holds no catalog.
    #[error("no workspace at `{0}` (hint: run `docnav index <files>` first, or pass --workspace)")]
    Missing(PathBuf),
    /// A file of the workspace could not be read or written.
    #[error("workspace file `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file of the workspace does not decode (catalog: JSON; tree file: magic bytes + postcard).
    #[error(
        "workspace file `{path}` is damaged: {reason} (hint: re-index with `docnav index --force`)"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The parse error.
        reason: String,
    },
    /// A file was written by a different format version.
    #[error(
        "workspace file `{path}` has format version {found}; this docnav reads version {expected} \
         (hint: re-index into a new workspace)"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
}

/// One catalog row: a card plus where its tree file and source are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogEntry {
    /// The document's card.
    pub card: DocCard,
    /// Tree file name inside `docs/`.
    pub tree_file: String,
    /// Source size in bytes when indexed (fast unchanged check with `mtime_ms`).
    pub source_len: u64,
    /// Source modification time, ms since the Unix epoch, when indexed (0 when unknown).
    pub mtime_ms: u64,
    /// [`build_key`] of the build that made the tree ("" in catalogs written before it existed).
    #[serde(default)]
    pub build_key: String,
}

/// `catalog.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// docnav version of the writer.
    pub docnav_version: String,
    /// Rows sorted by `doc_id`.
    pub documents: Vec<CatalogEntry>,
}

impl Catalog {
    fn empty() -> Catalog {
        Catalog {
            format_version: FORMAT_VERSION,
            docnav_version: env!("CARGO_PKG_VERSION").to_string(),
            documents: Vec::new(),
        }
    }
}

/// Encode a tree file: [`TREE_FILE_MAGIC`], [`FORMAT_VERSION`] as little-endian `u32`, then the
/// [`Document`] in postcard (a compact serde binary format; varint integers).
///
/// Errors: a serialization failure (a bug: every field is serializable), as a message.
pub fn encode_tree_file(document: &Document, size_hint: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(size_hint);
    out.extend_from_slice(TREE_FILE_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    postcard::to_io(document, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Decode a tree file read from `path` (see [`encode_tree_file`]).
///
/// Errors: [`WorkspaceError::Corrupt`] without the magic bytes or when the body does not decode;
/// [`WorkspaceError::Version`] for another format version.
pub fn decode_tree_file(path: &Path, bytes: &[u8]) -> Result<Document, WorkspaceError> {
    let corrupt = |reason: String| WorkspaceError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let Some(rest) = bytes.strip_prefix(TREE_FILE_MAGIC.as_slice()) else {
        return Err(corrupt("not a docnav tree file (bad magic bytes)".into()));
    };
    let Some((version, body)) = rest.split_at_checked(4) else {
        return Err(corrupt("truncated header".into()));
    };
    let found = u32::from_le_bytes([version[0], version[1], version[2], version[3]]);
    if found != FORMAT_VERSION {
        return Err(WorkspaceError::Version {
            path: path.to_path_buf(),
            found,
            expected: FORMAT_VERSION,
        });
    }
    postcard::from_bytes(body).map_err(|e| corrupt(e.to_string()))
}

/// An opened workspace: the catalog in memory, tree files loaded on first use and cached.
#[derive(Debug)]
pub struct Workspace {
    dir: PathBuf,
    catalog: Catalog,
    cards: Vec<DocCard>,
    cache: Mutex<HashMap<String, Arc<Document>>>,
}

/// Read a versioned JSON file, checking `format_version` before the body.
fn read_versioned<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, WorkspaceError> {
    #[derive(Deserialize)]
    struct VersionOnly {
        format_version: u32,
    }
    let bytes = std::fs::read(path).map_err(|source| WorkspaceError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let corrupt = |e: serde_json::Error| WorkspaceError::Corrupt {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let version: VersionOnly = serde_json::from_slice(&bytes).map_err(corrupt)?;
    if version.format_version != FORMAT_VERSION {
        return Err(WorkspaceError::Version {
            path: path.to_path_buf(),
            found: version.format_version,
            expected: FORMAT_VERSION,
        });
    }
    serde_json::from_slice(&bytes).map_err(corrupt)
}

impl Workspace {
    /// Open the workspace in `dir`. Errors: [`WorkspaceError::Missing`] when `dir` has no
    /// `catalog.json`; `Corrupt`/`Version`/`Io` for a bad catalog.
    pub fn open(dir: &Path) -> Result<Workspace, WorkspaceError> {
        let path = dir.join("catalog.json");
        if !path.exists() {
            return Err(WorkspaceError::Missing(dir.to_path_buf()));
        }
        Ok(Workspace::from_catalog(dir, read_versioned(&path)?))
    }

    /// Open the workspace in `dir`, or an empty one when it has no catalog yet (nothing is
    /// written until [`Workspace::index`] commits).
    pub fn open_or_empty(dir: &Path) -> Result<Workspace, WorkspaceError> {
        match Workspace::open(dir) {
            Err(WorkspaceError::Missing(_)) => Ok(Workspace::from_catalog(dir, Catalog::empty())),
            other => other,
        }
    }

    fn from_catalog(dir: &Path, catalog: Catalog) -> Workspace {
        let cards = catalog.documents.iter().map(|e| e.card.clone()).collect();
        Workspace {
            dir: dir.to_path_buf(),
            catalog,
            cards,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The workspace directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Catalog rows, sorted by `doc_id`.
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.catalog.documents
    }

    /// Where the shell keeps its history.
    pub fn history_path(&self) -> PathBuf {
        self.dir.join("history")
    }

    /// Where the shell keeps its traces.
    pub fn traces_dir(&self) -> PathBuf {
        self.dir.join("traces")
    }

    fn docs_dir(&self) -> PathBuf {
        self.dir.join("docs")
    }

    /// Read `catalog.json` again and load `doc_id` from it, unless it names `stale_file` again
    /// (then `missing` is the error) or no longer lists the document (`NotFound`).
    fn load_from_fresh_catalog(
        &self,
        doc_id: &str,
        stale_file: &str,
        missing: WorkspaceError,
    ) -> Result<Document, WorkspaceError> {
        let catalog: Catalog = read_versioned(&self.dir.join("catalog.json"))?;
        let entry = catalog
            .documents
            .iter()
            .find(|e| e.card.doc_id == doc_id)
            .ok_or_else(|| WorkspaceError::NotFound(doc_id.to_string()))?;
        if entry.tree_file == stale_file {
            return Err(missing);
        }
        self.load(entry)
    }

    fn load(&self, entry: &CatalogEntry) -> Result<Document, WorkspaceError> {
        let path = self.docs_dir().join(&entry.tree_file);
        let bytes = std::fs::read(&path).map_err(|source| WorkspaceError::Io {
            path: path.clone(),
            source,
        })?;
        decode_tree_file(&path, &bytes)
    }
}

impl Library for Workspace {
    fn cards(&self) -> &[DocCard] {
        &self.cards
    }

    /// Loads the tree file named by the catalog read at [`Workspace::open`]. When that file is
    /// gone — another `docnav index` rebuilt the document and removed it after committing its
    /// catalog — the catalog is read again, once, and the document's current tree file loaded
    /// (its card then is newer than [`Library::cards`] shows). Errors: `NotFound` when the id is
    /// in neither catalog; the original I/O error when the file is missing and the fresh catalog
    /// names the same file; decode errors as [`decode_tree_file`].
    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError> {
        if let Ok(cache) = self.cache.lock() {
            if let Some(doc) = cache.get(doc_id) {
                return Ok(doc.clone());
            }
        }
        let entry = self
            .catalog
            .documents
            .iter()
            .find(|e| e.card.doc_id == doc_id)
            .ok_or_else(|| WorkspaceError::NotFound(doc_id.to_string()))?;
        let doc = match self.load(entry) {
            Err(WorkspaceError::Io { path, source })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                let missing = WorkspaceError::Io { path, source };
                self.load_from_fresh_catalog(doc_id, &entry.tree_file, missing)?
            }
            other => other?,
        };
        let doc = Arc::new(doc);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(doc_id.to_string(), doc.clone());
        }
        Ok(doc)
    }
}

/// `base` if `taken(base)` is false, else `base-2`, `base-3`, … the first free one.
pub fn unique_slug(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken(c))
        .unwrap_or_else(|| base.to_string())
}

#[cfg(test)]
mod tests;
