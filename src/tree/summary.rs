//! Node summaries. `quick` (default) needs no model: the first sentence(s) of the node's text,
//! at most [`QUICK_SUMMARY_MAX_CHARS`] chars, cut on a `char` boundary.

use serde::{Deserialize, Serialize};

/// Upper bound of a quick summary, in chars (not bytes).
pub const QUICK_SUMMARY_MAX_CHARS: usize = 200;

/// How a tree's summaries were made. Stored in the tree file so a model-written strategy can be
/// added without changing the format of existing workspaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SummaryStrategy {
    /// First sentences of the text, no model.
    #[default]
    Quick,
}

/// Quick summary of a section's text: Markdown/HTML noise is skipped (code fences, HTML comments,
/// tables, link-reference definitions, heading markers), whitespace collapsed, then whole sentences
/// are taken while they fit in `max_chars` chars; a first sentence longer than that is cut at a
/// word boundary and ends with `…`. Returns an empty string for text with no prose.
pub fn quick_summary(text: &str, max_chars: usize) -> String {
    // Text past max_chars + 1 can never be part of the summary: stop collecting there.
    let prose = prose_of(text, max_chars + 1);
    if prose.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let mut out_chars = 0;
    for sentence in sentences(&prose) {
        let n = sentence.chars().count();
        let sep = usize::from(!out.is_empty());
        if out_chars + sep + n > max_chars {
            break;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(sentence);
        out_chars += sep + n;
    }
    if out.is_empty() {
        // The first sentence alone is too long: cut at the last word boundary that fits.
        let budget = max_chars.saturating_sub(1);
        let cut: String = prose.chars().take(budget).collect();
        let cut = match cut.rfind(' ') {
            Some(i) if i > budget / 2 => cut[..i].to_string(),
            _ => cut,
        };
        out = format!("{}…", cut.trim_end());
    }
    out
}

/// True for a heading number ending in a dot: `4.3.`, `12.`, `Chapter 3.`, `A.2.`.
fn heading_number(s: &str) -> bool {
    let number = s
        .strip_prefix("Chapter ")
        .or_else(|| s.strip_prefix("Appendix "))
        .unwrap_or(s);
    let body = number.trim_end_matches('.');
    !body.is_empty()
        && body.len() < number.len()
        && body.split('.').all(|part| {
            !part.is_empty()
                && part.len() <= 3
                && (part.chars().all(|c| c.is_ascii_digit())
                    || part.len() == 1 && part.chars().all(|c| c.is_ascii_uppercase()))
        })
}

/// Split collapsed prose into sentences ending at `.`, `!`, `?` (or `。！？`) followed by a space.
fn sentences(prose: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = prose.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let cjk_end = matches!(c, '。' | '！' | '？');
        let ascii_end = matches!(c, '.' | '!' | '?')
            && chars.peek().is_some_and(|(_, next)| next.is_whitespace());
        if cjk_end || ascii_end {
            let end = i + c.len_utf8();
            let s = prose[start..end].trim();
            // A heading number (`4.3. Specific Options`, `Chapter 3. The Root …`) ends no
            // sentence: the heading line starts a PDF section's text.
            if c == '.' && heading_number(s) {
                continue;
            }
            if !s.is_empty() {
                out.push(s);
            }
            start = end;
        }
    }
    let rest = prose[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The prose lines of a Markdown/plain text, joined with single spaces, stopping once more than
/// `limit` chars are collected.
fn prose_of(text: &str, limit: usize) -> String {
    // Room for `limit` ASCII chars and the word that crosses it, allocated once.
    let mut out = String::with_capacity(text.len().min(limit + 64));
    let mut chars = 0;
    let mut fence: Option<&str> = None;
    let mut in_comment = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(marker) = fence {
            if t.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            continue;
        }
        if in_comment {
            if t.contains("-->") {
                in_comment = false;
            }
            continue;
        }
        if t.starts_with("<!--") {
            in_comment = !t.contains("-->");
            continue;
        }
        if t.starts_with('|')
            || t.starts_with('<')
            || t.starts_with('#')
            || (t.starts_with('[') && t.contains("]:"))
            || t.chars().all(|c| matches!(c, '-' | '=' | '*' | '_' | ' '))
        {
            continue;
        }
        let t = t.trim_start_matches(['>', '*', '-', '+', ' ']);
        for word in t.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
                chars += 1;
            }
            out.push_str(word);
            chars += word.chars().count();
            // Within the line too: a paragraph of a Word or HTML document is one long line.
            if chars > limit {
                return out;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_whole_sentences_that_fit() {
        let s = quick_summary("First one. Second one is here.\n\nThird.", 200);
        assert_eq!(s, "First one. Second one is here. Third.");
        let s = quick_summary("First one. Second one is here.", 15);
        assert_eq!(s, "First one.");
    }

    #[test]
    fn long_first_sentence_is_cut_on_a_char_boundary() {
        let text = "日本語のテキスト".repeat(40);
        let s = quick_summary(&text, 200);
        assert!(s.chars().count() <= 200, "{}", s.chars().count());
        assert!(s.ends_with('…'));
    }

    #[test]
    fn skips_code_fences_and_comments() {
        let text = "<!-- YAML\nadded: v1\n-->\n```js\nconst x = 1;\n```\nReal prose here.";
        assert_eq!(quick_summary(text, 200), "Real prose here.");
    }

    #[test]
    fn heading_numbers_end_no_sentence() {
        let text = "4.3. Specific Options\nThe following directories must be in /usr. More.";
        assert_eq!(
            quick_summary(text, 200),
            "4.3. Specific Options The following directories must be in /usr. More."
        );
        let s = quick_summary("Chapter 3. The Root Filesystem\n3.1. Purpose", 200);
        assert_eq!(s, "Chapter 3. The Root Filesystem 3.1. Purpose");
        assert!(!heading_number("end."));
        assert!(heading_number("A.2."));
    }

    #[test]
    fn text_without_prose_has_empty_summary() {
        assert_eq!(quick_summary("```\ncode\n```\n", 200), "");
    }
}
