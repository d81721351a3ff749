//! A section's text as the Reader's formatted HTML: Markdown through pulldown-cmark, then the
//! ammonia sanitizer, one top-level block at a time.
//!
//! Why per block: each block is wrapped in `<div class="block" data-line="A" data-last="B"
//! data-from="C" data-to="D">` (source lines `A..=B` of the section's whole text, the
//! `path:N` numbering `grep` prints, and its chars `C..D`), so a `#2.1@N` link or a grep hit
//! scrolls to the block holding line N and an evidence span (`?mark=`) marks the blocks it
//! covers. The wrapper's attributes are numbers written here; only a block's inside comes from
//! the document, and that inside always goes through ammonia.
//!
//! Never raw HTML from a document: raw HTML (blocks and inline) is turned into text before
//! rendering, so `<script>` shows as `<script>`; images become their alt text (a document
//! must not make the browser fetch anything); links keep only absolute `http`, `https` and
//! `mailto` targets (ammonia's scheme list, relative links dropped: they would leave the
//! Reader), with `rel="noopener noreferrer"`.
//!
//! PDF text (visual lines, tables already as pipe tables when the extractor found them)
//! keeps its line breaks, and a paragraph most of whose lines hold columns separated by runs of
//! spaces is preformatted so the columns stay aligned. Plain text is paragraphs with their line
//! breaks; only the `#` headings the tree writes are headings.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use crate::nav::render::for_display;
use crate::tree::DocFormat;

/// Where a section's text page sits in the whole text, and the page marks to show.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    /// 1-based line of the whole text the page starts on.
    pub first_line: usize,
    /// Chars of the whole text before the page.
    pub first_char: usize,
    /// `(line, label)`: a heading on that line of the whole text gets the label (`pages 3–5`)
    /// shown before it.
    pub page_marks: Vec<(usize, String)>,
}

/// `text` (one page of a section's text, as `cat` reads it) as sanitized HTML blocks, each
/// wrapped as the module describes. `format` is the document's: it picks Markdown, PDF or
/// plain-text rendering. Never fails: any input renders, at worst as escaped text.
pub fn section_html(text: &str, format: DocFormat, at: &Placement) -> String {
    let blocks = match format {
        DocFormat::Text => plain_blocks(text),
        DocFormat::Pdf => markdown_blocks(text, true),
        _ => markdown_blocks(text, false),
    };
    let lines = LineIndex::new(text);
    let sanitizer = sanitizer();
    let mut out = String::with_capacity(text.len() * 3 / 2);
    let mut chars = CharCursor::default();
    for (range, html) in blocks {
        let first = at.first_line + lines.line_of(range.start);
        let last = at.first_line + lines.line_of(range.end.saturating_sub(1).max(range.start));
        let from = at.first_char + chars.chars_to(text, range.start);
        let to = at.first_char + chars.chars_to(text, range.end);
        let (class, html) = match html.strip_prefix(ROWS) {
            Some(rest) => ("block rows", rest),
            None => ("block", html.as_str()),
        };
        out.push_str(&format!(
            "<div class=\"{class}\" data-line=\"{first}\" data-last=\"{last}\" data-from=\"{from}\" data-to=\"{to}\">"
        ));
        if let Some((_, label)) = at.page_marks.iter().find(|(l, _)| *l == first) {
            if html.starts_with("<h") {
                out.push_str("<p class=\"page-mark\">");
                out.push_str(&escape(label));
                out.push_str("</p>");
            }
        }
        out.push_str(&sanitizer.clean(html).to_string());
        out.push_str("</div>\n");
    }
    out
}

/// Marks a PDF paragraph of columns (preformatted; its wrapper gets the class `rows`).
const ROWS: &str = "\u{0}rows";

fn sanitizer() -> ammonia::Builder<'static> {
    let mut b = ammonia::Builder::default();
    b.add_tag_attributes("th", ["align"])
        .add_tag_attributes("td", ["align"])
        .url_relative(ammonia::UrlRelative::Deny)
        .rm_tags(["img"])
        .link_rel(Some("noopener noreferrer"));
    b
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Top-level Markdown blocks of `text`: byte range and unsanitized HTML.
fn markdown_blocks(text: &str, pdf: bool) -> Vec<(Range<usize>, String)> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    let mut paragraph = false;
    let mut events: Vec<Event> = Vec::new();
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        let opens = matches!(event, Event::Start(_));
        let closes = matches!(event, Event::End(_));
        if depth == 0 {
            start = range.start;
            paragraph = matches!(event, Event::Start(Tag::Paragraph));
        }
        if opens {
            depth += 1;
        } else if closes {
            depth = depth.saturating_sub(1);
        }
        events.extend(inert(event));
        if depth == 0 {
            // A block's range ends at its last char, not at the blank lines after it.
            let end = start + text[start..range.end.max(start)].trim_end().len();
            let source = &text[start..end];
            let html = if pdf && paragraph && is_columns(source) {
                format!("{ROWS}<pre>{}</pre>", escape(&for_display(source)))
            } else {
                if pdf {
                    pdf_line_breaks(&mut events);
                }
                let mut html = String::new();
                pulldown_cmark::html::push_html(&mut html, events.drain(..));
                // The page's CSP refuses style attributes: a column's alignment as `align`.
                for side in ["left", "center", "right"] {
                    html = html.replace(
                        &format!(" style=\"text-align: {side}\""),
                        &format!(" align=\"{side}\""),
                    );
                }
                html
            };
            events.clear();
            blocks.push((start..end, html));
        }
    }
    blocks
}

/// `event` with nothing of the document's own markup left live: raw HTML as text (an HTML
/// block as a code block), images as `[image: alt]`, control and bidi characters as visible
/// escapes ([`for_display`]).
fn inert(event: Event<'_>) -> Vec<Event<'_>> {
    match event {
        Event::Html(s) | Event::InlineHtml(s) | Event::Text(s) => vec![Event::Text(shown(s))],
        Event::Code(s) => vec![Event::Code(shown(s))],
        Event::Start(Tag::HtmlBlock) => vec![Event::Start(Tag::CodeBlock(CodeBlockKind::Indented))],
        Event::End(TagEnd::HtmlBlock) => vec![Event::End(TagEnd::CodeBlock)],
        Event::Start(Tag::Image { .. }) => vec![Event::Text("[image: ".into())],
        Event::End(TagEnd::Image) => vec![Event::Text("]".into())],
        e => vec![e],
    }
}

fn shown(text: CowStr<'_>) -> CowStr<'_> {
    match for_display(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(s) => s.into(),
    }
}

/// A PDF paragraph's line ends: where a line starts a bullet or the line before ends a
/// sentence, the break is kept (a hard break); elsewhere the visual line is joined to the next,
/// so wrapped sentences read as one.
fn pdf_line_breaks(events: &mut [Event<'_>]) {
    const BULLETS: &[char] = &['•', '●', '▪', '◦', '■', '–', '-', '*', '·'];
    const ENDS: &[char] = &['.', ':', '!', '?', '”', '"', ';'];
    for i in 0..events.len() {
        if !matches!(events[i], Event::SoftBreak) {
            continue;
        }
        let before = events[..i].iter().rev().find_map(|e| match e {
            Event::Text(t) | Event::Code(t) => t.trim_end().chars().last(),
            _ => None,
        });
        let after = events[i + 1..].iter().find_map(|e| match e {
            Event::Text(t) | Event::Code(t) => t.trim_start().chars().next(),
            _ => None,
        });
        let keep = after.is_some_and(|c| BULLETS.contains(&c))
            || before.is_some_and(|c| ENDS.contains(&c));
        if keep {
            events[i] = Event::HardBreak;
        }
    }
}

/// Whether most lines of a PDF paragraph are columns (text, a run of 2+ spaces, text).
fn is_columns(source: &str) -> bool {
    let lines: Vec<&str> = source.lines().filter(|l| !l.trim().is_empty()).collect();
    let columns = lines
        .iter()
        .filter(|l| l.trim().contains("  ") && !l.trim_start().starts_with('|'))
        .count();
    !lines.is_empty() && columns * 2 >= lines.len()
}

/// Plain text: blank-line separated paragraphs with their line breaks; a paragraph that is one
/// `#` line (the headings the tree writes) is a heading.
fn plain_blocks(text: &str) -> Vec<(Range<usize>, String)> {
    let mut blocks = Vec::new();
    let mut para: Option<Range<usize>> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n').chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if let Some(range) = para.take() {
                let end = range.start + text[range.clone()].trim_end().len();
                blocks.push((range.start..end, plain_html(&text[range.start..end])));
            }
        } else {
            para = Some(para.map_or(at..at + line.len(), |p| p.start..at + line.len()));
        }
        at += line.len();
    }
    blocks
}

fn plain_html(body: &str) -> String {
    let hashes = body.bytes().take_while(|&b| b == b'#').count();
    if !body.trim_end().contains('\n')
        && (1..=6).contains(&hashes)
        && body[hashes..].starts_with(' ')
    {
        return format!(
            "<h{hashes}>{}</h{hashes}>",
            escape(&for_display(body[hashes..].trim()))
        );
    }
    let lines: Vec<String> = body.lines().map(|l| escape(&for_display(l))).collect();
    format!("<p>{}</p>", lines.join("<br>\n"))
}

/// Byte offset → 0-based line.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        LineIndex(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        )
    }

    fn line_of(&self, byte: usize) -> usize {
        self.0.partition_point(|&nl| nl < byte)
    }
}

/// Byte offset → chars before it, for increasing offsets (one pass over the text).
#[derive(Default)]
struct CharCursor {
    byte: usize,
    chars: usize,
}

impl CharCursor {
    fn chars_to(&mut self, text: &str, byte: usize) -> usize {
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        self.chars += text[self.byte..byte].chars().count();
        self.byte = byte;
        self.chars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_line(first_line: usize) -> Placement {
        Placement {
            first_line,
            ..Placement::default()
        }
    }

    #[test]
    fn each_markdown_block_is_wrapped_with_its_lines_and_chars() {
        let text = "# Title\n\nA *para*\nwrapped.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode <x>\n```\n";
        let html = section_html(text, DocFormat::Markdown, &at_line(10));
        let blocks: Vec<&str> = html.lines().collect();
        assert_eq!(
            blocks,
            [
                "<div class=\"block\" data-line=\"10\" data-last=\"10\" data-from=\"0\" data-to=\"7\"><h1>Title</h1>",
                "</div>",
                "<div class=\"block\" data-line=\"12\" data-last=\"13\" data-from=\"9\" data-to=\"26\"><p>A <em>para</em>",
                "wrapped.</p>",
                "</div>",
                "<div class=\"block\" data-line=\"15\" data-last=\"16\" data-from=\"28\" data-to=\"39\"><ul>",
                "<li>one</li>",
                "<li>two</li>",
                "</ul>",
                "</div>",
                "<div class=\"block\" data-line=\"18\" data-last=\"20\" data-from=\"41\" data-to=\"70\"><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>",
                "<tr><td>1</td><td>2</td></tr>",
                "</tbody></table>",
                "</div>",
                "<div class=\"block\" data-line=\"22\" data-last=\"24\" data-from=\"72\" data-to=\"88\"><pre><code>code &lt;x&gt;",
                "</code></pre>",
                "</div>",
            ]
        );
    }

    #[test]
    fn hostile_markdown_comes_out_inert() {
        let text = "# <script>alert(1)</script> T\n\n<div onclick=alert(2)>raw block</div>\n\n\
                    Hi <b onmouseover=alert(3)>b</b> [x](javascript:alert(4)) [y](#frag) \
                    [z](https://example.org/) ![alt](http://evil/x.png) \u{202e}rev\n";
        let html = section_html(text, DocFormat::Markdown, &at_line(1));
        for live in [
            "<script",
            "<div onclick",
            "<b ",
            "javascript:",
            "<img",
            "href=\"#frag\"",
            "\u{202e}",
        ] {
            assert!(!html.contains(live), "{live} in {html}");
        }
        // Shown as text instead, and the safe link kept.
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("<pre><code>&lt;div onclick=alert(2)&gt;raw block&lt;/div&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;b onmouseover=alert(3)&gt;b&lt;/b&gt;"),
            "{html}"
        );
        assert!(html.contains("[image: alt]"), "{html}");
        assert!(html.contains("\\u{202e}rev"), "{html}");
        assert!(
            html.contains("<a href=\"https://example.org/\" rel=\"noopener noreferrer\">z</a>"),
            "{html}"
        );
    }

    #[test]
    fn pdf_text_keeps_its_lines_columns_and_page_marks() {
        let text = "# Results\n\nFirst line\nsecond line.\n• A bullet\n• wrapped\nover two\n\nQuarters Ended  2023  2022\nRevenue  10.3  9.7\n\n| a | b |\n| --- | ---: |\n| x | 1 |\n";
        let at = Placement {
            first_line: 1,
            first_char: 0,
            page_marks: vec![(1, "pages 2–3".to_string())],
        };
        let html = section_html(text, DocFormat::Pdf, &at);
        assert!(
            html.contains("<p class=\"page-mark\">pages 2–3</p><h1>Results</h1>"),
            "{html}"
        );
        // A wrapped line joins the next; a sentence's end or a bullet keeps its break.
        assert!(
            html.contains(
                "<p>First line\nsecond line.<br>\n• A bullet<br>\n• wrapped\nover two</p>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<div class=\"block rows\" data-line=\"9\" data-last=\"10\" data-from=\"66\" data-to=\"111\"><pre>Quarters Ended  2023  2022\nRevenue  10.3  9.7</pre></div>"),
            "{html}"
        );
        // Alignment kept as `align` (the page's CSP refuses style attributes).
        assert!(
            html.contains("<tr><td>x</td><td align=\"right\">1</td></tr>"),
            "{html}"
        );
    }

    #[test]
    fn plain_text_is_paragraphs_with_line_breaks() {
        let text = "# Notes\n\nline one\n*not emphasis*\n\n\n    indented <b>\n";
        let html = section_html(text, DocFormat::Text, &at_line(1));
        assert_eq!(
            html,
            "<div class=\"block\" data-line=\"1\" data-last=\"1\" data-from=\"0\" data-to=\"7\"><h1>Notes</h1></div>\n\
             <div class=\"block\" data-line=\"3\" data-last=\"4\" data-from=\"9\" data-to=\"32\"><p>line one<br>\n*not emphasis*</p></div>\n\
             <div class=\"block\" data-line=\"7\" data-last=\"7\" data-from=\"35\" data-to=\"51\"><p>    indented &lt;b&gt;</p></div>\n"
        );
    }
}
