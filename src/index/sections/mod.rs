//! The workspace-wide section index (DESIGN.md §2): one tantivy index with one entry per tree
//! node that has text of its own (title or content), plus one entry per DocCard.
//!
//! It is the one search engine of docnav: `find` (a `doc_id` filter inside one document,
//! everything at `/`), the lexical navigator (`ask --lexical`, `eval --lexical`) and the
//! Orchestrator's DocCard pre-rank all query it, and no command needs a tree in memory to
//! search. Scoring is tantivy's BM25 (Robertson & Zaragoza 2009, eq. 3.15; k1 = 1.2, b = 0.75,
//! Lucene idf `ln(1 + (N − n + 0.5)/(n + 0.5))`), with statistics chosen per search (see
//! [`Scope`]) so that a search inside one document scores the same whatever else the workspace
//! holds.
//!
//! Fields (one schema, two kinds of entries):
//! - sections: no `kind` (format 8 and older wrote `section`; a section is an entry without
//!   the card's `kind` posting), `doc_id`, `node` and `rank` (reading order; columns that
//!   only older indexes' entries fill, newer ones keep both in `record`), `ancestor` (every
//!   ancestor's node id but the root's, to search one subtree; below the root is the whole
//!   document, searched by `doc_id`; format 8 and older wrote the root too), `text` (the terms of the node's own content,
//!   then its title's three times: title terms weigh [`TITLE_WEIGHT`] in tf and in length
//!   alike, the simplest BM25F, Robertson & Zaragoza 2009 §3.5), and a stored `record`
//!   (structure number, title, ancestors, lines/pages) so a hit is ranked, deduplicated and
//!   named as a [`SectionRecord`] without loading its tree. The node's text is not stored: the
//!   tree file holds it, and only `find` shows it (a snippet of each hit shown, from the hit's
//!   tree); storing it twice would add the doc store's LZ4 compression of every text to each
//!   index run and the text again to the workspace's disk;
//! - cards: `kind` = `card`, `doc_id`, `identity` (what built the tree), `card` (title, outline, summary, top
//!   terms).
//!
//! Text fields are indexed with term frequencies but no positions (no phrase queries are ever
//! run). Their terms are [`fn@super::tokenize`]'s: `text` receives them already tokenized (a
//! [`super::NodeTerms`] list, split by [`super::analyzer::TermListTokenizer`]; the compute
//! threads tokenize each node once, for the card's top terms and for this), `card` as text
//! (tokenized by [`super::analyzer::DocnavTokenizer`]), and snippets of a node's text are cut
//! with the same [`super::analyzer::DocnavTokenizer`].

mod corpus;
mod directory;
mod merge;
mod own_segment;
mod record;
mod search;
mod stats;
mod stream;
mod write;

use std::path::{Path, PathBuf};

use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::{Index, IndexReader, IndexSettings, IndexSortByField, Order, ReloadPolicy};

use directory::BatchSyncDirectory;

pub use corpus::{CardStatistics, QueryStatistics};
pub use merge::{worth_merging, Committed, MergePlan, Merged, BULK_RUN_DENOMINATOR};
pub use record::SectionRecord;
pub use search::{PreparedSearch, Scope, SectionHit};
pub use write::{
    DocumentEntries, SectionWriter, StreamedEntries, STREAM_MIN_ENTRIES, WRITER_MEMORY_BYTES,
};

use super::analyzer::{
    DocnavTokenizer, TermListTokenizer, TERM_LIST_TOKENIZER_NAME, TOKENIZER_NAME,
};

/// Weight of a title term relative to a content term (tf and length both count it this many
/// times).
pub const TITLE_WEIGHT: usize = 3;

/// At most this many distinct query terms are scored (the rest are ignored).
pub const MAX_QUERY_TERMS: usize = 64;

/// Name of the `doc_id` field, by which new indexes sort each segment's entries.
const DOC_ID_FIELD: &str = "doc_id";

/// Settings of a new index: each segment's entries sorted by `doc_id` (tantivy's index sorting,
/// kept through merges), so a search cuts a tie group after its first members in each segment
/// instead of visiting all of them (`search::top_with_whole_ties`).
fn new_index_settings() -> IndexSettings {
    IndexSettings {
        sort_by_field: Some(IndexSortByField {
            field: DOC_ID_FIELD.to_string(),
            order: Order::Asc,
        }),
        ..IndexSettings::default()
    }
}

/// `kind` of a section entry as workspace format 8 and older wrote it (newer sections carry no
/// `kind`).
#[cfg(test)]
const KIND_SECTION: &str = "section";
/// `kind` of a DocCard entry.
const KIND_CARD: &str = "card";

/// Failures of the section index. Each names the index directory (or "in memory").
#[derive(Debug, thiserror::Error)]
pub enum SectionIndexError {
    /// tantivy could not open, read or write the index (missing or damaged files, I/O).
    #[error("search index `{place}`: {source}")]
    Tantivy {
        /// The index directory, or `in memory`.
        place: String,
        /// What tantivy reported.
        source: tantivy::TantivyError,
    },
    /// The index opened but was made by another schema (an older or newer docnav).
    #[error("search index `{place}` has another schema (made by another docnav version)")]
    Schema {
        /// The index directory.
        place: String,
    },
}

/// The fields of the schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    kind: Field,
    doc_id: Field,
    ancestor: Field,
    identity: Field,
    text: Field,
    card: Field,
    record: Field,
}

fn text_options(tokenizer: &str) -> TextOptions {
    TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokenizer)
            .set_index_option(IndexRecordOption::WithFreqs),
    )
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    // Field order is the on-disk schema's: never reorder.
    let kind = b.add_text_field("kind", STRING);
    let doc_id = b.add_text_field(DOC_ID_FIELD, STRING | FAST);
    // Columns only older indexes' entries fill (searches read them by name when a
    // record lacks its node id and rank); kept so one schema opens every index.
    b.add_u64_field("node", FAST);
    b.add_u64_field("rank", FAST);
    let fields = Fields {
        kind,
        doc_id,
        ancestor: b.add_u64_field("ancestor", INDEXED),
        identity: b.add_text_field("identity", STRING | FAST),
        text: b.add_text_field("text", text_options(TERM_LIST_TOKENIZER_NAME)),
        card: b.add_text_field("card", text_options(TOKENIZER_NAME)),
        record: b.add_text_field("record", STORED),
    };
    (b.build(), fields)
}

/// An open section index: the tantivy index and a reader on its last commit.
pub struct SectionIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    place: String,
    /// The hit columns of the reader's segments, shared by every search of this index.
    columns: std::sync::Arc<search::ColumnCache>,
}

impl std::fmt::Debug for SectionIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SectionIndex")
            .field("place", &self.place)
            .finish()
    }
}

impl SectionIndex {
    /// A new, empty index held in memory (tests, benchmarks, one-off libraries).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] if tantivy cannot set it up (a bug).
    pub fn create_in_ram() -> Result<SectionIndex, SectionIndexError> {
        let (schema, fields) = schema();
        let index = Index::builder()
            .schema(schema)
            .settings(new_index_settings())
            .create_in_ram()
            .map_err(|source| SectionIndexError::Tantivy {
                place: "in memory".into(),
                source,
            })?;
        SectionIndex::finish(index, fields, "in memory".into())
    }

    /// [`SectionIndex::create_in_ram`] without the `doc_id` sorting: an index as older docnav
    /// versions made it, whose segments keep entries in the order they were added.
    #[cfg(test)]
    pub(crate) fn create_in_ram_unsorted() -> SectionIndex {
        let (schema, fields) = schema();
        SectionIndex::finish(Index::create_in_ram(schema), fields, "in memory".into()).unwrap()
    }

    /// [`SectionIndex::create`] without the `doc_id` sorting, as older docnav versions made
    /// indexes (`dir` must hold no index).
    #[cfg(test)]
    pub(crate) fn create_unsorted(dir: &Path) -> SectionIndex {
        std::fs::create_dir_all(dir).unwrap();
        let (schema, fields) = schema();
        let directory = BatchSyncDirectory::open(dir).unwrap();
        let index = Index::create(directory, schema, IndexSettings::default()).unwrap();
        SectionIndex::finish(index, fields, dir.display().to_string()).unwrap()
    }

    /// Create a new, empty index in `dir` (created if missing; it must hold no index yet).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] for I/O failures or an index already there.
    pub fn create(dir: &Path) -> Result<SectionIndex, SectionIndexError> {
        let place = dir.display().to_string();
        let tantivy = |source| SectionIndexError::Tantivy {
            place: place.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|e| tantivy(e.into()))?;
        let (schema, fields) = schema();
        let directory = BatchSyncDirectory::open(dir).map_err(|e| tantivy(e.into()))?;
        if Index::exists(&directory).map_err(|e| tantivy(e.into()))? {
            return Err(tantivy(tantivy::TantivyError::IndexAlreadyExists));
        }
        let index = Index::create(directory, schema, new_index_settings()).map_err(tantivy)?;
        SectionIndex::finish(index, fields, place)
    }

    /// Open the index in `dir` at its last commit (read again when a writer's merge replaced
    /// its segments while they were being opened).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when `dir` holds no index, or its `meta.json` or a
    /// segment file is missing or damaged; [`SectionIndexError::Schema`] for an index made with
    /// another schema.
    pub fn open(dir: &Path) -> Result<SectionIndex, SectionIndexError> {
        SectionIndex::open_with(dir, BatchSyncDirectory::open)
    }

    /// [`SectionIndex::open`] for a reader that only searches (a command, a server): the
    /// document store is mapped for random access (no read-ahead), which keeps a search's
    /// resident memory to the blocks of its hits, and the other files with huge-page advice, so
    /// a page fault maps (or reads, when the page cache dropped them) a whole 2 MiB folio (see
    /// `directory.rs`). Writers and merges read segments whole and use [`SectionIndex::open`].
    /// Errors: as [`SectionIndex::open`].
    pub fn open_for_search(dir: &Path) -> Result<SectionIndex, SectionIndexError> {
        SectionIndex::open_with(dir, |dir| BatchSyncDirectory::open_for_search(dir, false))
    }

    /// [`SectionIndex::open_for_search`] for the index of a published generation, which nothing
    /// writes: its readers take tantivy's locks without creating a lock file, so a replica
    /// needs no write access to the folder. Errors: as [`SectionIndex::open`].
    pub fn open_published(dir: &Path) -> Result<SectionIndex, SectionIndexError> {
        SectionIndex::open_with(dir, |dir| BatchSyncDirectory::open_for_search(dir, true))
    }

    fn open_with(
        dir: &Path,
        open_directory: fn(
            &Path,
        ) -> Result<
            BatchSyncDirectory,
            tantivy::directory::error::OpenDirectoryError,
        >,
    ) -> Result<SectionIndex, SectionIndexError> {
        let place = dir.display().to_string();
        let tantivy = |source| SectionIndexError::Tantivy {
            place: place.clone(),
            source,
        };
        let directory = open_directory(dir).map_err(|e| tantivy(e.into()))?;
        let mut attempts = 0;
        loop {
            let index = Index::open(directory.clone()).map_err(tantivy)?;
            let (expected, fields) = schema();
            if index.schema() != expected {
                return Err(SectionIndexError::Schema { place });
            }
            match SectionIndex::finish(index, fields, place.clone()) {
                // A writer's merge ended between our reading `meta.json` and opening the
                // segments it named, and tantivy deleted them: the new `meta.json` names the
                // merged one.
                Err(e) if segment_file_vanished(&e) && attempts < OPEN_ATTEMPTS => attempts += 1,
                done => return done,
            }
        }
    }

    fn finish(
        index: Index,
        fields: Fields,
        place: String,
    ) -> Result<SectionIndex, SectionIndexError> {
        index
            .tokenizers()
            .register(TOKENIZER_NAME, DocnavTokenizer::default());
        index
            .tokenizers()
            .register(TERM_LIST_TOKENIZER_NAME, TermListTokenizer::default());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .num_warming_threads(0)
            .try_into()
            .map_err(|source| SectionIndexError::Tantivy {
                place: place.clone(),
                source,
            })?;
        Ok(SectionIndex {
            index,
            reader,
            fields,
            place,
            columns: Default::default(),
        })
    }

    /// `true` when the index keeps each segment's entries sorted by `doc_id`, as every index
    /// [`SectionIndex::create`] makes; an index made by an older docnav is not, and is
    /// searched without the early cut of tie groups that sorting allows.
    pub fn sorted_by_doc_id(&self) -> bool {
        search::sorted_by_doc_id(&self.reader.searcher())
    }

    /// Where the index lives (its directory, or `in memory`), for messages.
    pub fn place(&self) -> &str {
        &self.place
    }

    fn error(&self, source: tantivy::TantivyError) -> SectionIndexError {
        SectionIndexError::Tantivy {
            place: self.place.clone(),
            source,
        }
    }

    /// The generation recorded by the last commit ([`SectionWriter::commit`]), `None` for an
    /// index never committed by docnav.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when `meta.json` cannot be read.
    pub fn generation(&self) -> Result<Option<u64>, SectionIndexError> {
        let metas = self.index.load_metas().map_err(|e| self.error(e))?;
        Ok(metas.payload.and_then(|p| p.trim().parse().ok()))
    }

    /// Make the reader see the last commit (after a [`SectionWriter::commit`] in this process).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the new segments cannot be opened.
    pub fn reload(&self) -> Result<(), SectionIndexError> {
        self.reader.reload().map_err(|e| self.error(e))
    }

    /// Segments of the last commit (read from `meta.json`).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when `meta.json` cannot be read.
    pub fn segment_count(&self) -> Result<usize, SectionIndexError> {
        self.index
            .searchable_segment_metas()
            .map(|m| m.len())
            .map_err(|e| self.error(e))
    }

    /// Bytes of the index files on disk (0 in memory).
    pub fn disk_bytes(dir: &Path) -> u64 {
        walk_bytes(dir)
    }
}

/// Opens of the index tried again when a segment file vanished under them (see
/// [`SectionIndex::open`]).
const OPEN_ATTEMPTS: usize = 3;

fn segment_file_vanished(e: &SectionIndexError) -> bool {
    matches!(
        e,
        SectionIndexError::Tantivy {
            source: tantivy::TantivyError::OpenReadError(
                tantivy::directory::error::OpenReadError::FileDoesNotExist(_)
            ),
            ..
        }
    )
}

fn walk_bytes(dir: &Path) -> u64 {
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.flatten()
        .map(|e| {
            let path: PathBuf = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => walk_bytes(&path),
                Ok(m) => m.len(),
                Err(_) => 0,
            }
        })
        .sum()
}

#[cfg(test)]
mod tests;
