//! Printed headings of a PDF without an outline, from typography alone —
//! no model: what lopdf gives per line (font size, bold face, position).
//!
//! A *styled* line is bold or set at least [`LARGER_RATIO`] × the body size (the size most
//! regular characters are set in; a page set mostly in larger type has its own). A regular-weight
//! block that reads as a sentence (at least [`MIN_SENTENCE_WORDS`] words and a full stop) is text. A heading block is a styled line that starts with a letter
//! or digit, plus up to [`MAX_HEADING_LINES`] − 1 continuation lines in the same style right
//! below it (`3.4. /bin : Essential user command binaries (for` / `use by all users)`).
//!
//! 1. **Printed table of contents** ([`super::toc`]): when one lists at least [`MIN_HEADINGS`]
//!    entries and at least half of them are found, in order, as heading blocks after it (same
//!    number, same title folded to alphanumerics; `Chapter 3. The Root Filesystem` matches the
//!    entry `3. The Root Filesystem`), the table is the authority: the headings are the entries
//!    found, at the entries' levels, plus numbered blocks deeper than the table goes whose number
//!    extends the last heading's (`3.7.4.1.` under `3.7.4.`), plus unnumbered blocks in the very
//!    style of a level's headings (ieeepes' `References`). Styled lines the table does not list
//!    (fhs-3.0's `Rationale` boxes, table headers) stay text.
//! 2. **Typography** otherwise: larger blocks; bold blocks at body size only when set left of
//!    the body text (man pages: `SHELL GRAMMAR` at the margin, `Pipelines` half-way in, the
//!    text further in) or followed by a regular line not indented under them (a reference
//!    card's `Character strings`) — so a definition list's bold terms (`BASHOPTS`, then its
//!    indented description) stay text; an unnumbered one also starts with a capital and does
//!    not end in `.,;:)`. A numbered block (`3.18.1.`, `Chapter 5.`, `A.2`) sits at its
//!    number's depth; unnumbered styles (size, weight, indentation when outdented) are ranked,
//!    a style shared with numbered headings taking their depth; the largest style used once,
//!    on the first page, is the document title and no heading.
//!
//! Fewer than [`MIN_HEADINGS`] headings means none were found.

use std::collections::HashMap;

use super::fragments;
use super::nesting;
use super::numbering::{self, fold, Numbering};
use super::text::TextLine;
use super::toc::{self, TocEntry};

/// A line at least this many times the body size is styled (a heading candidate).
pub const LARGER_RATIO: f32 = 1.12;
/// When a contents list's first heading comes after this share of the lines, the lines
/// before it get headings from typography.
pub const UNCOVERED_SHARE: f32 = 0.3;
/// A line under this many times the body size is no heading a contents list's style adds
/// (a table's column header in small type).
pub const SMALLER_RATIO: f32 = 0.8;
/// A page whose regular text is mostly set larger than the document's body, in at least this
/// many characters (bytes), has a body size of its own.
pub const PAGE_BODY_MIN_CHARS: usize = 1_500;
/// A regular-weight block of at least this many words ending in a full stop is a sentence.
pub const MIN_SENTENCE_WORDS: usize = 10;
/// A heading block spans at most this many lines.
pub const MAX_HEADING_LINES: usize = 3;
/// Longest heading block, in chars.
pub const MAX_HEADING_CHARS: usize = 120;
/// Longest unnumbered body-size bold heading, in chars.
pub const MAX_BOLD_LABEL_CHARS: usize = 80;
/// A continuation line sits at most this many ems (of the heading's size) below the line above.
pub const CONTINUATION_GAP_EM: f32 = 1.6;
/// Set left of the body text by more than this many points is outdented.
pub const OUTDENT: f32 = 3.0;
/// A table-of-contents entry is looked for this many lines past the previous one found —
/// or, when both print page numbers, up to the page the list gives it plus
/// [`TOC_PAGE_SLACK`] (McDonald's `Controls and Procedures` is 27 pages of financial
/// statements after `Financial Statements and Supplementary Data`).
pub const TOC_WINDOW_LINES: usize = 1_000;
/// Pages past the one a contents list gives an entry that it is still looked for on.
pub const TOC_PAGE_SLACK: usize = 1;
/// Entries of one contents list are at most this many lines apart.
pub const TOC_RUN_GAP_LINES: usize = 40;
/// Fewer headings than this (or table entries found) is none.
pub const MIN_HEADINGS: usize = 3;
/// A contents entry is looked for as a plain line only when its folded title has at least
/// this many chars (`Overview` is too common a line to be told by its words alone).
pub const MIN_PLAIN_TITLE_CHARS: usize = 12;
/// Share of a contents entry's title words a keyword division's heading (`Item 7`) must print.
pub const DIVISION_TITLE_WORDS_SHARE: f32 = 0.6;
/// Share of the regular lines a left edge needs to be the body's.
pub const BODY_X_SHARE: f32 = 0.1;

/// One printed heading.
#[derive(Debug, Clone, PartialEq)]
pub struct Heading {
    /// Index of its first line among the document's lines in reading order.
    pub at: usize,
    /// Lines it spans.
    pub lines: usize,
    /// Nesting level, 1 = top.
    pub level: u32,
    /// Its text, lines joined with spaces (without one after a line-end hyphen).
    pub title: String,
    /// Its printed number, if any.
    pub number: Option<Numbering>,
    /// Font size of its first line (device points).
    pub size: f32,
    /// True when its first line is bold.
    pub bold: bool,
    /// True when a printed contents list names it: `level` is then the list's.
    pub listed: bool,
}

/// How headings were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Confirmed by a printed table of contents: `matched` of its `entries` were found.
    Toc {
        /// Entries in the table.
        entries: usize,
        /// Entries found as headings.
        matched: usize,
    },
    /// From typography alone.
    Typography,
}

/// The headings found and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Detected {
    /// Headings in reading order.
    pub headings: Vec<Heading>,
    /// How they were found.
    pub method: Method,
}

/// Size and left edge of the body text.
#[derive(Debug, Clone, Copy)]
struct Body {
    size: f32,
    x: f32,
}

/// A heading candidate: a styled line and its continuation lines.
#[derive(Debug, Clone)]
struct Block {
    at: usize,
    lines: usize,
    text: String,
    size: f32,
    bold: bool,
    x: f32,
    number: Option<Numbering>,
    /// Bold or larger than the body ([`styled`]); false for a plain line opening with a
    /// division keyword, a candidate only a contents list can confirm.
    styled: bool,
    /// The first cell of a one-line block set in columns: a title with a note on its right
    /// (Corning's `Consolidated Statements of Cash Flows` … `Corning Incorporated and
    /// Subsidiary Companies`), which a contents entry names alone.
    lead: Option<String>,
    /// True when its lines are centred on one another (a certification's title over five
    /// lines): it may be as long as [`fragments::MAX_CENTRED_CHARS`].
    centred: bool,
}

impl Block {
    /// Size (half points) and weight: the style levels are told apart by.
    fn style(&self) -> (i32, bool) {
        (half_points(self.size), self.bold)
    }
}

fn half_points(size: f32) -> i32 {
    (size * 2.0).round() as i32
}

/// The printed headings of `lines` (every page's lines in reading order; `page[i]` is the page
/// index of `lines[i]`), or `None` when there are fewer than [`MIN_HEADINGS`].
pub fn detect(lines: &[&TextLine], page: &[usize]) -> Option<Detected> {
    let body = body(lines)?;
    let page_body = page_body_sizes(lines, page, body);
    let blocks: Vec<Option<Block>> = (0..lines.len())
        .map(|i| {
            let size = page.get(i).and_then(|&p| page_body.get(p)).copied();
            block_at(lines, page, i, body, size.unwrap_or(body.size))
        })
        .collect();
    let all_entries = toc::entries(lines);
    let toc_lines: Vec<usize> = all_entries.iter().map(|e| e.at).collect();
    // The document's contents list is the first run of entries; later runs (an index to the
    // financial statements, a schedule's list) are only kept out of the headings.
    let entries = first_run(&all_entries);
    if let Some(mut found) = from_toc(entries, &blocks, lines, page, body, &toc_lines) {
        if shallow(entries) {
            // A contents list of divisions only (a 10-K's Parts and Items): the subsections
            // inside them come from typography.
            let first = entries.last().map_or(usize::MAX, |e| e.at);
            let taken: std::collections::HashSet<usize> =
                found.headings.iter().map(|h| h.at).collect();
            let extra = from_typography(lines, page, &blocks, body, &toc_lines);
            found.headings.extend(
                extra
                    .into_iter()
                    .filter(|h| h.at > first && !taken.contains(&h.at)),
            );
            found.headings.sort_by_key(|h| h.at);
        }
        // A contents list that covers only the end of the document (an index to the notes of
        // the financial statements, the only one printed): the text before its first heading
        // gets its headings from typography, so the root does not hold most of the document.
        let first_found = found.headings.first().map_or(0, |h| h.at);
        if first_found as f32 > lines.len() as f32 * UNCOVERED_SHARE {
            let extra = from_typography(lines, page, &blocks, body, &toc_lines);
            found
                .headings
                .extend(extra.into_iter().filter(|h| h.at < first_found));
            found.headings.sort_by_key(|h| h.at);
        }
        super::listed::drop_listed_divisions(&mut found.headings);
        nesting::nest_by_scheme(&mut found.headings);
        return Some(found);
    }
    let mut headings = from_typography(lines, page, &blocks, body, &toc_lines);
    super::listed::drop_listed_divisions(&mut headings);
    nesting::nest_by_scheme(&mut headings);
    (headings.len() >= MIN_HEADINGS).then_some(Detected {
        headings,
        method: Method::Typography,
    })
}

/// The first run of at least [`MIN_HEADINGS`] entries no more than [`TOC_RUN_GAP_LINES`]
/// lines apart (all of them when there is no such run).
fn first_run(entries: &[TocEntry]) -> &[TocEntry] {
    let mut start = 0;
    for i in 1..=entries.len() {
        let broken = i == entries.len() || entries[i].at > entries[i - 1].at + TOC_RUN_GAP_LINES;
        if broken {
            if i - start >= MIN_HEADINGS {
                return &entries[start..i];
            }
            start = i;
        }
    }
    entries
}

/// True when a contents list names divisions only: no entry numbered deeper than one level
/// (`3.1`, `A.2`), at least one keyword division (`Item 7.`, `Part II`) — or no entry
/// numbered at all (titles only: a report's topics, whose subsections it leaves out).
fn shallow(entries: &[TocEntry]) -> bool {
    if entries.iter().all(|e| e.numbering.is_none()) {
        return true;
    }
    entries
        .iter()
        .all(|e| e.numbering.as_ref().is_none_or(|n| n.depth <= 1))
        && entries.iter().any(|e| {
            e.numbering
                .as_ref()
                .is_some_and(|n| n.scheme.rank().is_some_and(|r| r <= nesting::DIVISION_RANK))
        })
}

/// The body size (most regular characters) and left edge: the leftmost position at least
/// [`BODY_X_SHARE`] of the regular body-size lines start at (a man page's paragraphs at 108
/// points, not its indented definitions at 144; a multi-column page's first column).
fn body(lines: &[&TextLine]) -> Option<Body> {
    let mut sizes: HashMap<i32, usize> = HashMap::new();
    for l in lines.iter().filter(|l| !l.bold && !l.in_table) {
        *sizes.entry(half_points(l.size)).or_default() += l.text.len();
    }
    let size = sizes.into_iter().max_by_key(|&(s, n)| (n, s))?.0;
    let mut xs: HashMap<i32, usize> = HashMap::new();
    let mut total = 0;
    for l in lines
        .iter()
        .filter(|l| !l.bold && !l.in_table && half_points(l.size) == size)
    {
        *xs.entry(l.x.round() as i32).or_default() += 1;
        total += 1;
    }
    let x = xs
        .into_iter()
        .filter(|&(_, n)| n as f32 >= total as f32 * BODY_X_SHARE)
        .map(|(x, _)| x)
        .min()?;
    Some(Body {
        size: size as f32 / 2.0,
        x: x as f32,
    })
}

fn styled(line: &TextLine, body: Body) -> bool {
    line.bold || line.size >= body.size * LARGER_RATIO
}

/// The body size of each page (index = page index): the document's `body` size, or the size
/// most regular characters of the page are set in when that is larger and the page holds at
/// least [`PAGE_BODY_MIN_CHARS`] of them — an exhibit appended to a 10-K in 10.8-point type
/// after 8.1-point pages, whose every line would otherwise be larger than the body.
fn page_body_sizes(lines: &[&TextLine], page: &[usize], body: Body) -> Vec<f32> {
    let pages = page.iter().max().map_or(0, |p| p + 1);
    let mut chars: Vec<HashMap<i32, usize>> = vec![HashMap::new(); pages];
    for (line, &p) in lines.iter().zip(page) {
        if !line.bold && !line.in_table {
            *chars[p].entry(half_points(line.size)).or_default() += line.text.len();
        }
    }
    chars
        .into_iter()
        .map(|sizes| {
            sizes
                .into_iter()
                .max_by_key(|&(s, n)| (n, s))
                .filter(|&(s, n)| n >= PAGE_BODY_MIN_CHARS && s > half_points(body.size))
                .map_or(body.size, |(s, _)| s as f32 / 2.0)
        })
        .collect()
}

/// The heading block starting at line `i`, if that line is styled — bold, or larger than
/// `page_body_size`, its page's body size (points) — and starts like a heading.
fn block_at(
    lines: &[&TextLine],
    page: &[usize],
    i: usize,
    body: Body,
    page_body_size: f32,
) -> Option<Block> {
    let first = lines[i];
    let page_body = Body {
        size: page_body_size,
        ..body
    };
    if !styled(first, page_body) {
        return keyword_line_block(lines, page, i);
    }
    if first.in_table
        || !first
            .text
            .starts_with(|c: char| c.is_alphanumeric() || c == '§')
        || first.text.chars().filter(|c| c.is_alphabetic()).count() < 2
        || running_text(&first.text)
    {
        return None;
    }
    let (text, n, centred_block) = continued(lines, page, i);
    let max_chars = if centred_block {
        fragments::MAX_CENTRED_CHARS
    } else {
        MAX_HEADING_CHARS
    };
    if text.chars().count() > max_chars || running_text(&text) {
        return None;
    }
    let number = numbering::numbering(&text);
    // A fragment is no title: an unnumbered block that still ends mid-phrase (a table's
    // column header `Elimination of`, a signature block's `Senior Vice President and`), or
    // one with same-style text beside it (a header row's cell).
    if number.is_none() && fragments::unfinished(&text)
        || fragments::beside_same_style(lines, page, i, n)
    {
        return None;
    }
    // A sentence set larger than the body but in regular weight (a plan's schedule page in its
    // own type: `Company Vehicle: Section 4.8 of the Plan shall apply to each Participant …`)
    // is text; bold ones stay candidates (a 10-K's risk factors are headed by bold sentences).
    let words = text.split_whitespace().count();
    if !first.bold
        && text.ends_with('.')
        && words >= MIN_SENTENCE_WORDS
        && numbering::numbering(&text).is_none()
    {
        return None;
    }
    Some(Block {
        at: i,
        lines: n,
        number,
        text,
        size: first.size,
        bold: first.bold,
        x: first.x,
        styled: true,
        lead: (n == 1 && first.cells.len() >= 2).then(|| first.cells[0].text.clone()),
        centred: centred_block,
    })
}

/// The text of the heading whose first line is line `i` joined with the lines on its page that
/// continue it (same style, aligned or centred under an unfinished line, close below), how many
/// lines that is, and whether a centred line continued it.
fn continued(lines: &[&TextLine], page: &[usize], i: usize) -> (String, usize, bool) {
    let first = lines[i];
    let mut text = first.text.clone();
    let mut n = 1;
    let mut centred_block = false;
    while i + n < lines.len() && page[i + n] == page[i] {
        let (prev, next) = (lines[i + n - 1], lines[i + n]);
        // A heading does not stop mid-phrase: an unfinished line (`CERTIFICATION PURSUANT
        // TO`), or one followed by a lone function word (`APPENDIX` / `TO`), goes on further.
        let open = fragments::unfinished(&text)
            || next
                .text
                .split_whitespace()
                .all(fragments::is_function_word);
        let max_lines = if open || centred_block {
            fragments::MAX_CONTINUED_LINES
        } else {
            MAX_HEADING_LINES
        };
        if n >= max_lines {
            break;
        }
        let gap = prev.y - next.y;
        let max_gap = if open {
            fragments::UNFINISHED_GAP_EM
        } else {
            CONTINUATION_GAP_EM
        };
        let same_style = (next.size - first.size).abs() < 0.3 && next.bold == first.bold;
        // Only an unfinished title goes on centred: a statement's centred issuer, title and
        // period lines (`ORACLE CORPORATION` / `CONSOLIDATED STATEMENTS OF OPERATIONS` / `For
        // the Years Ended …`) are three blocks, the title among them the one a contents list
        // names.
        let centred = open && fragments::centred(prev, next);
        // Wrapped lines start where the heading does, or under its title after a number, or
        // are centred under an unfinished line above.
        let aligned = (next.x - first.x).abs() <= 1.5
            || numbering::numbering(&first.text).is_some()
                && next.x > first.x
                && next.x <= first.x + 6.0 * first.size
            || fragments::under_title_cell(first, next)
            || centred;
        if !same_style
            || next.in_table
            || !aligned
            || gap <= 0.0
            || gap > max_gap * first.size
            || !open && numbering::numbering(&next.text).is_some()
        {
            break;
        }
        centred_block |= centred;
        // A hyphen left at the end (hyphenation already joined what it could) is the
        // compound's own: `architecture-` / `independent`.
        if !text.ends_with('-') {
            text.push(' ');
        }
        text.push_str(&next.text);
        n += 1;
    }
    (text, n, centred_block)
}

/// A plain line opening with a division keyword (`Item 7.`, `PART II`, `Note 3`): a candidate
/// whatever its type, for a contents list to confirm (typography alone never takes it). An
/// aside left open at the line's end is closed by the next line when that line is short and
/// closes it (`… Results of Operations (amounts in millions, except per share,` / `data)`), so
/// the title keeps it whole; the aside does not count toward [`MAX_HEADING_CHARS`].
fn keyword_line_block(lines: &[&TextLine], page: &[usize], i: usize) -> Option<Block> {
    const MAX_ASIDE_END_CHARS: usize = 80;
    let first = lines[i];
    let number = numbering::numbering(&first.text).filter(|n| n.scheme.rank().is_some())?;
    let mut text = first.text.clone();
    let mut n = 1;
    let open = |t: &str| t.matches('(').count() > t.matches(')').count();
    if open(&text) {
        if let Some(next) = lines.get(i + 1).filter(|_| page[i + 1] == page[i]) {
            if next.text.trim_end_matches('.').ends_with(')')
                && next.text.chars().count() <= MAX_ASIDE_END_CHARS
                && !next.in_table
            {
                text.push(' ');
                text.push_str(&next.text);
                n = 2;
            }
        }
    }
    let without_aside = match text.rfind(" (") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text.as_str(),
    };
    if first.in_table
        || without_aside.chars().count() > MAX_HEADING_CHARS
        || text.chars().filter(|c| c.is_alphabetic()).count() < 2
        || running_text(&text)
    {
        return None;
    }
    Some(Block {
        at: i,
        lines: n,
        number: Some(number),
        text,
        size: first.size,
        bold: first.bold,
        x: first.x,
        styled: false,
        lead: None,
        centred: false,
    })
}

/// True for text that reads as running text, not a title: it starts in lower case (a
/// sentence's continuation, a bullet's second line: `increase of 77%;`), ends like a clause
/// (`,` `;`), or is a contents list's column label (`Page`).
fn running_text(text: &str) -> bool {
    let t = text.trim();
    let lower = t.to_lowercase();
    t.starts_with(char::is_lowercase)
        || t.ends_with([',', ';'])
        // A title repeated on the pages it runs over (`NOTES TO … —(Continued)`).
        || lower.ends_with("(continued)")
        || lower.ends_with("continued)")
        || lower.ends_with("—continued")
        || lower.ends_with(", continued")
        || figures_only(t)
        || matches!(
            lower.as_str(),
            "page" | "pages" | "page no." | "page number" | "table of contents" | "index"
        )
}

/// Words a period or a figures' header is written in (`Year Ended`, `in millions`): a line of
/// numbers, months and these words alone is [`figures_only`].
const PERIOD_WORDS: &[&str] = &[
    "year",
    "years",
    "ended",
    "ending",
    "as",
    "of",
    "at",
    "for",
    "the",
    "and",
    "fiscal",
    "months",
    "month",
    "three",
    "six",
    "nine",
    "twelve",
    "quarter",
    "quarters",
    "period",
    "through",
    "to",
    "weeks",
    "week",
    "fy",
    "q1",
    "q2",
    "q3",
    "q4",
    "in",
    "millions",
    "thousands",
    "except",
    "per",
    "share",
    "data",
    "amounts",
    "dollars",
    "unaudited",
    // A signature's date, an equity statement's row label (`Balance at December 31, 2021`).
    "date",
    "dated",
    "balance",
    "balances",
];

/// Month names and their abbreviations, as [`figures_only`] reads a date.
const MONTH_WORDS: &[&str] = &[
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Words after which a number cites a provision and is no figure for [`figures_only`] (`18
/// U.S.C. SECTION 1350, AS ADOPTED PURSUANT TO SECTION 906 OF THE SARBANES-OXLEY ACT OF 2002`).
const CITING_WORDS: &[&str] = &[
    "section",
    "sections",
    "rule",
    "rules",
    "item",
    "note",
    "exhibit",
    "form",
    "chapter",
    "title",
    "regulation",
    "article",
    "schedule",
];

/// True for a line of figures and dates rather than words: three or more numbers (a table row
/// or a header of years: `2019 2018 2017`, `Balance at December 31, 2015 $ 11,468 $ 4,800`), or
/// nothing but a period (`DECEMBER 31, 2016 AND 2015`, `Year Ended December 31, 2020`, `May 31,
/// 2019`) — a statement's date line or a column header, never a heading.
fn figures_only(text: &str) -> bool {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let numeric =
        |w: &str| w.chars().any(|c| c.is_ascii_digit()) && !w.chars().any(char::is_alphabetic);
    // A lone `$` or `%` is a figure's cell too (`2021 2020 $ Change % Change`).
    let signs = text
        .split_whitespace()
        .filter(|w| matches!(*w, "$" | "%"))
        .count();
    let cites = |i: usize| {
        let before = |k: usize| i.checked_sub(k).map(|j| words[j].as_str());
        CITING_WORDS.contains(&before(1).unwrap_or(""))
            || before(1) == Some("of") && before(2) == Some("act")
            || words.get(i + 1).is_some_and(|w| w == "u.s.c")
    };
    let numbers = (0..words.len())
        .filter(|&i| numeric(&words[i]) && !cites(i))
        .count();
    if numbers + signs >= 3 {
        return true;
    }
    numbers >= 1
        && words.iter().all(|w| {
            numeric(w)
                || PERIOD_WORDS.contains(&w.as_str())
                || MONTH_WORDS.contains(&w.trim_end_matches('.'))
        })
}

/// True when a table-of-contents entry names this block: same number (when the entry has one)
/// and the same title folded to alphanumerics (or one a prefix of the other covering ≥ 80%).
fn names(entry: &TocEntry, block: &Block) -> bool {
    match (&entry.numbering, &block.number) {
        (Some(e), Some(b)) if !e.key.eq_ignore_ascii_case(&b.key) => return false,
        (Some(_), None) => return false,
        _ => {}
    }
    let (want, have) = (fold(&entry.title), fold(numbering::strip(&block.text)));
    // A filing's division (`Item 7`, `Note 3`) is told by its number; its title is printed
    // with small differences in the body (`Financial Conditions`, a `(amounts in millions)`
    // aside): most of the entry's words are enough.
    let division = entry
        .numbering
        .as_ref()
        .is_some_and(|e| e.scheme.rank().is_some());
    if division && !want.is_empty() && shares_most_words(&entry.title, &block.text) {
        return true;
    }
    if want.is_empty() {
        // A bare number (`Part II`): the same scheme and number.
        return matches!((&entry.numbering, &block.number),
            (Some(e), Some(b)) if e.scheme == b.scheme && e.key.eq_ignore_ascii_case(&b.key));
    }
    if have.is_empty() {
        return false;
    }
    let (short, long) = if want.len() <= have.len() {
        (&want, &have)
    } else {
        (&have, &want)
    };
    want == have
        || (long.starts_with(short.as_str()) && short.len() * 5 >= long.len() * 4)
        || block.lead.as_ref().is_some_and(|lead| fold(lead) == want)
}

/// True when at least [`DIVISION_TITLE_WORDS_SHARE`] of the words of `title` (folded to
/// alphanumerics) are words of `text`.
fn shares_most_words(title: &str, text: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split_whitespace()
            .map(fold)
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (want, have) = (words(title), words(text));
    let shared = want.iter().filter(|w| have.contains(w)).count();
    !want.is_empty() && shared as f32 >= want.len() as f32 * DIVISION_TITLE_WORDS_SHARE
}

/// Headings confirmed by the table of contents (see the module doc), or `None` when it has
/// fewer than [`MIN_HEADINGS`] entries or fewer than half of them are found.
fn from_toc(
    entries: &[TocEntry],
    blocks: &[Option<Block>],
    lines: &[&TextLine],
    page: &[usize],
    body: Body,
    toc_lines: &[usize],
) -> Option<Detected> {
    let toc_end = entries.last()?.at;
    if entries.len() < MIN_HEADINGS {
        return None;
    }
    let found = place_entries(entries, blocks, lines, page, toc_end + 1);
    let matched = found.len();
    // Half the entries found, or half the numbered ones (a contents list whose unnumbered
    // sub-entries are printed differently in the body still places its Items and Notes).
    let numbered = entries.iter().filter(|e| e.numbering.is_some()).count();
    let matched_numbered = found.iter().filter(|(_, b)| b.number.is_some()).count();
    let enough = matched * 2 >= entries.len()
        || (numbered >= MIN_HEADINGS && matched_numbered * 2 >= numbered);
    if matched < MIN_HEADINGS || !enough {
        return None;
    }
    let max_depth = entries.iter().map(|e| e.level).max().unwrap_or(1);
    let mut headings: Vec<Heading> = found
        .iter()
        .map(|(level, b)| Heading {
            listed: true,
            ..heading(b, *level)
        })
        .collect();
    let between = Listed {
        found: &found,
        max_depth,
        other_lists: toc_lines,
        body,
    };
    headings.extend(between.headings_between(blocks, toc_end + 1));
    headings.sort_by_key(|h| h.at);
    Some(Detected {
        headings,
        method: Method::Toc {
            entries: entries.len(),
            matched,
        },
    })
}

/// The blocks from line `start` on that `entries` name, in order, each with its entry's level:
/// each entry is looked for after the previous one found, a numbered one to the end, a bare
/// title within [`TOC_WINDOW_LINES`] lines (or as far as its printed page number reaches).
fn place_entries(
    entries: &[TocEntry],
    blocks: &[Option<Block>],
    lines: &[&TextLine],
    page: &[usize],
    start: usize,
) -> Vec<(u32, Block)> {
    let mut cursor = start;
    let mut found: Vec<(u32, Block)> = Vec::new();
    // The printed page number and the page index of the last entry found.
    let mut last_found_page: Option<(u32, usize)> = None;
    for entry in entries {
        // A numbered entry is distinctive enough to be looked for to the end (a 10-K's Item 8
        // is thousands of lines after Item 7A); a bare title only near the previous one.
        let window = if entry.numbering.is_some() {
            blocks.len()
        } else {
            TOC_WINDOW_LINES
        };
        let mut end = cursor.saturating_add(window).min(blocks.len());
        if let (None, Some(printed), Some((last_printed, last_page))) = (
            &entry.numbering,
            toc::printed_page(&lines[entry.at].text),
            last_found_page,
        ) {
            if printed >= last_printed {
                let until = last_page + (printed - last_printed) as usize + TOC_PAGE_SLACK;
                end = page
                    .iter()
                    .skip(cursor)
                    .position(|&p| p > until)
                    .map_or(blocks.len(), |k| cursor + k)
                    .max(end);
            }
        }
        let candidates = || blocks[cursor.min(end)..end].iter().flatten();
        let mut hit = candidates().find(|b| names(entry, b));
        // A plain line naming a division (a cross-reference that starts a line: `Item 7.—
        // Management's Discussion … and the`) gives way to a styled heading naming it before
        // the next numbered entry's.
        if let Some(plain) = hit.filter(|b| !b.styled && entry.numbering.is_some()) {
            let next = entries
                .iter()
                .skip_while(|e| !std::ptr::eq(*e, entry))
                .skip(1)
                .find(|e| e.numbering.is_some());
            let styled = candidates()
                .skip_while(|b| b.at <= plain.at)
                .take_while(|b| next.is_none_or(|n| !names(n, b)))
                .find(|b| b.styled && names(entry, b));
            hit = styled.or(hit);
        }
        // An unnumbered entry printed as a plain line that is nothing but its title (a
        // statement's title centred above it: `Consolidated Statements of Cash Flows`).
        let plain;
        if hit.is_none() && entry.numbering.is_none() {
            plain = plain_title_line(entry, lines, cursor.min(end)..end);
            hit = plain.as_ref();
        }
        if let Some(b) = hit {
            found.push((entry.level, b.clone()));
            cursor = b.at + b.lines;
            last_found_page = toc::printed_page(&lines[entry.at].text)
                .zip(page.get(b.at).copied())
                .or(last_found_page);
        }
    }
    found
}

/// What the contents list placed, for finding the headings it does not list.
struct Listed<'a> {
    /// The blocks it placed, with their levels.
    found: &'a [(u32, Block)],
    /// Its deepest level.
    max_depth: u32,
    /// The lines of other contents lists (an exhibit's own), whose entries are no headings.
    other_lists: &'a [usize],
    /// The body text's style.
    body: Body,
}

impl Listed<'_> {
    /// Headings the list does not name, from line `start` on: numbered ones deeper than its
    /// deepest level that extend a heading found, and unnumbered ones in the style of one of its
    /// levels (after its first heading found, not much smaller than the body).
    fn headings_between(&self, blocks: &[Option<Block>], start: usize) -> Vec<Heading> {
        let found = self.found;
        let max_depth = self.max_depth;
        let body = self.body;
        let other_lists: std::collections::HashSet<usize> =
            self.other_lists.iter().copied().collect();
        let level_of_style = level_of_style(found);
        let taken: std::collections::HashSet<usize> = found.iter().map(|(_, b)| b.at).collect();
        let first_found = found.first().map_or(usize::MAX, |(_, b)| b.at);
        let mut headings = Vec::new();
        // Deeper numbered headings and same-style unnumbered ones, between the table's headings.
        let mut last_key_at_depth: HashMap<u32, String> = HashMap::new();
        let mut i = start;
        while i < blocks.len() {
            let Some(b) = &blocks[i] else {
                i += 1;
                continue;
            };
            // Another contents list's entries (an exhibit's own) are no headings.
            if other_lists.contains(&b.at) {
                i += b.lines;
                continue;
            }
            if taken.contains(&b.at) {
                if let Some(n) = &b.number {
                    last_key_at_depth.insert(n.depth, n.key.clone());
                }
            } else if let Some(n) = &b.number {
                let parent = n.key.rsplit_once('.').map(|(p, _)| p);
                let extends = parent.is_some_and(|p| {
                    last_key_at_depth
                        .get(&(n.depth - 1))
                        .is_some_and(|k| k.eq_ignore_ascii_case(p))
                });
                if n.depth > max_depth && extends {
                    last_key_at_depth.insert(n.depth, n.key.clone());
                    headings.push(heading(b, n.depth));
                }
            } else if let Some(level) = level_of_style.get(&b.style()) {
                // Much smaller than the body: a table's column header (`Retained` / `Earnings`).
                if b.at > first_found && b.size >= body.size * SMALLER_RATIO {
                    headings.push(heading(b, *level));
                }
            }
            i += b.lines;
        }
        headings
    }
}

/// The style of each level's headings among `found` (the most common one), as style → level.
fn level_of_style(found: &[(u32, Block)]) -> HashMap<(i32, bool), u32> {
    // The style of each level's headings (the most common one).
    let mut styles: HashMap<u32, HashMap<(i32, bool), usize>> = HashMap::new();
    for (level, b) in found {
        *styles
            .entry(*level)
            .or_default()
            .entry(b.style())
            .or_default() += 1;
    }
    styles
        .iter()
        .filter_map(|(level, counts)| {
            let (style, _) = counts.iter().max_by_key(|(s, n)| (**n, **s))?;
            Some((*style, *level))
        })
        .collect()
}

/// The first line in `range` whose whole text is `entry`'s title (folded to alphanumerics),
/// outside tables, as a block: how a contents list confirms a title printed in body type.
fn plain_title_line(
    entry: &TocEntry,
    lines: &[&TextLine],
    range: std::ops::Range<usize>,
) -> Option<Block> {
    let want = fold(&entry.title);
    if want.len() < MIN_PLAIN_TITLE_CHARS {
        return None;
    }
    let at = range.into_iter().find(|&i| {
        let line = lines[i];
        !line.in_table && fold(&line.text) == want
    })?;
    let line = lines[at];
    Some(Block {
        at,
        lines: 1,
        text: line.text.clone(),
        size: line.size,
        bold: line.bold,
        x: line.x,
        number: None,
        styled: false,
        lead: None,
        centred: false,
    })
}

/// `text` without the space extraction left before a full stop, comma or semicolon (`2 .
/// INVENTORY`, `Title .`): `2. INVENTORY`, `Title.`. A colon set apart is kept (FHS's `/bin :
/// Essential …`).
fn tidy_title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let before_mark = c == ' '
            && chars
                .get(i + 1)
                .is_some_and(|n| matches!(n, '.' | ',' | ';'))
            && chars.get(i + 2).is_none_or(|n| *n == ' ')
            && i > 0
            && chars[i - 1] != ' '
            && chars[i - 1] != '.';
        if !before_mark {
            out.push(c);
        }
    }
    out
}

/// `b`'s title: its text tidied ([`tidy_title`]), and for a numbered line running on into its
/// paragraph only its run-in head ([`fragments::run_in_head`]).
fn run_in_title(b: &Block) -> String {
    let tidy = tidy_title(&b.text);
    if b.number.is_none() {
        return tidy;
    }
    numbering::numbering(&tidy)
        .and_then(|n| fragments::run_in_head(&tidy, n.len))
        .map_or_else(|| tidy.clone(), str::to_string)
}

fn heading(b: &Block, level: u32) -> Heading {
    Heading {
        at: b.at,
        lines: b.lines,
        level: level.max(1),
        title: run_in_title(b),
        number: b.number.clone(),
        size: b.size,
        bold: b.bold,
        listed: false,
    }
}

/// Headings from typography alone (see the module doc); `toc_lines` are never headings.
fn from_typography(
    lines: &[&TextLine],
    page: &[usize],
    blocks: &[Option<Block>],
    body: Body,
    toc_lines: &[usize],
) -> Vec<Heading> {
    let mut kept: Vec<&Block> = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let Some(b) = &blocks[i] else {
            i += 1;
            continue;
        };
        i += b.lines;
        if toc_lines.contains(&b.at) {
            continue;
        }
        let larger = b.size >= body.size * LARGER_RATIO;
        let keep = larger || bold_label(lines, page, b, body);
        if keep {
            kept.push(b);
        }
    }
    // Style → level.
    let outdent = |b: &Block| {
        (b.size < body.size * LARGER_RATIO && b.x < body.x - OUTDENT)
            .then(|| (b.x / 4.0).round() as i32)
    };
    type Style = ((i32, bool), Option<i32>);
    let style_of = |b: &Block| -> Style { (b.style(), outdent(b)) };
    let mut numbered_depths: HashMap<Style, Vec<u32>> = HashMap::new();
    let mut uses: HashMap<Style, Vec<usize>> = HashMap::new();
    for b in &kept {
        if let Some(n) = &b.number {
            numbered_depths
                .entry(style_of(b))
                .or_default()
                .push(n.depth);
        }
        uses.entry(style_of(b)).or_default().push(b.at);
    }
    let mut styles: Vec<Style> = uses.keys().copied().collect();
    // Larger first, bold first, less indented first (an outdent beats none).
    styles.sort_by_key(|((size, bold), x)| (-size, !bold, x.map_or(i32::MAX, |x| x)));
    let anchored = |s: &Style| {
        numbered_depths.get(s).map(|ds| {
            let mut ds = ds.clone();
            ds.sort_unstable();
            ds[ds.len() / 2]
        })
    };
    let mut levels: HashMap<Style, u32> = HashMap::new();
    let mut current = 0;
    for (rank, style) in styles.iter().enumerate() {
        if let Some(depth) = anchored(style) {
            current = depth;
            levels.insert(*style, depth);
            continue;
        }
        let used = &uses[style];
        let title_like = rank == 0 && used.len() == 1 && page[used[0]] == 0 && styles.len() > 1;
        if title_like {
            continue;
        }
        current += 1;
        levels.insert(*style, current);
    }
    kept.iter()
        .filter_map(|b| {
            let level = match &b.number {
                Some(n) => n.depth,
                None => *levels.get(&style_of(b))?,
            };
            Some(heading(b, level))
        })
        .collect()
}

/// True when a body-size bold block reads as a heading (see the module doc): set left of the
/// body, or followed by a regular line not indented under it; an unnumbered one must start
/// with a capital and not end like a sentence or list (`.`, `,`, `;`, `:`, `)`).
fn bold_label(lines: &[&TextLine], page: &[usize], b: &Block, body: Body) -> bool {
    if !b.bold {
        return false;
    }
    // A bold division heading may be as long as any heading (the block is bounded by
    // [`MAX_HEADING_CHARS`]): `ITEM 7. MANAGEMENT’S DISCUSSION AND ANALYSIS OF FINANCIAL
    // CONDITION AND RESULTS OF OPERATIONS` is 95 chars.
    let division = b.number.as_ref().is_some_and(|n| n.scheme.rank().is_some());
    // A one-line title with a note set apart on its right (Corning's `Consolidated Statements
    // of Cash Flows` … `Corning Incorporated and Subsidiary Companies`) is as long as its title.
    let label_chars = match lines.get(b.at).map(|l| l.cells.as_slice()) {
        Some([first, _, ..]) if b.lines == 1 => first.text.chars().count(),
        _ => b.text.chars().count(),
    };
    let max_chars = if b.centred {
        fragments::MAX_CENTRED_CHARS
    } else {
        MAX_BOLD_LABEL_CHARS
    };
    if label_chars > max_chars && !division {
        return false;
    }
    if b.number.is_none()
        && (!b.text.starts_with(char::is_uppercase) || b.text.ends_with(['.', ',', ';', ':', ')']))
    {
        return false;
    }
    // A bold division heading (`ITEM 1. BUSINESS`, `Note 3 – Leases`) needs nothing more.
    if b.x < body.x - OUTDENT || division {
        return true;
    }
    let next = b.at + b.lines;
    if next >= lines.len() || page[next] != page[b.at] {
        return false;
    }
    if !lines[next].bold {
        return lines[next].x <= b.x + OUTDENT;
    }
    // Stacked headings (`Item 1. Business` over `Company Background`): a bold title line
    // followed by another whose own next line is regular text.
    let after = next + 1;
    let title_like = |l: &TextLine| {
        l.text.chars().count() <= MAX_BOLD_LABEL_CHARS
            && l.text
                .starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
            && !l.text.ends_with(['.', ',', ';', ':', ')'])
            && !l.in_table
    };
    title_like(lines[next])
        && (lines[next].x - b.x).abs() <= 1.5
        && after < lines.len()
        && page[after] == page[b.at]
        && !lines[after].bold
        && lines[after].x <= lines[next].x + OUTDENT
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f32, x: f32, size: f32, bold: bool, text: &str) -> TextLine {
        TextLine {
            text: text.into(),
            x,
            y,
            size,
            bold,
            ..TextLine::default()
        }
    }

    fn titles(d: &Detected) -> Vec<(u32, &str)> {
        d.headings
            .iter()
            .map(|h| (h.level, h.title.as_str()))
            .collect()
    }

    fn run(lines: &[TextLine]) -> Option<Detected> {
        let refs: Vec<&TextLine> = lines.iter().collect();
        let page = vec![0; lines.len()];
        detect(&refs, &page)
    }

    #[test]
    fn titles_lose_the_space_before_punctuation_and_figure_lines_are_no_titles() {
        assert_eq!(tidy_title("2 . INVENTORY"), "2. INVENTORY");
        assert_eq!(tidy_title("1.1 Title ."), "1.1 Title.");
        // A colon set apart is the title's own (`/bin : Essential user command binaries`).
        assert_eq!(tidy_title("/bin : Essential"), "/bin : Essential");
        for row in [
            "2021 2020 $ Change % Change",
            "Date: February 8, 2019",
            "Balance at December 31, 2021",
        ] {
            assert!(figures_only(row), "{row}");
        }
        assert!(!figures_only("Andes SBU 2016 vs. 2015"));
        // Numbers that cite provisions are no figures.
        assert!(!figures_only(
            "CERTIFICATION PURSUANT TO 18 U.S.C. SECTION 1350, AS ADOPTED PURSUANT TO SECTION 906 \
             OF THE SARBANES-OXLEY ACT OF 2002"
        ));
    }

    #[test]
    fn man_page_sections_and_subsections_by_indentation() {
        let lines = vec![
            line(750.0, 72.0, 10.95, true, "NAME"),
            line(738.0, 108.0, 10.0, false, "bash - GNU Bourne-Again SHell"),
            line(720.0, 72.0, 10.95, true, "SHELL GRAMMAR"),
            line(
                708.0,
                108.0,
                10.0,
                false,
                "This section describes the syntax.",
            ),
            line(690.0, 87.0, 10.0, true, "Pipelines"),
            line(
                678.0,
                108.0,
                10.0,
                false,
                "A pipeline is a sequence of commands.",
            ),
            line(660.0, 108.0, 10.0, true, "BASH"),
            line(648.0, 144.0, 10.0, false, "Expands to the full filename."),
            line(630.0, 72.0, 10.95, true, "PARAMETERS"),
            line(
                618.0,
                108.0,
                10.0,
                false,
                "A parameter is an entity that stores values.",
            ),
        ];
        let d = run(&lines).unwrap();
        assert_eq!(d.method, Method::Typography);
        assert_eq!(
            titles(&d),
            vec![
                (1, "NAME"),
                (1, "SHELL GRAMMAR"),
                (2, "Pipelines"),
                (1, "PARAMETERS")
            ]
        );
    }

    #[test]
    fn table_of_contents_confirms_headings_and_multi_line_titles_join() {
        let lines = vec![
            line(750.0, 72.0, 20.0, true, "Table of Contents"),
            line(730.0, 72.0, 10.0, false, "1. Introduction ........ 1"),
            line(718.0, 90.0, 10.0, false, "1.1. Purpose ........ 1"),
            line(
                706.0,
                90.0,
                10.0,
                false,
                "1.2. Binaries for use by all users ........ 2",
            ),
            line(694.0, 72.0, 10.0, false, "2. The End ........ 3"),
            line(600.0, 72.0, 24.0, true, "Chapter 1. Introduction"),
            line(570.0, 72.0, 20.0, true, "1.1. Purpose"),
            line(550.0, 120.0, 10.0, false, "Body text of the purpose."),
            line(530.0, 138.0, 14.0, true, "Rationale"),
            line(510.0, 138.0, 10.0, false, "Why it is so."),
            line(490.0, 72.0, 20.0, true, "1.2. Binaries for use by"),
            line(465.0, 72.0, 20.0, true, "all users"),
            line(440.0, 72.0, 17.0, true, "1.2.1. Deeper"),
            line(420.0, 120.0, 10.0, false, "More body text."),
            line(400.0, 72.0, 24.0, true, "Chapter 2. The End"),
            line(380.0, 120.0, 10.0, false, "Final words."),
        ];
        let d = run(&lines).unwrap();
        assert_eq!(
            d.method,
            Method::Toc {
                entries: 4,
                matched: 4
            }
        );
        assert_eq!(
            titles(&d),
            vec![
                (1, "Chapter 1. Introduction"),
                (2, "1.1. Purpose"),
                (2, "1.2. Binaries for use by all users"),
                (3, "1.2.1. Deeper"),
                (1, "Chapter 2. The End"),
            ]
        );
        assert_eq!(d.headings[2].lines, 2);
    }

    #[test]
    fn title_page_line_is_no_heading_and_too_few_is_none() {
        let lines = vec![
            line(750.0, 100.0, 17.0, false, "A Package for Transactions"),
            line(700.0, 58.0, 14.0, true, "1 Introduction"),
            line(680.0, 58.0, 10.0, false, "Text."),
            line(660.0, 58.0, 14.0, true, "2 Installation"),
            line(640.0, 58.0, 10.0, false, "Text."),
            line(620.0, 58.0, 14.0, true, "References"),
            line(600.0, 58.0, 10.0, false, "Text."),
        ];
        let d = run(&lines).unwrap();
        assert_eq!(
            titles(&d),
            vec![
                (1, "1 Introduction"),
                (1, "2 Installation"),
                (1, "References")
            ]
        );
        assert_eq!(run(&lines[..3]), None);
    }

    /// Corning's statements: a body-size bold title with the issuer's name set apart on its
    /// right; the line is 83 chars, the title 37.
    #[test]
    fn a_bold_title_with_a_note_on_its_right_is_as_long_as_its_title() {
        let titled = |y: f32, title: &str| {
            let note = "Corning Incorporated and Subsidiary Companies";
            let mut l = line(y, 17.0, 8.7, true, &format!("{title} {note}"));
            l.x_end = 593.0;
            l.cells = vec![
                super::super::text::Cell {
                    text: title.into(),
                    x0: 17.0,
                    x1: 164.0,
                },
                super::super::text::Cell {
                    text: note.into(),
                    x0: 408.0,
                    x1: 593.0,
                },
            ];
            l
        };
        let body = |y: f32| {
            line(
                y,
                17.0,
                8.7,
                false,
                "The accompanying notes are an integral part.",
            )
        };
        let lines = vec![
            titled(720.0, "Consolidated Statements of Income"),
            body(700.0),
            body(690.0),
            titled(660.0, "Consolidated Statements of Cash Flows"),
            body(640.0),
            body(630.0),
            titled(600.0, "Consolidated Balance Sheets"),
            body(580.0),
            body(570.0),
        ];
        let d = run(&lines).unwrap();
        let found: Vec<&str> = titles(&d).into_iter().map(|(_, t)| t).collect();
        assert_eq!(
            found,
            vec![
                "Consolidated Statements of Income Corning Incorporated and Subsidiary Companies",
                "Consolidated Statements of Cash Flows Corning Incorporated and Subsidiary Companies",
                "Consolidated Balance Sheets Corning Incorporated and Subsidiary Companies",
            ]
        );
    }
}
