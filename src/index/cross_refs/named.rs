//! Documents named in the text (`except those listed in FHS, section 4.9`, `see ‘An
//! Introduction to R’`), resolved when a tree is read against a catalog.
//!
//! At build time a mention is kept as written ([`crate::tree::DocumentMention`], found by
//! `cited`): which indexed document a name means depends on what else is indexed. A reader
//! (`cat`'s `[see also: …]` line) resolves the name with [`named_document`] over the catalog's
//! cards, then the section with [`section_node`](crate::tree::references::section_node) over the target's tree.
//!
//! False references cost more than missing ones (an agent follows them), so the rule is strict:
//! a name resolves only when exactly one other document answers to it, and never when it could
//! mean the mentioning document itself or one of its own headings.

use std::borrow::Borrow;

use crate::index::DocCard;
use crate::tree::references::GENERIC_NOUNS;
use crate::tree::{DocumentMention, Tree};

/// Names of parts of a document (`see the Table of Contents`, `Index, section 2`): they name
/// the mentioning document's own part, never another document titled so.
const DOCUMENT_PARTS: &[&str] = &[
    "table of contents",
    "contents",
    "index",
    "introduction",
    "preface",
    "foreword",
    "overview",
    "summary",
    "glossary",
    "bibliography",
    "references",
    "appendix",
    "notes",
    "license",
    "changelog",
    "change log",
    "readme",
];

/// How many words of a card's summary are its title page (see [`named_document`], rule 4).
const TITLE_PAGE_WORDS: usize = 12;

/// The document `mention` names: its doc id among `cards` (the catalog), or `None`. The mention
/// is in document `from` (doc id), whose tree is `from_tree`.
///
/// The name is compared without a leading article (`the`, `a`, `an`) and, when it ends with a
/// generic noun (`documentation`, `docs`, `manual`, `guide`, `reference`), both with and without
/// it. A card answers to a name, case-insensitively unless said:
/// 1. its **title** (`An Introduction to R` ≈ `Introduction to R`: leading articles aside);
/// 2. the **acronym** of its title, case-sensitive: the initials of its capitalized words, three
///    or more (`FHS` for `Filesystem Hierarchy Standard`);
/// 3. its **file stem** (`fhs-3.0`), the part of a flattened file name after its last `__`
///    (`fs` for `nodejs-doc__fs.md`), or that part after a package name whose letters and digits
///    begin the part before `__` (`Node.js fs` for `nodejs-doc__fs.md`) — only when the name
///    ends with a generic noun or comes with a section (`the Node.js fs documentation`; `the
///    docker run command` is a command, not `docker-doc__run.md`);
/// 4. for a document without a title of its own (its card's title is its file stem, as for most
///    PDFs without metadata), its **title page**: the first 12 (`TITLE_PAGE_WORDS`) words of its
///    card's summary contain the name as whole words (two or more words, case-sensitive:
///    `An Introduction to R Notes on R: …`), or a run of capitalized words there whose initials
///    are the name (`LSB Workgroup, The Linux Foundation Filesystem Hierarchy Standard …` for
///    `FHS`).
///
/// A one-word name (other than an acronym) counts only with a generic noun or a section
/// (`the Stream documentation`, `Errors, section 3`): alone, `see Errors` is more often prose.
/// Names of document parts (`Table of Contents`, `Index`, `Introduction`, … `DOCUMENT_PARTS`)
/// name nothing.
/// Rules 1–3 beat rule 4; when several documents answer at the best rule, the one whose file
/// name shares the mentioning document's flattened package prefix (`nodejs-doc__`) is taken if
/// it is the only one, else none is. No document is named when the mentioning document answers
/// to the name itself (any rule) or has a heading with that title.
pub fn named_document<'a, C: Borrow<DocCard>>(
    mention: &DocumentMention,
    from: &str,
    from_tree: &Tree,
    cards: &'a [C],
) -> Option<&'a str> {
    let cards = cards.iter().map(Borrow::borrow);
    let forms = Forms::of(&mention.name, mention.section.is_some());
    if forms.names.is_empty() {
        return None;
    }
    let own_heading = from_tree
        .nodes
        .iter()
        .any(|n| forms.names.iter().any(|f| same_words(&n.title, f, true)));
    if own_heading {
        return None;
    }
    let from_card = cards.clone().find(|c| c.doc_id == from);
    if from_card.is_some_and(|c| forms.rule(c).is_some()) {
        return None;
    }
    let mut best: Option<u8> = None;
    let mut found: Vec<&DocCard> = Vec::new();
    for card in cards.filter(|c| c.doc_id != from) {
        let Some(rule) = forms.rule(card) else {
            continue;
        };
        match best {
            Some(b) if rule > b => continue,
            Some(b) if rule == b => found.push(card),
            _ => {
                best = Some(rule);
                found = vec![card];
            }
        }
    }
    if found.len() > 1 {
        let prefix = from_card.and_then(|c| package(&c.source));
        found.retain(|c| prefix.is_some() && package(&c.source) == prefix);
    }
    match found.as_slice() {
        [one] => Some(one.doc_id.as_str()),
        _ => None,
    }
}

/// The lookup keys ([`super::lookup_keys`]) of the forms a card answers to by rules 1–4 of
/// [`named_document`]: its title's words (lowercase), its title's acronym, its file stem and the
/// part after a `__` (lowercase), and for a card without a title of its own its title page's
/// word pairs (lowercase) and the acronyms its capitalized runs spell.
pub(super) fn card_keys(card: &DocCard) -> Vec<String> {
    let mut keys = vec![format!("title:{}", lower_words(strip_article(&card.title)))];
    if let Some(acronym) = initials(card.title.split_whitespace()) {
        keys.push(format!("acronym:{acronym}"));
    }
    let stem = file_stem(&card.source);
    keys.push(format!("stem:{}", stem.to_lowercase()));
    if let Some((_, short)) = stem.rsplit_once("__") {
        keys.push(format!("stem:{}", short.to_lowercase()));
    }
    if stem.eq_ignore_ascii_case(card.title.trim()) {
        let page: Vec<&str> = card
            .summary
            .split_whitespace()
            .take(TITLE_PAGE_WORDS)
            .collect();
        for pair in page.windows(2) {
            keys.push(format!(
                "page:{} {}",
                bare(pair[0]).to_lowercase(),
                bare(pair[1]).to_lowercase()
            ));
        }
        for len in 3..=page.len() {
            for window in page.windows(len) {
                if let Some(acronym) = initials(window.iter().copied()) {
                    if acronym.chars().count() == len {
                        keys.push(format!("page-acronym:{acronym}"));
                    }
                }
            }
        }
    }
    keys
}

/// The lookup keys to ask the catalog for to resolve `mention`: every card [`named_document`] can
/// pick carries one of them (the keys of the forms rules 1–4 match: `card_keys`). Empty for a
/// mention that names nothing.
pub fn mention_keys(mention: &DocumentMention) -> Vec<String> {
    let forms = Forms::of(&mention.name, mention.section.is_some());
    let mut keys = Vec::new();
    for name in &forms.names {
        keys.push(format!("title:{}", lower_words(name)));
        keys.push(format!("stem:{}", name.to_lowercase()));
        if let Some((_, last)) = name.rsplit_once(' ') {
            keys.push(format!("stem:{}", last.to_lowercase()));
        }
        let words: Vec<&str> = name.split_whitespace().collect();
        if let [first, second, ..] = words[..] {
            keys.push(format!(
                "page:{} {}",
                first.to_lowercase(),
                second.to_lowercase()
            ));
        }
    }
    if let Some(acronym) = &forms.acronym {
        keys.push(format!("acronym:{acronym}"));
        keys.push(format!("page-acronym:{acronym}"));
    }
    keys.sort();
    keys.dedup();
    keys
}

/// The words of `text`, lowercase, joined by single spaces.
fn lower_words(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The forms a name is compared in.
struct Forms {
    /// Without a leading article; then, when it ended with a generic noun, without the noun.
    names: Vec<String>,
    /// The name ended with a generic noun or came with a section: file names may match.
    explicit: bool,
    /// The name is an acronym (three or more capital letters, digits after the first allowed).
    acronym: Option<String>,
    /// The name is one capitalized word alone (`AUTHORS`, `FHS`): it matches a title only as
    /// written, so `see AUTHORS` (a file of the mentioning package) is not the document titled
    /// "Authors" of another package (found over the 2,350 documents of `bench/npm`).
    bare_acronym: bool,
}

impl Forms {
    fn of(name: &str, with_section: bool) -> Forms {
        let mut words: Vec<&str> = name.split_whitespace().collect();
        if words
            .first()
            .is_some_and(|w| ["the", "a", "an"].contains(&w.to_lowercase().as_str()))
        {
            words.remove(0);
        }
        let noun = words.len() > 1
            && words
                .last()
                .is_some_and(|w| GENERIC_NOUNS.contains(&w.to_lowercase().as_str()));
        let mut names = Vec::new();
        let counts = |n: usize| n > 1 || noun || with_section;
        if !words.is_empty() && counts(words.len()) {
            names.push(words.join(" "));
        }
        if noun && counts(words.len() - 1) {
            names.push(words[..words.len() - 1].join(" "));
        }
        let base = if noun {
            &words[..words.len() - 1]
        } else {
            &words[..]
        };
        let acronym = match base {
            [one] if is_acronym(one) => Some((*one).to_string()),
            _ => None,
        };
        let bare_acronym = acronym.is_some() && names.is_empty();
        if bare_acronym {
            names.push(base.join(" "));
        }
        let part = base.join(" ").to_lowercase();
        if DOCUMENT_PARTS.contains(&part.as_str()) {
            names.clear();
        }
        Forms {
            names,
            explicit: noun || with_section,
            acronym,
            bare_acronym,
        }
    }

    /// The best rule (1–4 of [`named_document`]) by which `card` answers to one of the forms.
    fn rule(&self, card: &DocCard) -> Option<u8> {
        let title = strip_article(&card.title);
        if self
            .names
            .iter()
            .any(|n| same_words(title, n, !self.bare_acronym))
        {
            return Some(1);
        }
        if let Some(acronym) = &self.acronym {
            if initials(card.title.split_whitespace()).as_deref() == Some(acronym.as_str()) {
                return Some(2);
            }
        }
        let stem = file_stem(&card.source);
        if self.explicit && self.names.iter().any(|n| stem_names(stem, n)) {
            return Some(3);
        }
        if !stem.eq_ignore_ascii_case(card.title.trim()) {
            return None;
        }
        let page: Vec<&str> = card
            .summary
            .split_whitespace()
            .take(TITLE_PAGE_WORDS)
            .collect();
        let phrase = self.names.iter().any(|n| {
            let want: Vec<&str> = n.split_whitespace().collect();
            want.len() > 1
                && page
                    .windows(want.len())
                    .any(|w| w.iter().zip(&want).all(|(a, b)| bare(a) == *b))
        });
        let spelled = self.acronym.as_ref().is_some_and(|a| {
            let n = a.chars().count();
            page.windows(n)
                .any(|w| initials(w.iter().copied()).as_deref() == Some(a.as_str()))
        });
        (phrase || spelled).then_some(4)
    }
}

/// True for `FHS`, `GLPK`, `R5RS`: three or more ASCII capitals or digits, starting with a
/// capital, at least three capitals.
fn is_acronym(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_uppercase())
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && word.chars().filter(char::is_ascii_uppercase).count() >= 3
}

/// The initials of `words` when every word but lowercase connectors starts with a capital and
/// there are three or more: `Filesystem Hierarchy Standard` → `FHS`.
fn initials<'w>(words: impl Iterator<Item = &'w str>) -> Option<String> {
    let mut out = String::new();
    for word in words {
        let word = bare(word);
        let first = word.chars().next()?;
        if first.is_uppercase() {
            out.push(first);
        } else if !["of", "to", "and", "for", "the", "in", "on"].contains(&word) {
            return None;
        }
    }
    (out.chars().count() >= 3).then_some(out)
}

/// A word without punctuation around it (`Foundation,` → `Foundation`, `R:` → `R`).
fn bare(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '+' | '#'))
}

/// `title` without a leading `The`, `A` or `An`.
fn strip_article(title: &str) -> &str {
    let t = title.trim_start();
    for article in ["the ", "a ", "an "] {
        if t.len() > article.len()
            && t.is_char_boundary(article.len())
            && t[..article.len()].eq_ignore_ascii_case(article)
        {
            return t[article.len()..].trim_start();
        }
    }
    t
}

/// True when `a` and `b` are the same words (whitespace runs aside), case-insensitively when
/// `fold`.
fn same_words(a: &str, b: &str, fold: bool) -> bool {
    let mut x = a.split_whitespace();
    let mut y = b.split_whitespace();
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p == q || fold && p.to_lowercase() == q.to_lowercase() => {}
            _ => return false,
        }
    }
}

/// The file name of `source` without its extension: `fhs-3.0`, `nodejs-doc__fs`.
fn file_stem(source: &str) -> &str {
    let name = source.rsplit(['/', '\\']).next().unwrap_or(source);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

/// The flattened package prefix of a source's file name, up to its last `__` (`nodejs-doc`),
/// lowercase; `None` without one.
fn package(source: &str) -> Option<String> {
    file_stem(source)
        .rsplit_once("__")
        .map(|(p, _)| p.to_lowercase())
}

/// True when `name` is the file stem (rule 3 of [`named_document`]).
fn stem_names(stem: &str, name: &str) -> bool {
    if name.eq_ignore_ascii_case(stem) {
        return true;
    }
    let Some((pkg, short)) = stem.rsplit_once("__") else {
        return false;
    };
    if short.chars().count() < 2 {
        return false;
    }
    if name.eq_ignore_ascii_case(short) {
        return true;
    }
    let alnum = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    match name.rsplit_once(' ') {
        Some((p, s)) if s.eq_ignore_ascii_case(short) => {
            let p = alnum(p);
            !p.is_empty() && alnum(pkg).starts_with(&p)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_forms() {
        let f = |n: &str, s: bool| Forms::of(n, s).names;
        assert_eq!(f("the FHS", false), ["FHS"]);
        assert_eq!(
            f("Introduction to R manual", false),
            ["Introduction to R manual", "Introduction to R"]
        );
        assert_eq!(
            f("Stream documentation", false),
            ["Stream documentation", "Stream"]
        );
        assert_eq!(f("Errors", false), Vec::<String>::new());
        assert_eq!(f("Errors", true), ["Errors"]);
        assert_eq!(Forms::of("FHS", false).acronym.as_deref(), Some("FHS"));
        assert!(!is_acronym("OK") && !is_acronym("Node") && is_acronym("R5RS"));
        assert_eq!(
            initials("Filesystem Hierarchy Standard".split(' ')).as_deref(),
            Some("FHS")
        );
        assert_eq!(
            initials("User's Guide to Pari/GP".split(' ')).as_deref(),
            Some("UGP")
        );
        assert_eq!(initials("Notes on R".split(' ')), None);
        assert!(stem_names("nodejs-doc__fs", "Node.js fs"));
        assert!(stem_names("nodejs-doc__fs", "fs"));
        assert!(stem_names("fhs-3.0", "FHS-3.0"));
        assert!(!stem_names("nodejs-doc__fs", "Deno fs"));
        assert!(!stem_names("fhs-3.0", "FHS"));
    }
}
