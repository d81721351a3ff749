//! A PDF's title as a reader names it, when its metadata does not.
//!
//! The Info `/Title` of filings and reports is often an accession number
//! (`0000320193-19-000119`), a file name, `Microsoft Word - …`, `untitled`, a bare form name
//! (`2020 Form 10-K`) or an exhibit label ([`is_junk_title`]). Then, and whenever page 1 is an
//! SEC cover page, the title is read off the first page:
//! - an SEC cover (`SECURITIES AND EXCHANGE COMMISSION` and `FORM 10-K`, `10-Q`, `8-K`, `20-F`,
//!   `6-K`, `40-F`): the registrant (the line above `(Exact name of registrant as specified in
//!   its charter)`), the form and its period: `Apple Inc. — Form 10-K, fiscal year ended
//!   September 28, 2019`; `COSTCO WHOLESALE CORPORATION — Form 8-K, August 9, 2023`;
//! - any other page: its title line — centred, 2 to 16 words, not a sentence, the largest and
//!   boldest such line among the top half of the page (`McDONALD'S REPORTS SECOND QUARTER 2023
//!   RESULTS`).

use std::sync::LazyLock;

use regex::Regex;

use super::text::TextLine;

/// A title is at most this many chars.
pub const MAX_TITLE_CHARS: usize = 160;

static JUNK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)^(?:
            \d{10}-\d{2}-\d{6}                                  # accession number
          | microsoft\s+(?:word|powerpoint|excel)\s*-.*          # Office's default
          | .*\.(?:docx?|pdf|html?|xlsx?|txt|rtf)                # a file name
          | untitled.* | document\d* | title | none | unknown | \s*
          | (?:(?:fy\s?)?\d{2,4}\s+)?(?:form\s+)?(?:10-?k|10-?q|8-?k|20-?f|6-?k|40-?f)(?:/a)?(?:\s+(?:document|report|filing))?
          | exhibit\s+\d+(?:\.\d+)?\b.*                          # an exhibit's label
          | [\w.\-]*\d[\w.\-]*_[\w.\-]*                          # NAME_2019_10K
          | .*\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b.*\b(?:10-?k|10-?q|8-?k)\b.*   # 12.26.2020 (Q4) - 10K Document
          | .*\bdoc\s*&\s*exhibits\b.*
        )$",
    )
    .ok()
});

static FORM: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)^form\s+(10-k(?:405)?|10-q|8-k|20-f|40-f|6-k)(?:/a)?\b").ok()
});
static PERIOD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bfor the (fiscal year|quarterly period|year) ended\b").ok());
static ANY_DATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b([A-Z][a-z]+\.? \d{1,2}, ?\d{4})\b").ok());
static REPORT_DATE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)date of report[^:]*:?\s*\)?\s*:?\s*([A-Z][a-z]+\.? \d{1,2}, ?\d{4})").ok()
});
static DATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^([A-Z][a-z]+\.? \d{1,2}, ?\d{4})\b").ok());

/// True when `title` (a PDF's Info `/Title`) names nothing a reader would recognise: see the
/// module doc for the forms.
pub fn is_junk_title(title: &str) -> bool {
    let t = title.trim();
    t.is_empty() || JUNK.as_ref().is_some_and(|re| re.is_match(t))
}

/// The title read off the first page's `lines` (see the module doc), if any: the SEC cover's
/// and whether it is one, else the page's title line.
pub fn page_title(lines: &[TextLine]) -> Option<(String, bool)> {
    if let Some(t) = sec_cover_title(lines) {
        return Some((t, true));
    }
    title_line(lines).map(|t| (t, false))
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `Registrant — Form X, period` from an SEC cover page.
fn sec_cover_title(lines: &[TextLine]) -> Option<String> {
    let commission = lines.iter().any(|l| {
        l.text
            .to_uppercase()
            .contains("SECURITIES AND EXCHANGE COMMISSION")
    });
    if !commission {
        return None;
    }
    let form = lines.iter().find_map(|l| {
        let caps = FORM.as_ref()?.captures(l.text.trim())?;
        Some(caps.get(1)?.as_str().to_uppercase())
    })?;
    let marker = lines
        .iter()
        .position(|l| l.text.to_lowercase().contains("exact name of registrant"))?;
    let marked = &lines[marker];
    let registrant = if marked.text.trim_start().starts_with('(') {
        // `(Exact name of registrant …)` under the name; co-registrants are stacked above it
        // in the same type, the first named first.
        let named = |l: &TextLine| l.text.chars().filter(|c| c.is_alphabetic()).count() >= 3;
        let mut at = lines[..marker].iter().rposition(named)?;
        while at > 0 {
            let (above, here) = (&lines[at - 1], &lines[at]);
            let stacked = named(above)
                && (above.size - here.size).abs() < 0.3
                && above.y > here.y
                && above.y - here.y <= 2.0 * here.size;
            if !stacked {
                break;
            }
            at -= 1;
        }
        squeeze(&lines[at].text)
    } else {
        // A cover laid out as a table: the names sit in the column headed `Exact Name of
        // Registrant` (the first registrant is the title's).
        lines[marker + 1..].iter().take(8).find_map(|l| {
            let pieces: Vec<(f32, f32, &str)> = if l.cells.is_empty() || !l.cell_texts_match() {
                vec![(l.x, l.x_end, l.text.as_str())]
            } else {
                l.cells
                    .iter()
                    .map(|c| (c.x0, c.x1, c.text.as_str()))
                    .collect()
            };
            pieces.into_iter().find_map(|(x0, x1, t)| {
                let overlaps = x0 < marked.x_end && x1 > marked.x;
                let named = t.chars().filter(|c| c.is_alphabetic()).count() >= 3
                    && !t.to_lowercase().contains("specified");
                (overlaps && named).then(|| squeeze(t))
            })
        })?
    };
    let registrant = registrant.trim_end_matches(',').to_string();
    let period = lines.iter().enumerate().find_map(|(i, l)| {
        let text = squeeze(&l.text);
        // The date may be printed on the lines after the phrase.
        let joined = lines[i + 1..]
            .iter()
            .take(2)
            .fold(text.clone(), |acc, n| format!("{acc} {}", squeeze(&n.text)));
        if let Some(m) = PERIOD.as_ref().and_then(|re| re.captures(&text)) {
            let kind = m.get(1)?.as_str().to_lowercase();
            let after = &joined[m.get(0)?.end()..];
            let date = ANY_DATE.as_ref()?.captures(after)?;
            return Some(format!("{kind} ended {}", date.get(1)?.as_str()));
        }
        let caps = REPORT_DATE.as_ref()?.captures(&joined)?;
        Some(caps.get(1)?.as_str().to_string())
    });
    let period = period.or_else(|| {
        // An 8-K prints the date alone above `(Date of earliest event reported)`.
        let at = lines
            .iter()
            .position(|l| l.text.to_lowercase().contains("date of earliest event"))?;
        lines[..at].iter().rev().take(2).find_map(|l| {
            let caps = DATE.as_ref()?.captures(l.text.trim())?;
            Some(caps.get(1)?.as_str().to_string())
        })
    });
    let mut title = format!("{registrant} — Form {form}");
    if let Some(p) = period {
        title.push_str(", ");
        title.push_str(&p);
    }
    Some(title).filter(|t| t.chars().count() <= MAX_TITLE_CHARS)
}

/// The page's centred title line (see the module doc).
fn title_line(lines: &[TextLine]) -> Option<String> {
    let left = lines.iter().map(|l| l.x).fold(f32::MAX, f32::min);
    let right = lines.iter().map(|l| l.x_end).fold(f32::MIN, f32::max);
    let top = lines.iter().map(|l| l.y).fold(f32::MIN, f32::max);
    let bottom = lines.iter().map(|l| l.y).fold(f32::MAX, f32::min);
    if left >= right || top <= bottom {
        return None;
    }
    let centre = (left + right) / 2.0;
    let width = right - left;
    let candidates = lines.iter().filter(|l| {
        let text = l.text.trim();
        let words = text.split_whitespace().count();
        let line_centre = (l.x + l.x_end) / 2.0;
        !l.in_table
            && (2..=16).contains(&words)
            && text.chars().count() <= MAX_TITLE_CHARS
            && text.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
            && !text.ends_with(['.', ',', ';', ':'])
            && (line_centre - centre).abs() <= 0.08 * width
            && l.x > left + 0.05 * width
            && l.y >= bottom + 0.5 * (top - bottom)
    });
    candidates
        .max_by(|a, b| {
            let key = |l: &TextLine| (l.size, u8::from(l.bold));
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0)
                .then(ka.1.cmp(&kb.1))
                // The higher of two alike.
                .then(a.y.total_cmp(&b.y))
        })
        .map(|l| squeeze(&l.text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f32, x: f32, x_end: f32, size: f32, bold: bool, text: &str) -> TextLine {
        TextLine {
            text: text.into(),
            x,
            x_end,
            y,
            size,
            bold,
            ..TextLine::default()
        }
    }

    #[test]
    fn junk_titles() {
        for t in [
            "0000320193-19-000119",
            "Microsoft Word - 10k2019.docx",
            "CRM Q1 FY24 Earnings Press Release w financials.pdf",
            "2020 Form 10-K",
            "Document",
            "untitled",
            "Exhibit 99.1 - 6.30.2023",
            "AMD_2018_10K",
            "12.26.2020 (Q4) - 10K Document",
            "10Q Doc & Exhibits-2022-05-03-15-15",
            "",
        ] {
            assert!(is_junk_title(t), "{t}");
        }
        for t in [
            "Form 10-K for Kraft Heinz Co filed 02/16/2023",
            "Filesystem Hierarchy Standard",
            "An Introduction to R",
        ] {
            assert!(!is_junk_title(t), "{t}");
        }
    }

    #[test]
    fn sec_cover_pages_name_registrant_form_and_period() {
        let lines = vec![
            line(750.0, 250.0, 360.0, 14.0, true, "UNITED STATES"),
            line(
                735.0,
                150.0,
                460.0,
                14.0,
                true,
                "SECURITIES AND EXCHANGE COMMISSION",
            ),
            line(700.0, 270.0, 340.0, 14.0, true, "FORM 10-K"),
            line(
                680.0,
                180.0,
                430.0,
                8.0,
                false,
                "For the fiscal year ended September 28, 2019",
            ),
            line(640.0, 280.0, 330.0, 12.0, true, "Apple Inc."),
            line(
                630.0,
                200.0,
                410.0,
                7.0,
                false,
                "(Exact name of Registrant as specified in its charter)",
            ),
        ];
        assert_eq!(
            page_title(&lines),
            Some((
                "Apple Inc. — Form 10-K, fiscal year ended September 28, 2019".to_string(),
                true
            ))
        );
        let eight_k = vec![
            line(
                720.0,
                150.0,
                460.0,
                14.0,
                true,
                "SECURITIES AND EXCHANGE COMMISSION",
            ),
            line(650.0, 270.0, 340.0, 14.0, true, "FORM 8-K"),
            line(
                560.0,
                165.0,
                447.0,
                9.0,
                true,
                "Date of Report (Date of earliest event reported): August 9, 2023",
            ),
            line(
                505.0,
                125.0,
                486.0,
                19.0,
                true,
                "COSTCO WHOLESALE CORPORATION",
            ),
            line(
                494.0,
                206.0,
                406.0,
                8.0,
                true,
                "(Exact name of registrant as specified in its charter)",
            ),
        ];
        assert_eq!(
            page_title(&eight_k).map(|t| t.0),
            Some("COSTCO WHOLESALE CORPORATION — Form 8-K, August 9, 2023".to_string())
        );
    }

    #[test]
    fn other_first_pages_give_their_centred_title_line() {
        let lines = vec![
            line(739.0, 533.0, 585.0, 10.0, true, "Exhibit 99.1"),
            line(658.0, 27.0, 160.0, 10.0, true, "FOR IMMEDIATE RELEASE"),
            line(
                605.0,
                172.0,
                439.0,
                9.5,
                true,
                "McDONALD'S REPORTS SECOND QUARTER 2023 RESULTS",
            ),
            line(
                523.0,
                50.0,
                493.0,
                10.0,
                false,
                "CHICAGO, IL - McDonald's Corporation today announced results for the quarter.",
            ),
            line(
                60.0,
                27.0,
                585.0,
                8.0,
                false,
                "**Refer to page 2 for additional details on the second quarter 2023 and 2022.",
            ),
        ];
        assert_eq!(
            page_title(&lines),
            Some((
                "McDONALD'S REPORTS SECOND QUARTER 2023 RESULTS".to_string(),
                false
            ))
        );
    }
}
