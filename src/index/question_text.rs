//! Patterns over a question's text (the period and the release a question asks about): compiled
//! once per process, ASCII-only, and matched against text whose whitespace is plain spaces.

use regex::Regex;

/// `pattern` compiled for questions: ASCII classes and case folding (`\b`, `\d`, `\s`,
/// `(?i)`), which compile in about half the time of Unicode ones — a `docs --for` process
/// compiles each pattern it uses once. Match it against [`ascii_spaced`] text: what differs
/// from the Unicode pattern is then only a word boundary beside a non-ASCII letter or digit.
pub(crate) fn question_regex(pattern: &str) -> Option<Regex> {
    regex::RegexBuilder::new(pattern)
        .unicode(false)
        .build()
        .ok()
}

/// `text` with every whitespace character (a no-break space, a tab) a plain space, for the
/// ASCII `\s` of a [`question_regex`].
pub(crate) fn ascii_spaced(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect()
}
