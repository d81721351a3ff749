//! HTML parser (DESIGN.md §2): one page is one document. The page's main content
//! (`content::main_content`) is walked in reading order (`sections::walk`): `h1`–`h6` make
//! the hierarchy (skipped levels as in Markdown), Sphinx API descriptions make nodes below
//! them, and everything else becomes readable text — code between ``` fences, table rows as
//! `| a | b |` lines, list items as `- x` / `1. x`, definition lists as a term line over its
//! indented definition. Navigation, sidebars and footers (`content::is_chrome`) never become
//! text.
//!
//! Each section keeps the ids of the elements inside it (so `page.html#anchor` finds the node
//! holding the anchor) and its links: to `#fragment`s of the page and to other documents
//! (`links::classify_href`), which the build stage turns into references. Locations are
//! source lines: a section runs from its heading's line to the line before the next section's.
//! `<title>` (or `og:title`) names the document; `description`, `og:*`, `author`, `keywords`
//! and `generator` meta tags are its metadata.

mod content;
mod dom;
mod links;
mod sections;
mod writer;

pub use content::DOMINANT_SHARE;
pub use dom::{TooDeep, MAX_ELEMENT_DEPTH};
pub(crate) use links::classify_href;
pub use links::DOCUMENT_EXTENSIONS;
pub use sections::ENTRY_LEVEL;

use self::dom::{attr, collapsed_text, tag, Dom};
use super::markdown::lines::to_u32;
use super::DocFormat;
use super::ParsedDoc;

/// Meta tags kept as metadata (`name` or `property`).
const META_KEYS: &[&str] = &[
    "description",
    "author",
    "keywords",
    "generator",
    "og:title",
    "og:description",
    "og:site_name",
    "og:type",
];

/// Parse the HTML page `text` into a [`ParsedDoc`] of `format` (HTML, or an EPUB chapter read
/// by the EPUB parser). `self_name` is the page's file name (`argparse.html`), so links to the
/// page itself are links inside it. Never panics: any text makes some tree.
///
/// Errors: [`TooDeep`] when the page nests elements more than [`MAX_ELEMENT_DEPTH`] deep
/// (found while parsing, before the rest of the page is read).
///
/// - `sections`: one per heading (`level` 1–6) and per Sphinx API description (`level` ≥
///   [`ENTRY_LEVEL`]); `title` is the heading's text (whitespace collapsed, ¶ marks dropped);
///   `content` is readable text (see the module doc); `lines` are 1-based source lines, end
///   exclusive, from the heading's line to the next section's; `anchor` and `ids` are the ids
///   inside the section, `links` its links.
/// - `preamble`: the content before the first heading.
/// - `title`: `og:title`, else `<title>`; `metadata`: the meta tags named above and `title`.
/// - `source_units`: lines of `text`.
pub fn parse_html(
    text: &str,
    self_name: Option<&str>,
    format: DocFormat,
) -> Result<ParsedDoc, TooDeep> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let dom = Dom::parse(text)?;
    let (title, metadata) = head_metadata(&dom);
    // An EPUB chapter is all content: its whole body (no site chrome around it).
    let content = match format {
        DocFormat::Epub => content::body(&dom),
        _ => content::main_content(&dom),
    };
    let mut sections = sections::walk(&dom, content, self_name).sections;
    let line_count = to_u32(text.lines().count());
    // The content ends where the next element after it starts (a sidebar, a footer), else with
    // the file.
    let end_line = dom
        .line_after(content)
        .unwrap_or(line_count.saturating_add(1));
    // Each section runs to the line where the next one starts (at least its own line).
    let starts: Vec<Option<u32>> = sections
        .iter()
        .map(|s| s.lines.as_ref().map(|l| l.start))
        .collect();
    for (i, section) in sections.iter_mut().enumerate() {
        let next = starts[i + 1..].iter().flatten().next().copied();
        if let Some(start) = starts[i] {
            let end = next.unwrap_or(end_line).max(start + 1);
            section.lines = Some(start..end);
        }
        let trimmed = section.content.trim_end().len();
        section.content.truncate(trimmed);
        section.source_marks.retain(|m| m.0 < trimmed);
    }
    let preamble = sections.remove(0);
    Ok(ParsedDoc {
        format,
        title,
        metadata,
        preamble,
        sections,
        pages_without_text: Vec::new(),
        source_units: line_count,
        warnings: Vec::new(),
    })
}

/// The title (`og:title`, else `<title>`) and the metadata of the page's `<head>`.
fn head_metadata(dom: &Dom) -> (Option<String>, Vec<(String, String)>) {
    let mut title = None;
    let mut metadata = Vec::new();
    for node in dom.root().descendants() {
        match tag(&node) {
            "title" if title.is_none() => {
                let t = collapsed_text(node, &|_| false);
                if !t.is_empty() {
                    title = Some(t);
                }
            }
            "meta" => {
                let key = attr(&node, "property").or_else(|| attr(&node, "name"));
                let value = attr(&node, "content").map(str::trim).unwrap_or("");
                if let Some(key) = key.map(str::to_ascii_lowercase) {
                    if META_KEYS.contains(&key.as_str()) && !value.is_empty() {
                        metadata.push((key, value.to_string()));
                    }
                }
            }
            "body" => break,
            _ => {}
        }
    }
    let og = metadata
        .iter()
        .find(|(k, _)| k == "og:title")
        .map(|(_, v)| v.clone());
    let title = og.or(title);
    if let Some(t) = &title {
        metadata.insert(0, ("title".to_string(), t.clone()));
    }
    (title, metadata)
}

#[cfg(test)]
mod tests;
