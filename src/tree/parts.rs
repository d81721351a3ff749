//! The parts a long leaf is split into (DESIGN.md §2, build stage): what each part is titled and
//! which pages it covers. The split itself is in [`super::build`].

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::fence::fence_marker;

/// Longest title (chars) of a part split off a large leaf.
pub const PART_TITLE_MAX_CHARS: usize = 72;

/// Words a heading does not end on but a sentence broken over lines does (`… such that`,
/// `In constructs like`).
const TRAILING_FUNCTION_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "if", "in", "into",
    "is", "it", "its", "like", "not", "of", "on", "or", "such", "than", "that", "the", "then",
    "these", "this", "to", "was", "we", "were", "when", "where", "which", "with", "you",
];

/// A numbered run-in heading at the start of a paragraph: a section number of three parts, or
/// of two before a capital (not an amount: `2.2 million shares …`), then its title up to the
/// first full stop (`2.3.13 Binary quadratic forms (t_QFB). These are input …`, `3.8.12
/// chargalois(cyc, {ORD}). Let cyc …`).
static RUN_IN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^((?:\d+\.\d+\.\d+(?:\.\d+)*\.?\s+[\p{L}(]|\d+\.\d+\.?\s+[\p{Lu}(])[^\n]{1,90}?)\.(?:\s|$)")
        .ok()
});

/// The title of the `n`th part (1-based) split off a large leaf titled `parent_title`, from what
/// the part's `text` holds. The first of its first 40 lines (outside code fences) that reads as
/// a title: a Markdown heading; a numbered run-in heading (its number and title); a short line
/// standing alone as a paragraph that does not read as a sentence (no sentence punctuation
/// inside or at its end, no function word last). Else the part's first words. Lines repeating
/// `parent_title` (the section's printed heading), rows of figures and a contents list's
/// `Page` label are skipped. Cut at a word near [`PART_TITLE_MAX_CHARS`] chars with `…`;
/// `(part N)` only when the part has no words at all. A reader and the model see what a part is
/// about, not `Part 3`.
pub fn part_title(text: &str, parent_title: &str, n: usize) -> String {
    let parent = fold(parent_title);
    let lines: Vec<&str> = text.lines().map(str::trim).take(80).collect();
    let mut fence = false;
    let mut first_words: Option<String> = None;
    let mut seen = 0;
    for (i, &line) in lines.iter().enumerate() {
        if line.is_empty() {
            continue;
        }
        seen += 1;
        if seen > 40 {
            break;
        }
        if fence_marker(line).is_some() {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let plain = plain_text(line);
        // A row of figures (`Year Ended December 31, 2019 2018 2017`) names nothing.
        let figures = plain
            .split_whitespace()
            .filter(|w| w.chars().any(|c| c.is_ascii_digit()) || matches!(*w, "$" | "%"))
            .count();
        // Nor does a contents list's column label.
        let column_label = matches!(
            plain.to_lowercase().trim_end_matches(['.', ':']),
            "page" | "pages" | "page no" | "table of contents"
        );
        let repeats_parent = !parent.is_empty() && {
            let folded = fold(&plain);
            folded == parent || folded.ends_with(&format!(" {parent}"))
        };
        if plain.chars().filter(|c| c.is_alphabetic()).count() < 3 || column_label || repeats_parent
        {
            continue;
        }
        let starts_paragraph = i == 0 || lines[i - 1].is_empty();
        if starts_paragraph {
            if let Some(run_in) = RUN_IN.as_ref().and_then(|re| re.captures(&plain)) {
                return clip_words(&run_in[1], PART_TITLE_MAX_CHARS);
            }
        }
        if figures >= 3 {
            continue;
        }
        let alone = starts_paragraph && lines.get(i + 1).is_none_or(|next| next.is_empty());
        if line.starts_with('#') || (alone && reads_as_title(&plain)) {
            return clip_words(&plain, PART_TITLE_MAX_CHARS);
        }
        if first_words.is_none() {
            first_words = Some(clip_words(&plain, PART_TITLE_MAX_CHARS));
        }
    }
    first_words.unwrap_or_else(|| format!("(part {n})"))
}

/// A line's words without Markdown markers: a table row's label (or its header's first cell),
/// a list item's or quote's text, emphasis and code marks removed, whitespace squeezed.
fn plain_text(line: &str) -> String {
    let plain = if line.starts_with('|') {
        let cells: Vec<&str> = line
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty() && !c.chars().all(|ch| "-: ".contains(ch)))
            .collect();
        cells.first().copied().unwrap_or("").to_string()
    } else {
        line.trim_start_matches(['#', '>', '*', '-', '•', ' '])
            .replace(['*', '`'], "")
    };
    // `_emphasis_` marks, not the underscores inside a name (`t_INT`).
    plain
        .split_whitespace()
        .map(|w| w.trim_matches('_'))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `true` when `plain` (one line) reads as a title rather than a piece of a sentence: at most
/// [`PART_TITLE_MAX_CHARS`] chars, starting with a capital or a digit, no full stop, semicolon
/// or formula sign inside, not ending in sentence punctuation or a function word.
fn reads_as_title(plain: &str) -> bool {
    let last = plain
        .rsplit(' ')
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    plain.chars().count() <= PART_TITLE_MAX_CHARS
        && plain.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
        && !plain.ends_with(['.', ',', ';', ':'])
        && !plain.contains(". ")
        && !plain.contains("; ")
        && !plain.contains(['=', '+', '<', '>'])
        && !TRAILING_FUNCTION_WORDS.contains(&last.as_str())
}

/// Lowercase words of `text`, punctuation at their ends and a trailing full stop removed.
fn fold(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` cut to at most `max` chars at a word boundary, with `…` when cut.
fn clip_words(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

/// The 1-based pages (end exclusive) of the part `chunk` (a byte range of the parent's
/// `content`) of a node covering `pages`: from the page its first text is on to the page its
/// last text is on, read from `page_marks` (`(byte offset into content, page)` where each later
/// page starts). The parent's pages when it has no marks (one page, or not a PDF); `None` when
/// the parent has no pages.
pub fn part_pages(
    pages: Option<&Range<u32>>,
    page_marks: &[(usize, u32)],
    content: &str,
    chunk: Range<usize>,
) -> Option<Range<u32>> {
    let pages = pages?;
    if page_marks.is_empty() {
        return Some(pages.clone());
    }
    let text = content.get(chunk.clone()).unwrap_or("");
    let start = chunk.start + (text.len() - text.trim_start().len());
    let end = chunk.start + text.trim_end().len();
    let page_at = |offset: usize| {
        let at = page_marks.partition_point(|&(mark, _)| mark <= offset);
        at.checked_sub(1).map_or(pages.start, |m| page_marks[m].1)
    };
    let first = page_at(start);
    let last = page_at(end.saturating_sub(1).max(start)).max(first);
    Some(first..(last + 1).min(pages.end.max(first + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_titled_by_its_first_title_like_line_not_a_row_of_figures_or_a_column_label() {
        let part = "Page\n\n| Year Ended December 31, 2019 2018 2017 | | |\n\n2019 2018 2017\n\n\
                    Report of Independent Registered Public Accounting Firm\n\nThe text.";
        assert_eq!(
            part_title(part, "Financial Statements", 3),
            "Report of Independent Registered Public Accounting Firm"
        );
        assert_eq!(part_title("12 13 14\n", "Tables", 2), "(part 2)");
    }

    #[test]
    fn a_sentence_broken_before_a_formula_is_no_title_but_a_numbered_run_in_heading_is() {
        // pari-users.pdf, 2.3 The PARI types: the section's printed heading, then prose, a
        // sentence that stops before its formula, and the first numbered run-in heading.
        let part = "2.3 The PARI types.\n\nWe see here how to input values of the different \
                    data types known to PARI.\n\nThis data may represent any real number x such \
                    that\n\n|x − sm2e| < 2e−ℓ.\n\n2.3.1 Integers (t_INT). After an (optional) \
                    leading + or -, type in the decimal digits.\n";
        assert_eq!(
            part_title(part, "2.3 The PARI types", 1),
            "2.3.1 Integers (t_INT)"
        );
        let caveat = "Caveat. In constructs like\n\nfor (X = a,b, seq)\n\nB + 106; it\n\n";
        assert_eq!(
            part_title(caveat, "3.1 Programming in GP", 2),
            "Caveat. In constructs like"
        );
    }

    #[test]
    fn a_heading_line_inside_a_paragraph_is_no_title() {
        let part =
            "The shell reads its input\nSHELL GRAMMAR\nand then more text.\n\nQuoting\n\nText.";
        assert_eq!(part_title(part, "Bash", 1), "Quoting");
    }

    #[test]
    fn a_part_covers_the_pages_its_own_text_is_on() {
        // Pages 10–13: page 11 starts at byte 20, page 12 at 40, page 13 at 60.
        let content = format!(
            "{}\n\n{}\n\n{}",
            "a".repeat(30),
            "b".repeat(25),
            "c".repeat(30)
        );
        let marks = [(20, 11), (40, 12), (60, 13)];
        let first = 0..32;
        let second = 32..59;
        let third = 59..content.len();
        assert_eq!(
            part_pages(Some(&(10..14)), &marks, &content, first),
            Some(10..12)
        );
        assert_eq!(
            part_pages(Some(&(10..14)), &marks, &content, second),
            Some(11..13)
        );
        assert_eq!(
            part_pages(Some(&(10..14)), &marks, &content, third),
            Some(12..14)
        );
        assert_eq!(
            part_pages(Some(&(10..14)), &[], &content, 0..5),
            Some(10..14)
        );
        assert_eq!(part_pages(None, &marks, &content, 0..5), None);
    }
}
