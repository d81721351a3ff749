//! `Node::references` on the committed fixtures: Markdown links to headings (slugs, HTML heading
//! names, reference-style links) and "see Section 2.1" in R-intro.pdf.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use pretty_assertions::assert_eq;
use regex::Regex;

use docnav::tree::references::{resolve_references, HeadingNodes};
use docnav::tree::{normalize_title, BuildOptions, NodeId, Tree};
use docnav::workspace::{Document, InMemoryLibrary, Library};

use super::common::fixture;

fn doc(name: &str) -> Arc<Document> {
    let lib = InMemoryLibrary::from_paths(&[fixture(name)], &BuildOptions::default()).unwrap();
    let id = lib.cards_page(0, 1)[0].doc_id.clone();
    lib.document(&id).unwrap()
}

/// The node titled `title` (first in reading order).
fn node(tree: &Tree, title: &str) -> NodeId {
    tree.preorder(NodeId::ROOT)
        .into_iter()
        .find(|id| tree.node(*id).title == title)
        .unwrap_or_else(|| panic!("no node {title:?}"))
}

/// Titles `title` references.
fn refs_of(tree: &Tree, title: &str) -> Vec<String> {
    let id = node(tree, title);
    tree.node(id)
        .references
        .iter()
        .map(|r| tree.node(*r).title.clone())
        .collect()
}

/// No node references itself or (as a `Part N`) its parent, and no target repeats.
fn assert_well_formed(tree: &Tree) {
    for (i, n) in tree.nodes.iter().enumerate() {
        let mut seen = std::collections::HashSet::new();
        for r in &n.references {
            assert!(seen.insert(*r), "{} lists {r:?} twice", n.title);
            assert_ne!(r.index(), i, "{} references itself", n.title);
            if n.title.starts_with("Part ") {
                assert_ne!(Some(*r), n.parent, "{} references its parent", n.title);
            }
        }
    }
}

#[test]
fn docker_builder_links_resolve_to_github_slugs() {
    let d = doc("docker-doc__builder.md");
    let t = &d.tree;
    assert_well_formed(t);
    assert_eq!(refs_of(t, "Usage"), [".dockerignore file"]);
    assert_eq!(refs_of(t, "Format"), ["Parser directives", "ARG"]);
    assert_eq!(
        refs_of(t, "FROM"),
        [
            "Understand how ARG and FROM interact",
            "Automatic platform ARGs in the global scope"
        ]
    );
    assert_eq!(refs_of(t, "RUN"), ["ADD", "COPY"]);
    assert_eq!(refs_of(t, "ENV"), ["Environment replacement", "ARG"]);
    // 14 `](#…)` links in the file, all to headings of this document; duplicates per node merge.
    let total: usize = t.nodes.iter().map(|n| n.references.len()).sum();
    assert_eq!(total, 14);
}

#[test]
fn ripgrep_faq_links_resolve_to_html_heading_names() {
    let d = doc("ripgrep__FAQ.md");
    let t = &d.tree;
    assert_well_formed(t);
    // The FAQ's list of questions links `#config`, `#changelog`, … to `<h3 name="…">` headings:
    // every question, in order.
    let faq = node(t, "FAQ");
    let questions = t.node(faq).children.clone();
    assert_eq!(questions.len(), 27);
    assert_eq!(t.node(faq).references, questions);
    assert_eq!(
        refs_of(t, "How do I configure ripgrep's colors?"),
        ["How do I make the output look like The Silver Searcher's output?"]
    );
}

#[test]
fn ripgrep_guide_table_of_contents_links_every_section() {
    let d = doc("ripgrep__GUIDE.md");
    let t = &d.tree;
    assert_well_formed(t);
    assert_eq!(
        refs_of(t, "Table of Contents"),
        [
            "Basics",
            "Recursive search",
            "Automatic filtering",
            "Manual filtering: globs",
            "Manual filtering: file types",
            "Replacements",
            "Configuration file",
            "File encoding",
            "Binary data",
            "Preprocessor",
            "Common options"
        ]
    );
    assert_eq!(refs_of(t, "Manual filtering: globs"), ["Basics"]);
}

#[test]
fn nodejs_fs_reference_style_links_count_where_they_are_used() {
    let d = doc("nodejs-doc__fs.md");
    let t = &d.tree;
    assert_well_formed(t);
    assert_eq!(
        refs_of(t, "filehandle.appendFile(data[, options])"),
        [
            "filehandle.writeFile(data, options)",
            "fsPromises.open(path, flags[, mode])"
        ]
    );
    // The 53 `[label]: #anchor` definitions sit at the end, in the last section: they are not
    // that section's references.
    let last = *t.preorder(NodeId::ROOT).last().unwrap();
    assert_eq!(t.node(last).title, "File system flags");
    assert_eq!(t.node(last).references, vec![]);
}

/// `See Section 6.2.1 [Concatenating lists]`: the mention, its number and the bracketed name.
fn see_mentions(content: &str) -> Vec<(String, String)> {
    let re =
        Regex::new(r"[Ss]ee\s+(?:Section|Chapter|Appendix)\s+([0-9A-Z][0-9.]*?)\.?\s+\[([^\]]+)")
            .unwrap();
    re.captures_iter(content)
        .map(|c| (c[1].to_string(), normalize_title(&c[2])))
        .collect()
}

#[test]
fn r_intro_see_section_references_reach_the_bracketed_section() {
    let d = doc("R-intro.pdf");
    let t = &d.tree;
    assert_well_formed(t);
    // Printed numbers differ from structure numbers (the outline starts with `Preface`), and
    // the outline prints chapter numbers only: `Section 6.2.1` is structure 7.2.1.
    assert_eq!(
        refs_of(t, "Vectors and assignment"),
        ["Concatenating lists"]
    );
    assert_eq!(
        t.by_structure("7.2.1"),
        Some(node(t, "Concatenating lists"))
    );
    assert_eq!(
        refs_of(t, "Preface"),
        ["A A sample session", "12 Graphical procedures"]
    );
    assert_eq!(
        refs_of(t, "Other types of objects"),
        [
            "5 Arrays and matrices",
            "4 Ordered and unordered factors",
            "Lists",
            "Data frames",
            "10 Writing your own functions"
        ]
    );
    // Every `see Section N [Name]` in the text resolves to a section whose title holds the
    // start of the bracketed name (`[Factors]` → `4 Ordered and unordered factors`; the name
    // may be hyphenated across lines, `[Object orienta-\ntion]`).
    let mut checked = 0;
    for n in &t.nodes {
        let targets: Vec<String> = n
            .references
            .iter()
            .map(|r| normalize_title(&t.node(*r).title))
            .collect();
        for (number, name) in see_mentions(&n.content) {
            let name = name.replace("- ", "");
            let stem: String = name.trim_end_matches('-').chars().take(6).collect();
            assert!(
                targets.iter().any(|title| title.contains(&stem)),
                "{}: `{number} [{name}]` not in {targets:?}",
                n.title
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 20, "see-mentions checked");
}

#[test]
fn fhs_man_page_sections_are_not_chapters() {
    // FHS says "Section 3 describes program library routines" about man(1) sections and has
    // headings `Chapter 3. The Root Filesystem`: a `Section` reference never lands on a
    // `Chapter` heading, and lowercase `section 5` needs a "see".
    let d = doc("fhs-3.0.pdf");
    let total: usize = d.tree.nodes.iter().map(|n| n.references.len()).sum();
    assert_eq!(total, 0);
}

/// Time of reference resolution alone against the whole in-memory pipeline (parse + build +
/// keyword index + card, `Document::build`, which includes resolution), over the corpus Markdown.
/// Run: `cargo test --release --test all -- --ignored --nocapture reference_resolution_cost`.
#[test]
#[ignore = "measurement; run in release with --nocapture"]
fn reference_resolution_cost() {
    let dir = super::common::corpus_dir()
        .map(|d| d.join("md"))
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus/md"));
    let files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let rounds = 5;
    let (mut pipeline_s, mut refs_s, mut count) = (0.0, 0.0, 0);
    for _ in 0..rounds {
        for (path, data) in &files {
            let started = Instant::now();
            let built = Document::build(path, data, "d", true, &BuildOptions::default()).unwrap();
            pipeline_s += started.elapsed().as_secs_f64();
            let mut tree = built.document.tree;
            let headings = HeadingNodes {
                end: tree.len(),
                root_is_heading: false,
                anchors: vec![None; tree.len()],
                ..HeadingNodes::default()
            };
            let started = Instant::now();
            resolve_references(&mut tree, &headings);
            refs_s += started.elapsed().as_secs_f64();
            count += tree.nodes.iter().map(|n| n.references.len()).sum::<usize>();
        }
    }
    let mb = bytes as f64 * f64::from(rounds) / 1e6;
    println!(
        "{} files, {:.2} MB x {rounds}: parse+build+index+card {:.1} MB/s (incl. references), \
         references alone {:.1} MB/s = {:.1}% of the pipeline, {} references per round",
        files.len(),
        bytes as f64 / 1e6,
        mb / pipeline_s,
        mb / refs_s,
        100.0 * refs_s / pipeline_s,
        count / rounds as usize
    );
}

/// `cat` ends its last page with the sections the text refers to outside itself, addressed so
/// that `cat '#N'` reads one; references inside the subtree are not listed, and a paged `cat`
/// shows them only on its last page, before the paging note.
#[test]
fn cat_lists_the_references_outside_the_section_on_its_last_page() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("guide.md");
    std::fs::write(
        &src,
        "# Guide\n\n## Install\n\nRun the installer, then see [usage](#usage) and \
         [the details](#details).\n\n### Details\n\nFlags, see [usage](#usage) again. \
         More words here to page.\n\n## Usage\n\nRun `guide`.\n",
    )
    .unwrap();
    let ws = dir.path().join("ws");
    let r = super::common::run(&ws, &["index", src.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cat = |command: &str| {
        let r = super::common::run(&ws, &["exec", command, "--cwd", "/guide"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let whole = cat("cat 1");
    assert_eq!(
        whole.lines().last(),
        Some("[see also: #2 Usage]"),
        "{whole}"
    );
    assert_eq!(whole.matches("see also").count(), 1, "{whole}");
    // Following it reads the section.
    assert!(cat("cat '#2'").contains("Run `guide`."));
    // Paged: not on the first page; on the last, before the note.
    let first = cat("cat --budget 40 1");
    assert!(!first.contains("[see also"), "{first}");
    let total: usize = first
        .lines()
        .last()
        .and_then(|l| l.split(" of ").nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    let last = cat(&format!("cat --budget 40 -o {} 1", total - 10));
    let lines: Vec<&str> = last.lines().collect();
    assert_eq!(lines[lines.len() - 2], "[see also: #2 Usage]", "{last}");
    assert!(
        lines[lines.len() - 1].ends_with("end of /guide/1]"),
        "{last}"
    );
    // A section without references outside itself: no line.
    assert!(!cat("cat 2").contains("see also"));
}

/// Issue 14.5: links to other files are kept at build time with the document's explicit anchors
/// (inline, reference-style and `href` links; not URLs, not files of other kinds, not in fences).
#[test]
fn links_to_other_files_are_kept_unresolved_with_the_anchors() {
    use docnav::tree::ExternalLink;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("faq.md");
    std::fs::write(
        &src,
        "# FAQ\n\n## Config?\n\nSee the [guide](GUIDE.md#configuration-file), \
         [again](<GUIDE.md#configuration-file>), the [CHANGELOG](CHANGELOG.md \"log\"),\n\
         [errors][e], <a href=\"sub/run.md#expose\">run</a>, [web](https://x.org/README.md),\n\
         [image](logo.png) and [%C3%A9t%C3%A9](notes%20d'%C3%A9t%C3%A9.md#caf%C3%A9).\n\n\
         [e]: ../api/errors.md#common-system-errors\n\n\
         ```\n[fenced](GUIDE.md)\n```\n\n\
         <h2 name=\"tagged\">Tagged</h2>\n\n## Colours {#colors}\n\nx\n",
    )
    .unwrap();
    let built = Document::build(
        &src,
        &std::fs::read(&src).unwrap(),
        "faq",
        true,
        &BuildOptions::default(),
    )
    .unwrap()
    .document;
    let t = &built.tree;
    let config = node(t, "Config?");
    let link = |file: &str, anchor: Option<&str>| ExternalLink {
        from: config,
        file: file.into(),
        anchor: anchor.map(String::from),
    };
    assert_eq!(
        t.links.external,
        vec![
            link("GUIDE.md", Some("configuration-file")),
            link("CHANGELOG.md", None),
            link("../api/errors.md", Some("common-system-errors")),
            link("sub/run.md", Some("expose")),
            link("notes d'été.md", Some("café")),
        ]
    );
    assert_eq!(
        t.links.anchors,
        vec![
            ("tagged".to_string(), node(t, "Tagged")),
            ("colors".to_string(), node(t, "Colours")),
        ]
    );
}

/// Issue 14.5: `cat` resolves a link to another indexed document when it prints its `see also`
/// line — the FAQ's "Does ripgrep support configuration files?" names the guide's section, which
/// `cat` then reads — and drops links to files that are not indexed.
#[test]
fn cat_follows_links_into_other_indexed_documents() {
    use docnav::nav::{Role, Session, Status};
    let faq_only: Arc<dyn Library> = Arc::new(
        InMemoryLibrary::from_paths(&[fixture("ripgrep__FAQ.md")], &BuildOptions::default())
            .unwrap(),
    );
    let both: Arc<dyn Library> = Arc::new(
        InMemoryLibrary::from_paths(
            &[fixture("ripgrep__FAQ.md"), fixture("ripgrep__GUIDE.md")],
            &BuildOptions::default(),
        )
        .unwrap(),
    );
    let cat = |lib: &Arc<dyn Library>, line: &str| {
        let out = Session::new(lib.clone(), Role::Person)
            .execute(line)
            .unwrap();
        assert_eq!(out.status, Status::Ok, "{line}: {}", out.text);
        out.text
    };
    let question = "cat '/ripgrep-faq/FAQ/Does ripgrep support configuration files?'";
    let alone = cat(&faq_only, question);
    assert!(!alone.contains("see also"), "{alone}");
    let linked = cat(&both, question);
    assert_eq!(
        linked.lines().last(),
        Some("[see also: /ripgrep-guide/#1.8 Configuration file]"),
        "{linked}"
    );
    let guide = cat(&both, "cat /ripgrep-guide/#1.8");
    assert!(guide.contains("RIPGREP_CONFIG_PATH"), "{guide}");
    // The FAQ's "file encoding" answer links the guide's section of that name.
    let encoding = cat(&both, "cat /ripgrep-faq/1/7");
    assert!(
        encoding.contains("How do I search files that aren't UTF-8?")
            && encoding.contains("[see also: /ripgrep-guide/#1.9 File encoding]"),
        "{encoding}"
    );
}
