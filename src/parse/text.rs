//! Plain-text parser (DESIGN.md §2): numbered heading lines ("3.2 Title") make sections, all other
//! lines are content kept verbatim.
//!
//! A line is a heading only when it is conservative enough that ordinary sentences starting with
//! a number are not: see [`numbered_heading`]. The level is the number of numeric components
//! (`3` → 1, `3.2` → 2, `3.18.` → 2).

use super::markdown::lines::to_u32;
use super::DocFormat;
use super::{ParsedDoc, RawSection};

/// Longest heading line, in chars.
const MAX_HEADING_CHARS: usize = 80;
/// Most digits in one numeric component (`2024 Budget` is a sentence, not chapter 2024).
const MAX_COMPONENT_DIGITS: usize = 3;

/// Parse plain `text` into a [`ParsedDoc`] (format Text). Never fails and never panics.
///
/// A line is a section heading when [`numbered_heading`] accepts it, the line before it is blank
/// (or it is the first line) and the line after it is blank (or it is the last line). Section
/// `content` is the verbatim text from the line after the heading up to the next heading;
/// `lines` are 1-based, end exclusive; text before the first heading is the `preamble`. Without
/// headings the whole text is the preamble. `source_units` is the number of lines.
pub fn parse_text(text: &str) -> ParsedDoc {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // (byte offset, line without its line ending) of every line.
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        lines.push((offset, raw.trim_end_matches(['\n', '\r'])));
        offset += raw.len();
    }
    let blank = |i: usize| lines.get(i).is_none_or(|(_, l)| l.trim().is_empty());
    // (index of heading line, level, title)
    let mut heads: Vec<(usize, u32, String)> = Vec::new();
    for (i, (_, line)) in lines.iter().enumerate() {
        let blank_before = i == 0 || blank(i - 1);
        if !blank_before || !blank(i + 1) {
            continue;
        }
        if let Some((level, title)) = numbered_heading(line) {
            heads.push((i, level, title));
        }
    }

    let line_count = to_u32(lines.len());
    let end_line = line_count.saturating_add(1);
    let offset_of = |i: usize| lines.get(i).map_or(text.len(), |(o, _)| *o);
    let line_no = |i: usize| to_u32(i).saturating_add(1);
    let first = heads.first().map_or(lines.len(), |h| h.0);
    let preamble = RawSection {
        level: 0,
        title: String::new(),
        content: text[..offset_of(first)].to_string(),
        content_first_line: Some(1),
        source_marks: Vec::new(),
        page_marks: Vec::new(),
        lines: Some(1..line_no(first).min(end_line)),
        pages: None,
        anchor: None,
        ids: Vec::new(),
        links: Vec::new(),
    };
    let sections = heads
        .iter()
        .enumerate()
        .map(|(n, (i, level, title))| {
            let next = heads.get(n + 1).map_or(lines.len(), |h| h.0);
            RawSection {
                level: *level,
                title: title.clone(),
                content: text[offset_of(i + 1)..offset_of(next)].to_string(),
                content_first_line: Some(line_no(i + 1)),
                source_marks: Vec::new(),
                page_marks: Vec::new(),
                lines: Some(line_no(*i)..line_no(next)),
                pages: None,
                anchor: None,
                ids: Vec::new(),
                links: Vec::new(),
            }
        })
        .collect();
    ParsedDoc {
        format: DocFormat::Text,
        title: None,
        metadata: Vec::new(),
        preamble,
        sections,
        pages_without_text: Vec::new(),
        source_units: line_count,
        warnings: Vec::new(),
    }
}

/// `Some((level, title))` when `line` looks like a numbered heading: optional indent of up to 3
/// spaces, numeric components of 1–3 digits separated by `.` (an optional final `.`), whitespace,
/// then a title that starts with an uppercase letter or `/`, holds a letter, does not end with
/// `.`, `,`, `;` or `:`, with the whole line under 80 chars. Examples: `3.2 Title`,
/// `1 Getting started`, `3.18. /tmp : Temporary files`. The title keeps the number
/// (`3.2 Title`), which is how readers cite such sections; whitespace is collapsed.
pub fn numbered_heading(line: &str) -> Option<(u32, String)> {
    if line.chars().count() >= MAX_HEADING_CHARS {
        return None;
    }
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let trimmed = trimmed.trim_end();
    let number_end = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let number = &trimmed[..number_end];
    let rest = &trimmed[number_end..];
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let components: Vec<&str> = number
        .strip_suffix('.')
        .unwrap_or(number)
        .split('.')
        .collect();
    let valid_number = components
        .iter()
        .all(|c| !c.is_empty() && c.len() <= MAX_COMPONENT_DIGITS);
    if !valid_number {
        return None;
    }
    let title = rest.trim();
    let starts_well = title
        .chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c == '/');
    let ends_well = !title.ends_with(['.', ',', ';', ':']);
    if !starts_well || !ends_well || !title.chars().any(char::is_alphabetic) {
        return None;
    }
    let title: Vec<&str> = trimmed.split_whitespace().collect();
    Some((to_u32(components.len()), title.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn numbered_heading_accepts_headings_and_rejects_sentences() {
        let yes = [
            ("3.2 Title", 2, "3.2 Title"),
            ("1 Getting started", 1, "1 Getting started"),
            (
                "3.18. /tmp : Temporary files",
                2,
                "3.18. /tmp : Temporary files",
            ),
            ("  2.1.4   Über   alles", 3, "2.1.4 Über alles"),
        ];
        for (line, level, title) in yes {
            assert_eq!(
                numbered_heading(line),
                Some((level, title.to_string())),
                "{line}"
            );
        }
        let no = [
            "3 apples were eaten",
            "2 Sentences end with a period.",
            "10 Items follow:",
            "2024 Annual report",
            "1.2",
            "3.2Title",
            "    3.2 Indented code",
            "1. 2. 3.",
            "v1.2 Release",
            "..1 Dots",
            "1..2 Dots",
            &format!("1 {}", "Long ".repeat(20)),
        ];
        for line in no {
            assert_eq!(numbered_heading(line), None, "{line}");
        }
    }

    #[test]
    fn sections_need_blank_lines_around_the_heading() {
        let text = "Intro line\n\n1 First\n\nbody one\n2 Not a heading\n\n1.1 Sub\n\nbody\n";
        let doc = parse_text(text);
        assert_eq!(doc.preamble.content, "Intro line\n\n");
        assert_eq!(doc.preamble.lines, Some(1..3));
        let got: Vec<_> = doc
            .sections
            .iter()
            .map(|s| {
                (
                    s.level,
                    s.title.as_str(),
                    s.lines.clone().unwrap(),
                    s.content.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "1 First", 3..8, "\nbody one\n2 Not a heading\n\n"),
                (2, "1.1 Sub", 8..11, "\nbody\n"),
            ]
        );
        assert_eq!(doc.sections[1].content_first_line, Some(9));
        assert_eq!(doc.source_units, 10);
    }

    #[test]
    fn no_headings_is_one_root() {
        let doc = parse_text("just prose\n3 apples\n");
        assert!(doc.sections.is_empty());
        assert_eq!(doc.preamble.content, "just prose\n3 apples\n");
        assert_eq!(doc.preamble.lines, Some(1..3));
        let doc = parse_text("");
        assert_eq!((doc.source_units, doc.preamble.lines), (0, Some(1..1)));
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_tiles_the_text(text in "(\\PC{0,12}|[0-9. ]{0,6}[A-Za-z/ ]{0,8}|\n){0,30}") {
            let doc = parse_text(&text);
            let joined: String = std::iter::once(doc.preamble.content.as_str())
                .chain(doc.sections.iter().map(|s| s.content.as_str()))
                .collect();
            // Content plus heading lines cover the text: only heading lines are missing.
            proptest::prop_assert!(joined.len() <= text.len());
            let mut line = doc.preamble.lines.clone().unwrap().end;
            for s in &doc.sections {
                let lines = s.lines.clone().unwrap();
                proptest::prop_assert_eq!(lines.start, line);
                line = lines.end;
            }
            proptest::prop_assert_eq!(line, doc.source_units + 1);
        }
    }
}
