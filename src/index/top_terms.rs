//! [`KeywordIndex::top_terms`]: the terms that characterise a document, for its DocCard.

use super::KeywordIndex;
use crate::index::tokenize::{is_cjk, stem};

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

impl KeywordIndex {
    /// The `n` most characteristic terms of the document, best first.
    ///
    /// Score: total (title-weighted) tf over the document × `ln(1 + N / df)` over its nodes — a
    /// smoothed tf·idf that still favours terms spread over the whole document (its subject)
    /// over one-node terms of equal frequency only mildly. Excluded: terms without a letter
    /// (numbers, versions, dates), terms shorter than 3 chars (2 for CJK bigrams), terms starting
    /// with `-` (flags; the option list is not the topic), terms whose split parts are also
    /// listed (`fs.stats` when `stat` is), and [web noise](NOISE). Ties by term, ascending.
    pub fn top_terms(&self, n: usize) -> Vec<String> {
        let units = self.lengths.len() as f64;
        let mut scored: Vec<(f64, &str)> = Vec::new();
        for (i, term) in self.terms.iter().enumerate() {
            if !is_topic_word(term) {
                continue;
            }
            let (nodes, tfs) = self.postings(i);
            if nodes.is_empty() {
                continue;
            }
            let tf: f64 = tfs.iter().map(|&t| f64::from(t)).sum();
            let idf = (1.0 + units / nodes.len() as f64).ln();
            scored.push((tf * idf, term));
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let mut out: Vec<String> = Vec::new();
        for (_, term) in scored {
            if out.len() >= n {
                break;
            }
            let mut scratch = String::new();
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
}

fn is_topic_word(term: &str) -> bool {
    if term.starts_with('-') || NOISE.binary_search(&term).is_ok() {
        return false;
    }
    if !term.chars().any(char::is_alphabetic) {
        return false;
    }
    let chars = term.chars().count();
    let cjk = term.chars().any(is_cjk);
    chars >= 3 || (cjk && chars >= 2)
}
