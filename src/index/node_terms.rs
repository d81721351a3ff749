//! [`NodeTerms`]: the index terms of every node of a tree, tokenized once.
//!
//! Indexing a document needs its terms twice: for its DocCard's [top terms](super::top_terms)
//! and for its entries in the [section index](super::SectionIndex). Tokenizing is the costliest
//! step of both, so a second tokenization would add its whole cost to every index run: the
//! indexer tokenizes each node once, on its compute threads, and hands tantivy the terms already
//! split (see [`super::analyzer::TermListTokenizer`]; what one pass saves: the benchmark history,
//! docs/src/benchmarks-history.md, "Scale", "One tokenization per node").

use super::tokenize::Tokenizer;
use crate::tree::Tree;

/// Separator between the terms of one node in [`NodeTerms`]. No term contains it: terms are
/// runs of alphanumerics and joiners, CJK bigrams, or URL hosts (see [`mod@super::tokenize`]).
pub const TERM_SEPARATOR: char = ' ';

/// The terms of every node of a tree ([`fn@super::tokenize`]'s rules, duplicates kept, in text
/// order), by node index: its title's and its content's, each a [`TERM_SEPARATOR`]-joined list.
#[derive(Debug, Default)]
pub struct NodeTerms {
    /// Every list, back to back.
    terms: String,
    /// Per node (in `tree.nodes` order): the end, in bytes of `terms`, of its title list and of
    /// its content list (each list starts where the previous one ends).
    ends: Vec<(usize, usize)>,
}

impl NodeTerms {
    /// Tokenize every node's title and content (one pass each). Memory: about the tree's text
    /// size (terms are lowercased copies; technical tokens add their parts).
    pub fn of(tree: &Tree) -> NodeTerms {
        let text_bytes: usize = tree
            .nodes
            .iter()
            .map(|n| n.title.len() + n.content.len())
            .sum();
        let mut out = NodeTerms {
            terms: String::with_capacity(text_bytes + text_bytes / 4),
            ends: Vec::with_capacity(tree.len()),
        };
        let mut tokenizer = Tokenizer::default();
        for node in &tree.nodes {
            let mut list = |text: &str, terms: &mut String| {
                let start = terms.len();
                tokenizer.for_each(text, |term| {
                    if terms.len() > start {
                        terms.push(TERM_SEPARATOR);
                    }
                    terms.push_str(term);
                });
                terms.len()
            };
            let title_end = list(&node.title, &mut out.terms);
            let content_end = list(&node.content, &mut out.terms);
            out.ends.push((title_end, content_end));
        }
        out
    }

    /// Nodes covered (the tree's node count).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// `true` for a tree without nodes.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The title terms of node `index` ([`TERM_SEPARATOR`]-joined; `""` when none, or when
    /// `index` is out of range).
    pub fn title(&self, index: usize) -> &str {
        let start = self.list_start(index);
        self.ends
            .get(index)
            .map_or("", |&(title_end, _)| &self.terms[start..title_end])
    }

    /// The content terms of node `index` (as [`NodeTerms::title`]).
    pub fn content(&self, index: usize) -> &str {
        self.ends
            .get(index)
            .map_or("", |&(title_end, content_end)| {
                &self.terms[title_end..content_end]
            })
    }

    fn list_start(&self, index: usize) -> usize {
        index
            .checked_sub(1)
            .and_then(|previous| self.ends.get(previous))
            .map_or(0, |&(_, content_end)| content_end)
    }
}

/// The terms of a list from [`NodeTerms`] (empty for `""`).
pub fn terms_of(list: &str) -> impl Iterator<Item = &str> {
    term_spans(list).map(|(_, term)| term)
}

/// The terms of a list from [`NodeTerms`] with the byte offset of each in `list`.
///
/// A byte loop, not `str::split(char)`: terms average a few bytes, so the split's `memchr` and
/// `memcmp` calls cost more than the bytes they scan, once per term of every document (here
/// and in the section index's term-list tokenizer, which splits every list again).
pub fn term_spans(list: &str) -> impl Iterator<Item = (usize, &str)> {
    const SEPARATOR: u8 = TERM_SEPARATOR as u8;
    const _: () = assert!(TERM_SEPARATOR.is_ascii());
    let mut start = 0usize;
    std::iter::from_fn(move || loop {
        let rest = list.get(start..).filter(|r| !r.is_empty())?;
        let len = rest
            .bytes()
            .position(|b| b == SEPARATOR)
            .unwrap_or(rest.len());
        let at = start;
        start += len + 1;
        if len > 0 {
            // The separator is ASCII, so both ends are char boundaries.
            return rest.get(..len).map(|term| (at, term));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::tokenize;
    use crate::parse::markdown::parse_markdown;
    use crate::tree::{build_tree, BuildOptions};

    proptest::proptest! {
        #[test]
        fn term_spans_split_like_str_split(list in "[a-c é設 ]{0,24}") {
            let mut expected = Vec::new();
            let mut offset = 0;
            for piece in list.split(TERM_SEPARATOR) {
                if !piece.is_empty() {
                    expected.push((offset, piece));
                }
                offset += piece.len() + TERM_SEPARATOR.len_utf8();
            }
            proptest::prop_assert_eq!(term_spans(&list).collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn each_list_holds_exactly_the_tokenizer_terms_of_its_text() {
        let text = "# Install fs.Stats\n\nRun `--max-count` twice.\n\n## 設定ファイル\n\n\
                    See https://github.com/x/y for caches.\n\n## Empty\n";
        let tree = build_tree(parse_markdown(text), &BuildOptions::default());
        let terms = NodeTerms::of(&tree);
        assert_eq!(terms.len(), tree.len());
        for (i, node) in tree.nodes.iter().enumerate() {
            assert_eq!(
                terms_of(terms.title(i)).collect::<Vec<_>>(),
                tokenize(&node.title),
                "title of node {i}"
            );
            assert_eq!(
                terms_of(terms.content(i)).collect::<Vec<_>>(),
                tokenize(&node.content),
                "content of node {i}"
            );
        }
        let flag_node = (0..terms.len())
            .find(|&i| terms_of(terms.content(i)).any(|t| t == "--max-count"))
            .expect("a node lists the flag");
        assert!(tree.nodes[flag_node].content.contains("`--max-count`"));
        assert!(terms.title(0).contains("fs.stats"), "{:?}", terms.title(0));
        assert_eq!(terms.title(tree.len()), "");
    }
}
