//! The releases a changelog covers, read from its version headings, and the versions a question
//! asks about (`version 4.x`, `v2.32.0`, `2.32`): a changelog's range is part of its period
//! ([`super::period::Period::releases`]), so a question naming a package and a version sees the
//! changelog whose range holds that version before the package's other documents.
//!
//! Versions sort by semantic version precedence (numbers compared as numbers; a pre-release
//! before its release, `7.0.0-beta.8` after `7.0.0-beta.0`; SemVer 2.0.0 §11).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::tree::Tree;

/// Fewest version headings that make a document a changelog.
pub const CHANGELOG_MIN_VERSIONS: usize = 3;

/// The releases a changelog covers: its newest and oldest version headings as written
/// (`v2.10.0`, `1.0`) and how many there are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Releases {
    /// The newest version, as its heading writes it.
    pub newest: String,
    /// The oldest version, as its heading writes it.
    pub oldest: String,
    /// How many version headings the document has (≥ [`CHANGELOG_MIN_VERSIONS`]).
    pub count: usize,
}

impl Releases {
    /// `releases 4.1.0 (newest) to 0.1.0 (oldest), 37 versions`: what a changelog's card summary
    /// starts with.
    pub fn summary(&self) -> String {
        format!(
            "releases {} (newest) to {} (oldest), {} versions",
            self.newest, self.oldest, self.count
        )
    }

    /// `releases 0.1.0–4.1.0`: the range in a period's label.
    pub fn label(&self) -> String {
        format!("releases {}–{}", self.oldest, self.newest)
    }

    /// Whether the version `asked` (its leading numbers: `[4]` for `4.x`, `[2, 32, 0]`) lies
    /// in this range, compared on as many numbers as it gives: `4.x` is in `3.9.0–4.2.1` and in
    /// `4.0.0–5.1.0`, not in `5.0.0–6.0.0`.
    pub fn holds(&self, asked: &[u64]) -> bool {
        let (Some(oldest), Some(newest)) =
            (heading_version(&self.oldest), heading_version(&self.newest))
        else {
            return false;
        };
        let n = asked.len();
        let cut =
            |v: &[u64]| -> Vec<u64> { (0..n).map(|i| v.get(i).copied().unwrap_or(0)).collect() };
        let (low, high) = (cut(&oldest.0 .0), cut(&newest.0 .0));
        low.as_slice() <= asked && asked <= high.as_slice()
    }
}

/// The releases of `tree` when at least [`CHANGELOG_MIN_VERSIONS`] of its headings (the root's
/// title aside) start with a version number (`4.1.0`, `v2.29.1`, `[1.2.3] - 2020-01-01`,
/// `Version 1.2`, `## 5.0.0-beta.1`); newest and oldest by precedence (see the module doc),
/// whatever order the document lists them in. `None` otherwise.
pub fn releases_of(tree: &Tree) -> Option<Releases> {
    let mut versions: Vec<(VersionKey, String)> = tree
        .nodes
        .iter()
        .skip(1)
        .filter_map(|n| heading_version(&n.title))
        .collect();
    if versions.len() < CHANGELOG_MIN_VERSIONS {
        return None;
    }
    let count = versions.len();
    versions.sort_by(|a, b| a.0.cmp(&b.0));
    let (oldest, newest) = (versions.first()?, versions.last()?);
    Some(Releases {
        newest: newest.1.clone(),
        oldest: oldest.1.clone(),
        count,
    })
}

/// How a version sorts: its numbers, then release after pre-release, then the pre-release's
/// identifiers (numeric ones as numbers and before alphanumeric ones).
type VersionKey = (Vec<u64>, bool, Vec<PreRelease>);

/// One dot-separated identifier of a pre-release (`beta`, `8`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum PreRelease {
    Number(u64),
    Text(String),
}

/// The pre-release identifiers after the `-` of a version (`7.0.0-beta.8` → `beta`, `8`);
/// build metadata after `+` is ignored. Empty for a release.
fn pre_release(version: &str) -> Vec<PreRelease> {
    let Some((_, pre)) = version.split_once('-') else {
        return Vec::new();
    };
    let pre = pre.split('+').next().unwrap_or("");
    pre.split('.')
        .filter(|p| !p.is_empty())
        .map(|p| match p.parse::<u64>() {
            Ok(n) => PreRelease::Number(n),
            Err(_) => PreRelease::Text(p.to_string()),
        })
        .collect()
}

/// The version a heading starts with, as a sort key and as written (`v2.29.1`).
fn heading_version(title: &str) -> Option<(VersionKey, String)> {
    let t = title.trim().trim_start_matches(['[', '#', ' ']);
    let named = ["Version ", "version ", "Release ", "release "]
        .iter()
        .find_map(|p| t.strip_prefix(p));
    let t = named.unwrap_or(t);
    let word: String = t
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ']' && *c != '(' && *c != ',')
        .collect();
    let digits = word.strip_prefix(['v', 'V']).unwrap_or(&word);
    let numbers: Vec<u64> = digits
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|p| !p.is_empty())
        .take(4)
        .filter_map(|p| p.parse().ok())
        .collect();
    // At least `major.minor`: a heading "2 Usage" is not a release.
    if numbers.len() < 2 || !digits.contains('.') {
        return None;
    }
    // A numbered section ("3.13.2. Requirements") has words after its number; a release heading
    // has at most a date or brackets, unless it says it is one ("v2.0 …", "Version 2 …").
    let rest = &t[word.len()..];
    let says_release = named.is_some() || word.starts_with(['v', 'V']);
    if rest.chars().any(char::is_alphabetic) && !says_release {
        return None;
    }
    let pre = pre_release(digits);
    Some(((numbers, pre.is_empty(), pre), word))
}

/// `version 4`, `release 2.32`, `v4.2.0`, `4.x`, `2.32.0`, `4.2.x`: said to be a version, or
/// written as one (three numbers, or a wildcard `x`). Two bare numbers (`4.2`) are an amount
/// as often as a version and are left out.
static ASKED_VERSION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    super::question_text::question_regex(
        r"(?i)\b(?:versions?|releases?|v)\s?(\d+(?:\.(?:\d+|x)){0,2})\b|\b(\d+(?:\.\d+)?\.x|\d+\.\d+\.\d+)\b",
    )
});

/// The versions `question` names, each as its leading numbers (`4.x` → `[4]`, `v2.32.0` →
/// `[2, 32, 0]`); empty when it names none. A year-like major alone (`version 2019`) counts.
pub fn asked_versions(question: &str) -> Vec<Vec<u64>> {
    // A version is ASCII digits after `v`, `version` or `release`, or has a dot: without
    // these the pattern is not even built.
    let lower = question.to_ascii_lowercase();
    if !lower.bytes().any(|b| b.is_ascii_digit())
        || !(lower.contains('.') || lower.contains('v') || lower.contains("relea"))
    {
        return Vec::new();
    }
    let Some(re) = ASKED_VERSION.as_ref() else {
        return Vec::new();
    };
    let mut out: Vec<Vec<u64>> = Vec::new();
    for c in re.captures_iter(&super::question_text::ascii_spaced(question)) {
        let Some(v) = c.get(1).or_else(|| c.get(2)) else {
            continue;
        };
        let numbers: Vec<u64> = v
            .as_str()
            .split('.')
            .map_while(|p| p.parse::<u64>().ok())
            .collect();
        if !numbers.is_empty() && !out.contains(&numbers) {
            out.push(numbers);
        }
    }
    out
}

/// 3 when `releases` holds one of the `asked` versions ([`Releases::holds`]), else 0: on the
/// scale of [`super::period::match_period`], a version in range answers like a fiscal year.
pub fn match_releases(releases: &Releases, asked: &[Vec<u64>]) -> u8 {
    if asked.iter().any(|a| releases.holds(a)) {
        3
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn range(oldest: &str, newest: &str) -> Releases {
        Releases {
            newest: newest.into(),
            oldest: oldest.into(),
            count: 3,
        }
    }

    #[test]
    fn a_question_names_versions_said_or_written_as_versions() {
        assert_eq!(asked_versions("what changed in version 4.x?"), [vec![4]]);
        assert_eq!(
            asked_versions("Which release added X (v2.32.0)"),
            [vec![2, 32, 0]]
        );
        assert_eq!(
            asked_versions("is it in 2.32.0 or 4.2.x"),
            [vec![2, 32, 0], vec![4, 2]]
        );
        assert_eq!(asked_versions("since release 7"), [vec![7]]);
        assert_eq!(asked_versions("since RELEASE\u{a0}7"), [vec![7]]);
        assert!(ASKED_VERSION.is_some());
        // Amounts and years are not versions.
        assert!(asked_versions("revenue grew 4.2% in 2019 to $3.5 billion").is_empty());
    }

    #[test]
    fn a_range_holds_the_versions_between_its_ends_compared_on_the_asked_numbers() {
        let r = range("v3.9.0", "4.2.1");
        assert!(r.holds(&[4]));
        assert!(r.holds(&[3]));
        assert!(r.holds(&[4, 2, 1]));
        assert!(!r.holds(&[4, 3]));
        assert!(!r.holds(&[5]));
        assert!(!r.holds(&[3, 8]));
        assert_eq!(match_releases(&range("5.0.0", "6.0.0"), &[vec![4]]), 0);
        assert_eq!(match_releases(&range("1.0", "4.0.0"), &[vec![4]]), 3);
    }
}
