//! The rows of the new catalog, from the jobs' outcomes: the starting rows (an older
//! workspace's are in no store, and one of them that is not rebuilt is dropped), rebuilt ones
//! replaced, new ones added, moved ones re-stated, then each text kept once ([`duplicates`]).
//! Only these changes are written.

use std::collections::HashMap;
use std::path::Path;

use rustc_hash::FxHashSet;

use super::build::{JobContext, Outcome};
use super::duplicates;
use super::plan::{Job, Previous};
use super::{IndexOptions, IndexReport};
use crate::index::{DocCard, SectionWriter};
use crate::workspace::source_stat::SourceStatter;
use crate::workspace::{store, AliasEntry, Catalog, CatalogEntry, CatalogStore};

/// What the jobs' outcomes say about the starting catalog's rows.
pub(super) struct Tally {
    /// A rebuilt row for each starting document (by index), or `None`.
    replaced: Vec<Option<CatalogEntry>>,
    /// Rows of new documents (and of aliases built into documents).
    added: Vec<CatalogEntry>,
    /// Starting documents (by index) whose source only moved: its new size and time.
    restat: Vec<(usize, (u64, u64))>,
    /// The cards of the documents built this run, by id.
    built: HashMap<String, DocCard>,
    /// The documents built this run, to check for texts kept twice.
    candidates: Vec<duplicates::Candidate>,
    /// Starting aliases (by index) whose source only moved: its new size and time.
    alias_stat: Vec<(usize, (u64, u64))>,
    /// Each starting alias's fate in the jobs.
    alias_fates: Vec<duplicates::AliasFate>,
}

/// Count `outcomes` (job index, outcome) of `jobs` into `report` and `errors`, and sort them by
/// what they do to `catalog`'s rows. A write left over is committed through `writer` here.
pub(super) fn tally(
    jobs: &[Job],
    outcomes: Vec<(usize, Outcome)>,
    catalog: &Catalog,
    writer: &SectionWriter,
    report: &mut IndexReport,
    errors: &mut Vec<String>,
) -> Tally {
    let mut tally = Tally {
        replaced: Vec::new(),
        added: Vec::new(),
        restat: Vec::new(),
        built: HashMap::new(),
        candidates: Vec::new(),
        alias_stat: Vec::new(),
        // An alias whose source is an input is unchanged unless its outcome says otherwise.
        alias_fates: vec![duplicates::AliasFate::Unread; catalog.aliases.len()],
    };
    tally.replaced.resize_with(catalog.documents.len(), || None);
    for job in jobs {
        if let Some(Previous::Alias(a)) = job.previous {
            tally.alias_fates[a] = duplicates::AliasFate::Kept;
        }
    }
    for (i, outcome) in outcomes {
        // Every write went through the writer threads; commit any left over here.
        let outcome = match outcome {
            Outcome::Write(pending) => pending.commit(writer),
            done => done,
        };
        let previous = jobs.get(i).and_then(|job| job.previous);
        tally.count(outcome, previous, catalog, report, errors);
    }
    tally
}

impl Tally {
    /// Count one job's `outcome`, the job's row being `previous`.
    fn count(
        &mut self,
        outcome: Outcome,
        previous: Option<Previous>,
        catalog: &Catalog,
        report: &mut IndexReport,
        errors: &mut Vec<String>,
    ) {
        match outcome {
            Outcome::Built(entry, card, warnings, bytes) => {
                report.indexed += 1;
                report.bytes_built += bytes;
                report.warnings.extend(warnings);
                self.built.insert(entry.doc_id.clone(), *card);
                let was = match previous {
                    Some(Previous::Document(_)) => duplicates::Was::Document,
                    Some(Previous::Alias(a)) => {
                        self.alias_fates[a] = duplicates::AliasFate::Rebuilt;
                        duplicates::Was::AliasOf(catalog.aliases[a].target.clone())
                    }
                    None => duplicates::Was::New,
                };
                self.candidates.push(duplicates::Candidate {
                    doc_id: entry.doc_id.clone(),
                    was,
                });
                match previous {
                    Some(Previous::Document(p)) => self.replaced[p] = Some(entry),
                    Some(Previous::Alias(_)) | None => self.added.push(entry),
                }
            }
            Outcome::Unchanged(moved) => {
                report.unchanged += 1;
                match (previous, moved) {
                    (Some(Previous::Document(p)), Some(stat)) => self.restat.push((p, stat)),
                    (Some(Previous::Alias(a)), Some((len, mtime))) => {
                        self.alias_fates[a] = duplicates::AliasFate::Moved;
                        self.alias_stat.push((a, (len, mtime)));
                    }
                    _ => {}
                }
            }
            Outcome::Failed(message) => {
                report.failed += 1;
                errors.push(message);
                if let Some(Previous::Alias(a)) = previous {
                    self.alias_fates[a] = duplicates::AliasFate::Failed;
                }
            }
            Outcome::Write(_) => {}
        }
    }
}

/// The new catalog's documents.
pub(super) struct Rows {
    /// Its documents, sorted by doc id.
    pub(super) documents: Vec<CatalogEntry>,
    /// Ids of documents of the starting catalog it drops.
    pub(super) removed: Vec<String>,
    /// The cards of the documents built this run, by id.
    pub(super) built: HashMap<String, DocCard>,
    /// Tree files this run wrote for sources that are aliases now.
    pub(super) discarded: Vec<String>,
}

/// What merging the rows needs besides the tally.
pub(super) struct Merge<'a> {
    /// The starting rows are in the store (not an older workspace's).
    pub(super) in_store: bool,
    pub(super) options: &'a IndexOptions,
    /// To build an alias's source again.
    pub(super) context: &'a JobContext<'a>,
    pub(super) writer: &'a SectionWriter,
    /// With files named one by one: the catalog and their sources.
    pub(super) named_store: Option<&'a CatalogStore>,
    pub(super) named_sources: Option<&'a FxHashSet<String>>,
}

/// The rows of the new catalog from the starting `catalog` (its rows are taken) and `tally`;
/// the changes to write go into `changes`, the counts into `report`.
pub(super) fn merge(
    tally: Tally,
    catalog: &mut Catalog,
    merge: Merge<'_>,
    report: &mut IndexReport,
    errors: &mut Vec<String>,
    changes: &mut store::CatalogChanges,
) -> Rows {
    let Tally {
        replaced,
        added,
        restat,
        mut built,
        candidates,
        alias_stat,
        alias_fates,
    } = tally;
    let (mut documents, mut removed) = documents(
        std::mem::take(&mut catalog.documents),
        Changed {
            replaced,
            added,
            restat,
        },
        merge.in_store,
        merge.options.prune,
        report,
        changes,
    );
    // The aliases: re-stated, pruned like documents (when files are named, only theirs),
    // then each text kept once (`duplicates`), which may build an alias's source again.
    let mut starting_aliases = std::mem::take(&mut catalog.aliases);
    for (a, (len, mtime)) in alias_stat {
        starting_aliases[a].row.source_len = len;
        starting_aliases[a].row.mtime_ms = mtime;
    }
    let aliases = duplicates::unpruned(
        starting_aliases,
        alias_fates,
        duplicates::Pruning {
            prune: merge.options.prune,
            named_sources: merge.named_sources,
        },
        report,
        &mut changes.remove_aliases,
    );
    let mut statter = SourceStatter::default();
    let mut build_again = |alias: &AliasEntry| {
        duplicates::build_source(alias, merge.context, merge.writer, &mut statter)
    };
    let decided = duplicates::keep_once(
        duplicates::Catalog {
            documents: &mut documents,
            built: &mut built,
            removed: &mut removed,
            store: merge.named_store,
        },
        candidates,
        aliases,
        &mut build_again,
        report,
        errors,
    );
    for doc_id in &decided.unindexed {
        merge.writer.delete(doc_id);
    }
    changes.put_aliases = decided.put_aliases;
    changes.remove_aliases.extend(decided.remove_aliases);
    Rows {
        documents,
        removed,
        built,
        discarded: decided.discarded,
    }
}

/// The tally's changes to the starting documents.
struct Changed {
    replaced: Vec<Option<CatalogEntry>>,
    added: Vec<CatalogEntry>,
    restat: Vec<(usize, (u64, u64))>,
}

/// The new catalog's documents (sorted by id) and the ids it drops: the starting `documents`
/// re-stated, replaced, pruned (`prune`: a source that is gone) or, when they are in no store
/// (`!in_store`) and not rebuilt, dropped; then the added ones.
fn documents(
    mut documents: Vec<CatalogEntry>,
    changed: Changed,
    in_store: bool,
    prune: bool,
    report: &mut IndexReport,
    changes: &mut store::CatalogChanges,
) -> (Vec<CatalogEntry>, Vec<String>) {
    let Changed {
        replaced,
        mut added,
        restat,
    } = changed;
    for (p, (len, mtime)) in restat {
        documents[p].source_len = len;
        documents[p].mtime_ms = mtime;
        changes.restat.push(documents[p].clone());
    }
    let mut removed: Vec<String> = Vec::new();
    let mut kept_rows = Vec::with_capacity(documents.len() + added.len());
    for (row, replacement) in documents.into_iter().zip(replaced) {
        match replacement {
            Some(entry) => kept_rows.push(entry),
            None if !in_store => {}
            None if prune && !Path::new(&row.source).exists() => {
                report.pruned += 1;
                removed.push(row.doc_id);
            }
            None => kept_rows.push(row),
        }
    }
    if prune {
        let before = added.len();
        added.retain(|e| Path::new(&e.source).exists());
        report.pruned += before - added.len();
    }
    kept_rows.extend(added);
    kept_rows.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
    (kept_rows, removed)
}
