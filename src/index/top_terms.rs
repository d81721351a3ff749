//! [`top_terms`]: the terms that characterise a document, for its DocCard.

use rustc_hash::FxHashMap;

use super::node_terms::{terms_of, NodeTerms};
use super::sections::TITLE_WEIGHT;
use super::tokenize::{is_cjk, stem};
use crate::tree::Tree;

/// Web and markup residue that tops the frequency list of READMEs (badge links, image tags)
/// without saying what the document is about. Excluded from top terms only, still searchable.
pub(super) const NOISE: &[&str] = &[
    "amp",
    "com",
    "gif",
    "github.com",
    "href",
    "htm",
    "html",
    "http",
    "img",
    "jpg",
    "nbsp",
    "org",
    "png",
    "src",
    "svg",
    "www",
];

/// The `n` most characteristic terms of `tree`, best first.
///
/// Score: total (title-weighted, see [`TITLE_WEIGHT`]) tf over the document × `ln(1 + N / df)`
/// over its `N` nodes — a smoothed tf·idf that still favours terms spread over the whole
/// document (its subject) over one-node terms of equal frequency only mildly. Excluded: terms
/// without a letter (numbers, versions, dates), terms shorter than 3 chars (2 for CJK bigrams),
/// terms starting with `-` (flags; the option list is not the topic), terms whose split parts are
/// also listed (`fs.stats` when `stat` is), and web noise (`NOISE`: `href`, `github.com`, …). Ties
/// by term, ascending.
pub fn top_terms(tree: &Tree, n: usize) -> Vec<String> {
    top_terms_of(&NodeTerms::of(tree), n)
}

/// [`top_terms`] of a tree already tokenized ([`NodeTerms::of`] the tree).
pub fn top_terms_of(terms: &NodeTerms, n: usize) -> Vec<String> {
    // term (borrowed from `terms`) → (total weighted tf, nodes containing it, last node seen).
    // rustc's Fx hash: the table is built once per document from its own text, so it needs no
    // DoS resistance, and SipHash costs several times as much per short key.
    let mut counts: FxHashMap<&str, (u64, u32, usize)> = FxHashMap::default();
    let mut add = |term, weight: u64, node: usize| {
        let entry = counts.entry(term).or_insert((0, 0, usize::MAX));
        entry.0 += weight;
        if entry.2 != node {
            entry.1 += 1;
            entry.2 = node;
        }
    };
    for i in 0..terms.len() {
        terms_of(terms.title(i)).for_each(|t| add(t, TITLE_WEIGHT as u64, i));
        terms_of(terms.content(i)).for_each(|t| add(t, 1, i));
    }
    let units = terms.len() as f64;
    let mut scored: Vec<(f64, &str)> = counts
        .iter()
        .filter(|(term, _)| is_topic_word(term))
        .map(|(term, &(tf, df, _))| (tf as f64 * (1.0 + units / f64::from(df)).ln(), *term))
        .collect();
    let best_first = |a: &(f64, &str), b: &(f64, &str)| b.0.total_cmp(&a.0).then(a.1.cmp(b.1));
    // A document has thousands of distinct terms and only the first few are read: order a
    // prefix (enough for `n` unless many of it are redundant), and the rest only if needed.
    // Same result as ordering all of them, without sorting thousands of terms per document to
    // read a dozen.
    let prefix = n.saturating_mul(4).max(16);
    if scored.len() > prefix {
        scored.select_nth_unstable_by(prefix, best_first);
        let (head, rest) = scored.split_at_mut(prefix);
        head.sort_by(best_first);
        let out = pick(head, n, Vec::new());
        if out.len() >= n {
            return out;
        }
        rest.sort_by(best_first);
        return pick(rest, n, out);
    }
    scored.sort_by(best_first);
    pick(&scored, n, Vec::new())
}

/// Append to `out` the terms of `ranked` (best first) until it holds `n`, skipping a term
/// whose split parts are already listed (`fs.stats` after `stat`).
fn pick(ranked: &[(f64, &str)], n: usize, mut out: Vec<String>) -> Vec<String> {
    let mut scratch = String::new();
    for &(_, term) in ranked {
        if out.len() >= n {
            break;
        }
        let redundant = term.contains(['.', '_', '-'])
            && term.split(['.', '_', '-']).any(|p| {
                let p = stem(p, &mut scratch);
                out.iter().any(|o| o == p)
            });
        if !redundant {
            out.push(term.to_string());
        }
    }
    out
}

fn is_topic_word(term: &str) -> bool {
    if term.starts_with('-') || NOISE.binary_search(&term).is_ok() {
        return false;
    }
    // Most terms are ASCII: bytes are chars there, and none is CJK (asked of every distinct
    // term of every document, so the common case must not decode chars one by one).
    if term.is_ascii() {
        return term.len() >= 3 && term.bytes().any(|b| b.is_ascii_alphabetic());
    }
    if !term.chars().any(char::is_alphabetic) {
        return false;
    }
    let chars = term.chars().count();
    let cjk = term.chars().any(is_cjk);
    chars >= 3 || (cjk && chars >= 2)
}
