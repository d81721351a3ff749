//! Printed heading numbers: `3.18.1.`, `Chapter 5.`, `Appendix A`, `A.2`, `IV.` — what they
//! say about depth, and the title after them.

use std::sync::LazyLock;

use regex::Regex;

/// A heading's printed number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbering {
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
        r"^(?i:chapter|appendix|part|section)\s+([0-9]{1,3}|[A-Z]|[IVXLC]{1,6})(?:[.:])?(?:\s+|$)",
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
    let found = [&KEYWORD, &DECIMAL, &LETTERED, &ROMAN]
        .iter()
        .enumerate()
        .find_map(|(kind, re)| {
            let caps = re.as_ref()?.captures(text)?;
            Some((kind, caps.get(1)?.as_str(), caps.get(0)?.end()))
        })?;
    let (kind, key, len) = found;
    let rest = text[len..].trim_start();
    if kind != 0 && !rest.starts_with(|c: char| c.is_alphabetic() || "/(<'\"“".contains(c)) {
        return None;
    }
    let depth = match kind {
        0 | 3 => 1,
        _ => u32::try_from(key.split('.').count()).unwrap_or(1),
    };
    Some(Numbering {
        depth,
        key: key.to_string(),
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
#[allow(clippy::unwrap_used)]
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
