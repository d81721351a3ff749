//! The workspace (DESIGN.md §3): a directory holding the catalog `catalog.db` (the DocCards and
//! where each document's files are, [`store`]), one tree file per document under `docs/`
//! (loaded only when a command touches that document) and the section index under `index/`
//! (tantivy; every search goes through it).
//!
//! Tree files are binary: [`TREE_FILE_MAGIC`], the format version, then the [`Document`] in
//! postcard, LZ4-compressed ([`encode_tree_file`]). The catalog is a SQLite file a command
//! reads only as far as it needs (a card by id, a page, the count, the cards under a lookup
//! key): at 100,000 documents reading the whole catalog would be most of every command's time.
//! People and scripts read it through `docnav docs --json`.
//!
//! Crash safety: tree files are named by doc id *and* a hash of the source fingerprint and the
//! build key (`docs/guide-1a2b3c4d5e6f.bin`), so a re-index writes new files next to the old ones,
//! commits the section index (its commit records a generation number), then commits the catalog's
//! changed rows in one transaction (it records the same generation), and only then deletes files
//! the new catalog no longer names. A crash before the index commit leaves the previous state; a
//! crash between the two commits leaves an index one generation ahead of its catalog, which the
//! next open detects and repairs (under the writer lock, from the catalog's tree files, with a
//! warning) before anything is served — results never come from an index that disagrees with the
//! catalog. Writers hold an exclusive lock on `lock`; readers need none unless they repair.
//!
//! A reader that opened the workspace before a re-index still holds the old catalog, whose tree
//! file for a rebuilt document may be gone when it first loads that document: it then re-reads
//! the catalog once and loads the document's current tree file (see [`Library::document`] for
//! [`Workspace`]).

mod build_key;
pub mod cache;
pub mod document;
pub mod indexer;
pub mod local_disk;
pub mod publish;
pub mod site_files;
pub mod source_stat;
pub mod store;
mod strict;
mod sync;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

pub use crate::durable::write_atomic;
pub use build_key::BuildKey;
pub use document::{
    doc_id_base, fingerprint, slugify, BuiltDocument, CardList, CatalogDigest, Document,
    InMemoryLibrary, Library, SetDigest, CARD_SCAN_PAGE,
};
pub use indexer::{IndexOptions, IndexReport};
pub use store::{AliasEntry, CatalogEntry, CatalogStore};

use crate::index::{DocCard, SectionIndex};

/// Version of the catalog and tree files this build reads and writes. Version 2: tree files are
/// binary (postcard) instead of JSON, so a cold `ask` does not spend its time parsing a large tree
/// (R-fullrefman.pdf's is 7 MB). Version 3: the per-document keyword index left the tree files for
/// the workspace-wide section index (`index/`), and the catalog records the index generation it
/// matches. Version 4: tree files are LZ4-compressed (so a workspace takes about as much disk as
/// its Markdown sources; decompression runs at GB/s), and the catalog is `catalog.bin` (postcard)
/// instead of `catalog.json`. Version 5: the catalog is `catalog.db` (SQLite, [`store`]), read a
/// card or a page at a time instead of whole. Version 6: a document whose text equals an indexed
/// one's is kept once and the other source is an alias (the catalog's `aliases` table, and each
/// document's text hash, `documents.text_sha256`); a workspace of format 5 has no text hashes to
/// find its duplicates by, so `docnav index` rebuilds it. Version 7: DocCards carry the document's
/// names and period (the catalog files each card under its names' `entity:` keys); a card of format
/// 6 lacks both fields and does not decode, so `docnav index` rebuilds the workspace. Version 8: a
/// DocCard's period holds a changelog's release range, which a question naming a version is matched
/// on; a card of format 7 does not decode (postcard has no optional fields), so `docnav index`
/// rebuilds the workspace. Version 9: a section's entry in the section index carries no `kind`
/// posting and no posting of the root as its ancestor (two postings fewer per section; a search
/// counts sections as the entries less the cards, and searches below the root by document). A
/// docnav of format 8 reading such an index would count no sections and find nothing below a
/// root, silently, so the two refuse each other's workspaces (a published generation names its
/// format too) and `docnav index` rebuilds a workspace of format 8. A change in what the parsers
/// and the build stage produce, with the same layout, bumps [`TREE_BUILDER_VERSION`] instead.
pub const FORMAT_VERSION: u32 = 9;

/// Version of the trees the parsers and build stage make from a source. Bump it whenever the same
/// source bytes give a different tree (headings, text cuts, summaries, references), so `docnav
/// index` rebuilds unchanged sources indexed by an older build instead of keeping stale trees.
/// 1: `Node::references` filled (trees before have none), table-of-contents lines reference
/// nothing. Catalog rows from before this field have no [`BuildKey`] and are rebuilt.
/// 2: a leaf's leading blank lines are no paragraph break (no empty `Part 1`); a document rooted
/// at its only h1 keeps the line layout of the text around the h1 (right `Part N` lines).
/// 3: `Tree::links` (links to other documents, explicit anchors).
/// 4: PDF text without running headers, footers and page numbers; PDFs without an outline
/// sectioned at their printed headings.
/// 5: DocCards name a changelog's release range and look below a single wrapper heading.
/// 6: `.html`/`.htm`/`.xhtml` files are HTML documents (a file named on the command line was
/// read as plain text before); `.docx` files are Word documents, `.epub` files e-books.
/// 7: a fixed-pitch PDF font without widths measures 0.6 em per glyph (FHS's paths no longer
/// take a space before the punctuation after them); a PDF section's printed heading is not
/// repeated as the first line of its text.
/// 8: `Links::named`, other documents named in the text (`FHS, section 4.9`); tree files of
/// builder 7 lack the field and do not decode (postcard), so `docnav index` rebuilds them.
/// 9: PDF footnotes leave the running text and follow the section that refers to them, marked
/// `[^N]`.
/// 10: a changelog's card orders pre-releases by SemVer precedence (`7.0.0-beta.8` after
/// `7.0.0-beta.0`; they all compared equal before).
/// 11: `Part N` splits of HTML and DOCX sections have their own lines and paragraphs (they had
/// their section's whole range); an HTML link to a folder (`../guide/`) links its `index.html`.
/// 12: the trees are as in 11, but `per` and `via` are stopwords, and a section's stored
/// record carries its node id and rank (searches no longer open those columns): the index
/// entries and DocCard top terms of unchanged sources are rebuilt with both.
/// 13: the trees are as in 11; every stored record (sections and DocCards) carries its
/// document's id, so a search over all documents of a sorted index names its hits from the
/// store without opening the `doc_id` column (which costs a search over a large segment more
/// than naming its hits).
/// 14: PDF tables become pipe tables (one header line, a row per label) and are never headings;
/// PDF headings follow keyword schemes (`PART II` › `Item 7.` › subsections, `Note 3`) and a
/// contents list of divisions.
/// 15: attribute lists (`{#id .class}`, `{-}`) leave HTML and pandoc heading titles; PDF words
/// split by a stray space are rejoined (`LIQUIDI TY`, groff's `giv en`).
/// 16: a PDF section's parts cover their own pages (they had their section's whole range) and
/// are titled by a numbered run-in heading or a line that reads as a title, never a sentence
/// broken before a formula; an outline entry's heading is looked for where its destination
/// points on the page first (an R help page's title, not the `See Also` line above it).
/// 17: PDF contents lists of titles alone place their headings; exhibits stand apart; a page
/// set in larger type has its own body size; a heading printed over several lines is read whole
/// (an unfinished or centred line goes on), a header row's cells and fragments ending mid-phrase
/// are no headings, and a numbered paragraph is titled by its run-in head.
pub const TREE_BUILDER_VERSION: u32 = 17;

/// First bytes of a tree file, before its little-endian `u32` format version.
pub const TREE_FILE_MAGIC: &[u8; 8] = b"DOCNAVT\n";

/// First bytes of the catalog file of format 4 (`catalog.bin`), before its little-endian `u32`
/// format version.
const CATALOG_MAGIC: &[u8; 8] = b"DOCNAVC\n";

/// The catalog file of the workspace in `dir` (`catalog.db`).
pub fn catalog_path(dir: &Path) -> PathBuf {
    store::store_path(dir)
}

/// Where workspaces of format 4 kept their catalog (postcard).
pub(crate) fn catalog_v4_path(dir: &Path) -> PathBuf {
    dir.join("catalog.bin")
}

/// Where workspaces before format 4 kept their catalog (JSON).
pub(crate) fn legacy_catalog_path(dir: &Path) -> PathBuf {
    dir.join("catalog.json")
}

/// Default workspace directory (relative to the current directory).
pub const DEFAULT_DIR: &str = ".docnav";

/// Workspace failures. Fatal for the command that met them.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The workspace was written by an older docnav whose layout this one does not read (before
    /// format 3: no section index; format 4: its catalog in one file read whole; format 5: no
    /// text hashes, no aliases).
    #[error(
        "workspace `{dir}` was made by an older docnav (format {found}; this one reads format \
         {FORMAT_VERSION}) (hint: run `docnav index` to rebuild it)"
    )]
    Outdated {
        /// The workspace directory.
        dir: PathBuf,
        /// Its catalog's format version.
        found: u32,
    },
    /// The section index is missing or damaged, or could not be repaired.
    #[error("the search index of workspace `{dir}` is unusable: {reason} (hint: run `docnav index` to rebuild it)")]
    Search {
        /// The workspace directory (or `in memory`).
        dir: PathBuf,
        /// What went wrong, one line.
        reason: String,
    },
    /// No document with this id.
    #[error("document not found: {0} (hint: `docnav docs` lists the ids)")]
    NotFound(String),
    /// The section index is at another generation than the catalog: a `docnav index` is between
    /// its two commits (or was interrupted there). Only [`Workspace::open_without_repair`]
    /// returns it; [`Workspace::open`] waits for the writer and repairs instead.
    #[error(
        "workspace `{dir}` is being re-indexed: its catalog is at generation {catalog}, its \
         search index at {index:?} (hint: wait for `docnav index` to finish, or run it again \
         if it was interrupted)"
    )]
    Busy {
        /// The workspace directory.
        dir: PathBuf,
        /// The catalog's index generation.
        catalog: u64,
        /// The index's last committed generation (`None`: never committed by docnav).
        index: Option<u64>,
    },
    /// The workspace directory holds no catalog.
    #[error("no workspace at `{0}` (hint: run `docnav index <files>` first, or pass --workspace)")]
    Missing(PathBuf),
    /// An index run was stopped ([`indexer::IndexProgress::cancelled`]) before its commit: the
    /// workspace is as it was before the run.
    #[error("indexing `{0}` was cancelled; the workspace is unchanged")]
    Cancelled(PathBuf),
    /// The workspace folder is on a network filesystem, where SQLite's WAL mode (the catalog)
    /// is not safe ([`local_disk`]).
    #[error(
        "workspace `{dir}` is on a network filesystem ({kind}); its catalog (SQLite in WAL mode) must be on a local disk (hint: index into a local folder and copy the workspace to where it is read; DOCNAV_ALLOW_NETWORK_FS=1 writes there anyway, for a mount only this machine uses)"
    )]
    NetworkFilesystem {
        /// The workspace folder.
        dir: PathBuf,
        /// The filesystem (`NFS`, `SMB`, `FUSE`…).
        kind: &'static str,
    },
    /// A publish folder ([`publish`]) holds no complete generation to open.
    #[error(
        "publish folder `{dir}` has no complete generation ({reason}) (hint: run `docnav publish` \
         into it on the machine that indexes, or wait for its copy to finish)"
    )]
    NoGeneration {
        /// The publish folder.
        dir: PathBuf,
        /// Why its newest generation is incomplete, or that it has none.
        reason: String,
    },
    /// A write (`docnav index`) was aimed at a publish folder or one of its generations, which
    /// only `docnav publish` writes.
    #[error(
        "`{0}` holds published generations of a workspace, which are read-only (hint: index into \
         the workspace they were published from, then run `docnav publish` again)"
    )]
    PublishedReadOnly(PathBuf),
    /// `docnav publish` was pointed at a folder that is neither empty nor a publish folder.
    #[error(
        "`{0}` is not a publish folder (no `docnav-publish.json`) and is not empty (hint: publish \
         into a new or empty folder)"
    )]
    NotPublishFolder(PathBuf),
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
    /// A tree file written by another tree builder (an older docnav) no longer decodes.
    #[error(
        "workspace file `{path}` was written by an older docnav ({built_by}; this one is \
         {current}) (hint: run `docnav index` to rebuild the documents it changed)"
    )]
    OutdatedTree {
        /// The tree file.
        path: PathBuf,
        /// The builder its catalog row names (`builder 7`).
        built_by: String,
        /// This docnav's builder.
        current: String,
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

/// A catalog row of format 4 and before: the card inside it. Read only to find the sources of
/// an older workspace, which `docnav index` rebuilds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LegacyCatalogEntry {
    card: DocCard,
    tree_file: String,
    source_len: u64,
    mtime_ms: u64,
    #[serde(default)]
    build_key: String,
}

/// A catalog of format 4 and before (`catalog.bin`, `catalog.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LegacyCatalog {
    format_version: u32,
    docnav_version: String,
    #[serde(default)]
    index_generation: u64,
    documents: Vec<LegacyCatalogEntry>,
}

/// Name of the tree file of a build: the doc id and 12 hex digits of sha256 over the source
/// fingerprint and the [`BuildKey`] (as it displays), so every build of a document has its own
/// file (a rebuild never overwrites a file an older catalog names). The index stores it as the
/// build's identity.
pub fn tree_file_name(doc_id: &str, fingerprint: &str, build_key: &BuildKey) -> String {
    let hash = document::fingerprint(format!("{fingerprint}\n{build_key}").as_bytes());
    format!("{doc_id}-{}.bin", &hash[..12])
}

/// The catalog's rows, without cards: what an index run and the index repair work from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Catalog {
    /// The section index commit this catalog matches (see the module docs).
    pub index_generation: u64,
    /// Rows sorted by `doc_id`.
    pub documents: Vec<CatalogEntry>,
    /// The aliases, sorted by alias (an index run reads them all; the repair of the section
    /// index needs none: aliases have no entries).
    pub aliases: Vec<AliasEntry>,
}

/// Encode a tree file: [`TREE_FILE_MAGIC`], [`FORMAT_VERSION`] as little-endian `u32`, then the
/// [`Document`] in postcard (a compact serde binary format; varint integers) compressed as one
/// LZ4 block preceded by its uncompressed size (`u32`, little-endian; lz4_flex's
/// `compress_prepend_size`). `size_hint`: expected postcard size in bytes.
///
/// Errors: a serialization failure (a bug: every field is serializable), as a message.
pub fn encode_tree_file(document: &Document, size_hint: usize) -> Result<Vec<u8>, String> {
    // `to_extend` pushes into the Vec directly; `to_io` went through `io::Write` per byte.
    let body =
        postcard::to_extend(document, Vec::with_capacity(size_hint)).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(body.len() / 2 + 16);
    out.extend_from_slice(TREE_FILE_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&lz4_flex::block::compress_prepend_size(&body));
    Ok(out)
}

/// LZ4 expands a block at most about 255-fold; a size field claiming more is damage, refused
/// before anything that large is allocated.
const LZ4_MAX_RATIO: usize = 255;

/// The body of a docnav binary file read from `path`: `bytes` after `magic` and a
/// [`FORMAT_VERSION`] (little-endian `u32`). `what` names the kind of file in the error.
///
/// Errors: [`WorkspaceError::Corrupt`] without the magic bytes or with a truncated header;
/// [`WorkspaceError::Version`] for another format version.
fn versioned_body<'a>(
    path: &Path,
    bytes: &'a [u8],
    magic: &[u8],
    what: &str,
) -> Result<&'a [u8], WorkspaceError> {
    let corrupt = |reason: String| WorkspaceError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let Some(rest) = bytes.strip_prefix(magic) else {
        return Err(corrupt(format!("not a docnav {what} (bad magic bytes)")));
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
    Ok(body)
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
    let body = versioned_body(path, bytes, TREE_FILE_MAGIC.as_slice(), "tree file")?;
    let Some((size, block)) = body.split_at_checked(4) else {
        return Err(corrupt("truncated header".into()));
    };
    let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
    if size > block.len().saturating_mul(LZ4_MAX_RATIO) + 64 {
        return Err(corrupt(format!(
            "claims {size} bytes from {} compressed",
            block.len()
        )));
    }
    let body = lz4_flex::block::decompress(block, size).map_err(|e| corrupt(e.to_string()))?;
    postcard::from_bytes(&body).map_err(|e| corrupt(e.to_string()))
}

/// The rows of a catalog of an older format in `dir` and its format version: a `catalog.db` of
/// format 5 ([`store::older_rows`]), else a `catalog.bin` or `catalog.json` of format 4 and
/// before; `None` when it has none of them. Rows that do not decode (a damaged or still older
/// file) are none: the run then indexes only what it is given.
pub(crate) fn read_legacy_catalog(dir: &Path) -> Option<(u32, Vec<CatalogEntry>)> {
    if let Some(older) = store::older_rows(dir) {
        return Some(older);
    }
    let rows = |catalog: LegacyCatalog| -> Vec<CatalogEntry> {
        catalog
            .documents
            .into_iter()
            .map(|e| {
                CatalogEntry::of(
                    &e.card,
                    e.tree_file,
                    e.source_len,
                    e.mtime_ms,
                    None,
                    String::new(),
                )
            })
            .collect()
    };
    if let Ok(bytes) = std::fs::read(catalog_v4_path(dir)) {
        let version = bytes
            .strip_prefix(CATALOG_MAGIC.as_slice())
            .and_then(|rest| rest.get(..4))
            .map_or(0, |v| u32::from_le_bytes([v[0], v[1], v[2], v[3]]));
        let catalog = bytes
            .get(CATALOG_MAGIC.len() + 4..)
            .and_then(|body| postcard::from_bytes::<LegacyCatalog>(body).ok());
        return Some((version, catalog.map(rows).unwrap_or_default()));
    }
    let bytes = std::fs::read(legacy_catalog_path(dir)).ok()?;
    #[derive(Deserialize)]
    struct VersionOnly {
        format_version: u32,
    }
    let version = serde_json::from_slice::<VersionOnly>(&bytes).map_or(0, |v| v.format_version);
    let catalog = serde_json::from_slice::<LegacyCatalog>(&bytes).ok();
    Some((version, catalog.map(rows).unwrap_or_default()))
}

/// The index generation recorded in the catalog of the workspace in `dir`, read from its head
/// (well under a millisecond at any catalog size). Every `docnav index` run that commits bumps
/// it, so an equal generation means an unchanged catalog — what the answer cache checks first.
///
/// Errors: [`WorkspaceError::Missing`] without a catalog; `Corrupt`/`Version` for a file this
/// build does not read.
pub fn read_index_generation(dir: &Path) -> Result<u64, WorkspaceError> {
    store::read_generation(dir)
}

/// An opened workspace: its catalog store open on a snapshot ([`CatalogStore`]), the section
/// index open on the commit that snapshot matches, tree files loaded on first use and kept in a
/// bounded cache ([`cache::TreeCache`]).
#[derive(Debug)]
pub struct Workspace {
    /// The folder the workspace was opened by (a publish folder, or the workspace itself).
    dir: PathBuf,
    /// Where its files are read: `dir`, or the publish folder's generation that was opened.
    data: PathBuf,
    /// The number of that generation, for a publish folder.
    published: Option<u64>,
    /// The catalog; `None` for a workspace not written yet ([`Workspace::open_or_empty`]).
    store: Option<CatalogStore>,
    cache: Mutex<cache::TreeCache>,
    /// The open index, or why it could not be opened (reported by [`Library::sections`]).
    sections: Result<SectionIndex, String>,
    /// The open [`Workspace::strict`] scopes and the first catalog read that failed in each
    /// (held, not logged).
    strict: strict::Scopes,
}

/// Open the catalog store of `dir`. Errors: [`WorkspaceError::Missing`] without one;
/// [`WorkspaceError::Outdated`] for a workspace of an older format (a `catalog.bin` or
/// `catalog.json`, or an older version in the store); `Corrupt`/`Version`/`Io` for a bad one.
pub(crate) fn open_store(dir: &Path) -> Result<CatalogStore, WorkspaceError> {
    match CatalogStore::open(dir) {
        Err(WorkspaceError::Missing(_)) => match read_legacy_catalog(dir) {
            Some((found, _)) => Err(WorkspaceError::Outdated {
                dir: dir.to_path_buf(),
                found,
            }),
            None => Err(WorkspaceError::Missing(dir.to_path_buf())),
        },
        Err(WorkspaceError::Version { found, .. }) if found < FORMAT_VERSION => {
            Err(WorkspaceError::Outdated {
                dir: dir.to_path_buf(),
                found,
            })
        }
        other => other,
    }
}

/// Read the rows of the catalog in `dir` (no cards). Errors: as [`open_store`].
pub(crate) fn read_catalog(dir: &Path) -> Result<Catalog, WorkspaceError> {
    let store = open_store(dir)?;
    Ok(Catalog {
        index_generation: store.head().index_generation,
        documents: store.entries()?,
        aliases: store.aliases()?,
    })
}

impl Workspace {
    /// Open the workspace in `dir`: its catalog, and its section index at the commit the
    /// catalog matches. A publish folder ([`publish`]) opens its newest complete generation,
    /// read-only. An index one commit ahead of or behind the catalog (an interrupted
    /// `docnav index`) is repaired first, under the writer lock, with a warning on stderr; a
    /// missing or damaged index does not stop the catalog from being read (listing works) but
    /// every search then fails with [`WorkspaceError::Search`].
    ///
    /// Errors: [`WorkspaceError::Missing`] when `dir` has no catalog;
    /// [`WorkspaceError::NoGeneration`] for a publish folder without a complete generation;
    /// [`WorkspaceError::Outdated`] for a workspace of an older docnav; `Corrupt`/`Version`/`Io`
    /// for a bad catalog; [`WorkspaceError::Search`] when a needed repair fails.
    pub fn open(dir: &Path) -> Result<Workspace, WorkspaceError> {
        Workspace::open_on_mismatch(dir, sync::OnMismatch::WaitAndRepair)
    }

    /// [`Workspace::open`] for a long-running reader that already holds an opened workspace (a
    /// server): when the index and the catalog disagree — a `docnav index` in another process is
    /// between its two commits — it neither waits for that writer nor repairs, and returns
    /// [`WorkspaceError::Busy`], so the caller keeps serving what it has and tries again later.
    ///
    /// Errors: as [`Workspace::open`], plus [`WorkspaceError::Busy`].
    pub fn open_without_repair(dir: &Path) -> Result<Workspace, WorkspaceError> {
        Workspace::open_on_mismatch(dir, sync::OnMismatch::Refuse)
    }

    /// [`Workspace::open`], doing `on_mismatch` when the index and the catalog disagree.
    fn open_on_mismatch(
        dir: &Path,
        on_mismatch: sync::OnMismatch,
    ) -> Result<Workspace, WorkspaceError> {
        let (data, published) = publish::data_dir(dir)?;
        let store = open_store(&data)?;
        let (store, sections) = sync::open_consistent(&data, store, on_mismatch)?;
        Ok(Workspace::from_parts(
            dir,
            data,
            published,
            Some(store),
            sections,
        ))
    }

    /// Open the workspace in `dir`, or an empty one when it has no catalog yet (nothing is
    /// written until [`Workspace::index`] commits).
    pub fn open_or_empty(dir: &Path) -> Result<Workspace, WorkspaceError> {
        match Workspace::open(dir) {
            Err(WorkspaceError::Missing(_)) => {
                let (data, published) = (dir.to_path_buf(), None);
                let sections = Err("no index yet".into());
                Ok(Workspace::from_parts(dir, data, published, None, sections))
            }
            other => other,
        }
    }

    fn from_parts(
        dir: &Path,
        data: PathBuf,
        published: Option<u64>,
        store: Option<CatalogStore>,
        sections: Result<SectionIndex, String>,
    ) -> Workspace {
        Workspace {
            dir: dir.to_path_buf(),
            data,
            published,
            store,
            cache: Mutex::new(cache::TreeCache::new(cache::DEFAULT_TREE_CACHE_BYTES)),
            sections,
            strict: strict::Scopes::default(),
        }
    }

    /// Run `read` on this workspace and fail with the first catalog read that failed during it
    /// (a card that does not decode, a catalog damaged under the command), which the
    /// [`Library`] reads otherwise log and answer as an empty catalog would. For a one-shot
    /// command (`docnav docs`) or a request (`docs?for=`) that must not print an empty or
    /// partial list as if it were the catalog. Reads from other threads during `read` count
    /// too; scopes may run at once on several threads (a server's requests) and nest, each
    /// failing with the first failure met while it ran (module `strict`).
    ///
    /// Errors: the first [`WorkspaceError`] of a catalog read during `read` (`Corrupt`
    /// naming the catalog file, with the hint to re-index).
    pub fn strict<T>(&self, read: impl FnOnce(&Self) -> T) -> Result<T, WorkspaceError> {
        let scope = self.strict.open();
        let out = read(self);
        match scope.close() {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Log a catalog read that failed after the catalog opened (a file damaged or removed
    /// under a running command) and go on with what the caller returns instead.
    fn report<T>(&self, result: Result<T, WorkspaceError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                // Inside a [`Workspace::strict`] scope the failure is its error instead.
                if let Err(e) = self.strict.hold(e) {
                    tracing::error!("{e}");
                }
                None
            }
        }
    }

    /// Forget the trees loaded so far (callers holding one keep it): a long-running reader that
    /// has opened a newer generation frees the old one's trees at once instead of when its last
    /// request ends.
    pub fn drop_cached_trees(&self) {
        if let Ok(mut cache) = self.cache.lock() {
            *cache = cache::TreeCache::new(cache::DEFAULT_TREE_CACHE_BYTES);
        }
    }

    /// The catalog's index generation (see the module docs).
    pub fn index_generation(&self) -> u64 {
        self.store.as_ref().map_or(0, |s| s.head().index_generation)
    }

    /// Where the section index lives.
    pub fn index_dir(&self) -> PathBuf {
        self.data.join("index")
    }

    /// The workspace directory as it was opened (for a publish folder, the folder; its traces
    /// and shell history live there, outside the generations).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the workspace's files are read: [`Workspace::dir`], or for a publish folder the
    /// generation that was opened.
    pub fn data_dir(&self) -> &Path {
        &self.data
    }

    /// The number of the generation opened from a publish folder (`None` for a workspace opened
    /// directly).
    pub fn published_generation(&self) -> Option<u64> {
        self.published
    }

    /// The catalog row of `doc_id` (its tree file, source and build), `None` for an unknown id.
    pub fn entry(&self, doc_id: &str) -> Option<CatalogEntry> {
        let store = self.store.as_ref()?;
        self.report(store.entry(doc_id)).flatten()
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
        self.data.join("docs")
    }

    /// Read the catalog again and load `doc_id` from it, unless it names `stale_file` again
    /// (then `missing` is the error) or no longer lists the document (`NotFound`).
    fn load_from_fresh_catalog(
        &self,
        doc_id: &str,
        stale_file: &str,
        missing: WorkspaceError,
    ) -> Result<Document, WorkspaceError> {
        let entry = open_store(&self.data)?
            .entry(doc_id)?
            .ok_or_else(|| WorkspaceError::NotFound(doc_id.to_string()))?;
        if entry.tree_file == stale_file {
            return Err(missing);
        }
        self.load(&entry.tree_file)
    }

    fn load(&self, tree_file: &str) -> Result<Document, WorkspaceError> {
        let path = self.docs_dir().join(tree_file);
        let bytes = std::fs::read(&path).map_err(|source| WorkspaceError::Io {
            path: path.clone(),
            source,
        })?;
        decode_tree_file(&path, &bytes)
    }
}

/// Reads of the catalog store. A read that fails after the store opened is logged
/// (`Workspace::report`) and answers as an empty catalog would.
impl Library for Workspace {
    fn document_count(&self) -> usize {
        self.store.as_ref().map_or(0, |s| s.head().documents)
    }

    fn cards_page(&self, offset: usize, limit: usize) -> Vec<Arc<DocCard>> {
        let Some(store) = &self.store else {
            return Vec::new();
        };
        let page = self.report(store.page(offset, limit)).unwrap_or_default();
        page.into_iter().map(Arc::new).collect()
    }

    fn card(&self, doc_id: &str) -> Option<Arc<DocCard>> {
        let store = self.store.as_ref()?;
        self.report(store.card(doc_id)).flatten().map(Arc::new)
    }

    fn for_each_card(&self, f: &mut dyn FnMut(&DocCard) -> std::ops::ControlFlow<()>) {
        if let Some(store) = &self.store {
            self.report(store.for_each(f));
        }
    }

    fn cards_with_keys(&self, keys: &[String]) -> Vec<Arc<DocCard>> {
        let Some(store) = &self.store else {
            return Vec::new();
        };
        let cards = self.report(store.with_keys(keys)).unwrap_or_default();
        cards.into_iter().map(Arc::new).collect()
    }

    /// One SQL scan of the store's listing rows; a catalog written before the store had
    /// its listing is filtered card by card until its next write.
    fn cards_matching(
        &self,
        needle: &str,
        offset: usize,
        limit: usize,
    ) -> (usize, Vec<Arc<DocCard>>) {
        let Some(store) = &self.store else {
            return (0, Vec::new());
        };
        match self.report(store.matching(needle, offset, limit)) {
            Some(Some((total, cards))) => (total, cards.into_iter().map(Arc::new).collect()),
            Some(None) => document::scan_matching(self, needle, offset, limit),
            None => (0, Vec::new()),
        }
    }

    fn cards_with_id_prefix(&self, prefix: &str, limit: usize) -> Vec<Arc<DocCard>> {
        let Some(store) = &self.store else {
            return Vec::new();
        };
        let cards = self
            .report(store.with_id_prefix(prefix, limit))
            .unwrap_or_default();
        cards.into_iter().map(Arc::new).collect()
    }

    fn strict_reads(&self, read: &mut dyn FnMut()) -> Result<(), WorkspaceError> {
        self.strict(|_| read())
    }

    fn card_position(&self, doc_id: &str) -> Option<usize> {
        let store = self.store.as_ref()?;
        self.report(store.position(doc_id)).flatten()
    }

    fn alias_target(&self, alias: &str) -> Option<String> {
        let store = self.store.as_ref()?;
        self.report(store.alias_target(alias)).flatten()
    }

    fn aliases(&self) -> Vec<(String, String)> {
        let Some(store) = &self.store else {
            return Vec::new();
        };
        let aliases = self.report(store.aliases()).unwrap_or_default();
        aliases
            .into_iter()
            .map(|a| (a.row.doc_id, a.target))
            .collect()
    }

    fn catalog_digest(&self) -> CatalogDigest {
        self.store.as_ref().map_or_else(
            || CatalogDigest::finish(0, SetDigest::default()),
            |s| s.head().digest.clone(),
        )
    }

    fn catalog_ids_digest(&self) -> String {
        self.store.as_ref().map_or_else(
            || SetDigest::default().hex(),
            |s| s.head().ids_sha256.clone(),
        )
    }

    /// Loads the tree file named by the catalog read at [`Workspace::open`]. When that file is
    /// gone — another `docnav index` rebuilt the document and removed it after committing its
    /// catalog — the catalog is read again, once, and the document's current tree file loaded
    /// (its card then is newer than [`Library::card`] shows). Errors: `NotFound` when the id is
    /// in neither catalog; the original I/O error when the file is missing and the fresh catalog
    /// names the same file; decode errors as [`decode_tree_file`].
    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError> {
        if let Ok(mut cache) = self.cache.lock() {
            if let Some(doc) = cache.get(doc_id) {
                return Ok(doc.clone());
            }
        }
        let entry = match &self.store {
            Some(store) => store.entry(doc_id)?,
            None => None,
        }
        .ok_or_else(|| WorkspaceError::NotFound(doc_id.to_string()))?;
        let doc = match self.load(&entry.tree_file) {
            Err(WorkspaceError::Io { path, source })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                let missing = WorkspaceError::Io { path, source };
                self.load_from_fresh_catalog(doc_id, &entry.tree_file, missing)?
            }
            Err(WorkspaceError::Corrupt { path, reason }) => {
                let current = format!("builder {TREE_BUILDER_VERSION}");
                return Err(match entry.build_key {
                    Some(key) if key.is_current_builder() => {
                        WorkspaceError::Corrupt { path, reason }
                    }
                    built_by => WorkspaceError::OutdatedTree {
                        path,
                        built_by: built_by.map_or_else(
                            || "a docnav before build keys".to_string(),
                            |key| format!("builder {}", key.builder),
                        ),
                        current,
                    },
                });
            }
            other => other?,
        };
        let doc = Arc::new(doc);
        let bytes = doc.heap_bytes();
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(doc_id, doc.clone(), bytes);
        }
        Ok(doc)
    }

    fn sections(&self) -> Result<&SectionIndex, WorkspaceError> {
        self.sections
            .as_ref()
            .map_err(|reason| WorkspaceError::Search {
                dir: self.dir.clone(),
                reason: reason.clone(),
            })
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

/// The part of a document id that decides which shard of a sharded corpus holds it: the id
/// without the `-2`, `-3`… suffixes [`unique_slug`] adds (repeatedly: `guide-2-2` → `guide`).
/// Every id [`unique_slug`] can make from a base shares the base's key, so documents assigned
/// to shards by a hash of the key of their id's base ([`doc_id_base`]) are made unique among
/// the documents of their own shard only, and their ids are unique across shards — the same ids
/// one workspace holding every document gives, when the sources are indexed in the same order.
/// A suffix with a leading zero (`doc-007`) is kept: [`unique_slug`] never writes one.
pub fn shard_key(doc_id: &str) -> &str {
    let mut key = doc_id;
    while let Some((head, n)) = key.rsplit_once('-') {
        let numbered = !head.is_empty()
            && !n.starts_with('0')
            && n.bytes().all(|b| b.is_ascii_digit())
            && n.parse::<u64>().is_ok_and(|n| n >= 2);
        if !numbered {
            break;
        }
        key = head;
    }
    key
}

#[cfg(test)]
mod tests;
