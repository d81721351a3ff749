//! The jobs of an index run: each input with the id of its document (its row's, or a new one)
//! and where its row is in the starting catalog.

use std::borrow::Cow;
use std::collections::HashSet;

use rustc_hash::{FxHashMap, FxHashSet};

use super::inputs::Input;
use crate::workspace::{doc_id_base, unique_slug, AliasEntry, Catalog, CatalogEntry, CatalogStore};

/// One unit of parallel work.
pub(super) struct Job<'a> {
    pub(super) input: Input,
    /// The row's id, or a new one.
    pub(super) doc_id: Cow<'a, str>,
    /// The source's row in the starting catalog.
    pub(super) previous: Option<Previous>,
}

/// Where a source's row is in the starting catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Previous {
    /// A document's row (an index into [`Catalog::documents`]).
    Document(usize),
    /// An alias's (an index into [`Catalog::aliases`]).
    Alias(usize),
}

impl Previous {
    /// The row itself.
    pub(super) fn row<'a>(
        self,
        rows: &'a [CatalogEntry],
        aliases: &'a [AliasEntry],
    ) -> &'a CatalogEntry {
        match self {
            Previous::Document(i) => &rows[i],
            Previous::Alias(i) => &aliases[i].row,
        }
    }
}

/// One job per input, in order. A source with a row in `catalog` keeps its id; a new one gets
/// a unique slug of its file name, checked against the ids in use (and, when only the named
/// files' rows were read, against the whole catalog in `store`). Rows are referred to by their
/// index, not copied.
pub(super) fn plan_jobs<'a>(
    inputs: Vec<Input>,
    catalog: &'a Catalog,
    store: Option<&CatalogStore>,
) -> Vec<Job<'a>> {
    let rows = &catalog.documents;
    let aliases = &catalog.aliases;
    let by_source: FxHashMap<&str, Previous> = rows
        .iter()
        .enumerate()
        .map(|(i, e)| (e.source.as_str(), Previous::Document(i)))
        .chain(
            aliases
                .iter()
                .enumerate()
                .map(|(i, a)| (a.row.source.as_str(), Previous::Alias(i))),
        )
        .collect();
    // The ids in use, gathered only when a new document needs one.
    let mut known: Option<FxHashSet<&str>> = None;
    let mut taken: HashSet<String> = HashSet::new();
    inputs
        .into_iter()
        .map(|input| {
            let previous = by_source.get(&*input.path.to_string_lossy()).copied();
            let doc_id = match previous {
                Some(previous) => Cow::Borrowed(previous.row(rows, aliases).doc_id.as_str()),
                None => {
                    let known = known.get_or_insert_with(|| {
                        rows.iter()
                            .map(|e| e.doc_id.as_str())
                            .chain(aliases.iter().map(|a| a.alias()))
                            .collect()
                    });
                    // With only the named files' rows read, the catalog is asked.
                    let in_catalog =
                        |c: &str| store.is_some_and(|s| !matches!(s.entry(c), Ok(None)));
                    let id = unique_slug(&doc_id_base(&input.path), |c| {
                        known.contains(c) || taken.contains(c) || in_catalog(c)
                    });
                    taken.insert(id.clone());
                    Cow::Owned(id)
                }
            };
            Job {
                input,
                doc_id,
                previous,
            }
        })
        .collect()
}
