//! A section's text as the Reader's formatted HTML: Markdown through pulldown-cmark, then the
//! ammonia sanitizer, one top-level block at a time.
//!
//! Why per block: each block is wrapped in `<div class="block" data-line="A" data-last="B"
//! data-from="C" data-to="D">` (source lines `A..=B` of the section's whole text, the
//! `path:N` numbering `grep` prints, and its chars `C..D`). Inside, each source line's first
//! text is preceded by an empty `<span id="LN">`, so `#LN` lands on line N. A highlighted
//! line (a grep hit, [`PageView::line`]) or evidence span ([`PageView::mark`]) gets its own
//! text wrapped in `<mark>` and its block the class `target` or `marked`: the text itself where
//! the rendered text is the source's verbatim (most text), the whole piece where Markdown
//! changed it (an entity, inline code with its backticks). The wrapper's attributes, the
//! anchors and the marks are written here from numbers; only text comes from the document, and
//! all of it goes through ammonia (which keeps an `id` only on a `span` and only as `LN`).
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

/// Where a section's text page sits in the whole text, the page marks to show, and what to
/// highlight.
#[derive(Debug, Clone, Default)]
pub struct PageView {
    /// 1-based line of the whole text the page starts on.
    pub first_line: usize,
    /// Chars of the whole text before the page.
    pub first_char: usize,
    /// `(line, label)`: a heading on that line of the whole text gets the label (`pages 3–5`)
    /// shown before it.
    pub page_marks: Vec<(usize, String)>,
    /// Chars `A..B` of the whole text to mark (an evidence span): their text in `<mark>`, their
    /// blocks (or source lines) the class `marked`.
    pub mark: Option<Range<usize>>,
    /// 1-based line of the whole text to mark as the target (a grep hit): its text in `<mark>`,
    /// its block (or source line) the class `target`.
    pub line: Option<usize>,
}

/// Byte ranges of one page's text to highlight, from a [`PageView`].
#[derive(Debug, Default)]
struct Highlights {
    mark: Option<Range<usize>>,
    target: Option<Range<usize>>,
}

impl Highlights {
    fn of(text: &str, lines: &LineIndex, at: &PageView) -> Highlights {
        let byte_of_char = |c: usize| {
            let c = c.saturating_sub(at.first_char);
            text.char_indices().nth(c).map_or(text.len(), |(b, _)| b)
        };
        let mark = at
            .mark
            .as_ref()
            .filter(|m| m.end > at.first_char && m.start < m.end)
            .map(|m| byte_of_char(m.start)..byte_of_char(m.end))
            .filter(|r| r.start < r.end);
        let target = at
            .line
            .and_then(|n| n.checked_sub(at.first_line))
            .and_then(|i| lines.range_of(text, i));
        Highlights { mark, target }
    }

    /// `(class, range)` of each highlight overlapping `range`.
    fn over(&self, range: &Range<usize>) -> Vec<(&'static str, Range<usize>)> {
        [("marked", &self.mark), ("target", &self.target)]
            .into_iter()
            .filter_map(|(class, r)| {
                let r = r.as_ref()?;
                let (a, b) = (r.start.max(range.start), r.end.min(range.end));
                (a < b || (r.start == r.end && range.contains(&r.start))).then_some((class, a..b))
            })
            .collect()
    }
}

/// One piece of the document's text as HTML: anchors for the lines it starts (`<span
/// id="LN">`, `next_line` the first line not yet anchored, 0-based within the page), then the
/// text escaped with the highlighted bytes in `<mark>`. `shown` is what the page shows for the
/// source bytes `range`; when it differs from them (Markdown changed the text) a highlight
/// marks the whole piece. Returns (anchors, text).
fn piece_html(
    text: &str,
    range: Range<usize>,
    shown: &str,
    lines: &LineIndex,
    first_line: usize,
    next_line: &mut usize,
    hl: &Highlights,
) -> (String, String) {
    let mut anchors = String::new();
    let line = lines.line_of(range.start);
    while *next_line <= line {
        anchors.push_str(&format!(
            "<span id=\"L{}\"></span>",
            first_line + *next_line
        ));
        *next_line += 1;
    }
    let verbatim = text.get(range.clone()) == Some(shown);
    let mut cuts: Vec<usize> = Vec::new();
    let mut whole = false;
    for (_, r) in hl.over(&range) {
        if verbatim {
            cuts.extend([r.start - range.start, r.end - range.start]);
        } else {
            whole = true;
        }
    }
    let body = if whole || cuts.len() > 2 {
        // Two highlights in one piece, or a changed text: the piece is marked as one.
        format!("<mark>{}</mark>", escape(shown))
    } else if let [a, b] = cuts[..] {
        format!(
            "{}<mark>{}</mark>{}",
            escape(&shown[..a]),
            escape(&shown[a..b]),
            escape(&shown[b..])
        )
    } else {
        escape(shown)
    };
    (anchors, body)
}

/// `text` (one page of a section's text, as `cat` reads it) as sanitized HTML blocks, each
/// wrapped as the module describes. `format` is the document's: it picks Markdown, PDF or
/// plain-text rendering. Never fails: any input renders, at worst as escaped text.
pub fn section_html(text: &str, format: DocFormat, at: &PageView) -> String {
    let lines = LineIndex::new(text);
    let hl = Highlights::of(text, &lines, at);
    let mut pieces = Pieces {
        text,
        lines: &lines,
        first_line: at.first_line,
        next_line: 0,
        hl: &hl,
    };
    let blocks = match format {
        DocFormat::Text => plain_blocks(&mut pieces),
        DocFormat::Pdf => markdown_blocks(&mut pieces, true),
        _ => markdown_blocks(&mut pieces, false),
    };
    let sanitizer = sanitizer();
    let mut out = String::with_capacity(text.len() * 3 / 2);
    let mut chars = CharCursor::default();
    for (range, html) in blocks {
        let first = at.first_line + lines.line_of(range.start);
        let last = at.first_line + lines.line_of(range.end.saturating_sub(1).max(range.start));
        let from = at.first_char + chars.chars_to(text, range.start);
        let to = at.first_char + chars.chars_to(text, range.end);
        let mut class = String::from("block");
        if html.starts_with(ROWS) {
            class.push_str(" rows");
        }
        for (name, _) in hl.over(&range) {
            class.push(' ');
            class.push_str(name);
        }
        let html = html.strip_prefix(ROWS).unwrap_or(&html);
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

/// `text` (one page of a section's text) as numbered source lines, the `?view=source` view:
/// `<div class="line" id="LN" data-line="N">` with a gutter and the line's text, escaped, the
/// highlights of `at` marked as in [`section_html`]. Never fails.
pub fn source_html(text: &str, at: &PageView) -> String {
    let lines = LineIndex::new(text);
    let hl = Highlights::of(text, &lines, at);
    let mut out = String::with_capacity(text.len() * 2);
    let mut start = 0;
    let body = text.strip_suffix('\n').unwrap_or(text);
    for (i, line) in body.split('\n').enumerate() {
        let range = start..start + line.len();
        start = range.end + 1;
        let n = at.first_line + i;
        let mut class = String::from("line");
        let line_range = range.start..(range.end + 1).min(text.len()).max(range.end);
        for (name, _) in hl.over(&line_range) {
            class.push(' ');
            class.push_str(name);
        }
        let mut next = i + 1; // the row carries the anchor itself
        let shown = for_display(line);
        let html = if line.is_empty() {
            "\u{200b}".to_string()
        } else {
            piece_html(text, range, &shown, &lines, at.first_line, &mut next, &hl).1
        };
        out.push_str(&format!(
            "<div class=\"{class}\" id=\"L{n}\" data-line=\"{n}\"><span class=\"gutter\" aria-hidden=\"true\">{n}</span><span class=\"src\">{html}</span></div>\n"
        ));
    }
    out
}

/// What turns the document's text pieces into HTML for one page: the page's text and lines,
/// the next line to anchor, and the highlights.
struct Pieces<'a> {
    text: &'a str,
    lines: &'a LineIndex,
    first_line: usize,
    next_line: usize,
    hl: &'a Highlights,
}

impl Pieces<'_> {
    /// The piece at `range` shown as `shown`: its anchors and its text ([`piece_html`]).
    fn parts(&mut self, range: Range<usize>, shown: &str) -> (String, String) {
        piece_html(
            self.text,
            range,
            shown,
            self.lines,
            self.first_line,
            &mut self.next_line,
            self.hl,
        )
    }

    /// The piece at `range` shown as `shown`, as HTML: anchors then text.
    fn html(&mut self, range: Range<usize>, shown: &str) -> String {
        let (anchors, body) = self.parts(range, shown);
        anchors + &body
    }
}

/// Marks a PDF paragraph of columns (preformatted; its wrapper gets the class `rows`).
const ROWS: &str = "\u{0}rows";

fn sanitizer() -> ammonia::Builder<'static> {
    let mut b = ammonia::Builder::default();
    b.add_tag_attributes("th", ["align"])
        .add_tag_attributes("td", ["align"])
        .add_tag_attributes("span", ["id"])
        .attribute_filter(|element, attribute, value| {
            let line_anchor = value
                .strip_prefix('L')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            match (element, attribute) {
                ("span", "id") if !line_anchor => None,
                _ => Some(value.into()),
            }
        })
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

/// Top-level Markdown blocks of the page: byte range and unsanitized HTML.
fn markdown_blocks(pieces: &mut Pieces<'_>, pdf: bool) -> Vec<(Range<usize>, String)> {
    let text = pieces.text;
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    let mut paragraph = false;
    let mut in_code = false;
    // The block's events with their source ranges and whether they are in a code block.
    let mut events: Vec<(Event, Range<usize>, bool)> = Vec::new();
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        let opens = matches!(event, Event::Start(_));
        let closes = matches!(event, Event::End(_));
        if depth == 0 {
            start = range.start;
            paragraph = matches!(event, Event::Start(Tag::Paragraph));
            // Blank lines between blocks get no anchor.
            pieces.next_line = pieces.next_line.max(pieces.lines.line_of(start));
        }
        if opens {
            depth += 1;
        } else if closes {
            depth = depth.saturating_sub(1);
        }
        match &event {
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => in_code = true,
            Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock) => in_code = false,
            _ => {}
        }
        events.extend(
            inert(event)
                .into_iter()
                .map(|e| (e, range.clone(), in_code)),
        );
        if depth == 0 {
            // A block's range ends at its last char, not at the blank lines after it.
            let end = start + text[start..range.end.max(start)].trim_end().len();
            let source = &text[start..end];
            let html = if pdf && paragraph && is_columns(source) {
                let mut html = format!("{ROWS}<pre>");
                let mut at = start;
                for line in source.split_inclusive('\n') {
                    html.push_str(&pieces.html(at..at + line.len(), &for_display(line)));
                    at += line.len();
                }
                html.push_str("</pre>");
                html
            } else {
                if pdf {
                    pdf_line_breaks(&mut events);
                }
                let mut html = String::new();
                let shown = pieces_html(pieces, events.drain(..));
                pulldown_cmark::html::push_html(&mut html, shown.into_iter());
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

/// A block's events with each text piece (already inert) as HTML of its own: its line
/// anchors and its text, highlighted ([`Pieces`]).
fn pieces_html<'a>(
    pieces: &mut Pieces<'_>,
    events: impl Iterator<Item = (Event<'a>, Range<usize>, bool)>,
) -> Vec<Event<'a>> {
    let text = pieces.text;
    let mut out = Vec::new();
    for (event, range, in_code) in events {
        match event {
            // A code block's text is one piece per line, so each line gets its anchor.
            Event::Text(t) if in_code && text.get(range.clone()) == Some(&*t) => {
                let mut at = range.start;
                for line in t.split_inclusive('\n') {
                    let html = pieces.html(at..at + line.len(), line);
                    out.push(Event::InlineHtml(html.into()));
                    at += line.len();
                }
            }
            Event::Text(t) => out.push(Event::InlineHtml(pieces.html(range, &t).into())),
            Event::Code(t) => {
                let (anchors, body) = pieces.parts(range, &t);
                out.push(Event::InlineHtml(
                    format!("{anchors}<code>{body}</code>").into(),
                ));
            }
            e => out.push(e),
        }
    }
    out
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
fn pdf_line_breaks(events: &mut [(Event<'_>, Range<usize>, bool)]) {
    const BULLETS: &[char] = &['•', '●', '▪', '◦', '■', '–', '-', '*', '·'];
    const ENDS: &[char] = &['.', ':', '!', '?', '”', '"', ';'];
    for i in 0..events.len() {
        if !matches!(events[i].0, Event::SoftBreak) {
            continue;
        }
        let before = events[..i].iter().rev().find_map(|(e, _, _)| match e {
            Event::Text(t) | Event::Code(t) => t.trim_end().chars().last(),
            _ => None,
        });
        let after = events[i + 1..].iter().find_map(|(e, _, _)| match e {
            Event::Text(t) | Event::Code(t) => t.trim_start().chars().next(),
            _ => None,
        });
        let keep = after.is_some_and(|c| BULLETS.contains(&c))
            || before.is_some_and(|c| ENDS.contains(&c));
        if keep {
            events[i].0 = Event::HardBreak;
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
fn plain_blocks(pieces: &mut Pieces<'_>) -> Vec<(Range<usize>, String)> {
    let text = pieces.text;
    let mut blocks = Vec::new();
    let mut para: Option<Range<usize>> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n').chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if let Some(range) = para.take() {
                let end = range.start + text[range.clone()].trim_end().len();
                blocks.push((range.start..end, plain_html(pieces, range.start..end)));
            }
        } else {
            para = Some(para.map_or(at..at + line.len(), |p| p.start..at + line.len()));
        }
        at += line.len();
    }
    blocks
}

fn plain_html(pieces: &mut Pieces<'_>, range: Range<usize>) -> String {
    let body = &pieces.text[range.clone()];
    pieces.next_line = pieces.next_line.max(pieces.lines.line_of(range.start));
    let hashes = body.bytes().take_while(|&b| b == b'#').count();
    if !body.trim_end().contains('\n')
        && (1..=6).contains(&hashes)
        && body[hashes..].starts_with(' ')
    {
        let title = body[hashes..].trim();
        let from = range.start + (title.as_ptr() as usize - body.as_ptr() as usize);
        let html = pieces.html(from..from + title.len(), &for_display(title));
        return format!("<h{hashes}>{html}</h{hashes}>");
    }
    let mut lines = Vec::new();
    let mut at = range.start;
    for line in body.split('\n') {
        lines.push(pieces.html(at..at + line.len(), &for_display(line)));
        at += line.len() + 1;
    }
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

    /// Bytes of 0-based line `i` of `text`, without its newline; `None` past the end.
    fn range_of(&self, text: &str, i: usize) -> Option<Range<usize>> {
        let start = match i {
            0 => 0,
            _ => self.0.get(i - 1)? + 1,
        };
        let end = self.0.get(i).copied().unwrap_or(text.len());
        (start < text.len() || (start == 0 && i == 0)).then_some(start..end)
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

    fn at_line(first_line: usize) -> PageView {
        PageView {
            first_line,
            ..PageView::default()
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
                "<div class=\"block\" data-line=\"10\" data-last=\"10\" data-from=\"0\" data-to=\"7\"><h1><span id=\"L10\"></span>Title</h1>",
                "</div>",
                "<div class=\"block\" data-line=\"12\" data-last=\"13\" data-from=\"9\" data-to=\"26\"><p><span id=\"L12\"></span>A <em>para</em>",
                "<span id=\"L13\"></span>wrapped.</p>",
                "</div>",
                "<div class=\"block\" data-line=\"15\" data-last=\"16\" data-from=\"28\" data-to=\"39\"><ul>",
                "<li><span id=\"L15\"></span>one</li>",
                "<li><span id=\"L16\"></span>two</li>",
                "</ul>",
                "</div>",
                "<div class=\"block\" data-line=\"18\" data-last=\"20\" data-from=\"41\" data-to=\"70\"><table><thead><tr><th><span id=\"L18\"></span>a</th><th>b</th></tr></thead><tbody>",
                "<tr><td><span id=\"L19\"></span><span id=\"L20\"></span>1</td><td>2</td></tr>",
                "</tbody></table>",
                "</div>",
                "<div class=\"block\" data-line=\"22\" data-last=\"24\" data-from=\"72\" data-to=\"88\"><pre><code><span id=\"L22\"></span><span id=\"L23\"></span>code &lt;x&gt;",
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
            html.contains("<pre><code><span id=\"L3\"></span>&lt;div onclick=alert(2)&gt;raw block&lt;/div&gt;"),
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
        let at = PageView {
            first_line: 1,
            first_char: 0,
            page_marks: vec![(1, "pages 2–3".to_string())],
            ..PageView::default()
        };
        let html = section_html(text, DocFormat::Pdf, &at);
        assert!(
            html.contains(
                "<p class=\"page-mark\">pages 2–3</p><h1><span id=\"L1\"></span>Results</h1>"
            ),
            "{html}"
        );
        // A wrapped line joins the next; a sentence's end or a bullet keeps its break.
        assert!(
            html.contains(
                "<p><span id=\"L3\"></span>First line\n<span id=\"L4\"></span>second line.<br>\n<span id=\"L5\"></span>• A bullet<br>\n<span id=\"L6\"></span>• wrapped\n<span id=\"L7\"></span>over two</p>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<div class=\"block rows\" data-line=\"9\" data-last=\"10\" data-from=\"66\" data-to=\"111\"><pre><span id=\"L9\"></span>Quarters Ended  2023  2022\n<span id=\"L10\"></span>Revenue  10.3  9.7</pre></div>"),
            "{html}"
        );
        // Alignment kept as `align` (the page's CSP refuses style attributes).
        assert!(
            html.contains("<tr><td><span id=\"L13\"></span><span id=\"L14\"></span>x</td><td align=\"right\">1</td></tr>"),
            "{html}"
        );
    }

    #[test]
    fn plain_text_is_paragraphs_with_line_breaks() {
        let text = "# Notes\n\nline one\n*not emphasis*\n\n\n    indented <b>\n";
        let html = section_html(text, DocFormat::Text, &at_line(1));
        assert_eq!(
            html,
            "<div class=\"block\" data-line=\"1\" data-last=\"1\" data-from=\"0\" data-to=\"7\"><h1><span id=\"L1\"></span>Notes</h1></div>\n\
             <div class=\"block\" data-line=\"3\" data-last=\"4\" data-from=\"9\" data-to=\"32\"><p><span id=\"L3\"></span>line one<br>\n<span id=\"L4\"></span>*not emphasis*</p></div>\n\
             <div class=\"block\" data-line=\"7\" data-last=\"7\" data-from=\"35\" data-to=\"51\"><p><span id=\"L7\"></span>    indented &lt;b&gt;</p></div>\n"
        );
    }

    #[test]
    fn a_target_line_marks_its_own_text_and_an_evidence_span_its_chars() {
        let text = "# T\n\none line\nthe *hit* line\nlast line\n\n```\ncode a\ncode b\n```\n";
        let at = PageView {
            first_line: 1,
            line: Some(4),
            ..PageView::default()
        };
        let html = section_html(text, DocFormat::Markdown, &at);
        assert!(
            html.contains("<div class=\"block target\" data-line=\"3\" data-last=\"5\""),
            "{html}"
        );
        // Line 4's pieces, emphasis and all, and nothing of lines 3 and 5.
        assert!(
            html.contains("<span id=\"L3\"></span>one line\n<span id=\"L4\"></span><mark>the </mark><em><mark>hit</mark></em><mark> line</mark>\n<span id=\"L5\"></span>last line"),
            "{html}"
        );
        // A code block's lines are anchored one by one.
        assert!(
            html.contains("<pre><code><span id=\"L7\"></span><span id=\"L8\"></span>code a\n<span id=\"L9\"></span>code b\n</code></pre>"),
            "{html}"
        );
        // Chars 12..21 of the whole text ("e\nthe *hi"), on a page starting at char 0: the
        // text inside, cut at the span's ends; `*` is markup, not text.
        let at = PageView {
            first_line: 1,
            mark: Some(12..21),
            ..PageView::default()
        };
        let html = section_html(text, DocFormat::Markdown, &at);
        assert!(
            html.contains("one lin<mark>e</mark>\n<span id=\"L4\"></span><mark>the </mark><em><mark>hi</mark>t</em>"),
            "{html}"
        );
        assert_eq!(html.matches("block marked").count(), 1, "{html}");
    }

    #[test]
    fn the_source_view_numbers_lines_with_anchors_and_marks() {
        let text = "# T\n\na <b>\n";
        let at = PageView {
            first_line: 10,
            first_char: 100,
            mark: Some(108..110),
            ..PageView::default()
        };
        assert_eq!(
            source_html(text, &at),
            "<div class=\"line\" id=\"L10\" data-line=\"10\"><span class=\"gutter\" aria-hidden=\"true\">10</span><span class=\"src\"># T</span></div>\n\
             <div class=\"line\" id=\"L11\" data-line=\"11\"><span class=\"gutter\" aria-hidden=\"true\">11</span><span class=\"src\">\u{200b}</span></div>\n\
             <div class=\"line marked\" id=\"L12\" data-line=\"12\"><span class=\"gutter\" aria-hidden=\"true\">12</span><span class=\"src\">a &lt;<mark>b&gt;</mark></span></div>\n"
        );
    }

    #[test]
    fn only_line_anchors_keep_an_id() {
        let html = sanitizer()
            .clean("<span id=\"L12\"></span><span id=\"section-title\">x</span><p id=\"L1\">y</p>")
            .to_string();
        assert_eq!(html, "<span id=\"L12\"></span><span>x</span><p>y</p>");
    }
}
