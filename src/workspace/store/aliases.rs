//! The catalog's aliases (DESIGN.md §2: a document whose text equals an indexed one is kept
//! once, the other name an alias): the table `aliases`, its rows ([`AliasEntry`]) and their
//! reads and writes.
//!
//! An alias has a row of its own — its id, source, fingerprint, text hash, size and time, build —
//! so that a re-index sees its source as known and unchanged, and the document it names. It has
//! no card, no tree file and no entries in the section index: `ls /`, `docs` and every search
//! show the document once. `cd`, `cat`, `docnav tree` and `--doc` accept the alias and go to the
//! document ([`crate::workspace::Library::resolve_id`]).

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::{has_column, read_row, CatalogEntry};

/// One alias: a source whose text is that of the document `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasEntry {
    /// The alias's own row: `doc_id` is the alias (the id `cd` and `--doc` accept), `source`,
    /// `format`, `fingerprint`, `text_sha256`, `source_len`, `mtime_ms` and `build_key` are its
    /// source's; `tree_file` is empty (the tree is the target's).
    pub row: CatalogEntry,
    /// The id of the document it names.
    pub target: String,
}

impl AliasEntry {
    /// The alias of `target` made of a source's `row` (its tree file dropped).
    pub fn new(mut row: CatalogEntry, target: String) -> AliasEntry {
        row.tree_file.clear();
        AliasEntry { row, target }
    }

    /// The alias's id.
    pub fn alias(&self) -> &str {
        &self.row.doc_id
    }
}

/// The table, created with the others ([`super::write`]).
pub(super) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS aliases (
        alias TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        source TEXT NOT NULL,
        format TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        source_len INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        builder INTEGER,
        max_leaf_tokens INTEGER,
        text_sha256 TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS aliases_by_target ON aliases (target);
";

/// The columns [`read_row`] reads (an alias has no tree file of its own), then the target.
const COLUMNS: &str = "alias, source, format, fingerprint, '', source_len, mtime_ms, builder, \
                       max_leaf_tokens, text_sha256, target";

/// [`COLUMNS`] of a catalog that keeps build keys as text (see [`super::CatalogStore`]).
const COLUMNS_TEXT_KEY: &str = "alias, source, format, fingerprint, '', source_len, mtime_ms, \
                                build_key, NULL, text_sha256, target";

fn read_alias(r: &rusqlite::Row<'_>) -> rusqlite::Result<AliasEntry> {
    Ok(AliasEntry {
        row: read_row(r)?,
        target: r.get(10)?,
    })
}

/// The document `alias` names, `None` for an id that is no alias.
pub(super) fn target(conn: &Connection, alias: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT target FROM aliases WHERE alias = ?1")?
        .query_row([alias], |r| r.get(0))
        .optional()
}

/// Every alias, in alias order.
pub(super) fn all(conn: &Connection) -> rusqlite::Result<Vec<AliasEntry>> {
    let columns = if has_column(conn, "aliases", "build_key")? {
        COLUMNS_TEXT_KEY
    } else {
        COLUMNS
    };
    conn.prepare_cached(&format!("SELECT {columns} FROM aliases ORDER BY alias"))?
        .query_map([], read_alias)?
        .collect()
}

/// Remove the aliases `remove`, then write (insert or replace) `put`, in the caller's
/// transaction.
pub(super) fn write(
    tx: &Transaction<'_>,
    remove: &[String],
    put: &[AliasEntry],
) -> rusqlite::Result<()> {
    let mut delete = tx.prepare("DELETE FROM aliases WHERE alias = ?1")?;
    for alias in remove {
        delete.execute([alias])?;
    }
    let mut insert = tx.prepare(
        "INSERT OR REPLACE INTO aliases (alias, target, source, format, fingerprint, \
         source_len, mtime_ms, builder, max_leaf_tokens, text_sha256) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for alias in put {
        let row = &alias.row;
        insert.execute(params![
            row.doc_id,
            alias.target,
            row.source,
            row.format.as_str(),
            row.fingerprint,
            to_i64_u64(row.source_len),
            to_i64_u64(row.mtime_ms),
            row.build_key.map(|k| k.builder),
            row.build_key.map(|k| k.max_leaf_tokens),
            row.text_sha256
        ])?;
    }
    Ok(())
}

fn to_i64_u64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
