//! Front matter at the very start of a Markdown file: YAML between `---` lines (closed by `---` or
//! `...`, as in Jekyll/Hugo) or TOML between `+++` lines (Hugo).
//!
//! Detected here rather than with pulldown-cmark's metadata-block options, which accept a `---`
//! block anywhere in the document (turning a thematic break plus a setext heading into "metadata")
//! and rescan to the end of the text for every `---` line. Only simple `key: value` /
//! `key = "value"` lines are read; nested YAML is flattened into one value per top-level key.

/// Front matter found at the start of a document.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FrontMatter {
    /// Top-level keys and their values, quotes removed, in file order.
    pub(crate) metadata: Vec<(String, String)>,
    /// Byte offset just past the closing delimiter line, where the body starts.
    pub(crate) body_start: usize,
}

impl FrontMatter {
    /// The `title` value, if present and not blank.
    pub(crate) fn title(&self) -> Option<String> {
        self.metadata
            .iter()
            .find(|(k, v)| k.eq_ignore_ascii_case("title") && !v.trim().is_empty())
            .map(|(_, v)| v.clone())
    }
}

/// Find front matter at the start of `text` (no leading blank lines or BOM). `None` when the text
/// does not open with a `---`/`+++` line, the block is never closed, or no line in it looks like a
/// key (then the `---` is an ordinary thematic break).
pub(crate) fn detect(text: &str) -> Option<FrontMatter> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    let yaml = match first.trim_end() {
        "---" => true,
        "+++" => false,
        _ => return None,
    };
    let mut offset = first.len();
    let body_from = offset;
    for line in lines {
        let trimmed = line.trim_end();
        let closes = if yaml {
            trimmed == "---" || trimmed == "..."
        } else {
            trimmed == "+++"
        };
        if closes {
            let block = &text[body_from..offset];
            let metadata = if yaml {
                parse_yaml(block)
            } else {
                parse_toml(block)
            };
            if metadata.is_empty() {
                return None;
            }
            return Some(FrontMatter {
                metadata,
                body_start: offset + line.len(),
            });
        }
        offset += line.len();
    }
    None
}

/// Top-level `key: value` lines; indented lines and `- item` lines continue the previous key.
fn parse_yaml(block: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let top_level = !line.starts_with([' ', '\t']) && !trimmed.starts_with("- ");
        if top_level {
            if let Some((key, value)) = trimmed.split_once(':') {
                let key = key.trim();
                if is_key(key) {
                    let value = value.trim();
                    let value = if value == "|" || value == ">" || value.starts_with(['|', '>']) {
                        ""
                    } else {
                        value
                    };
                    out.push((key.to_string(), unquote(value).to_string()));
                    continue;
                }
            }
        }
        // Continuation of the previous key: list item or folded/nested line.
        if let Some((_, value)) = out.last_mut() {
            let item = unquote(trimmed.strip_prefix("- ").unwrap_or(trimmed).trim());
            if !value.is_empty() {
                value.push_str(if trimmed.starts_with("- ") { ", " } else { " " });
            }
            value.push_str(item);
        }
    }
    out
}

/// `key = value` lines; keys under a `[table]` header are prefixed `table.`.
fn parse_toml(block: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut table = String::new();
    for line in block.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            table = name.trim_matches(['[', ']', ' ']).to_string();
            continue;
        }
        if let Some((key, value)) = trimmed.split_once('=') {
            let key = unquote(key.trim());
            if is_key(key) {
                let key = if table.is_empty() {
                    key.to_string()
                } else {
                    format!("{table}.{key}")
                };
                out.push((key, unquote(value.trim()).to_string()));
            }
        }
    }
    out
}

/// A plausible key: non-empty, no spaces, letters/digits/`_`/`-`/`.`.
fn is_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Strip one pair of matching surrounding quotes.
fn unquote(value: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn yaml_keys_lists_and_quotes() {
        let text = "---\ntitle: Dockerfile reference\ndescription: \"A DSL\"\nredirect_from:\n- /reference/builder/\n- /b/\n---\n\nbody\n";
        let fm = detect(text).unwrap();
        assert_eq!(
            fm.metadata,
            kv(&[
                ("title", "Dockerfile reference"),
                ("description", "A DSL"),
                ("redirect_from", "/reference/builder/, /b/"),
            ])
        );
        assert_eq!(&text[fm.body_start..], "\nbody\n");
        assert_eq!(fm.title().as_deref(), Some("Dockerfile reference"));
    }

    #[test]
    fn toml_with_table() {
        let text = "+++\ntitle = \"Guide\"\ndraft = false\n[params]\nauthor = 'me'\n+++\n# H\n";
        let fm = detect(text).unwrap();
        assert_eq!(
            fm.metadata,
            kv(&[
                ("title", "Guide"),
                ("draft", "false"),
                ("params.author", "me")
            ])
        );
        assert_eq!(&text[fm.body_start..], "# H\n");
    }

    #[test]
    fn thematic_break_or_unclosed_block_is_not_front_matter() {
        assert_eq!(detect("---\nJust a sentence here\n---\n"), None);
        assert_eq!(detect("---\ntitle: x\nno close\n"), None);
        assert_eq!(detect("text\n---\ntitle: x\n---\n"), None);
        assert_eq!(detect(""), None);
    }
}
