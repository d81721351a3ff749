//! Routing a question to the documents it names: which documents a question names (by the
//! names on their cards, [`crate::index::names`]) and how well each one's period answers the
//! period it asks about ([`crate::index::period`]). The pre-rank
//! ([`crate::agent::orchestrator::pre_rank`]) puts these documents first, the one whose period
//! matches best first; [`explain`] says why each card ranks where it does, for `docnav docs
//! --for` and the faces that show the same ranking.
//!
//! Everything here reads the cards the catalog finds under the question's name keys (one
//! lookup per key, then those cards only), never the whole catalog: names and periods are
//! computed when a document is indexed and stored on its card.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;

use crate::index::cross_refs::name_key;
use crate::index::names::{name_keys, question_keys, short_form, squeeze, KEY_PREFIX};
use crate::index::period::{asked_form, asked_periods, match_period, AskedPeriod};
use crate::index::releases::{asked_versions, match_releases};
use crate::index::DocCard;
use crate::workspace::{Library, WorkspaceError};

/// A document a question names, and by what.
#[derive(Debug, Clone)]
pub struct Named {
    /// Its card.
    pub card: Arc<DocCard>,
    /// The name the question used: one of the card's names, or its file's name.
    pub name: String,
    /// How well its period answers the question's (0–9: [`match_period`] doubled, plus 1 when
    /// the form the question names is the document's).
    pub period_score: u8,
}

/// What a question asks for, parsed once: the lookup keys of the names it may use and the
/// periods and form it names.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// `name:` keys of its words (file names) and `entity:` keys of its runs of words.
    pub keys: Vec<String>,
    /// The periods it names, most specific first.
    pub periods: Vec<AskedPeriod>,
    /// The form it names (`10-K`, `8-K`…).
    pub form: Option<&'static str>,
    /// The versions it names (`version 4.x` → `[4]`), for changelogs' release ranges.
    pub versions: Vec<Vec<u64>>,
}

impl Asked {
    /// Parse `question`; `file_name_keys` are the `name:` keys of its words (see
    /// [`crate::agent::orchestrator`]'s `named_documents`).
    pub fn of(question: &str, file_name_keys: Vec<String>) -> Asked {
        let mut keys = file_name_keys;
        keys.extend(question_keys(question));
        Asked {
            keys,
            periods: asked_periods(question),
            form: asked_form(question),
            versions: asked_versions(question),
        }
    }

    /// How well `card`'s period and form answer this question (see [`Named::period_score`]).
    pub fn period_score(&self, card: &DocCard) -> u8 {
        let Some(period) = &card.period else {
            return 0;
        };
        let form = self.form.is_some_and(|f| {
            period
                .form
                .as_deref()
                .is_some_and(|p| p.eq_ignore_ascii_case(f))
        });
        let releases = period
            .releases
            .as_ref()
            .map_or(0, |r| match_releases(r, &self.versions));
        2 * match_period(period, &self.periods).max(releases) + u8::from(form)
    }
}

/// The documents `asked` names, in catalog order, each with the name it matched on and its
/// period score; then the documents of the same entity that the question reached through
/// another name (the entity name or its short form, squeezed, of at least 4 chars:
/// `entity_keys`), in catalog order.
///
/// A name that only some of an issuer's documents print still reaches them all: a question
/// that says `MCD` finds the 10-K whose cover lists the ticker, and through that 10-K's entity
/// (`McDonald's Corporation`) the earnings release, which names the company but prints no
/// ticker. Only a card matched by one of its other names (a ticker, an alias, a former name)
/// widens the search, and only by its entity name: a card found by its file name or its
/// entity already is what the question names, and widening by a page title would name every
/// page that shares it.
pub fn named(library: &dyn Library, asked: &Asked) -> Vec<Named> {
    let mut found = named_directly(library, asked);
    let widen = widening(asked, &found);
    if widen.is_empty() {
        return found;
    }
    let ids: HashSet<String> = found.iter().map(|n| n.card.doc_id.clone()).collect();
    found.extend(named_by_entity(library, asked, &widen, &ids));
    found
}

/// The documents `asked` names by one of their own names or their file's name, in catalog
/// order: the first part of [`named`].
pub fn named_directly(library: &dyn Library, asked: &Asked) -> Vec<Named> {
    if asked.keys.is_empty() {
        return Vec::new();
    }
    let keys: HashSet<&str> = asked.keys.iter().map(String::as_str).collect();
    library
        .cards_with_keys(&asked.keys)
        .into_iter()
        .map(|card| {
            let by_file = keys.contains(name_key(&card.name()).as_str());
            let name = if by_file {
                card.name()
            } else {
                card.names
                    .iter()
                    .find(|n| name_keys(n).iter().any(|k| keys.contains(k.as_str())))
                    .cloned()
                    .unwrap_or_else(|| card.name())
            };
            let period_score = asked.period_score(&card);
            Named {
                card,
                name,
                period_score,
            }
        })
        .collect()
}

/// The entity keys `found` (what [`named_directly`] found, over all of a corpus, in catalog
/// order) widens the question's names by, each with the name the question used: those of the
/// cards matched by another of their names than their entity's or their file's.
pub fn widening(asked: &Asked, found: &[Named]) -> Vec<(String, String)> {
    let keys: HashSet<&str> = asked.keys.iter().map(String::as_str).collect();
    let mut widen: Vec<(String, String)> = Vec::new();
    for n in found {
        let Some(entity) = n.card.names.first() else {
            continue;
        };
        if n.name == *entity || n.name == n.card.name() {
            continue;
        }
        for key in entity_keys(entity) {
            if !keys.contains(key.as_str()) && !widen.iter().any(|(k, _)| *k == key) {
                widen.push((key, n.name.clone()));
            }
        }
    }
    widen
}

/// The documents of `library` that `widen` ([`widening`]) reaches through their entity name,
/// other than those of `found` (ids named directly anywhere in the corpus), in catalog order,
/// each with the name the question used: the second part of [`named`].
pub fn named_by_entity(
    library: &dyn Library,
    asked: &Asked,
    widen: &[(String, String)],
    found: &HashSet<String>,
) -> Vec<Named> {
    if widen.is_empty() {
        return Vec::new();
    }
    let lookup: Vec<String> = widen.iter().map(|(k, _)| k.clone()).collect();
    let mut out = Vec::new();
    for card in library.cards_with_keys(&lookup) {
        if found.contains(&card.doc_id) {
            continue;
        }
        let Some(entity) = card.names.first() else {
            continue;
        };
        let own = entity_keys(entity);
        let Some((_, name)) = widen.iter().find(|(k, _)| own.contains(k)) else {
            continue;
        };
        let period_score = asked.period_score(&card);
        out.push(Named {
            name: name.clone(),
            card,
            period_score,
        });
    }
    out
}

/// The keys an entity name widens a question's names by ([`named`]): the name and its short
/// form squeezed, of at least 4 chars — not its initials, which are too short to be one
/// entity's across a large workspace.
fn entity_keys(entity: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for form in [entity.to_string(), short_form(entity)] {
        let squeezed = squeeze(&form);
        if squeezed.chars().count() >= 4 {
            let key = format!("{KEY_PREFIX}{squeezed}");
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// Why a card ranks where it does for a question (`docnav docs --for`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Why {
    /// The name the question used for the document, when it names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The document's period and how well it answers the question's (0–9), when the document is
    /// named and has a period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<PeriodMatch>,
    /// The rank (1-based) and BM25 score of the document's best section among the workspace's
    /// best sections for the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<Scored>,
    /// The rank (1-based) and BM25 score of the document's card among the cards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<Scored>,
}

/// A period and its score against the question's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeriodMatch {
    /// The document's period ([`crate::index::period::Period::label`]).
    pub label: String,
    /// 0–9, see [`Named::period_score`].
    pub score: u8,
}

/// A rank and a score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scored {
    /// 1-based.
    pub rank: usize,
    /// BM25.
    pub score: f32,
}

impl Why {
    /// One line: `name "Costco" · period FY2019 (6) · section #2 12.3 · card #1 4.5`, or
    /// `catalog order` when nothing matched.
    pub fn line(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(n) = &self.name {
            parts.push(format!("name \"{n}\""));
        }
        if let Some(p) = &self.period {
            parts.push(format!("period {} (match {})", p.label, p.score));
        }
        if let Some(s) = self.section {
            parts.push(format!("section hit #{} ({:.1})", s.rank, s.score));
        }
        if let Some(c) = self.card {
            parts.push(format!("card BM25 #{} ({:.2})", c.rank, c.score));
        }
        if parts.is_empty() {
            "nothing matched: catalog order".into()
        } else {
            parts.join(" · ")
        }
    }
}

/// A card as ranked for a question, with why.
#[derive(Debug, Clone, Serialize)]
pub struct RankedCard {
    /// 1-based.
    pub rank: usize,
    /// Why it ranks there.
    pub why: Why,
    /// The card.
    pub card: Arc<DocCard>,
}

/// The pre-rank for `question` ([`crate::agent::orchestrator::pre_rank`], the same function
/// the Orchestrator calls) with why each card ranks where it does: the first `k` cards. Every
/// face that shows the ranking (`docnav docs --for`, `/api/v1/docs?for=`, MCP `docs` with `for`,
/// Python `docs_for`) calls this and renders its error.
///
/// Errors: the first [`WorkspaceError`] of a catalog read during the ranking
/// ([`Library::strict_reads`]; `Corrupt` naming the catalog file when its cards do not decode),
/// never a ranking of the cards that could be read as if they were the catalog.
pub fn explain(
    library: &dyn Library,
    question: &str,
    k: usize,
) -> Result<Vec<RankedCard>, WorkspaceError> {
    let mut ranked = Vec::new();
    library.strict_reads(&mut || ranked = explain_reads(library, question, k))?;
    Ok(ranked)
}

/// [`explain`]'s reads, their failures logged or held by the caller.
fn explain_reads(library: &dyn Library, question: &str, k: usize) -> Vec<RankedCard> {
    let ranked = super::cards::rank_explained(library, question);
    explain_ranked(&ranked, k, |id| library.card(id))
}

/// The first `k` documents of `ranked` with why each ranks where it does, as [`explain`] gives
/// them; `card_of` gives a document's card (a document it does not know is left out).
pub fn explain_ranked(
    ranked: &super::cards::RankedDocuments,
    k: usize,
    card_of: impl Fn(&str) -> Option<Arc<DocCard>>,
) -> Vec<RankedCard> {
    ranked
        .ranking
        .docs
        .iter()
        .take(k)
        .enumerate()
        .filter_map(|(i, id)| {
            let card = card_of(id)?;
            let mut why = Why::default();
            if let Some(n) = ranked.named.iter().find(|n| &n.card.doc_id == id) {
                why.name = Some(n.name.clone());
                if let Some(p) = &n.card.period {
                    why.period = Some(PeriodMatch {
                        label: p.label(),
                        score: n.period_score,
                    });
                }
            }
            why.section = ranked
                .hit_docs
                .iter()
                .position(|d| d == id)
                .map(|rank| Scored {
                    rank: rank + 1,
                    score: ranked.hit_scores[rank],
                });
            why.card = ranked
                .by_card
                .iter()
                .position(|(d, _)| d == id)
                .map(|rank| Scored {
                    rank: rank + 1,
                    score: ranked.by_card[rank].1,
                });
            Some(RankedCard {
                rank: i + 1,
                why,
                card,
            })
        })
        .collect()
}

/// Cards ranked for a question as text, what `docnav docs --for` and MCP's `docs` with `for`
/// print: per card a `N. id  — why` line, then the card's body as the analyze prompt shows it
/// ([`crate::agent::orchestrator::card_body`]), indented three spaces.
pub fn ranked_text(ranked: &[RankedCard]) -> String {
    let mut out = String::new();
    for r in ranked {
        let _ = writeln!(out, "{}. {}  — {}", r.rank, r.card.doc_id, r.why.line());
        for line in super::cards::card_body(&r.card).lines() {
            let _ = writeln!(out, "   {line}");
        }
    }
    out
}
