//! Entries handed to tantivy before they are built: a large document's batch goes to an
//! indexing thread at once, as places that the document's builder fills in reading order while
//! that thread indexes the ones already filled. The batch stays one [`tantivy::IndexWriter::run`]
//! (one indexing thread takes it whole: one segment, reading order), and the building overlaps
//! the indexing instead of preceding it.

use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use tantivy::schema::Document;
use tantivy::TantivyDocument;

/// Entries built before they are handed to the stream (one lock and one wake-up per this many).
const CHUNK: usize = 256;

/// Entries handed over and not yet taken by the indexing thread above which the builder waits:
/// a bound on the memory they hold (a few hundred bytes each) for a document of any size. It is
/// large so that the builder runs far enough ahead of the slower indexing thread to fill the
/// summaries, references and card (the last entry) before that thread runs out of entries:
/// 100,000 sibling sections take the builder about as long after their section entries as the
/// indexing thread takes over 60,000 entries.
const LOOKAHEAD: usize = 64 * 1024;

/// How long a builder waits at most for the indexing thread before handing its entries over
/// anyway (the bound is for memory: a builder must not hang on an indexing thread that died).
const PATIENCE: Duration = Duration::from_secs(10);

/// Longest single wait of a builder.
const RECHECK: Duration = Duration::from_millis(5);

/// An entry of the section index as the writer hands it to tantivy.
pub enum Entry {
    /// Built before it was handed over.
    Built(TantivyDocument),
    /// Place `slot` of `stream`, filled by the document's builder: the indexing thread takes
    /// it from there when it reaches it (waiting for it if need be), and frees it with this
    /// entry once indexed.
    Streamed {
        /// The document's places.
        stream: Arc<EntryStream>,
        /// This entry's place.
        slot: usize,
        /// The entry, once taken from its place.
        taken: OnceLock<TantivyDocument>,
    },
}

impl Entry {
    /// Place `slot` of `stream`.
    pub(super) fn streamed(stream: &Arc<EntryStream>, slot: usize) -> Entry {
        Entry::Streamed {
            stream: Arc::clone(stream),
            slot,
            taken: OnceLock::new(),
        }
    }

    fn document(&self) -> &TantivyDocument {
        match self {
            Entry::Built(doc) => doc,
            Entry::Streamed {
                stream,
                slot,
                taken,
            } => taken.get_or_init(|| stream.take(*slot)),
        }
    }
}

impl Document for Entry {
    type Value<'a>
        = <TantivyDocument as Document>::Value<'a>
    where
        Self: 'a;
    type FieldsValuesIter<'a>
        = <TantivyDocument as Document>::FieldsValuesIter<'a>
    where
        Self: 'a;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        self.document().iter_fields_and_values()
    }
}

/// The places of one document's entries (see [`Entry::Streamed`]).
pub struct EntryStream {
    slots: Mutex<Slots>,
    /// Signalled when places are filled, and when places are taken while the builder waits.
    changed: Condvar,
}

struct Slots {
    docs: Vec<Option<TantivyDocument>>,
    /// Places filled so far (the first `handed`).
    handed: usize,
    /// Places taken by the indexing thread so far.
    taken: usize,
    /// The builder waits for places to be taken.
    waiting: bool,
}

impl EntryStream {
    /// `count` empty places, and the handle that fills them.
    pub(super) fn new(count: usize) -> (Arc<EntryStream>, EntryFeed) {
        let stream = Arc::new(EntryStream {
            slots: Mutex::new(Slots {
                docs: (0..count).map(|_| None).collect(),
                handed: 0,
                taken: 0,
                waiting: false,
            }),
            changed: Condvar::new(),
        });
        let feed = EntryFeed {
            stream: Arc::clone(&stream),
            next: 0,
            chunk: Vec::with_capacity(CHUNK),
            count,
            filler: None,
        };
        (stream, feed)
    }

    /// The entry at `slot`, waiting until it is filled, and leaving the place empty (each
    /// place is taken once: by its [`Entry`]).
    fn take(&self, slot: usize) -> TantivyDocument {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(doc) = slots.docs.get_mut(slot).and_then(Option::take) {
                slots.taken += 1;
                if slots.waiting && slots.handed - slots.taken <= LOOKAHEAD / 2 {
                    slots.waiting = false;
                    self.changed.notify_all();
                }
                return doc;
            }
            slots = self
                .changed
                .wait(slots)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Fills an [`EntryStream`]'s places in order. Dropped before all are filled (a builder that
/// failed or panicked), it fills the rest with `filler` entries, so an indexing thread never
/// waits forever; the writer deletes the document's entries then (see
/// [`super::StreamedEntries`]).
pub(super) struct EntryFeed {
    stream: Arc<EntryStream>,
    /// The first place not handed to the stream yet.
    next: usize,
    /// Entries built, not handed to the stream yet.
    chunk: Vec<TantivyDocument>,
    count: usize,
    /// What fills the places left empty: an entry holding only the document's id, which the
    /// delete by id that follows a failure removes.
    pub(super) filler: Option<TantivyDocument>,
}

impl EntryFeed {
    /// Fill the next place (handed to the indexing thread by chunks). Errors (returns `doc`):
    /// every place is filled.
    pub(super) fn push(&mut self, doc: TantivyDocument) -> Result<(), TantivyDocument> {
        if self.remaining() == 0 {
            return Err(doc);
        }
        self.chunk.push(doc);
        if self.chunk.len() == CHUNK || self.remaining() == 0 {
            self.hand_over();
        }
        Ok(())
    }

    /// Places not filled yet.
    pub(super) fn remaining(&self) -> usize {
        self.count - self.next - self.chunk.len()
    }

    /// Hand the chunk to the stream, first waiting (up to [`PATIENCE`]) while more than
    /// [`LOOKAHEAD`] entries wait there for an indexing thread that still holds the batch.
    fn hand_over(&mut self) {
        let stream = &self.stream;
        let mut slots = stream.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let deadline = Instant::now() + PATIENCE;
        while slots.handed - slots.taken > LOOKAHEAD && Arc::strong_count(stream) > 1 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            slots.waiting = true;
            slots = match stream
                .changed
                .wait_timeout(slots, RECHECK.min(deadline - now))
            {
                Ok((slots, _)) => slots,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        slots.waiting = false;
        let start = slots.handed;
        for (slot, doc) in slots.docs[start..].iter_mut().zip(self.chunk.drain(..)) {
            *slot = Some(doc);
            self.next += 1;
        }
        slots.handed = self.next;
        drop(slots);
        stream.changed.notify_all();
    }
}

impl Drop for EntryFeed {
    fn drop(&mut self) {
        if self.remaining() > 0 {
            let filler = self.filler.take().unwrap_or_default();
            let missing = self.remaining();
            self.chunk.extend(std::iter::repeat_n(filler, missing));
        }
        if !self.chunk.is_empty() {
            self.hand_over();
        }
    }
}
