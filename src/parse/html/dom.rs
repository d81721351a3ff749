//! The HTML document tree, with the source line of every element.
//!
//! html5ever builds the tree (the WHATWG parsing algorithm: entities decoded, unclosed tags and
//! misnested markup repaired as browsers do) into scraper's arena. Neither keeps source
//! positions, but html5ever tells its sink the line of each token before handing it over
//! ([`TreeSink::set_current_line`]), so [`LineSink`] wraps scraper's sink and notes the line on
//! which every element was created: a section's location is the line of its heading.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use ego_tree::NodeId;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};
use rustc_hash::FxHashMap;
use scraper::node::Element;
use scraper::{Html, HtmlTreeSink, Node};

/// A parsed page: scraper's tree and the 1-based source line each element starts on.
pub struct Dom {
    /// The document.
    pub html: Html,
    lines: FxHashMap<NodeId, u32>,
}

/// A node of a [`Dom`].
pub type NodeRef<'a> = ego_tree::NodeRef<'a, Node>;

/// Most levels of elements a page may nest: Blink's HTML parser builds no deeper tree
/// (`kMaximumHTMLParserDOMTreeDepth`, 512), so no page a browser shows needs more. A deeper one
/// is refused: html5ever looks down its whole stack of open elements for many tags (the scope
/// checks), so parsing time grows with the square of the depth, and the walks over the tree
/// recurse once per level.
pub const MAX_ELEMENT_DEPTH: u32 = 512;

/// Bytes of text handed to html5ever at a time; between two, the parse stops if the tree has
/// grown past [`MAX_ELEMENT_DEPTH`] (so a hostile page costs at most one piece more).
const PARSE_PIECE_BYTES: usize = 16 << 10;

/// The page nests elements deeper than [`MAX_ELEMENT_DEPTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep;

impl Dom {
    /// Parse `text` as an HTML document: every input makes some tree (unclosed and misnested
    /// markup is repaired as browsers do), but one whose elements nest more than
    /// [`MAX_ELEMENT_DEPTH`] deep is refused with [`TooDeep`], early (in time proportional to
    /// the text read so far).
    pub fn parse(text: &str) -> Result<Dom, TooDeep> {
        let sink = LineSink {
            inner: HtmlTreeSink::new(Html::new_document()),
            line: Cell::new(1),
            lines: RefCell::new(FxHashMap::default()),
            depths: RefCell::new(FxHashMap::default()),
            too_deep: Cell::new(false),
        };
        let mut parser = html5ever::parse_document(sink, Default::default());
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = rest.len().min(PARSE_PIECE_BYTES);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (piece, after) = rest.split_at(cut);
            parser.process(StrTendril::from_slice(piece));
            if parser.tokenizer.sink.sink.too_deep.get() {
                return Err(TooDeep);
            }
            rest = after;
        }
        let (html, lines) = parser.finish();
        let dom = Dom { html, lines };
        // The depths noted while parsing are those elements were appended at; the adoption
        // agency and foster parenting move elements after that, so the tree is measured again.
        if dom.depth() > MAX_ELEMENT_DEPTH {
            return Err(TooDeep);
        }
        Ok(dom)
    }

    /// Levels of elements in the tree (`<html>` is level 1), counted without recursion.
    fn depth(&self) -> u32 {
        let (mut depth, mut deepest) = (0u32, 0u32);
        for edge in self.root().traverse() {
            match edge {
                ego_tree::iter::Edge::Open(n) if n.value().is_element() => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ego_tree::iter::Edge::Close(n) if n.value().is_element() => depth -= 1,
                _ => {}
            }
        }
        deepest
    }

    /// The 1-based line on which the element `node` starts (its start tag's last line); `None`
    /// for nodes that are not elements.
    pub fn line(&self, node: NodeRef<'_>) -> Option<u32> {
        self.lines.get(&node.id()).copied()
    }

    /// The line of the first element after `node` and its descendants in document order;
    /// `None` when nothing follows.
    pub fn line_after(&self, node: NodeRef<'_>) -> Option<u32> {
        let mut at = Some(node);
        while let Some(n) = at {
            let next = n
                .next_siblings()
                .flat_map(|s| s.descendants())
                .find_map(|s| self.line(s));
            if next.is_some() {
                return next;
            }
            at = n.parent();
        }
        None
    }

    /// The document's root node.
    pub fn root(&self) -> NodeRef<'_> {
        self.html.tree.root()
    }
}

/// The element of `node`, if it is one.
pub fn element<'a>(node: &NodeRef<'a>) -> Option<&'a Element> {
    node.value().as_element()
}

/// The lowercase tag name of `node` (`""` for a text or other non-element node).
pub fn tag<'a>(node: &NodeRef<'a>) -> &'a str {
    element(node).map_or("", |e| e.name())
}

/// True when `node` is an element whose `class` attribute lists `class`.
pub fn has_class(node: &NodeRef<'_>, class: &str) -> bool {
    element(node).is_some_and(|e| e.classes().any(|c| c == class))
}

/// The value of attribute `name` of `node`, if it is an element that has it.
pub fn attr<'a>(node: &NodeRef<'a>, name: &str) -> Option<&'a str> {
    element(node).and_then(|e| e.attr(name))
}

/// All text under `node`, whitespace runs collapsed to one space and trimmed, skipping
/// elements for which `skip` is true.
pub fn collapsed_text(node: NodeRef<'_>, skip: &dyn Fn(NodeRef<'_>) -> bool) -> String {
    let mut out = String::new();
    collect_text(node, skip, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn collect_text(node: NodeRef<'_>, skip: &dyn Fn(NodeRef<'_>) -> bool, out: &mut String) {
    for child in node.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) if !skip(child) => {
                let block = matches!(e.name(), "br" | "p" | "div" | "li" | "dt" | "dd");
                if block {
                    out.push(' ');
                }
                collect_text(child, skip, out);
                if block {
                    out.push(' ');
                }
            }
            _ => {}
        }
    }
}

/// scraper's tree sink, noting the line each element is created on and how deep each is
/// appended (elements under the document are at depth 1).
struct LineSink {
    inner: HtmlTreeSink,
    line: Cell<u32>,
    lines: RefCell<FxHashMap<NodeId, u32>>,
    depths: RefCell<FxHashMap<NodeId, u32>>,
    /// An element was appended deeper than [`MAX_ELEMENT_DEPTH`].
    too_deep: Cell<bool>,
}

impl LineSink {
    /// Note that `child` now sits at `depth` (text is not counted).
    fn place(&self, child: &NodeOrText<NodeId>, depth: u32) {
        if let NodeOrText::AppendNode(id) = child {
            if depth > MAX_ELEMENT_DEPTH {
                self.too_deep.set(true);
            }
            self.depths.borrow_mut().insert(*id, depth);
        }
    }

    /// The depth noted for `node` (0 for the document and nodes never appended).
    fn depth_of(&self, node: &NodeId) -> u32 {
        self.depths.borrow().get(node).copied().unwrap_or(0)
    }
}

impl TreeSink for LineSink {
    type Handle = NodeId;
    type Output = (Html, FxHashMap<NodeId, u32>);
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self::Output {
        (self.inner.finish(), self.lines.into_inner())
    }

    fn set_current_line(&self, line_number: u64) {
        self.line
            .set(u32::try_from(line_number).unwrap_or(u32::MAX));
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let id = self.inner.create_element(name, attrs, flags);
        self.lines.borrow_mut().insert(id, self.line.get());
        id
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        self.inner.elem_name(target)
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.place(&child, self.depth_of(parent) + 1);
        self.inner.append(parent, child)
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let depth = self.depth_of(element).max(self.depth_of(prev_element) + 1);
        self.place(&child, depth);
        self.inner
            .append_based_on_parent_node(element, prev_element, child)
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id)
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode)
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        self.place(&new_node, self.depth_of(sibling));
        self.inner.append_before_sibling(sibling, new_node)
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs)
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.inner.remove_from_parent(target)
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.inner.reparent_children(node, new_parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_know_their_line_and_entities_are_decoded() {
        let dom = Dom::parse("<html>\n<body>\n<h1 id=a>T&amp;C &eacute;</h1>\n<p>x\ny</p><p>z</p>")
            .unwrap();
        let h1 = dom.root().descendants().find(|n| tag(n) == "h1").unwrap();
        assert_eq!(dom.line(h1), Some(3));
        assert_eq!(attr(&h1, "id"), Some("a"));
        assert_eq!(collapsed_text(h1, &|_| false), "T&C é");
        let ps: Vec<_> = dom
            .root()
            .descendants()
            .filter(|n| tag(n) == "p")
            .map(|p| dom.line(p))
            .collect();
        assert_eq!(ps, vec![Some(4), Some(5)]);
    }

    #[test]
    fn pages_nested_past_the_bound_are_refused_and_pages_at_it_are_read() {
        let nested = |levels: usize, tag: &str| {
            format!(
                "<html><body>{}<h1>Deep</h1>text{}</body></html>",
                format!("<{tag}>").repeat(levels),
                format!("</{tag}>").repeat(levels)
            )
        };
        // html and body are two levels, the heading a third: the divs may take the rest.
        let fits = MAX_ELEMENT_DEPTH as usize - 3;
        let dom = Dom::parse(&nested(fits, "div")).unwrap();
        assert_eq!(dom.depth(), MAX_ELEMENT_DEPTH);
        assert!(Dom::parse(&nested(fits + 1, "div")).is_err());
        // Far past it, the parse stops at the first piece that crosses it, so its time does
        // not grow with the square of the depth. (Timed by hand, not here; this must merely end.)
        assert!(Dom::parse(&nested(200_000, "div")).is_err());
        // Tags the parser closes by itself do not nest: 10,000 unclosed paragraphs are fine.
        let paragraphs = format!("<body>{}", "<p>x".repeat(10_000));
        assert!(Dom::parse(&paragraphs).unwrap().depth() <= 4);
        // Misnested formatting that the adoption agency rebuilds is measured as built.
        let misnested = format!("<body>{}", "<b><i></b></i>".repeat(2_000));
        assert!(Dom::parse(&misnested).is_ok());
    }
}
