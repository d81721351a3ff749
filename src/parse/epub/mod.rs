//! EPUB parser (DESIGN.md §2): an e-book (a zip of XHTML chapters, `package`) becomes
//! sections chapter by chapter, in the spine's reading order. Each chapter is read through the
//! HTML parser ([`crate::parse::html::parse_html`], its whole `<body>`), and placed by its entry
//! in the table of contents (the navigation document, else the NCX):
//!
//! - a chapter the toc lists at depth `d` is a section of level `d`: when its first heading is
//!   the toc's title for it (as in pandoc's and most publishers' books) that heading is the
//!   section and its other headings keep their levels relative to it; else a section titled by
//!   the toc holds the chapter's text before its first heading, its headings one level below;
//! - a chapter the toc does not list (a cover, a title page) is text of the section before it,
//!   or of the root before the first listed chapter; its headings, if any, go one level below
//!   that section;
//! - a book without a toc is read as if each chapter were listed at depth 1.
//!
//! Links between chapters are links inside the book (to the named element, or to the start of
//! the chapter). EPUB has no pages and its lines are per chapter file: sections carry no
//! location; their path in the tree is where they are.

mod package;

use std::collections::HashMap;
use std::path::Path;

use self::package::{resolve, TocEntry};
use super::html::parse_html;
use super::zipped::{ZipOptions, ZippedDoc};
use super::DocFormat;
use super::{ParseError, ParsedDoc, RawLink, RawSection};

/// Parse the EPUB file `bytes` (read from `path`, named in errors) into a [`ParsedDoc`] of
/// format EPUB (see the module doc for where chapters and headings go).
///
/// - `sections`: levels from 1 (toc depth, then heading depth inside a chapter); `title`,
///   `content`, `anchor`, `ids` as the HTML parser gives them; `links` only those inside the
///   book (`file` `None`); `lines` and `pages` `None`.
/// - `title`: the package's `dc:title`; `metadata`: its Dublin Core title, creator,
///   language, subject, description, publisher, date.
/// - `source_units`: chapters in the spine.
/// - `warnings`: one per spine chapter missing from the archive.
///
/// Errors: [`ParseError::Archive`] when the file is not a zip, has no readable container or
/// package document, lists no chapters, or has a part that inflates past
/// `options.max_entry_bytes` or cannot be inflated; [`ParseError::TooDeep`] when a chapter
/// nests elements deeper than [`crate::parse::html::MAX_ELEMENT_DEPTH`].
pub fn parse_epub(
    path: &Path,
    bytes: &[u8],
    options: &ZipOptions,
) -> Result<ParsedDoc, ParseError> {
    let mut doc = ZippedDoc::open(path, bytes, options, "EPUB book")?;
    const CONTAINER: &str = "META-INF/container.xml";
    let container = doc.require_text(CONTAINER)?;
    let opf_path = package::rootfile(&container)
        .ok_or_else(|| doc.error(format!("`{CONTAINER}` names no package document")))?;
    let opf = doc.require_text(&opf_path)?;
    let pkg = package::package(&opf, &opf_path);
    if pkg.spine.is_empty() {
        return Err(doc.error(format!("the spine of `{opf_path}` lists no chapters")));
    }
    let mut toc = Vec::new();
    if let Some(nav) = &pkg.nav {
        if let Some(text) = doc.read_text(nav)? {
            toc = package::nav_toc(&text, nav);
        }
    }
    if toc.is_empty() {
        if let Some(ncx) = &pkg.ncx {
            if let Some(text) = doc.read_text(ncx)? {
                toc = package::ncx_toc(&text, ncx);
            }
        }
    }
    let mut book = Book::default();
    let mut warnings = Vec::new();
    for file in &pkg.spine {
        let name = file.rsplit('/').next().unwrap_or(file);
        let chapter = doc
            .with_text(file, |text| parse_html(text, Some(name), DocFormat::Epub))?
            .transpose()
            .map_err(|_| ParseError::TooDeep {
                path: path.to_path_buf(),
                part: format!(" (chapter `{file}`)"),
            })?;
        let Some(chapter) = chapter else {
            warnings.push(format!(
                "`{}`: chapter `{file}` is listed in the spine but missing from the archive",
                path.display()
            ));
            continue;
        };
        let entry = match toc.is_empty() {
            true => Some(TocEntry {
                title: chapter
                    .sections
                    .first()
                    .map(|s| s.title.clone())
                    .or(chapter.title.clone())
                    .unwrap_or_else(|| name.to_string()),
                depth: 1,
                file: file.clone(),
            }),
            false => toc.iter().find(|e| e.file == *file).cloned(),
        };
        book.add(file, chapter, entry.as_ref());
    }
    let title = pkg
        .metadata
        .iter()
        .find(|(k, _)| k == "title")
        .map(|(_, v)| v.clone());
    let (preamble, sections) = book.finish();
    Ok(ParsedDoc {
        format: DocFormat::Epub,
        title,
        metadata: pkg.metadata,
        preamble,
        sections,
        pages_without_text: Vec::new(),
        source_units: u32::try_from(pkg.spine.len()).unwrap_or(u32::MAX),
        warnings,
    })
}

/// The book being assembled: the root's text, the sections so far, and where links go.
#[derive(Default)]
struct Book {
    preamble: RawSection,
    sections: Vec<RawSection>,
    /// The toc depth of the last listed chapter (0 before the first).
    depth: u32,
    /// Chapter file → the first link target in it (a link to the chapter goes there).
    starts: HashMap<String, Option<String>>,
}

impl Book {
    /// Place the chapter `file`, parsed as `chapter`, by its toc `entry` (module doc).
    fn add(&mut self, file: &str, chapter: ParsedDoc, entry: Option<&TocEntry>) {
        let folder = package::parent(file);
        let mut pre = chapter.preamble;
        let mut heads = chapter.sections;
        for section in std::iter::once(&mut pre).chain(heads.iter_mut()) {
            section.lines = None;
            section.pages = None;
            section.content_first_line = None;
            section.source_marks.clear();
            // Links to other chapters name archive paths until `finish` turns them into
            // links inside the book.
            for link in &mut section.links {
                if let Some(f) = &link.file {
                    link.file = Some(resolve(&folder, f));
                }
            }
        }
        let start = pre
            .anchor
            .clone()
            .or_else(|| pre.ids.first().cloned())
            .or_else(|| heads.first().and_then(|h| h.anchor.clone()));
        self.starts.insert(file.to_string(), start);
        let Some(entry) = entry else {
            self.attach(pre);
            let below = self.depth + 1;
            if self.depth == 0 {
                // Before the first chapter (a cover, a title page): all of it is root text.
                for mut head in heads {
                    head.content = format!("{}\n\n{}", head.title, head.content);
                    self.attach(head);
                }
            } else {
                self.push_shifted(heads, below);
            }
            return;
        };
        self.depth = entry.depth;
        let own_heading = heads
            .first()
            .is_some_and(|h| same_title(&h.title, &entry.title));
        if own_heading {
            if !pre.content.trim().is_empty() {
                let first = &mut heads[0];
                first.content = format!("{}\n\n{}", pre.content.trim(), first.content);
            }
            heads[0].ids.append(&mut pre.ids);
            heads[0].links.append(&mut pre.links);
            let shift = i64::from(entry.depth) - i64::from(heads[0].level);
            for mut head in heads {
                head.level = u32::try_from((i64::from(head.level) + shift).max(1)).unwrap_or(1);
                self.sections.push(head);
            }
        } else {
            self.sections.push(RawSection {
                level: entry.depth,
                title: entry.title.clone(),
                content: pre.content.trim().to_string(),
                anchor: pre.anchor,
                ids: pre.ids,
                links: pre.links,
                ..RawSection::default()
            });
            self.push_shifted(heads, entry.depth + 1);
        }
    }

    /// Text of a section with no heading of its own joins the last section (or the root).
    fn attach(&mut self, part: RawSection) {
        let target = self.sections.last_mut().unwrap_or(&mut self.preamble);
        let text = part.content.trim();
        if !text.is_empty() {
            if !target.content.is_empty() {
                target.content.push_str("\n\n");
            }
            target.content.push_str(text);
        }
        target.ids.extend(part.anchor);
        target.ids.extend(part.ids);
        target.links.extend(part.links);
    }

    /// Push `heads` with their levels shifted so the shallowest is `top`.
    fn push_shifted(&mut self, heads: Vec<RawSection>, top: u32) {
        let Some(min) = heads.iter().map(|h| h.level).min() else {
            return;
        };
        for mut head in heads {
            head.level = head.level - min + top;
            self.sections.push(head);
        }
    }

    /// The root's text and the sections, with links between chapters made links inside the
    /// book and links out of it dropped.
    fn finish(mut self) -> (RawSection, Vec<RawSection>) {
        let starts = std::mem::take(&mut self.starts);
        let fix = |links: &mut Vec<RawLink>| {
            links.retain_mut(|link| {
                let Some(file) = link.file.take() else {
                    return true;
                };
                let Some(start) = starts.get(&file) else {
                    return false;
                };
                if link.anchor.is_none() {
                    link.anchor = start.clone();
                }
                link.anchor.is_some()
            });
        };
        fix(&mut self.preamble.links);
        for section in &mut self.sections {
            fix(&mut section.links);
        }
        (self.preamble, self.sections)
    }
}

/// Whether a heading and a toc label name the same thing: equal letters and digits, case
/// ignored, or one holding the other (`Chapter 1` and `Chapter 1: Loomings`).
fn same_title(heading: &str, label: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (h, l) = (norm(heading), norm(label));
    !h.is_empty() && !l.is_empty() && (h == l || h.contains(&l) || l.contains(&h))
}

#[cfg(test)]
mod tests;
