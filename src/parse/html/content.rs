//! Which part of a page is its content, and which elements are page chrome.
//!
//! Documentation generators wrap every page in the same navigation bars, sidebars ("Previous
//! topic", "This Page", "Show Source"), breadcrumbs and footers; only the article in the middle
//! is the document. [`main_content`] finds it by the markup generators and authors use to mark
//! it, in this order (the first rule that matches wins):
//! 1. generator containers that hold exactly the article: `[itemprop=articleBody]` (Read the
//!    Docs), `article.md-content__inner` / `div.md-content` (MkDocs Material),
//!    `div.theme-doc-markdown` (Docusaurus), `div.body` (Sphinx);
//! 2. `[role=main]`, then `<main>`;
//! 3. AsciiDoc pages (`div#header` holding the title beside `div#content`): the body;
//! 4. DocBook pages (`div.navheader` / `div.navfooter` around one division such as
//!    `div.sect1`, `div.chapter`, `div.refentry`): that division;
//! 5. a page's only `<article>`;
//! 6. else content density: from `<body>` down, into the child element that holds at least
//!    [`DOMINANT_SHARE`] of the text outside links, as long as one does.
//!
//! Inside the content, [`is_chrome`] elements are never text: scripts and styles, `nav`,
//! `footer`, forms, navigation roles, hidden elements, and the classes and ids generators give
//! their chrome (Sphinx's `headerlink` ¶ marks, DocBook's `navheader`, tables of contents,
//! cookie banners…).

use html5ever::{local_name, ns};
use rustc_hash::FxHashMap;
use scraper::Node;

use super::dom::{element, has_class, tag, Dom, NodeRef};

/// A child holding at least this share of its parent's text (outside links and chrome) is where
/// the content is, for pages without any marked container.
pub const DOMINANT_SHARE: f64 = 0.7;

/// Tags that are never text.
fn chrome_tag(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "nav"
            | "footer"
            | "button"
            | "select"
            | "input"
            | "textarea"
            | "iframe"
            | "object"
            | "embed"
            | "svg"
            | "canvas"
            | "form"
            | "head"
            | "link"
            | "meta"
            | "dialog"
            | "menu"
    )
}

/// ARIA roles of page chrome.
fn chrome_role(name: &str) -> bool {
    matches!(
        name,
        "navigation"
            | "banner"
            | "contentinfo"
            | "search"
            | "complementary"
            | "menu"
            | "menubar"
            | "dialog"
            | "alertdialog"
    )
}

/// Classes generators give their chrome.
fn chrome_class(name: &str) -> bool {
    matches!(
        name,
        "headerlink"
            | "sphinxsidebar"
            | "sphinxsidebarwrapper"
            | "related"
            | "navheader"
            | "navfooter"
            | "breadcrumb"
            | "breadcrumbs"
            | "wy-breadcrumbs"
            | "rst-footer-buttons"
            | "footer"
            | "md-sidebar"
            | "md-header"
            | "md-footer"
            | "md-source"
            | "md-top"
            | "toc"
            | "localtoc"
            | "cookie"
            | "cookies"
            | "cookie-banner"
            | "cookie-consent"
            | "consent"
            | "skip-link"
            | "skiplink"
            | "navbar"
            | "pagination-nav"
            | "theme-edit-this-page"
            | "edit-this-page"
            | "prev-next"
            | "copybutton"
    )
}

/// Ids of chrome.
fn chrome_id(name: &str) -> bool {
    matches!(
        name,
        "footer"
            | "toc"
            | "sidebar"
            | "navigation"
            | "nav"
            | "navbar"
            | "breadcrumbs"
            | "cookie-banner"
            | "cookie-consent"
            | "searchbox"
    )
}

/// DocBook's division classes: the content of a DocBook page is one of these.
const DOCBOOK_DIVISIONS: &[&str] = &[
    "sect1",
    "sect2",
    "section",
    "chapter",
    "appendix",
    "preface",
    "part",
    "reference",
    "refentry",
    "book",
    "set",
    "article",
    "glossary",
    "index",
    "bibliography",
    "colophon",
    "legalnotice",
];

/// True when `node` is an element that is page chrome (see the module doc), never text.
///
/// Asked of every element, several times over, so it reads the attributes in one pass instead
/// of looking each up (a lookup interns its name and binary-searches the attributes by
/// qualified name), and tests names with `match` rather than by scanning lists.
pub fn is_chrome(node: NodeRef<'_>) -> bool {
    let Some(e) = element(&node) else {
        return false;
    };
    let name = e.name();
    if chrome_tag(name) {
        return true;
    }
    let mut role = None;
    for (qualified, value) in &e.attrs {
        // The attributes `Element::attr` finds: no namespace, no prefix.
        if qualified.ns != ns!() || qualified.prefix.is_some() {
            continue;
        }
        match qualified.local {
            local_name!("hidden") => return true,
            local_name!("aria-hidden") if &**value == "true" => return true,
            local_name!("role") => role = Some(&**value),
            _ => {}
        }
    }
    if let Some(role) = role {
        if (name == "header" && role == "banner") || chrome_role(role) {
            return true;
        }
    }
    if e.id().is_some_and(chrome_id) {
        return true;
    }
    // Sphinx's in-page table of contents: `contents local`.
    if e.classes().any(|c| c == "contents") && e.classes().any(|c| c == "local") {
        return true;
    }
    e.classes().any(chrome_class)
}

/// The page's `<body>`, else the document root.
pub fn body(dom: &Dom) -> NodeRef<'_> {
    dom.root()
        .descendants()
        .find(|n| tag(n) == "body")
        .unwrap_or_else(|| dom.root())
}

/// The element holding the page's content (see the module doc); the document root when the
/// page has no `<body>` worth the name.
pub fn main_content(dom: &Dom) -> NodeRef<'_> {
    let mut best: Option<(u8, NodeRef<'_>)> = None;
    let mut body = None;
    let mut articles = Vec::new();
    for node in dom.root().descendants() {
        let Some(e) = element(&node) else { continue };
        let rank = match e.name() {
            "body" => {
                body.get_or_insert(node);
                continue;
            }
            "article" => {
                articles.push(node);
                if has_class(&node, "md-content__inner") {
                    1
                } else {
                    continue;
                }
            }
            "main" => 3,
            _ if e.attr("itemprop") == Some("articleBody") => 0,
            "div" if has_class(&node, "md-content") => 1,
            "div" if has_class(&node, "theme-doc-markdown") => 1,
            "div" if has_class(&node, "body") => 1,
            _ if e.attr("role") == Some("main") => 2,
            _ => continue,
        };
        if best.as_ref().is_none_or(|(r, _)| rank < *r) {
            best = Some((rank, node));
        }
    }
    if let Some((_, node)) = best {
        return node;
    }
    let Some(body) = body else {
        return dom.root();
    };
    if let Some(found) = asciidoc(body).or_else(|| docbook(body)) {
        return found;
    }
    if let [article] = articles[..] {
        return article;
    }
    densest(body)
}

/// An AsciiDoc page's body: `div#header` (the title) and `div#content` among its children.
fn asciidoc(body: NodeRef<'_>) -> Option<NodeRef<'_>> {
    let ids: Vec<&str> = body
        .children()
        .filter_map(|c| element(&c).and_then(|e| e.id()))
        .collect();
    (ids.contains(&"header") && ids.contains(&"content")).then_some(body)
}

/// A DocBook page's one division among the body's children, when navigation surrounds it.
fn docbook(body: NodeRef<'_>) -> Option<NodeRef<'_>> {
    let children: Vec<NodeRef<'_>> = body.children().filter(|c| c.value().is_element()).collect();
    let navigated = children
        .iter()
        .any(|c| has_class(c, "navheader") || has_class(c, "navfooter"));
    let divisions: Vec<&NodeRef<'_>> = children
        .iter()
        .filter(|c| tag(c) == "div" && DOCBOOK_DIVISIONS.iter().any(|d| has_class(c, d)))
        .collect();
    match divisions[..] {
        [one] if navigated => Some(*one),
        _ => None,
    }
}

/// Content density (rule 6 of the module doc).
fn densest(body: NodeRef<'_>) -> NodeRef<'_> {
    let mut sizes = FxHashMap::default();
    text_size(body, &mut sizes);
    let mut at = body;
    loop {
        let total = sizes.get(&at.id()).copied().unwrap_or(0);
        let dominant = at.children().filter(|c| c.value().is_element()).find(|c| {
            let size = sizes.get(&c.id()).copied().unwrap_or(0);
            total > 0 && size as f64 >= DOMINANT_SHARE * total as f64
        });
        match dominant {
            Some(child) => at = child,
            None => return at,
        }
    }
}

/// Chars of text under `node` outside links and chrome, recorded for every element.
fn text_size(node: NodeRef<'_>, sizes: &mut FxHashMap<ego_tree::NodeId, usize>) -> usize {
    let mut size = 0;
    for child in node.children() {
        size += match child.value() {
            Node::Text(t) => t.trim().chars().count(),
            Node::Element(e) if e.name() == "a" || is_chrome(child) => 0,
            Node::Element(_) => text_size(child, sizes),
            _ => 0,
        };
    }
    sizes.insert(node.id(), size);
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content_id(html: &str) -> String {
        let dom = Dom::parse(html).unwrap();
        let node = main_content(&dom);
        element(&node)
            .and_then(|e| e.id().map(str::to_string))
            .unwrap_or_else(|| tag(&node).to_string())
    }

    #[test]
    fn marked_containers_then_density() {
        assert_eq!(
            content_id("<body><div role=main id=m><div class=body id=b>x</div></div></body>"),
            "b"
        );
        assert_eq!(
            content_id("<body><nav>a b c</nav><main id=m>text</main></body>"),
            "m"
        );
        assert_eq!(
            content_id(
                "<body><div id=header><h1>T</h1></div><div id=content>x</div><div id=footer></div></body>"
            ),
            "body"
        );
        assert_eq!(
            content_id(
                "<body><div class=navheader>p</div><div class=sect1 id=s>x</div><div class=navfooter></div></body>"
            ),
            "s"
        );
        let long = "word ".repeat(100);
        assert_eq!(
            content_id(&format!(
                "<body><div id=top><a href=x>Home</a> menu</div><div id=wrap><div id=text><p>{long}</p><p>{long}</p></div><div id=side>short</div></div></body>"
            )),
            "text"
        );
    }
}
