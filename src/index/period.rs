//! The period a document covers, read from the document itself (DESIGN.md §2), and the period a
//! question asks about; [`match_period`] says how well the two agree.
//!
//! A document's period comes from its title first (an SEC cover gives
//! `… — Form 10-K, fiscal year ended September 28, 2019`, `… — Form 10-Q, quarterly period ended
//! March 31, 2022`, `… — Form 8-K, August 9, 2023`; a release's title line `… SECOND QUARTER 2023
//! RESULTS`, `First Quarter Fiscal 2024 Results`), then from its first pages. Fiscal years that
//! differ from calendar years follow the document's own statement: the year a `fiscal 2023` or
//! `fiscal year 2023` next to the period's end date names, else the end date's year. Nothing is
//! per company: every rule reads the document's words.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::question_text::{ascii_spaced, question_regex};
use super::releases::{releases_of, Releases};
use crate::tree::{NodeId, Tree};

/// How much of a document's text (chars, reading order) the period rules read: its first pages.
pub const PERIOD_TEXT_CHARS: usize = 60_000;

/// A calendar date, `(year, month, day)`.
pub type Date = (u16, u8, u8);

/// The period a document covers (what its DocCard shows and the pre-rank matches questions on).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Period {
    /// The form it is (`10-K`, `10-Q`, `8-K`, `earnings release`), when its first page says.
    pub form: Option<String>,
    /// The fiscal year it reports on (its own numbering: a year ending January 31, 2023 that
    /// the document calls `fiscal 2023` is 2023).
    pub fiscal_year: Option<u16>,
    /// The quarter of that fiscal year (1–4) for a quarterly report; `None` for a year's.
    pub quarter: Option<u8>,
    /// The day the period ends.
    pub end: Option<Date>,
    /// The day of the report (an 8-K's earliest event, a release's date).
    pub report: Option<Date>,
    /// The releases a changelog covers ([`super::releases::releases_of`]).
    pub releases: Option<Releases>,
}

impl Period {
    /// `fiscal year 2019, ended 2019-09-28`, `Q1 fiscal 2024, ended 2023-04-30`,
    /// `report of 2023-08-09`: what a DocCard shows; `""` for an empty period.
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        match (self.quarter, self.fiscal_year) {
            (Some(q), Some(y)) => parts.push(format!("Q{q} fiscal {y}")),
            (None, Some(y)) => parts.push(format!("fiscal year {y}")),
            _ => {}
        }
        if let Some(d) = self.end {
            parts.push(format!("ended {}", iso(d)));
        }
        if let Some(d) = self.report {
            parts.push(format!("report of {}", iso(d)));
        }
        if let Some(r) = &self.releases {
            parts.push(r.label());
        }
        let mut label = parts.join(", ");
        if let Some(form) = &self.form {
            label = if label.is_empty() {
                form.clone()
            } else {
                format!("{form}, {label}")
            };
        }
        label
    }

    /// `FY2019`, `Q1 FY2024`, `2023-08-09`: the short form a one-line card shows; `""` when
    /// nothing is known.
    pub fn short(&self) -> String {
        match (self.quarter, self.fiscal_year, self.report) {
            (Some(q), Some(y), _) => format!("Q{q} FY{y}"),
            (None, Some(y), _) => format!("FY{y}"),
            (_, None, Some(d)) => iso(d),
            _ => String::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.fiscal_year.is_none()
            && self.end.is_none()
            && self.report.is_none()
            && self.releases.is_none()
    }

    /// Whether it says more than a changelog's releases (which its card's summary says
    /// already).
    pub fn is_dated(&self) -> bool {
        self.form.is_some()
            || self.fiscal_year.is_some()
            || self.end.is_some()
            || self.report.is_some()
    }
}

fn iso((y, m, d): Date) -> String {
    format!("{y:04}-{m:02}-{d:02}")
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// The month number (1–12) of an English month name or its abbreviation (`Sept.`).
fn month(name: &str) -> Option<u8> {
    let n = name.trim_end_matches('.').to_lowercase();
    if n.len() < 3 {
        return None;
    }
    let full = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let at = MONTHS.iter().position(|m| n.starts_with(m))?;
    (full[at].starts_with(&n) || n == "sept").then(|| u8::try_from(at + 1).ok())?
}

/// `Month D, YYYY` (`September 28, 2019`, `Sept. 1, 2019`).
static DATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b([A-Z][a-z]{2,8}\.?)\s+(\d{1,2}),\s*((?:19|20)\d{2})\b").ok());

fn dates_in(text: &str) -> Vec<(usize, usize, Date)> {
    // Every date has a comma before its year: without one the pattern is not built.
    if !text.contains(',') {
        return Vec::new();
    }
    let Some(re) = DATE.as_ref() else {
        return Vec::new();
    };
    re.captures_iter(text)
        .filter_map(|c| {
            let m = month(c.get(1)?.as_str())?;
            let d: u8 = c.get(2)?.as_str().parse().ok()?;
            let y: u16 = c.get(3)?.as_str().parse().ok()?;
            let whole = c.get(0)?;
            (1..=31)
                .contains(&d)
                .then_some((whole.start(), whole.end(), (y, m, d)))
        })
        .collect()
}

fn first_date(text: &str) -> Option<Date> {
    dates_in(text).first().map(|d| d.2)
}

static ENDED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(fiscal year|quarterly period|year|quarter|period|fiscal\s+(?:19|20)\d{2})\s+ended\s+",
    )
    .ok()
});
static FORM: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bForm\s+(10-K|10-Q|8-K|20-F|40-F|6-K)\b").ok());
const ORDINAL_QUARTER_PATTERN: &str = r"(?i)\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\s+(?:of\s+)?(fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})\b";
static ORDINAL_QUARTER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(ORDINAL_QUARTER_PATTERN).ok());
static RELEASE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\b(results|earnings)\b").ok());
const FISCAL_YEAR_PATTERN: &str =
    r"(?i)\bfiscal\s+(?:year\s+)?((?:19|20)\d{2})\b|\bFY\s?((?:19|20)\d{2}|\d{2})\b";
static FISCAL_YEAR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(FISCAL_YEAR_PATTERN).ok());

fn ordinal(word: &str) -> Option<u8> {
    match word.to_lowercase().as_str() {
        "first" | "1st" => Some(1),
        "second" | "2nd" => Some(2),
        "third" | "3rd" => Some(3),
        "fourth" | "4th" => Some(4),
        _ => None,
    }
}

/// The first [`PERIOD_TEXT_CHARS`] chars of `tree`'s text in reading order (titles and
/// contents).
fn opening_text(tree: &Tree) -> String {
    let mut text = String::new();
    if tree.is_empty() {
        return text;
    }
    for id in tree.preorder(NodeId::ROOT) {
        let node = tree.node(id);
        for part in [node.title.as_str(), node.content.as_str()] {
            text.push_str(part);
            text.push('\n');
        }
        if text.len() >= PERIOD_TEXT_CHARS {
            break;
        }
    }
    let cut: String = text.chars().take(PERIOD_TEXT_CHARS).collect();
    cut
}

/// The period `tree` covers, read from its title and first pages (see the module doc), and
/// for a changelog the releases its headings name; `None` when they name none.
pub fn period_of(tree: &Tree) -> Option<Period> {
    let title = tree.nodes.first().map_or("", |n| n.title.as_str());
    let text = opening_text(tree);
    let releases = releases_of(tree);
    let mut period = period_from(title, &text).unwrap_or_default();
    period.releases = releases;
    (!period.is_empty()).then_some(period)
}

/// [`period_of`] over a title and the document's opening text.
pub fn period_from(title: &str, text: &str) -> Option<Period> {
    let mut p = Period {
        form: FORM
            .as_ref()
            .and_then(|re| re.captures(title))
            .and_then(|c| Some(c.get(1)?.as_str().to_uppercase())),
        ..Period::default()
    };
    // "fiscal year ended DATE" / "quarterly period ended DATE" in the title, else the first one
    // of the opening text.
    let ended = |s: &str| -> Option<(bool, Date)> {
        let re = ENDED.as_ref()?;
        re.captures_iter(s).find_map(|c| {
            let kind = c.get(1)?.as_str().to_lowercase();
            let after = &s[c.get(0)?.end()..];
            let date = dates_in(after.get(..after.len().min(40))?).first()?.2;
            Some((kind.contains("quarter"), date))
        })
    };
    // A current report has no period of its own, whatever its exhibit reports on.
    let current = p.form.as_deref() == Some("8-K");
    let stated = ended(title).or_else(|| {
        // Only a report's own period: a cover or a release says it in its first lines.
        let head: String = text.chars().take(3_000).collect();
        ended(&head)
    });
    let stated = stated.filter(|_| !current);
    // A quarter the title or first lines name (`SECOND QUARTER 2023`, `first quarter fiscal
    // 2024`).
    let head: String = text.chars().take(3_000).collect();
    let named_quarter = [title, head.as_str()].into_iter().find_map(|s| {
        let c = ORDINAL_QUARTER.as_ref()?.captures(s)?;
        let q = ordinal(c.get(1)?.as_str())?;
        let fiscal = c.get(2).is_some();
        let y: u16 = c.get(3)?.as_str().parse().ok()?;
        Some((q, fiscal, y))
    });
    let release = p.form.is_none()
        && named_quarter.is_some()
        && RELEASE.as_ref().is_some_and(|re| re.is_match(title));
    if release {
        p.form = Some("earnings release".into());
    }
    match stated {
        Some((quarterly, end)) => {
            p.end = Some(end);
            if quarterly || named_quarter.is_some() {
                let (q, y) = quarter_of(text, end, named_quarter);
                p.quarter = Some(q);
                p.fiscal_year = Some(y);
            } else {
                p.fiscal_year = Some(fiscal_year_of(text, end));
            }
        }
        None => {
            if let Some((q, _, y)) = named_quarter {
                p.quarter = Some(q);
                p.fiscal_year = Some(y);
            }
        }
    }
    if current || (p.end.is_none() && p.form.is_some()) {
        // A current report has no period: the date on its cover is the report's.
        let after_form = title.split_once(" — ").map_or(title, |(_, rest)| rest);
        p.report = first_date(after_form);
    } else if release {
        // The release's dateline, when it is not the period's end.
        p.report = dates_in(&head)
            .into_iter()
            .map(|d| d.2)
            .find(|d| Some(*d) != p.end);
    }
    (!p.is_empty()).then_some(p)
}

/// The fiscal year a year ending `end` is, by the document's words: a `fiscal 2023` or `fiscal
/// year 2023` within 80 chars of the end date written out, when it names the end's year or the
/// year before; else the end date's year.
fn fiscal_year_of(text: &str, end: Date) -> u16 {
    let near: Vec<(usize, usize)> = dates_in(text)
        .into_iter()
        .filter(|d| d.2 == end)
        .map(|d| (d.0, d.1))
        .collect();
    let Some(re) = FISCAL_YEAR.as_ref() else {
        return end.0;
    };
    for (start, stop) in near {
        let from = floor_char(text, start.saturating_sub(80));
        let to = floor_char(text, (stop + 80).min(text.len()));
        for c in re.captures_iter(&text[from..to]) {
            if let Some(y) = c.get(1).and_then(|m| m.as_str().parse::<u16>().ok()) {
                if y == end.0 || y + 1 == end.0 {
                    return y;
                }
            }
        }
    }
    end.0
}

/// The quarter and fiscal year of a quarter ending `end`: the one named (`first quarter fiscal
/// 2024`), else the most frequent `… quarter of [fiscal] YYYY` of the opening text whose year is
/// the end's or the next, else the calendar quarter of the end date.
fn quarter_of(text: &str, end: Date, named: Option<(u8, bool, u16)>) -> (u8, u16) {
    if let Some((q, _, y)) = named {
        if y == end.0 || y == end.0 + 1 {
            return (q, y);
        }
    }
    let mut counts: std::collections::HashMap<(u8, u16), usize> = Default::default();
    if let Some(re) = ORDINAL_QUARTER.as_ref() {
        for c in re.captures_iter(text) {
            let (Some(q), Some(y)) = (
                c.get(1).and_then(|m| ordinal(m.as_str())),
                c.get(3).and_then(|m| m.as_str().parse::<u16>().ok()),
            ) else {
                continue;
            };
            if y == end.0 || y == end.0 + 1 {
                *counts.entry((q, y)).or_default() += 1;
            }
        }
    }
    let calendar = ((end.1 - 1) / 3 + 1, end.0);
    counts
        .into_iter()
        .max_by_key(|(k, n)| (*n, *k == calendar))
        .filter(|(_, n)| *n >= 2)
        .map_or(calendar, |(k, _)| k)
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A period a question asks about (`FY2015`, `Q2 2023`, `the first quarter of 2022`, `as of
/// May 26, 2023`, `2015`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AskedPeriod {
    /// The year named.
    pub year: u16,
    /// Whether it said fiscal (`FY`, `fiscal`).
    pub fiscal: bool,
    /// The quarter named, if any.
    pub quarter: Option<u8>,
    /// The day named, if any.
    pub date: Option<Date>,
}

static ASKED_ORDINAL_QUARTER: LazyLock<Option<Regex>> =
    LazyLock::new(|| question_regex(ORDINAL_QUARTER_PATTERN));
static ASKED_FISCAL_YEAR: LazyLock<Option<Regex>> =
    LazyLock::new(|| question_regex(FISCAL_YEAR_PATTERN));
static ASKED_QUARTER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    question_regex(
        r"(?i)\bQ([1-4])\s*(?:of\s+)?(FY\s?|fiscal\s+(?:year\s+)?)?'?((?:19|20)\d{2}|\d{2})\b|\b((?:19|20)\d{2})\s*Q([1-4])\b",
    )
});
/// The years 1900–2099 written alone in `text` (four ASCII digits starting `19` or `20`, no
/// ASCII letter, digit or `_` on either side), in order.
fn bare_years(text: &str) -> Vec<u16> {
    let bytes = text.as_bytes();
    let word = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let mut out = Vec::new();
    for start in 0..bytes.len().saturating_sub(3) {
        let four = &bytes[start..start + 4];
        if matches!(&four[..2], b"19" | b"20")
            && four.iter().all(u8::is_ascii_digit)
            && (start == 0 || !word(start - 1))
            && !word(start + 4)
        {
            out.push(four.iter().fold(0, |y, d| y * 10 + u16::from(d - b'0')));
        }
    }
    out
}

fn full_year(y: &str) -> Option<u16> {
    let n: u16 = y.parse().ok()?;
    Some(if y.len() == 2 { 2000 + n } else { n })
}

/// The periods `question` names, most specific first (dates, then quarters, then years); empty
/// when it names none.
pub fn asked_periods(question: &str) -> Vec<AskedPeriod> {
    let mut out: Vec<AskedPeriod> = Vec::new();
    // Every period is read from an ASCII year; without a digit there is none, and the patterns
    // (whose compilation is most of a `docs --for` process's parsing) are not built.
    if !question.bytes().any(|b| b.is_ascii_digit()) {
        return out;
    }
    // The same for each pattern below: what every match of it contains (case folding cannot
    // produce these letters from other characters), checked before the pattern is built.
    let lower = question.to_ascii_lowercase();
    let spaced = ascii_spaced(question);
    fn push(out: &mut Vec<AskedPeriod>, p: AskedPeriod) {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    for (_, _, date) in dates_in(question) {
        push(
            &mut out,
            AskedPeriod {
                year: date.0,
                fiscal: false,
                quarter: None,
                date: Some(date),
            },
        );
    }
    let ordinal_quarter = lower
        .contains("quarter")
        .then(|| ASKED_ORDINAL_QUARTER.as_ref());
    if let Some(re) = ordinal_quarter.flatten() {
        for c in re.captures_iter(&spaced) {
            if let (Some(q), Some(y)) = (
                c.get(1).and_then(|m| ordinal(m.as_str())),
                c.get(3).and_then(|m| m.as_str().parse::<u16>().ok()),
            ) {
                push(
                    &mut out,
                    AskedPeriod {
                        year: y,
                        fiscal: c.get(2).is_some(),
                        quarter: Some(q),
                        date: None,
                    },
                );
            }
        }
    }
    let asked_quarter = ["q1", "q2", "q3", "q4"]
        .iter()
        .any(|q| lower.contains(q))
        .then(|| ASKED_QUARTER.as_ref());
    if let Some(re) = asked_quarter.flatten() {
        for c in re.captures_iter(&spaced) {
            let parsed = if let Some(q) = c.get(1) {
                (|| {
                    Some((
                        q.as_str().parse::<u8>().ok()?,
                        c.get(2).is_some(),
                        full_year(c.get(3)?.as_str())?,
                    ))
                })()
            } else {
                (|| {
                    Some((
                        c.get(5)?.as_str().parse::<u8>().ok()?,
                        false,
                        full_year(c.get(4)?.as_str())?,
                    ))
                })()
            };
            if let Some((q, fiscal, y)) = parsed {
                push(
                    &mut out,
                    AskedPeriod {
                        year: y,
                        fiscal,
                        quarter: Some(q),
                        date: None,
                    },
                );
            }
        }
    }
    let fiscal_year =
        (lower.contains("fy") || lower.contains("fiscal")).then(|| ASKED_FISCAL_YEAR.as_ref());
    if let Some(re) = fiscal_year.flatten() {
        for c in re.captures_iter(&spaced) {
            let y = c
                .get(1)
                .or_else(|| c.get(2))
                .and_then(|m| full_year(m.as_str()));
            if let Some(y) = y {
                push(
                    &mut out,
                    AskedPeriod {
                        year: y,
                        fiscal: true,
                        quarter: None,
                        date: None,
                    },
                );
            }
        }
    }
    for y in bare_years(question) {
        if !out.iter().any(|p| p.year == y) {
            push(
                &mut out,
                AskedPeriod {
                    year: y,
                    fiscal: false,
                    quarter: None,
                    date: None,
                },
            );
        }
    }
    out
}

/// The form a question names (`10-K`, `10-Q`, `8-K`, `earnings release`), if any.
pub fn asked_form(question: &str) -> Option<&'static str> {
    let q = question.to_lowercase().replace(['‑', '–'], "-");
    [
        ("10-k", "10-K"),
        ("10k", "10-K"),
        ("annual report", "10-K"),
        ("10-q", "10-Q"),
        ("10q", "10-Q"),
        ("quarterly report", "10-Q"),
        ("8-k", "8-K"),
        ("8k", "8-K"),
        ("current report", "8-K"),
        ("earnings release", "earnings release"),
        ("press release", "earnings release"),
        ("earnings report", "earnings release"),
    ]
    .into_iter()
    .find(|(word, _)| {
        q.match_indices(word).any(|(at, _)| {
            let before = q[..at].chars().next_back();
            let after = q[at + word.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    })
    .map(|(_, form)| form)
}

/// How well `doc`'s period answers `asked` (0 = not at all … 4 = the same quarter or day), with
/// the period matched; the best over every asked period. A year asked matches a year's fiscal
/// year (3), a quarter of that fiscal year or a report in that year (2); a quarter asked matches
/// that quarter (4) or the fiscal year holding it (1).
pub fn match_period(doc: &Period, asked: &[AskedPeriod]) -> u8 {
    asked.iter().map(|a| match_one(doc, a)).max().unwrap_or(0)
}

fn match_one(doc: &Period, a: &AskedPeriod) -> u8 {
    let in_year = |d: Option<Date>| d.is_some_and(|d| d.0 == a.year);
    if let Some(date) = a.date {
        return if doc.end == Some(date) || doc.report == Some(date) {
            4
        } else if [doc.end, doc.report]
            .into_iter()
            .flatten()
            .any(|d| (d.0, d.1) == (date.0, date.1))
        {
            2
        } else {
            u8::from(in_year(doc.end) || in_year(doc.report))
        };
    }
    let fiscal_match = doc.fiscal_year == Some(a.year);
    match (a.quarter, doc.quarter) {
        (Some(q), Some(dq)) => {
            // `Q2 2023` is the calendar's second quarter unless it said fiscal: a report of
            // fiscal Q2 2023 or one ending in the calendar's Q2 2023 both answer.
            let calendar = doc
                .end
                .is_some_and(|e| e.0 == a.year && (e.1 - 1) / 3 + 1 == q && !a.fiscal);
            if (dq == q && fiscal_match) || calendar {
                4
            } else {
                u8::from(fiscal_match || in_year(doc.end))
            }
        }
        (Some(_), None) => u8::from(fiscal_match),
        (None, None) if fiscal_match => 3,
        (None, _) if fiscal_match || in_year(doc.report) => 2,
        (None, _) => u8::from(!a.fiscal && in_year(doc.end)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_sec_cover_title_gives_the_fiscal_year_by_the_documents_own_words() {
        let p = period_from(
            "Apple Inc. — Form 10-K, fiscal year ended September 28, 2019",
            "",
        )
        .unwrap();
        assert_eq!(p.label(), "10-K, fiscal year 2019, ended 2019-09-28");
        // A year ending in January that the document calls the fiscal year before.
        let text = "For the fiscal year ended January 29, 2023 (\"fiscal 2022\"), sales grew.";
        let p = period_from(
            "THE HOME STORE — Form 10-K, fiscal year ended January 29, 2023",
            text,
        )
        .unwrap();
        assert_eq!(p.fiscal_year, Some(2022));
        let p = period_from(
            "WALMART INC. — Form 10-K, fiscal year ended January 31, 2022",
            "",
        )
        .unwrap();
        assert_eq!(p.short(), "FY2022");
    }

    #[test]
    fn quarters_reports_and_releases() {
        let q = period_from(
            "JPMorgan Chase & Co. — Form 10-Q, quarterly period ended March 31, 2022",
            "",
        )
        .unwrap();
        assert_eq!(q.label(), "10-Q, Q1 fiscal 2022, ended 2022-03-31");
        let k8 = period_from(
            "COSTCO WHOLESALE CORPORATION — Form 8-K, August 9, 2023",
            "",
        )
        .unwrap();
        assert_eq!(k8.label(), "8-K, report of 2023-08-09");
        let r = period_from(
            "Salesforce Announces Strong First Quarter Fiscal 2024 Results",
            "SAN FRANCISCO, Calif. - May 31, 2023 - Salesforce (NYSE: CRM) today announced results for its first quarter fiscal 2024 ended April 30, 2023.",
        )
        .unwrap();
        assert_eq!(
            r.label(),
            "earnings release, Q1 fiscal 2024, ended 2023-04-30, report of 2023-05-31"
        );
        let m = period_from(
            "McDONALD'S REPORTS SECOND QUARTER 2023 RESULTS",
            "McDonald's Corporation today announced results for the second quarter ended June 30, 2023.",
        )
        .unwrap();
        assert_eq!(m.short(), "Q2 FY2023");
        assert_eq!(
            period_from("Debian Policy Manual", "Released in 2019."),
            None
        );
    }

    #[test]
    fn a_question_names_its_period() {
        let y = |year, fiscal| AskedPeriod {
            year,
            fiscal,
            quarter: None,
            date: None,
        };
        assert_eq!(
            asked_periods("What is Adobe's FY2015 cash flow?"),
            [y(2015, true)]
        );
        assert_eq!(asked_periods("in fiscal 2015"), [y(2015, true)]);
        assert_eq!(
            asked_periods("revenue in 2015 and FY16"),
            [y(2016, true), y(2015, false)]
        );
        let q = |year, quarter| AskedPeriod {
            year,
            fiscal: false,
            quarter: Some(quarter),
            date: None,
        };
        assert_eq!(asked_periods("Q2 2023 margin"), [q(2023, 2)]);
        assert_eq!(asked_periods("the first quarter of 2022"), [q(2022, 1)]);
        assert_eq!(asked_periods("2023Q2"), [q(2023, 2)]);
        assert_eq!(
            asked_periods("as of May 26, 2023")[0].date,
            Some((2023, 5, 26))
        );
        assert!(asked_periods("how do I prune roses").is_empty());
        // Any whitespace separates, as in the document patterns; case is folded.
        assert_eq!(asked_periods("Q2\u{a0}2023 margin"), [q(2023, 2)]);
        assert_eq!(asked_periods("THIRD\tQUARTER OF 2021"), [q(2021, 3)]);
        assert_eq!(asked_periods("fiscal\u{2003}year 2019"), [y(2019, true)]);
        // Every question pattern compiles (a pattern that did not would find nothing, silently).
        for re in [&ASKED_ORDINAL_QUARTER, &ASKED_FISCAL_YEAR, &ASKED_QUARTER] {
            assert!(re.is_some());
        }
        assert_eq!(
            bare_years("2015, 1999 and x2016 2017a 20171 (2018)"),
            [2015, 1999, 2018]
        );
        assert_eq!(asked_form("Costco's 8-K of 2023"), Some("8-K"));
        assert_eq!(asked_form("the 10-K for FY2019"), Some("10-K"));
        assert_eq!(asked_form("their 18-K"), None);
    }

    #[test]
    fn the_matching_period_scores_above_the_others() {
        let annual = period_from("X — Form 10-K, fiscal year ended December 31, 2019", "").unwrap();
        let report = period_from("X — Form 8-K, August 9, 2023", "").unwrap();
        let asked = asked_periods("X's 2019 revenue");
        assert!(match_period(&annual, &asked) > match_period(&report, &asked));
        let asked = asked_periods("X in 2023");
        assert!(match_period(&report, &asked) > match_period(&annual, &asked));
        let quarter =
            period_from("X — Form 10-Q, quarterly period ended March 31, 2022", "").unwrap();
        assert_eq!(match_period(&quarter, &asked_periods("Q1 2022")), 4);
        assert_eq!(
            match_period(&quarter, &asked_periods("the second quarter of 2022")),
            1
        );
    }
}
