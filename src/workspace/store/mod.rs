//! The catalog store (`catalog.db`, workspace format 6): the DocCards and the rows
//! that say where each document's tree file and source are, in SQLite (rusqlite, bundled), so a
//! command reads only what it uses — a card by id, a page of the listing, the count, the cards
//! under a lookup key — and a re-index writes only the rows of the documents it changed.
//!
//! Why SQLite: every face opens the same workspace from its own process (the CLI, the stdio MCP
//! server one per client, each replica of `docnav serve`) while `docnav index` writes it, and
//! some open it twice in one process (a server reopening after a re-index). SQLite in WAL mode
//! gives each reader a snapshot that a writer's commit does not disturb, in one file, across
//! processes and within one; LMDB forbids opening one environment twice in a process, and redb
//! takes an exclusive lock per process. Opening the store and reading the head reads a few
//! rows, whatever the number of documents (BENCHMARKS.md).
//!
//! Tables:
//! - `meta(key, value)`: `format_version`, `docnav_version`, `index_generation` (the section
//!   index commit the catalog matches), `documents` (the count), `catalog_sha256` and
//!   `ids_sha256` (order-independent [`SetDigest`]s, see
//!   [`crate::workspace::Library::catalog_digest`] and
//!   [`crate::workspace::Library::catalog_ids_digest`]) and `digest_kind`, kept up to date by
//!   every write from the old and new rows it changes;
//! - `documents(…)` is also indexed by `source`, so a re-index of named files reads their rows
//!   only;
//! - `documents(doc_id PRIMARY KEY, source, format, fingerprint, tree_file, source_len,
//!   mtime_ms, builder, max_leaf_tokens, text_sha256)` (the [`BuildKey`] as two integers, NULL
//!   for none): one row per document, small, so an index run reads all of them quickly (the
//!   cards live in their own table, so reading the rows reads no card's pages); also indexed
//!   by `text_sha256`, so a run over named
//!   files finds the document a new file's text equals without reading the others;
//! - `cards(doc_id PRIMARY KEY, card)`: the DocCard in postcard;
//! - `listing(doc_id PRIMARY KEY, title, format)`: each card's title and format as text, so a
//!   filter of the Library by id, title or format ([`CatalogStore::matching`]) is one SQL scan
//!   of short rows, no card decoded but those it returns (a catalog written before it existed
//!   gets it filled from the cards at its next write; until then the filter reads the cards);
//! - `lookup(key, doc_id)`: [`crate::index::cross_refs::lookup_keys`] of every card;
//! - `aliases(alias PRIMARY KEY, target, source, …)`: sources kept once because their text is
//!   a document's (`aliases`, format 6).
//!
//! A reader ([`CatalogStore::open`]) holds one read transaction for its lifetime: the catalog
//! it sees is the one that matches the section index commit it opened, whatever is written
//! meanwhile.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::{BuildKey, CatalogDigest, SetDigest, WorkspaceError};
pub use aliases::AliasEntry;

mod aliases;
use crate::index::DocCard;
use crate::tree::DocFormat;

/// The catalog file of the workspace in `dir`.
pub fn store_path(dir: &Path) -> PathBuf {
    dir.join("catalog.db")
}

/// One catalog row without its card: what the indexer and the index repair need of every
/// document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// The document's id.
    pub doc_id: String,
    /// Source path as given to `docnav index` (absolute).
    pub source: String,
    /// Source format.
    pub format: DocFormat,
    /// sha256 of the source bytes, hex.
    pub fingerprint: String,
    /// Tree file name inside `docs/`.
    pub tree_file: String,
    /// Source size in bytes when indexed (fast unchanged check with `mtime_ms`).
    pub source_len: u64,
    /// Source modification time, ms since the Unix epoch, when indexed (0 when unknown).
    pub mtime_ms: u64,
    /// What built the tree (`None` for rows of docnavs before build keys: rebuilt).
    pub build_key: Option<BuildKey>,
    /// [`super::document::text_fingerprint`] of the tree: what the duplicate check compares
    /// ("" for rows read from an older catalog).
    pub text_sha256: String,
}

impl CatalogEntry {
    /// The row of a document built into `tree_file` from a source of `source_len` bytes
    /// modified at `mtime_ms`, by the build `build_key`, whose text hashes to `text_sha256`.
    pub fn of(
        card: &DocCard,
        tree_file: String,
        source_len: u64,
        mtime_ms: u64,
        build_key: Option<BuildKey>,
        text_sha256: String,
    ) -> CatalogEntry {
        CatalogEntry {
            doc_id: card.doc_id.clone(),
            source: card.source.clone(),
            format: card.format,
            fingerprint: card.fingerprint.clone(),
            tree_file,
            source_len,
            mtime_ms,
            build_key,
            text_sha256,
        }
    }
}

/// The catalog's head: what every reader needs, read once at open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogHead {
    /// The section index commit this catalog matches.
    pub index_generation: u64,
    /// How many documents.
    pub documents: usize,
    /// Size and [`SetDigest`] of `doc_id \t fingerprint \n` of every row.
    pub digest: CatalogDigest,
    /// [`SetDigest`] hex of `doc_id \n` of every row.
    pub ids_sha256: String,
}

/// What one index run changes: rows (with their cards) to write, rows whose source size and
/// time changed only, ids to remove, and the generation to record.
#[derive(Debug, Default)]
pub struct CatalogChanges {
    /// Rebuilt or new documents.
    pub upsert: Vec<(CatalogEntry, DocCard)>,
    /// Unchanged documents whose `source_len`/`mtime_ms` moved (a `touch`, a copy).
    pub restat: Vec<CatalogEntry>,
    /// Documents no longer in the catalog.
    pub remove: Vec<String>,
    /// The section index generation the catalog will match.
    pub index_generation: u64,
    /// Aliases to write (new ones, and ones whose target, source or stat changed).
    pub put_aliases: Vec<AliasEntry>,
    /// Aliases no longer in the catalog (their sources gone, or become documents).
    pub remove_aliases: Vec<String>,
    /// Write a new catalog over the file's, whatever it holds (a catalog of an older format,
    /// whose documents the run rebuilt): its tables are dropped in the same transaction.
    pub replace_all: bool,
}

/// A catalog's document count and its two [`SetDigest`]s (see
/// [`crate::workspace::Library::catalog_digest`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogTotals {
    pub documents: usize,
    pub rows: SetDigest,
    pub ids: SetDigest,
}

impl CatalogTotals {
    /// The totals of `rows` given as (doc id, fingerprint), each id once, in any order.
    pub fn of<'a>(rows: impl IntoIterator<Item = (&'a str, &'a str)>) -> CatalogTotals {
        let mut totals = CatalogTotals {
            documents: 0,
            rows: SetDigest::default(),
            ids: SetDigest::default(),
        };
        for (id, fingerprint) in rows {
            totals.rows.toggle_row(id, fingerprint);
            totals.ids.toggle_id(id);
            totals.documents += 1;
        }
        totals
    }
}

/// `meta.digest_kind` of a catalog whose digests are [`SetDigest`]s. A catalog without it (an
/// earlier build of format 5 kept ordered sha256 digests) has them computed over every row at its
/// next write.
const DIGEST_KIND: &str = "set-sha256";

fn sql_error(path: &Path) -> impl Fn(rusqlite::Error) -> WorkspaceError + '_ {
    move |e| WorkspaceError::Corrupt {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// An open catalog store holding one read snapshot (see the module docs).
pub struct CatalogStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    head: CatalogHead,
    /// The columns [`read_row`] reads from `documents`: [`ROW_COLUMNS`], or
    /// [`ROW_COLUMNS_TEXT_KEY`] for a catalog that still keeps its build keys as text.
    columns: &'static str,
}

impl std::fmt::Debug for CatalogStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogStore")
            .field("path", &self.path)
            .field("head", &self.head)
            .finish()
    }
}

/// Read one `meta` value as text.
fn meta(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
}

fn decode_card(path: &Path, bytes: &[u8]) -> Result<DocCard, WorkspaceError> {
    postcard::from_bytes(bytes).map_err(|e| WorkspaceError::Corrupt {
        path: path.to_path_buf(),
        reason: format!("a card does not decode: {e}"),
    })
}

impl CatalogStore {
    /// Open the catalog of the workspace in `dir` for reading and take its snapshot.
    ///
    /// Errors: [`WorkspaceError::Missing`] without a `catalog.db`; [`WorkspaceError::Version`]
    /// for another format version; [`WorkspaceError::Corrupt`] when SQLite cannot read it (not
    /// a database, damaged, no `meta` table).
    pub fn open(dir: &Path) -> Result<CatalogStore, WorkspaceError> {
        let path = store_path(dir);
        if !path.is_file() {
            return Err(WorkspaceError::Missing(dir.to_path_buf()));
        }
        let err = sql_error(&path);
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(&err)?;
        // A writer's commit takes a moment to publish; readers never wait longer than this.
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(&err)?;
        conn.execute_batch("BEGIN").map_err(&err)?;
        let head = read_head(&conn, &path)?;
        let columns = row_columns(&conn).map_err(&err)?;
        Ok(CatalogStore {
            path: path.clone(),
            conn: Mutex::new(conn),
            head,
            columns,
        })
    }

    /// The head read at open.
    pub fn head(&self) -> &CatalogHead {
        &self.head
    }

    fn with<T>(
        &self,
        run: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, WorkspaceError> {
        let conn = match self.conn.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        run(&conn).map_err(sql_error(&self.path))
    }

    /// The card with this id. Errors: `Corrupt` when the store cannot be read or the card does
    /// not decode.
    pub fn card(&self, doc_id: &str) -> Result<Option<DocCard>, WorkspaceError> {
        let bytes: Option<Vec<u8>> = self.with(|c| {
            c.prepare_cached("SELECT card FROM cards WHERE doc_id = ?1")?
                .query_row([doc_id], |r| r.get(0))
                .optional()
        })?;
        bytes.map(|b| decode_card(&self.path, &b)).transpose()
    }

    /// The row of this id. Errors: as [`CatalogStore::card`].
    pub fn entry(&self, doc_id: &str) -> Result<Option<CatalogEntry>, WorkspaceError> {
        let columns = self.columns;
        self.with(|c| {
            c.prepare_cached(&format!(
                "SELECT {columns} FROM documents WHERE doc_id = ?1"
            ))?
            .query_row([doc_id], read_row)
            .optional()
        })
    }

    /// Cards `offset..offset + limit` in doc id order. Errors: as [`CatalogStore::card`].
    pub fn page(&self, offset: usize, limit: usize) -> Result<Vec<DocCard>, WorkspaceError> {
        let blobs: Vec<Vec<u8>> = self.with(|c| {
            c.prepare_cached("SELECT card FROM cards ORDER BY doc_id LIMIT ?1 OFFSET ?2")?
                .query_map(params![to_i64(limit), to_i64(offset)], |r| r.get(0))?
                .collect()
        })?;
        blobs.iter().map(|b| decode_card(&self.path, b)).collect()
    }

    /// Call `f` on every card in doc id order until it breaks. Errors: as
    /// [`CatalogStore::card`].
    pub fn for_each(
        &self,
        f: &mut dyn FnMut(&DocCard) -> ControlFlow<()>,
    ) -> Result<(), WorkspaceError> {
        let conn = match self.conn.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        let err = sql_error(&self.path);
        let mut stmt = conn
            .prepare_cached("SELECT card FROM cards ORDER BY doc_id")
            .map_err(&err)?;
        let mut rows = stmt.query([]).map_err(&err)?;
        while let Some(row) = rows.next().map_err(&err)? {
            let bytes =
                row.get_ref(0)
                    .map_err(&err)?
                    .as_blob()
                    .map_err(|e| WorkspaceError::Corrupt {
                        path: self.path.clone(),
                        reason: e.to_string(),
                    })?;
            if f(&decode_card(&self.path, bytes)?).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// Cards whose id starts with `prefix`, at most `limit`, in order. Errors: as
    /// [`CatalogStore::card`].
    pub fn with_id_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<DocCard>, WorkspaceError> {
        // Ids are compared as BLOBs (binary collation): every id starting with `prefix` sorts
        // from `prefix` up to `prefix` followed by the highest char.
        let upper = format!("{prefix}\u{10FFFF}");
        let blobs: Vec<Vec<u8>> = self.with(|c| {
            c.prepare_cached(
                "SELECT card FROM cards WHERE doc_id >= ?1 AND doc_id < ?2 \
                 ORDER BY doc_id LIMIT ?3",
            )?
            .query_map(params![prefix, upper, to_i64(limit)], |r| r.get(0))?
            .collect()
        })?;
        blobs
            .iter()
            .map(|b| decode_card(&self.path, b))
            .filter(|c| c.as_ref().map_or(true, |c| c.doc_id.starts_with(prefix)))
            .collect()
    }

    /// The cards whose doc id or title contains `needle` (ASCII letters in either case) or
    /// whose format is `needle`, `offset..offset + limit` of them in doc id order, with how many
    /// match in all: one SQL scan of the short `listing` rows (`LIKE`, the count a window over
    /// the same scan), then the page's cards by id: the scan reads no card
    /// (`filter_at_100000_documents`, run by hand, times it). `None` for a catalog written before the
    /// `listing` table. Errors: as
    /// [`CatalogStore::card`].
    pub fn matching(
        &self,
        needle: &str,
        offset: usize,
        limit: usize,
    ) -> Result<Option<(usize, Vec<DocCard>)>, WorkspaceError> {
        if !self.with(|c| table_exists(c, "listing"))? {
            return Ok(None);
        }
        let pattern = format!("%{}%", like_escaped(needle));
        let format = needle.to_ascii_lowercase();
        const WHERE: &str = "FROM listing WHERE doc_id LIKE ?1 ESCAPE '\\' \
             OR title LIKE ?1 ESCAPE '\\' OR format = ?2";
        let (total, ids) = self.with(|c| {
            let rows: Vec<(String, i64)> = c
                .prepare_cached(&format!(
                    "SELECT doc_id, count(*) OVER () {WHERE} ORDER BY doc_id LIMIT ?3 OFFSET ?4"
                ))?
                .query_map(
                    params![pattern, format, to_i64(limit), to_i64(offset)],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?
                .collect::<rusqlite::Result<_>>()?;
            let total = match rows.first() {
                Some((_, total)) => *total,
                // Past the end (or nothing matches): the count alone.
                None => c
                    .prepare_cached(&format!("SELECT count(*) {WHERE}"))?
                    .query_row(params![pattern, format], |r| r.get(0))?,
            };
            Ok((
                total,
                rows.into_iter().map(|(id, _)| id).collect::<Vec<_>>(),
            ))
        })?;
        let mut cards = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(card) = self.card(&id)? {
                cards.push(card);
            }
        }
        Ok(Some((usize::try_from(total).unwrap_or(0), cards)))
    }

    /// Cards filed under any of `keys`, each once, in doc id order. Errors: as
    /// [`CatalogStore::card`].
    pub fn with_keys(&self, keys: &[String]) -> Result<Vec<DocCard>, WorkspaceError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut ids: Vec<String> = self.with(|c| {
            let mut stmt = c.prepare_cached("SELECT doc_id FROM lookup WHERE key = ?1")?;
            let mut ids = Vec::new();
            for key in keys {
                for id in stmt.query_map([key], |r| r.get::<_, String>(0))? {
                    ids.push(id?);
                }
            }
            Ok(ids)
        })?;
        ids.sort();
        ids.dedup();
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(card) = self.card(&id)? {
                out.push(card);
            }
        }
        Ok(out)
    }

    /// The 0-based position of `doc_id` in doc id order. Errors: as [`CatalogStore::card`].
    pub fn position(&self, doc_id: &str) -> Result<Option<usize>, WorkspaceError> {
        if self.entry(doc_id)?.is_none() {
            return Ok(None);
        }
        let before: i64 = self.with(|c| {
            c.prepare_cached("SELECT count(*) FROM documents WHERE doc_id < ?1")?
                .query_row([doc_id], |r| r.get(0))
        })?;
        Ok(Some(usize::try_from(before).unwrap_or(0)))
    }

    /// The rows of the documents whose text hashes to `text_sha256`
    /// ([`super::document::text_fingerprint`]), in doc id order: looked up by the
    /// `documents_by_text` index. Errors: as [`CatalogStore::card`].
    pub fn documents_with_text(
        &self,
        text_sha256: &str,
    ) -> Result<Vec<CatalogEntry>, WorkspaceError> {
        let columns = self.columns;
        self.with(|c| {
            c.prepare_cached(&format!(
                "SELECT {columns} FROM documents WHERE text_sha256 = ?1 ORDER BY doc_id"
            ))?
            .query_map([text_sha256], read_row)?
            .collect()
        })
    }

    /// The document `alias` names, `None` for an id that is no alias. Errors: as
    /// [`CatalogStore::card`].
    pub fn alias_target(&self, alias: &str) -> Result<Option<String>, WorkspaceError> {
        self.with(|c| aliases::target(c, alias))
    }

    /// Every alias with its row, in alias order (an index run reads them all: there are few).
    /// Errors: as [`CatalogStore::card`].
    pub fn aliases(&self) -> Result<Vec<AliasEntry>, WorkspaceError> {
        self.with(aliases::all)
    }

    /// The rows whose source is one of `sources` (absolute paths, as indexed), in doc id order.
    /// Looked up by the `documents_by_source` index (a catalog written before it existed is
    /// scanned until its next write creates it). Errors: as [`CatalogStore::card`].
    pub fn entries_for_sources(
        &self,
        sources: &[String],
    ) -> Result<Vec<CatalogEntry>, WorkspaceError> {
        let columns = self.columns;
        let mut rows: Vec<CatalogEntry> = self.with(|c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {columns} FROM documents WHERE source = ?1"
            ))?;
            let mut rows = Vec::new();
            for source in sources {
                for row in stmt.query_map([source], read_row)? {
                    rows.push(row?);
                }
            }
            Ok(rows)
        })?;
        rows.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        rows.dedup_by(|a, b| a.doc_id == b.doc_id);
        Ok(rows)
    }

    /// The sources (absolute paths, as indexed) of the documents and aliases that come from
    /// under `folder` (an absolute path, without a trailing `/`), in byte order: a range of the
    /// `documents_by_source` index, not a scan (the aliases, one per duplicate source, are
    /// few). Errors: as [`CatalogStore::card`].
    pub fn sources_under(&self, folder: &str) -> Result<Vec<String>, WorkspaceError> {
        // Every path under `folder/` sorts from `folder/` to just before `folder0` ('0' follows
        // '/' in byte order, and SQLite compares text by bytes).
        let (from, to) = (format!("{folder}/"), format!("{folder}0"));
        self.with(|c| {
            c.prepare_cached(
                "SELECT source FROM documents WHERE source >= ?1 AND source < ?2 \
                 UNION SELECT source FROM aliases WHERE source >= ?1 AND source < ?2 \
                 ORDER BY source",
            )?
            .query_map([from, to], |r| r.get(0))?
            .collect()
        })
    }

    /// Every row without its card, in doc id order. Errors: as [`CatalogStore::card`].
    pub fn entries(&self) -> Result<Vec<CatalogEntry>, WorkspaceError> {
        let columns = self.columns;
        self.with(|c| {
            c.prepare_cached(&format!("SELECT {columns} FROM documents ORDER BY doc_id"))?
                .query_map([], read_row)?
                .collect()
        })
    }
}

/// The columns of a row that [`read_row`] reads, in its order.
const ROW_COLUMNS: &str = "doc_id, source, format, fingerprint, tree_file, source_len, mtime_ms, \
                           builder, max_leaf_tokens, text_sha256";

/// [`ROW_COLUMNS`] of a catalog that keeps each row's build key as one text (format 8 before
/// the `builder` and `max_leaf_tokens` columns; [`BuildKey::from_format_8_text`]).
const ROW_COLUMNS_TEXT_KEY: &str = "doc_id, source, format, fingerprint, tree_file, source_len, \
                                    mtime_ms, build_key, NULL, text_sha256";

/// [`ROW_COLUMNS`] of a catalog of format 5, which had no text hashes (and build keys as text).
const ROW_COLUMNS_5: &str =
    "doc_id, source, format, fingerprint, tree_file, source_len, mtime_ms, build_key, NULL, ''";

/// The build key of a row read with [`ROW_COLUMNS`] (`builder`, `max_leaf_tokens` at `at` and
/// `at + 1`, NULL for none) or with [`ROW_COLUMNS_TEXT_KEY`] (the text at `at`).
fn read_build_key(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Option<BuildKey>> {
    use rusqlite::types::ValueRef;
    Ok(match r.get_ref(at)? {
        ValueRef::Text(text) => std::str::from_utf8(text)
            .ok()
            .and_then(BuildKey::from_format_8_text),
        ValueRef::Null => None,
        _ => match (
            r.get::<_, Option<u32>>(at)?,
            r.get::<_, Option<u32>>(at + 1)?,
        ) {
            (Some(builder), Some(max_leaf_tokens)) => Some(BuildKey {
                builder,
                max_leaf_tokens,
            }),
            _ => None,
        },
    })
}

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CatalogEntry> {
    let format: String = r.get(2)?;
    Ok(CatalogEntry {
        doc_id: r.get(0)?,
        source: r.get(1)?,
        format: DocFormat::ALL
            .iter()
            .copied()
            .find(|f| f.as_str() == format)
            .unwrap_or(DocFormat::Text),
        fingerprint: r.get(3)?,
        tree_file: r.get(4)?,
        source_len: u64::try_from(r.get::<_, i64>(5)?).unwrap_or(0),
        mtime_ms: u64::try_from(r.get::<_, i64>(6)?).unwrap_or(0),
        build_key: read_build_key(r, 7)?,
        text_sha256: r.get(9)?,
    })
}

/// `text` with `LIKE`'s wildcards (`%`, `_`) and the escape character (`\\`) escaped.
fn like_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The columns [`read_row`] reads from the `documents` table `conn` holds, by the columns it
/// has: [`ROW_COLUMNS`]; [`ROW_COLUMNS_TEXT_KEY`] while build keys are text (format 8 before
/// the `builder` column); [`ROW_COLUMNS_5`] without text hashes either.
fn row_columns(conn: &Connection) -> rusqlite::Result<&'static str> {
    if !has_column(conn, "documents", "build_key")? {
        return Ok(ROW_COLUMNS);
    }
    Ok(if has_column(conn, "documents", "text_sha256")? {
        ROW_COLUMNS_TEXT_KEY
    } else {
        ROW_COLUMNS_5
    })
}

/// Whether `table` exists and has a column called `column`.
fn has_column(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info(?1) WHERE name = ?2",
        [table, column],
        |r| r.get(0),
    )
}

/// Move the build keys of `table` (rows keyed by the column `key`) from the text column
/// `build_key` of an earlier format-8 catalog to the `builder` and `max_leaf_tokens` columns,
/// in the caller's transaction: a text that is no key ([`BuildKey::from_format_8_text`]) leaves
/// both NULL, so its row is rebuilt. Nothing to do for a table without that column.
fn typed_build_keys(tx: &Connection, table: &str, key: &str) -> rusqlite::Result<()> {
    if !has_column(tx, table, "build_key")? {
        return Ok(());
    }
    tx.execute_batch(&format!(
        "ALTER TABLE {table} ADD COLUMN builder INTEGER; \
         ALTER TABLE {table} ADD COLUMN max_leaf_tokens INTEGER;"
    ))?;
    let keys: Vec<(String, String)> = tx
        .prepare(&format!("SELECT {key}, build_key FROM {table}"))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut set = tx.prepare(&format!(
        "UPDATE {table} SET builder = ?2, max_leaf_tokens = ?3 WHERE {key} = ?1"
    ))?;
    for (id, text) in keys {
        if let Some(k) = BuildKey::from_format_8_text(&text) {
            set.execute(params![id, k.builder, k.max_leaf_tokens])?;
        }
    }
    tx.execute_batch(&format!("ALTER TABLE {table} DROP COLUMN build_key"))
}

/// Whether the database has a table called `name`.
fn table_exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get(0),
    )
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn read_head(conn: &Connection, path: &Path) -> Result<CatalogHead, WorkspaceError> {
    let err = sql_error(path);
    let version = meta(conn, "format_version").map_err(&err)?;
    let found: u32 = version
        .as_deref()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| WorkspaceError::Corrupt {
            path: path.to_path_buf(),
            reason: "no format version".into(),
        })?;
    if found != super::FORMAT_VERSION {
        return Err(WorkspaceError::Version {
            path: path.to_path_buf(),
            found,
            expected: super::FORMAT_VERSION,
        });
    }
    let number = |key: &str| -> Result<u64, WorkspaceError> {
        meta(conn, key)
            .map_err(&err)?
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| WorkspaceError::Corrupt {
                path: path.to_path_buf(),
                reason: format!("no {key}"),
            })
    };
    let text = |key: &str| -> Result<String, WorkspaceError> {
        meta(conn, key)
            .map_err(&err)?
            .ok_or_else(|| WorkspaceError::Corrupt {
                path: path.to_path_buf(),
                reason: format!("no {key}"),
            })
    };
    let documents = usize::try_from(number("documents")?).unwrap_or(usize::MAX);
    Ok(CatalogHead {
        index_generation: number("index_generation")?,
        documents,
        digest: CatalogDigest {
            documents,
            sha256: text("catalog_sha256")?,
        },
        ids_sha256: text("ids_sha256")?,
    })
}

/// The index generation recorded in the catalog of `dir` (a short read of its head).
///
/// Errors: as [`CatalogStore::open`].
pub fn read_generation(dir: &Path) -> Result<u64, WorkspaceError> {
    Ok(CatalogStore::open(dir)?.head.index_generation)
}

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS documents (
        doc_id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        format TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        tree_file TEXT NOT NULL,
        source_len INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        builder INTEGER,
        max_leaf_tokens INTEGER,
        text_sha256 TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS documents_by_source ON documents (source);
    CREATE INDEX IF NOT EXISTS documents_by_text ON documents (text_sha256);
    CREATE TABLE IF NOT EXISTS cards (doc_id TEXT PRIMARY KEY, card BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS listing (
        doc_id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        format TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS lookup (
        key TEXT NOT NULL,
        doc_id TEXT NOT NULL,
        PRIMARY KEY (key, doc_id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS lookup_by_doc ON lookup (doc_id);
";

/// Apply `changes` to the catalog of `dir` in one transaction (created on first use, in WAL
/// mode), then record the count, the digests and the generation. The caller holds the writer
/// lock. A crash before the commit leaves the catalog as it was.
///
/// Errors: `Corrupt` when SQLite cannot open or write the file; `Version` for a catalog of
/// another format (unless [`CatalogChanges::replace_all`]).
pub fn write(dir: &Path, changes: &CatalogChanges) -> Result<(), WorkspaceError> {
    let path = store_path(dir);
    let err = sql_error(&path);
    let mut conn = Connection::open(&path).map_err(&err)?;
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(&err)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(&err)?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(&err)?;
    let tx = conn.transaction().map_err(&err)?;
    {
        apply_schema(&tx, &path, changes)?;
        let recorded = totals_without_changed(&tx, &path, changes)?;
        delete_documents(&tx, &path, &changes.remove)?;
        put_documents(&tx, &path, changes)?;
        aliases::write(&tx, &changes.remove_aliases, &changes.put_aliases).map_err(&err)?;
        let totals = totals_after(&tx, &path, recorded, changes)?;
        set_meta(&tx, &path, changes, &totals)?;
    }
    tx.commit().map_err(&err)?;
    Ok(())
}

/// Check the catalog's format (or drop every table with [`CatalogChanges::replace_all`]), then
/// create what is missing; a catalog written before the `listing` table has it filled.
///
/// Errors: `Version` for a catalog of another format; `Corrupt` when SQLite fails.
fn apply_schema(
    tx: &Connection,
    path: &Path,
    changes: &CatalogChanges,
) -> Result<(), WorkspaceError> {
    let err = sql_error(path);
    if changes.replace_all {
        tx.execute_batch(DROP_ALL).map_err(&err)?;
    } else if let Some(found) = stored_version(tx).map_err(&err)? {
        // Checked before the schema is applied: an older catalog's tables lack its columns.
        if found != super::FORMAT_VERSION {
            return Err(WorkspaceError::Version {
                path: path.to_path_buf(),
                found,
                expected: super::FORMAT_VERSION,
            });
        }
    }
    let unlisted =
        table_exists(tx, "cards").map_err(&err)? && !table_exists(tx, "listing").map_err(&err)?;
    for (table, key) in [("documents", "doc_id"), ("aliases", "alias")] {
        typed_build_keys(tx, table, key).map_err(&err)?;
    }
    tx.execute_batch(SCHEMA).map_err(&err)?;
    tx.execute_batch(aliases::SCHEMA).map_err(&err)?;
    if unlisted {
        fill_listing(tx, path)?;
    }
    Ok(())
}

/// The recorded totals, when they are of this kind, with the old rows of the documents this
/// write changes toggled out: what is left is the catalog without them. `None` for a new
/// catalog or one of the older kind.
fn totals_without_changed(
    tx: &Connection,
    path: &Path,
    changes: &CatalogChanges,
) -> Result<Option<CatalogTotals>, WorkspaceError> {
    let err = sql_error(path);
    let Some(mut totals) = recorded_totals(tx).map_err(&err)? else {
        return Ok(None);
    };
    let mut old_fingerprint = tx
        .prepare("SELECT fingerprint FROM documents WHERE doc_id = ?1")
        .map_err(&err)?;
    let changed = changes
        .remove
        .iter()
        .chain(changes.upsert.iter().map(|(e, _)| &e.doc_id));
    let mut seen = std::collections::HashSet::new();
    for id in changed.filter(|id| seen.insert(id.as_str())) {
        let old: Option<String> = old_fingerprint
            .query_row([id], |r| r.get(0))
            .optional()
            .map_err(&err)?;
        if let Some(old) = old {
            totals.rows.toggle_row(id, &old);
            totals.ids.toggle_id(id);
            totals.documents = totals.documents.saturating_sub(1);
        }
    }
    Ok(Some(totals))
}

/// Delete the rows of `ids` from every table that holds a document's rows.
///
/// Errors: `Corrupt` when SQLite fails.
fn delete_documents(tx: &Connection, path: &Path, ids: &[String]) -> Result<(), WorkspaceError> {
    let err = sql_error(path);
    let mut delete_row = tx
        .prepare("DELETE FROM documents WHERE doc_id = ?1")
        .map_err(&err)?;
    let mut delete_card = tx
        .prepare("DELETE FROM cards WHERE doc_id = ?1")
        .map_err(&err)?;
    let mut delete_keys = tx
        .prepare("DELETE FROM lookup WHERE doc_id = ?1")
        .map_err(&err)?;
    let mut delete_title = tx
        .prepare("DELETE FROM listing WHERE doc_id = ?1")
        .map_err(&err)?;
    for id in ids {
        delete_row.execute([id]).map_err(&err)?;
        delete_card.execute([id]).map_err(&err)?;
        delete_title.execute([id]).map_err(&err)?;
        delete_keys.execute([id]).map_err(&err)?;
    }
    Ok(())
}

/// Write each upserted document's row, card, listing and lookup keys, then the new source
/// length and time of each restated one.
///
/// Errors: `Corrupt` when a card cannot be encoded or SQLite fails.
fn put_documents(
    tx: &Connection,
    path: &Path,
    changes: &CatalogChanges,
) -> Result<(), WorkspaceError> {
    let err = sql_error(path);
    let mut put = tx
        .prepare(
            "INSERT OR REPLACE INTO documents \
             (doc_id, source, format, fingerprint, tree_file, source_len, mtime_ms, \
              builder, max_leaf_tokens, text_sha256) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )
        .map_err(&err)?;
    let mut put_card = tx
        .prepare("INSERT OR REPLACE INTO cards (doc_id, card) VALUES (?1, ?2)")
        .map_err(&err)?;
    let mut put_key = tx
        .prepare("INSERT OR IGNORE INTO lookup (key, doc_id) VALUES (?1, ?2)")
        .map_err(&err)?;
    let mut put_title = tx
        .prepare("INSERT OR REPLACE INTO listing (doc_id, title, format) VALUES (?1, ?2, ?3)")
        .map_err(&err)?;
    let mut delete_keys = tx
        .prepare("DELETE FROM lookup WHERE doc_id = ?1")
        .map_err(&err)?;
    for (entry, card) in &changes.upsert {
        let bytes = postcard::to_stdvec(card).map_err(|e| WorkspaceError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("cannot encode the card of `{}`: {e}", entry.doc_id),
        })?;
        put.execute(params![
            entry.doc_id,
            entry.source,
            entry.format.as_str(),
            entry.fingerprint,
            entry.tree_file,
            i64::try_from(entry.source_len).unwrap_or(i64::MAX),
            i64::try_from(entry.mtime_ms).unwrap_or(i64::MAX),
            entry.build_key.map(|k| k.builder),
            entry.build_key.map(|k| k.max_leaf_tokens),
            entry.text_sha256
        ])
        .map_err(&err)?;
        put_card
            .execute(params![entry.doc_id, bytes])
            .map_err(&err)?;
        put_title
            .execute(params![entry.doc_id, card.title, card.format.as_str()])
            .map_err(&err)?;
        delete_keys.execute([&entry.doc_id]).map_err(&err)?;
        for key in crate::index::cross_refs::lookup_keys(card) {
            put_key.execute(params![key, entry.doc_id]).map_err(&err)?;
        }
    }
    let mut restat = tx
        .prepare("UPDATE documents SET source_len = ?2, mtime_ms = ?3 WHERE doc_id = ?1")
        .map_err(&err)?;
    for entry in &changes.restat {
        restat
            .execute(params![
                entry.doc_id,
                i64::try_from(entry.source_len).unwrap_or(i64::MAX),
                i64::try_from(entry.mtime_ms).unwrap_or(i64::MAX)
            ])
            .map_err(&err)?;
    }
    Ok(())
}

/// The digests and the count over the rows as they now are: `recorded` updated with the new
/// rows, or (a new catalog, or one of the older kind) computed over every row's id and
/// fingerprint, no card read.
///
/// Errors: `Corrupt` when SQLite fails.
fn totals_after(
    tx: &Connection,
    path: &Path,
    recorded: Option<CatalogTotals>,
    changes: &CatalogChanges,
) -> Result<CatalogTotals, WorkspaceError> {
    let err = sql_error(path);
    if let Some(mut totals) = recorded {
        for (entry, _) in &changes.upsert {
            totals.rows.toggle_row(&entry.doc_id, &entry.fingerprint);
            totals.ids.toggle_id(&entry.doc_id);
            totals.documents += 1;
        }
        return Ok(totals);
    }
    let mut all = tx
        .prepare("SELECT doc_id, fingerprint FROM documents")
        .map_err(&err)?;
    let rows: Vec<(String, String)> = all
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .map_err(&err)?
        .collect::<Result<_, _>>()
        .map_err(&err)?;
    Ok(CatalogTotals::of(
        rows.iter().map(|(id, f)| (id.as_str(), f.as_str())),
    ))
}

/// Record the format, the versions, the generation, the count and the digests in `meta`.
///
/// Errors: `Corrupt` when SQLite fails.
fn set_meta(
    tx: &Connection,
    path: &Path,
    changes: &CatalogChanges,
    totals: &CatalogTotals,
) -> Result<(), WorkspaceError> {
    let err = sql_error(path);
    let mut set = tx
        .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")
        .map_err(&err)?;
    for (key, value) in [
        ("format_version", super::FORMAT_VERSION.to_string()),
        ("docnav_version", env!("CARGO_PKG_VERSION").to_string()),
        ("index_generation", changes.index_generation.to_string()),
        ("documents", totals.documents.to_string()),
        ("catalog_sha256", totals.rows.hex()),
        ("ids_sha256", totals.ids.hex()),
        ("digest_kind", DIGEST_KIND.to_string()),
    ] {
        set.execute(params![key, value]).map_err(&err)?;
    }
    Ok(())
}

/// Fill the `listing` table of a catalog written before it existed from its cards (once: every
/// later write keeps it up to date).
fn fill_listing(tx: &Connection, path: &Path) -> Result<(), WorkspaceError> {
    let err = sql_error(path);
    let mut all = tx.prepare("SELECT doc_id, card FROM cards").map_err(&err)?;
    let mut put = tx
        .prepare("INSERT OR REPLACE INTO listing (doc_id, title, format) VALUES (?1, ?2, ?3)")
        .map_err(&err)?;
    let mut rows = all.query([]).map_err(&err)?;
    while let Some(row) = rows.next().map_err(&err)? {
        let id: String = row.get(0).map_err(&err)?;
        let bytes: Vec<u8> = row.get(1).map_err(&err)?;
        let card = decode_card(path, &bytes)?;
        put.execute(params![id, card.title, card.format.as_str()])
            .map_err(&err)?;
    }
    Ok(())
}

/// Every table of a catalog, dropped before [`CatalogChanges::replace_all`] writes a new one.
const DROP_ALL: &str = "
    DROP TABLE IF EXISTS meta;
    DROP TABLE IF EXISTS documents;
    DROP TABLE IF EXISTS cards;
    DROP TABLE IF EXISTS listing;
    DROP TABLE IF EXISTS lookup;
    DROP TABLE IF EXISTS aliases;
";

/// The format version a catalog records, `None` for a new one (no `meta` table yet) or one
/// that records none.
fn stored_version(conn: &Connection) -> rusqlite::Result<Option<u32>> {
    let has_meta: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        [],
        |r| r.get(0),
    )?;
    if !has_meta {
        return Ok(None);
    }
    Ok(meta(conn, "format_version")?.and_then(|v| v.parse::<u32>().ok()))
}

/// The rows of the catalog in `dir` when it is of an older format than this build's, with that
/// format; `None` when there is no `catalog.db`, or it is of this format. Its rows are read in
/// the column layout it has ([`row_columns`]; format 5's give `text_sha256` ""), none when they
/// cannot be read. What an index run rebuilds an older workspace from (an index run without
/// paths rebuilds exactly these rows).
pub(crate) fn older_rows(dir: &Path) -> Option<(u32, Vec<CatalogEntry>)> {
    let path = store_path(dir);
    if !path.is_file() {
        return None;
    }
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    let found = stored_version(&conn).ok()??;
    if found >= super::FORMAT_VERSION {
        return None;
    }
    let rows = row_columns(&conn)
        .and_then(|columns| {
            conn.prepare(&format!("SELECT {columns} FROM documents ORDER BY doc_id"))?
                .query_map([], read_row)?
                .collect()
        })
        .unwrap_or_default();
    Some((found, rows))
}

/// The count and digests `meta` records, when they are [`SetDigest`]s (`None` for a new
/// catalog or one whose digests are of the older, ordered kind).
fn recorded_totals(conn: &Connection) -> rusqlite::Result<Option<CatalogTotals>> {
    if meta(conn, "digest_kind")?.as_deref() != Some(DIGEST_KIND) {
        return Ok(None);
    }
    let documents = meta(conn, "documents")?.and_then(|v| v.parse().ok());
    let rows = meta(conn, "catalog_sha256")?.and_then(|v| SetDigest::from_hex(&v));
    let ids = meta(conn, "ids_sha256")?.and_then(|v| SetDigest::from_hex(&v));
    Ok(match (documents, rows, ids) {
        (Some(documents), Some(rows), Some(ids)) => Some(CatalogTotals {
            documents,
            rows,
            ids,
        }),
        _ => None,
    })
}

/// A stamp that changes with every commit of the catalog of `dir` and every change of its
/// section index's segments: the modification time and length of `catalog.db`, of its
/// write-ahead log when not empty (a commit appends to the log; a checkpoint, which only a
/// writer runs, rewrites the file) and of the index's `meta.json` (rewritten by each commit and
/// by each merge, which keeps the catalog as it was: a long-running reader reopens to search
/// the merged segments instead of the ones it had, whose files the merge deleted). `None`
/// without a catalog. One `stat` per file, nothing read.
///
/// For a publish folder ([`crate::workspace::publish`]): the number of its newest generation by
/// name, complete or not, with the stamp of that generation's files (one directory listing);
/// `None` when it holds no generation.
pub fn stamp(dir: &Path) -> Option<CatalogStamp> {
    if let Some((number, generation)) = crate::workspace::publish::newest_named(dir) {
        let files = stamp(&generation).unwrap_or(CatalogStamp {
            main: (None, 0),
            log: None,
            index: None,
            published: None,
        });
        return Some(CatalogStamp {
            published: Some(number),
            ..files
        });
    }
    let file = |path: PathBuf| {
        std::fs::metadata(path)
            .ok()
            .map(|m| (m.modified().ok(), m.len()))
    };
    let main = file(store_path(dir))?;
    // A reader that opens the catalog may create an empty log; empty or missing, it is the same
    // catalog.
    let log = file(dir.join("catalog.db-wal")).filter(|(_, len)| *len > 0);
    let index = file(dir.join("index").join("meta.json"));
    Some(CatalogStamp {
        main,
        log,
        index,
        published: None,
    })
}

/// See [`stamp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogStamp {
    main: (Option<std::time::SystemTime>, u64),
    log: Option<(Option<std::time::SystemTime>, u64)>,
    index: Option<(Option<std::time::SystemTime>, u64)>,
    /// The newest generation's number, for a publish folder.
    published: Option<u64>,
}

impl CatalogStamp {
    /// For a publish folder, the number of its newest generation by name (complete or not).
    pub fn published(&self) -> Option<u64> {
        self.published
    }
}
