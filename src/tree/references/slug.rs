//! GitHub heading slugs: the anchors GitHub gives Markdown headings, which `[text](#anchor)`
//! links name.
//!
//! Source: the convention of GitHub's renderer as implemented by `github-slugger`
//! (<https://github.com/Flet/github-slugger>, `index.js` and `script/generate-regex.mjs`):
//! lowercase; remove characters of the Unicode general categories Other_Number, the punctuation
//! categories other than Connector_Punctuation (so `_` stays), Symbol, Control, Private_Use,
//! Format, Unassigned and Separator — except alphabetic characters, `-` and the space; then turn
//! each space into `-`. A repeated slug gets `-1`, `-2`, … (skipping suffixes already taken).
//! Our own code, not a port.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

/// Characters github-slugger removes (see the module doc). `--` is set difference.
const REMOVE: &str = r"[[\p{No}\p{Pe}\p{Pf}\p{Pi}\p{Ps}\p{Po}\p{Pd}\p{S}\p{Cc}\p{Co}\p{Cf}\p{Cn}\p{Z}]--[\p{Alphabetic} \-]]";

static REMOVE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(REMOVE).ok());

/// The slug of one heading text, without duplicate numbering: `"Manual filtering: globs"` →
/// `"manual-filtering-globs"`, `"ENV"` → `"env"`, `"Größe & Maß"` → `"größe--maß"`.
pub fn github_slug(title: &str) -> String {
    if title.is_ascii() {
        let mut out = String::with_capacity(title.len());
        for b in title.bytes() {
            match b {
                b' ' => out.push('-'),
                b'-' | b'_' => out.push(char::from(b)),
                _ if b.is_ascii_alphanumeric() => out.push(char::from(b.to_ascii_lowercase())),
                _ => {}
            }
        }
        return out;
    }
    let lower = title.to_lowercase();
    let kept = match REMOVE_RE.as_ref() {
        Some(re) => re.replace_all(&lower, ""),
        None => lower.as_str().into(),
    };
    kept.replace(' ', "-")
}

/// Slugs for the headings of one document, in order: the second `Usage` becomes `usage-1`.
#[derive(Debug, Default)]
pub struct Slugger {
    /// Slug → how many times its base was repeated so far.
    occurrences: HashMap<String, u32>,
}

impl Slugger {
    /// The unique slug of the next heading titled `title`.
    pub fn slug(&mut self, title: &str) -> String {
        let base = github_slug(title);
        let mut slug = base.clone();
        while self.occurrences.contains_key(&slug) {
            let n = self.occurrences.entry(base.clone()).or_insert(0);
            *n += 1;
            slug = format!("{base}-{n}");
        }
        self.occurrences.insert(slug.clone(), 0);
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_github() {
        assert!(REMOVE_RE.is_some());
        let cases = [
            ("Manual filtering: globs", "manual-filtering-globs"),
            (
                "Understand how ARG and FROM interact",
                "understand-how-arg-and-from-interact",
            ),
            ("The special `all` file type", "the-special-all-file-type"),
            (
                "R commands, case sensitivity, etc.",
                "r-commands-case-sensitivity-etc",
            ),
            ("snake_case & kebab-case", "snake_case--kebab-case"),
            ("Größe — Maß", "größe--maß"),
            ("中文 标题", "中文-标题"),
            ("Emoji 🎉 party", "emoji--party"),
            ("x² ½", "x-"),
        ];
        for (title, want) in cases {
            assert_eq!(github_slug(title), want, "{title}");
        }
    }

    #[test]
    fn duplicates_get_numbers_and_skip_taken_ones() {
        let mut s = Slugger::default();
        let got: Vec<String> = ["Usage", "Usage", "Usage 1", "Usage", "usage"]
            .iter()
            .map(|t| s.slug(t))
            .collect();
        // github-slugger's own example: `foo`, `foo`, `foo-1` → foo, foo-1, foo-1-1.
        assert_eq!(got, ["usage", "usage-1", "usage-1-1", "usage-2", "usage-3"]);
    }
}
