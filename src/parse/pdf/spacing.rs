//! Words split by a stray space: some HTML-to-PDF producers draw a space
//! inside a word as a string of its own, over the end of the letter before it, and the next
//! letter over the space's own end: 3M's 10-K prints "FINANCIAL CONDITION AND LIQUIDI TY",
//! "Consolidated Statement of Incom e" (pdftotext reads them so too). Text extraction marks
//! such spaces ([`TextLine::split_spaces`]); the geometry alone is no proof, since kerned
//! capitals overlap a real space as well ("PURSUANT TO"), so a marked space is removed only
//! when the document confirms the word:
//! - the joined word (lowercased) occurs elsewhere in the document as a whole word, and
//! - one of the two pieces never occurs as a word of its own outside marked spaces
//!   ("liquidi", "incom"), so two real words ("Fair Value", "OF THE") stay apart.
//!
//! Measured with `bench/letter_spacing.py` against pdftotext (BENCHMARKS.md).

use std::collections::HashMap;

use super::hyphenation::word_counts;
use super::text::TextLine;

/// A marked space that splits letters: (page, line, byte offset of the space, left piece,
/// right piece), pieces lowercased.
type Split = (usize, usize, usize, String, String);

/// Remove the marked spaces in `pages` that split a word the document confirms (see the
/// module doc); returns how many were removed. Raised marks after a removed space move one
/// byte left; the line's `cells` go stale (see [`TextLine::cell_texts_match`]).
pub fn join_split_words(pages: &mut [Vec<TextLine>]) -> usize {
    let mut splits: Vec<Split> = Vec::new();
    for (p, lines) in pages.iter().enumerate() {
        for (l, line) in lines.iter().enumerate() {
            for &at in &line.split_spaces {
                let text = &line.text;
                if text.as_bytes().get(at) != Some(&b' ') {
                    continue;
                }
                let left: String = text[..at]
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphabetic())
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .flat_map(char::to_lowercase)
                    .collect();
                let right: String = text[at + 1..]
                    .chars()
                    .take_while(|c| c.is_alphabetic())
                    .flat_map(char::to_lowercase)
                    .collect();
                if !left.is_empty() && !right.is_empty() {
                    splits.push((p, l, at, left, right));
                }
            }
        }
    }
    if splits.is_empty() {
        return 0;
    }
    let joined: Vec<String> = splits.iter().map(|(.., a, b)| format!("{a}{b}")).collect();
    let wanted = splits
        .iter()
        .flat_map(|(.., a, b)| [a.as_str(), b.as_str()])
        .chain(joined.iter().map(String::as_str));
    let counts = word_counts(pages, wanted);
    // How often each piece stands as a word only because a marked space cut it off.
    let mut at_splits: HashMap<&str, usize> = HashMap::new();
    for (.., a, b) in &splits {
        *at_splits.entry(a.as_str()).or_default() += 1;
        *at_splits.entry(b.as_str()).or_default() += 1;
    }
    let alone = |piece: &str| {
        counts.get(piece).copied().unwrap_or(0) > at_splits.get(piece).copied().unwrap_or(0)
    };
    let mut remove: Vec<(usize, usize, usize)> = splits
        .iter()
        .zip(&joined)
        .filter(|((.., a, b), word)| {
            counts.get(word.as_str()).copied().unwrap_or(0) > 0 && !(alone(a) && alone(b))
        })
        .map(|((p, l, at, ..), _)| (*p, *l, *at))
        .collect();
    // Later offsets first, so earlier ones stay valid.
    remove.sort_unstable_by(|x, y| y.cmp(x));
    for &(p, l, at) in &remove {
        let line = &mut pages[p][l];
        line.text.remove(at);
        for (mark_at, _) in line.marks.iter_mut() {
            if *mark_at > at {
                *mark_at -= 1;
            }
        }
    }
    for line in pages.iter_mut().flatten() {
        line.split_spaces.clear();
    }
    remove.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, split_spaces: &[usize]) -> TextLine {
        TextLine {
            text: text.into(),
            split_spaces: split_spaces.to_vec(),
            ..TextLine::default()
        }
    }

    #[test]
    fn a_marked_space_inside_a_word_the_document_prints_whole_is_removed() {
        let mut pages = vec![vec![
            line("FINANCIAL CONDITION AND LIQUIDI TY", &[31]),
            line("Our liquidity is strong.", &[]),
            line("Consolidated Statement of Incom e", &[31]),
            line("Net income rose.", &[]),
        ]];
        assert_eq!(join_split_words(&mut pages), 2);
        assert_eq!(pages[0][0].text, "FINANCIAL CONDITION AND LIQUIDITY");
        assert_eq!(pages[0][2].text, "Consolidated Statement of Income");
    }

    #[test]
    fn two_real_words_and_unconfirmed_joins_keep_their_space() {
        let mut pages = vec![vec![
            // Both pieces are words of their own elsewhere: "fairvalue" is no proof.
            line("Fair Value", &[4]),
            line("fair value fairvalue", &[]),
            // The joined word occurs nowhere else.
            line("QUIDI TX", &[5]),
            // An unmarked space is never touched.
            line("LIQUIDI TY liquidity", &[]),
        ]];
        assert_eq!(join_split_words(&mut pages), 0);
        assert_eq!(pages[0][0].text, "Fair Value");
        assert_eq!(pages[0][2].text, "QUIDI TX");
        assert_eq!(pages[0][3].text, "LIQUIDI TY liquidity");
    }

    #[test]
    fn marks_after_a_removed_space_move_with_the_text() {
        let mut text = line("Incom e statement", &[5]);
        text.marks = vec![(17, "1".into())];
        let mut pages = vec![vec![text, line("income", &[])]];
        assert_eq!(join_split_words(&mut pages), 1);
        assert_eq!(pages[0][0].text, "Income statement");
        assert_eq!(pages[0][0].marks, vec![(16, "1".to_string())]);
    }
}
