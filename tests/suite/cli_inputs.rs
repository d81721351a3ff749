//! `docnav index` inputs and workspace location: `DOCNAV_WORKSPACE`, the default `./.docnav`,
//! glob arguments, and explicitly named files with unknown extensions.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::{docnav_in, fixture, Run};

fn run_in(cwd: &Path, env: Option<&Path>, args: &[&str]) -> Run {
    let mut cmd = docnav_in(cwd);
    if let Some(ws) = env {
        cmd.env("DOCNAV_WORKSPACE", ws);
    }
    cmd.args(args).output().unwrap().into()
}

/// `(doc_id, format)` of every card, from `docs --json`.
fn cards(cwd: &Path, env: Option<&Path>) -> Vec<(String, String)> {
    let r = run_in(cwd, env, &["docs", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cards: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    cards
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            (s("doc_id"), s("format"))
        })
        .collect()
}

fn pair(id: &str, format: &str) -> (String, String) {
    (id.to_string(), format.to_string())
}

/// Copy `from` to each of `names` under `dir`.
fn copy_as(from: &Path, dir: &Path, names: &[&str]) {
    for name in names {
        copy_distinct(from, dir.join(name));
    }
}

/// Copy `from` to `to` with a sentence naming the copy added to its text (after an HTML page's
/// h1, at the end of other files): each copy is a document of its own, not a duplicate kept
/// once as an alias, so that only its place decides how it is indexed.
fn copy_distinct(from: impl AsRef<Path>, to: impl AsRef<Path>) {
    let (from, to) = (from.as_ref(), to.as_ref());
    let text = std::fs::read_to_string(from).unwrap();
    let name = to.to_string_lossy();
    let text = match text.find("</h1>") {
        Some(at) if to.extension().is_some_and(|e| e == "html") => format!(
            "{}</h1>\n<p>A copy kept as {name}.</p>{}",
            &text[..at],
            &text[at + "</h1>".len()..]
        ),
        _ => format!("{text}\n\nA copy kept as {name}.\n"),
    };
    std::fs::write(to, text).unwrap();
}

#[test]
fn default_workspace_is_dot_docnav_in_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let notes = fixture("notes.txt");
    let r = run_in(dir.path(), None, &["index", notes.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(dir.path().join(".docnav/catalog.db").is_file());
    assert_eq!(
        std::fs::read_dir(dir.path().join(".docnav/docs"))
            .unwrap()
            .count(),
        1
    );
    assert_eq!(cards(dir.path(), None), [pair("notes", "text")]);
    // Another directory has no workspace of its own.
    let elsewhere = tempfile::tempdir().unwrap();
    let r = run_in(elsewhere.path(), None, &["docs"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("no workspace at `.docnav`"),
        "{}",
        r.stderr
    );
}

#[test]
fn docnav_workspace_variable_names_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("shared-ws");
    let notes = fixture("notes.txt");
    let r = run_in(dir.path(), Some(&ws), &["index", notes.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(ws.join("catalog.db").is_file());
    assert!(!dir.path().join(".docnav").exists());
    // Any directory sees it through the variable; `--workspace` wins over the variable.
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(cards(elsewhere.path(), Some(&ws)), [pair("notes", "text")]);
    let other = dir.path().join("other-ws");
    let r = run_in(
        elsewhere.path(),
        Some(&ws),
        &["--workspace", other.to_str().unwrap(), "docs"],
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no workspace at"), "{}", r.stderr);
}

#[test]
fn glob_arguments_match_recursively_from_their_literal_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("docs");
    std::fs::create_dir_all(src.join("guide/deep")).unwrap();
    std::fs::copy(fixture("multilingual.md"), src.join("top.md")).unwrap();
    std::fs::copy(fixture("clap__git.md"), src.join("guide/git.md")).unwrap();
    std::fs::copy(
        fixture("nodejs-doc__index.md"),
        src.join("guide/deep/node.md"),
    )
    .unwrap();
    std::fs::copy(fixture("notes.txt"), src.join("guide/notes.txt")).unwrap();
    let r = run_in(dir.path(), None, &["index", "docs/**/*.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("indexed 3 documents (0 unchanged, 0 failed)"),
        "{}",
        r.stderr
    );
    assert_eq!(
        cards(dir.path(), None),
        [
            pair("git", "markdown"),
            pair("node", "markdown"),
            pair("top", "markdown")
        ]
    );
    let r = run_in(dir.path(), None, &["index", "docs/**/*.rst"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("error: `docs/**/*.rst` matches no files"),
        "{}",
        r.stderr
    );
}

#[test]
fn explicitly_named_utf8_file_with_unknown_extension_indexes_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("NOTES.rst");
    std::fs::copy(fixture("notes.txt"), &notes).unwrap();
    let binary = dir.path().join("blob.dat");
    std::fs::write(&binary, [0u8, 1, 2, 255, 0, 7]).unwrap();
    // Found by folder recursion, an unknown extension is skipped…
    let r = run_in(dir.path(), None, &["index", "."]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(
            "error: `.` contains no .md, .markdown, .pdf, .html, .htm, .xhtml, .docx, .epub or .txt files"
        ),
        "{}",
        r.stderr
    );
    // …named explicitly, UTF-8 text is read as plain text, anything else is refused.
    let r = run_in(dir.path(), None, &["index", "NOTES.rst", "blob.dat"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("blob.dat` is not a supported document"),
        "{}",
        r.stderr
    );
    assert_eq!(cards(dir.path(), None), [pair("notes", "text")]);
    let r = run_in(dir.path(), None, &["tree", "notes", "--depth", "1"]);
    assert_eq!(
        r.stdout,
        "NOTES (notes)  (lines 1–5)\n\
         1 1 Getting started  (lines 6–10)\n\
         2 2 Navigating  (lines 16–20)\n\
         3 3 Troubleshooting  (lines 26–29)\n"
    );
}

#[test]
fn a_sphinx_build_folder_indexes_its_pages_not_sphinx_own_output() {
    let dir = tempfile::tempdir().unwrap();
    let build = dir.path().join("html");
    for folder in ["library", "_sources/library", "_static", "_downloads"] {
        std::fs::create_dir_all(build.join(folder)).unwrap();
    }
    let sys = fixture("../html/python/library/sys.html");
    std::fs::copy(
        fixture("../html/python/library/argparse.html"),
        build.join("library/argparse.html"),
    )
    .unwrap();
    std::fs::copy(&sys, build.join("library/sys.html")).unwrap();
    // What Sphinx writes beside the pages: the reST copies, theme files, the general and module
    // indices and the search page (stand-ins with real content, so only their place decides).
    copy_distinct(
        fixture("notes.txt"),
        build.join("_sources/library/sys.rst.txt"),
    );
    copy_distinct(fixture("notes.txt"), build.join("_static/LICENSE.txt"));
    let indices = ["genindex.html", "genindex-S.html", "py-modindex.html"];
    copy_as(&sys, &build, &indices);
    copy_as(&sys, &build, &["search.html"]);
    // Files the authors link to stay.
    copy_distinct(fixture("notes.txt"), build.join("_downloads/example.txt"));
    let ids = |cwd: &Path| -> Vec<String> { cards(cwd, None).into_iter().map(|c| c.0).collect() };

    // Without Sphinx's marker, every file is a document.
    let r = run_in(dir.path(), None, &["index", "html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(ids(dir.path()).len(), 9, "{:?}", ids(dir.path()));

    std::fs::remove_dir_all(dir.path().join(".docnav")).unwrap();
    std::fs::write(build.join(".buildinfo"), "# Sphinx build info version 1\n").unwrap();
    let r = run_in(dir.path(), None, &["index", "html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("indexed 3 documents (0 unchanged, 0 failed)"),
        "{}",
        r.stderr
    );
    assert_eq!(ids(dir.path()), ["argparse", "example", "sys"]);
    // The pages still link to each other.
    let r = run_in(
        dir.path(),
        None,
        &["exec", "cat --budget 1000000 /argparse"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().rev().find(|l| l.starts_with("[see also:")),
        Some("[see also: /sys/#3 sys.argv, /sys/#77 sys.stdin]")
    );

    // Named, or walked from inside `_sources/`, Sphinx's output is indexed like any file.
    let r = run_in(
        dir.path(),
        None,
        &["index", "html/_sources", "html/search.html"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        ids(dir.path()),
        ["argparse", "example", "search", "sys", "sys-rst"]
    );
}

#[test]
fn a_text_file_beside_an_html_page_of_its_name_is_that_pages_source() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("git");
    std::fs::create_dir_all(&site).unwrap();
    // git-doc keeps each page's AsciiDoc source beside it (`gitignore.txt`).
    std::fs::copy(
        fixture("../html/git/gitignore.html"),
        site.join("gitignore.html"),
    )
    .unwrap();
    copy_distinct(fixture("notes.txt"), site.join("gitignore.txt"));
    copy_distinct(fixture("notes.txt"), site.join("notes.txt"));
    let r = run_in(dir.path(), None, &["index", "git"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        cards(dir.path(), None),
        [pair("gitignore", "html"), pair("notes", "text")]
    );
    // Without HTML among the formats, or named, the text is a document of its own.
    std::fs::remove_dir_all(dir.path().join(".docnav")).unwrap();
    let r = run_in(dir.path(), None, &["index", "git", "--formats", "txt"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        cards(dir.path(), None),
        [pair("gitignore", "text"), pair("notes", "text")]
    );
    let r = run_in(dir.path(), None, &["index", "git/gitignore.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        cards(dir.path(), None),
        [
            pair("gitignore", "text"),
            pair("gitignore-2", "html"),
            pair("notes", "text")
        ]
    );
}

#[test]
fn pages_named_index_or_readme_take_their_folders_name_and_404_pages_are_passed_over() {
    let dir = tempfile::tempdir().unwrap();
    // A site written with directory URLs (MkDocs, Docusaurus, Hugo): every page is `index.html`.
    let site = dir.path().join("site");
    for folder in ["guide", "faq", "packages/cli"] {
        std::fs::create_dir_all(site.join(folder)).unwrap();
    }
    let page = fixture("../html/git/gitignore.html");
    let pages = ["index.html", "guide/index.html", "faq/index.html"];
    copy_as(&page, &site, &pages);
    copy_as(&page, &site, &["404.html"]);
    std::fs::copy(
        fixture("vant__README.md"),
        site.join("packages/cli/README.md"),
    )
    .unwrap();
    let r = run_in(dir.path(), None, &["index", "site"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        cards(dir.path(), None),
        [
            pair("cli", "markdown"),
            pair("faq", "html"),
            pair("guide", "html"),
            pair("site", "html")
        ]
    );
    // Named, a 404 page is indexed; a second `index` in a folder of a taken name is made unique.
    std::fs::create_dir_all(dir.path().join("more/guide")).unwrap();
    copy_distinct(&page, dir.path().join("more/guide/index.html"));
    let r = run_in(
        dir.path(),
        None,
        &["index", "site/404.html", "more/guide/index.html"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let ids: Vec<String> = cards(dir.path(), None).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, ["404", "cli", "faq", "guide", "guide-2", "site"]);
}
