//! Finding an outline entry's printed heading in page text.
//!
//! Both the title and the page are folded to lowercase alphanumerics (ligatures expanded), so
//! line breaks, hyphenation at line ends, punctuation and spacing differences do not matter. A
//! match at the start of a line, possibly after numbering such as `2.1`, `A.3`, `Chapter 4:`,
//! wins over one inside a line; the heading then starts at the line start, so its numbering
//! belongs to it. When the full title is not printed, the title without its own leading
//! numbering is tried.

/// Text folded for matching: one entry per kept char, with the byte offset it came from.
struct Folded {
    chars: Vec<char>,
    offsets: Vec<usize>,
}

fn fold(text: &str) -> Folded {
    let mut chars = Vec::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let expanded: &str = match c {
            '\u{FB00}' => "ff",
            '\u{FB01}' => "fi",
            '\u{FB02}' => "fl",
            '\u{FB03}' => "ffi",
            '\u{FB04}' => "ffl",
            '\u{FB05}' | '\u{FB06}' => "st",
            _ => "",
        };
        if expanded.is_empty() {
            for l in c.to_lowercase().filter(|l| l.is_alphanumeric()) {
                chars.push(l);
                offsets.push(i);
            }
        } else {
            for l in expanded.chars() {
                chars.push(l);
                offsets.push(i);
            }
        }
    }
    Folded { chars, offsets }
}

/// True when `prefix` (the text between a line start and a title match) is only numbering.
fn is_numbering(prefix: &str) -> bool {
    let prefix = prefix.trim();
    if prefix.chars().count() > 24 {
        return false;
    }
    prefix.split_whitespace().all(|word| {
        let lower = word.to_lowercase();
        let bare = lower.trim_end_matches([':', '.', ')']);
        matches!(bare, "chapter" | "appendix" | "section" | "part" | "annex")
            || (!bare.is_empty()
                && bare.chars().all(|c| {
                    c.is_ascii_digit()
                        || c == '.'
                        || c == '§'
                        || c.is_ascii_uppercase()
                        || word.len() <= 2 && c.is_alphabetic()
                }))
    })
}

/// Where the printed heading for `title` starts in `page`, searching at byte offsets `>= from`
/// (must be a char boundary). Returns `(start, end)` byte offsets: `start` at the heading's
/// line start when only numbering precedes it, `end` just after the matched title. `None` when
/// the title is not on the page.
pub fn find_heading(page: &str, from: usize, title: &str) -> Option<(usize, usize)> {
    let folded = fold(page);
    find_folded(page, &folded, from, title).or_else(|| {
        let core = strip_numbering(title);
        (core.len() < title.len())
            .then(|| find_folded(page, &folded, from, core))
            .flatten()
    })
}

fn strip_numbering(title: &str) -> &str {
    let mut rest = title.trim_start();
    if let Some((first, tail)) = rest.split_once(' ') {
        if first.chars().any(|c| c.is_ascii_digit()) && is_numbering(first) {
            rest = tail.trim_start();
        }
    }
    rest
}

fn find_folded(page: &str, folded: &Folded, from: usize, title: &str) -> Option<(usize, usize)> {
    let needle = fold(title).chars;
    // Punctuation the title starts with (`/run and /run/lock`) is folded away; printed right
    // before the match, it belongs to the heading.
    let lead = &title[..title.len()
        - title
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .len()];
    let lead = lead.trim_start();
    if needle.is_empty() || needle.len() > folded.chars.len() {
        return None;
    }
    let first = folded.offsets.partition_point(|&o| o < from);
    let mut fallback = None;
    for k in first..=folded.chars.len() - needle.len() {
        if folded.chars[k..k + needle.len()] != needle[..] {
            continue;
        }
        let mut start = folded.offsets[k];
        if !lead.is_empty() && page[..start].ends_with(lead) && start - lead.len() >= from {
            start -= lead.len();
        }
        let last = k + needle.len() - 1;
        let end = folded.offsets[last]
            + page[folded.offsets[last]..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
        let line_start = page[..start].rfind('\n').map_or(0, |i| i + 1);
        if line_start >= from && is_numbering(&page[line_start..start]) {
            return Some((line_start, end));
        }
        let boundary = !page[..start]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        if fallback.is_none() && boundary {
            fallback = Some((start, end));
        }
    }
    fallback
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_heading_starts_at_line_start() {
        let page =
            "Chapter 2: Simple 8\nsome text about vectors\n2.1 Vectors and assignment\nR operates";
        let (start, end) = find_heading(page, 0, "Vectors and assignment").unwrap();
        assert_eq!(&page[start..end], "2.1 Vectors and assignment");
    }

    #[test]
    fn line_breaks_hyphens_and_ligatures_are_tolerated() {
        let page = "intro\n3 Conﬁgu-\nration of the\nsystem\nbody";
        let (start, end) = find_heading(page, 0, "3 Configuration of the System").unwrap();
        assert_eq!(&page[start..end], "3 Conﬁgu-\nration of the\nsystem");
    }

    #[test]
    fn search_respects_from_and_prefers_line_starts() {
        let page = "Scope\nthe scope of this. Scope\nmore\nScope\nend";
        assert_eq!(find_heading(page, 0, "Scope"), Some((0, 5)));
        // The in-line matches at 10 and 25 lose to the line-start one.
        assert_eq!(find_heading(page, 1, "Scope"), Some((36, 41)));
        assert_eq!(find_heading(page, 0, "Missing title"), None);
    }

    #[test]
    fn leading_punctuation_of_the_title_belongs_to_the_heading() {
        let page = "text\n9.1.4 /run and /run/lock\nThe directory";
        let (start, end) = find_heading(page, 0, "/run and /run/lock").unwrap();
        assert_eq!(&page[start..end], "9.1.4 /run and /run/lock");
    }

    #[test]
    fn outline_numbering_absent_from_print_is_stripped() {
        let page = "text\nInstallation\nbody";
        let (start, _) = find_heading(page, 0, "4.2 Installation").unwrap();
        assert_eq!(start, 5);
    }
}
