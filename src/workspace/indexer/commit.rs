//! The end of an index run: the search index made to hold exactly the new catalog's
//! documents, then either nothing to commit, or the tree files synced, the index committed,
//! the changed rows written to the catalog (the run's commit point) and the index merged.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rustc_hash::FxHashSet;

use super::rows::Rows;
use super::{io, IndexOptions, IndexProgress, IndexReport, Laps};
use crate::durable::sync_filesystem;
use crate::index::sections::{Committed, Merged};
use crate::index::{SectionIndex, SectionIndexError, SectionWriter};
use crate::workspace::sync::search_error;
use crate::workspace::{
    catalog_v4_path, decode_tree_file, legacy_catalog_path, store, CatalogEntry, WorkspaceError,
};

/// Make the index hold exactly `rows`' documents. In step with the starting catalog
/// (`indexed` is `None`), it holds that catalog's rows: delete the removed ones (the rebuilt
/// ones were replaced). Otherwise (a rebuilt or interrupted index, `indexed` saying what it
/// holds), delete what it holds beyond these documents, and index documents kept as they were
/// whose entries are missing or from another build. Returns how many were indexed again.
///
/// Errors: a tree file to index again cannot be read or decoded, or the index refuses it.
pub(super) fn align_index(
    dir: &Path,
    docs_dir: &Path,
    index: &SectionIndex,
    writer: &SectionWriter,
    indexed: Option<&HashMap<String, String>>,
    rows: &Rows,
) -> Result<usize, WorkspaceError> {
    let Some(indexed) = indexed else {
        for doc_id in &rows.removed {
            writer.delete(doc_id);
        }
        return Ok(0);
    };
    let kept: HashSet<&str> = rows.documents.iter().map(|e| e.doc_id.as_str()).collect();
    for doc_id in indexed.keys() {
        if !kept.contains(doc_id.as_str()) {
            writer.delete(doc_id);
        }
    }
    let mut restored = 0usize;
    for entry in &rows.documents {
        if rows.built.contains_key(&entry.doc_id)
            || indexed.get(&entry.doc_id) == Some(&entry.tree_file)
        {
            continue;
        }
        let path = docs_dir.join(&entry.tree_file);
        let doc = std::fs::read(&path)
            .map_err(io(&path))
            .and_then(|bytes| decode_tree_file(&path, &bytes))?;
        writer
            .replace(index.entries(&doc.card, &doc.tree, &entry.tree_file))
            .map_err(|e| search_error(dir, e))?;
        restored += 1;
    }
    Ok(restored)
}

/// `true` when every document is as it was (nothing built, removed, re-stated, or aliased
/// anew): then neither the index nor the catalog is written, provided the index is in step.
pub(super) fn nothing_changed(rows: &Rows, changes: &store::CatalogChanges) -> bool {
    rows.built.is_empty()
        && rows.removed.is_empty()
        && changes.restat.is_empty()
        && changes.put_aliases.is_empty()
        && changes.remove_aliases.is_empty()
}

/// What the end of a run needs.
pub(super) struct Finish<'a> {
    pub(super) dir: &'a Path,
    pub(super) docs_dir: &'a Path,
    pub(super) options: &'a IndexOptions,
    pub(super) progress: &'a dyn IndexProgress,
    pub(super) laps: &'a Laps,
    /// The names in `docs/` when the run started, and the tree files the run discarded: those
    /// the new catalog does not name are deleted at the end.
    pub(super) tree_files: &'a FxHashSet<String>,
}

impl Finish<'_> {
    /// End a run with nothing to commit. An index left in many segments by a run interrupted
    /// in its final merge is merged by tantivy's log policy even so (eight similar segments;
    /// fewer cost nothing), or into one when the merge is asked for.
    pub(super) fn without_commit(
        &self,
        writer: SectionWriter,
        documents: &[CatalogEntry],
        report: &mut IndexReport,
    ) {
        if self.options.merge {
            self.progress.phase("merging the search index");
        }
        let merge = writer.finish_without_commit(self.options.merge);
        record_merge(report, merge, self.options.merge, self.dir);
        remove_unreferenced(self.docs_dir, self.tree_files, documents);
    }

    /// Commit the run: the new tree files made durable (one sync of the filesystem, before the
    /// index and the catalog name them), the index committed as the generation after
    /// `catalog_generation` and the index's own, then only the rows this run changed written
    /// to the catalog (`changes.replace_all`: an older format's catalog, replaced whole), then
    /// merged.
    ///
    /// Errors: the sync, the index commit or the catalog write fails (the workspace stays as it
    /// was before the run, or is repaired on its next open when only the index committed).
    pub(super) fn commit(
        &self,
        writer: SectionWriter,
        index: &SectionIndex,
        catalog_generation: u64,
        rows: Rows,
        mut changes: store::CatalogChanges,
        report: &mut IndexReport,
    ) -> Result<(), WorkspaceError> {
        let dir = self.dir;
        sync_filesystem(self.docs_dir).map_err(io(self.docs_dir))?;
        self.laps.lap("synced");
        crash_point("before-index-commit");
        let generation = catalog_generation.max(index.generation().ok().flatten().unwrap_or(0)) + 1;
        let committed = writer
            .commit(generation)
            .map_err(|e| search_error(dir, e))?;
        crash_point("after-index-commit");
        self.laps.lap("index committed");
        let Rows {
            documents,
            removed,
            mut built,
            ..
        } = rows;
        changes.index_generation = generation;
        changes.remove = removed;
        for entry in &documents {
            if let Some(card) = built.remove(&entry.doc_id) {
                changes.upsert.push((entry.clone(), card));
            }
        }
        store::write(dir, &changes)?;
        crash_point("after-catalog");
        self.laps.lap("catalog written");
        self.merge(committed, report);
        self.laps.lap("index merged");
        // An older workspace's catalog, now superseded.
        let _ = std::fs::remove_file(catalog_v4_path(dir));
        let _ = std::fs::remove_file(legacy_catalog_path(dir));
        remove_unreferenced(self.docs_dir, self.tree_files, &documents);
        Ok(())
    }

    /// Merge after the catalog names the commit: the run is whole already, and a failed merge
    /// only leaves the index in more segments (see `index::sections::merge`).
    fn merge(&self, committed: Committed, report: &mut IndexReport) {
        let plan = match self.options.merge {
            true => committed.full_merge(),
            false => committed.bulk_merge(),
        };
        let merge = plan.and_then(|plan| {
            if let Some(plan) = &plan {
                self.progress.phase(&format!(
                    "merging the search index ({} segments, {} entries)",
                    plan.segments(),
                    plan.entries
                ));
            }
            committed.finish(plan.as_ref())
        });
        record_merge(report, merge, self.options.merge, self.dir);
    }
}

/// Puts the outcome of a run's merge in `report`: a failure is a warning, or an error when the
/// merge was asked for (`requested`, [`IndexOptions::merge`]).
fn record_merge(
    report: &mut IndexReport,
    merge: Result<Option<Merged>, SectionIndexError>,
    requested: bool,
    dir: &Path,
) {
    match merge {
        Ok(merged) => report.merged = merged,
        Err(e) if requested => {
            report.errors.push(not_merged(dir, &e));
            report.merge_failed = true;
        }
        Err(e) => report.warnings.push(not_merged(dir, &e)),
    }
}

fn not_merged(dir: &Path, e: &SectionIndexError) -> String {
    format!(
        "the search index of `{}` was not merged ({e}); its searches are right, and slower in \
         many segments until a later run merges them",
        dir.display()
    )
}

/// Fault injection for the crash-safety tests (`tests/suite/search_index.rs`), compiled in
/// only with the `crash-points` feature, which the crate's own dev-dependency on itself turns
/// on for `cargo test`: when `DOCNAV_TEST_CRASH_AT` names this point (`before-index-commit`,
/// `after-index-commit`, `after-catalog`), the process dies on the spot (`abort`: no
/// destructor, no flush, no lock release but the OS's), as a SIGKILL there would.
#[cfg(feature = "crash-points")]
fn crash_point(point: &str) {
    if std::env::var_os("DOCNAV_TEST_CRASH_AT").is_some_and(|v| v == point) {
        std::process::abort();
    }
}

/// Without the `crash-points` feature (every build but the tests'), nothing.
#[cfg(not(feature = "crash-points"))]
fn crash_point(_point: &str) {}

/// Delete the files of `docs_dir` listed when the run started (`listed`: older trees, stray temp
/// files of an interrupted run) that the committed catalog does not name. Best effort; the files
/// this run wrote are all named (a temp file of a write that failed is left for the next run).
fn remove_unreferenced(docs_dir: &Path, listed: &FxHashSet<String>, documents: &[CatalogEntry]) {
    let keep: FxHashSet<&str> = documents.iter().map(|e| e.tree_file.as_str()).collect();
    for name in listed {
        if !keep.contains(name.as_str()) {
            let _ = std::fs::remove_file(docs_dir.join(name));
        }
    }
}
