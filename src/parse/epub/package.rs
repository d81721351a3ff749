//! The parts of an EPUB that say what is in it and in which order: `META-INF/container.xml`
//! names the package document (`.opf`); its manifest lists the files, its spine the reading
//! order, its metadata the title and authors; the navigation document (EPUB 3, the manifest
//! item with `properties="nav"`) or the NCX (EPUB 2, the spine's `toc`) gives the table of
//! contents. Paths come out resolved against the archive root (`EPUB/text/ch001.xhtml`).

use std::collections::HashMap;

use quick_xml::events::Event;

use crate::parse::html::classify_href;
use crate::parse::xml::{attr, entity, events, local, local_end};

/// One entry of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocEntry {
    /// The entry's label, whitespace collapsed.
    pub title: String,
    /// Depth in the table of contents, 1 = top.
    pub depth: u32,
    /// The file it points to, resolved against the archive root.
    pub file: String,
}

/// What the package document says.
#[derive(Debug, Default)]
pub struct Package {
    /// The chapters in reading order (linear spine items that are XHTML), archive paths.
    pub spine: Vec<String>,
    /// `(key, value)` of the Dublin Core metadata: title, creator, language, subject,
    /// description, publisher, date.
    pub metadata: Vec<(String, String)>,
    /// The navigation document (EPUB 3), archive path.
    pub nav: Option<String>,
    /// The NCX table of contents (EPUB 2), archive path.
    pub ncx: Option<String>,
}

/// The package document's path from `container.xml` (its first rootfile).
pub fn rootfile(container: &str) -> Option<String> {
    events(container).find_map(|event| match event {
        Event::Start(e) | Event::Empty(e) if local(&e) == "rootfile" => attr(&e, "full-path"),
        _ => None,
    })
}

/// Parse the package document `opf`, found at archive path `opf_path`.
pub fn package(opf: &str, opf_path: &str) -> Package {
    const KEYS: &[&str] = &[
        "title",
        "creator",
        "language",
        "subject",
        "description",
        "publisher",
        "date",
    ];
    let base = parent(opf_path);
    // Manifest id → (path, media type, properties).
    let mut manifest: HashMap<String, (String, String, String)> = HashMap::new();
    let mut spine_ids: Vec<String> = Vec::new();
    let mut toc_id: Option<String> = None;
    let mut out = Package::default();
    let mut key: Option<&'static str> = None;
    let mut value = String::new();
    for event in events(opf) {
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let name = local(e);
                match name {
                    "item" => {
                        if let (Some(id), Some(href)) = (attr(e, "id"), attr(e, "href")) {
                            let media = attr(e, "media-type").unwrap_or_default();
                            let props = attr(e, "properties").unwrap_or_default();
                            manifest.insert(id, (resolve(&base, &href), media, props));
                        }
                    }
                    "spine" => toc_id = attr(e, "toc"),
                    "itemref" => {
                        let linear = attr(e, "linear").is_none_or(|l| l != "no");
                        if let (true, Some(id)) = (linear, attr(e, "idref")) {
                            spine_ids.push(id);
                        }
                    }
                    _ if matches!(event, Event::Start(_)) => {
                        // Dublin Core elements are `dc:title` etc. inside `metadata`.
                        let name: &str = e;
                        key = name
                            .starts_with("dc:")
                            .then(|| KEYS.iter().copied().find(|k| *k == local(e)))
                            .flatten();
                        value.clear();
                    }
                    _ => {}
                }
            }
            Event::Text(t) if key.is_some() => value.push_str(&t),
            Event::GeneralRef(g) if key.is_some() => {
                value.push_str(&entity(&g).unwrap_or_default());
            }
            Event::End(_) => {
                if let Some(k) = key.take() {
                    let v = collapse(&value);
                    if !v.is_empty() {
                        out.metadata.push((k.to_string(), v));
                    }
                }
            }
            _ => {}
        }
    }
    for (path, media, props) in manifest.values() {
        if props.split_whitespace().any(|p| p == "nav") {
            out.nav = Some(path.clone());
        }
        if media == "application/x-dtbncx+xml" && out.ncx.is_none() {
            out.ncx = Some(path.clone());
        }
    }
    if let Some((path, _, _)) = toc_id.and_then(|id| manifest.get(&id)) {
        out.ncx = Some(path.clone());
    }
    out.spine = spine_ids
        .iter()
        .filter_map(|id| manifest.get(id))
        .filter(|(path, media, _)| {
            media.contains("html") && out.nav.as_deref() != Some(path.as_str())
        })
        .map(|(path, _, _)| path.clone())
        .collect();
    out
}

/// The table of contents of the navigation document `xhtml` (at archive path `path`): the
/// links of its `<nav epub:type="toc">` (else of its first `<nav>`), depth by list nesting.
pub fn nav_toc(xhtml: &str, path: &str) -> Vec<TocEntry> {
    let base = parent(path);
    // Each top-level nav: whether it is the toc, and its entries.
    let mut navs: Vec<(bool, Vec<TocEntry>)> = Vec::new();
    let mut nav_depth = 0u32;
    let mut lists = 0u32;
    let mut link: Option<(String, String)> = None;
    for event in events(xhtml) {
        match event {
            Event::Start(e) => match local(&e) {
                "nav" => {
                    nav_depth += 1;
                    if nav_depth == 1 {
                        let toc = attr(&e, "type")
                            .is_some_and(|t| t.split_whitespace().any(|w| w == "toc"));
                        navs.push((toc, Vec::new()));
                        lists = 0;
                    }
                }
                "ol" | "ul" if nav_depth > 0 => lists += 1,
                "a" if nav_depth > 0 => link = attr(&e, "href").map(|h| (h, String::new())),
                _ => {}
            },
            Event::Text(t) => {
                if let Some((_, text)) = link.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::GeneralRef(g) => {
                if let (Some((_, text)), Some(s)) = (link.as_mut(), entity(&g)) {
                    text.push_str(&s);
                }
            }
            Event::End(e) => match local_end(&e) {
                "nav" => nav_depth = nav_depth.saturating_sub(1),
                "ol" | "ul" if nav_depth > 0 => lists = lists.saturating_sub(1),
                "a" => {
                    if let (Some((href, text)), Some((_, entries))) = (link.take(), navs.last_mut())
                    {
                        push_entry(entries, &base, &href, &text, lists.max(1));
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    let toc = navs.iter().position(|(toc, _)| *toc).unwrap_or(0);
    if toc < navs.len() {
        navs.swap_remove(toc).1
    } else {
        Vec::new()
    }
}

/// The table of contents of the NCX `xml` (at archive path `path`): its `navPoint`s, depth by
/// nesting.
pub fn ncx_toc(xml: &str, path: &str) -> Vec<TocEntry> {
    let base = parent(path);
    let mut out = Vec::new();
    let mut depth = 0u32;
    let mut in_label = false;
    // The open navPoints' labels and targets, innermost last.
    let mut open: Vec<NavPoint> = Vec::new();
    for event in events(xml) {
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => match local(e) {
                "navPoint" if matches!(event, Event::Start(_)) => {
                    depth += 1;
                    open.push((String::new(), None, false));
                }
                "text" if !open.is_empty() && matches!(event, Event::Start(_)) => in_label = true,
                "content" => {
                    if let (Some(point), Some(src)) = (open.last_mut(), attr(e, "src")) {
                        point.1.get_or_insert(src);
                    }
                    emit(&mut open, &mut out, &base, depth);
                }
                _ => {}
            },
            Event::Text(t) if in_label => {
                if let Some(point) = open.last_mut() {
                    point.0.push_str(&t);
                }
            }
            Event::GeneralRef(g) if in_label => {
                if let (Some(point), Some(s)) = (open.last_mut(), entity(&g)) {
                    point.0.push_str(&s);
                }
            }
            Event::End(e) => match local_end(&e) {
                "text" => in_label = false,
                "navLabel" => emit(&mut open, &mut out, &base, depth),
                "navPoint" => {
                    depth = depth.saturating_sub(1);
                    open.pop();
                }
                _ => {}
            },
            _ => {}
        }
    }
    out
}

/// List the innermost open navPoint once its label and target are known, before its children,
/// so the list is in reading order.
fn emit(open: &mut [NavPoint], out: &mut Vec<TocEntry>, base: &str, depth: u32) {
    if let Some(point) = open.last_mut() {
        if let (false, Some(src)) = (point.2, point.1.clone()) {
            point.2 = true;
            let title = point.0.clone();
            push_entry(out, base, &src, &title, depth);
        }
    }
}

/// An open navPoint: its label, its target, whether it is listed.
type NavPoint = (String, Option<String>, bool);

fn push_entry(out: &mut Vec<TocEntry>, base: &str, href: &str, title: &str, depth: u32) {
    let title = collapse(title);
    // The file part only: a chapter is a file; fragments name sections the chapter's own
    // headings give.
    let Some(file) = classify_href(href, None).and_then(|l| l.file) else {
        return;
    };
    if title.is_empty() {
        return;
    }
    out.push(TocEntry {
        title,
        depth,
        file: resolve(base, &file),
    });
}

/// The folder of an archive path, with a trailing `/` (empty at the root).
pub fn parent(path: &str) -> String {
    match path.rfind('/') {
        Some(i) => path[..=i].to_string(),
        None => String::new(),
    }
}

/// `href` (relative, percent-decoded) resolved against the folder `base`, `.` and `..` removed.
pub fn resolve(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or(href);
    let mut parts: Vec<&str> = if href.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|p| !p.is_empty()).collect()
    };
    for part in href.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each entry as `(title, depth, file)`.
    fn entries(toc: &[TocEntry]) -> Vec<(&str, u32, &str)> {
        toc.iter()
            .map(|e| (e.title.as_str(), e.depth, e.file.as_str()))
            .collect()
    }

    #[test]
    fn paths_resolve_against_their_folder() {
        assert_eq!(parent("OEBPS/content.opf"), "OEBPS/");
        assert_eq!(parent("content.opf"), "");
        assert_eq!(resolve("OEBPS/", "text/ch1.xhtml"), "OEBPS/text/ch1.xhtml");
        assert_eq!(
            resolve("OEBPS/nav/", "../text/ch1.xhtml#s"),
            "OEBPS/text/ch1.xhtml"
        );
        assert_eq!(resolve("", "./ch1.xhtml"), "ch1.xhtml");
    }

    #[test]
    fn ncx_points_nest_and_come_in_reading_order() {
        let ncx = r#"<ncx><navMap>
          <navPoint id="a"><navLabel><text>Part  One</text></navLabel><content src="p1.xhtml"/>
            <navPoint id="b"><navLabel><text>Chapter 1</text></navLabel><content src="c1.xhtml#x"/></navPoint>
          </navPoint>
          <navPoint id="c"><navLabel><text>Notes &amp; more</text></navLabel><content src="n.xhtml"/></navPoint>
        </navMap></ncx>"#;
        let toc = ncx_toc(ncx, "OPS/toc.ncx");
        assert_eq!(
            entries(&toc),
            vec![
                ("Part One", 1, "OPS/p1.xhtml"),
                ("Chapter 1", 2, "OPS/c1.xhtml"),
                ("Notes & more", 1, "OPS/n.xhtml")
            ]
        );
    }

    #[test]
    fn nav_toc_reads_the_toc_nav_only() {
        let nav = r#"<html><body><nav epub:type="landmarks"><ol><li><a href="cover.xhtml">Cover</a></li></ol></nav>
          <nav epub:type="toc"><h1>Contents</h1><ol><li><a href="text/a.xhtml">A</a><ol><li><a href="text/a.xhtml#s">A.1</a></li></ol></li>
          <li><a href="text/b.xhtml">B</a></li></ol></nav></body></html>"#;
        let toc = nav_toc(nav, "EPUB/nav.xhtml");
        assert_eq!(
            entries(&toc),
            vec![
                ("A", 1, "EPUB/text/a.xhtml"),
                ("A.1", 2, "EPUB/text/a.xhtml"),
                ("B", 1, "EPUB/text/b.xhtml")
            ]
        );
    }
}
