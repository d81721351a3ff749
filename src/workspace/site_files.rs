//! What a folder walk leaves out of a documentation site besides its pages (a folder of
//! HTML pages is a site, read as its pages).
//!
//! **Sphinx's own output.** Sphinx marks the root of every HTML build with a `.buildinfo` file
//! (its configuration hash, written by the `html` and `dirhtml` builders). Beside the pages,
//! that root holds Sphinx's own output: `_sources/` (a plain-text copy of every page's
//! reStructuredText, for the "Show Source" link), `_static/` (the theme's scripts, styles and
//! images), the general index (`genindex.html`, `genindex-A.html`…), the domain indices
//! (`py-modindex.html`) and the search page (`search.html`); `dirhtml` writes the same pages as
//! `genindex/index.html` and so on. Walked as documents, Python 3.11's HTML build
//! (`python3.11-doc`) gave 1,027 documents for its 498 pages: each page again as
//! `_sources/…/page.rst.txt` (a "Part N" per 4,000 tokens, which search then ranked beside the
//! page: `os-rst › Part 8` third for "os.walk"), plus 32 index and search pages of nothing but
//! links. The indices and the search page are the site's navigation, which the HTML reader
//! already keeps out of every page's text; the `_sources` copies duplicate the pages.
//! `_downloads/` (files the authors link to) and `_images/` stay walked.
//!
//! **A page's source beside it.** AsciiDoc sites keep each page's source next to it under the
//! same name: git's documentation (`git-doc`) has `gitignore.txt` beside `gitignore.html` for
//! 203 of its 206 pages. A `.txt` file beside an HTML page of the same stem is that page's
//! markup as plain text, with the headings the HTML reader reads properly, so the walk takes the
//! page and passes over the text.
//!
//! **A site's "not found" page.** Static site generators (MkDocs, Docusaurus, Hugo, Jekyll) write
//! `404.html` for the server to show on a missing page: "Page not found" under the site's name,
//! which a MkDocs site then listed among its documents, titled like the site. The walk passes
//! over files named `404.html` (or `.htm`).
//!
//! A folder walk leaves these out; a file named on the command line (or matched by a glob) is
//! indexed whatever its place, and so is a folder walk that starts inside `_sources/`.

use std::path::Path;

use crate::tree::DocFormat;

/// The file Sphinx writes at the root of an HTML build.
pub const SPHINX_BUILD_MARKER: &str = ".buildinfo";

/// True when the entry named `name` in folder `parent` is Sphinx's own output beside the pages
/// of an HTML build: `name` is one of `_sources`, `_static`, `search.html`, `genindex.html`,
/// `genindex-*.html`, `*-modindex.html` (or the same without `.html`, `dirhtml`'s folders), and
/// `parent` holds [`SPHINX_BUILD_MARKER`]. Costs one `stat` when the name matches, none otherwise.
pub fn is_sphinx_output(parent: &Path, name: &str) -> bool {
    sphinx_output_name(name) && parent.join(SPHINX_BUILD_MARKER).is_file()
}

/// True when some component of `path` below `root` is [Sphinx's own output](is_sphinx_output),
/// `root` itself not counted (a walk that starts inside `_sources/` reads it). `false` when
/// `path` is not under `root`.
pub fn is_under_sphinx_output(root: &Path, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(root) else {
        return false;
    };
    let mut parent = root.to_path_buf();
    for component in rest.iter() {
        if component
            .to_str()
            .is_some_and(|name| is_sphinx_output(&parent, name))
        {
            return true;
        }
        parent.push(component);
    }
    false
}

/// Of `paths` (the files one folder walk found), the indexes of `.txt` files beside an HTML page
/// of the same stem among them (`gitignore.txt` beside `gitignore.html`): the page's source, which
/// the walk passes over. In the order of `paths`; empty when there is no such pair.
pub fn sources_beside_pages(paths: &[&Path]) -> Vec<usize> {
    // No allocation for the paths that are not pages: a folder of 100,000 Markdown files
    // passes through here on every re-index.
    let pages: std::collections::HashSet<std::path::PathBuf> = paths
        .iter()
        .filter(|p| has_extension_of(p, DocFormat::Html))
        .map(|p| p.with_extension(""))
        .collect();
    if pages.is_empty() {
        return Vec::new();
    }
    paths
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt"))
                && pages.contains(&p.with_extension(""))
        })
        .map(|(i, _)| i)
        .collect()
}

/// True when `path` is a `.txt` file with an HTML page of the same stem beside it (see
/// [`sources_beside_pages`]; `.html`, `.htm` or `.xhtml`). Up to three `stat`s for a `.txt`
/// file, none for any other.
pub fn is_source_beside_page(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("txt"))
        && DocFormat::Html
            .extensions()
            .iter()
            .any(|ext| path.with_extension(ext).is_file())
}

/// True for a site's "not found" page, `404.html` or `404.htm` (any case), which a folder walk
/// passes over.
pub fn is_not_found_page(name: &str) -> bool {
    name.eq_ignore_ascii_case("404.html") || name.eq_ignore_ascii_case("404.htm")
}

/// True when `path`'s extension is one of `format`'s, in any case.
fn has_extension_of(path: &Path, format: DocFormat) -> bool {
    path.extension().is_some_and(|e| {
        format
            .extensions()
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

fn sphinx_output_name(name: &str) -> bool {
    if name == "_sources" || name == "_static" {
        return true;
    }
    let stem = name.strip_suffix(".html").unwrap_or(name);
    stem == "search"
        || stem == "genindex"
        || stem.starts_with("genindex-")
        || (stem.ends_with("-modindex") && stem.len() > "-modindex".len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_count_only_beside_the_build_marker() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("library")).unwrap();
        std::fs::write(
            root.join(SPHINX_BUILD_MARKER),
            "# Sphinx build info version 1\n",
        )
        .unwrap();
        for name in [
            "_sources",
            "_static",
            "search.html",
            "genindex.html",
            "genindex-A.html",
            "genindex-Symbols.html",
            "py-modindex.html",
            "genindex",
        ] {
            assert!(is_sphinx_output(root, name), "{name}");
        }
        for name in [
            "_downloads",
            "_images",
            "index.html",
            "searching.html",
            "-modindex.html",
        ] {
            assert!(!is_sphinx_output(root, name), "{name}");
        }
        // Below the build root, and in a folder without the marker, the names are pages.
        assert!(!is_sphinx_output(&root.join("library"), "search.html"));
        let plain = tempfile::tempdir().unwrap();
        assert!(!is_sphinx_output(plain.path(), "_sources"));
    }

    #[test]
    fn a_text_file_beside_a_page_of_its_stem_is_the_pages_source() {
        let paths = [
            Path::new("/d/gitignore.html"),
            Path::new("/d/gitignore.txt"),
            Path::new("/d/notes.txt"),
            Path::new("/d/other/gitignore.txt"),
            Path::new("/d/guide.htm"),
            Path::new("/d/guide.TXT"),
            Path::new("/d/guide.md"),
        ];
        assert_eq!(sources_beside_pages(&paths), [1, 5]);
        assert!(sources_beside_pages(&paths[1..4]).is_empty());
        assert!(is_not_found_page("404.html") && is_not_found_page("404.HTM"));
        assert!(!is_not_found_page("404.md") && !is_not_found_page("1404.html"));

        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("gitignore.txt");
        std::fs::write(&text, "gitignore(5)\n").unwrap();
        assert!(!is_source_beside_page(&text));
        std::fs::write(dir.path().join("gitignore.html"), "<h1>x</h1>").unwrap();
        assert!(is_source_beside_page(&text));
        assert!(!is_source_beside_page(&dir.path().join("gitignore.html")));
    }

    #[test]
    fn a_path_is_under_the_output_of_the_build_it_lies_in() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let build = root.join("html");
        std::fs::create_dir_all(build.join("_sources/library")).unwrap();
        std::fs::write(build.join(SPHINX_BUILD_MARKER), "").unwrap();
        let copy = build.join("_sources/library/sys.rst.txt");
        assert!(is_under_sphinx_output(root, &copy));
        assert!(is_under_sphinx_output(&build, &copy));
        // A walk that starts inside `_sources/` reads it.
        assert!(!is_under_sphinx_output(&build.join("_sources"), &copy));
        assert!(!is_under_sphinx_output(
            root,
            &build.join("library/sys.html")
        ));
        assert!(!is_under_sphinx_output(&build.join("library"), &copy));
    }
}
