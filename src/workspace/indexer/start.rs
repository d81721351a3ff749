//! The start of an index run, read under the writer lock: the catalog (set aside when damaged
//! and `--force` is given), the search index (made anew when missing, damaged, older or
//! unsorted while every document is rebuilt anyway), and what that index holds.

use std::collections::HashMap;
use std::path::Path;
use std::time::UNIX_EPOCH;

use rustc_hash::FxHashSet;

use super::inputs::{collect_inputs, join_scoped, list_tree_files, named_files_start, Input};
use super::{io, IndexOptions, Laps};
use crate::index::{SectionIndex, SectionIndexError};
use crate::workspace::sync::search_error;
use crate::workspace::{
    catalog_path, read_catalog, read_legacy_catalog, Catalog, CatalogStore, WorkspaceError,
    FORMAT_VERSION,
};

/// Where an index run starts.
pub(super) struct Start {
    /// The starting catalog (with files named one by one, only their rows).
    pub(super) catalog: Catalog,
    /// The format of an older workspace's catalog, whose documents are all rebuilt.
    pub(super) outdated: Option<u32>,
    /// The search index the run writes to.
    pub(super) index: SectionIndex,
    /// The arguments' inputs and error lines (`None` without arguments).
    pub(super) walked: Option<(Vec<Input>, Vec<String>)>,
    /// The names in `docs/` when the run started (with files named one by one, their rows'
    /// tree files that exist).
    pub(super) tree_files: FxHashSet<String>,
    /// With files named one by one: the catalog, to check new ids against the rows not read.
    pub(super) named_store: Option<CatalogStore>,
    /// With files named one by one: their sources, present and gone.
    pub(super) named_sources: Option<FxHashSet<String>>,
    /// What the run did beyond its inputs, so far.
    pub(super) notices: Vec<String>,
    /// What the index holds (doc id → tree file) when it is not in step with the catalog;
    /// `None` when its last commit is the catalog's, so it holds exactly the catalog's rows.
    pub(super) indexed: Option<HashMap<String, String>>,
}

/// Read the start of a run into `dir` (locked) for `args`.
///
/// Errors: the catalog cannot be read (and is not set aside), or the search index cannot be
/// opened, made or read.
pub(super) fn open(
    dir: &Path,
    args: &[String],
    options: &IndexOptions,
    docs_dir: &Path,
    laps: &Laps,
) -> Result<Start, WorkspaceError> {
    // Read under the lock: another writer may have committed since we were started. The
    // catalog is read while the sources are walked and the tree files listed, which overlaps
    // the three reads instead of running them one after another.
    let named = named_files_start(dir, args, options, docs_dir);
    let mut named_sources = named.as_ref().map(|start| start.sources.clone());
    let (starting, walked, mut tree_files, mut named_store) = match named {
        Some(start) => (
            Ok((start.catalog, None)),
            Some(start.walked),
            start.tree_files,
            Some(start.store),
        ),
        None => {
            let (starting, walked, tree_files) = std::thread::scope(|scope| {
                let walk = (!args.is_empty())
                    .then(|| scope.spawn(|| collect_inputs(args, &options.formats)));
                let listing = scope.spawn(|| list_tree_files(docs_dir));
                let starting = starting_catalog(dir);
                (starting, walk.map(join_scoped), join_scoped(listing))
            });
            (starting, walked, tree_files, None)
        }
    };
    let mut notices = Vec::new();
    let (mut catalog, outdated) = set_aside_damaged(dir, starting, options.force, &mut notices)?;
    laps.lap("catalog read");
    if let Some(found) = outdated {
        notices.push(format!(
            "`{}` was made by an older docnav (format {found}; this one reads format {}); \
             rebuilding its {} document(s)",
            dir.display(),
            FORMAT_VERSION,
            catalog.documents.len()
        ));
    }
    let index = open_index(dir, &catalog, outdated, named_store.is_some(), &mut notices)?;
    laps.lap("index opened");
    // What the index holds, document by document. When its last commit is the catalog's
    // (every run ends that way; an interrupted one does not), it holds exactly the catalog's
    // rows, and reading its card entries back is not needed; otherwise it is read.
    let in_step = outdated.is_none()
        && index.generation().ok().flatten() == Some(catalog.index_generation)
        && catalog.index_generation > 0;
    // Named files over an index out of step (an interrupted run): the index is checked
    // against every row, so every row is read.
    if named_store.is_some() && !in_step {
        named_store = None;
        named_sources = None;
        catalog = read_catalog(dir)?;
        tree_files = list_tree_files(docs_dir);
    }
    let indexed = if in_step {
        None
    } else {
        Some(index.documents().map_err(|e| search_error(dir, e))?)
    };
    Ok(Start {
        catalog,
        outdated,
        index,
        walked,
        tree_files,
        named_store,
        named_sources,
        notices,
        indexed,
    })
}

/// The starting catalog, or with `force` over a damaged one an empty catalog, the damaged file
/// kept beside the workspace (the damage message's hint is `docnav index --force`; the paths
/// given are indexed again).
///
/// Errors: any other failure to read the catalog, or the damaged file cannot be moved aside.
fn set_aside_damaged(
    dir: &Path,
    starting: Result<(Catalog, Option<u32>), WorkspaceError>,
    force: bool,
    notices: &mut Vec<String>,
) -> Result<(Catalog, Option<u32>), WorkspaceError> {
    match starting {
        Err(WorkspaceError::Corrupt { path, reason }) if force && path == catalog_path(dir) => {
            let aside = path.with_extension(format!(
                "db.damaged-{}",
                std::time::SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs())
            ));
            std::fs::rename(&path, &aside).map_err(io(&path))?;
            for log in ["catalog.db-wal", "catalog.db-shm"] {
                let _ = std::fs::remove_file(dir.join(log));
            }
            notices.push(format!(
                "the catalog `{}` was damaged ({reason}); kept as `{}`, starting a new one",
                path.display(),
                aside.display()
            ));
            Ok((Catalog::default(), None))
        }
        other => other,
    }
}

/// The search index of the run ([`starting_index`]). An unsorted index stays unsorted until it
/// is made anew; when this run rebuilds every document anyway (all were built by an older
/// builder), it is made anew, sorted, and filled from the rebuilt trees at no extra cost.
fn open_index(
    dir: &Path,
    catalog: &Catalog,
    outdated: Option<u32>,
    named: bool,
    notices: &mut Vec<String>,
) -> Result<SectionIndex, WorkspaceError> {
    let index = starting_index(dir, outdated.is_some(), catalog.documents.len(), notices)?;
    let rebuilt_whole = !named
        && outdated.is_none()
        && !index.sorted_by_doc_id()
        && !catalog.documents.is_empty()
        && catalog
            .documents
            .iter()
            .all(|row| !row.build_key.is_some_and(|k| k.is_current_builder()));
    if !rebuilt_whole {
        return Ok(index);
    }
    drop(index);
    notices.push(format!(
        "the search index of `{}` is made anew, sorted by document (faster searches \
         at scale; every document is rebuilt by this docnav anyway)",
        dir.display()
    ));
    starting_index(dir, true, 0, notices)
}

/// The catalog an index run starts from, read under the lock. A catalog of an older format is
/// read for its rows only (ids, sources), all of which must be rebuilt.
fn starting_catalog(dir: &Path) -> Result<(Catalog, Option<u32>), WorkspaceError> {
    match read_catalog(dir) {
        Ok(catalog) => Ok((catalog, None)),
        Err(WorkspaceError::Missing(_)) => Ok((Catalog::default(), None)),
        Err(WorkspaceError::Outdated { found, .. }) => {
            let documents = read_legacy_catalog(dir)
                .map(|(_, rows)| rows)
                .unwrap_or_default();
            // Tree files of another format are not read again: every row is rebuilt.
            let documents = documents
                .into_iter()
                .map(|mut e| {
                    e.build_key = None;
                    e
                })
                .collect();
            Ok((
                Catalog {
                    index_generation: 0,
                    documents,
                    aliases: Vec::new(),
                },
                Some(found),
            ))
        }
        Err(e) => Err(e),
    }
}

/// The section index an index run writes to: the workspace's, or a new one when it is missing,
/// damaged or belongs to an older format (with a notice saying so).
fn starting_index(
    dir: &Path,
    outdated: bool,
    documents: usize,
    notices: &mut Vec<String>,
) -> Result<SectionIndex, WorkspaceError> {
    let index_dir = dir.join("index");
    if !outdated {
        match SectionIndex::open(&index_dir) {
            Ok(index) => return Ok(index),
            Err(SectionIndexError::Schema { .. }) => notices.push(format!(
                "the search index of `{}` was made by another docnav version; rebuilding it \
                 from the tree files",
                dir.display()
            )),
            Err(e) if index_dir.join("meta.json").exists() => notices.push(format!(
                "the search index of `{}` is damaged ({e}); rebuilding it from the tree files",
                dir.display()
            )),
            Err(_) if documents > 0 => notices.push(format!(
                "the search index of `{}` is missing; rebuilding it from the tree files",
                dir.display()
            )),
            Err(_) => {}
        }
    }
    if index_dir.exists() {
        std::fs::remove_dir_all(&index_dir).map_err(|source| WorkspaceError::Io {
            path: index_dir.clone(),
            source,
        })?;
    }
    SectionIndex::create(&index_dir).map_err(|e| search_error(dir, e))
}
