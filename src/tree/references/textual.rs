//! Which `Section 2.1` / `§2.1` / `Chapter 3` / `Appendix A` matches are cross-references.

use regex::Captures;

use super::{Mention, RefKind};

/// A textual mention, or `None` when the context says it is not a cross-reference. `see X
/// below` / `under X above` (X one to six capitalised words) is a [`Mention::Titled`] when
/// `see`/`under` starts a word; it resolves only to a heading titled exactly X. Numbered ones:
/// - a lowercase keyword (`section 2`) counts only after "see" (`see section 2`);
/// - at a line start, a keyword whose number is followed by `:` or `.` or ends the line
///   (`Chapter 2: Simple manipulations`, `Chapter 3. The Root Filesystem`, `Chapter 6`) is a
///   running page header or a printed heading, not a reference (a reference wrapped to a line
///   start, `Chapter 9 [Loops], page 43`, still counts);
/// - `RFC 7230 Section 3` and `Chapter 3 of Statistical Models in S` are another work's
///   (`Chapter 3 of this manual` is not);
/// - the keyword must start a word (`Subsection 2` is not `section 2`);
/// - a table-of-contents line (`Appendix A A sample session . . . . 78`) lists every section
///   and references none.
///
/// Mentions without "see" are further dropped when they resolve to an ancestor of their node
/// (running headers such as `164 Chapter 22. Upgrading checklist` on the pages of section
/// 22.31): see `resolve_references`.
pub(super) fn textual(content: &str, caps: &Captures<'_>) -> Option<Mention> {
    if let (Some(title), Some(dir)) = (caps.name("title"), caps.name("dir")) {
        let at = caps.get(0)?.start();
        let word_start = !content[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        return word_start.then(|| Mention::Titled {
            title: title
                .as_str()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            below: dir.as_str() == "below",
        });
    }
    let kw = caps.name("kw")?;
    let num = caps.name("num")?;
    let before = &content[..kw.start()];
    if before
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric())
    {
        return None;
    }
    let after_see = ends_with_see(before);
    let keyword = kw.as_str();
    if !after_see && keyword.starts_with(|c: char| c.is_ascii_lowercase()) {
        return None;
    }
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let after = &content[num.end()..];
    let line_rest = after.split('\n').next().unwrap_or("");
    let header_like = after.starts_with([':', '.']) || line_rest.trim().is_empty();
    if !after_see && header_like && before[line_start..].trim().is_empty() {
        return None;
    }
    if table_of_contents_entry(line_rest) {
        return None;
    }
    if preceded_by_rfc(before) || of_another_work(after) {
        return None;
    }
    let kind = RefKind::of_keyword(keyword);
    let number = num.as_str();
    // `Chapter A` is no chapter; `Section B.2` and `Appendix A` are fine.
    let lettered = number.starts_with(|c: char| c.is_ascii_uppercase());
    if lettered && kind == RefKind::Chapter
        || kind == RefKind::Section && number.len() == 1 && lettered
    {
        return None;
    }
    Some(Mention::Numbered {
        kind,
        number: number.to_string(),
        see: after_see,
    })
}

/// True when the rest of a line ends like a table-of-contents entry: a dot leader of at least
/// three dots (spaced or not) and then a page number, Arabic or lowercase Roman (`. . . 78`,
/// `.....xii`).
pub(super) fn table_of_contents_entry(line_rest: &str) -> bool {
    let t = line_rest.trim_end();
    let without_page = t.trim_end_matches(|c: char| c.is_ascii_digit());
    let without_page = if without_page.len() == t.len() {
        t.trim_end_matches(['i', 'v', 'x', 'l', 'c'])
    } else {
        without_page
    };
    if without_page.len() == t.len() {
        return false;
    }
    let leader = without_page.len() - without_page.trim_end_matches(['.', ' ']).len();
    without_page[without_page.len() - leader..]
        .chars()
        .filter(|&c| c == '.')
        .count()
        >= 3
}

/// True when `before` ends with `see` or `see also` plus whitespace, any case, as a word.
fn ends_with_see(before: &str) -> bool {
    let t = before.trim_end();
    if t.len() == before.len() {
        return false;
    }
    let t = strip_suffix_ci(t, "also")
        .map(str::trim_end)
        .filter(|s| s.len() < t.len() - 4)
        .unwrap_or(t);
    strip_suffix_ci(t, "see").is_some_and(|rest| {
        !rest
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric())
    })
}

fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let at = s.len().checked_sub(suffix.len())?;
    (s.is_char_boundary(at) && s[at..].eq_ignore_ascii_case(suffix)).then(|| &s[..at])
}

/// True when `after` (the text after the number) starts with `of` and a name other than
/// `this …`: `Chapter 3 of Statistical Models in S`.
fn of_another_work(after: &str) -> bool {
    let Some(rest) = after.trim_start().strip_prefix("of") else {
        return false;
    };
    let rest_trimmed = rest.trim_start();
    rest_trimmed.len() < rest.len()
        && !rest_trimmed
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case("this"))
}

/// True when `before` ends with `RFC 7230 ` (or `RFC7230, `).
fn preceded_by_rfc(before: &str) -> bool {
    let t = before.trim_end().trim_end_matches(',');
    let digits = t.trim_end_matches(|c: char| c.is_ascii_digit());
    digits.len() < t.len() && strip_suffix_ci(digits.trim_end_matches([' ', '-']), "RFC").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn see_and_rfc_contexts() {
        assert!(ends_with_see("as we see also "));
        assert!(ends_with_see("(See\n"));
        assert!(!ends_with_see("oversee "));
        assert!(!ends_with_see("see"));
        assert!(preceded_by_rfc("per RFC 7230 "));
        assert!(preceded_by_rfc("RFC7230, "));
        assert!(!preceded_by_rfc("the 7230 "));
        assert!(of_another_work(" of Statistical Models in S"));
        assert!(of_another_work("\nof Lange, N."));
        assert!(!of_another_work(" of this manual"));
        assert!(!of_another_work(" offers"));
        assert!(!of_another_work(", page 3"));
    }
}
