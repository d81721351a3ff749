//! The names a document goes by, read from the document itself (DESIGN.md §2), and the names a
//! question uses: what lets the pre-rank put the documents a question names first.
//!
//! A document's names ([`names_of`]): the entity its title names (an SEC cover's registrant,
//! `Apple Inc.`; a release's subject, `Salesforce Announces …`; a scoped package,
//! `@fluentui/react`), the name its file gives (`COSTCO_2019_10K.pdf` → `COSTCO`), its tickers
//! (a cover's `Trading Symbol` row, a release's `(NYSE: CRM)`), the aliases it defines for
//! itself (`Johnson & Johnson (the "Company" or "J&J")`, `"we," "Walmart" or the "Company"`) and
//! the names it had (`formerly Square`, `changed our name from Square to Block`). Nothing is per
//! company: every rule reads the document's words.
//!
//! Each name is looked up by its [`name_keys`]: the name squeezed to lowercase letters and
//! digits (`Coca-Cola` and `COCA COLA` are `cocacola`), without the legal form (`Inc.`, `Corp.`,
//! `& Co.`, a leading `The`), with `&` as `and`, the initials of a name of three words or more
//! (`Advanced Micro Devices` → `amd`) and the first word of one whose first word is written in
//! mixed case (`JPMorgan Chase` → `jpmorgan`). A question's words make the same keys
//! ([`question_keys`]), so a name is found by a lookup in the catalog, not a walk of it.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::tree::{NodeId, Tree};

/// Most names a card keeps.
pub const MAX_NAMES: usize = 8;
/// Longest name kept, in chars.
pub const MAX_NAME_CHARS: usize = 48;
/// How much of a document's text (chars, reading order) the alias rules read.
pub const NAMES_TEXT_CHARS: usize = 200_000;
/// Longest run of words in a question looked up as a name.
pub const MAX_NAME_WORDS: usize = 5;

/// Prefix of the catalog lookup keys of names.
pub const KEY_PREFIX: &str = "entity:";

/// Legal forms and their like, dropped from the end of a name for its short form.
const LEGAL_FORMS: &[&str] = &[
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "co",
    "company",
    "companies",
    "ltd",
    "limited",
    "plc",
    "llc",
    "lp",
    "llp",
    "holdings",
    "holding",
    "group",
    "na",
    "sa",
    "ag",
    "se",
    "nv",
    "the",
];

/// Terms a document defines for itself that name no one in particular.
const SELF_TERMS: &[&str] = &[
    "company",
    "we",
    "us",
    "our",
    "registrant",
    "corporation",
    "issuer",
    "parent",
    "group",
    "firm",
    "bank",
    "partnership",
    "trust",
    "fund",
];

/// Verbs a press release's title line puts after its subject (`Salesforce Announces …`).
const RELEASE_VERBS: &[&str] = &[
    "announces",
    "reports",
    "reported",
    "announced",
    "declares",
    "posts",
    "delivers",
    "releases",
];

/// `text` squeezed to lowercase letters and digits: what names are compared by.
pub fn squeeze(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The words of a name, without punctuation around them (`J&J` and `eBay` stay whole).
fn words(name: &str) -> Vec<&str> {
    name.split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '&'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// `name` without its legal form and a leading `The` (`THE AES CORPORATION` → `AES`;
/// `JPMorgan Chase & Co.` → `JPMorgan Chase`); the name itself when nothing is left.
pub fn short_form(name: &str) -> String {
    let mut w = words(name);
    while w.len() > 1 && w.last().is_some_and(|l| is_legal(l)) {
        w.pop();
        if w.len() > 1 && w.last() == Some(&"&") {
            w.pop();
        }
    }
    if w.len() > 1 && w[0].eq_ignore_ascii_case("the") {
        w.remove(0);
    }
    w.join(" ")
}

fn is_legal(word: &str) -> bool {
    LEGAL_FORMS.contains(&squeeze(word).as_str())
}

/// The lookup keys of a name (see the module doc), each once; names that squeeze to fewer than
/// 2 chars, or to a legal form or self term alone, have none.
pub fn name_keys(name: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    let mut add = |k: String| {
        let k = k.to_string();
        if k.chars().count() >= 2
            && !LEGAL_FORMS.contains(&k.as_str())
            && !SELF_TERMS.contains(&k.as_str())
            && !keys.contains(&k)
        {
            keys.push(k);
        }
    };
    let short = short_form(name);
    for form in [name.to_string(), short.clone()] {
        add(squeeze(&form));
        if form.contains('&') {
            add(squeeze(&form.replace('&', " and ")));
        }
        if form
            .split_whitespace()
            .any(|w| w.eq_ignore_ascii_case("and"))
        {
            add(squeeze(
                &form
                    .split_whitespace()
                    .filter(|w| !w.eq_ignore_ascii_case("and"))
                    .collect::<String>(),
            ));
        }
    }
    let w: Vec<&str> = words(&short).into_iter().filter(|w| *w != "&").collect();
    if w.len() >= 3 {
        let initials: String = w
            .iter()
            .filter(|w| !w.eq_ignore_ascii_case("and") && !w.eq_ignore_ascii_case("of"))
            .filter_map(|w| w.chars().next())
            .collect();
        add(squeeze(&initials));
    }
    if w.len() >= 2 {
        let first = w[0];
        let mixed =
            first.chars().skip(1).any(char::is_uppercase) && first.chars().any(char::is_lowercase);
        if mixed && first.chars().count() >= 4 {
            add(squeeze(first));
        }
    }
    keys.into_iter()
        .map(|k| format!("{KEY_PREFIX}{k}"))
        .collect()
}

/// The lookup keys of every run of up to [`MAX_NAME_WORDS`] words in `question` that could be
/// a name: runs with a capital letter (`Costco`, `eBay`, `Kraft Heinz`, `J&J`, `KO`), and runs
/// of two words or more in any case (`kraft heinz`); a possessive `'s` is dropped. Single
/// lowercase words are left to the file names ([`crate::agent`]'s named documents): as names
/// they would be every common word.
pub fn question_keys(question: &str) -> Vec<String> {
    // Each word without a possessive `'s`, and whether it had one (`McDonald's` is
    // `mcdonald` and `mcdonalds`, `Costco's` `costco` and `costcos`).
    let tokens: Vec<(String, bool)> = question
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '?' | '!' | '(' | ')'))
        .map(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '&');
            let stripped = w.strip_suffix("'s").or_else(|| w.strip_suffix("’s"));
            (stripped.unwrap_or(w).to_string(), stripped.is_some())
        })
        .filter(|(w, _)| !w.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for start in 0..tokens.len() {
        for len in 1..=MAX_NAME_WORDS.min(tokens.len() - start) {
            let run = &tokens[start..start + len];
            let capital = run.iter().any(|(w, _)| w.chars().any(char::is_uppercase));
            if len == 1 && !capital {
                continue;
            }
            let joined: String = run
                .iter()
                .map(|(w, _)| w.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let mut forms = vec![squeeze(&joined)];
            if run.last().is_some_and(|(_, possessive)| *possessive) {
                forms.push(format!("{}s", squeeze(&joined)));
            }
            for key in forms {
                if key.chars().count() < 2 || key.chars().all(|c| c.is_ascii_digit()) {
                    continue;
                }
                let key = format!("{KEY_PREFIX}{key}");
                if seen.insert(key.clone()) {
                    out.push(key);
                }
            }
        }
    }
    out
}

static TRADING_SYMBOL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)trading\s+symbol").ok());
static TICKER_ROW: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)([A-Z]{1,5}(?:\.[A-Z])?)\s+(?:The\s+)?(?:NASDAQ|Nasdaq|New York Stock Exchange|NYSE|Chicago Stock Exchange|Cboe)")
        .ok()
});
static TICKER_TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"((?:[A-Z][\w'’&.-]*\s+){0,3}[A-Z][\w'’&.-]*)\s*\(\s*(?:NYSE|NASDAQ|Nasdaq|NASDAQ-GS|Nasdaq GS)\s*:\s*([A-Z]{1,5}(?:\.[A-Z])?)\s*\)")
        .ok()
});
static DEFINED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"\(([^()]{0,120}?["“][^()]{1,120}?)\)"#).ok());
static QUOTED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"["“]([^"”“]{1,48}?)[,.]?["”]"#).ok());
static FORMERLY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:\(|,\s)formerly(?:\s+known\s+as)?\s+([A-Z][\w&.'’-]*(?:\s+[A-Z&][\w&.'’-]*){0,3})",
    )
    .ok()
});
// ASCII word boundaries (`(?-u:\b)`): with Unicode ones the lazy DFA gives up on the first
// non-ASCII character and every search of the opening text runs the PikeVM.
static RENAMED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(?:changed\s+(?:its|our)\s+name\s+from\s+([A-Z][\w&.'’-]*(?:\s+[A-Z&][\w&.'’-]*){0,3}?),?\s+to(?-u:\b)|([A-Z][\w&.'’-]*(?:\s+[A-Z&][\w&.'’-]*){0,3}?),?\s+changed\s+its\s+name\s+to(?-u:\b))")
        .ok()
});

/// The names `tree` (from `source`, the path it was indexed from) goes by, best first, at most
/// [`MAX_NAMES`] of at most [`MAX_NAME_CHARS`] chars; see the module doc for the rules.
pub fn names_of(tree: &Tree, source: &str) -> Vec<String> {
    let title = tree.nodes.first().map_or("", |n| n.title.as_str());
    let mut text = String::new();
    if !tree.is_empty() {
        for id in tree.preorder(NodeId::ROOT) {
            let node = tree.node(id);
            text.push_str(&node.title);
            text.push('\n');
            text.push_str(&node.content);
            text.push('\n');
            if text.len() >= NAMES_TEXT_CHARS {
                break;
            }
        }
    }
    let cut = floor_char(&text, NAMES_TEXT_CHARS.min(text.len()));
    names_from(title, &text[..cut], source)
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// [`names_of`] over a title, the document's opening text and its source path.
pub fn names_from(title: &str, text: &str, source: &str) -> Vec<String> {
    let mut names = Names::default();
    // The entity the title names.
    if let Some((registrant, _)) = title.split_once(" — Form ") {
        names.add(registrant);
        names.add(&short_form(registrant));
    } else if let Some(subject) = release_subject(title) {
        names.add(&subject);
    }
    for w in title.split_whitespace() {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '@');
        if w.starts_with('@') && w.contains('/') {
            names.add(w);
        }
    }
    let head: String = text.chars().take(6_000).collect();
    // A cover's trading symbols: the capitals before an exchange's name, under the
    // `Trading Symbol` heading.
    if let Some(at) = TRADING_SYMBOL.as_ref().and_then(|re| re.find(&head)) {
        let rows: String = head[at.start()..].chars().take(600).collect();
        if let Some(re) = TICKER_ROW.as_ref() {
            for c in re.captures_iter(&rows).take(2) {
                if let Some(t) = c.get(1) {
                    names.add(t.as_str());
                }
            }
        }
    }
    // A release's `Subject (NYSE: TICK)`.
    if let Some(re) = TICKER_TAG.as_ref() {
        if let Some(c) = re.captures(&head) {
            if let Some(subject) = c.get(1) {
                let s = subject.as_str().trim();
                if names.is_entity(s) || names.list.is_empty() {
                    names.add(s);
                }
            }
            if let Some(t) = c.get(2) {
                names.add(t.as_str());
            }
        }
    }
    // The file's name: before `__`, else its words before the first with a digit.
    let file = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    if let Some((name, _)) = stem.split_once("__") {
        names.add(name);
    } else {
        let parts: Vec<&str> = stem.split(['_', '-', ' ']).collect();
        if let Some(at) = parts
            .iter()
            .position(|p| p.chars().any(|c| c.is_ascii_digit()))
        {
            if at > 0 {
                names.add(&parts[..at].join(" "));
            }
        }
    }
    defined_aliases(text, &mut names);
    names.list
}

/// The subject of a release's title line: the words before `Announces`, `Reports`….
fn release_subject(title: &str) -> Option<String> {
    let w: Vec<&str> = title.split_whitespace().collect();
    let at = w
        .iter()
        .position(|x| RELEASE_VERBS.contains(&x.to_lowercase().as_str()))?;
    (1..=4).contains(&at).then(|| w[..at].join(" "))
}

/// Aliases `text` defines for the entity (a parenthetical of quoted terms after one of its
/// names, or one that also defines `Company`/`we`) and its former names.
fn defined_aliases(text: &str, names: &mut Names) {
    if let (Some(defined), Some(quoted)) = (DEFINED.as_ref(), QUOTED.as_ref()) {
        for c in defined.captures_iter(text) {
            let (Some(whole), Some(inner)) = (c.get(0), c.get(1)) else {
                continue;
            };
            let terms: Vec<&str> = quoted
                .captures_iter(inner.as_str())
                .filter_map(|q| q.get(1).map(|m| m.as_str().trim()))
                .collect();
            let selfish = terms
                .iter()
                .any(|t| SELF_TERMS.contains(&squeeze(t).as_str()));
            let before_from = floor_char(text, whole.start().saturating_sub(60));
            let before = &text[before_from..whole.start()];
            // Only the entity's own aliases: defined right after one of its names, and either
            // with a self term (`the "Company"`) or abbreviating the name (`Costco`, `J&J`);
            // `Walmart ("EPS")` and `The Kraft Heinz Company (as the "Parent Guarantor")`
            // define other things.
            if !names.ends_with_entity(before) {
                continue;
            }
            for t in terms {
                if t.starts_with(|c: char| c.is_uppercase()) && (selfish || names.abbreviates(t)) {
                    names.add(t);
                }
            }
            if names.list.len() >= MAX_NAMES {
                return;
            }
        }
    }
    for re in [FORMERLY.as_ref(), RENAMED.as_ref()].into_iter().flatten() {
        for c in re.captures_iter(text) {
            let Some(old) = c.get(1).or_else(|| c.get(2)) else {
                continue;
            };
            let whole = c.get(0).map_or(0, |m| m.start());
            let before_from = floor_char(text, whole.saturating_sub(60));
            let before = &text[before_from..whole];
            let ours = c.get(0).is_some_and(|m| {
                let s = m.as_str();
                s.contains("our name") || s.contains("its name")
            });
            // Only the entity's own former names: right after one of its names, or `we`/`our`.
            let renamed_entity = c.get(2).is_some_and(|m| names.is_entity(m.as_str()));
            let was_ours = c.get(1).is_some() && ours && {
                let tail: String = before.chars().rev().take(12).collect::<String>();
                let tail: String = tail.chars().rev().collect::<String>().to_lowercase();
                tail.contains("we ") || names.ends_with_entity(before)
            };
            if renamed_entity
                || was_ours
                || (c.get(2).is_none() && !ours && names.ends_with_entity(before))
            {
                names.add(&short_form(old.as_str()));
            }
        }
    }
}

/// Names collected in order, each once by its squeezed short form.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    keys: HashSet<String>,
}

impl Names {
    fn add(&mut self, name: &str) {
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        let name = name.trim_matches(|c: char| c == ',' || c == ';' || c.is_whitespace());
        if self.list.len() >= MAX_NAMES || name.chars().count() > MAX_NAME_CHARS {
            return;
        }
        let key = squeeze(name);
        if key.chars().count() < 2
            || LEGAL_FORMS.contains(&key.as_str())
            || SELF_TERMS.contains(&key.as_str())
            || !self.keys.insert(key)
        {
            return;
        }
        self.list.push(name.to_string());
    }

    /// Whether `name` is one of the names so far (compared squeezed, short forms too).
    fn is_entity(&self, name: &str) -> bool {
        let k = squeeze(&short_form(name));
        self.keys.contains(&k)
            || self
                .list
                .iter()
                .any(|n| squeeze(&short_form(n)) == k && !k.is_empty())
    }

    /// Whether `term` abbreviates one of the names so far: the start of it (`Costco` of
    /// `Costco Wholesale Corporation`) or its initials (`J&J` of `Johnson & Johnson`).
    fn abbreviates(&self, term: &str) -> bool {
        let t = squeeze(term);
        t.len() >= 2
            && self.list.iter().any(|n| {
                let initials: String = words(&short_form(n))
                    .iter()
                    .filter(|w| **w != "&" && !w.eq_ignore_ascii_case("and"))
                    .filter_map(|w| w.chars().next())
                    .flat_map(char::to_lowercase)
                    .collect();
                squeeze(n).starts_with(&t) || initials == t
            })
    }

    /// Whether `before` (text before a parenthetical) ends with one of the names so far.
    fn ends_with_entity(&self, before: &str) -> bool {
        let b = squeeze(before);
        self.list.iter().any(|n| {
            let full = squeeze(n);
            let short = squeeze(&short_form(n));
            (!full.is_empty() && b.ends_with(&full)) || (short.len() >= 3 && b.ends_with(&short))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_names_keys_are_its_squeezed_forms_short_forms_and_initials() {
        assert_eq!(short_form("THE AES CORPORATION"), "AES");
        assert_eq!(short_form("JPMorgan Chase & Co."), "JPMorgan Chase");
        assert_eq!(short_form("COCA COLA CO"), "COCA COLA");
        assert_eq!(
            name_keys("Johnson & Johnson"),
            ["entity:johnsonjohnson", "entity:johnsonandjohnson"]
        );
        assert_eq!(
            name_keys("ADVANCED MICRO DEVICES, INC."),
            [
                "entity:advancedmicrodevicesinc",
                "entity:advancedmicrodevices",
                "entity:amd"
            ]
        );
        assert_eq!(
            name_keys("JPMorgan Chase & Co."),
            [
                "entity:jpmorganchaseco",
                "entity:jpmorganchaseandco",
                "entity:jpmorganchase",
                "entity:jpmorgan"
            ]
        );
        assert!(name_keys("Company").is_empty());
    }

    #[test]
    fn a_question_keys_its_capitalised_runs_and_longer_ones() {
        let keys = question_keys("What was Kraft Heinz's FY2022 revenue, per J&J and KO?");
        for k in [
            "entity:kraftheinz",
            "entity:jj",
            "entity:ko",
            "entity:kraft",
        ] {
            assert!(keys.contains(&k.to_string()), "{k} in {keys:?}");
        }
        // A lowercase word alone is no name; two are looked up.
        let keys = question_keys("which block of shares for kraft heinz");
        assert!(!keys.contains(&"entity:block".to_string()), "{keys:?}");
        assert!(keys.contains(&"entity:kraftheinz".to_string()), "{keys:?}");
    }

    #[test]
    fn a_cover_gives_the_registrant_its_ticker_and_the_aliases_it_defines() {
        let text = "Title of each class Trading Symbol\nName of each exchange on\nwhich registered\nCommon Stock, $.01 Par Value COST The NASDAQ Global Select Market\n\
                    This Amendment is between Citibank, N.A. (“Bank”) and Costco Wholesale Corporation (“Costco”), is made.";
        assert_eq!(
            names_from(
                "Costco Wholesale Corporation — Form 10-K, fiscal year ended September 1, 2019",
                text,
                "/f/COSTCO_2019_10K.pdf"
            ),
            [
                "Costco Wholesale Corporation",
                "Costco Wholesale",
                "COST",
                "COSTCO"
            ]
        );
        let jnj = "Johnson & Johnson (the \"Company\" or \"J&J\") makes things.";
        assert_eq!(
            names_from("Johnson & Johnson — Form 10-K", jnj, "/f/x.pdf"),
            ["Johnson & Johnson", "J&J"]
        );
        let walmart = "Walmart Inc. (which, together with its subsidiaries, is referred to as \"we,\" \"Walmart\" or the \"Company\") has filed";
        assert_eq!(
            names_from(
                "WALMART INC. — Form 10-K",
                walmart,
                "/f/WALMART_2022_10K.pdf"
            ),
            ["WALMART INC.", "WALMART"]
        );
        let block =
            "On December 1, 2021, we changed our name from Square to Block. Block is the name.";
        assert_eq!(
            names_from("BLOCK, INC. — Form 10-K", block, "/f/BLOCK_2021_10K.pdf"),
            ["BLOCK, INC.", "BLOCK", "Square"]
        );
        // A term defined for someone else is not the document's.
        let other = "Kraft Foods Group, Inc. (“Kraft”) merged with H.J. Heinz (“Heinz”).";
        assert_eq!(
            names_from(
                "The Kraft Heinz Company — Form 10-K",
                other,
                "/f/KRAFTHEINZ_2022_10K.pdf"
            ),
            ["The Kraft Heinz Company", "Kraft Heinz"]
        );
    }

    #[test]
    fn a_release_names_its_subject_and_ticker_and_a_changelog_its_package() {
        let text = "SAN FRANCISCO, Calif. - May 31, 2023 - Salesforce (NYSE: CRM), the global leader in CRM";
        assert_eq!(
            names_from(
                "Salesforce Announces Strong First Quarter Fiscal 2024 Results",
                text,
                "/f/SALESFORCE_2024Q1_EARNINGS.pdf"
            ),
            ["Salesforce", "CRM"]
        );
        assert_eq!(
            names_from(
                "Change Log - @fluentui/react",
                "",
                "/md/fluentui-react__CHANGELOG.md"
            ),
            ["@fluentui/react"]
        );
    }
}
