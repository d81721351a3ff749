//! Cross-document references resolved against the catalog: which card a document named in the
//! text is ([`named`]), and the lookup keys the catalog files cards under.
//!
//! Lookup keys: the short strings a catalog files each DocCard under, so that a reader resolving
//! a link ([`crate::tree::references::external::target_document`]), a document named in the text
//! ([`named::named_document`]) or a name in a question (the Orchestrator's pre-rank)
//! asks the catalog for the few cards that can match instead of walking all of them (at
//! 100,000 documents a walk of the catalog is most of a command's time).
//!
//! Keys are a filter, never the rule: every card a rule accepts carries a key the reader asks
//! for, and the rule then runs on the cards found exactly as over the whole catalog. Kinds
//! (prefix before `:`):
//! - `name:` the document's name ([`DocCard::name`]: the file stem up to a `__`, lowercase);
//! - `src:` the source path, `.` and `..` resolved lexically;
//! - `file:` the file name, lowercase, and every tail of it after a `_`, `-` or `.` (a
//!   flattened copy `ripgrep__GUIDE.md` answers to a link to `GUIDE.md`);
//! - `title:`, `acronym:`, `stem:`, `page:`, `page-acronym:` the forms of
//!   [`named::named_document`]'s rules 1–4;
//! - `entity:` the [`super::names::name_keys`] of each of the card's names (the
//!   pre-rank's documents a question names).

pub mod named;
#[cfg(test)]
mod tests;

use crate::index::DocCard;
use crate::tree::references::external::source_keys;

/// Every key `card` is filed under (see the module docs), each once.
pub fn lookup_keys(card: &DocCard) -> Vec<String> {
    let mut keys = vec![name_key(&card.name())];
    keys.extend(source_keys(&card.source));
    keys.extend(named::card_keys(card));
    keys.extend(card.names.iter().flat_map(|n| super::names::name_keys(n)));
    keys.sort();
    keys.dedup();
    keys
}

/// The key of documents named `name` ([`DocCard::name`]; compared lowercase).
pub fn name_key(name: &str) -> String {
    format!("name:{}", name.to_lowercase())
}
