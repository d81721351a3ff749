//! Pipe tables in a node's text (GFM tables in Markdown, the tables the PDF parser rewrites):
//! which header a line of a table's body belongs to, so a read that starts inside a table — a
//! `cat path:N-M`, a page read on with `-o`, a `grep` hit, a piece of evidence — can carry the
//! header with it (`| Years ended | September 28, 2019 | … |` above `| Total net sales |
//! 260,174 | … |`), and a figure never loses the column that says what it is.
//!
//! A table is a run of lines starting with `|` whose second line is a delimiter row (only `|`,
//! `-`, `:` and spaces, at least one `-`). Tables without leading pipes are not recognised.

/// The header of the table a line belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableHeader<'a> {
    /// 1-based number of the header line in the text.
    pub line: usize,
    /// The header line, without its line break.
    pub text: &'a str,
}

impl TableHeader<'_> {
    /// The header as a read shows it above lines cut from the table: `[table header, line 3]
    /// | Years ended | 2019 | 2018 |`.
    pub fn label(&self) -> String {
        format!("[table header, line {}] {}", self.line, self.text)
    }
}

fn is_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// True for a delimiter row: `| --- | ---: |`.
pub fn is_delimiter(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The header of the table whose body holds byte offset `at` of `text` (the line holding `at`
/// is a row below the delimiter row), or `None` when `at` is outside a table's body (in prose,
/// on the header or delimiter row itself, past the end, or the header row holds no words).
/// Linear in the lines above `at` up to
/// the table's start.
pub fn header_at(text: &str, at: usize) -> Option<TableHeader<'_>> {
    if at > text.len() {
        return None;
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let here = &text[start..end];
    if !is_row(here) || is_delimiter(here) {
        return None;
    }
    // Walk up through the table's rows, remembering the two lines above the current one.
    let mut lines_above = text[..start].lines().rev();
    let mut below = here;
    let mut distance = 0usize;
    for line in lines_above.by_ref() {
        distance += 1;
        if is_delimiter(below) {
            // `line` is the header; `below` the delimiter.
            // A header without words tells nothing.
            if !is_row(line) || !line.chars().any(char::is_alphanumeric) {
                return None;
            }
            let header_line = text[..start].lines().count() - distance + 1;
            return Some(TableHeader {
                line: header_line,
                text: line,
            });
        }
        if !is_row(line) {
            return None;
        }
        below = line;
    }
    None
}

/// For each line of `text` (split at `\n`, as `text.split('\n')` gives them), the 0-based
/// index of the header line of the table whose body holds it, or `None` outside a table's body
/// (prose, a header or delimiter row, a table whose header holds no words): what
/// [`header_at`] says of each line, in one pass.
pub fn body_headers(text: &str) -> Vec<Option<usize>> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = vec![None; lines.len()];
    let mut header: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if header.is_some() && is_row(line) && !is_delimiter(line) {
            out[i] = header;
            i += 1;
            continue;
        }
        header = None;
        let opens = is_row(line)
            && !is_delimiter(line)
            && lines.get(i + 1).is_some_and(|next| is_delimiter(next));
        if opens {
            header = line.chars().any(char::is_alphanumeric).then_some(i);
            i += 2;
            continue;
        }
        i += 1;
    }
    out
}

/// The 1-based line of `text` holding byte offset `at`.
pub fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "CONSOLIDATED STATEMENTS OF OPERATIONS\n\
(In millions)\n\
\n\
| Years ended | 2019 | 2018 |\n\
| --- | ---: | ---: |\n\
| Net sales: | | |\n\
| Total net sales | 260,174 | 265,595 |\n\
\n\
See accompanying Notes.\n";

    fn at_line(n: usize) -> usize {
        TEXT.split_inclusive('\n').take(n - 1).map(str::len).sum()
    }

    /// One pass agrees with `header_at` on every line.
    #[test]
    fn body_headers_agree_with_header_at() {
        let text =
            format!("{TEXT}\n| a | b |\n| - | - |\n| 1 | 2 |\n|  |  |\n| - | - |\n| 3 | 4 |\n");
        let mut at = 0;
        let headers = body_headers(&text);
        for (i, line) in text.split('\n').enumerate() {
            let want = header_at(&text, at).map(|h| h.line - 1);
            assert_eq!(headers[i], want, "line {i}: {line}");
            at += line.len() + 1;
        }
        assert_eq!(headers[6], Some(3));
    }

    #[test]
    fn a_body_row_finds_its_header() {
        let h = header_at(TEXT, at_line(7) + 5).unwrap();
        assert_eq!(h.line, 4);
        assert_eq!(h.text, "| Years ended | 2019 | 2018 |");
        assert_eq!(
            h.label(),
            "[table header, line 4] | Years ended | 2019 | 2018 |"
        );
        assert_eq!(header_at(TEXT, at_line(6)).unwrap().line, 4);
        assert_eq!(line_of(TEXT, at_line(7)), 7);
    }

    #[test]
    fn prose_the_header_and_the_delimiter_have_none() {
        for line in [1, 2, 3, 4, 5, 8, 9] {
            assert_eq!(header_at(TEXT, at_line(line)), None, "line {line}");
        }
        assert_eq!(header_at(TEXT, TEXT.len() + 1), None);
        // Rows without a delimiter row above them are no table.
        assert_eq!(header_at("| a | b |\n| c | d |\n", 10), None);
    }
}
