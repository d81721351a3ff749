//! Each text kept once (DESIGN.md §2: a document whose text equals an indexed one is kept
//! once, the other name an alias). After an index run's jobs, a source built by the run whose
//! text ([`crate::workspace::document::text_fingerprint`]: the titles and contents of its tree,
//! not its bytes) equals a kept document's becomes an alias of that document instead of a
//! document of its own; and an alias whose document no longer has its text is built again.
//!
//! Which source is kept: the one indexed first. A document the workspace held before the run,
//! and did not rebuild, is kept over any source with its text; then a source that was a
//! document before the run (an edited file); then the others — new files, aliases built again
//! — in the run's input order (by path). So `a.md` and its copy `b.md` indexed together keep
//! `a.md`; a copy added later is the alias whatever its name; re-indexing keeps what it finds.
//!
//! An alias's document going away (its source pruned with `--prune`) or changing its text
//! builds the alias's source again: it is indexed under the alias's own id, or becomes an alias
//! of another document that has its text — no source's text is lost with another's file. An
//! alias whose source is gone and whose text no document has any more is dropped. A document's
//! source deleted without `--prune` stays, as any document does, and so do its aliases.
//!
//! A source built as a duplicate was built whole (its text hash is of its tree): its tree file
//! is discarded after the commit and its section index entries deleted in the same commit. A
//! tree with no text (the hash "") is never a duplicate.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashSet;

use super::{run_job, IndexReport, Input, Job, JobContext, Outcome};
use crate::index::{DocCard, SectionWriter};
use crate::workspace::source_stat::SourceStatter;
use crate::workspace::{AliasEntry, CatalogEntry, CatalogStore};

/// What a source built this run was at the run's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Was {
    /// A document of the catalog.
    Document,
    /// An alias of this document.
    AliasOf(String),
    /// Not in the catalog.
    New,
}

/// A source built this run (its row is among the new catalog's documents).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Candidate {
    /// Its id.
    pub doc_id: String,
    /// What it was.
    pub was: Was,
}

/// How an alias of the starting catalog fared in the run's jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AliasFate {
    /// Its source is not among the run's inputs (a run over other named files).
    Unread,
    /// Its source is unchanged (counted in [`IndexReport::unchanged`]).
    Kept,
    /// Its source is unchanged but for its size or time, already updated in its row.
    Moved,
    /// Its source was built: it is one of the [`Candidate`]s.
    Rebuilt,
    /// Its source failed to build (reported): it is kept as it was.
    Failed,
}

/// A source built for an alias whose document no longer has its text.
#[derive(Debug)]
pub(super) struct Rebuilt {
    /// Its row (under the alias's id).
    pub entry: CatalogEntry,
    /// Its card.
    pub card: DocCard,
    /// Its warnings, one line each.
    pub warnings: Vec<String>,
    /// Source bytes read and built.
    pub bytes: u64,
}

/// The new catalog's documents as the check changes them.
pub(super) struct Catalog<'a> {
    /// The documents of the new catalog, sorted by doc id (again on return).
    pub documents: &'a mut Vec<CatalogEntry>,
    /// The cards of the documents built this run, by id.
    pub built: &'a mut HashMap<String, DocCard>,
    /// Ids of documents of the starting catalog the new one drops.
    pub removed: &'a mut Vec<String>,
    /// The catalog's store when the run read only the named files' rows: the other documents'
    /// texts are looked up in it.
    pub store: Option<&'a CatalogStore>,
}

/// What the check decided besides the documents.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Decided {
    /// Aliases to write (new, moved to another document, or with a new row).
    pub put_aliases: Vec<AliasEntry>,
    /// Aliases to remove (built into documents, or gone).
    pub remove_aliases: Vec<String>,
    /// Ids whose entries this run added to the section index and that are aliases now: their
    /// entries are to be deleted.
    pub unindexed: Vec<String>,
    /// Tree files this run wrote for sources that are aliases now: deleted once the catalog that
    /// names none of them is committed.
    pub discarded: Vec<String>,
}

/// Which aliases whose source is gone an index run drops.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pruning<'a> {
    /// `--prune` was given.
    pub prune: bool,
    /// When the run names files one by one, their sources (absolute): only their aliases are
    /// pruned. `None`: any alias is.
    pub named_sources: Option<&'a FxHashSet<String>>,
}

/// The starting catalog's `aliases`, each with its fate in the run's jobs (`fates`, in the same
/// order), less those pruned: with `--prune`, an alias whose source is gone (and, when files are
/// named, is one of them) is dropped, counted in `report.pruned` and its id pushed on `removed`.
pub(super) fn unpruned(
    aliases: Vec<AliasEntry>,
    fates: Vec<AliasFate>,
    pruning: Pruning<'_>,
    report: &mut IndexReport,
    removed: &mut Vec<String>,
) -> Vec<(AliasEntry, AliasFate)> {
    let mut kept = Vec::with_capacity(aliases.len());
    for (alias, fate) in aliases.into_iter().zip(fates) {
        let source = &alias.row.source;
        let named = pruning.named_sources.is_none_or(|n| n.contains(source));
        if pruning.prune && named && fate != AliasFate::Rebuilt && !Path::new(source).exists() {
            report.pruned += 1;
            removed.push(alias.row.doc_id);
        } else {
            kept.push((alias, fate));
        }
    }
    kept
}

/// Build the source of `alias` again under the alias's id, as a job of the run does (its tree
/// file written, its entries handed to `writer`), for [`keep_once`]. Returns its row and card,
/// or the error line naming the file when it cannot be read or parsed.
pub(super) fn build_source(
    alias: &AliasEntry,
    context: &JobContext<'_>,
    writer: &SectionWriter,
    statter: &mut SourceStatter,
) -> Result<Rebuilt, String> {
    let job = Job {
        input: Input {
            path: PathBuf::from(&alias.row.source),
            explicit: true,
        },
        doc_id: std::borrow::Cow::Borrowed(alias.alias()),
        previous: None,
    };
    let outcome = match run_job(&job, None, context, statter) {
        Outcome::Write(pending) => pending.commit(writer),
        other => other,
    };
    match outcome {
        Outcome::Built(entry, card, warnings, bytes) => Ok(Rebuilt {
            entry,
            card: *card,
            warnings,
            bytes,
        }),
        Outcome::Failed(message) => Err(message),
        // Without a previous row a job is never unchanged, and its write was committed above.
        Outcome::Unchanged(_) | Outcome::Write(_) => Err(format!(
            "internal error while indexing `{}` again (please report it)",
            alias.row.source
        )),
    }
}

/// The texts of the new catalog's documents, and which document keeps each.
struct Texts<'a> {
    /// Text hash → the document kept with it.
    owners: HashMap<String, String>,
    /// Document id → its text hash, for the documents the run knows.
    of_id: HashMap<String, String>,
    /// Ids the store is not asked about: the run knows them better (read, built or removed).
    shadowed: HashSet<String>,
    store: Option<&'a CatalogStore>,
}

impl Texts<'_> {
    /// The document kept with `text`. A store that cannot be read names none: the source stays
    /// a document (a text kept twice, as before this check existed; never a document lost).
    fn owner(&self, text: &str) -> Option<String> {
        if let Some(id) = self.owners.get(text) {
            return Some(id.clone());
        }
        self.store?
            .documents_with_text(text)
            .ok()?
            .into_iter()
            .map(|row| row.doc_id)
            .find(|id| !self.shadowed.contains(id))
    }

    /// The text hash of the document `doc_id` of the new catalog, `None` when it has none.
    fn text_of(&self, doc_id: &str) -> Option<String> {
        if let Some(text) = self.of_id.get(doc_id) {
            return Some(text.clone());
        }
        if self.shadowed.contains(doc_id) {
            return None;
        }
        let row = self.store?.entry(doc_id).ok()??;
        Some(row.text_sha256)
    }
}

/// The check (see the module docs), applied to `catalog`: `candidates` are the sources the run
/// built, in input order; `aliases` the starting catalog's aliases that were not pruned, with
/// how their sources fared; `build` builds an alias's source again (its tree file written and
/// its entries given to the section index, as a job's) and returns its row and card, or the
/// error line naming the file. Counts, notices (one line per new alias, per alias become a
/// document, per alias dropped), warnings and failures go to `report` and `errors`.
pub(super) fn keep_once(
    catalog: Catalog<'_>,
    candidates: Vec<Candidate>,
    aliases: Vec<(AliasEntry, AliasFate)>,
    build: &mut dyn FnMut(&AliasEntry) -> Result<Rebuilt, String>,
    report: &mut IndexReport,
    errors: &mut Vec<String>,
) -> Decided {
    let Catalog {
        documents,
        built,
        removed,
        store,
    } = catalog;
    let mut texts = Texts {
        owners: HashMap::new(),
        of_id: HashMap::with_capacity(documents.len()),
        shadowed: documents
            .iter()
            .map(|d| d.doc_id.clone())
            .chain(removed.iter().cloned())
            .collect(),
        store,
    };
    // Documents kept as they were hold their texts first, in doc id order.
    for row in documents.iter() {
        texts
            .of_id
            .insert(row.doc_id.clone(), row.text_sha256.clone());
        if !row.text_sha256.is_empty() && !built.contains_key(&row.doc_id) {
            texts
                .owners
                .entry(row.text_sha256.clone())
                .or_insert_with(|| row.doc_id.clone());
        }
    }
    let mut check = Check {
        position: documents
            .iter()
            .enumerate()
            .map(|(i, d)| (d.doc_id.clone(), i))
            .collect(),
        documents,
        built,
        removed,
        texts,
        became: HashMap::new(),
        decided: Decided::default(),
    };
    let mut order = candidates;
    // Stable: in input order within each kind.
    order.sort_by_key(|c| c.was != Was::Document);
    for candidate in order {
        check.decide(candidate, report);
    }
    let mut to_build = Vec::new();
    for (alias, fate) in aliases {
        if fate == AliasFate::Rebuilt {
            continue;
        }
        let target = check.final_document(&alias.target);
        let text = &alias.row.text_sha256;
        if !text.is_empty() && check.texts.text_of(&target).as_ref() == Some(text) {
            if target != alias.target || fate == AliasFate::Moved {
                check
                    .decided
                    .put_aliases
                    .push(AliasEntry { target, ..alias });
            }
        } else if fate == AliasFate::Failed {
            // Its source failed to build this run (reported): kept as it was until it builds.
        } else if Path::new(&alias.row.source).is_file() {
            to_build.push((alias, fate));
        } else {
            report.notices.push(format!(
                "`{}` ({}) is gone and no document has its text any more; dropped",
                alias.row.source,
                alias.alias()
            ));
            check.decided.remove_aliases.push(alias.row.doc_id);
        }
    }
    for (alias, fate) in to_build {
        // Counted unchanged by its job; now built (or failed) instead.
        if matches!(fate, AliasFate::Kept | AliasFate::Moved) {
            report.unchanged = report.unchanged.saturating_sub(1);
        }
        match build(&alias) {
            Ok(rebuilt) => {
                report.indexed += 1;
                report.bytes_built += rebuilt.bytes;
                report.warnings.extend(rebuilt.warnings);
                let doc_id = rebuilt.entry.doc_id.clone();
                check.add(rebuilt.entry, rebuilt.card);
                let was = Was::AliasOf(alias.target);
                check.decide(Candidate { doc_id, was }, report);
            }
            Err(message) => {
                report.failed += 1;
                errors.push(message);
            }
        }
    }
    check.finish()
}

/// The state of one [`keep_once`].
struct Check<'a, 'b> {
    documents: &'a mut Vec<CatalogEntry>,
    /// Each document's index in `documents` (rows are dropped from it only at the end).
    position: HashMap<String, usize>,
    built: &'a mut HashMap<String, DocCard>,
    removed: &'a mut Vec<String>,
    texts: Texts<'b>,
    /// Source become an alias → the document it names.
    became: HashMap<String, String>,
    decided: Decided,
}

impl Check<'_, '_> {
    /// Keep `candidate` as a document, or make it an alias of the document kept with its text.
    fn decide(&mut self, candidate: Candidate, report: &mut IndexReport) {
        let Candidate { doc_id, was } = candidate;
        // A row pruned meanwhile (its source gone during the run) has no text here.
        let Some(text) = self.texts.of_id.get(&doc_id).cloned() else {
            return;
        };
        let Some(row) = self.position.get(&doc_id).map(|&i| &self.documents[i]) else {
            return;
        };
        let owner = match text.is_empty() {
            true => None,
            false => self.texts.owner(&text).filter(|owner| *owner != doc_id),
        };
        let Some(owner) = owner else {
            if let Was::AliasOf(target) = &was {
                let why = match self.texts.text_of(target) {
                    Some(_) => "their texts differ now",
                    None => "that document is gone",
                };
                report.notices.push(format!(
                    "`{}` is indexed as `{doc_id}`, no longer an alias of `{target}` ({why})",
                    row.source
                ));
                self.decided.remove_aliases.push(doc_id.clone());
            }
            if !text.is_empty() {
                self.texts.owners.insert(text, doc_id);
            }
            return;
        };
        let row = row.clone();
        self.texts.of_id.remove(&doc_id);
        self.built.remove(&doc_id);
        self.decided.discarded.push(row.tree_file.clone());
        self.decided.unindexed.push(doc_id.clone());
        if was == Was::Document {
            self.removed.push(doc_id.clone());
        }
        report.indexed = report.indexed.saturating_sub(1);
        if was == Was::AliasOf(owner.clone()) {
            // Built again (forced, or its bytes changed) with the same text: as it was.
            report.unchanged += 1;
        } else {
            report.duplicates += 1;
            report.notices.push(format!(
                "`{}` has the same text as `{owner}` (kept once; `{doc_id}` is an alias)",
                row.source
            ));
        }
        self.became.insert(doc_id, owner.clone());
        self.decided.put_aliases.push(AliasEntry::new(row, owner));
    }

    /// A document built for an alias, added to the new catalog.
    fn add(&mut self, entry: CatalogEntry, card: DocCard) {
        let doc_id = entry.doc_id.clone();
        self.texts
            .of_id
            .insert(doc_id.clone(), entry.text_sha256.clone());
        self.texts.shadowed.insert(doc_id.clone());
        self.position.insert(doc_id.clone(), self.documents.len());
        self.documents.push(entry);
        self.built.insert(doc_id, card);
    }

    /// The document `doc_id` stands for once the sources become aliases are followed.
    fn final_document(&self, doc_id: &str) -> String {
        let mut at = doc_id;
        // An owner never becomes an alias, so a chain is one step; the bound is a guard.
        for _ in 0..=self.became.len() {
            match self.became.get(at) {
                Some(next) => at = next,
                None => break,
            }
        }
        at.to_string()
    }

    /// The documents without the sources become aliases, sorted by doc id; the decisions.
    fn finish(self) -> Decided {
        let became = self.became;
        self.documents
            .retain(|row| !became.contains_key(&row.doc_id));
        self.documents.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        self.decided
    }
}

#[cfg(test)]
#[path = "duplicates_tests.rs"]
mod tests;
