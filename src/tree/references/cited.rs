//! Other documents named in a node's text, found at build time and kept as written
//! ([`DocumentMention`]); which document a name means is decided when the tree is read
//! ([`crate::index::cross_refs::named`]).
//!
//! Two shapes are found, in every format (in Markdown, not inside code fences):
//! - **a numbered section of a named work**: `FHS, section 4.9`, `FHS section 4.9`, `section 4.9
//!   of the FHS`, `Section 5 of the ‘Sweave User Manual’` (keywords `section`, `chapter`, `§`
//!   with an Arabic number, any case);
//! - **"see" and a name**: `see the FHS for a definition`, `see ‘An Introduction to R’`, `See
//!   Also An Introduction to R for more`, ``see the Node.js `fs` documentation``.
//!
//! A name is a quoted or code span (`‘…’`, `“…”`, `"…"`, `` `…` ``), or a run of at most
//! [`MAX_WORDS`] words that each start with a capital letter or are code spans, joined by
//! lowercase connectors (`of`, `to`, `and`, `for`, `the`, `in`, `on`), optionally followed by
//! one generic noun (`documentation`, `docs`, `manual`, `guide`, `reference`), which is kept.
//! A run stops at a word followed by sentence punctuation, and a run before a section keyword
//! stops at the first word that is neither capitalized nor a connector between capitalized ones:
//! `except those listed in FHS, section 4.9` names `FHS`. Most mentions found so name no indexed
//! document (`see Section 2.1`, `see POSIX`); the reader drops those.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::scan::fenced_ranges;
use super::textual::table_of_contents_entry;
use crate::tree::{DocumentMention, NodeId, Tree};

/// Candidates: a "see" (or "see also") cue, or a section keyword with its number. What comes
/// before or after is read by hand ([`name_after`], [`name_before`]).
const CITED: &str = concat!(
    r"(?P<see>[Ss]ee)(?:[ \t\r\n]+[Aa]lso)?[ \t\r\n]+",
    r"|(?P<kw>[Ss]ections?|[Cc]hapters?|SECTION|CHAPTER|§)[ \t\r\n]*(?P<num>[0-9]+(?:\.[0-9]+)*)(?-u:\b)",
);

static CITED_RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(CITED).ok());

/// At most this many words make a name (a title such as `R Installation and Administration`
/// has four).
pub(super) const MAX_WORDS: usize = 8;

/// A quoted name is at most this many bytes long (longer spans are prose in quotes).
const MAX_QUOTED: usize = 120;

/// Lowercase words that may join the capitalized words of a title.
const CONNECTORS: &[&str] = &["of", "to", "and", "for", "the", "in", "on"];

/// Lowercase nouns that may end a name (``the Node.js `fs` documentation``); kept in the name, so the
/// reader knows the text said it names a document.
pub const GENERIC_NOUNS: &[&str] = &["documentation", "docs", "manual", "guide", "reference"];

/// Every mention of another document in `tree`'s node contents (see the module doc), in node
/// order and, within a node, in order of first mention; each `(from, name, section)` once.
/// `markdown`: skip matches inside code fences.
pub(super) fn scan(tree: &Tree, markdown: bool) -> Vec<DocumentMention> {
    let Some(re) = CITED_RE.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut seen: HashSet<(NodeId, String, Option<String>)> = HashSet::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        let id = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
        let content = node.content.as_str();
        let mut fences: Option<Vec<Range<usize>>> = None;
        for caps in re.captures_iter(content) {
            let Some(whole) = caps.get(0) else { continue };
            let starts_word = !content[..whole.start()]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            if !starts_word {
                continue;
            }
            let found = if caps.name("see").is_some() {
                name_after(&content[whole.end()..]).map(|name| (name, None))
            } else {
                let (Some(kw), Some(num)) = (caps.name("kw"), caps.name("num")) else {
                    continue;
                };
                let section = if kw.as_str() == "§" {
                    format!("§{}", num.as_str())
                } else {
                    format!("{} {}", kw.as_str(), num.as_str())
                };
                let line_rest = content[num.end()..].split('\n').next().unwrap_or("");
                if table_of_contents_entry(line_rest) {
                    continue;
                }
                of_name(&content[num.end()..])
                    .or_else(|| name_before(&content[..kw.start()]))
                    .map(|name| (name, Some(section)))
            };
            let Some((name, section)) = found else {
                continue;
            };
            if markdown
                && fences
                    .get_or_insert_with(|| fenced_ranges(content))
                    .iter()
                    .any(|r| r.contains(&whole.start()))
            {
                continue;
            }
            if seen.insert((id, name.clone(), section.clone())) {
                out.push(DocumentMention {
                    from: id,
                    name,
                    section,
                });
            }
        }
    }
    out
}

/// The name after `of` (and an optional `the`) that `after`, the text after a section number,
/// starts with: `section 4.9 of the FHS`.
fn of_name(after: &str) -> Option<String> {
    let rest = after.trim_start().strip_prefix("of")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    name_after(rest.trim_start())
}

/// One word of a candidate name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// Starts with a capital letter, or is a quoted or code span.
    Named,
    /// A lowercase connector ([`CONNECTORS`]).
    Connector,
    /// A generic noun ([`GENERIC_NOUNS`]).
    Noun,
}

/// Capitalized words that start a sentence or a title more often than they name anything: kept
/// inside a name (`Introduction to R`, `An Introduction to R`) but not at its ends (`In FHS,
/// section 4.9` names `FHS`).
const WEAK: &[&str] = &[
    "a", "an", "as", "per", "see", "also", "under", "from", "with", "by", "then", "at",
];

/// A word longer than this many bytes is no word of a name (a path, a URL, a hostile run):
/// names stay small in the tree file.
const MAX_WORD: usize = 60;

fn classify(word: &str, quoted: bool) -> Option<Word> {
    if word.len() > MAX_WORD && !quoted {
        return None;
    }
    let lower = word.to_lowercase();
    if !quoted && (WEAK.contains(&lower.as_str()) || CONNECTORS.contains(&lower.as_str())) {
        return (word != lower || CONNECTORS.contains(&word)).then_some(Word::Connector);
    }
    if quoted || word.starts_with(|c: char| c.is_uppercase()) {
        Some(Word::Named)
    } else if CONNECTORS.contains(&word) {
        Some(Word::Connector)
    } else if GENERIC_NOUNS.contains(&word) {
        Some(Word::Noun)
    } else {
        None
    }
}

/// The closing quote of an opening one.
fn closing_quote(open: char) -> Option<char> {
    match open {
        '‘' => Some('’'),
        '“' => Some('”'),
        '"' => Some('"'),
        '`' => Some('`'),
        '«' => Some('»'),
        _ => None,
    }
}

/// The opening quote of a closing one.
fn opening_quote(close: char) -> Option<char> {
    match close {
        '’' => Some('‘'),
        '”' => Some('“'),
        '"' => Some('"'),
        '`' => Some('`'),
        '»' => Some('«'),
        _ => None,
    }
}

/// True for punctuation that ends a name when it follows a word.
fn ends_name(c: char) -> bool {
    matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | ')' | ']' | '(' | '[')
}

/// A quoted span at the start of `text`: its inner text (trimmed) and the bytes it takes, or
/// `None` when `text` does not start with a quote closed on the same paragraph within
/// [`MAX_QUOTED`] bytes.
fn quoted_at_start(text: &str) -> Option<(&str, usize)> {
    let open = text.chars().next()?;
    let close = closing_quote(open)?;
    let body = &text[open.len_utf8()..];
    // Looked for within the bound only: a stray quote must not scan the rest of the text.
    let end = body[..floor_boundary(body, MAX_QUOTED + 1)].find(close)?;
    let inner = &body[..end];
    if end > MAX_QUOTED || inner.contains("\n\n") || inner.trim().is_empty() {
        return None;
    }
    Some((inner.trim(), open.len_utf8() + end + close.len_utf8()))
}

/// The largest char boundary of `text` at or below byte `at` (its length when shorter).
fn floor_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The name `text` starts with (after a "see" cue or `of`): an optional article `the`, then a
/// name as the module doc says; `None` when none starts there.
pub(super) fn name_after(text: &str) -> Option<String> {
    let mut rest = text;
    if let Some(r) = rest
        .strip_prefix("the")
        .or_else(|| rest.strip_prefix("The"))
        .filter(|r| r.starts_with([' ', '\t', '\r', '\n']))
    {
        rest = r.trim_start();
    }
    let mut words: Vec<(String, Word)> = Vec::new();
    while words.len() < MAX_WORDS {
        let trimmed = rest.trim_start();
        if rest.len() - trimmed.len() > 0 && rest[..rest.len() - trimmed.len()].contains("\n\n") {
            break;
        }
        rest = trimmed;
        let (word, quoted, taken) = match quoted_at_start(rest) {
            Some((inner, taken)) => (inner, true, taken),
            None => {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                (&rest[..end], false, end)
            }
        };
        if word.is_empty() {
            break;
        }
        let after = &rest[taken..];
        // Trailing punctuation ends the name after this word (`FHS,`, `R).`); a dot inside a
        // word stays (`Node.js`).
        let bare = if quoted {
            word
        } else {
            word.trim_end_matches(|c: char| ends_name(c) || matches!(c, '’' | '”' | '\''))
        };
        let stop = bare.len() < word.len() || after.starts_with(ends_name);
        let Some(kind) = classify(bare, quoted).filter(|_| !bare.is_empty()) else {
            // `see the FHS web site`, `the FHS mailing list`: the name describes something
            // else, not the document.
            if words.last().is_some_and(|(_, k)| *k == Word::Named)
                && bare.starts_with(|c: char| c.is_lowercase())
            {
                return None;
            }
            break;
        };
        if kind == Word::Noun {
            if !words.is_empty() {
                words.push((bare.to_string(), kind));
            }
            break;
        }
        words.push((bare.to_string(), kind));
        rest = after;
        if stop || quoted && words.len() == 1 && !next_is_noun(after) {
            break;
        }
    }
    join(words)
}

/// True when the next word of `text` is a generic noun (`‘Introduction to R’ manual`).
fn next_is_noun(text: &str) -> bool {
    text.split_whitespace().next().is_some_and(|w| {
        GENERIC_NOUNS.contains(&w.trim_end_matches(|c: char| ends_name(c) || c == '\''))
    })
}

/// The name `before` (the text before a section keyword) ends with, after an optional comma:
/// `listed in FHS, ` names `FHS`; `None` when it ends with no name.
pub(super) fn name_before(before: &str) -> Option<String> {
    let text = before.trim_end();
    let comma = text.strip_suffix(',');
    // Without a comma, name and keyword share a line: a title alone on the line above
    // (`Table of Contents` over `Chapter 1: Overview`) names nothing.
    if comma.is_none() && before[text.len()..].contains('\n') {
        return None;
    }
    let text = comma.unwrap_or(text).trim_end();
    if let Some(close) = text.chars().next_back() {
        if let Some(open) = opening_quote(close) {
            let body = &text[..text.len() - close.len_utf8()];
            let from = body.len().saturating_sub(MAX_QUOTED + 1);
            let from = (from..=body.len())
                .find(|&i| body.is_char_boundary(i))
                .unwrap_or(body.len());
            let start = from + body[from..].rfind(open)?;
            let inner = body[start + open.len_utf8()..].trim();
            let ok = !inner.is_empty() && inner.len() <= MAX_QUOTED && !inner.contains("\n\n");
            return ok.then(|| collapse(inner));
        }
    }
    let mut words: Vec<(String, Word)> = Vec::new();
    let mut first = true;
    for word in text.rsplit(char::is_whitespace) {
        if word.is_empty() {
            continue;
        }
        if words.len() == MAX_WORDS {
            break;
        }
        // A word followed by punctuation belongs to the clause before (only the last word of
        // the name may be followed by the comma stripped above); `New York. Sections 3.3` is
        // a sentence ending before the keyword.
        if word.ends_with(ends_name) {
            if first {
                return None;
            }
            break;
        }
        first = false;
        match classify(word, false) {
            Some(Word::Named) => words.push((word.to_string(), Word::Named)),
            Some(Word::Connector) if !words.is_empty() => {
                words.push((word.to_string(), Word::Connector));
            }
            _ => break,
        }
    }
    words.reverse();
    join(words)
}

/// The words of a name joined by single spaces, connectors at either end dropped; `None`
/// without a capitalized word.
fn join(mut words: Vec<(String, Word)>) -> Option<String> {
    while words.last().is_some_and(|(_, k)| *k == Word::Connector) {
        words.pop();
    }
    let leading = words
        .iter()
        .take_while(|(_, k)| *k == Word::Connector)
        .count();
    words.drain(..leading);
    if !words.iter().any(|(_, k)| *k == Word::Named) {
        return None;
    }
    // `see Section 2.1`, `see Chapter 3`: this document's own sections (`textual`).
    let keyword = words.first().is_some_and(|(w, _)| {
        ["section", "sections", "chapter", "chapters", "appendix"]
            .contains(&w.to_lowercase().as_str())
    });
    if keyword {
        return None;
    }
    let joined: Vec<&str> = words.iter().map(|(w, _)| w.as_str()).collect();
    Some(collapse(&joined.join(" ")))
}

/// `text` with runs of whitespace collapsed to one space.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_after_a_cue() {
        let n = |t: &str| name_after(t);
        assert_eq!(n("the FHS for a definition"), Some("FHS".into()));
        assert_eq!(
            n("‘An Introduction to R’)."),
            Some("An Introduction to R".into())
        );
        assert_eq!(
            n("the ‘Introduction to R’ manual for usage"),
            Some("Introduction to R manual".into())
        );
        assert_eq!(
            n("An Introduction to R for more options"),
            Some("Introduction to R".into())
        );
        assert_eq!(
            n("the Node.js `fs` documentation."),
            Some("Node.js fs documentation".into())
        );
        assert_eq!(
            n("Filesystem\nHierarchy Standard."),
            Some("Filesystem Hierarchy Standard".into())
        );
        assert_eq!(n("the documentation"), None);
        assert_eq!(n("the FHS web site for more"), None);
        assert_eq!(n("the FHS mailing list"), None);
        assert_eq!(n("below for details"), None);
        assert_eq!(n("of the Section"), None);
        assert_eq!(n("FHS\n\nSection 2 starts"), Some("FHS".into()));
        assert_eq!(n(&format!("‘{}’", "é".repeat(100))), None);
        assert_eq!(n(&format!("Ab{} doc", "c".repeat(80))), None);
    }

    #[test]
    fn names_before_a_section_keyword() {
        let n = |t: &str| name_before(t);
        assert_eq!(n("except those listed in FHS, "), Some("FHS".into()));
        assert_eq!(
            n("as in the Filesystem Hierarchy Standard "),
            Some("Filesystem Hierarchy Standard".into())
        );
        assert_eq!(
            n("see ‘An Introduction to R’, "),
            Some("An Introduction to R".into())
        );
        assert_eq!(n("described. "), None);
        assert_eq!(n("listed in "), None);
        assert_eq!(n("Read. Then FHS "), Some("FHS".into()));
        assert_eq!(n("In FHS "), Some("FHS".into()));
        assert_eq!(n("FHS,\n"), Some("FHS".into()));
        assert_eq!(n("Table of Contents\n"), None);
        assert_eq!(n("Harvester Wheatsheaf. "), None);
        let long = format!("see ‘{}’ ", "x ".repeat(200));
        assert_eq!(n(&long), None);
    }
}
