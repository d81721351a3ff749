//! Tokenizer shared by indexing, queries and reranking: one pass over the text, no regex, one
//! reused buffer (tokens are handed to a callback as `&str`, so indexing allocates only for new
//! dictionary terms).
//!
//! Rules, in order:
//! 1. **Spans.** The text is cut into spans of word characters (Unicode alphanumerics that are not
//!    CJK) joined by *joiners* `.`, `_`, `-`. Joiners at the end of a span are dropped (`end.`);
//!    at the start only a `-` or `--` right before a letter is kept (`--max-count`, `-n`).
//!    Everything is lowercased (ASCII fast path, `char::to_lowercase` otherwise).
//! 2. **Plain words** (spans without a joiner) are dropped when they are one char long, longer
//!    than [`MAX_TOKEN_BYTES`], or in the built-in English [stopword list](STOPWORDS); the rest are
//!    stemmed (rule 5) and emitted.
//! 3. **Technical tokens** (spans with a joiner) are emitted whole (`fs.stats`, `--max-count`,
//!    `o_direct`, unstemmed) and then split at joiners; each part goes through rule 2 except that
//!    parts made only of digits are dropped (`v2.beta` → `v2.beta`, `v2`, `beta`).
//! 4. **Version-like tokens** (digits joined by joiners, optionally led by `v`: `1.8.0`, `v1.8.0`,
//!    `2023-01-15`) are emitted whole only, plus the whole without its `v`. Splitting them would
//!    emit `1`, `8`, `0`, which occur in every changelog entry and would make every version
//!    question match every release.
//! 5. **Stemming** is a plural-only "S-stemmer" after Harman (1991), *How effective is
//!    suffixing?*, JASIS 42(1): words longer than 3 bytes ending in `ies` (not `eies`/`aies`)
//!    take `y`; `sses`, `shes`, `ches`, `xes` lose `es`; other words ending in `s` but not `ss`,
//!    `us` or `is` lose the `s`. `caches` is an exception (→ `cache`). No `-ing`/`-ed` stripping:
//!    it conflates too many technical words (`used` → `us`) for what it gains.
//! 6. **CJK** runs (Han, Hiragana, Katakana, Hangul) are emitted as overlapping character
//!    bigrams (`設定ファイル` → `設定`, `定フ`, `ファ`, `ァイ`, `イル`); a one-char run is emitted
//!    as itself. This is Lucene's `CJKBigramFilter` scheme: no dictionary needed, and queries
//!    tokenized the same way match.
//!
//! 7. **URLs** (`http://`, `https://`, `ftp://`) contribute their host only (`github.com`,
//!    `github`, `com`); scheme, path, query and fragment are skipped. Changelogs and READMEs
//!    carry hundreds of links whose paths (`tree`, `pull`, `compare`, commit hashes) would
//!    otherwise dominate their term statistics.
//!
//! camelCase is not split (`readFileSync` → `readfilesync`).

/// Tokens longer than this (in bytes) are dropped: base64 blobs, hashes and URLs-as-one-token
/// would only bloat the dictionary.
pub const MAX_TOKEN_BYTES: usize = 64;

/// English stopwords removed from plain words and from parts of technical tokens (sorted).
/// Short on purpose: pronouns, articles, auxiliaries, prepositions and question words that
/// carry no topic. Prepositions that can carry a question's meaning (`before`, `after`,
/// `without`, `within`, `over`) are kept; `per` and `via` only relate two nouns, as `by` does,
/// and are in the SMART stoplist (Salton 1971; Lewis et al. 2004, RCV1 appendix 11). Kept in
/// the index, `per` matches every `bits_per_digit` and `Per-drive` part, and node's `fs.Dirent`
/// question ("… without a stat per file", `fixtures/qa.jsonl` line 44) loses its gold section
/// from the top 5 to Python's `sys.int_info`.
pub const STOPWORDS: &[&str] = &[
    "a", "about", "also", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or",
    "our", "per", "she", "should", "so", "such", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "to", "too", "very", "via", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "you", "your",
];

/// Index terms of `text`, in text order, duplicates kept. See the module docs for the rules.
/// Returns an empty vector for text without words.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_string()));
    out
}

/// Call `emit` with each index term of `text` in text order (same terms as [`tokenize`]) without
/// allocating a `String` per term. The `&str` is only valid during the call.
pub fn for_each_token<F: FnMut(&str)>(text: &str, emit: F) {
    Tokenizer::default().for_each(text, emit);
}

/// Byte range of `text` a term came from: its whole span (a technical token's parts share the
/// range of the whole token; a URL's terms, the host's range).
pub type SourceRange = std::ops::Range<usize>;

/// A tokenizer that keeps its scratch buffers between texts (for indexing many nodes).
#[derive(Debug, Default)]
pub struct Tokenizer {
    buf: String,
    scratch: String,
}

impl Tokenizer {
    /// Same as [`for_each_token`], reusing this tokenizer's buffers.
    pub fn for_each<F: FnMut(&str)>(&mut self, text: &str, mut emit: F) {
        let Tokenizer { buf, scratch } = self;
        run(text, buf, scratch, &mut |term, _| emit(term));
    }

    /// Like [`Tokenizer::for_each`], with the byte range of `text` each term came from (for
    /// snippets and highlighting).
    pub fn for_each_with_range<F: FnMut(&str, SourceRange)>(&mut self, text: &str, mut emit: F) {
        let Tokenizer { buf, scratch } = self;
        run(text, buf, scratch, &mut emit);
    }
}

fn run<F: FnMut(&str, SourceRange)>(
    text: &str,
    buf: &mut String,
    scratch: &mut String,
    emit: &mut F,
) {
    let bytes = text.as_bytes();
    let mut span_start: Option<usize> = None;
    let mut cjk_start: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        // ASCII (most technical text) is classified by table, byte by byte; other chars are
        // decoded first.
        let b = bytes[i];
        let (kind, len) = if b.is_ascii() {
            (ASCII_KINDS[b as usize], 1)
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            (classify(c), c.len_utf8())
        };
        if b == b':' {
            if let Some(s) = span_start {
                if let Some((host, end)) = url_at(text, s, i) {
                    span_start = None;
                    emit_span(text, host, buf, scratch, emit);
                    i = end.max(i + 1);
                    continue;
                }
            }
        }
        if kind != Kind::Cjk {
            if let Some(s) = cjk_start.take() {
                emit_cjk(text, s..i, emit);
            }
        }
        match kind {
            Kind::Word | Kind::Joiner => {
                if span_start.is_none() {
                    span_start = Some(i);
                }
                // The rest of an ASCII run of word chars and joiners needs none of the checks
                // above (no `:`, no CJK): skip to its end.
                i += len;
                while i < bytes.len() && is_ascii_span_byte(bytes[i]) {
                    i += 1;
                }
                continue;
            }
            Kind::Cjk => {
                if let Some(s) = span_start.take() {
                    emit_span(text, s..i, buf, scratch, emit);
                }
                if cjk_start.is_none() {
                    cjk_start = Some(i);
                }
            }
            Kind::Other => {
                if let Some(s) = span_start.take() {
                    emit_span(text, s..i, buf, scratch, emit);
                }
            }
        }
        i += len;
    }
    if let Some(s) = span_start {
        emit_span(text, s..text.len(), buf, scratch, emit);
    }
    if let Some(s) = cjk_start {
        emit_cjk(text, s..text.len(), emit);
    }
}

/// A URL whose scheme is `text[start..colon]`: the byte range of its host and the byte offset
/// where the URL ends (whitespace or a closing `)`, `]`, `>`, `"`, `'`, `` ` ``), or `None` when
/// this is not `http://`, `https://` or `ftp://`. The scheme and the path are not indexed (rule 7).
fn url_at(text: &str, start: usize, colon: usize) -> Option<(SourceRange, usize)> {
    let rest = text[colon..].strip_prefix("://")?;
    let scheme = &text[start..colon];
    let known = ["http", "https", "ftp"]
        .iter()
        .any(|k| scheme.eq_ignore_ascii_case(k));
    if !known {
        return None;
    }
    let host_start = colon + 3;
    let host_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .unwrap_or(rest.len());
    let after_host = &rest[host_len..];
    let path_len = after_host
        .find(|c: char| c.is_whitespace() || matches!(c, ')' | ']' | '>' | '"' | '\'' | '`'))
        .unwrap_or(after_host.len());
    let host = host_start..host_start + host_len;
    Some((host, host_start + host_len + path_len))
}

/// An ASCII word char or joiner (`[0-9A-Za-z._-]`).
fn is_ascii_span_byte(b: u8) -> bool {
    b < 128 && matches!(ASCII_KINDS[b as usize], Kind::Word | Kind::Joiner)
}

/// An ASCII joiner byte (`.`, `_`, `-`); a joiner is never part of a multi-byte char.
fn is_joiner_byte(b: u8) -> bool {
    matches!(b, b'.' | b'_' | b'-')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Joiner,
    Cjk,
    Other,
}

/// [`classify`] of every ASCII byte.
const ASCII_KINDS: [Kind; 128] = {
    let mut table = [Kind::Other; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphanumeric() {
            Kind::Word
        } else if c == b'.' || c == b'_' || c == b'-' {
            Kind::Joiner
        } else {
            Kind::Other
        };
        b += 1;
    }
    table
};

fn classify(c: char) -> Kind {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Kind::Word
        } else if is_joiner(c) {
            Kind::Joiner
        } else {
            Kind::Other
        };
    }
    if is_cjk(c) {
        Kind::Cjk
    } else if c.is_alphanumeric() {
        Kind::Word
    } else {
        Kind::Other
    }
}

fn is_joiner(c: char) -> bool {
    matches!(c, '.' | '_' | '-')
}

/// Han (CJK Unified Ideographs and extensions A/B, compatibility), Hiragana, Katakana (with
/// phonetic extensions and half-width forms) and Hangul syllables/jamo.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF       // Hiragana, Katakana
        | 0x31F0..=0x31FF     // Katakana phonetic extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9F     // half-width Katakana
        | 0x1100..=0x11FF     // Hangul jamo
        | 0x3130..=0x318F     // Hangul compatibility jamo
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0x20000..=0x2A6DF) // CJK extension B
}

/// Bigrams of the CJK run `text[range]` (a one-char run is emitted alone).
fn emit_cjk<F: FnMut(&str, SourceRange)>(text: &str, range: SourceRange, emit: &mut F) {
    let run = &text[range.clone()];
    let mut prev = 0;
    let mut pairs = 0;
    for (i, c) in run.char_indices().skip(1) {
        let end = i + c.len_utf8();
        emit(&run[prev..end], range.start + prev..range.start + end);
        prev = i;
        pairs += 1;
    }
    if pairs == 0 && !run.is_empty() {
        emit(run, range);
    }
}

fn emit_span<F: FnMut(&str, SourceRange)>(
    text: &str,
    range: SourceRange,
    buf: &mut String,
    scratch: &mut String,
    emit: &mut F,
) {
    // Joiners are ASCII, so trimming them byte by byte stays on char boundaries.
    let bytes = &text.as_bytes()[range.clone()];
    let end = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|&&b| is_joiner_byte(b))
            .count();
    let prefix_len = bytes[..end]
        .iter()
        .take_while(|&&b| is_joiner_byte(b))
        .count();
    if prefix_len == end {
        return;
    }
    let prefix = &bytes[..prefix_len];
    let keep_prefix = (prefix == b"-" || prefix == b"--")
        && text[range.start + prefix_len..]
            .chars()
            .next()
            .is_some_and(char::is_alphabetic);
    let start = if keep_prefix {
        range.start
    } else {
        range.start + prefix_len
    };
    let source = start..range.start + end;
    let span = &text[source.clone()];

    buf.clear();
    if span.is_ascii() {
        buf.push_str(span);
        buf.make_ascii_lowercase();
    } else {
        for c in span.chars() {
            buf.extend(c.to_lowercase());
        }
    }
    if !buf.bytes().any(is_joiner_byte) {
        emit_word(buf, &source, scratch, emit);
        return;
    }
    if buf.len() <= MAX_TOKEN_BYTES {
        emit(buf, source.clone());
    }
    if is_version_like(buf) {
        if let Some(bare) = buf.strip_prefix('v') {
            emit(bare, source);
        }
        return;
    }
    for part in buf.split(is_joiner) {
        if !part.is_empty() && !part.bytes().all(|b| b.is_ascii_digit()) {
            emit_word(part, &source, scratch, emit);
        }
    }
}

/// Digits joined by joiners, optionally led by `v`: `1.8.0`, `v2.1`, `2023-01-15`.
fn is_version_like(token: &str) -> bool {
    let token = token.strip_prefix('v').unwrap_or(token);
    token
        .split(is_joiner)
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn emit_word<F: FnMut(&str, SourceRange)>(
    word: &str,
    source: &SourceRange,
    scratch: &mut String,
    emit: &mut F,
) {
    let mut chars = word.chars();
    if chars.next().is_none() || chars.next().is_none() || word.len() > MAX_TOKEN_BYTES {
        return;
    }
    if is_stopword(word) {
        return;
    }
    emit(stem(word, scratch), source.clone());
}

/// Longest entry of [`STOPWORDS`], in bytes.
const STOPWORD_MAX_BYTES: usize = 8;

/// `word` packed into a `u64` (bytes little-endian, zero padded); `word` ≤ 8 bytes.
fn pack(word: &str) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..word.len()].copy_from_slice(word.as_bytes());
    u64::from_le_bytes(bytes)
}

/// Slots of [`STOPWORD_TABLE`] (a power of two, about three times the stopwords).
const STOPWORD_SLOTS: usize = 256;

/// Slot where the probe for a packed word starts (Fibonacci hashing: the top 8 bits of the
/// product with 2^64/φ).
const fn stopword_slot(packed: u64) -> usize {
    (packed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize
}

/// `word` packed into a `u64` at compile time (see [`pack`]).
const fn pack_const(word: &str) -> u64 {
    let bytes = word.as_bytes();
    let mut packed = 0u64;
    let mut i = 0;
    while i < bytes.len() {
        packed |= (bytes[i] as u64) << (8 * i);
        i += 1;
    }
    packed
}

/// [`STOPWORDS`] packed ([`pack`]) into an open-addressing table with linear probing; 0 marks
/// an empty slot (no packed word is 0).
const STOPWORD_TABLE: [u64; STOPWORD_SLOTS] = {
    let mut table = [0u64; STOPWORD_SLOTS];
    let mut w = 0;
    while w < STOPWORDS.len() {
        let packed = pack_const(STOPWORDS[w]);
        let mut slot = stopword_slot(packed);
        while table[slot] != 0 {
            slot = (slot + 1) % STOPWORD_SLOTS;
        }
        table[slot] = packed;
        w += 1;
    }
    table
};

/// Membership in [`STOPWORDS`] without string comparisons: the word packed into a `u64`, looked
/// up in a hash table built at compile time (one probe for most words): every token of every
/// document is looked up, so a search with a comparison per probe, of strings or of packed
/// words, would cost a large share of tokenizing.
fn is_stopword(word: &str) -> bool {
    if word.len() > STOPWORD_MAX_BYTES {
        return false;
    }
    let packed = pack(word);
    let mut slot = stopword_slot(packed);
    loop {
        match STOPWORD_TABLE[slot] {
            0 => return false,
            entry if entry == packed => return true,
            _ => slot = (slot + 1) % STOPWORD_SLOTS,
        }
    }
}

/// The plural-only S-stemmer of the module docs. `scratch` holds the result when it is not a
/// prefix of `word`.
pub(crate) fn stem<'a>(word: &'a str, scratch: &'a mut String) -> &'a str {
    let b = word.as_bytes();
    let n = b.len();
    if n <= 3 || b[n - 1] != b's' || !(b[n - 2].is_ascii_alphabetic() || b[n - 2] >= 0x80) {
        return word;
    }
    if word == "caches" {
        return "cache";
    }
    if word.ends_with("ies") && !word.ends_with("eies") && !word.ends_with("aies") {
        scratch.clear();
        scratch.push_str(&word[..n - 3]);
        scratch.push('y');
        return scratch;
    }
    if ["sses", "shes", "ches", "xes"]
        .iter()
        .any(|s| word.ends_with(s))
    {
        return &word[..n - 2];
    }
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word;
    }
    &word[..n - 1]
}

#[cfg(test)]
#[path = "tokenize_tests.rs"]
mod tests;
