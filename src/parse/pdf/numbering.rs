//! Printed heading numbers: `3.18.1.`, `Chapter 5.`, `Appendix A`, `A.2`, `IV.`, and the
//! keyword schemes of filings, contracts and reports (`PART II`, `Item 7A.`, `Note 12 —`,
//! `Article IV`, `Schedule 2`) — what they say about depth and rank, and the title after them.

use std::sync::LazyLock;

use regex::Regex;

/// Which numbering scheme a heading number belongs to. Keyword schemes nest in a fixed order
/// ([`Scheme::rank`]) the way documents use them: a Part holds Items, an Item holds Notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// `Part II`.
    Part,
    /// `Chapter 5`.
    Chapter,
    /// `Appendix A`.
    Appendix,
    /// `Article IV`.
    Article,
    /// `Item 7A.` (SEC forms).
    Item,
    /// `Section 4` (a keyword, not `4.2`).
    Section,
    /// `Schedule 2`, `Exhibit 10.1`-style attachments.
    Schedule,
    /// `Note 12`.
    Note,
    /// `Exhibit 10(l)`, `Exhibit 31.1`: a document filed with another, after it.
    Exhibit,
    /// `3.18.1.`.
    Decimal,
    /// `A.2`.
    Lettered,
    /// `IV.`.
    Roman,
}

impl Scheme {
    /// Nesting rank of a keyword scheme, outermost 0: Part and Exhibit (a document of its
    /// own appended to the first), then Chapter and Appendix, Article, Item, Section,
    /// Schedule, Note. `None` for plain numbers.
    pub fn rank(self) -> Option<u32> {
        match self {
            Scheme::Part | Scheme::Exhibit => Some(0),
            Scheme::Chapter | Scheme::Appendix => Some(1),
            Scheme::Article => Some(2),
            Scheme::Item => Some(3),
            Scheme::Section => Some(4),
            Scheme::Schedule => Some(5),
            Scheme::Note => Some(6),
            Scheme::Decimal | Scheme::Lettered | Scheme::Roman => None,
        }
    }
}

/// A heading's printed number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbering {
    /// The scheme the number belongs to.
    pub scheme: Scheme,
    /// Nesting depth it implies: `Chapter 3` and `3.` are 1, `3.18.1` is 3, `A.2` is 2.
    pub depth: u32,
    /// The number itself, keyword and trailing dot dropped: `3.18.1`, `3`, `A`, `A.2`, `IV`.
    pub key: String,
    /// Byte length of the numbering and the space after it in the text it was read from.
    pub len: usize,
}

/// `Chapter 5.`, `Appendix A:`, `Part IV` (depth 1).
static KEYWORD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:(chapter|appendix|part|section))\s+([0-9]{1,3}|[A-Z]|[IVXLC]{1,6})(?:[.:])?(?:\s+|$)",
    )
    .ok()
});

/// `Item 7A.`, `ITEM 1B:`, `Note 12 —`, `Article IV`, `Schedule 2` (depth 1): the title after
/// them starts with a capital (`Item 7 of this report` is a reference, not a heading); the
/// separator may touch the title (`Item 7.Management's`, `Item 7—Management's`).
static FILING_KEYWORD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:(item|note|article|schedule))\s+([0-9]{1,3}[A-Z]?|[IVXLC]{1,6})(?:\s*[.:\u{2014}\u{2013}-]\s*|\s+|$)",
    )
    .ok()
});

/// `Exhibit 10(l)`, `EXHIBIT 31.1`, `Exhibit 99.1 Computation of Ratios` (depth 1): a filing's
/// exhibit number, decimals and a parenthesised letter included.
static EXHIBIT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:exhibit)\s+([0-9]{1,3}(?:\.[0-9]{1,3})?(?:\([A-Za-z0-9]{1,4}\))?)(?:\s*[.:\u{2014}\u{2013}-]\s*|\s+|$)",
    )
    .ok()
});

/// `3.`, `3.18.1.`, `10 ` (numbers of at most 3 digits, at most 6 levels).
static DECIMAL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^([0-9]{1,3}(?:\.[0-9]{1,3}){0,5})\.?(?:\s+|$)").ok());

/// `A.2`, `B.3.1.` (an appendix letter and decimals).
static LETTERED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^([A-Z](?:\.[0-9]{1,3}){1,5})\.?(?:\s+|$)").ok());

/// `IV.` (a Roman chapter number, with its dot).
static ROMAN: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^([IVX]{1,5})\.(?:\s+|$)").ok());

/// The printed number `text` starts with, if any (see [`Numbering`]). A bare number followed
/// by nothing, or by a number (`2022 September`, `1 2 3`), is no heading number.
pub fn numbering(text: &str) -> Option<Numbering> {
    if let Some(n) = filing_keyword(text) {
        return Some(n);
    }
    let found = [&KEYWORD, &DECIMAL, &LETTERED, &ROMAN]
        .iter()
        .enumerate()
        .find_map(|(kind, re)| {
            let caps = re.as_ref()?.captures(text)?;
            let key = if kind == 0 {
                caps.get(2)?
            } else {
                caps.get(1)?
            };
            let scheme = match kind {
                0 => match caps.get(1)?.as_str().to_ascii_lowercase().as_str() {
                    "chapter" => Scheme::Chapter,
                    "appendix" => Scheme::Appendix,
                    "part" => Scheme::Part,
                    _ => Scheme::Section,
                },
                1 => Scheme::Decimal,
                2 => Scheme::Lettered,
                _ => Scheme::Roman,
            };
            Some((kind, scheme, key.as_str(), caps.get(0)?.end()))
        })?;
    let (kind, scheme, key, len) = found;
    let rest = text[len..].trim_start();
    if kind != 0 && !rest.starts_with(|c: char| c.is_alphabetic() || "/(<'\"“".contains(c)) {
        return None;
    }
    let depth = match kind {
        0 | 3 => 1,
        _ => u32::try_from(key.split('.').count()).unwrap_or(1),
    };
    Some(Numbering {
        scheme,
        depth,
        key: key.to_string(),
        len,
    })
}

/// The keyword schemes of filings and contracts ([`FILING_KEYWORD`]).
fn filing_keyword(text: &str) -> Option<Numbering> {
    let (scheme, caps) = match EXHIBIT.as_ref().and_then(|re| re.captures(text)) {
        Some(caps) => (Scheme::Exhibit, caps),
        None => {
            let caps = FILING_KEYWORD.as_ref()?.captures(text)?;
            let scheme = match caps.get(1)?.as_str().to_ascii_lowercase().as_str() {
                "item" => Scheme::Item,
                "note" => Scheme::Note,
                "article" => Scheme::Article,
                _ => Scheme::Schedule,
            };
            (scheme, caps)
        }
    };
    let key_group = if scheme == Scheme::Exhibit { 1 } else { 2 };
    let len = caps.get(0)?.end();
    let rest = &text[len..];
    if !(rest.is_empty() || rest.starts_with(|c: char| c.is_uppercase() || "“\"'([".contains(c)))
    {
        return None;
    }
    Some(Numbering {
        scheme,
        depth: 1,
        key: caps.get(key_group)?.as_str().to_ascii_uppercase(),
        len,
    })
}

/// `text` without its printed number.
pub fn strip(text: &str) -> &str {
    numbering(text).map_or(text, |n| &text[n.len..]).trim()
}

/// Lowercase alphanumerics of `text` (the comparison key of titles printed in different
/// places: a table of contents and the page itself).
pub fn fold(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_key(text: &str) -> Option<(u32, String)> {
        numbering(text).map(|n| (n.depth, n.key))
    }

    #[test]
    fn numbering_forms() {
        let cases = [
            ("Chapter 3. The Root Filesystem", Some((1, "3"))),
            ("3.18.1. Purpose", Some((3, "3.18.1"))),
            ("3.18. /tmp : Temporary files", Some((2, "3.18"))),
            ("10 Footnotes", Some((1, "10"))),
            ("Appendix A: Sample", Some((1, "A"))),
            ("A.2 Options", Some((2, "A.2"))),
            ("IV. Results", Some((1, "IV"))),
            ("2022 September 19", None),
            ("1 2 3", None),
            ("Pipelines", None),
            ("3.5 seconds later", Some((2, "3.5"))),
            ("A list of words", None),
            ("Item 7A. Quantitative and Qualitative", Some((1, "7A"))),
            ("ITEM 1B: UNRESOLVED STAFF COMMENTS", Some((1, "1B"))),
            ("Item 7.Management’s Discussion", Some((1, "7"))),
            ("Item 7—Management’s Discussion", Some((1, "7"))),
            ("Item 7 of this Report, and our statements", None),
            ("Note 12 – Income Taxes", Some((1, "12"))),
            ("PART II", Some((1, "II"))),
            ("Article IV", Some((1, "IV"))),
            ("Exhibit 10(l)", Some((1, "10(L)"))),
            ("EXHIBIT 31.1", Some((1, "31.1"))),
            ("Exhibit 99.1 Computation of Ratios", Some((1, "99.1"))),
            ("Exhibit 21 to this report, filed", None),
        ];
        for (text, want) in cases {
            assert_eq!(
                depth_key(text),
                want.map(|(d, k)| (d, k.to_string())),
                "{text}"
            );
        }
        assert_eq!(
            strip("Chapter 3. The Root Filesystem"),
            "The Root Filesystem"
        );
        assert_eq!(fold("3.18. /tmp : Temporary"), "318tmptemporary");
    }
}
