//! DOCX parser (DESIGN.md §2): a Word document (a zip of XML parts) becomes sections by its
//! paragraph styles (`styles`): `Title` names the document, `heading 1`–`heading 9` and
//! custom styles with an outline level are headings, numbered headings get their printed
//! number (`2.1 Scope`); other paragraphs, tables, lists and code become text (`body`), with
//! footnotes and endnotes at the end of the section that cites them.
//!
//! DOCX has no pages or lines: a node's location is its paragraph numbers, kept in the tree's
//! `lines` fields and labelled `paragraphs 3–7` ([`crate::parse::DocFormat::location_unit`]).
//! Every part is read through [`crate::parse::zipped`], under the per-entry inflate bound.

mod body;
mod styles;

use std::collections::HashMap;
use std::path::Path;

use quick_xml::events::Event;

use self::body::Parts;
use self::styles::{Numbering, Styles};
use super::xml::{attr, attrs, entity, events, local, local_end};
use super::zipped::{ZipOptions, ZippedDoc};
use super::DocFormat;
use super::{ParseError, ParsedDoc};

/// The main part of a Word document.
const DOCUMENT: &str = "word/document.xml";

/// Parse the DOCX file `bytes` (read from `path`, named in errors) into a [`ParsedDoc`] of
/// format DOCX.
///
/// - `sections`: one per heading paragraph (`level` 1–9), `title` its text (with its number
///   when numbered); `content` its paragraphs, tables (`| a | b |` rows), list items and notes
///   (see `body`); `lines` the paragraph numbers from the heading to the next heading, 1-based,
///   end exclusive; `anchor`/`ids` its bookmarks, `links` its hyperlinks.
/// - `title`: the first `Title` paragraph, else the core properties' `dc:title`;
///   `metadata`: the core properties (title, creator, subject, description, keywords).
/// - `source_units`: paragraphs in the body.
///
/// Errors: [`ParseError::Archive`] when the file is not a zip, has no `word/document.xml`, or
/// has a part that inflates past `options.max_entry_bytes` or cannot be inflated.
pub fn parse_docx(
    path: &Path,
    bytes: &[u8],
    options: &ZipOptions,
) -> Result<ParsedDoc, ParseError> {
    let mut doc = ZippedDoc::open(path, bytes, options, "Word document")?;
    if !doc.contains(DOCUMENT) {
        return Err(doc.missing(DOCUMENT));
    }
    let mut part = |name: &str| doc.read_text(name).map(Option::unwrap_or_default);
    let styles = Styles::parse(&part("word/styles.xml")?);
    let numbering = Numbering::parse(&part("word/numbering.xml")?);
    let links = relationships(&part("word/_rels/document.xml.rels")?);
    let footnotes = notes(&part("word/footnotes.xml")?);
    let endnotes = notes(&part("word/endnotes.xml")?);
    let core = core_properties(&part("docProps/core.xml")?);
    let mut parts = Parts {
        styles,
        numbering,
        links,
        footnotes,
        endnotes,
    };
    let body = doc
        .with_text(DOCUMENT, |document| body::walk(document, &mut parts))?
        .ok_or_else(|| doc.missing(DOCUMENT))?;
    let core_title = core
        .iter()
        .find(|(k, _)| k == "title")
        .map(|(_, v)| v.clone());
    Ok(ParsedDoc {
        format: DocFormat::Docx,
        title: body.title.or(core_title),
        metadata: core,
        preamble: body.preamble,
        sections: body.sections,
        pages_without_text: Vec::new(),
        source_units: body.paragraphs,
        warnings: Vec::new(),
    })
}

/// Relationship id → target, for the hyperlinks of `document.xml.rels`.
fn relationships(xml: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for event in events(xml) {
        let (Event::Start(e) | Event::Empty(e)) = event else {
            continue;
        };
        if local(&e) != "Relationship" {
            continue;
        }
        if let [Some(kind), Some(id), Some(target)] = attrs(&e, ["Type", "Id", "Target"]) {
            if kind.ends_with("/hyperlink") {
                out.insert(id.into_owned(), target.into_owned());
            }
        }
    }
    out
}

/// Note id → its text (paragraphs joined by a space) from `footnotes.xml` or `endnotes.xml`;
/// the separator notes Word keeps there are left out.
fn notes(xml: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut current: Option<(String, String)> = None;
    let mut in_text = false;
    for event in events(xml) {
        match event {
            Event::Start(e) => match local(&e) {
                "footnote" | "endnote" => {
                    let separator = attr(&e, "type").is_some_and(|t| t.contains("eparator"));
                    current = attr(&e, "id")
                        .filter(|_| !separator)
                        .map(|id| (id, String::new()));
                }
                "t" => in_text = true,
                "p" => {
                    if let Some((_, text)) = current.as_mut() {
                        if !text.is_empty() && !text.ends_with(' ') {
                            text.push(' ');
                        }
                    }
                }
                _ => {}
            },
            Event::Text(t) if in_text => {
                if let Some((_, text)) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::GeneralRef(g) if in_text => {
                if let (Some((_, text)), Some(s)) = (current.as_mut(), entity(&g)) {
                    text.push_str(&s);
                }
            }
            Event::End(e) => match local_end(&e) {
                "t" => in_text = false,
                "footnote" | "endnote" => {
                    if let Some((id, text)) = current.take() {
                        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                        out.insert(id, text);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    out
}

/// `(key, value)` of the core properties `docProps/core.xml` holds: title, creator, subject,
/// description, keywords.
fn core_properties(xml: &str) -> Vec<(String, String)> {
    const KEYS: &[&str] = &["title", "creator", "subject", "description", "keywords"];
    let mut out: Vec<(String, String)> = Vec::new();
    let mut key: Option<&'static str> = None;
    let mut value = String::new();
    for event in events(xml) {
        match event {
            Event::Start(e) => {
                key = KEYS.iter().copied().find(|k| *k == local(&e));
                value.clear();
            }
            Event::Text(t) if key.is_some() => value.push_str(&t),
            Event::GeneralRef(g) if key.is_some() => {
                value.push_str(&entity(&g).unwrap_or_default());
            }
            Event::End(_) => {
                if let Some(k) = key.take() {
                    let v = value.trim();
                    if !v.is_empty() {
                        out.push((k.to_string(), v.to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
