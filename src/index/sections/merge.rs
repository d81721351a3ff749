//! Merging segments after a run: into one after a bulk run, by tantivy's log merge policy
//! after any other.
//!
//! A writer merges nothing while a run indexes ([`NoMergePolicy`]); its segments are merged
//! when the run is committed ([`Committed::finish`]). tantivy's default policy (logarithmic
//! levels of eight, merging in the background as segments are flushed) leaves a large index
//! run in many segments, and a search pays for each: every segment is opened, and its
//! block-max WAND walk has its own top-k threshold to raise before it can skip, so tied
//! sections are scored again in each (the benchmark history, docs/src/benchmarks-history.md,
//! "One segment after a bulk run").
//! A merge rewrites every entry, at about a fifth of the cost of indexing it, so the whole
//! index is merged only after a run that itself wrote at least 1/[`BULK_RUN_DENOMINATOR`] of
//! it: a first index, a rebuild, a large batch. Such a run pays for no background merges
//! either (they would merge each entry about twice on the way, on the cores that are
//! indexing). A smaller run (a changed file, `--watch`) gets the log policy's merges at its
//! end.

use std::time::{Duration, Instant};

use tantivy::index::{SegmentId, SegmentMeta};
use tantivy::indexer::{LogMergePolicy, MergePolicy, NoMergePolicy};
use tantivy::IndexWriter;

use super::stream::Entry;

use super::SectionIndexError;

/// A run that wrote at least 1/`BULK_RUN_DENOMINATOR` of the index's live entries (counted
/// after it) merges the index into one segment.
pub const BULK_RUN_DENOMINATOR: u64 = 4;

/// `true` when a run that added `entries_added` entries to an index now holding
/// `index_entries` live entries in `segments` segments merges them into one.
pub fn worth_merging(entries_added: u64, index_entries: u64, segments: usize) -> bool {
    segments > 1 && entries_added.saturating_mul(BULK_RUN_DENOMINATOR) >= index_entries
}

/// The merge policy of a writer while it indexes: none (see the module documentation).
pub(super) fn while_indexing() -> Box<dyn MergePolicy> {
    Box::new(NoMergePolicy)
}

/// A committed run's writer, which still holds the index's writer lock, and what it wrote.
/// [`Committed::finish`] merges; dropping it merges nothing (the next run's end will).
pub struct Committed {
    writer: IndexWriter<Entry>,
    place: String,
    /// Entries (sections and DocCards) the run added, replaced ones included.
    pub entries_added: u64,
}

/// The merge of every segment of the last commit into one ([`Committed::bulk_merge`]).
#[derive(Debug, Clone)]
pub struct MergePlan {
    ids: Vec<SegmentId>,
    /// Live entries in those segments.
    pub entries: u64,
}

impl MergePlan {
    /// Segments to merge into one.
    pub fn segments(&self) -> usize {
        self.ids.len()
    }
}

/// What [`Committed::finish`] merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    /// Segments before the merges.
    pub segments_before: usize,
    /// Segments after them.
    pub segments_after: usize,
    /// Wall time of the merges.
    pub elapsed: Duration,
}

impl Committed {
    pub(super) fn new(writer: IndexWriter<Entry>, place: String, added: u64) -> Self {
        Committed {
            writer,
            place,
            entries_added: added,
        }
    }

    fn error(&self, source: tantivy::TantivyError) -> SectionIndexError {
        SectionIndexError::Tantivy {
            place: self.place.clone(),
            source,
        }
    }

    fn segments(&self) -> Result<Vec<SegmentMeta>, SectionIndexError> {
        self.writer
            .index()
            .searchable_segment_metas()
            .map_err(|e| self.error(e))
    }

    /// The merge into one segment when this run was a bulk run ([`worth_merging`]);
    /// `Ok(None)` otherwise (or over one segment).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when `meta.json` cannot be read.
    pub fn bulk_merge(&self) -> Result<Option<MergePlan>, SectionIndexError> {
        self.merge_of_all_when(|metas, entries| {
            worth_merging(self.entries_added, entries, metas.len())
        })
    }

    /// The merge of the whole index into one segment, whatever this run wrote (`docnav index
    /// --merge`): `Ok(None)` when the index is one segment already and holds no deleted entries
    /// (a merge of one segment drops its deleted entries, which every search otherwise skips).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when `meta.json` cannot be read.
    pub fn full_merge(&self) -> Result<Option<MergePlan>, SectionIndexError> {
        self.merge_of_all_when(|metas, _| {
            metas.len() > 1 || metas.iter().any(SegmentMeta::has_deletes)
        })
    }

    /// The merge of every segment into one when `wanted(segments, live entries)` says so.
    fn merge_of_all_when(
        &self,
        wanted: impl FnOnce(&[SegmentMeta], u64) -> bool,
    ) -> Result<Option<MergePlan>, SectionIndexError> {
        let metas = self.segments()?;
        let entries: u64 = metas.iter().map(|m| u64::from(m.num_docs())).sum();
        Ok(wanted(&metas, entries).then(|| MergePlan {
            ids: metas.iter().map(|m| m.id()).collect(),
            entries,
        }))
    }

    /// Merge, then release the writer: `bulk` ([`Committed::bulk_merge`]) when given, else the
    /// merges tantivy's [`LogMergePolicy`] picks (levels of eight similar segments), repeated
    /// until it picks none. Call it after the catalog names the commit: a merge keeps the
    /// commit's generation, and readers see the index before or after it, the same entries
    /// either way. A merge that fails leaves the index as committed. Returns `Ok(None)` when
    /// nothing was merged.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when `meta.json` cannot be read, a segment of the
    /// plan is no longer in the index, or a merge fails (disk full, I/O).
    pub fn finish(self, bulk: Option<&MergePlan>) -> Result<Option<Merged>, SectionIndexError> {
        self.finish_merging(bulk, false)
    }

    /// [`Committed::finish`], then delete the index files no commit names (tantivy does so
    /// after each commit and merge; a run that committed nothing calls this instead).
    pub(super) fn finish_tidying(
        self,
        bulk: Option<&MergePlan>,
    ) -> Result<Option<Merged>, SectionIndexError> {
        self.finish_merging(bulk, true)
    }

    fn finish_merging(
        mut self,
        bulk: Option<&MergePlan>,
        tidy: bool,
    ) -> Result<Option<Merged>, SectionIndexError> {
        let started = Instant::now();
        let segments_before = self.segments()?.len();
        let mut merges = 0;
        match bulk {
            Some(plan) => {
                self.writer
                    .merge(&plan.ids)
                    .wait()
                    .map_err(|e| self.error(e))?;
                merges += 1;
            }
            None => loop {
                let candidates =
                    LogMergePolicy::default().compute_merge_candidates(&self.segments()?);
                if candidates.is_empty() {
                    break;
                }
                for candidate in candidates {
                    self.writer
                        .merge(&candidate.0)
                        .wait()
                        .map_err(|e| self.error(e))?;
                    merges += 1;
                }
            },
        }
        let segments_after = self.segments()?.len();
        if tidy && merges == 0 {
            self.writer
                .garbage_collect_files()
                .wait()
                .map_err(|e| self.error(e))?;
        }
        let place = self.place.clone();
        self.writer
            .wait_merging_threads()
            .map_err(|source| SectionIndexError::Tantivy { place, source })?;
        Ok((merges > 0).then(|| Merged {
            segments_before,
            segments_after,
            elapsed: started.elapsed(),
        }))
    }
}
