//! What keeps running text and table cells out of the headings ([`super::headings`]): a
//! heading printed over several lines is read whole, a fragment is not read as a title.
//!
//! - A line that ends in a function word (`CERTIFICATION PURSUANT TO`, `DEFERRED COMPENSATION
//!   PLAN FOR`) or a comma is *unfinished*: the next line in its style continues it even past a
//!   paragraph gap ([`UNFINISHED_GAP_EM`]) or the usual line count, and centred under it (same
//!   centre, different left edge) as well as aligned; so does a next line of function words
//!   alone (`APPENDIX` / `TO` / `ACTIVISION BLIZZARD, INC.`; `… FINANCIAL OFFICER` / `PURSUANT
//!   TO` / `18 U.S.C. SECTION 1350,`).
//! - A styled line with same-style text *beside* it — another line of the page at the same
//!   height, apart horizontally — and a row running under both is a cell of a table's header
//!   row (`Total number of` / `Shares purchased` next to `Average price paid`), never a
//!   heading.
//! - A numbered line that runs on into its paragraph (`SECTION 4. CONDITIONS PRECEDENT TO
//!   EFFECTIVENESS. This Amendment shall become effective …`) is titled by its run-in head
//!   alone (`SECTION 4. CONDITIONS PRECEDENT TO EFFECTIVENESS.`).

use super::text::TextLine;

/// Words a title does not end in: articles, prepositions and conjunctions (`Elimination of`,
/// `Cash and`), compared case-insensitively. `a` counts only in lower case (`Exhibit A`,
/// `Schedule A` end in a letter label).
pub const FUNCTION_WORDS: &[&str] = &[
    "an", "and", "as", "at", "between", "by", "for", "from", "in", "into", "nor", "of", "on", "or",
    "pursuant", "than", "the", "to", "under", "with",
];
/// An unfinished line is continued by a same-style line at most this many ems (of its size)
/// below it — a paragraph gap, wider than [`super::headings::CONTINUATION_GAP_EM`].
pub const UNFINISHED_GAP_EM: f32 = 3.0;
/// A heading block that continues unfinished or centred lines spans at most this many lines.
pub const MAX_CONTINUED_LINES: usize = 6;
/// Longest centred heading block, in chars: a certification's title over five centred lines
/// is about 150.
pub const MAX_CENTRED_CHARS: usize = 200;
/// Two lines are centred on one axis when their centres are at most this far apart (points).
pub const CENTRE_TOLERANCE_PT: f32 = 2.0;
/// Same-style text within this many ems (of the line's size) of a line's baseline, on the
/// same page and apart horizontally, sits beside it.
pub const BESIDE_EM: f32 = 0.6;
/// A line under a header row, at most this many ems (of the row's size) below it, that runs
/// under two of its cells makes them a table's.
pub const ROW_BELOW_EM: f32 = 4.0;
/// A run-in head is at most this many chars (number included).
pub const MAX_RUN_IN_CHARS: usize = 100;
/// The text after a run-in head has at least this many words (a sentence, not a title's
/// second part).
pub const MIN_RUN_ON_WORDS: usize = 4;

/// True when `word` (punctuation around it ignored) is one of [`FUNCTION_WORDS`].
pub fn is_function_word(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    w == "a" || FUNCTION_WORDS.iter().any(|f| f.eq_ignore_ascii_case(w))
}

/// True when `text` stops mid-phrase: it ends in a function word or a comma.
pub fn unfinished(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with(',') || t.split_whitespace().last().is_some_and(is_function_word)
}

/// True when `next` is centred under `first`: centres within [`CENTRE_TOLERANCE_PT`], left
/// edges apart (lines that share a left edge are aligned, not centred).
pub fn centred(first: &TextLine, next: &TextLine) -> bool {
    let centre = |l: &TextLine| (l.x + l.x_end) / 2.0;
    (centre(first) - centre(next)).abs() <= CENTRE_TOLERANCE_PT && (first.x - next.x).abs() > 1.5
}

/// True when `next` starts where the title after `first`'s number starts: its second cell
/// (`ITEM 5.` … `MARKET FOR REGISTRANT'S …` over `EQUITY SECURITIES`).
pub fn under_title_cell(first: &TextLine, next: &TextLine) -> bool {
    first
        .cells
        .get(1)
        .is_some_and(|cell| (cell.x0 - next.x).abs() <= 1.5)
}

/// True when any of `lines[at..at + count]` is a cell of a table's header row set as separate
/// lines: another line of its page (`page[i]`, non-decreasing) sits beside it — within
/// [`BESIDE_EM`] of its baseline, same size and weight, apart horizontally — and a line at most
/// [`ROW_BELOW_EM`] below both runs under both (the table's first row: `Activision Blizzard
/// International B.V.` … `Netherlands` under `Name of Subsidiary` and `State or Other
/// Jurisdiction of Incorporation`). Headings side by side in a page's columns (a two-column
/// paper's `15 Discussions` and `17 What This Package Can Not Do`) have their own columns'
/// text under them, no line across both.
pub fn beside_same_style(lines: &[&TextLine], page: &[usize], at: usize, count: usize) -> bool {
    let p = page[at];
    let start = page.partition_point(|&q| q < p);
    let end = page.partition_point(|&q| q <= p).min(lines.len());
    let block = at..(at + count).min(end);
    let over = |l: &TextLine, a: &TextLine| l.x < a.x_end && l.x_end > a.x;
    block.clone().any(|i| {
        let line = lines[i];
        (start..end).any(|j| {
            let other = lines[j];
            let beside = !block.contains(&j)
                && (other.y - line.y).abs() <= BESIDE_EM * line.size
                && (other.size - line.size).abs() < 0.3
                && other.bold == line.bold
                && !over(other, line);
            let low = line.y.min(other.y);
            beside
                && (start..end).any(|k| {
                    let row = lines[k];
                    row.y < low - BESIDE_EM * line.size
                        && row.y >= low - ROW_BELOW_EM * line.size
                        && over(row, line)
                        && over(row, other)
                })
        })
    })
}

/// The run-in head of a numbered line that runs on into its paragraph: `text` up to the full
/// stop that ends the head, when what follows is a sentence ([`MIN_RUN_ON_WORDS`] words or
/// more, opening with a capital, a quote or a parenthesis). `number_len` is the byte length of
/// the printed number ([`super::numbering::Numbering::len`]). `None` when the text is a title
/// alone. A full stop inside a word (`U.S.`) or after one letter (`J.`) ends no head.
pub fn run_in_head(text: &str, number_len: usize) -> Option<&str> {
    let after_number = text.get(number_len..)?;
    let mut from = 0;
    while let Some(rel) = after_number[from..].find(". ") {
        let stop = number_len + from + rel;
        from += rel + 2;
        let head = &text[..=stop];
        if head.chars().count() > MAX_RUN_IN_CHARS {
            return None;
        }
        let last_word = text[number_len..stop]
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        let letters = last_word.chars().filter(|c| c.is_alphabetic()).count();
        if letters < 2 || last_word.contains('.') {
            continue;
        }
        let rest = text[stop + 1..].trim_start();
        let opens_sentence = rest
            .starts_with(|c: char| c.is_uppercase() || matches!(c, '(' | '"' | '“' | '‘' | '\''));
        if opens_sentence && rest.split_whitespace().count() >= MIN_RUN_ON_WORDS {
            return Some(head);
        }
        return None;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f32, x: f32, x_end: f32, bold: bool, text: &str) -> TextLine {
        TextLine {
            text: text.into(),
            x,
            x_end,
            y,
            size: 8.5,
            bold,
            ..TextLine::default()
        }
    }

    #[test]
    fn a_line_ending_in_a_function_word_or_comma_is_unfinished() {
        for t in [
            "CERTIFICATION PURSUANT TO",
            "18 U.S.C. SECTION 1350,",
            "Elimination of",
            "Cash and",
            "the",
        ] {
            assert!(unfinished(t), "{t}");
        }
        for t in [
            "EXHIBIT A",
            "SCHEDULE A",
            "SECTION 906 OF THE SARBANES-OXLEY ACT OF 2002",
            "Risk Factors",
            "",
        ] {
            assert!(!unfinished(t), "{t}");
        }
    }

    #[test]
    fn centred_lines_share_a_centre_and_not_a_left_edge() {
        let first = line(786.5, 232.1, 363.3, true, "CERTIFICATION PURSUANT TO");
        let next = line(776.3, 249.9, 345.5, true, "18 U.S.C. SECTION 1350,");
        assert!(centred(&first, &next));
        let justified = line(776.3, 232.1, 363.3, true, "same edges");
        assert!(!centred(&first, &justified));
        let off = line(776.3, 42.7, 300.0, true, "left");
        assert!(!centred(&first, &off));
    }

    #[test]
    fn a_header_cell_has_same_style_text_beside_it_and_a_row_under_both() {
        let row = [
            line(421.1, 184.0, 242.2, true, "Total number of"),
            line(412.8, 181.6, 244.6, true, "Shares purchased"),
            line(421.1, 289.3, 356.7, true, "Average price paid"),
            line(
                398.0,
                17.0,
                590.0,
                false,
                "October 1 - 31 | 1,000 | $ 12.00",
            ),
        ];
        let refs: Vec<&TextLine> = row.iter().collect();
        assert!(beside_same_style(&refs, &[0; 4], 0, 2));
        // Alone on its height: a heading.
        let alone = [
            line(421.1, 17.0, 200.0, true, "Liquidity and Capital Resources"),
            line(405.0, 17.0, 590.0, false, "Body text."),
        ];
        let refs: Vec<&TextLine> = alone.iter().collect();
        assert!(!beside_same_style(&refs, &[0, 0], 0, 1));
        // Headings side by side in two columns, each column's text under its own.
        let columns = [
            line(706.1, 85.9, 198.2, true, "15 Discussions"),
            line(
                679.7,
                85.9,
                301.2,
                false,
                "The discussion environment is provided",
            ),
            line(706.1, 321.0, 536.3, true, "17 What This Package Can"),
            line(688.2, 353.3, 406.1, true, "Not Do"),
            line(670.0, 321.0, 536.3, false, "The right column's text."),
        ];
        let refs: Vec<&TextLine> = columns.iter().collect();
        assert!(!beside_same_style(&refs, &[0; 5], 0, 1));
        assert!(!beside_same_style(&refs, &[0; 5], 2, 2));
        // Text beside it in another style does not count.
        let styles = [
            line(421.1, 17.0, 200.0, true, "Results"),
            line(
                421.1,
                310.0,
                590.0,
                false,
                "the other column's running text",
            ),
            line(405.0, 17.0, 590.0, false, "A line across both."),
        ];
        let refs: Vec<&TextLine> = styles.iter().collect();
        assert!(!beside_same_style(&refs, &[0; 3], 0, 1));
        // The same height on another page is not beside it.
        let pages = [
            line(421.1, 17.0, 200.0, true, "Results"),
            line(421.1, 310.0, 590.0, true, "Next page's heading"),
            line(405.0, 17.0, 590.0, false, "A line across both."),
        ];
        let refs: Vec<&TextLine> = pages.iter().collect();
        assert!(!beside_same_style(&refs, &[0, 1, 1], 0, 1));
    }

    #[test]
    fn a_numbered_line_running_on_into_its_paragraph_is_titled_by_its_head() {
        let t = "SECTION 4. CONDITIONS PRECEDENT TO EFFECTIVENESS. This Amendment shall become \
                 effective on the date (the";
        assert_eq!(
            run_in_head(t, "SECTION 4. ".len()),
            Some("SECTION 4. CONDITIONS PRECEDENT TO EFFECTIVENESS.")
        );
        let t = "SECTION 7. GOVERNING LAW. THIS AMENDMENT SHALL BE CONSTRUED IN ACCORDANCE";
        assert_eq!(
            run_in_head(t, "SECTION 7. ".len()),
            Some("SECTION 7. GOVERNING LAW.")
        );
        let t = "1.1 Title. This Plan shall be known as the Employee Stock Purchase Plan.";
        assert_eq!(run_in_head(t, "1.1 ".len()), Some("1.1 Title."));
        // Titles alone, and full stops that end no head.
        for (t, n) in [
            (
                "Item 7. Management's Discussion and Analysis",
                "Item 7. ".len(),
            ),
            ("Note 3. U.S. Tax Reform and its effects", "Note 3. ".len()),
            ("Item 1A. Risk Factors.", "Item 1A. ".len()),
            ("2. Leases. See Note 4", "2. ".len()),
        ] {
            assert_eq!(run_in_head(t, n), None, "{t}");
        }
    }
}
