//! The documents a replay sees: exactly those the trace header names, so a recording
//! replays identically in any workspace that holds them — a workspace with more documents would
//! otherwise change the DocCards analyze reads, the pre-rank, `find` and `grep` at `/`, and make
//! the replay diverge at its first request. A recording over a catalog too large to list
//! (format version 4, a digest instead) replays over the whole workspace.

use std::sync::Arc;

use crate::index::{DocCard, SectionIndex};
use crate::trace::TraceHeader;
use crate::workspace::document::index_in_memory;
use crate::workspace::{CardList, Document, Library, WorkspaceError};

/// How one document of the recording stands in the replay's workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentCheck {
    /// The workspace does not hold it: the replay cannot run.
    Missing {
        /// Its id.
        doc_id: String,
    },
    /// The recording's catalog was too large to list ([`crate::trace::CatalogDigest`]) and this
    /// workspace's differs from it: which documents changed is unknown; the replay runs and shows
    /// where the run now differs.
    CatalogChanged {
        /// Documents when recorded.
        recorded: usize,
        /// Documents now.
        current: usize,
    },
    /// Its source changed since the recording (another fingerprint): the replay runs and shows
    /// where the run now differs.
    Changed {
        /// Its id.
        doc_id: String,
        /// Fingerprint in the trace header.
        recorded: String,
        /// Fingerprint in the workspace.
        current: String,
    },
}

impl std::fmt::Display for DocumentCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocumentCheck::Missing { doc_id } => write!(
                f,
                "document `{doc_id}` of the recording is not in this workspace"
            ),
            DocumentCheck::CatalogChanged { recorded, current } => write!(
                f,
                "the workspace changed since the recording ({recorded} documents then, {current} \
                 now; a recording over more than {} documents keeps a digest of the catalog, not \
                 each document): the replay may diverge",
                crate::trace::LISTED_DOCUMENTS_MAX
            ),
            DocumentCheck::Changed {
                doc_id,
                recorded,
                current,
            } => write!(
                f,
                "document `{doc_id}` changed since the recording (fingerprint {} → {})",
                &recorded[..recorded.len().min(12)],
                &current[..current.len().min(12)]
            ),
        }
    }
}

/// The documents of `header` that are missing from `library` or changed in it, in header order;
/// for a header with a catalog digest, one [`DocumentCheck::CatalogChanged`] when the digest
/// differs.
pub fn check_documents(header: &TraceHeader, library: &dyn Library) -> Vec<DocumentCheck> {
    if let Some(recorded) = &header.catalog {
        let current = library.catalog_digest();
        return if &current == recorded {
            Vec::new()
        } else {
            vec![DocumentCheck::CatalogChanged {
                recorded: recorded.documents,
                current: current.documents,
            }]
        };
    }
    header
        .documents
        .iter()
        .filter_map(|doc| match library.card(&doc.doc_id) {
            None => Some(DocumentCheck::Missing {
                doc_id: doc.doc_id.clone(),
            }),
            Some(card) if card.fingerprint != doc.fingerprint => Some(DocumentCheck::Changed {
                doc_id: doc.doc_id.clone(),
                recorded: doc.fingerprint.clone(),
                current: card.fingerprint.clone(),
            }),
            Some(_) => None,
        })
        .collect()
}

/// `library` narrowed to the documents the trace header names (those it holds; in catalog
/// order, as the recording's catalog listed them): [`Library::cards`] lists only them,
/// [`Library::document`] loads only them (another id is [`WorkspaceError::NotFound`]), and
/// [`Library::sections`] is a section index of only them, built in memory, so searches at `/`
/// and the pre-rank see the recording's documents and statistics. (Statistics at `/` of a
/// workspace whose index still counts deleted entries of re-indexed documents can differ from
/// these; a fresh index, like the recording's in tests, gives the same.)
pub struct TraceLibrary {
    inner: Arc<dyn Library>,
    cards: CardList,
    sections: Result<SectionIndex, String>,
}

impl TraceLibrary {
    /// The view of `library` for a replay of a trace with this `header`. Loads those documents'
    /// trees to index them; one that cannot be loaded leaves [`Library::sections`] reporting
    /// why.
    pub fn new(header: &TraceHeader, library: Arc<dyn Library>) -> TraceLibrary {
        let cards: Vec<DocCard> = header
            .documents
            .iter()
            .filter_map(|d| library.card(&d.doc_id))
            .map(|c| DocCard::clone(&c))
            .collect();
        let cards = CardList::new(cards);
        let sections = cards
            .iter()
            .map(|c| library.document(&c.doc_id))
            .collect::<Result<Vec<Arc<Document>>, WorkspaceError>>()
            .map_err(|e| e.to_string())
            .and_then(|docs| {
                index_in_memory(cards.iter().zip(&docs).map(|(c, d)| (&**c, &d.tree)))
                    .map_err(|e| e.to_string())
            });
        TraceLibrary {
            inner: library,
            cards,
            sections,
        }
    }
}

impl Library for TraceLibrary {
    fn document_count(&self) -> usize {
        self.cards.len()
    }

    fn cards_page(&self, offset: usize, limit: usize) -> Vec<Arc<DocCard>> {
        self.cards.page(offset, limit)
    }

    fn card(&self, doc_id: &str) -> Option<Arc<DocCard>> {
        self.cards.get(doc_id)
    }

    /// The workspace's alias, when it names a document of the recording (a run asked with
    /// `--doc` an alias replays).
    fn alias_target(&self, alias: &str) -> Option<String> {
        self.inner
            .alias_target(alias)
            .filter(|target| self.cards.get(target).is_some())
    }

    /// The recording's cards are in memory; only the aliases are read from the workspace.
    fn strict_reads(&self, read: &mut dyn FnMut()) -> Result<(), WorkspaceError> {
        self.inner.strict_reads(read)
    }

    fn aliases(&self) -> Vec<(String, String)> {
        let mut aliases = self.inner.aliases();
        aliases.retain(|(_, target)| self.cards.get(target).is_some());
        aliases
    }

    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError> {
        if self.cards.get(doc_id).is_some() {
            self.inner.document(doc_id)
        } else {
            Err(WorkspaceError::NotFound(doc_id.to_string()))
        }
    }

    fn sections(&self) -> Result<&SectionIndex, WorkspaceError> {
        self.sections
            .as_ref()
            .map_err(|reason| WorkspaceError::Search {
                dir: "replay (in memory)".into(),
                reason: reason.clone(),
            })
    }
}
