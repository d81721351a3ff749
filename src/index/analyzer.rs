//! docnav's tokenizer ([`mod@super::tokenize`]) as a tantivy tokenizer, so the section index keeps
//! the technical tokens docnav always kept (`--max-count`, `fs.stats`, `1.8.0`, `o_direct`, CJK
//! bigrams, plural-only stemming) instead of tantivy's default word splitter.
//!
//! Tokens carry the byte range of the span they came from (a technical token's parts share
//! the range of the whole), which is what tantivy's `SnippetGenerator` highlights.

use std::sync::Arc;

use tantivy::tokenizer::{Token, TokenStream, Tokenizer as TantivyTokenizer};

use super::backlog::Backlog;
use super::node_terms::term_spans;
use super::tokenize::Tokenizer;

/// Name under which [`DocnavTokenizer`] is registered in the section index.
pub const TOKENIZER_NAME: &str = "docnav";

/// Name under which [`TermListTokenizer`] is registered in the section index.
pub const TERM_LIST_TOKENIZER_NAME: &str = "docnav-terms";

/// A tantivy [`TantivyTokenizer`] running [`Tokenizer`]. Token structs are pooled and reused
/// between texts, so indexing allocates only when a text has more tokens than any before.
#[derive(Debug, Clone, Default)]
pub struct DocnavTokenizer {
    inner: TokenizerState,
    pool: Vec<Token>,
}

/// [`Tokenizer`] is not `Clone`; its buffers are scratch space, so a clone starts empty.
#[derive(Debug, Default)]
struct TokenizerState(Tokenizer);

impl Clone for TokenizerState {
    fn clone(&self) -> Self {
        TokenizerState::default()
    }
}

/// The tokens of one text, borrowed from the [`DocnavTokenizer`]'s pool.
pub struct DocnavTokenStream<'a> {
    tokens: &'a mut [Token],
    /// Index of the current token plus one (0 before the first `advance`).
    next: usize,
}

/// A tantivy tokenizer for text that is already a list of terms joined by
/// [`super::node_terms::TERM_SEPARATOR`] ([`super::NodeTerms`]): each piece is one token, as is. The section index
/// feeds node text this way so the indexing threads do not tokenize what the compute threads
/// already did; ranges are within the list (nothing reads them: the field has no positions
/// and snippets are cut from the node's text, read from its tree, with [`DocnavTokenizer`]).
///
/// An index writer registers one that reports the bytes of each list it splits to the
/// writer's [`Backlog`] (what tantivy's indexing threads have taken off their queue).
#[derive(Debug, Clone, Default)]
pub struct TermListTokenizer {
    pool: Vec<Token>,
    backlog: Option<Arc<Backlog>>,
}

impl TermListTokenizer {
    /// A tokenizer that releases each split list's length in bytes from `backlog`.
    pub fn releasing(backlog: Arc<Backlog>) -> TermListTokenizer {
        TermListTokenizer {
            pool: Vec::new(),
            backlog: Some(backlog),
        }
    }
}

impl TantivyTokenizer for TermListTokenizer {
    type TokenStream<'a> = DocnavTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> DocnavTokenStream<'a> {
        if let Some(backlog) = &self.backlog {
            backlog.release(text.len());
        }
        let pool = &mut self.pool;
        let mut count = 0usize;
        for (start, term) in term_spans(text) {
            set_token(pool, &mut count, term, start..start + term.len());
        }
        DocnavTokenStream {
            tokens: &mut pool[..count],
            next: 0,
        }
    }
}

impl TantivyTokenizer for DocnavTokenizer {
    type TokenStream<'a> = DocnavTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> DocnavTokenStream<'a> {
        let DocnavTokenizer { inner, pool } = self;
        let mut count = 0usize;
        inner
            .0
            .for_each_with_range(text, |term, range| set_token(pool, &mut count, term, range));
        DocnavTokenStream {
            tokens: &mut pool[..count],
            next: 0,
        }
    }
}

/// Make `pool[*count]` the token `term` at byte `range` (position `*count`), growing the pool
/// when it is full, and count it.
fn set_token(pool: &mut Vec<Token>, count: &mut usize, term: &str, range: std::ops::Range<usize>) {
    if pool.len() == *count {
        pool.push(Token::default());
    }
    let token = &mut pool[*count];
    token.text.clear();
    token.text.push_str(term);
    token.offset_from = range.start;
    token.offset_to = range.end;
    token.position = *count;
    token.position_length = 1;
    *count += 1;
}

impl TokenStream for DocnavTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1))]
    }

    fn token_mut(&mut self) -> &mut Token {
        let i = self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1));
        &mut self.tokens[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<(String, String)> {
        let mut tokenizer = DocnavTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), text[t.offset_from..t.offset_to].to_string()));
        }
        out
    }

    #[test]
    fn technical_tokens_are_kept_whole_and_split_with_their_source_range() {
        assert_eq!(
            terms("Use --max-count and fs.Stats here."),
            vec![
                ("use".into(), "Use".into()),
                ("--max-count".into(), "--max-count".into()),
                ("max".into(), "--max-count".into()),
                ("count".into(), "--max-count".into()),
                ("fs.stats".into(), "fs.Stats".into()),
                ("fs".into(), "fs.Stats".into()),
                ("stat".into(), "fs.Stats".into()),
                ("here".into(), "here".into()),
            ]
        );
    }

    #[test]
    fn a_term_list_yields_its_terms_as_they_are() {
        let mut tokenizer = TermListTokenizer::default();
        let mut stream = tokenizer.token_stream("fs.stats  --max-count 設定 ");
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
        }
        assert_eq!(
            out,
            vec![
                ("fs.stats".into(), 0, 8, 0),
                ("--max-count".into(), 10, 21, 1),
                ("設定".into(), 22, 28, 2),
            ]
        );
    }

    #[test]
    fn the_pool_is_reused_and_a_shorter_text_yields_only_its_tokens() {
        let mut tokenizer = DocnavTokenizer::default();
        {
            let mut s = tokenizer.token_stream("alpha beta gamma delta");
            let mut n = 0;
            while s.advance() {
                n += 1;
            }
            assert_eq!(n, 4);
        }
        let mut s = tokenizer.token_stream("設定 omega");
        let mut seen = Vec::new();
        while s.advance() {
            seen.push(s.token().text.clone());
        }
        assert_eq!(seen, vec!["設定".to_string(), "omega".to_string()]);
    }
}
