//! The documents a replay sees: exactly those the trace header names, so a recording
//! replays identically in any workspace that holds them — a workspace with more documents would
//! otherwise change the DocCards analyze reads, the pre-rank, `find` and `grep` at `/`, and make
//! the replay diverge at its first request. A recording over a catalog too large to list
//! (format version 4, a digest instead) replays over the whole workspace.

use std::sync::Arc;

use crate::trace::TraceHeader;
use crate::workspace::{InMemoryLibrary, Library};

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
/// order, as the recording's catalog listed them; see [`InMemoryLibrary::narrowed`]): cards,
/// documents and a section index of only them, so searches at `/` and the pre-rank see the
/// recording's documents and statistics. (Statistics at `/` of a workspace whose index still
/// counts deleted entries of re-indexed documents can differ from these; a fresh index, like
/// the recording's in tests, gives the same.)
pub fn trace_library(header: &TraceHeader, library: Arc<dyn Library>) -> InMemoryLibrary {
    InMemoryLibrary::narrowed(library, header.documents.iter().map(|d| d.doc_id.as_str()))
}
