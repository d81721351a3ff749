//! The catalog of a corpus split into shards, gathered where the Orchestrator runs: each shard
//! sends its part ([`CatalogPart`], JSON), the parts merge once into [`GatheredCards`], and each
//! run reads them through a [`GatheredCatalog`], a [`Library`] that also holds the trees of the
//! documents its Workers sent back ([`super::WorkerReply::documents`]).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

use crate::index::{DocCard, SectionIndex};
use crate::workspace::{Document, Library, WorkspaceError};

/// One shard's part of the catalog, as it crosses to the process gathering every shard's: its
/// cards in catalog order and its aliases.
///
/// Its JSON ([`CatalogPart::to_json`]) is an object
/// `{"aliases": [[alias, doc_id], ...], "cards": [DocCard, ...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogPart {
    /// Every card of the shard, in its catalog order.
    pub cards: Vec<DocCard>,
    /// Every alias of the shard and the document it names, `(alias, doc_id)` in alias order.
    pub aliases: Vec<(String, String)>,
}

impl CatalogPart {
    /// `library`'s whole catalog: every card and every alias ([`Library::aliases`]), both read
    /// with [`Library::strict_reads`], so a failed catalog read is an error rather than a
    /// shorter catalog or one without its aliases.
    ///
    /// Errors: the first [`WorkspaceError`] of a card or alias read.
    pub fn of_library(library: &dyn Library) -> Result<CatalogPart, WorkspaceError> {
        let mut cards = Vec::new();
        let mut aliases = Vec::new();
        library.strict_reads(&mut || {
            cards = library
                .all_cards()
                .iter()
                .map(|c| DocCard::clone(c))
                .collect();
            aliases = library.aliases();
        })?;
        Ok(CatalogPart { cards, aliases })
    }

    /// The part as JSON text: one object whose keys and each card's fields come in name order
    /// (`aliases` before `cards`), as a [`serde_json::Value`] writes them.
    ///
    /// Errors: a card that cannot be written as JSON (none can: every field is text, numbers or
    /// lists of them).
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string(&serde_json::to_value(self)?)
    }

    /// The part [`CatalogPart::to_json`] wrote (keys in any order).
    ///
    /// Errors: text that is not such an object (not JSON, a key missing, a card that does not
    /// parse).
    pub fn from_json(json: &str) -> serde_json::Result<CatalogPart> {
        serde_json::from_str(json)
    }
}

/// Every shard's part of the catalog merged: the cards in catalog order (by `doc_id`, as one
/// library holding them all lists them), each card's position, and every alias. Immutable: the
/// gathering process keeps one while no shard's catalog changes, and each run reads it through
/// a [`GatheredCatalog`].
#[derive(Debug, Default)]
pub struct GatheredCards {
    cards: Vec<Arc<DocCard>>,
    positions: HashMap<String, usize>,
    aliases: BTreeMap<String, String>,
}

impl GatheredCards {
    /// The parts merged: their cards sorted by `doc_id`, their aliases (an alias two parts name
    /// names the later part's document). The shards hold disjoint documents.
    pub fn new(parts: Vec<CatalogPart>) -> GatheredCards {
        let mut cards: Vec<Arc<DocCard>> = Vec::new();
        let mut aliases = BTreeMap::new();
        for part in parts {
            cards.extend(part.cards.into_iter().map(Arc::new));
            aliases.extend(part.aliases);
        }
        cards.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        let positions = cards
            .iter()
            .enumerate()
            .map(|(i, c)| (c.doc_id.clone(), i))
            .collect();
        GatheredCards {
            cards,
            positions,
            aliases,
        }
    }
}

/// The gathered catalog for one run: the cards and aliases of [`GatheredCards`], and the trees
/// of the documents the run's Workers sent back ([`GatheredCatalog::keep`]). It answers the
/// catalog as one library holding every shard's documents does; [`Library::document`] knows
/// only the kept trees, and it has no section index ([`Library::sections`] is an error): its
/// rankings come from the shards ([`super::CatalogRanking`]).
pub struct GatheredCatalog {
    cards: Arc<GatheredCards>,
    documents: Mutex<HashMap<String, Arc<Document>>>,
}

impl GatheredCatalog {
    /// A run's catalog over `cards`, holding no document tree yet.
    pub fn new(cards: Arc<GatheredCards>) -> GatheredCatalog {
        GatheredCatalog {
            cards,
            documents: Mutex::new(HashMap::new()),
        }
    }

    /// Hold `documents` (a Worker's reply's), each by its `doc_id`, for [`Library::document`].
    pub fn keep(&self, documents: Vec<Document>) {
        let mut held = self.held();
        for doc in documents {
            held.insert(doc.card.doc_id.clone(), Arc::new(doc));
        }
    }

    fn held(&self) -> MutexGuard<'_, HashMap<String, Arc<Document>>> {
        self.documents
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Library for GatheredCatalog {
    fn document_count(&self) -> usize {
        self.cards.cards.len()
    }

    fn cards_page(&self, offset: usize, limit: usize) -> Vec<Arc<DocCard>> {
        self.cards
            .cards
            .iter()
            .skip(offset)
            .take(limit)
            .cloned()
            .collect()
    }

    fn card(&self, doc_id: &str) -> Option<Arc<DocCard>> {
        self.cards
            .positions
            .get(doc_id)
            .map(|&i| self.cards.cards[i].clone())
    }

    /// A tree [`GatheredCatalog::keep`] was given; [`WorkspaceError::NotFound`] for any other
    /// id, a document of the catalog included.
    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError> {
        self.held()
            .get(doc_id)
            .cloned()
            .ok_or_else(|| WorkspaceError::NotFound(doc_id.to_string()))
    }

    /// Always [`WorkspaceError::Search`]: the sections are searched in the shards.
    fn sections(&self) -> Result<&SectionIndex, WorkspaceError> {
        Err(WorkspaceError::Search {
            dir: PathBuf::from("the shards' catalog"),
            reason: "the sections are searched in the shards".into(),
        })
    }

    fn card_position(&self, doc_id: &str) -> Option<usize> {
        self.cards.positions.get(doc_id).copied()
    }

    fn alias_target(&self, alias: &str) -> Option<String> {
        self.cards.aliases.get(alias).cloned()
    }

    fn aliases(&self) -> Vec<(String, String)> {
        self.cards
            .aliases
            .iter()
            .map(|(a, d)| (a.clone(), d.clone()))
            .collect()
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
