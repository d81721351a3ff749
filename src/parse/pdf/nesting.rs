//! Levels of printed headings in documents organised by keyword schemes — SEC filings
//! (`PART II` › `Item 7.` › `Overview`), contracts (`Article IV` › `Section 4.2`), reports with
//! `Note 12` — where a heading's place comes from its scheme, not its font: an Item heading and
//! the subsection right under it are often set in the same bold body type.
//!
//! Headings are placed with a stack of open headings, in reading order:
//! - a **keyword heading** (a scheme with a [`Scheme::rank`]) whose scheme is already open
//!   replaces that open heading (`Item 8` closes `Item 7` and all below it). Otherwise a
//!   division scheme (Part, Chapter, Article, Item: rank ≤ [`DIVISION_RANK`]) closes everything
//!   below the innermost open heading of a smaller rank (an Item sits right under its Part,
//!   never inside a typographic section before it), while a finer scheme (Section, Schedule,
//!   Note) closes only open headings of its own or finer rank and otherwise nests under what
//!   is open (`Note 1` under `Notes to Consolidated Financial Statements`);
//! - a **decimal-numbered heading** (`4.2`) closes the open decimal heading as deep or deeper
//!   and everything inside it;
//! - a **listed heading** (one a printed contents list names, at the list's level) closes
//!   open unnumbered and decimal headings and listed ones at its level or deeper, never a
//!   keyword heading: the contents list, not the type size, says what holds it;
//! - an **unnumbered heading** closes open unnumbered headings set no larger than itself
//!   (larger type, or the same size in bold over regular, stays open above it) and never
//!   closes a numbered or listed one.
//!
//! A keyword scheme whose headings all sit in a narrow stretch of the document (under
//! [`LISTING_SPAN_SHARE`] of the span of all headings: McDonald's `Part I` … `Part IV`, the
//! group rows of a cross-reference index on one page) lists the divisions rather than making
//! them, and its headings nest as unnumbered ones.
//!
//! A heading's level is its depth in the stack. Documents with fewer than
//! [`MIN_KEYWORD_HEADINGS`] keyword headings keep the levels typography gave them.

use super::headings::Heading;
use super::numbering::Scheme;

/// Keyword headings needed before their schemes decide the nesting.
pub const MIN_KEYWORD_HEADINGS: usize = 3;
/// Schemes up to this rank (Part, Chapter, Appendix, Article, Item) divide the document: they
/// are never nested inside an unnumbered heading.
pub const DIVISION_RANK: u32 = 3;
/// A keyword scheme of at least [`MIN_KEYWORD_HEADINGS`] headings spread over less than this
/// share of the span of all headings is a listing, not a division of the document.
pub const LISTING_SPAN_SHARE: f32 = 0.02;

/// What a heading is on the stack.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Open {
    Keyword { scheme: Scheme, rank: u32 },
    Decimal { depth: u32 },
    Styled { size: f32, bold: bool },
    Listed { level: u32 },
}

fn open_of(h: &Heading, schemes: &[Scheme]) -> Open {
    let keyword = h
        .number
        .as_ref()
        .is_some_and(|n| n.scheme.rank().is_some() && schemes.contains(&n.scheme));
    if h.listed && !keyword && h.number.as_ref().is_none_or(|n| n.scheme.rank().is_some()) {
        return Open::Listed { level: h.level };
    }
    match &h.number {
        Some(n) => match n.scheme.rank() {
            Some(rank) if schemes.contains(&n.scheme) => Open::Keyword {
                scheme: n.scheme,
                rank,
            },
            Some(_) => Open::Styled {
                size: h.size,
                bold: h.bold,
            },
            None => Open::Decimal { depth: n.depth },
        },
        None => Open::Styled {
            size: h.size,
            bold: h.bold,
        },
    }
}

/// The keyword schemes of `headings` that number at least two headings differently: a
/// keyword that only ever carries one number is part of a name (`Chapter 11 Proceedings`, a
/// bankruptcy; `Section 16(a) Beneficial Ownership`, a statute), not a division of the
/// document, and placing it as one nests every later Item inside it.
fn numbering_schemes(headings: &[Heading]) -> Vec<Scheme> {
    let mut seen: Vec<(Scheme, &str, bool)> = Vec::new();
    for n in headings.iter().filter_map(|h| h.number.as_ref()) {
        if n.scheme.rank().is_none() {
            continue;
        }
        match seen.iter_mut().find(|(s, _, _)| *s == n.scheme) {
            Some((_, first, several)) => *several |= *first != n.key,
            None => seen.push((n.scheme, n.key.as_str(), false)),
        }
    }
    let span = |of: &mut dyn Iterator<Item = usize>| {
        let (first, last) = of.fold((usize::MAX, 0), |(lo, hi), at| (lo.min(at), hi.max(at)));
        last.saturating_sub(first)
    };
    let whole = span(&mut headings.iter().map(|h| h.at));
    let listing = |scheme: Scheme| {
        let ats: Vec<usize> = headings
            .iter()
            .filter(|h| h.number.as_ref().is_some_and(|n| n.scheme == scheme))
            .map(|h| h.at)
            .collect();
        ats.len() >= MIN_KEYWORD_HEADINGS
            && (span(&mut ats.iter().copied()) as f32) < whole as f32 * LISTING_SPAN_SHARE
    };
    seen.into_iter()
        .filter(|(s, _, several)| *several && !listing(*s))
        .map(|(s, _, _)| s)
        .collect()
}

/// True when a styled heading `open` is no stronger than `new` (so `new` closes it).
fn not_stronger(open: (f32, bool), new: (f32, bool)) -> bool {
    let (open_size, open_bold) = open;
    let (size, bold) = new;
    open_size < size - 0.25 || ((open_size - size).abs() <= 0.25 && (!open_bold || bold))
}

/// Re-level `headings` by their schemes (see the module doc) when at least
/// [`MIN_KEYWORD_HEADINGS`] of them carry a keyword number; returns whether it did.
pub fn nest_by_scheme(headings: &mut [Heading]) -> bool {
    let schemes = numbering_schemes(headings);
    let keywords = headings
        .iter()
        .filter(|h| {
            h.number
                .as_ref()
                .is_some_and(|n| schemes.contains(&n.scheme))
        })
        .count();
    if keywords < MIN_KEYWORD_HEADINGS {
        return false;
    }
    let mut stack: Vec<Open> = Vec::new();
    for h in headings.iter_mut() {
        let open = open_of(h, &schemes);
        match open {
            Open::Keyword { scheme, rank } => {
                let same = stack
                    .iter()
                    .rposition(|o| matches!(o, Open::Keyword { scheme: s, .. } if *s == scheme));
                if let Some(at) = same {
                    stack.truncate(at);
                } else if rank <= DIVISION_RANK {
                    let outer = stack
                        .iter()
                        .rposition(|o| matches!(o, Open::Keyword { rank: r, .. } if *r < rank));
                    stack.truncate(outer.map_or(0, |at| at + 1));
                } else {
                    let finer = stack
                        .iter()
                        .position(|o| matches!(o, Open::Keyword { rank: r, .. } if *r >= rank));
                    if let Some(at) = finer {
                        stack.truncate(at);
                    }
                }
            }
            Open::Decimal { depth } => {
                // The innermost open decimal heading as deep or deeper, unless a keyword or a
                // shallower decimal heading is open inside it (unnumbered ones may be).
                let inside = stack
                    .iter()
                    .rposition(|o| match o {
                        Open::Decimal { depth: d } => *d < depth,
                        Open::Keyword { .. } | Open::Listed { .. } => true,
                        Open::Styled { .. } => false,
                    })
                    .map_or(0, |b| b + 1);
                let same_or_deeper = stack[inside..]
                    .iter()
                    .position(|o| matches!(o, Open::Decimal { depth: d } if *d >= depth));
                if let Some(at) = same_or_deeper {
                    stack.truncate(inside + at);
                }
            }
            Open::Styled { size, bold } => {
                while let Some(Open::Styled { size: s, bold: b }) = stack.last() {
                    if not_stronger((*s, *b), (size, bold)) {
                        stack.pop();
                    } else {
                        break;
                    }
                }
            }
            Open::Listed { level } => {
                while let Some(top) = stack.last() {
                    match top {
                        Open::Keyword { .. } => break,
                        Open::Listed { level: l } if *l < level => break,
                        _ => {
                            stack.pop();
                        }
                    }
                }
            }
        }
        stack.push(open);
        h.level = u32::try_from(stack.len()).unwrap_or(u32::MAX);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::numbering::numbering;
    use super::*;

    fn h(title: &str, size: f32, bold: bool) -> Heading {
        Heading {
            at: 0,
            lines: 1,
            level: 1,
            title: title.to_string(),
            number: numbering(title),
            size,
            bold,
            listed: false,
        }
    }

    #[test]
    fn a_filing_nests_parts_items_subsections_and_notes() {
        let mut hs = vec![
            h("DOCUMENTS INCORPORATED BY REFERENCE", 8.0, true),
            h("PART I", 8.0, true),
            h("Item 1. Business", 8.0, true),
            h("Company Background", 8.0, true),
            h("Products", 8.0, true),
            h("Item 1A. Risk Factors", 8.0, true),
            h("PART II", 8.0, true),
            h(
                "Item 8. Financial Statements and Supplementary Data",
                8.0,
                true,
            ),
            h("CONSOLIDATED BALANCE SHEETS", 8.0, true),
            h("Notes to Consolidated Financial Statements", 8.0, true),
            h(
                "Note 1 – Summary of Significant Accounting Policies",
                8.0,
                true,
            ),
            h("Basis of Presentation", 8.0, true),
            h("Note 2 – Revenue", 8.0, true),
            h(
                "Item 9. Changes in and Disagreements with Accountants",
                8.0,
                true,
            ),
        ];
        assert!(nest_by_scheme(&mut hs));
        let levels: Vec<(u32, &str)> = hs.iter().map(|h| (h.level, h.title.as_str())).collect();
        assert_eq!(
            levels,
            vec![
                (1, "DOCUMENTS INCORPORATED BY REFERENCE"),
                (1, "PART I"),
                (2, "Item 1. Business"),
                (3, "Company Background"),
                (3, "Products"),
                (2, "Item 1A. Risk Factors"),
                (1, "PART II"),
                (2, "Item 8. Financial Statements and Supplementary Data"),
                (3, "CONSOLIDATED BALANCE SHEETS"),
                (3, "Notes to Consolidated Financial Statements"),
                (4, "Note 1 – Summary of Significant Accounting Policies"),
                (5, "Basis of Presentation"),
                (4, "Note 2 – Revenue"),
                (2, "Item 9. Changes in and Disagreements with Accountants"),
            ]
        );
    }

    /// PG&E's 10-K for 2019 heads its bankruptcy `Chapter 11 Proceedings` in the Items' bold
    /// body type, three times: as a Chapter it would close Item 1 and take every later Item of
    /// Part I inside it.
    #[test]
    fn a_keyword_that_only_ever_carries_one_number_is_a_name() {
        let mut hs = vec![
            h("PART I", 8.8, true),
            h("ITEM 1. BUSINESS", 8.8, true),
            h("Chapter 11 Proceedings", 8.8, true),
            h("Regulatory Environment", 8.8, true),
            h("ITEM 1A. RISK FACTORS", 8.8, true),
            h("PART II", 8.8, true),
            h("ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS", 8.8, true),
            h("Chapter 11 Proceedings", 8.8, true),
            h(
                "Section 16(a) Beneficial Ownership Reporting Compliance",
                8.8,
                true,
            ),
            h("ITEM 8. FINANCIAL STATEMENTS", 8.8, true),
        ];
        assert!(nest_by_scheme(&mut hs));
        let levels: Vec<u32> = hs.iter().map(|h| h.level).collect();
        assert_eq!(levels, vec![1, 2, 3, 3, 2, 1, 2, 3, 3, 2]);
    }

    /// McDonald's 10-K for 2022: a contents list of topics (no Items), a cross-reference
    /// index whose `Part I` … `Part IV` rows sit on one page, exhibits with Articles inside.
    #[test]
    fn listed_headings_hold_what_follows_and_a_one_page_scheme_lists_divisions() {
        let at = |at: usize, level: u32, listed: bool, title: &str, size: f32| Heading {
            at,
            level,
            listed,
            ..h(title, size, true)
        };
        let mut hs = vec![
            at(100, 1, true, "ABOUT McDONALD'S", 10.8),
            at(110, 2, true, "BUSINESS SUMMARY", 9.0),
            at(120, 3, false, "GENERAL", 7.2),
            at(900, 1, true, "Other Key Information", 10.8),
            // Set larger than the listed heading that holds it: still inside.
            at(950, 2, true, "RISK FACTORS", 12.0),
            at(960, 3, false, "Strategic Risks", 12.0),
            at(
                1_500,
                1,
                true,
                "Financial Statements and Supplementary Data",
                9.0,
            ),
            at(1_510, 4, false, "Consolidated Statement of Income", 12.0),
            at(3_000, 1, true, "Form 10-K Cross-Reference Index", 10.8),
            at(3_002, 1, false, "Part I", 8.1),
            at(3_010, 1, false, "Part II", 8.1),
            at(3_020, 1, false, "Part III", 8.1),
            at(3_030, 1, false, "Part IV", 8.1),
            at(3_050, 1, true, "Signatures", 10.8),
            at(3_100, 1, false, "Exhibit 10(l)", 8.1),
            at(3_200, 1, false, "ARTICLE I. Statement of Purpose", 8.1),
            at(3_300, 1, false, "ARTICLE II. Definitions", 8.1),
            at(3_400, 1, false, "Schedule A", 8.1),
            at(3_500, 1, false, "Exhibit 21. Subsidiaries", 8.1),
            at(5_000, 1, false, "Exhibit 31.1. Certification", 8.1),
        ];
        assert!(nest_by_scheme(&mut hs));
        let levels: Vec<(u32, &str)> = hs.iter().map(|h| (h.level, h.title.as_str())).collect();
        assert_eq!(
            levels,
            vec![
                (1, "ABOUT McDONALD'S"),
                (2, "BUSINESS SUMMARY"),
                (3, "GENERAL"),
                (1, "Other Key Information"),
                (2, "RISK FACTORS"),
                (3, "Strategic Risks"),
                (1, "Financial Statements and Supplementary Data"),
                (2, "Consolidated Statement of Income"),
                (1, "Form 10-K Cross-Reference Index"),
                (2, "Part I"),
                (2, "Part II"),
                (2, "Part III"),
                (2, "Part IV"),
                (1, "Signatures"),
                (1, "Exhibit 10(l)"),
                (2, "ARTICLE I. Statement of Purpose"),
                (2, "ARTICLE II. Definitions"),
                (3, "Schedule A"),
                (1, "Exhibit 21. Subsidiaries"),
                (1, "Exhibit 31.1. Certification"),
            ]
        );
    }

    #[test]
    fn larger_type_stays_open_and_few_keywords_change_nothing() {
        let mut hs = vec![
            h("Item 1. Business", 10.0, true),
            h("Overview", 12.0, true),
            h("Segments", 9.0, true),
            h("Markets", 9.0, false),
            h("Item 2. Properties", 10.0, true),
            h("Item 3. Legal Proceedings", 10.0, true),
        ];
        assert!(nest_by_scheme(&mut hs));
        let levels: Vec<u32> = hs.iter().map(|h| h.level).collect();
        assert_eq!(levels, vec![1, 2, 3, 4, 1, 1]);
        let mut few = vec![h("Item 1. Business", 10.0, true), h("Overview", 9.0, true)];
        assert!(!nest_by_scheme(&mut few));
        assert_eq!(few[1].level, 1);
    }
}
