//! Tables on a PDF page: regions of lines whose figures stand in aligned columns, rewritten as
//! GFM pipe tables so that every row reads alone and the column header is one line.
//!
//! Financial statements, schedules and most report tables are drawn cell by cell: a label at
//! the left margin, then amounts right-aligned in columns, the column header above in one to
//! four lines (`September 28,` over `2019`). Read line by line they lose what a reader sees —
//! which year a figure belongs to, which label a value on its own line has — and their bold
//! totals and header rows are taken for headings. Here:
//!
//! 1. Each line is split into *pieces* at its wide gaps ([`TextLine::cells`]); a lone currency
//!    sign joins the figure after it, a lone `)` or `%` the one before.
//! 2. A *data row* has a label (or none) followed by figures only (`$ 213,883`, `(1,252)`,
//!    `—`, `12.5%`). A region is a run of data rows and short label lines (`Net sales:`)
//!    at most [`MAX_ROW_GAP_PITCHES`] line pitches apart, holding at least [`MIN_DATA_ROWS`]
//!    data rows, trimmed of label lines at its end. A run whose rows carry one small integer
//!    each, last (a contents list's page numbers), is no table.
//! 3. Columns are the unions of overlapping figure extents.
//! 4. The *header* is the lines right above the first data row (each at most
//!    [`MAX_HEADER_GAP_PITCHES`] pitches above the zone so far, at most [`MAX_HEADER_LINES`]),
//!    short and without amounts (years and dates are headers, so are leading rows of years
//!    only): each column's header is its pieces top to bottom (`September 28, 2019`), a piece
//!    spanning several columns heads each of them (`Fiscal Years Ended January 31, 2022`).
//! 5. Rows: a wrapped label line (as long as the label column, the row below starting at the
//!    same indent) joins the row below; a line of figures only joins the label line above it.
//!
//! The region's lines are replaced by `| label | v1 | v2 |` rows under a header row and a
//! delimiter row (`| --- | ---: |`), marked [`TextLine::in_table`]: never headings, and any
//! read of a line inside the table can find its header ([`crate::tree::tables`]).

use std::sync::LazyLock;

use regex::Regex;

use super::text::TextLine;

/// Consecutive lines of a table are at most this many line pitches apart (a group of rows
/// after a blank line stays in the table).
pub const MAX_ROW_GAP_PITCHES: f32 = 3.0;
/// Each header line sits at most this many pitches above the header lines below it.
pub const MAX_HEADER_GAP_PITCHES: f32 = 1.75;
/// A header has at most this many lines.
pub const MAX_HEADER_LINES: usize = 8;
/// A table has at least this many rows with figures.
pub const MIN_DATA_ROWS: usize = 2;
/// A header piece is at most this many chars (longer is a sentence).
const MAX_HEADER_PIECE_CHARS: usize = 90;

/// A piece of a line: text between wide gaps, with its horizontal extent.
#[derive(Debug, Clone)]
struct Piece {
    text: String,
    x0: f32,
    x1: f32,
}

/// What a line is to a table.
#[derive(Debug, Clone)]
enum Kind {
    /// Label pieces (possibly none) then figures.
    Data {
        label: Vec<Piece>,
        values: Vec<Piece>,
    },
    /// One run of text, no figures.
    Label,
    /// Anything else (several text pieces, figures in the middle).
    Other,
}

static FIGURE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[$€£¥]\s*)?\(?\s*(?:[$€£¥]\s*)?[-–−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*\)?\s*(?:%|x|bps|pts)?\s*\)?(?:\s*\(\d{1,2}\)|\s*[*†‡])?$",
    )
    .ok()
});
static YEAR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?:FY\s?|fiscal\s)?(?:19|20)\d\d$").ok());
static MONTH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b").ok()
});

/// True for a table figure: an amount, a percentage, a dash standing for nothing.
fn is_figure(text: &str) -> bool {
    let t = text.trim();
    matches!(
        t,
        "—" | "–" | "-" | "— %" | "—%" | "$ —" | "$—" | "n/a" | "N/A" | "NM" | "nm" | "*" | "— $"
    ) || FIGURE.as_ref().is_some_and(|re| re.is_match(t))
}

/// True for a year (`2019`, `FY2019`) or a date-like cell (`Dec 26, 2020`, `September 28,`):
/// a column heading, not an amount.
fn is_period(text: &str) -> bool {
    let t = text.trim();
    YEAR.as_ref().is_some_and(|re| re.is_match(t))
        || (MONTH.as_ref().is_some_and(|re| re.is_match(t)) && t.chars().count() <= 30)
}

/// True for a caption line: two or more words in capitals, no digits, not only the words of a
/// period header (`YEARS ENDED`, `AS OF`) and not an aside in parentheses (`(IN MILLIONS)`).
fn is_caption(text: &str) -> bool {
    let t = text.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    words.len() >= 2
        && !t.starts_with('(')
        && t.chars().any(char::is_alphabetic)
        && !t.chars().any(|c| c.is_lowercase() || c.is_ascii_digit())
        && !only_period_words(&words)
}

/// The words of a period header (`YEARS ENDED`, `As of`, `Fiscal Years Ended`), lowercase.
const PERIOD_HEADER_WORDS: &[&str] = &[
    "year", "years", "ended", "ending", "as", "of", "at", "for", "the", "and", "fiscal", "months",
    "quarter", "weeks", "three", "six", "nine", "twelve", "period",
];

/// True when every word is a period header's, whatever its case.
fn only_period_words(words: &[&str]) -> bool {
    words.iter().all(|w| {
        PERIOD_HEADER_WORDS.contains(
            &w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
                .as_str(),
        )
    })
}

/// True for a title in words: two words or more, no digits, every word of four letters or
/// more capitalised (`Consolidated Statements of Cash Flows`), not only the words of a period
/// header (`Fiscal Years Ended`), not an aside or an amount (`(In millions)`, `$ in millions`).
fn is_title(text: &str) -> bool {
    let t = text.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    words.len() >= 2
        && t.starts_with(|c: char| c.is_uppercase())
        && !t.chars().any(|c| c.is_ascii_digit())
        && words.iter().all(|w| {
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            letters < 4 || w.starts_with(|c: char| c.is_uppercase())
        })
        && !only_period_words(&words)
}

fn is_currency(text: &str) -> bool {
    matches!(text.trim(), "$" | "€" | "£" | "¥")
}

/// The pieces of `line` (see the module doc, step 1).
fn pieces(line: &TextLine) -> Vec<Piece> {
    if line.cells.is_empty() || !line.cell_texts_match() {
        return vec![Piece {
            text: line.text.clone(),
            x0: line.x,
            x1: line.x_end.max(line.x),
        }];
    }
    // A sign drawn right after a figure belongs to the next one (`213,883 $`): split it off.
    let mut raw: Vec<Piece> = Vec::with_capacity(line.cells.len() + 2);
    for cell in &line.cells {
        let sign_after = cell
            .text
            .rsplit_once(' ')
            .filter(|(figure, sign)| is_currency(sign) && is_figure(figure));
        match sign_after {
            Some((figure, sign)) => {
                raw.push(Piece {
                    text: figure.to_string(),
                    x0: cell.x0,
                    x1: cell.x1,
                });
                raw.push(Piece {
                    text: sign.to_string(),
                    x0: cell.x1,
                    x1: cell.x1,
                });
            }
            None => raw.push(Piece {
                text: cell.text.clone(),
                x0: cell.x0,
                x1: cell.x1,
            }),
        }
    }
    // A lone sign joins the figure after it; a lone `)` or `%` the one before.
    let mut out: Vec<Piece> = Vec::with_capacity(raw.len());
    for piece in raw {
        if let Some(last) = out.last_mut() {
            if is_currency(&last.text) {
                last.text = format!("{} {}", last.text, piece.text);
                last.x1 = piece.x1;
                continue;
            }
            if matches!(piece.text.as_str(), ")" | "%" | ")%" | "%)") {
                last.text.push_str(&piece.text);
                last.x1 = piece.x1;
                continue;
            }
        }
        out.push(piece);
    }
    out
}

fn kind(pieces: &[Piece]) -> Kind {
    let first_figure = pieces.iter().position(|p| is_figure(&p.text));
    match first_figure {
        None if pieces.len() == 1 => Kind::Label,
        None => Kind::Other,
        Some(at) => {
            let values = &pieces[at..];
            if values.iter().all(|p| is_figure(&p.text)) {
                Kind::Data {
                    label: pieces[..at].to_vec(),
                    values: values.to_vec(),
                }
            } else {
                Kind::Other
            }
        }
    }
}

/// A column: the union of overlapping figure extents.
#[derive(Debug, Clone, Copy)]
struct Column {
    x0: f32,
    x1: f32,
}

fn overlap(a0: f32, a1: f32, b0: f32, b1: f32) -> f32 {
    (a1.min(b1) - a0.max(b0)).max(0.0)
}

/// Index of the column `piece` belongs to: the one it overlaps most, else the nearest.
fn column_of(columns: &[Column], x0: f32, x1: f32) -> usize {
    let mut best = (0usize, f32::MIN);
    for (i, c) in columns.iter().enumerate() {
        let o = overlap(x0, x1, c.x0, c.x1);
        let score = if o > 0.0 {
            o
        } else {
            let centre = (x0 + x1) / 2.0;
            -(centre - (c.x0 + c.x1) / 2.0).abs()
        };
        if score > best.1 {
            best = (i, score);
        }
    }
    best.0
}

/// Columns spanned by a header piece: every column it overlaps by at least half the column,
/// else the one it belongs to.
fn columns_spanned(columns: &[Column], p: &Piece) -> Vec<usize> {
    let wide: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| overlap(p.x0, p.x1, c.x0, c.x1) >= 0.5 * (c.x1 - c.x0).max(1.0))
        .map(|(i, _)| i)
        .collect();
    if wide.len() >= 2 {
        wide
    } else {
        vec![column_of(columns, p.x0, p.x1)]
    }
}

fn columns(rows: &[&[Piece]]) -> Vec<Column> {
    let mut spans: Vec<(f32, f32)> = rows
        .iter()
        .flat_map(|values| values.iter().map(|p| (p.x0, p.x1.max(p.x0))))
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<Column> = Vec::new();
    for (x0, x1) in spans {
        match out.last_mut() {
            Some(c) if x0 < c.x1 - 0.5 => c.x1 = c.x1.max(x1),
            _ => out.push(Column { x0, x1 }),
        }
    }
    out
}

/// Escape a cell for a pipe table.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn row_text(label: &str, values: &[String]) -> String {
    let mut out =
        String::with_capacity(label.len() + values.iter().map(|v| v.len() + 3).sum::<usize>() + 4);
    for text in std::iter::once(label).chain(values.iter().map(String::as_str)) {
        let text = cell(text);
        out.push_str("| ");
        if !text.is_empty() {
            out.push_str(&text);
            out.push(' ');
        }
    }
    out.push('|');
    out
}

/// The typical distance between consecutive lines of `lines` (points).
fn pitch(lines: &[TextLine]) -> f32 {
    let mut gaps: Vec<f32> = lines
        .windows(2)
        .map(|w| w[0].y - w[1].y)
        .filter(|g| *g > 0.5)
        .collect();
    if gaps.is_empty() {
        return lines.first().map_or(10.0, |l| l.size * 1.2);
    }
    gaps.sort_by(f32::total_cmp);
    gaps[gaps.len() / 2]
}

/// Rewrite the tables of one page's lines (see the module doc); returns how many were found.
pub fn rewrite_tables(lines: &mut Vec<TextLine>) -> usize {
    if lines.len() < MIN_DATA_ROWS || !lines.iter().any(|l| l.cells.len() >= 2) {
        return 0;
    }
    let all_pieces: Vec<Vec<Piece>> = lines.iter().map(pieces).collect();
    let kinds: Vec<Kind> = all_pieces.iter().map(|p| kind(p)).collect();
    let mut tables: Vec<Table> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !matches!(kinds[i], Kind::Data { .. }) || lines[i].in_table {
            i += 1;
            continue;
        }
        match table_at(
            lines,
            &all_pieces,
            &kinds,
            i,
            tables.last().map_or(0, |t| t.end),
        ) {
            Some(t) => {
                i = t.end;
                tables.push(t);
            }
            None => i += 1,
        }
    }
    if tables.is_empty() {
        return 0;
    }
    let found = tables.len();
    let old = std::mem::take(lines);
    let mut old: Vec<Option<TextLine>> = old.into_iter().map(Some).collect();
    let mut out: Vec<TextLine> = Vec::with_capacity(old.len());
    let mut at = 0;
    for t in tables {
        while at < t.start {
            if let Some(l) = old[at].take() {
                out.push(l);
            }
            at += 1;
        }
        let notes: Vec<String> = (t.start..t.end)
            .filter_map(|k| old[k].as_ref())
            .flat_map(|l| l.notes.iter().cloned())
            .collect();
        let template = old[t.start].clone();
        at = t.end;
        if let Some(template) = template {
            let n = t.rows.len();
            for (k, (text, y)) in t.rows.into_iter().enumerate() {
                out.push(TextLine {
                    text,
                    x: t.x0,
                    x_end: t.x1,
                    y,
                    size: template.size,
                    bold: false,
                    para_before: k == 0,
                    marks: Vec::new(),
                    notes: if k + 1 == n {
                        notes.clone()
                    } else {
                        Vec::new()
                    },
                    split_spaces: Vec::new(),
                    cells: Vec::new(),
                    in_table: true,
                });
            }
        }
        if let Some(Some(next)) = old.get_mut(at) {
            next.para_before = true;
        }
    }
    out.extend(old.into_iter().skip(at).flatten());
    *lines = out;
    found
}

/// A table found: the lines it replaces and its rendered rows with their baselines.
struct Table {
    start: usize,
    end: usize,
    x0: f32,
    x1: f32,
    rows: Vec<(String, f32)>,
}

/// The lines of a table being read: its first data row, the first line of its body (after
/// leading rows of years or dates only), the line after its last data row, and its line pitch
/// (points).
#[derive(Debug, Clone, Copy)]
struct Region {
    first: usize,
    body_start: usize,
    end: usize,
    pitch: f32,
}

/// The table whose first data row is line `first`, not reaching above line `floor`.
fn table_at(
    lines: &[TextLine],
    pieces: &[Vec<Piece>],
    kinds: &[Kind],
    first: usize,
    floor: usize,
) -> Option<Table> {
    let (end, pitch) = grow_region(lines, kinds, first);
    let region = Region {
        first,
        body_start: body_start(kinds, first, end),
        end,
        pitch,
    };
    let cols = body_columns(kinds, region)?;
    let left = cols.first().map_or(0.0, |c| c.x0);
    let header = header_lines(lines, pieces, &cols, region, floor);
    let (header, body_rows_above) = split_header(lines, pieces, header, first, left);
    // Rows of figures inside a larger table that mixes text columns in (a plant list: name,
    // country, fuel, capacity, customer) are left as they are rather than cut into headless
    // fragments.
    let mixed = |k: usize| {
        matches!(kinds[k], Kind::Other)
            && pieces[k].len() >= 3
            && pieces[k].iter().any(|p| is_figure(&p.text))
    };
    if header.is_empty() && ((first > 0 && mixed(first - 1)) || (end < lines.len() && mixed(end))) {
        return None;
    }
    let start = header
        .first()
        .copied()
        .into_iter()
        .chain(body_rows_above.first().copied())
        .min()
        .unwrap_or(first)
        .min(first);
    let mut rows = header_rows(
        lines,
        pieces,
        &cols,
        &header,
        region.body_start,
        lines[start].y,
    );
    let body = body_rows_above.into_iter().chain(region.body_start..end);
    body_rows(lines, kinds, &cols, body, &mut rows);
    let x0 = (start..end).map(|k| lines[k].x).fold(f32::MAX, f32::min);
    let x1 = (start..end)
        .map(|k| lines[k].x_end)
        .fold(f32::MIN, f32::max);
    Some(Table {
        start,
        end,
        x0,
        x1,
        rows,
    })
}

/// Grow the region of data rows and short label lines down from line `first` (see the module
/// doc, step 2): returns the line after its last data row and its line pitch (points).
fn grow_region(lines: &[TextLine], kinds: &[Kind], first: usize) -> (usize, f32) {
    let size = lines[first].size.max(1.0);
    let mut end = first + 1;
    let mut last_data = first;
    let mut value_left = match &kinds[first] {
        Kind::Data { values, .. } => values.first().map_or(f32::MAX, |v| v.x0),
        _ => f32::MAX,
    };
    let region_pitch = {
        let probe_end = (first + 12).min(lines.len());
        pitch(&lines[first..probe_end]).clamp(size * 0.9, size * 2.5)
    };
    while end < lines.len() {
        let gap = lines[end - 1].y - lines[end].y;
        if gap <= 0.0 || gap > MAX_ROW_GAP_PITCHES * region_pitch || lines[end].in_table {
            break;
        }
        match &kinds[end] {
            Kind::Data { values, .. } => {
                last_data = end;
                if let Some(v) = values.first() {
                    value_left = value_left.min(v.x0);
                }
            }
            Kind::Label if lines[end].x_end <= value_left + 1.0 => {}
            _ => break,
        }
        end += 1;
    }
    (last_data + 1, region_pitch)
}

/// The first line of `first..end` after its leading rows of years or dates only: those are
/// header rows.
fn body_start(kinds: &[Kind], first: usize, end: usize) -> usize {
    let mut body_start = first;
    while body_start < end {
        match &kinds[body_start] {
            Kind::Data { values, .. } if values.iter().all(|v| is_period(&v.text)) => {
                body_start += 1
            }
            _ => break,
        }
    }
    body_start
}

/// The columns of the body's data rows (step 3); `None` when the body is no table: fewer than
/// [`MIN_DATA_ROWS`] data rows, a contents list (one small integer per row, last), no column
/// or more than 16.
fn body_columns(kinds: &[Kind], region: Region) -> Option<Vec<Column>> {
    let data: Vec<&[Piece]> = (region.body_start..region.end)
        .filter_map(|k| match &kinds[k] {
            Kind::Data { values, .. } => Some(values.as_slice()),
            _ => None,
        })
        .collect();
    if data.len() < MIN_DATA_ROWS {
        return None;
    }
    let page_numbers = data
        .iter()
        .filter(|v| {
            v.len() == 1 && v[0].text.len() <= 4 && v[0].text.chars().all(|c| c.is_ascii_digit())
        })
        .count();
    if page_numbers * 10 >= data.len() * 6 {
        return None;
    }
    let cols = columns(&data);
    if cols.is_empty() || cols.len() > 16 {
        return None;
    }
    Some(cols)
}

/// The header's lines, top to bottom (step 4): the leading period rows, then the lines above
/// the body, each within [`MAX_HEADER_GAP_PITCHES`] of the zone below it, not above line
/// `floor`, until a caption, a title, a sentence or an amount.
fn header_lines(
    lines: &[TextLine],
    pieces: &[Vec<Piece>],
    cols: &[Column],
    region: Region,
    floor: usize,
) -> Vec<usize> {
    let Region {
        first,
        body_start,
        end,
        pitch: region_pitch,
    } = region;
    let row_size = {
        let mut sizes: Vec<f32> = (body_start..end).map(|k| lines[k].size).collect();
        sizes.sort_by(f32::total_cmp);
        sizes[sizes.len() / 2]
    };
    let mut header: Vec<usize> = (first..body_start).collect();
    let mut zone_top = (first..body_start)
        .map(|k| lines[k].y)
        .fold(lines[body_start].y, f32::max);
    let mut k = first;
    while k > floor && header.len() < MAX_HEADER_LINES {
        let candidate = k - 1;
        let l = &lines[candidate];
        let over = l.y - zone_top;
        // A larger line above is the table's title, not its header.
        let larger = l.size > 1.1 * row_size;
        // A title in capitals above the columns (`CONSOLIDATED STATEMENTS OF INCOME`,
        // `FEDEX CORPORATION`) is the table's caption: it and what is above it stay text.
        // So is a bold title in words (`Consolidated Balance Sheets`) that ends before the
        // first value column, alone or with more titles on its line (Corning's `Consolidated
        // Statements of Cash Flows` with the issuer's name on the right). A bold row of column
        // group titles (`Pension Benefits`, `Other Benefits`) starts over the values instead.
        let line_pieces = &pieces[candidate];
        let before_values = line_pieces
            .first()
            .is_some_and(|first| cols.get(1).is_none_or(|c| first.x1 < c.x0));
        let caption = (line_pieces.len() == 1 && is_caption(&l.text))
            || (l.bold && before_values && line_pieces.iter().all(|p| is_title(&p.text)));
        if l.in_table
            || larger
            || caption
            || l.y < lines[body_start].y
            || over > MAX_HEADER_GAP_PITCHES * region_pitch
        {
            break;
        }
        if !line_pieces.iter().all(|p| is_header_piece(&p.text)) {
            break;
        }
        header.push(candidate);
        zone_top = zone_top.max(l.y);
        k = candidate;
    }
    header.sort_unstable();
    header
}

/// True for a piece a header line can hold: short, not a sentence (one ending in `.`, one
/// introducing the table with `… as follows:`), not an amount.
fn is_header_piece(text: &str) -> bool {
    let t = text.trim();
    let words = t.split_whitespace().count();
    let sentence = t.ends_with('.') || t.contains(". ") || (t.ends_with(':') && words > 4);
    t.chars().count() <= MAX_HEADER_PIECE_CHARS && !sentence && (!is_figure(t) || is_period(t))
}

/// `header` split into the header proper and the label lines above the first data row that
/// are the body's: a header needs a line over the columns (starting right of `left`), so
/// label-column lines alone are the table's text, and so are label lines below the lowest line
/// over the columns (a group's label right above the first row: `Selected income statement
/// data`).
fn split_header(
    lines: &[TextLine],
    pieces: &[Vec<Piece>],
    mut header: Vec<usize>,
    first: usize,
    left: f32,
) -> (Vec<usize>, Vec<usize>) {
    let over_columns = |line: usize| pieces[line].iter().any(|p| p.x1 > left - 1.0);
    let lowest_over = header
        .iter()
        .filter(|&&h| over_columns(h))
        .map(|&h| lines[h].y)
        .fold(f32::MAX, f32::min);
    let mut body_rows_above: Vec<usize> = Vec::new();
    if lowest_over == f32::MAX {
        header.retain(|&h| h >= first);
    } else {
        header.retain(|&h| {
            let below = !over_columns(h) && lines[h].y < lowest_over - 1.0 && h < first;
            if below {
                body_rows_above.push(h);
            }
            !below
        });
    }
    (header, body_rows_above)
}

/// The header row (each column's pieces top to bottom) and the delimiter row, both at
/// baseline `y`.
fn header_rows(
    lines: &[TextLine],
    pieces: &[Vec<Piece>],
    cols: &[Column],
    header: &[usize],
    body_start: usize,
    y: f32,
) -> Vec<(String, f32)> {
    let left = cols.first().map_or(0.0, |c| c.x0);
    let mut label_head: Vec<(f32, f32, String)> = Vec::new();
    let mut col_heads: Vec<Vec<(f32, f32, String)>> = vec![Vec::new(); cols.len()];
    let right = cols.last().map_or(left, |c| c.x1);
    for &h in header {
        let alone = pieces[h].len() == 1
            && !header
                .iter()
                .any(|&o| o != h && (lines[o].y - lines[h].y).abs() < 1.0);
        for p in &pieces[h] {
            let key = (-lines[h].y, p.x0, p.text.clone());
            if p.x1 <= left + 1.0 {
                label_head.push(key);
            } else if alone && p.x0 >= left - 1.0 && p.x1 <= right + 1.0 && h < body_start {
                // A line of its own over the figures (`Years ended`, centred over the
                // year columns) heads all of them.
                for head in col_heads.iter_mut() {
                    head.push(key.clone());
                }
            } else {
                for c in columns_spanned(cols, p) {
                    col_heads[c].push(key.clone());
                }
            }
        }
    }
    let join = |mut parts: Vec<(f32, f32, String)>| {
        parts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        parts
            .into_iter()
            .map(|(_, _, t)| t)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let head_values: Vec<String> = col_heads.into_iter().map(join).collect();
    let mut delimiter = String::from("| --- |");
    for _ in cols {
        delimiter.push_str(" ---: |");
    }
    vec![
        (row_text(&join(label_head), &head_values), y),
        (delimiter, y),
    ]
}

/// Append the body's rows to `rows` (step 5), one per line of `body` that has figures: a
/// label line joins the row below when that row has no label of its own or continues it
/// (a wrapped label, the row below at its indent); else it is a row of its own, empty cells.
fn body_rows(
    lines: &[TextLine],
    kinds: &[Kind],
    cols: &[Column],
    body: impl Iterator<Item = usize>,
    rows: &mut Vec<(String, f32)>,
) {
    let left = cols.first().map_or(0.0, |c| c.x0);
    let empty = || vec![String::new(); cols.len()];
    // A label line waiting for its values: its text, baseline and line.
    let mut pending: Option<(String, f32, usize)> = None;
    for line in body {
        match &kinds[line] {
            Kind::Data { label, values } => {
                let own = label
                    .iter()
                    .map(|p| p.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let label_x = label.first().map_or(lines[line].x, |p| p.x0);
                let text = match pending.take() {
                    // A value line alone under its label.
                    Some((above, _, _)) if own.is_empty() => above,
                    // A wrapped label: the row below starts at its indent.
                    Some((above, _, at))
                        if (lines[at].x - label_x).abs() <= 1.5
                            && !above.ends_with(':')
                            && lines[at].x_end >= lines[at].x + 0.6 * (left - lines[at].x) =>
                    {
                        format!("{above} {own}")
                    }
                    Some((above, y, _)) => {
                        rows.push((row_text(&above, &empty()), y));
                        own
                    }
                    None => own,
                };
                rows.push((row_text(&text, &cells(cols, values)), lines[line].y));
            }
            _ => {
                if let Some((above, y, _)) = pending.take() {
                    rows.push((row_text(&above, &empty()), y));
                }
                pending = Some((lines[line].text.clone(), lines[line].y, line));
            }
        }
    }
    if let Some((above, y, _)) = pending.take() {
        rows.push((row_text(&above, &empty()), y));
    }
}

/// The cells of a data row: each value in the column it belongs to, two in one column joined
/// by a space.
fn cells(cols: &[Column], values: &[Piece]) -> Vec<String> {
    let mut cells = vec![String::new(); cols.len()];
    for v in values {
        let c = column_of(cols, v.x0, v.x1);
        if !cells[c].is_empty() {
            cells[c].push(' ');
        }
        cells[c].push_str(&v.text);
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::super::text::Cell;
    use super::*;

    /// A line at baseline `y` made of cells `(x0, x1, text)`.
    fn line(y: f32, cells: &[(f32, f32, &str)]) -> TextLine {
        let text = cells.iter().map(|c| c.2).collect::<Vec<_>>().join(" ");
        TextLine {
            text,
            x: cells[0].0,
            x_end: cells[cells.len() - 1].1,
            y,
            size: 8.0,
            cells: if cells.len() > 1 {
                cells
                    .iter()
                    .map(|c| Cell {
                        text: c.2.to_string(),
                        x0: c.0,
                        x1: c.1,
                    })
                    .collect()
            } else {
                Vec::new()
            },
            ..TextLine::default()
        }
    }

    fn texts(lines: &[TextLine]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    /// Apple's FY2019 statement of operations, as its PDF draws it: dates split over two
    /// baselines, a `$` drawn right after the previous column's figure.
    #[test]
    fn statement_rows_read_alone_under_one_header_line() {
        let mut lines = vec![
            line(
                731.7,
                &[(210.0, 380.0, "CONSOLIDATED STATEMENTS OF OPERATIONS")],
            ),
            line(
                722.2,
                &[(136.0, 470.0, "(In millions, except per share amounts)")],
            ),
            line(691.2, &[(19.0, 60.0, "Years ended")]),
            line(678.4, &[(365.0, 415.0, "September 28,")]),
            line(670.3, &[(384.0, 400.0, "2019")]),
            line(678.4, &[(447.0, 497.0, "September 29,")]),
            line(670.3, &[(465.0, 481.0, "2018")]),
            line(657.4, &[(19.0, 50.0, "Net sales:")]),
            line(
                643.9,
                &[
                    (19.0, 58.0, "Products"),
                    (355.0, 360.0, "$"),
                    (395.0, 434.0, "213,883 $"),
                    (477.0, 523.0, "225,847"),
                ],
            ),
            line(
                630.4,
                &[
                    (19.0, 57.0, "Services"),
                    (400.0, 434.0, "46,291"),
                    (481.0, 515.0, "39,748"),
                ],
            ),
            line(
                616.9,
                &[
                    (36.0, 89.0, "Total net sales"),
                    (395.0, 434.0, "260,174"),
                    (477.0, 515.0, "265,595"),
                ],
            ),
            line(
                590.0,
                &[(
                    19.0,
                    200.0,
                    "See accompanying Notes to Consolidated Financial Statements.",
                )],
            ),
        ];
        assert_eq!(rewrite_tables(&mut lines), 1);
        assert_eq!(
            texts(&lines),
            vec![
                "CONSOLIDATED STATEMENTS OF OPERATIONS",
                "(In millions, except per share amounts)",
                "| Years ended | September 28, 2019 | September 29, 2018 |",
                "| --- | ---: | ---: |",
                "| Net sales: | | |",
                "| Products | $ 213,883 | $ 225,847 |",
                "| Services | 46,291 | 39,748 |",
                "| Total net sales | 260,174 | 265,595 |",
                "See accompanying Notes to Consolidated Financial Statements.",
            ]
        );
        assert!(lines[2..8].iter().all(|l| l.in_table));
        assert!(lines[2].para_before && lines[8].para_before);
    }

    /// A spanning header over every column, years as a row of their own, a wrapped label and
    /// a value alone on the line under its label.
    #[test]
    fn spanning_headers_wrapped_labels_and_values_on_their_own_line() {
        let mut lines = vec![
            line(691.2, &[(439.0, 560.0, "Fiscal Years Ended January 31,")]),
            line(
                680.7,
                &[
                    (19.0, 90.0, "(Amounts in millions)"),
                    (445.0, 460.0, "2022"),
                    (500.0, 515.0, "2021"),
                ],
            ),
            line(
                671.0,
                &[(19.0, 120.0, "Cash flows from operating activities:")],
            ),
            line(
                661.2,
                &[
                    (35.0, 150.0, "Consolidated net income"),
                    (440.0, 460.0, "$ 13,940"),
                    (495.0, 515.0, "$ 13,706"),
                ],
            ),
            line(
                652.1,
                &[(
                    35.0,
                    420.0,
                    "Common stock, $0.10 par value; 11,000 shares authorized; 2,761 and",
                )],
            ),
            line(
                642.4,
                &[
                    (35.0, 200.0, "2,821 issued and outstanding"),
                    (445.0, 460.0, "276"),
                    (500.0, 515.0, "282"),
                ],
            ),
            line(632.6, &[(35.0, 150.0, "Retained earnings")]),
            line(623.5, &[(440.0, 460.0, "86,904"), (495.0, 515.0, "88,763")]),
        ];
        assert_eq!(rewrite_tables(&mut lines), 1);
        assert_eq!(
            texts(&lines),
            vec![
                "| (Amounts in millions) | Fiscal Years Ended January 31, 2022 | Fiscal Years Ended January 31, 2021 |",
                "| --- | ---: | ---: |",
                "| Cash flows from operating activities: | | |",
                "| Consolidated net income | $ 13,940 | $ 13,706 |",
                "| Common stock, $0.10 par value; 11,000 shares authorized; 2,761 and 2,821 issued and outstanding | 276 | 282 |",
                "| Retained earnings | 86,904 | 88,763 |",
            ]
        );
    }

    /// A printed table of contents (one page number per row) and prose stay as they are.
    #[test]
    fn contents_lists_and_prose_are_no_tables() {
        let mut lines = vec![
            line(
                646.6,
                &[
                    (19.0, 45.0, "Item 1."),
                    (60.0, 100.0, "Business"),
                    (560.0, 565.0, "1"),
                ],
            ),
            line(
                633.8,
                &[
                    (19.0, 45.0, "Item 1A."),
                    (60.0, 100.0, "Risk Factors"),
                    (560.0, 565.0, "5"),
                ],
            ),
            line(
                621.0,
                &[
                    (19.0, 45.0, "Item 2."),
                    (60.0, 100.0, "Properties"),
                    (556.0, 565.0, "14"),
                ],
            ),
            line(
                600.0,
                &[(
                    19.0,
                    560.0,
                    "The Company sold 1,234 units in 2019 and 2,345 in 2018.",
                )],
            ),
        ];
        let before = texts(&lines)
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        assert_eq!(rewrite_tables(&mut lines), 0);
        assert_eq!(texts(&lines), before);
    }

    #[test]
    fn captions_in_capitals_are_no_column_headers() {
        for c in ["CONSOLIDATED STATEMENTS OF INCOME", "FEDEX CORPORATION"] {
            assert!(is_caption(c), "{c}");
        }
        for h in [
            "YEARS ENDED",
            "(IN MILLIONS, EXCEPT PER SHARE AMOUNTS)",
            "DECEMBER 31, 2019",
            "Years ended",
            "TOTAL",
        ] {
            assert!(!is_caption(h), "{h}");
        }
    }

    /// Corning's 2020 cash-flow statement: its bold title shares its line with the issuer's
    /// name, right above the period header.
    #[test]
    fn a_bold_title_beside_the_issuers_name_is_the_caption_not_a_header_cell() {
        let mut title = line(
            722.1,
            &[
                (17.0, 164.0, "Consolidated Statements of Cash Flows"),
                (
                    408.0,
                    593.0,
                    "Corning Incorporated and Subsidiary Companies",
                ),
            ],
        );
        title.bold = true;
        let mut lines = vec![
            title,
            line(705.3, &[(454.0, 538.0, "Year ended December 31,")]),
            line(
                694.6,
                &[
                    (17.0, 58.0, "(In millions)"),
                    (421.0, 437.0, "2020"),
                    (490.0, 506.0, "2019"),
                    (556.0, 572.0, "2018"),
                ],
            ),
            line(
                673.1,
                &[
                    (28.0, 65.0, "Net income"),
                    (399.0, 403.0, "$"),
                    (445.0, 457.0, "512"),
                    (468.0, 472.0, "$"),
                    (513.0, 525.0, "960"),
                    (536.0, 540.0, "$"),
                    (573.0, 591.0, "1,066"),
                ],
            ),
            line(
                651.6,
                &[
                    (38.0, 80.0, "Depreciation"),
                    (439.0, 457.0, "1,399"),
                    (507.0, 525.0, "1,390"),
                    (573.0, 591.0, "1,199"),
                ],
            ),
        ];
        assert_eq!(rewrite_tables(&mut lines), 1);
        assert_eq!(
            lines[0].text,
            "Consolidated Statements of Cash Flows Corning Incorporated and Subsidiary Companies"
        );
        assert!(!lines[0].in_table);
        assert!(
            lines[1]
                .text
                .starts_with("| (In millions) | Year ended December 31, 2020"),
            "{:?}",
            texts(&lines)
        );
    }

    #[test]
    fn titles_in_words_are_captions_when_bold() {
        for t in [
            "Consolidated Balance Sheets",
            "Consolidated Statements of Cash Flows",
            "Selected Income Statement Data",
        ] {
            assert!(is_title(t), "{t}");
        }
        for t in [
            "Fiscal Years Ended",
            "Current assets",
            "$ in millions, except per share and share amounts",
            "(In millions)",
            "February 2, 2019",
            "Assets",
        ] {
            assert!(!is_title(t), "{t}");
        }
    }

    #[test]
    fn figures_and_periods() {
        for f in [
            "$ 213,883",
            "(1,252)",
            "—",
            "12.5%",
            "$ (8,766)",
            "4,443,265",
            "0.7",
            "(0.3)%",
        ] {
            assert!(is_figure(f), "{f}");
        }
        for t in ["Products", "2019 Plan", "Item 1.", "$0.10 par value"] {
            assert!(!is_figure(t), "{t}");
        }
        assert!(is_period("2019") && is_period("Dec 26, 2020") && is_period("September 28,"));
        assert!(!is_period("213,883"));
    }
}
