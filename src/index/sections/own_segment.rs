//! A large document's entries indexed into a segment of their own, without tantivy's sort.
//!
//! A new index sorts each segment's entries by `doc_id` when it writes the segment (tantivy's
//! index sorting, see `new_index_settings`): the postings, the fast fields and the whole doc
//! store are rewritten in the sorted order. A segment that holds one document only is sorted
//! already (one id; reading order is the order its entries are added in), and tantivy 0.27
//! rewrites it all the same (the identity mapping is not detected; the store goes through a
//! temporary copy). For 100,000 sibling sections that rewrite was 14% of the whole index run
//! (`bench/paired -n 21`, 2026-12-01).
//!
//! So a streamed document ([`super::SectionWriter::stream_entries`]) is indexed here instead of
//! on one of the writer's indexing threads: a thread of its own feeds its entries, in reading
//! order, to a tantivy [`SegmentWriter`] over a segment whose index handle has no sort setting
//! (the same directory, schema and tokenizers), and the finished segment joins the writer's
//! uncommitted segments at the commit ([`IndexWriter::add_segment`]). The index keeps its sort
//! setting: a merge still merges segments by `doc_id`, and this one is in that order already.
//! `add_segment` is public but left out of tantivy's documentation: a tantivy upgrade must keep
//! it (the tests of both paths in `sections/tests.rs` fail without it).
//!
//! Only in a run of one document ([`OwnSegments::plan`]): there the document's segment is the
//! run's only one either way. In a run of several, an own segment is one more segment beside
//! those of the writer's indexing threads, and a run that leaves more than one merges them all
//! at its end, rewriting every entry: the 27 corpus Markdown files indexed on one thread went
//! from 0.17 to 0.21 s when their one large document had a segment of its own, and a folder of
//! thousands of large documents would leave thousands of segments to merge.
//!
//! Deletes: an added segment has no per-entry operation stamps, so tantivy applies to it every
//! delete still in its queue when it is added — also one issued before the segment existed. A
//! document therefore gets a segment of its own only if nothing of its id needs deleting: the
//! index held no entry of it when the writer was made, and the writer has deleted nothing of
//! it ([`OwnSegments::available`]). A delete of its id while its segment is pending (the
//! document failed after all, or turned out to be a duplicate) drops the segment
//! ([`OwnSegments::discard`]), as the delete would have.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use tantivy::indexer::{AddOperation, SegmentWriter};
use tantivy::{IndexWriter, SegmentMeta, TantivyError};

use super::stream::{Entry, EntryStream};
use super::WRITER_MEMORY_BYTES;

/// A document's segment being indexed on its own thread.
struct Pending {
    doc_id: String,
    /// Its thread: the segment's meta once the segment's files are written.
    indexing: JoinHandle<tantivy::Result<SegmentMeta>>,
    /// Its id was deleted since: the segment is dropped at the commit.
    discarded: bool,
}

/// The documents of one writer being indexed into segments of their own.
#[derive(Default)]
pub(super) struct OwnSegments {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// How many documents the run plans to write, once told ([`OwnSegments::plan`]); only a
    /// run of one may give its document a segment of its own.
    planned: Option<usize>,
    pending: Vec<Pending>,
    /// Every id the writer deleted, while a segment of its own may still come of it (not
    /// kept for a run planned with several documents: a 100,000-document re-index deletes
    /// every id it replaces).
    deleted: HashSet<String>,
}

impl OwnSegments {
    /// The run hands the writer at most `documents` documents.
    pub(super) fn plan(&self, documents: usize) {
        self.lock().planned = Some(documents);
    }

    /// Whether `doc_id` can have a segment of its own: the run writes this one document, and
    /// the writer deleted nothing of its id.
    pub(super) fn available(&self, doc_id: &str) -> bool {
        let state = self.lock();
        state.planned == Some(1) && state.pending.is_empty() && !state.deleted.contains(doc_id)
    }

    /// Start indexing the `count` entries of `stream` (places filled by the document's
    /// builder) into a new segment of `writer`'s index, on a new thread. Only for an id
    /// [`OwnSegments::available`].
    ///
    /// Errors: [`TantivyError::SystemError`] when the thread cannot be started.
    pub(super) fn start(
        &self,
        writer: &IndexWriter<Entry>,
        doc_id: &str,
        stream: Arc<EntryStream>,
        count: usize,
    ) -> tantivy::Result<()> {
        let mut unsorted = writer.index().clone();
        unsorted.settings_mut().sort_by_field = None;
        let segment = unsorted.new_segment();
        let indexing = std::thread::Builder::new()
            .name("docnav-segment".into())
            .spawn(move || {
                let mut segment_writer =
                    SegmentWriter::for_segment(WRITER_MEMORY_BYTES, segment.clone())?;
                for slot in 0..count {
                    segment_writer.add_document(AddOperation {
                        opstamp: 0,
                        document: Entry::streamed(&stream, slot),
                    })?;
                }
                // The builder stops waiting on this thread once the stream is its alone.
                drop(stream);
                let max_doc = segment_writer.max_doc();
                segment_writer.finalize()?;
                let meta = segment.with_max_doc(max_doc).meta().clone();
                meta.untrack_temp_docstore();
                Ok(meta)
            })
            .map_err(|e| TantivyError::SystemError(format!("cannot start a thread: {e}")))?;
        self.lock().pending.push(Pending {
            doc_id: doc_id.to_string(),
            indexing,
            discarded: false,
        });
        Ok(())
    }

    /// The document `doc_id` is deleted: its pending segment, if any, is dropped.
    pub(super) fn discard(&self, doc_id: &str) {
        let mut state = self.lock();
        for pending in &mut state.pending {
            if pending.doc_id == doc_id {
                pending.discarded = true;
            }
        }
        if state.planned.is_none_or(|documents| documents == 1) {
            state.deleted.insert(doc_id.to_string());
        }
    }

    /// Wait for every pending segment and add those not discarded to `writer`'s uncommitted
    /// segments. Call it before the commit, once every builder has finished or dropped its
    /// stream (a thread waits for the entries of its stream).
    ///
    /// Errors: tantivy's, when a segment could not be written (the commit must not happen);
    /// [`TantivyError::SystemError`] when an indexing thread panicked.
    pub(super) fn add_to(&self, writer: &IndexWriter<Entry>) -> tantivy::Result<()> {
        let pending = std::mem::take(&mut self.lock().pending);
        let mut first_error = None;
        for Pending {
            indexing,
            discarded,
            ..
        } in pending
        {
            let meta = indexing.join().unwrap_or_else(|_| {
                Err(TantivyError::SystemError(
                    "a segment's indexing thread panicked".into(),
                ))
            });
            match meta {
                Ok(_) if discarded => {}
                Ok(meta) if first_error.is_none() => {
                    if let Err(e) = writer.add_segment(meta) {
                        first_error = Some(e);
                    }
                }
                Ok(_) => {}
                Err(_) if discarded => {}
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for OwnSegments {
    /// A writer dropped without committing waits for its segments' threads (their streams are
    /// complete by then: a builder's feed borrows the writer), so no file is still being
    /// written once it is gone; the segments, in no commit, are left to tantivy's garbage
    /// collection.
    fn drop(&mut self) {
        for pending in std::mem::take(&mut self.lock().pending) {
            let _ = pending.indexing.join();
        }
    }
}
