//! Writing the section index: the entries of a document, replaced as one batch, and commits
//! that record a generation number (the workspace catalog records the same number, see
//! [`crate::workspace`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tantivy::indexer::UserOperation;
use tantivy::{DocSet, IndexWriter, TantivyDocument, Term, TERMINATED};

use super::merge::{Committed, Merged};
use super::own_segment::OwnSegments;
use super::record::{CardRecord, SectionRecord};
use super::stream::{Entry, EntryFeed, EntryStream};
use super::{Fields, SectionIndex, SectionIndexError, KIND_CARD, TITLE_WEIGHT};
use crate::index::analyzer::{TermListTokenizer, TERM_LIST_TOKENIZER_NAME};
use crate::index::backlog::Backlog;
use crate::index::node_terms::TERM_SEPARATOR;
use crate::index::{DocCard, NodeTerms};
use crate::tree::{NodeId, Tree};

/// Memory budget of one index writer thread, in bytes (tantivy flushes a segment when its
/// thread's budget is used; more memory means fewer, larger segments).
pub const WRITER_MEMORY_BYTES: usize = 48 << 20;

/// Bytes of term lists (the `text` field) handed to tantivy and not yet taken by its indexing
/// threads above which a writer waits ([`Backlog`]); queued entries hold about twice this (the
/// stored record besides the terms).
pub const BACKLOG_BYTES: usize = 16 << 20;

/// Entries (sections and card) from which a document built on a compute thread is worth
/// handing to tantivy while its entries are built ([`SectionWriter::stream_entries`]):
/// below it, building them first costs little, and the indexing thread never waits on a
/// builder.
pub const STREAM_MIN_ENTRIES: usize = 2048;

/// An index writer (holds tantivy's writer lock on the index directory until committed or
/// dropped). Safe to share between threads: adds and deletes take `&self`.
pub struct SectionWriter {
    writer: IndexWriter<Entry>,
    backlog: Arc<Backlog>,
    fields: Fields,
    place: String,
    /// Entries handed to [`SectionWriter::replace`] so far.
    entries_added: AtomicU64,
    /// Streamed documents being indexed into segments of their own.
    own_segments: OwnSegments,
    /// The index as the writer found it (its reader's last commit): which ids it holds.
    found: tantivy::Searcher,
}

/// The tantivy entries of one document, built off the writer thread.
pub struct DocumentEntries {
    doc_id: String,
    entries: Vec<TantivyDocument>,
    /// Bytes of the entries' `text` values, for the [`Backlog`].
    text_bytes: usize,
}

/// A document whose section entries are handed to tantivy, waiting for its card entry
/// ([`SectionWriter::stream_entries`]). Dropped unfinished, it deletes the document's entries.
pub struct StreamedEntries<'w> {
    writer: &'w SectionWriter,
    doc_id: String,
    /// `None` once finished.
    feed: Option<EntryFeed>,
    /// Indexed into a segment of its own (see `own_segment`).
    own_segment: bool,
}

impl StreamedEntries<'_> {
    /// Whether the entries go to a segment of their own.
    #[cfg(test)]
    pub(crate) fn in_own_segment(&self) -> bool {
        self.own_segment
    }

    /// Add the card entry, recording `identity` (as [`SectionIndex::entries`] does): the
    /// document's entries are all handed over.
    pub fn finish(mut self, card: &DocCard, identity: &str) {
        if let Some(mut feed) = self.feed.take() {
            let _ = feed.push(card_entry(self.writer.fields, card, identity));
            debug_assert_eq!(feed.remaining(), 0);
        }
    }
}

impl Drop for StreamedEntries<'_> {
    fn drop(&mut self) {
        if let Some(feed) = self.feed.take() {
            // Fills the places left, so the indexing thread goes on, then deletes them all
            // (its own segment: drops it; the index held nothing else of the id).
            drop(feed);
            match self.own_segment {
                true => self.writer.own_segments.discard(&self.doc_id),
                false => self.writer.delete(&self.doc_id),
            }
        }
    }
}

#[cfg(test)]
impl DocumentEntries {
    /// These entries as workspace format 8 wrote them: every section entry also carries `kind` =
    /// `section`, and every one but the root's the root as an ancestor.
    pub(crate) fn into_format_8_entries(mut self, f: Fields) -> DocumentEntries {
        use tantivy::schema::Value as _;
        for doc in &mut self.entries {
            let record = doc
                .get_first(f.record)
                .and_then(|v| v.as_str())
                .and_then(SectionRecord::decode);
            let Some(record) = record else {
                continue; // a card
            };
            doc.add_text(f.kind, super::KIND_SECTION);
            if let Some(&root) = record.ancestors.first() {
                doc.add_u64(f.ancestor, u64::from(root));
            }
        }
        self
    }

    /// These entries as builder 12 wrote them: section records without their document's id and
    /// child count, DocCard entries without a record.
    pub(crate) fn into_builder_12_entries(mut self, f: Fields) -> DocumentEntries {
        use tantivy::schema::Value as _;
        for doc in &mut self.entries {
            let mut old = TantivyDocument::new();
            for (field, value) in doc.field_values() {
                if field != f.record {
                    old.add_field_value(field, value);
                } else if let Some(mut record) = value.as_str().and_then(SectionRecord::decode) {
                    (record.doc_id, record.children) = (None, None);
                    old.add_text(field, record.encode());
                }
            }
            *doc = old;
        }
        self
    }
}

impl SectionIndex {
    /// A writer with `threads` indexing threads (≥ 1).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when another writer holds the index (tantivy's
    /// lock file) or the directory cannot be written.
    pub fn writer(&self, threads: usize) -> Result<SectionWriter, SectionIndexError> {
        let threads = threads.max(1);
        // The indexing threads look their tokenizers up when they start a segment: from now
        // on they report to this writer's backlog (one writer at a time holds the index).
        let backlog = Arc::new(Backlog::default());
        self.index.tokenizers().register(
            TERM_LIST_TOKENIZER_NAME,
            TermListTokenizer::releasing(Arc::clone(&backlog)),
        );
        let writer: IndexWriter<Entry> = self
            .index
            .writer_with_num_threads(threads, WRITER_MEMORY_BYTES * threads)
            .map_err(|e| self.error(e))?;
        writer.set_merge_policy(super::merge::while_indexing());
        Ok(SectionWriter {
            writer,
            backlog,
            fields: self.fields,
            place: self.place.clone(),
            entries_added: AtomicU64::new(0),
            own_segments: OwnSegments::default(),
            found: self.reader.searcher(),
        })
    }

    /// `doc_id → build identity` (the `identity` given to [`SectionIndex::entries`]: the
    /// workspace passes the tree file name) of every document with a card entry in the commit
    /// the reader sees — what the index holds, to compare with a catalog.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when a segment cannot be read.
    pub fn documents(&self) -> Result<HashMap<String, String>, SectionIndexError> {
        let searcher = self.reader.searcher();
        let term = Term::from_field_text(self.fields.kind, KIND_CARD);
        let mut out = HashMap::new();
        for segment in searcher.segment_readers() {
            let postings = segment
                .inverted_index(self.fields.kind)
                .and_then(|inv| {
                    inv.read_postings(&term, tantivy::schema::IndexRecordOption::Basic)
                        .map_err(Into::into)
                })
                .map_err(|e| self.error(e))?;
            let Some(mut postings) = postings else {
                continue;
            };
            let fast = segment.fast_fields();
            let ids = fast.str("doc_id").map_err(|e| self.error(e))?;
            let prints = fast.str("identity").map_err(|e| self.error(e))?;
            let (Some(ids), Some(prints)) = (ids, prints) else {
                continue;
            };
            let mut id = String::new();
            let mut print = String::new();
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if !segment.is_deleted(doc) {
                    let read = |col: &tantivy::columnar::StrColumn, out: &mut String| {
                        out.clear();
                        if let Some(ord) = col.term_ords(doc).next() {
                            let _ = col.ord_to_str(ord, out);
                        }
                    };
                    read(&ids, &mut id);
                    read(&prints, &mut print);
                    out.insert(id.clone(), print.clone());
                }
                doc = postings.advance();
            }
        }
        Ok(out)
    }

    /// The entries of a document: one per node with a title or content (in reading order), and
    /// its card, which records `identity` (what built this tree; [`SectionIndex::documents`]
    /// reads it back). Pure; call it on any thread, then hand the result to
    /// [`SectionWriter::replace`].
    pub fn entries(&self, card: &DocCard, tree: &Tree, identity: &str) -> DocumentEntries {
        entries(self.fields, card, tree, &NodeTerms::of(tree), identity)
    }

    /// [`SectionIndex::entries`] of a tree already tokenized (`terms` = [`NodeTerms::of`]
    /// `tree`, as [`DocCard::with_terms`] used): no second tokenizer pass.
    pub fn entries_with_terms(
        &self,
        card: &DocCard,
        tree: &Tree,
        terms: &NodeTerms,
        identity: &str,
    ) -> DocumentEntries {
        entries(self.fields, card, tree, terms, identity)
    }
}

fn entries(
    f: Fields,
    card: &DocCard,
    tree: &Tree,
    terms: &NodeTerms,
    identity: &str,
) -> DocumentEntries {
    let nodes = indexed_nodes(tree);
    let mut entries = Vec::with_capacity(nodes.len() + 1);
    let mut text_bytes = 0;
    section_entries(f, &card.doc_id, tree, terms, &nodes, |doc, text| {
        text_bytes += text;
        entries.push(doc);
    });
    entries.push(card_entry(f, card, identity));
    DocumentEntries {
        doc_id: card.doc_id.clone(),
        entries,
        text_bytes,
    }
}

/// The nodes of `tree` that get an entry, with their rank in reading order: those with a title
/// or content.
fn indexed_nodes(tree: &Tree) -> Vec<(Option<u32>, NodeId)> {
    if tree.is_empty() {
        return Vec::new();
    }
    tree.preorder(NodeId::ROOT)
        .into_iter()
        .enumerate()
        .filter(|(_, id)| {
            let node = tree.node(*id);
            !(node.title.trim().is_empty() && node.content.trim().is_empty())
        })
        .map(|(rank, id)| (u32::try_from(rank).ok(), id))
        .collect()
}

/// The section entry of each of `nodes` (from [`indexed_nodes`]), in order, handed to `emit`
/// with the bytes of its `text` value.
fn section_entries(
    f: Fields,
    doc_id: &str,
    tree: &Tree,
    terms: &NodeTerms,
    nodes: &[(Option<u32>, NodeId)],
    mut emit: impl FnMut(TantivyDocument, usize),
) {
    for &(rank, id) in nodes {
        let node = tree.node(id);
        // Node id and rank go in the record only: the `node` and `rank` columns are read for
        // entries whose record lacks them (older indexes).
        let text = weighted_terms(terms, id.index());
        let text_len = text.len();
        let mut ancestors = tree.ancestors_and_self(id);
        ancestors.pop();
        // The root is every entry's ancestor: a search below it is a search of the document
        // (`doc_id`), so no entry carries its posting.
        let indexed_ancestors = ancestors.get(1..).unwrap_or_default();
        let record = SectionRecord {
            structure: node.structure.clone(),
            title: node.title.clone(),
            ancestors: ancestors.iter().map(|a| a.0).collect(),
            // A Word document's `lines` are paragraph numbers, which a hit would show as
            // lines: its hits carry no location instead.
            lines: (tree.format != crate::tree::DocFormat::Docx)
                .then(|| node.lines.clone().map(|r| [r.start, r.end]))
                .flatten(),
            pages: node.pages.clone().map(|r| [r.start, r.end]),
            node: Some(id.0),
            rank,
            doc_id: Some(doc_id.to_string()),
            children: u32::try_from(node.children.len()).ok(),
        }
        .encode();
        // No `kind`: a section is told from a card by the card's `kind` posting (see the
        // module's notes on the fields).
        let mut doc = TantivyDocument::with_capacity(entry_bytes(
            [doc_id, &text, &record],
            indexed_ancestors.len(),
        ));
        doc.add_text(f.doc_id, doc_id);
        doc.add_text(f.text, text);
        for a in indexed_ancestors {
            doc.add_u64(f.ancestor, u64::from(a.0));
        }
        doc.add_text(f.record, record);
        emit(doc, text_len);
    }
}

/// The card entry of a document, recording `identity`.
fn card_entry(f: Fields, card: &DocCard, identity: &str) -> TantivyDocument {
    let mut doc = TantivyDocument::new();
    doc.add_text(f.kind, KIND_CARD);
    doc.add_text(f.doc_id, &card.doc_id);
    doc.add_text(f.identity, identity);
    doc.add_text(f.card, card_text(card));
    let record = CardRecord {
        doc_id: Some(card.doc_id.clone()),
    };
    doc.add_text(f.record, record.encode());
    doc
}

/// Bytes a tantivy document needs for these text values and `numbers` u64 values: each value's
/// bytes plus a few of framing (a type and length header; a u64 takes up to 9).
/// `TantivyDocument::new` reserves 1 KiB per document whatever it holds, which for a document of
/// 100,000 small sections is 100 MB allocated, zeroed by the kernel and queued for the indexing
/// thread.
fn entry_bytes<const N: usize>(texts: [&str; N], numbers: usize) -> usize {
    texts.iter().map(|t| t.len() + 6).sum::<usize>() + numbers * 10
}

/// The `text` value of node `index`: its content terms, then its title terms
/// [`TITLE_WEIGHT`] times ([`TERM_SEPARATOR`]-joined).
fn weighted_terms(terms: &NodeTerms, index: usize) -> String {
    let (title, content) = (terms.title(index), terms.content(index));
    let mut out = String::with_capacity(content.len() + TITLE_WEIGHT * (title.len() + 1));
    out.push_str(content);
    if !title.is_empty() {
        for _ in 0..TITLE_WEIGHT {
            if !out.is_empty() {
                out.push(TERM_SEPARATOR);
            }
            out.push_str(title);
        }
    }
    out
}

/// What the card pre-rank matches: id, title, summary, names, outline and top terms.
pub(super) fn card_text(card: &DocCard) -> String {
    let mut s = String::with_capacity(512);
    for part in [
        card.doc_id.as_str(),
        card.title.as_str(),
        card.summary.as_str(),
    ] {
        s.push_str(part);
        s.push('\n');
    }
    for line in card
        .names
        .iter()
        .chain(&card.outline)
        .chain(&card.top_terms)
    {
        s.push_str(line);
        s.push('\n');
    }
    s
}

impl SectionWriter {
    /// Replace every entry of `entries`' document by these: delete by `doc_id`, then add the
    /// entries as one batch (one [`IndexWriter::run`]), which one indexing thread takes whole.
    /// A document's entries thus sit in one segment in reading order, as searches assume
    /// (tantivy's sort by `doc_id` is stable within a segment; a merge of segments sorted by a
    /// text field interleaves equal ids), and a run of one large document leaves one segment
    /// instead of one per thread that a shuffling merge must then rewrite entry by entry.
    /// Readers see all of it or none after the next commit. Before the batch it waits while more
    /// than 16 MiB (`BACKLOG_BYTES`) of term lists are queued for the indexing threads: tantivy's
    /// own queue is bounded in batches, not bytes, so without this bound whole documents queued
    /// behind a busy indexing thread would hold memory in proportion to the run, not the bound.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the writer has failed (its threads died).
    pub fn replace(&self, entries: DocumentEntries) -> Result<(), SectionIndexError> {
        let DocumentEntries {
            doc_id,
            entries,
            text_bytes,
        } = entries;
        self.delete(&doc_id);
        self.entries_added
            .fetch_add(entries.len() as u64, Ordering::Relaxed);
        let batch: Vec<_> = entries
            .into_iter()
            .map(|doc| UserOperation::Add(Entry::Built(doc)))
            .collect();
        self.backlog.reserve(text_bytes, BACKLOG_BYTES);
        self.run(batch)
    }

    /// Hand `batch` to tantivy as one batch (one indexing thread takes it whole).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the writer has failed (its threads died).
    fn run(&self, batch: Vec<UserOperation<Entry>>) -> Result<(), SectionIndexError> {
        self.writer
            .run(batch)
            .map_err(|source| SectionIndexError::Tantivy {
                place: self.place.clone(),
                source,
            })?;
        Ok(())
    }

    /// [`SectionWriter::replace`] for a document being built on this thread, begun as soon as
    /// its tree and terms exist: an indexing thread takes the document's entries
    /// ([`SectionIndex::entries_with_terms`]'s, in the same order) while they are built here
    /// and handed over in reading order; [`StreamedEntries::finish`] adds the card entry once
    /// the card is made. Returns `None` (nothing handed over) for a tree of fewer than
    /// [`STREAM_MIN_ENTRIES`] entries: build them and call [`SectionWriter::replace`].
    ///
    /// Which thread: in a run of one document ([`SectionWriter::plan_documents`]) whose id the
    /// index holds no entry of and this writer has not deleted, a thread of its own that
    /// writes the document into a segment of its own, which is in `doc_id` order already and
    /// so skips tantivy's sort (see `own_segment`); it joins the index at
    /// [`SectionWriter::commit`]. Otherwise the entries are deleted by `doc_id` and handed to
    /// tantivy as one batch of places, one [`IndexWriter::run`] as in [`SectionWriter::replace`]
    /// (one segment, reading order); only the building overlaps the indexing.
    ///
    /// If the document cannot be kept after all (its tree file cannot be written),
    /// [`SectionWriter::delete`] its id, which also removes any entries it had before (and
    /// drops its own segment), so call this only for a document the index holds nothing of
    /// that must be kept. An indexing thread waits for the card entry: finish (or drop) the
    /// result on this thread without waiting on anything in between.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index's term dictionary cannot be read,
    /// a thread cannot be started, or the writer has failed (its threads died).
    pub fn stream_entries(
        &self,
        doc_id: &str,
        tree: &Tree,
        terms: &NodeTerms,
    ) -> Result<Option<StreamedEntries<'_>>, SectionIndexError> {
        let f = self.fields;
        let nodes = indexed_nodes(tree);
        let count = nodes.len() + 1;
        if count < STREAM_MIN_ENTRIES {
            return Ok(None);
        }
        let tantivy = |source| SectionIndexError::Tantivy {
            place: self.place.clone(),
            source,
        };
        let own_segment = self.own_segments.available(doc_id) && {
            // Entries of the id, deleted ones included (they are merged away some day anyway).
            let term = Term::from_field_text(f.doc_id, doc_id);
            self.found.doc_freq(&term).map_err(tantivy)? == 0
        };
        let (stream, mut feed) = EntryStream::new(count);
        let mut filler = TantivyDocument::new();
        filler.add_text(f.doc_id, doc_id);
        feed.filler = Some(filler);
        self.entries_added
            .fetch_add(count as u64, Ordering::Relaxed);
        // From here only the indexing thread (or the batch's entries) and the feed hold the
        // stream: a feed left alone with it (the thread failed, or the batch was dropped by a
        // failed writer) no longer waits for it.
        if own_segment {
            self.own_segments
                .start(&self.writer, doc_id, stream, count)
                .map_err(tantivy)?;
        } else {
            self.delete(doc_id);
            let batch: Vec<_> = (0..count)
                .map(|slot| UserOperation::Add(Entry::streamed(&stream, slot)))
                .collect();
            drop(stream);
            self.run(batch)?;
        }
        let mut streamed = StreamedEntries {
            writer: self,
            doc_id: doc_id.to_string(),
            feed: Some(feed),
            own_segment,
        };
        // Counted as queued without waiting: the entries are already handed over, and the
        // thread that takes them releases the bytes as it goes.
        if let Some(feed) = streamed.feed.as_mut() {
            section_entries(f, doc_id, tree, terms, &nodes, |doc, text| {
                self.backlog.reserve(text, usize::MAX);
                let _ = feed.push(doc);
            });
        }
        Ok(Some(streamed))
    }

    /// Say how many documents this writer will be handed at most (a run's planned jobs): with
    /// one, a large new document is indexed into a segment of its own
    /// ([`SectionWriter::stream_entries`]). Without this call, none is.
    pub fn plan_documents(&self, documents: usize) {
        self.own_segments.plan(documents);
    }

    /// Remove every entry of `doc_id` (at the next commit), a streamed document's pending
    /// segment included.
    pub fn delete(&self, doc_id: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.doc_id, doc_id));
        self.own_segments.discard(doc_id);
    }

    /// Commit nothing, and merge what tantivy's log merge policy picks among the committed
    /// segments ([`Committed::finish`] without a bulk merge), or with `merge_all` the whole
    /// index into one segment ([`Committed::full_merge`]), then delete the files no commit
    /// names. For a run that changed nothing: an index left in many segments, or with the
    /// files of a merge cut short (a run interrupted in its final merge), is tidied by the
    /// next run even when it has nothing to write. Call it only when nothing was added or
    /// deleted (they would be lost). Returns what was merged (`None`: nothing).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when `meta.json` cannot be read or a merge fails.
    pub fn finish_without_commit(
        self,
        merge_all: bool,
    ) -> Result<Option<Merged>, SectionIndexError> {
        let committed = Committed::new(self.writer, self.place, 0);
        let plan = match merge_all {
            true => committed.full_merge()?,
            false => None,
        };
        committed.finish_tidying(plan.as_ref())
    }

    /// Commit everything added and deleted, recording `generation` in the commit (tantivy's
    /// commit payload, in `meta.json`). Nothing is merged yet: the returned [`Committed`]
    /// holds the writer, and [`Committed::finish`] merges.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the segments or `meta.json` cannot be
    /// written. Nothing is visible to readers unless this returns `Ok`.
    pub fn commit(mut self, generation: u64) -> Result<Committed, SectionIndexError> {
        let place = self.place.clone();
        let tantivy = |source| SectionIndexError::Tantivy {
            place: place.clone(),
            source,
        };
        self.own_segments.add_to(&self.writer).map_err(tantivy)?;
        let mut prepared = self.writer.prepare_commit().map_err(tantivy)?;
        prepared.set_payload(&generation.to_string());
        prepared.commit().map_err(tantivy)?;
        Ok(Committed::new(
            self.writer,
            self.place,
            self.entries_added.into_inner(),
        ))
    }
}
