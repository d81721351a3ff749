//! [`top_terms`]: the terms that characterise a document, for its DocCard.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::sections::TITLE_WEIGHT;
use super::tokenize::{is_cjk, stem, Tokenizer};
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
/// terms starting with `-` (flags; the option list is not the topic), terms whose split parts
/// are also listed (`fs.stats` when `stat` is), and [web noise](NOISE). Ties by term, ascending.
pub fn top_terms(tree: &Tree, n: usize) -> Vec<String> {
    // term → (total weighted tf, nodes containing it, last node seen)
    let mut counts: HashMap<String, (u64, u32, usize), BuildHasherDefault<FxHasher>> =
        HashMap::default();
    let mut tokenizer = Tokenizer::default();
    let mut add = |term: &str, weight: u64, node: usize| match counts.get_mut(term) {
        Some(entry) => {
            entry.0 += weight;
            if entry.2 != node {
                entry.1 += 1;
                entry.2 = node;
            }
        }
        None => {
            counts.insert(term.to_string(), (weight, 1, node));
        }
    };
    for (i, node) in tree.nodes.iter().enumerate() {
        tokenizer.for_each(&node.title, |t| add(t, TITLE_WEIGHT as u64, i));
        tokenizer.for_each(&node.content, |t| add(t, 1, i));
    }
    let units = tree.len() as f64;
    let mut scored: Vec<(f64, &str)> = counts
        .iter()
        .filter(|(term, _)| is_topic_word(term))
        .map(|(term, &(tf, df, _))| {
            (
                tf as f64 * (1.0 + units / f64::from(df)).ln(),
                term.as_str(),
            )
        })
        .collect();
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

/// The multiply-rotate hash of rustc's `FxHasher` (not DoS-resistant; the table is built once
/// per document from its own text). SipHash was a tenth of this pass.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
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
