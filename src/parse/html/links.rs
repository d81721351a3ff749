//! Which `href`s are references: a fragment of this page (`#action`), or a relative path to
//! another document, possibly with a fragment (`../library/sys.html#sys.argv`). Links with a
//! scheme (`https:`, `mailto:`), protocol-relative ones (`//host/x`) and links to anything but
//! a document (images, stylesheets) are not. A link to a folder (`../guide/#setup`) is a link to
//! its `index.html`, the page a server shows for it: sites with directory URLs (MkDocs,
//! Docusaurus, Hugo, Sphinx's `dirhtml`) link every page that way.

use crate::parse::RawLink;

/// File extensions of documents a link may name (lowercase).
pub const DOCUMENT_EXTENSIONS: &[&str] = &[
    "html", "htm", "xhtml", "md", "markdown", "txt", "pdf", "docx", "epub",
];

/// The reference an `href` makes, if any (see the module doc); paths and fragments
/// percent-decoded, a query dropped. A link to `self_name` (the page's own file name) is a
/// link inside the page.
pub fn classify_href(href: &str, self_name: Option<&str>) -> Option<RawLink> {
    let href = href.trim();
    let (path, fragment) = match href.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (href, None),
    };
    let anchor = fragment.filter(|f| !f.is_empty()).map(decode);
    if path.is_empty() {
        return anchor.map(|anchor| RawLink {
            file: None,
            anchor: Some(anchor),
        });
    }
    let path = path.split('?').next().unwrap_or(path);
    let scheme = path
        .find(':')
        .is_some_and(|c| !path[..c].contains(['/', '.']));
    if scheme || path.starts_with("//") {
        return None;
    }
    let mut file = decode(path);
    if file.ends_with('/') {
        file.push_str("index.html");
    }
    let name = file.rsplit('/').next().unwrap_or(&file);
    let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
    if !DOCUMENT_EXTENSIONS.contains(&extension.as_str()) {
        return None;
    }
    if self_name.is_some_and(|own| own == name && !file.contains('/')) {
        return anchor.map(|anchor| RawLink {
            file: None,
            anchor: Some(anchor),
        });
    }
    Some(RawLink {
        file: Some(file),
        anchor,
    })
}

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .map_or_else(|_| s.to_string(), |d| d.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(file: Option<&str>, anchor: Option<&str>) -> Option<RawLink> {
        Some(RawLink {
            file: file.map(str::to_string),
            anchor: anchor.map(str::to_string),
        })
    }

    #[test]
    fn fragments_documents_and_the_rest() {
        let c = |h| classify_href(h, Some("argparse.html"));
        assert_eq!(c("#action"), link(None, Some("action")));
        assert_eq!(
            c("sys.html#sys.argv"),
            link(Some("sys.html"), Some("sys.argv"))
        );
        assert_eq!(
            c("../using/cmd%20line.html?x=1#c"),
            link(Some("../using/cmd line.html"), Some("c"))
        );
        assert_eq!(c("argparse.html#nargs"), link(None, Some("nargs")));
        assert_eq!(c("guide.md"), link(Some("guide.md"), None));
        assert_eq!(c("https://docs.python.org/x.html"), None);
        assert_eq!(c("mailto:a@b.c"), None);
        assert_eq!(c("//cdn/x.html"), None);
        assert_eq!(c("_static/logo.png"), None);
        assert_eq!(
            c("../guide/#setup"),
            link(Some("../guide/index.html"), Some("setup"))
        );
        assert_eq!(c("./"), link(Some("./index.html"), None));
        assert_eq!(c("#"), None);
    }
}
