//! Walking a page's content in reading order into sections: every `h1`–`h6` starts one, and so
//! does every API description Sphinx writes (`<dl class="py function"><dt id="sys.exit">`), one
//! level below the heading it sits under; text, tables, lists and code go to the section open
//! at that point, with the ids of the elements they sit in and the links they hold.
//!
//! Levels: headings keep theirs (1–6); an API description gets [`ENTRY_LEVEL`] plus its nesting
//! (a method inside a class one more), deeper than any heading, so the build stage makes it a
//! child of the heading above it and the next heading closes it. Text after a description ends
//! (still under the same heading) goes back to the enclosing section.

use scraper::Node;

use super::content::is_chrome;
use super::dom::{attr, collapsed_text, element, has_class, tag, Dom, NodeRef};
use super::links::classify_href;
use super::writer::Writer;
use crate::parse::markdown::title::clean_title_and_id;
use crate::parse::{RawLink, RawSection};

/// Level of a top-level API description (below any heading, see the module doc).
pub const ENTRY_LEVEL: u32 = 7;

/// Sphinx object description classes on a `<dl>` (older Sphinx marks only these, not the `dt`).
const SPHINX_DOMAINS: &[&str] = &["py", "c", "cpp", "js", "rst", "std", "describe", "object"];

/// Blocks that end a paragraph before and after them.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "blockquote",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "fieldset",
    "center",
    "aside",
    "hr",
    "caption",
    "body",
    "html",
    "legend",
];

/// The page as sections: index 0 is the text before the first heading (level 0, no title).
/// Each section's `lines` start at its heading's line; their ends are set by the caller.
pub struct Walked {
    /// Sections in reading order, the preamble first.
    pub sections: Vec<RawSection>,
}

/// Walk `content` (an element of `dom`) into sections. `self_name` is the page's own file name:
/// links to it are links inside the page.
pub fn walk(dom: &Dom, content: NodeRef<'_>, self_name: Option<&str>) -> Walked {
    let mut walker = Walker {
        dom,
        self_name,
        sections: vec![RawSection {
            lines: dom.line(content).map(|l| l..l + 1),
            ..RawSection::default()
        }],
        open: vec![0],
        entries: 0,
        lists: 0,
        pending_ids: Vec::new(),
        line: dom.line(content).unwrap_or(1),
        writer: Writer::new(),
    };
    walker.children(content);
    walker.flush_ids();
    Walked {
        sections: walker.sections,
    }
}

struct Walker<'d, 'n> {
    dom: &'d Dom,
    self_name: Option<&'n str>,
    sections: Vec<RawSection>,
    /// Open sections, innermost last: a heading, then the API descriptions open inside it.
    open: Vec<usize>,
    /// API descriptions open (the nesting of the innermost).
    entries: u32,
    /// Lists open around the text.
    lists: u32,
    /// Ids of elements entered since the last text: they name what comes next (a heading, or
    /// the section the next text goes to).
    pending_ids: Vec<String>,
    /// Source line of the element last entered: where the next text written comes from.
    line: u32,
    writer: Writer,
}

impl Walker<'_, '_> {
    fn current(&mut self) -> &mut RawSection {
        let i = self.open.last().copied().unwrap_or(0);
        &mut self.sections[i]
    }

    /// Ids seen before text belong to the section the text goes to.
    fn flush_ids(&mut self) {
        if !self.pending_ids.is_empty() {
            let ids = std::mem::take(&mut self.pending_ids);
            self.current().ids.extend(ids);
        }
    }

    fn text(&mut self, text: &str) {
        if !text.trim().is_empty() {
            self.flush_ids();
            self.mark();
        }
        let i = self.open.last().copied().unwrap_or(0);
        self.writer.text(&mut self.sections[i].content, text);
    }

    /// Note in the open section that the text written next comes from [`Walker::line`] (when
    /// that line differs from the last noted), so a `Part N` split of it finds its source line.
    fn mark(&mut self) {
        let line = self.line;
        let section = self.current();
        if section.source_marks.last().is_none_or(|m| m.1 < line) {
            let at = section.content.len();
            section.source_marks.push((at, line));
        }
    }

    /// Enter `node`: the text written next comes from its line.
    fn enter(&mut self, node: NodeRef<'_>) {
        if let Some(line) = self.dom.line(node) {
            self.line = line;
        }
    }

    fn children(&mut self, node: NodeRef<'_>) {
        for child in node.children() {
            self.node(child);
        }
    }

    fn node(&mut self, node: NodeRef<'_>) {
        match node.value() {
            Node::Text(t) => self.text(t),
            Node::Element(e) => {
                if is_chrome(node) {
                    return;
                }
                if let Some(id) = e.id().or_else(|| anchor_name(&node)) {
                    self.pending_ids.push(id.to_string());
                }
                self.enter(node);
                self.element(node, e.name());
            }
            _ => {}
        }
    }

    fn element(&mut self, node: NodeRef<'_>, name: &str) {
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.heading(node, name),
            "pre" | "xmp" | "listing" | "plaintext" => {
                let mut code = String::new();
                raw_text(node, &mut code);
                self.flush_ids();
                self.harvest(node);
                if !code.trim().is_empty() {
                    self.mark();
                }
                let i = self.open.last().copied().unwrap_or(0);
                self.writer.code_block(&mut self.sections[i].content, &code);
            }
            "table" => self.table(node),
            "ul" | "ol" | "menu" => self.list(node, name == "ol"),
            "dl" if is_api_list(node) => self.api_list(node),
            "dl" => self.definitions(node),
            "br" => self.writer.line(),
            "a" => {
                if let Some(href) = attr(&node, "href") {
                    if let Some(link) = classify_href(href, self.self_name) {
                        self.flush_ids();
                        self.current().links.push(link);
                    }
                }
                self.children(node);
            }
            "img" => {}
            _ if BLOCKS.contains(&name) => {
                self.writer.paragraph();
                self.children(node);
                self.writer.paragraph();
            }
            _ => self.children(node),
        }
    }

    fn heading(&mut self, node: NodeRef<'_>, name: &str) {
        // A page rendered from Markdown without the attribute-list extension keeps the list as
        // heading text (`Phases of processing {: #stages }`): no part of the title, its `#id`
        // an anchor of the section.
        let (title, listed_id) = clean_title_and_id(&collapsed_text(node, &|n| is_chrome(n)));
        if title.is_empty() {
            self.harvest(node);
            return;
        }
        if in_admonition(node) {
            // DocBook titles its notes with `<h3>Note</h3>`: a label of the note's text, not
            // a section that would take the text after the note.
            self.flush_ids();
            self.harvest(node);
            let i = self.open.last().copied().unwrap_or(0);
            self.writer.paragraph();
            self.writer.text(&mut self.sections[i].content, &title);
            self.writer.paragraph();
            return;
        }
        let level = u32::from(name.as_bytes()[1] - b'0');
        let mut ids = std::mem::take(&mut self.pending_ids);
        ids.extend(inner_ids(node));
        if let Some(id) = listed_id {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        self.open_section(level, title, self.dom.line(node), ids);
        self.open.truncate(0);
        self.open.push(self.sections.len() - 1);
        self.entries = 0;
        for link in links_in(node, self.self_name) {
            // A heading's link to its own anchor (Sphinx's module link) is no reference.
            if link.file.is_some() {
                self.current().links.push(link);
            }
        }
    }

    fn open_section(&mut self, level: u32, title: String, line: Option<u32>, ids: Vec<String>) {
        let mut ids = ids.into_iter();
        self.sections.push(RawSection {
            level,
            title,
            lines: line.map(|l| l..l + 1),
            anchor: ids.next(),
            ids: ids.collect(),
            ..RawSection::default()
        });
        self.writer.start_section();
    }

    /// Ids and links under `node`, whose text is written another way (a table, a code block).
    fn harvest(&mut self, node: NodeRef<'_>) {
        let ids = inner_ids(node);
        let links = links_in(node, self.self_name);
        let current = self.current();
        current.ids.extend(ids);
        current.links.extend(links);
    }

    fn table(&mut self, node: NodeRef<'_>) {
        self.flush_ids();
        self.harvest(node);
        self.writer.paragraph();
        let skip = |n: NodeRef<'_>| is_chrome(n);
        for part in node.descendants() {
            match tag(&part) {
                "caption" => {
                    let caption = collapsed_text(part, &skip);
                    self.enter(part);
                    self.mark();
                    let i = self.open.last().copied().unwrap_or(0);
                    self.writer
                        .raw_line(&mut self.sections[i].content, &caption);
                }
                "tr" if nearest_table(part).is_some_and(|t| t.id() == node.id()) => {
                    let cells: Vec<(bool, String)> = part
                        .children()
                        .filter(|c| matches!(tag(c), "td" | "th"))
                        .map(|c| (tag(&c) == "th", collapsed_text(c, &skip)))
                        .collect();
                    if cells.iter().all(|(_, t)| t.is_empty()) {
                        continue;
                    }
                    self.enter(part);
                    self.mark();
                    let row = format!(
                        "| {} |",
                        cells
                            .iter()
                            .map(|(_, t)| t.replace('|', "\\|"))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    );
                    let i = self.open.last().copied().unwrap_or(0);
                    self.writer.raw_line(&mut self.sections[i].content, &row);
                    if cells.iter().all(|(th, _)| *th) {
                        let rule = format!("|{}", " --- |".repeat(cells.len()));
                        self.writer.raw_line(&mut self.sections[i].content, &rule);
                    }
                }
                _ => {}
            }
        }
        self.writer.paragraph();
    }

    fn list(&mut self, node: NodeRef<'_>, ordered: bool) {
        // A list inside a list item goes on the item's next line, not after a blank one.
        let nested = self.lists > 0;
        self.lists += 1;
        if nested {
            self.writer.line();
        } else {
            self.writer.paragraph();
        }
        let mut number: i64 = attr(&node, "start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        for item in node.children() {
            if tag(&item) != "li" {
                self.node(item);
                continue;
            }
            let marker = if ordered {
                format!("{number}. ")
            } else {
                "- ".to_string()
            };
            number += 1;
            let rest = " ".repeat(marker.chars().count());
            self.writer.line();
            self.writer.push_indent(Some(marker), &rest);
            self.node(item);
            self.writer.pop_indent();
            self.writer.line();
        }
        self.lists -= 1;
        if !nested {
            self.writer.paragraph();
        }
    }

    fn definitions(&mut self, node: NodeRef<'_>) {
        self.writer.paragraph();
        for item in node.children() {
            match tag(&item) {
                "dt" => {
                    self.writer.line();
                    self.node(item);
                    self.writer.line();
                }
                "dd" => {
                    self.writer.line();
                    self.writer.push_indent(None, "  ");
                    self.node(item);
                    self.writer.pop_indent();
                    self.writer.line();
                }
                _ => self.node(item),
            }
        }
        self.writer.paragraph();
    }

    /// A Sphinx object description: the first `dt` opens a section titled by the object's name,
    /// holding every signature and the description; it closes with the `dl`.
    fn api_list(&mut self, node: NodeRef<'_>) {
        let mut opened = false;
        for item in node.children() {
            match tag(&item) {
                "dt" => {
                    let mut ids: Vec<String> = std::mem::take(&mut self.pending_ids);
                    ids.extend(attr(&item, "id").map(str::to_string));
                    ids.extend(inner_ids(item));
                    let signature = collapsed_text(item, &|n| is_chrome(n));
                    if !opened {
                        opened = true;
                        self.entries += 1;
                        let title = api_name(item)
                            .or_else(|| ids.first().cloned())
                            .unwrap_or_else(|| signature.clone());
                        let level = ENTRY_LEVEL + self.entries - 1;
                        self.open_section(level, title, self.dom.line(item), ids);
                        self.open.push(self.sections.len() - 1);
                    } else {
                        self.current().ids.extend(ids);
                    }
                    let links = links_in(item, self.self_name);
                    let current = self.current();
                    current
                        .links
                        .extend(links.into_iter().filter(|l| l.file.is_some()));
                    self.enter(item);
                    self.mark();
                    let i = self.open.last().copied().unwrap_or(0);
                    self.writer
                        .raw_line(&mut self.sections[i].content, &signature);
                }
                "dd" => {
                    self.writer.paragraph();
                    self.children(item);
                    self.writer.paragraph();
                }
                _ => self.node(item),
            }
        }
        if opened {
            self.open.pop();
            self.entries = self.entries.saturating_sub(1);
            self.writer.paragraph();
        }
    }
}

/// Classes of admonition boxes (DocBook, Sphinx, AsciiDoc): their headings are labels.
const ADMONITIONS: &[&str] = &[
    "note",
    "caution",
    "warning",
    "tip",
    "important",
    "admonition",
    "sidebar",
    "admonitionblock",
];

/// True when `node` sits in an admonition box (see [`ADMONITIONS`]).
fn in_admonition(node: NodeRef<'_>) -> bool {
    node.ancestors()
        .any(|a| matches!(tag(&a), "div" | "aside") && ADMONITIONS.iter().any(|c| has_class(&a, c)))
}

/// True for a `<dl>` that describes API objects the Sphinx way: its first `dt` has an id, and
/// the `dt` is a signature (`class="sig"`) or the `dl` names a Sphinx domain.
fn is_api_list(node: NodeRef<'_>) -> bool {
    let Some(dt) = node.children().find(|c| tag(c) == "dt") else {
        return false;
    };
    attr(&dt, "id").is_some()
        && (has_class(&dt, "sig") || SPHINX_DOMAINS.iter().any(|d| has_class(&node, d)))
}

/// The object name in a Sphinx signature: its `sig-prename` and `sig-name` parts
/// (`sys.` + `argv`), without parameters.
fn api_name(dt: NodeRef<'_>) -> Option<String> {
    let mut name = String::new();
    for part in dt.descendants() {
        let is_name = ["sig-prename", "descclassname", "sig-name", "descname"]
            .iter()
            .any(|c| has_class(&part, c));
        // The outer span of a part only: its text is the part's.
        let outer = part.parent().is_none_or(|p| {
            !["sig-prename", "descclassname", "sig-name", "descname"]
                .iter()
                .any(|c| has_class(&p, c))
        });
        if is_name && outer {
            name.push_str(&collapsed_text(part, &|_| false));
        }
    }
    let name = name.trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// The `name` of an `<a name="x">` anchor (old HTML's way of marking a target).
fn anchor_name<'a>(node: &NodeRef<'a>) -> Option<&'a str> {
    (tag(node) == "a").then(|| attr(node, "name")).flatten()
}

/// Ids (and `<a name>`s) of the elements under `node`.
fn inner_ids(node: NodeRef<'_>) -> Vec<String> {
    node.descendants()
        .skip(1)
        .filter_map(|n| {
            element(&n)
                .and_then(|e| e.id())
                .or_else(|| anchor_name(&n))
                .map(str::to_string)
        })
        .collect()
}

/// The links under `node`.
fn links_in(node: NodeRef<'_>, self_name: Option<&str>) -> Vec<RawLink> {
    node.descendants()
        .filter(|n| tag(n) == "a" && !is_chrome(*n))
        .filter_map(|n| attr(&n, "href"))
        .filter_map(|href| classify_href(href, self_name))
        .collect()
}

/// The nearest `<table>` above `node`.
fn nearest_table(node: NodeRef<'_>) -> Option<NodeRef<'_>> {
    node.ancestors().find(|a| tag(a) == "table")
}

/// The text under `node` as it is (for `<pre>`).
fn raw_text(node: NodeRef<'_>, out: &mut String) {
    for child in node.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) if e.name() == "br" => out.push('\n'),
            Node::Element(_) if !is_chrome(child) => raw_text(child, out),
            _ => {}
        }
    }
}
