//! Shell-like word splitting (a small subset of POSIX `sh` quoting, see POSIX.1-2017 §2.2).
//!
//! - Unquoted whitespace separates words.
//! - `'…'` keeps everything literally up to the next `'`.
//! - `"…"` keeps everything, except that `\"` and `\\` stand for `"` and `\`.
//! - Outside quotes, `\x` stands for `x` (so `\ ` is a space inside a word).
//! - A trailing lone `\` is kept literally. An unterminated quote is an error.

/// Why a line could not be split into words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LexError {
    /// A quote was opened and never closed; `quote` is `'` or `"`, `column` its 1-based char
    /// position in the line.
    #[error("unterminated {quote} quote starting at column {column}")]
    UnterminatedQuote {
        /// The quote character.
        quote: char,
        /// 1-based char column of the opening quote.
        column: usize,
    },
}

/// Split a command line into words. Never panics; any `&str` is accepted.
///
/// Errors: [`LexError::UnterminatedQuote`] when a quote is not closed.
pub fn split_words(line: &str) -> Result<Vec<String>, LexError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().enumerate().peekable();
    while let Some((col, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, ch)) => word.push(ch),
                        None => {
                            return Err(LexError::UnterminatedQuote {
                                quote: '\'',
                                column: col + 1,
                            })
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.peek() {
                            Some((_, next @ ('"' | '\\'))) => {
                                word.push(*next);
                                chars.next();
                            }
                            _ => word.push('\\'),
                        },
                        Some((_, ch)) => word.push(ch),
                        None => {
                            return Err(LexError::UnterminatedQuote {
                                quote: '"',
                                column: col + 1,
                            })
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some((_, ch)) => word.push(ch),
                    None => word.push('\\'),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Quote `word` so that [`split_words`] gives it back unchanged: returned as is when it has no
/// whitespace, quotes or backslashes, else wrapped in `"…"` with `"` and `\` escaped.
pub fn quote_word(word: &str) -> String {
    let plain = !word.is_empty()
        && !word
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '\\'));
    if plain {
        return word.to_string();
    }
    let mut out = String::with_capacity(word.len() + 2);
    out.push('"');
    for c in word.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(line: &str) -> Vec<String> {
        split_words(line).unwrap()
    }

    #[test]
    fn splits_plain_words_on_any_whitespace() {
        assert_eq!(words("  ls \t -n  5 "), vec!["ls", "-n", "5"]);
        assert!(words("   ").is_empty());
    }

    #[test]
    fn quotes_keep_spaces_and_join_adjacent_parts() {
        assert_eq!(
            words(r#"cd "Manual filtering: globs""#),
            vec!["cd", "Manual filtering: globs"]
        );
        assert_eq!(words("cd 'it''s'"), vec!["cd", "its"]);
        assert_eq!(words(r#"grep "a\"b\\c\d""#), vec!["grep", r#"a"b\c\d"#]);
        assert_eq!(words(r"cd Caf\é\ crème"), vec!["cd", "Café crème"]);
        assert_eq!(words("cat ''"), vec!["cat", ""]);
        assert_eq!(words(r"x \"), vec!["x", "\\"]);
    }

    #[test]
    fn unterminated_quote_names_its_column() {
        assert_eq!(
            split_words("cd \"abc"),
            Err(LexError::UnterminatedQuote {
                quote: '"',
                column: 4
            })
        );
        assert_eq!(
            split_words("日本 'x").unwrap_err().to_string(),
            "unterminated ' quote starting at column 4"
        );
    }

    proptest! {
        #[test]
        fn never_panics_on_any_string(s in any::<String>()) {
            let _ = split_words(&s);
        }

        #[test]
        fn quote_word_round_trips(w in any::<String>()) {
            prop_assert_eq!(split_words(&quote_word(&w)).unwrap(), vec![w]);
        }
    }
}
