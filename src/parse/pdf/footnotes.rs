//! Footnotes: taken out of the running text at the page bottom and kept, marked, with the line
//! that refers to them, so a section shows them after its own text (`[^3]: text`, the form the
//! DOCX parser writes) instead of in the middle of a sentence continued on the next page.
//!
//! The rule, read off the corpus PDFs (texinfo's R-intro and bashref, Sphinx's debian-policy,
//! fhs-3.0, LaTeX's glpk):
//! 1. The *small run* of a page is its lowest lines, taken upwards while their font size is at
//!    most [`SMALL_SIZE_RATIO`] of the body size (the size most characters of the document
//!    are set in). Running footers and page numbers are already gone ([`super::furniture`]).
//! 2. A footnote starts at a line of the small run that begins with a mark — one to three
//!    digits or a symbol `*†‡§¶` ([`super::text::is_mark`]), then a space or a letter
//!    (`1 For portable`, `9Found`; never `1:` nor `2.5`) — when that same mark is set raised
//!    and smaller after other text on a line of the page above it ([`TextLine::marks`]): the
//!    reference. The highest such line opens the footnote area; every line of the run below
//!    it belongs to the area.
//! 3. In the area, a line starting with another referenced mark starts the next footnote;
//!    any other line continues the current one (a footnote's second line, its own paragraphs
//!    and lists).
//!
//! Requiring the reference keeps small-type body text in place: glpk's solver logs at the page
//! bottom (`1: obj = …`, `2: obj = …`) and fhs's copyright notice are never taken, nor is an
//! index or a caption. Each footnote is attached to the line holding its reference, whose mark
//! becomes `[^N]` (the space the extractor put before it dropped); the footnote's text is
//! `[^N]: ` and its lines, one per line as in the running text. A footnote continued from the previous page (no
//! mark at the top of the small run) stays where it is, in the running text: never lost.

use std::collections::HashMap;

use super::text::{is_mark, TextLine, FOOTNOTE_SIZE_RATIO};

/// A line at most this fraction of the body font size is small type (footnotes are set 1–3
/// points smaller: 8 / 10 in fhs and debian-policy, 9 / 11 in texinfo manuals).
pub const SMALL_SIZE_RATIO: f32 = 0.92;

/// Move footnotes from the page bottoms of `pages` to the lines that refer to them (see the
/// module doc). Out: the number of footnotes moved.
pub fn separate_footnotes(pages: &mut [Vec<TextLine>]) -> usize {
    let Some(body) = body_size(pages) else {
        return 0;
    };
    pages
        .iter_mut()
        .map(|lines| separate_page(lines, body))
        .sum()
}

/// The font size (points, to a tenth) most characters of `pages` are set in.
fn body_size(pages: &[Vec<TextLine>]) -> Option<f32> {
    let mut chars: HashMap<i32, usize> = HashMap::new();
    for line in pages.iter().flatten() {
        // Rounded to a tenth of a point so sizes a float rounding apart count together.
        *chars.entry((line.size * 10.0).round() as i32).or_default() += line.text.len();
    }
    chars
        .into_iter()
        .max_by_key(|&(size, n)| (n, size))
        .map(|(size, _)| size as f32 / 10.0)
}

/// `text`'s leading footnote mark and the text after it, when `text` starts with one (not `0`)
/// followed by a space or a letter and more text.
fn leading_mark(text: &str) -> Option<(&str, &str)> {
    let end = text
        .char_indices()
        .find(|&(_, c)| c.is_whitespace() || c.is_alphabetic() || !is_mark(&c.to_string()))
        .map_or(text.len(), |(i, _)| i);
    let (mark, rest) = text.split_at(end);
    let ok = is_mark(mark)
        && mark != "0"
        && (rest.starts_with(char::is_whitespace) || rest.starts_with(char::is_alphabetic));
    ok.then(|| (mark, rest.trim_start()))
        .filter(|(_, r)| !r.is_empty())
}

/// One page: find the footnote area, attach each footnote to its reference line, drop the
/// area's lines. Out: footnotes moved.
fn separate_page(lines: &mut Vec<TextLine>, body: f32) -> usize {
    // Lines from the bottom up (a higher baseline is higher on the page).
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| lines[a].y.total_cmp(&lines[b].y));
    let run_len = order
        .iter()
        .take_while(|&&i| lines[i].size <= SMALL_SIZE_RATIO * body)
        .count();
    if run_len == 0 || run_len == lines.len() {
        return 0;
    }
    let run = &order[..run_len];
    let leading: Vec<String> = run
        .iter()
        .filter_map(|&i| leading_mark(&lines[i].text).map(|(m, _)| m.to_string()))
        .collect();
    for &i in &order[run_len..] {
        split_marks(&mut lines[i], &leading, body);
    }
    // The reference of mark `m` for a footnote line at height `y`: the lowest line above `y`,
    // outside the run, carrying `m` as a raised mark.
    let reference = |m: &str, y: f32| -> Option<usize> {
        order[run_len..]
            .iter()
            .copied()
            .filter(|&i| lines[i].y > y && lines[i].marks.iter().any(|(_, k)| k == m))
            .min_by(|&a, &b| lines[a].y.total_cmp(&lines[b].y))
    };
    // The area opens at the highest run line with a referenced mark.
    let Some(top) = (0..run_len).rev().find(|&k| {
        leading_mark(&lines[run[k]].text)
            .is_some_and(|(m, _)| reference(m, lines[run[k]].y).is_some())
    }) else {
        return 0;
    };
    // Top to bottom through the area: each referenced mark starts a footnote.
    let mut notes: Vec<(usize, String, String)> = Vec::new(); // reference line, mark, text
    for &i in run[..=top].iter().rev() {
        let text = lines[i].text.as_str();
        let start = leading_mark(text).and_then(|(m, rest)| {
            let taken = notes.iter().any(|(_, k, _)| k == m);
            let at = reference(m, lines[run[top]].y)?;
            (!taken).then(|| (at, m.to_string(), rest.to_string()))
        });
        match (start, notes.last_mut()) {
            (Some(note), _) => notes.push(note),
            (None, Some((_, _, body))) => {
                body.push('\n');
                body.push_str(text);
            }
            (None, None) => {}
        }
    }
    let area: Vec<usize> = run[..=top].to_vec();
    let count = notes.len();
    for (at, mark, text) in notes {
        mark_reference(&mut lines[at], &mark);
        lines[at].notes.push(format!("[^{mark}]: {text}"));
    }
    let mut keep = (0..lines.len()).map(|i| !area.contains(&i));
    lines.retain(|_| keep.next().unwrap_or(true));
    count
}

/// Prepare `line`'s marks for matching: a line that is only a mark, in type at most
/// [`FOOTNOTE_SIZE_RATIO`] of the body size, is that mark (fhs-3.0 sets some references a
/// line of their own); a mark made of two of the page's footnote marks (`23` when footnotes
/// `2` and `3` start lines in `leading`: debian-policy's `hard links,23`) is split in two.
fn split_marks(line: &mut TextLine, leading: &[String], body: f32) {
    if line.marks.is_empty() && line.size <= FOOTNOTE_SIZE_RATIO * body && is_mark(&line.text) {
        line.marks.push((0, line.text.clone()));
        return;
    }
    let is_leading = |m: &str| leading.iter().any(|l| l == m);
    let mut out = Vec::with_capacity(line.marks.len());
    for (at, mark) in std::mem::take(&mut line.marks) {
        let split = (1..mark.len())
            .filter(|&k| mark.is_char_boundary(k))
            .map(|k| mark.split_at(k))
            .find(|(a, b)| is_leading(a) && is_leading(b) && !is_leading(&mark));
        match split {
            Some((a, b)) => {
                let lead = line.text[at..].len() - line.text[at..].trim_start().len();
                out.push((at, a.to_string()));
                out.push((at + lead + a.len(), b.to_string()));
            }
            None => out.push((at, mark)),
        }
    }
    line.marks = out;
}

/// Write the first raised `mark` of `line` as `[^mark]`, dropping the spaces before it.
fn mark_reference(line: &mut TextLine, mark: &str) {
    let Some(k) = line.marks.iter().position(|(_, m)| m == mark) else {
        return;
    };
    let (at, _) = line.marks.remove(k);
    let rest = &line.text[at..];
    let lead = rest.len() - rest.trim_start().len();
    if !rest[lead..].starts_with(mark) {
        return;
    }
    let end = at + lead + mark.len();
    // Space before a reference is the extractor's or the typesetter's, never the author's.
    let at = line.text[..at].trim_end().len();
    let replacement = format!("[^{mark}]");
    let delta = replacement.len() as isize - (end - at) as isize;
    line.text.replace_range(at..end, &replacement);
    for (other, _) in &mut line.marks {
        if *other > at {
            *other = other.saturating_add_signed(delta);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f32, size: f32, text: &str, marks: &[(usize, &str)]) -> TextLine {
        TextLine {
            text: text.into(),
            x: 72.0,
            y,
            size,
            marks: marks.iter().map(|&(at, m)| (at, m.to_string())).collect(),
            ..TextLine::default()
        }
    }

    #[test]
    fn leading_marks_need_a_space_or_a_letter_after_them() {
        assert_eq!(leading_mark("1 For portable"), Some(("1", "For portable")));
        assert_eq!(leading_mark("9Found at"), Some(("9", "Found at")));
        assert_eq!(leading_mark("12 /etc/X11"), Some(("12", "/etc/X11")));
        assert_eq!(
            leading_mark("* Corresponding"),
            Some(("*", "Corresponding"))
        );
        assert_eq!(leading_mark("1: obj = 9.2"), None);
        assert_eq!(leading_mark("2.5 inches"), None);
        assert_eq!(leading_mark("1234 rows"), None);
        assert_eq!(leading_mark("3"), None);
        assert_eq!(leading_mark("Text"), None);
    }

    #[test]
    fn a_referenced_footnote_moves_to_its_reference_line() {
        let mut pages = vec![vec![
            line(700.0, 10.0, "Body text with a note 1 and", &[(21, "1")]),
            line(688.0, 10.0, "more body text on the page", &[]),
            line(100.0, 8.0, "1 The note, which runs on to a", &[]),
            line(90.0, 8.0, "second line.", &[]),
        ]];
        assert_eq!(separate_footnotes(&mut pages), 1);
        let texts: Vec<&str> = pages[0].iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "Body text with a note[^1] and",
                "more body text on the page"
            ]
        );
        assert_eq!(
            pages[0][0].notes,
            vec!["[^1]: The note, which runs on to a\nsecond line.".to_string()]
        );
    }

    #[test]
    fn small_type_without_a_reference_stays() {
        let mut pages = vec![vec![
            line(700.0, 10.0, "Body text, no raised marks", &[]),
            line(100.0, 8.0, "1 numbered line of a small listing", &[]),
            line(90.0, 8.0, "2 and its second line", &[]),
        ]];
        let before = pages.clone();
        assert_eq!(separate_footnotes(&mut pages), 0);
        assert_eq!(pages, before);
    }
}
