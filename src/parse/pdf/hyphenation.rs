//! Line-end hyphenation: `lzma com-` / `pression` becomes `lzma
//! compression`, so the word is found by search and read whole.
//!
//! A line ending in a hyphen after a letter, followed by a line that starts with a letter of
//! the same case (`com-` / `pression`, `COM-` / `MANDS`), is joined when the joined word
//! (lowercased) occurs elsewhere in the document — so real compounds broken at their own hyphen (`sh-` / `compatible`) keep it, as
//! `shcompatible` occurs nowhere. The rest of the next line's first word (`pression,`) moves up
//! to the hyphenated line (with its raised marks, [`TextLine::marks`]); a line left empty is dropped. The next line may be the first line of
//! the next page. A soft hyphen (U+00AD) at a line end is always joined.
//!
//! One pass collects the joined words wanted, a second pass over the document's words (runs of
//! letters) looks up only the words of a wanted length.

use std::collections::{HashMap, HashSet};

use super::text::TextLine;

/// What [`join_hyphens`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Joined {
    /// Hyphenated words joined.
    pub joined: usize,
    /// Line-end hyphens kept (the joined word occurs nowhere else).
    pub kept: usize,
}

/// A hyphenated line, the line after it, the joined word (lowercase), soft hyphen?
type Pair = ((usize, usize), (usize, usize), String, bool);

/// Join line-end hyphenation in `pages` (see the module doc).
pub fn join_hyphens(pages: &mut [Vec<TextLine>]) -> Joined {
    // Positions (page, line) in reading order.
    let positions: Vec<(usize, usize)> = pages
        .iter()
        .enumerate()
        .flat_map(|(p, lines)| (0..lines.len()).map(move |l| (p, l)))
        .collect();
    // Pass 1: every hyphenated pair and its joined word.
    let mut pairs: Vec<Pair> = Vec::new();
    for pair in positions.windows(2) {
        let ((p, l), (np, nl)) = (pair[0], pair[1]);
        let Some((prefix, soft)) = hyphenated_tail(&pages[p][l].text) else {
            continue;
        };
        let Some(first) = pages[np][nl].text.split_whitespace().next() else {
            continue;
        };
        let letters = first.chars().take_while(|c| c.is_alphabetic());
        let upper = prefix.chars().next_back().is_some_and(char::is_uppercase);
        if !first.starts_with(|c: char| c.is_alphabetic() && c.is_uppercase() == upper) {
            continue;
        }
        let joined: String = prefix
            .chars()
            .chain(letters)
            .flat_map(char::to_lowercase)
            .collect();
        pairs.push(((p, l), (np, nl), joined, soft));
    }
    if pairs.is_empty() {
        return Joined::default();
    }
    let known = known_words(pages, pairs.iter().map(|(_, _, w, _)| w.as_str()));
    // Pass 2: join.
    let mut out = Joined::default();
    for ((p, l), (np, nl), joined, soft) in pairs {
        if !soft && !known.contains(joined.as_str()) {
            out.kept += 1;
            continue;
        }
        // A chain (`com-` / `pres-` / `sion`) may have emptied the line: join each pair once.
        if !pages[p][l].text.ends_with(['-', '\u{AD}']) || pages[np][nl].text.is_empty() {
            continue;
        }
        let next = std::mem::take(&mut pages[np][nl].text);
        let (first, rest) = next.split_once(char::is_whitespace).unwrap_or((&next, ""));
        let line = &mut pages[p][l].text;
        line.pop(); // the hyphen
        let joined_at = line.len();
        line.push_str(first);
        let rest = rest.trim_start();
        let cut = next.len() - rest.len();
        pages[np][nl].text = rest.to_string();
        // Raised marks move with the text: those in the moved word go up with it.
        let marks = std::mem::take(&mut pages[np][nl].marks);
        for (at, mark) in marks {
            if at < first.len() {
                pages[p][l].marks.push((joined_at + at, mark));
            } else {
                // A mark at the space before it starts where the rest now starts.
                pages[np][nl].marks.push((at.saturating_sub(cut), mark));
            }
        }
        out.joined += 1;
    }
    for lines in pages.iter_mut() {
        lines.retain(|l| !l.text.is_empty());
    }
    out
}

/// Which of `wanted` (lowercase words) occur as whole words (runs of letters, any case) in
/// `pages`.
fn known_words<'w>(
    pages: &[Vec<TextLine>],
    wanted: impl Iterator<Item = &'w str>,
) -> HashSet<String> {
    word_counts(pages, wanted).into_keys().collect()
}

/// How often each of `wanted` (lowercase words) occurs as a whole word (a run of letters, any
/// case) in `pages`; words that never occur are absent. Only words whose length is a wanted
/// length are lowercased and looked up.
pub(super) fn word_counts<'w>(
    pages: &[Vec<TextLine>],
    wanted: impl Iterator<Item = &'w str>,
) -> HashMap<String, usize> {
    let wanted: HashSet<&str> = wanted.collect();
    let max_len = wanted.iter().map(|w| w.chars().count()).max().unwrap_or(0);
    let mut lengths = vec![false; max_len + 1];
    for w in &wanted {
        lengths[w.chars().count()] = true;
    }
    let mut found: HashMap<String, usize> = HashMap::new();
    let mut word = String::new();
    for line in pages.iter().flatten() {
        let text = &line.text;
        let mut start = None;
        let mut len = 0;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if c.is_alphabetic() {
                start.get_or_insert(i);
                len += 1;
                continue;
            }
            if let Some(s) = start.take() {
                if len <= max_len && lengths[len] {
                    word.clear();
                    word.extend(text[s..i].chars().flat_map(char::to_lowercase));
                    if wanted.contains(word.as_str()) {
                        *found.entry(word.clone()).or_default() += 1;
                    }
                }
            }
            len = 0;
        }
    }
    found
}

/// When `text` ends in a hyphen right after a letter: the letters before the hyphen (at least
/// two) and whether it is a soft hyphen.
fn hyphenated_tail(text: &str) -> Option<(&str, bool)> {
    let (body, soft) = if let Some(b) = text.strip_suffix('-') {
        (b, false)
    } else {
        (text.strip_suffix('\u{AD}')?, true)
    };
    let start = body
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map_or(body.len(), |(i, _)| i);
    let prefix = &body[start..];
    (prefix.chars().count() >= 2).then_some((prefix, soft))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(texts: &[&str]) -> Vec<TextLine> {
        texts
            .iter()
            .map(|t| TextLine {
                text: (*t).into(),
                size: 10.0,
                ..TextLine::default()
            })
            .collect()
    }

    fn texts(pages: &[Vec<TextLine>]) -> Vec<Vec<&str>> {
        pages
            .iter()
            .map(|p| p.iter().map(|l| l.text.as_str()).collect())
            .collect()
    }

    #[test]
    fn joins_words_known_elsewhere_and_keeps_real_hyphens() {
        let mut pages = vec![
            lines(&[
                "Use lzma com-",
                "pression, or xz. Bash is an sh-",
                "compatible shell with",
            ]),
            lines(&[
                "no com-",
                "pression at all; an ad-",
                "hoc fix. See COM-",
                "MANDS and Com-",
                "pression. COMMANDS compression",
            ]),
        ];
        let done = join_hyphens(&mut pages);
        assert_eq!(done, Joined { joined: 4, kept: 2 });
        assert_eq!(
            texts(&pages),
            vec![
                vec![
                    "Use lzma compression,",
                    "or xz. Bash is an sh-",
                    "compatible shell with"
                ],
                vec![
                    "no compression",
                    "at all; an ad-",
                    "hoc fix. See COMMANDS",
                    "and Compression.",
                    "COMMANDS compression"
                ],
            ]
        );
    }

    #[test]
    fn joins_across_pages_and_drops_emptied_lines() {
        let mut pages = vec![lines(&["the filesys-"]), lines(&["tem", "filesystem"])];
        join_hyphens(&mut pages);
        assert_eq!(
            texts(&pages),
            vec![vec!["the filesystem"], vec!["filesystem"]]
        );
    }

    #[test]
    fn raised_marks_move_with_the_joined_word_and_the_shortened_line() {
        // `appro-` / `priate,2 and more 3`: mark 2 goes up with `priate,2`, mark 3 (offset 17,
        // at its space) stays on the line, now 9 bytes shorter.
        let mut pages = vec![lines(&["be appro-", "priate,2 and more 3", "appropriate"])];
        pages[0][1].marks = vec![(7, "2".into()), (17, "3".into())];
        join_hyphens(&mut pages);
        assert_eq!(
            texts(&pages),
            vec![vec!["be appropriate,2", "and more 3", "appropriate"]]
        );
        assert_eq!(pages[0][0].marks, vec![(15, "2".to_string())]);
        assert_eq!(pages[0][1].marks, vec![(8, "3".to_string())]);
        assert_eq!(&pages[0][0].text[15..], "2");
        assert_eq!(&pages[0][1].text[8..], " 3");
    }

    #[test]
    fn hyphenation_after_two_letters_counts() {
        assert_eq!(hyphenated_tail("a com-"), Some(("com", false)));
        assert_eq!(hyphenated_tail("SHELL BUILTIN COM-"), Some(("COM", false)));
        assert_eq!(hyphenated_tail("a-"), None);
        assert_eq!(hyphenated_tail("x 2-"), None);
        assert_eq!(hyphenated_tail("soft\u{AD}"), Some(("soft", true)));
        assert_eq!(hyphenated_tail("-"), None);
    }
}
