//! Walking `word/document.xml` in reading order into sections: a heading paragraph starts one;
//! other paragraphs, tables (one `| a | b |` line per row) and list items (`- x`, `2. x`,
//! indented by level) become its text; footnote and endnote references become `[^N]` markers
//! whose notes are written at the end of the section (`[^N]: text`).
//!
//! Locations are paragraph numbers: every `<w:p>` of the body counts (in tables too), 1-based,
//! so a section covers the paragraphs from its heading to the next heading. Bookmarks
//! (`<w:bookmarkStart w:name>`) are the document's link targets; hyperlinks to bookmarks
//! (`w:anchor`) and to other documents (through the relationships) are its links.

use std::collections::HashMap;

use quick_xml::events::{BytesStart, Event};
use rustc_hash::FxHashMap;

use super::styles::{NumberLabel, Numbering, Role, Styles};
use crate::parse::html::classify_href;
use crate::parse::xml::{attr, attrs, entity, events, local, local_end};
use crate::parse::{RawLink, RawSection};

/// What the walk needs besides the body: styles, numbering, hyperlink targets by relationship
/// id, and the text of footnotes and endnotes by id.
pub struct Parts {
    /// Paragraph styles.
    pub styles: Styles,
    /// Numbering definitions (counted during the walk).
    pub numbering: Numbering,
    /// Relationship id → target of hyperlinks.
    pub links: HashMap<String, String>,
    /// Footnote id → text.
    pub footnotes: HashMap<String, String>,
    /// Endnote id → text.
    pub endnotes: HashMap<String, String>,
}

/// The body as sections.
pub struct Body {
    /// The first `Title` paragraph.
    pub title: Option<String>,
    /// Text before the first heading (level 0).
    pub preamble: RawSection,
    /// Headed sections in reading order.
    pub sections: Vec<RawSection>,
    /// Paragraphs in the body.
    pub paragraphs: u32,
}

/// A paragraph being read. One is kept between paragraphs and cleared, so its strings keep
/// their buffers instead of being allocated again for every `<w:p>`.
#[derive(Default)]
struct Paragraph {
    number: u32,
    /// Its style id (`w:pStyle`); empty when none.
    style: String,
    outline: Option<u32>,
    /// Its numbering id (`w:numId`); empty when none.
    num_id: String,
    ilvl: u32,
    text: String,
    links: Vec<RawLink>,
    ids: Vec<String>,
    notes: Vec<String>,
}

impl Paragraph {
    fn style(&self) -> Option<&str> {
        Some(self.style.as_str()).filter(|s| !s.is_empty())
    }

    /// Read the paragraph property tag `name` (`pStyle`, `outlineLvl`, `numId`, `ilvl`) from
    /// its tag `e`.
    fn set_property(&mut self, name: &str, e: &BytesStart<'_>) {
        match name {
            "pStyle" => set_val(&mut self.style, e),
            "outlineLvl" => {
                let [v] = attrs(e, ["val"]);
                self.outline = v.and_then(|v| v.parse().ok());
            }
            "numId" => set_val(&mut self.num_id, e),
            "ilvl" => {
                let [v] = attrs(e, ["val"]);
                self.ilvl = v.and_then(|v| v.parse().ok()).unwrap_or(0);
            }
            _ => {}
        }
    }

    /// Empty again, buffers kept (links, ids and notes are moved out when placed).
    fn clear(&mut self) {
        self.style.clear();
        self.outline = None;
        self.num_id.clear();
        self.ilvl = 0;
        self.text.clear();
        self.links.clear();
        self.ids.clear();
        self.notes.clear();
    }
}

/// Set `value` to the tag's `w:val` (empty when it has none).
fn set_val(value: &mut String, e: &BytesStart<'_>) {
    value.clear();
    if let [Some(v)] = attrs(e, ["val"]) {
        value.push_str(&v);
    }
}

/// Most tables kept nested in one another: a table deeper still is not written as rows, its
/// cells' text joins the cell it sits in. Each level writes its rows into the enclosing cell
/// with that cell's `|` escaped once more, so the text would grow with the square of the depth
/// (a hostile document can nest thousands); Word documents nest a few.
pub const MAX_NESTED_TABLES: usize = 16;

/// Walk the body XML `xml` (see the module doc).
pub fn walk(xml: &str, parts: &mut Parts) -> Body {
    let mut w = Walker::new(parts);
    let mut at = Reading::default();
    for event in events(xml) {
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                w.open(&mut at, e, matches!(event, Event::Empty(_)));
            }
            Event::Text(t) if at.in_text => push_text(&mut at.para, &t),
            Event::GeneralRef(g) if at.in_text => {
                if let Some(s) = entity(&g) {
                    push_text(&mut at.para, &s);
                }
            }
            Event::End(e) => w.close(&mut at, local_end(&e)),
            _ => {}
        }
    }
    w.finish()
}

/// Where the walk is in the XML: the paragraph open, how deep it is in paragraphs nested in it
/// (text boxes), in runs, in a run's text and in tracked property changes, and the tables open.
#[derive(Default)]
struct Reading {
    para: Option<Paragraph>,
    nested_p: u32,
    in_text: bool,
    in_run: u32,
    in_change: u32,
    /// Open tables: rows of cells; the innermost last.
    tables: Vec<Vec<Vec<String>>>,
}

/// Append `text` to `out` with each line break written as `joint`.
fn push_lines(out: &mut String, text: &str, joint: &str) {
    let mut lines = text.split('\n');
    if let Some(first) = lines.next() {
        out.push_str(first);
    }
    for line in lines {
        out.push_str(joint);
        out.push_str(line);
    }
}

/// The cell being written: the last cell of the last row of the innermost open table.
fn innermost_cell(tables: &mut [Vec<Vec<String>>]) -> Option<&mut String> {
    tables.last_mut()?.last_mut()?.last_mut()
}

fn push_text(para: &mut Option<Paragraph>, text: &str) {
    if let Some(p) = para.as_mut() {
        p.text.push_str(text);
    }
}

struct Walker<'p> {
    parts: &'p mut Parts,
    /// The preamble, then one section per heading.
    sections: Vec<RawSection>,
    /// Note keys referenced in each section, in order.
    notes: Vec<Vec<String>>,
    title: Option<String>,
    /// Bookmarks seen between paragraphs: they name the next paragraph.
    pending_ids: Vec<String>,
    paragraphs: u32,
    /// The number of the first paragraph of the outermost table open.
    table_start: u32,
    /// The last text written was a list item (the next item follows on the next line).
    last_was_item: bool,
    /// The role of each paragraph style met so far and the numbering it gives its paragraphs:
    /// every paragraph asks, and working the role out lowercases the style's name.
    styles: FxHashMap<String, (Role, Option<(String, u32)>)>,
    /// The paragraph buffers for the next `<w:p>`.
    spare: Paragraph,
}

impl<'p> Walker<'p> {
    fn new(parts: &'p mut Parts) -> Self {
        Walker {
            parts,
            sections: vec![RawSection {
                lines: Some(1..2),
                ..RawSection::default()
            }],
            notes: vec![Vec::new()],
            title: None,
            pending_ids: Vec::new(),
            paragraphs: 0,
            table_start: 0,
            last_was_item: false,
            styles: FxHashMap::default(),
            spare: Paragraph::default(),
        }
    }

    /// A start tag `e` (`empty`: one that closes itself) at `at`.
    fn open(&mut self, at: &mut Reading, e: &BytesStart<'_>, empty: bool) {
        // Names are compared one arm after another: the most frequent come first (runs, their
        // text and properties are most of a body's tags).
        match local(e) {
            "r" if !empty => at.in_run += 1,
            "t" if !empty && at.in_run > 0 => at.in_text = true,
            "rPr" | "rStyle" | "pPr" => {}
            "p" => {
                if at.para.is_some() {
                    at.nested_p += 1;
                } else {
                    self.paragraphs += 1;
                    let mut p = std::mem::take(&mut self.spare);
                    p.number = self.paragraphs;
                    at.para = Some(p);
                }
                if empty {
                    self.end_paragraph(&mut at.para, &mut at.nested_p, &mut at.tables);
                }
            }
            "pPrChange" | "rPrChange" if !empty => at.in_change += 1,
            name @ ("pStyle" | "outlineLvl" | "numId" | "ilvl") if at.in_change == 0 => {
                if let Some(p) = at.para.as_mut() {
                    p.set_property(name, e);
                }
            }
            "tab" if at.in_run > 0 => push_text(&mut at.para, "\t"),
            "br" | "cr" if at.in_run > 0 => push_text(&mut at.para, "\n"),
            "noBreakHyphen" => push_text(&mut at.para, "-"),
            "footnoteReference" | "endnoteReference" => {
                let end = local(e) == "endnoteReference";
                if let (Some(p), Some(id)) = (at.para.as_mut(), attr(e, "id")) {
                    let key = if end { format!("e{id}") } else { id };
                    p.text.push_str(&format!("[^{key}]"));
                    p.notes.push(key);
                }
            }
            "hyperlink" => {
                if let (Some(p), Some(link)) = (at.para.as_mut(), self.link(e)) {
                    p.links.push(link);
                }
            }
            "bookmarkStart" => {
                if let Some(name) = attr(e, "name") {
                    match at.para.as_mut() {
                        Some(p) => p.ids.push(name),
                        None => self.pending_ids.push(name),
                    }
                }
            }
            "tbl" if !empty => {
                if at.tables.is_empty() {
                    self.table_start = self.paragraphs + 1;
                }
                at.tables.push(Vec::new());
            }
            "tr" if !empty => {
                if let Some(t) = at.tables.last_mut() {
                    t.push(Vec::new());
                }
            }
            "tc" if !empty => {
                if let Some(row) = at.tables.last_mut().and_then(|t| t.last_mut()) {
                    row.push(String::new());
                }
            }
            _ => {}
        }
    }

    /// An end tag of local name `name` at `at`.
    fn close(&mut self, at: &mut Reading, name: &str) {
        match name {
            "r" => at.in_run = at.in_run.saturating_sub(1),
            "t" => at.in_text = false,
            "p" => self.end_paragraph(&mut at.para, &mut at.nested_p, &mut at.tables),
            "pPrChange" | "rPrChange" => at.in_change = at.in_change.saturating_sub(1),
            "tbl" => {
                if let Some(rows) = at.tables.pop() {
                    self.end_table(rows, &mut at.tables);
                }
            }
            _ => {}
        }
    }

    /// The target of the hyperlink tag `e`: a bookmark of this document (`w:anchor`), else
    /// its relationship's target (`r:id`); `None` when it has neither or the target is no link.
    fn link(&self, e: &BytesStart<'_>) -> Option<RawLink> {
        match attrs(e, ["anchor", "id"]) {
            [Some(anchor), _] => Some(RawLink {
                file: None,
                anchor: Some(anchor.into_owned()),
            }),
            [None, Some(rel)] => self
                .parts
                .links
                .get(&*rel)
                .and_then(|target| classify_href(target, None)),
            [None, None] => None,
        }
    }
}

impl Walker<'_> {
    fn current(&mut self) -> &mut RawSection {
        let last = self.sections.len() - 1;
        &mut self.sections[last]
    }

    /// A paragraph ends: a nested one (a text box) joins its outer paragraph; one in a table
    /// goes to its cell; else it is a heading, the title, or text of the current section.
    fn end_paragraph(
        &mut self,
        para: &mut Option<Paragraph>,
        nested: &mut u32,
        tables: &mut [Vec<Vec<String>>],
    ) {
        if *nested > 0 {
            *nested -= 1;
            push_text(para, " ");
            return;
        }
        let Some(mut p) = para.take() else { return };
        self.place(&mut p, tables);
        p.clear();
        self.spare = p;
    }

    /// The role of paragraphs of style `style` and the numbering the style gives them.
    fn style_of(&mut self, style: &str) -> (Role, Option<(String, u32)>) {
        if let Some(known) = self.styles.get(style) {
            return known.clone();
        }
        let known = (
            self.parts.styles.role(Some(style), None),
            self.parts.styles.numbering(style),
        );
        self.styles.insert(style.to_string(), known.clone());
        known
    }

    /// Write the ended paragraph `p` where it belongs (see [`Walker::end_paragraph`]).
    fn place(&mut self, p: &mut Paragraph, tables: &mut [Vec<Vec<String>>]) {
        let mut ids = std::mem::take(&mut self.pending_ids);
        ids.append(&mut p.ids);
        let links = std::mem::take(&mut p.links);
        let notes = std::mem::take(&mut p.notes);
        let text = p.text.trim();
        if let Some(cell) = innermost_cell(tables) {
            if !text.is_empty() {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                push_lines(cell, text, " ");
            }
            self.keep(ids, links, notes);
            return;
        }
        let (style_role, style_numbering) = match p.style() {
            Some(style) => {
                let (role, numbering) = self.style_of(style);
                (Some(role), numbering)
            }
            None => (None, None),
        };
        let role = match (style_role, p.outline) {
            (Some(role), None) => role,
            (_, outline) => self.parts.styles.role(p.style(), outline),
        };
        let numbering = match p.num_id.as_str() {
            "" => style_numbering
                .as_ref()
                .map(|(id, ilvl)| (id.as_str(), *ilvl)),
            id => Some((id, p.ilvl)),
        }
        .filter(|(id, _)| *id != "0");
        let label = numbering.and_then(|(id, ilvl)| {
            self.parts
                .numbering
                .next(id, ilvl)
                .map(|label| (label, ilvl))
        });
        match role {
            Role::Contents => {}
            Role::Title if self.title.is_none() && !text.is_empty() => {
                self.title = Some(text.to_string());
            }
            Role::Heading(level) if !text.is_empty() => {
                let number = match &label {
                    Some((NumberLabel::Number(n), _)) => Some(n.trim_end()),
                    _ => None,
                };
                let title = number
                    .into_iter()
                    .chain([text])
                    .flat_map(str::split_whitespace)
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut ids = ids.into_iter();
                self.sections.push(RawSection {
                    level,
                    title,
                    lines: Some(p.number..p.number + 1),
                    anchor: ids.next(),
                    ids: ids.collect(),
                    links,
                    ..RawSection::default()
                });
                self.notes.push(notes);
                self.last_was_item = false;
            }
            _ => {
                if text.is_empty() {
                    self.keep(ids, links, notes);
                    return;
                }
                let item = label.is_some();
                let separator = if self.last_was_item && item {
                    "\n"
                } else {
                    "\n\n"
                };
                self.mark(p.number);
                let content = &mut self.current().content;
                if !content.is_empty() {
                    content.push_str(separator);
                }
                match (role, label) {
                    (Role::Code, _) => {
                        content.push_str("```\n");
                        content.push_str(p.text.trim_matches('\n'));
                        content.push_str("\n```");
                    }
                    (_, Some((label, ilvl))) => {
                        // Two spaces per level, at most 8 levels deep.
                        const INDENT: &str = "                ";
                        let depth = usize::try_from(ilvl).unwrap_or(0).min(8);
                        let indent = &INDENT[..2 * depth];
                        content.push_str(indent);
                        match &label {
                            NumberLabel::Bullet => content.push('-'),
                            NumberLabel::Number(n) => content.push_str(n),
                        }
                        content.push(' ');
                        let hang = format!("\n{indent}  ");
                        push_lines(content, text, &hang);
                    }
                    _ => content.push_str(text),
                }
                self.last_was_item = item;
                self.keep(ids, links, notes);
            }
        }
    }

    /// Note in the current section that the text written next comes from paragraph `number`,
    /// so a `Part N` split of it finds its paragraphs.
    fn mark(&mut self, number: u32) {
        let section = self.current();
        if section.source_marks.last().is_none_or(|m| m.1 < number) {
            let at = section.content.len();
            section.source_marks.push((at, number));
        }
    }

    /// Ids, links and note references of text written into the current section.
    fn keep(&mut self, ids: Vec<String>, links: Vec<RawLink>, notes: Vec<String>) {
        let section = self.current();
        section.ids.extend(ids);
        section.links.extend(links);
        if let Some(last) = self.notes.last_mut() {
            last.extend(notes);
        }
    }

    /// A table ends: inside another table its rows join the enclosing cell (past
    /// [`MAX_NESTED_TABLES`] its cells' text only); else one line per row.
    fn end_table(&mut self, rows: Vec<Vec<String>>, tables: &mut [Vec<Vec<String>>]) {
        if tables.len() >= MAX_NESTED_TABLES {
            let cells = rows.into_iter().flatten().filter(|c| !c.is_empty());
            let text = cells.collect::<Vec<_>>().join(" ");
            if let Some(cell) = innermost_cell(tables) {
                if !cell.is_empty() && !text.is_empty() {
                    cell.push(' ');
                }
                cell.push_str(&text);
            }
            return;
        }
        let lines: Vec<String> = rows
            .into_iter()
            .filter(|r| r.iter().any(|c| !c.is_empty()))
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
                format!("| {} |", cells.join(" | "))
            })
            .collect();
        if lines.is_empty() {
            return;
        }
        if let Some(cell) = innermost_cell(tables) {
            cell.push_str(&lines.join(" "));
            return;
        }
        self.mark(self.table_start);
        let content = &mut self.current().content;
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str(&lines.join("\n"));
        self.last_was_item = false;
    }

    /// Close the walk: notes written at the end of their sections, line ranges closed.
    fn finish(mut self) -> Body {
        let end = self.paragraphs + 1;
        let starts: Vec<u32> = self
            .sections
            .iter()
            .map(|s| s.lines.as_ref().map_or(1, |l| l.start))
            .collect();
        for (i, section) in self.sections.iter_mut().enumerate() {
            let next = starts.get(i + 1).copied().unwrap_or(end);
            section.lines = Some(starts[i]..next.max(starts[i] + 1));
            let mut seen = Vec::new();
            for key in self.notes.get(i).into_iter().flatten() {
                if seen.contains(key) {
                    continue;
                }
                seen.push(key.clone());
                let text = match key.strip_prefix('e') {
                    Some(id) => self.parts.endnotes.get(id),
                    None => self.parts.footnotes.get(key),
                };
                if let Some(text) = text {
                    section.content.push_str(&format!("\n\n[^{key}]: {text}"));
                }
            }
            let trimmed = section.content.trim().to_string();
            section.content = trimmed;
        }
        // The preamble starts at paragraph 1 and ends where the first heading starts.
        let mut sections = self.sections;
        let preamble = sections.remove(0);
        Body {
            title: self.title,
            preamble,
            sections,
            paragraphs: self.paragraphs,
        }
    }
}
