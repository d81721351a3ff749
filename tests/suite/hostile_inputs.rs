//! Hostile files and workspaces that already hold up, pinned (issue 11, "keep and test what
//! already holds"): concurrent index runs, odd file names, symlink loops, a cyclic PDF outline,
//! a one-line section of a megabyte. (SIGKILL during `index --force` is
//! `cli_index::killing_index_midway_leaves_a_loadable_workspace`; random shell lines are
//! the `execute_never_panics` proptest in `nav.rs`.)

use std::path::Path;

use docnav::parse::pdf::parse_pdf;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::{docnav, fixture, run};

fn doc_ids(ws: &Path) -> Vec<String> {
    let r = run(ws, &["docs", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cards: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    cards
        .iter()
        .map(|c| c["doc_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn two_index_runs_at_once_both_succeed_and_keep_every_document() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let spawn = |docs: [&str; 2]| docnav(&ws).arg("index").args(docs.map(fixture)).output();
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| spawn(["ripgrep__GUIDE.md", "notes.txt"]));
        let b = s.spawn(|| spawn(["ripgrep__FAQ.md", "multilingual.md"]));
        (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
    });
    for out in [&a, &b] {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        doc_ids(&ws),
        vec!["multilingual", "notes", "ripgrep-faq", "ripgrep-guide"]
    );
}

#[cfg(unix)]
#[test]
fn odd_file_names_and_symlink_loops_index_cleanly() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("new\nline.md"), "# Newline\n\nin the name\n").unwrap();
    let latin1 = std::ffi::OsStr::from_bytes(b"caf\xe9 cr\xe8me.md");
    std::fs::write(src.join(latin1), "# Latin-1\n\nbytes in the name\n").unwrap();
    std::os::unix::fs::symlink(".", src.join("loop")).unwrap();
    std::os::unix::fs::symlink(&src, src.join("parent-loop")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/gone.md", src.join("dangling.md")).unwrap();

    let ws = dir.path().join("ws");
    let r = run(&ws, &["index", src.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("indexed 2 documents (0 unchanged, 0 failed)"),
        "{}",
        r.stderr
    );
    let ids = doc_ids(&ws);
    assert_eq!(ids.len(), 2, "{ids:?}");
    for id in &ids {
        assert!(
            id.chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_'),
            "{id:?}"
        );
        let cat = run(&ws, &["exec", &format!("cat /{id}")]);
        assert_eq!(cat.code, 0, "{}", cat.stderr);
    }
}

#[test]
fn a_cyclic_pdf_outline_is_read_once_around() {
    use lopdf::{dictionary, Object};
    let mut doc = super::parse_pdf::one_page_pdf("Chapter text");
    let page = *doc.get_pages().values().next().unwrap();
    let outlines = doc.new_object_id();
    let (a, b) = (doc.new_object_id(), doc.new_object_id());
    let dest = || vec![Object::Reference(page), "Fit".into()];
    // A → B → A via /Next, and B is its own first child.
    doc.objects.insert(
        a,
        Object::Dictionary(dictionary! {
            "Title" => Object::string_literal("Alpha"), "Parent" => outlines,
            "Next" => b, "Dest" => dest(),
        }),
    );
    doc.objects.insert(
        b,
        Object::Dictionary(dictionary! {
            "Title" => Object::string_literal("Beta"), "Parent" => outlines,
            "Next" => a, "First" => b, "Dest" => dest(),
        }),
    );
    super::parse_pdf::attach_outlines(&mut doc, outlines, (a, b, 2));
    let bytes = super::parse_pdf::save(doc);

    let parsed = parse_pdf(Path::new("cyclic.pdf"), &bytes).unwrap();
    let titles: Vec<&str> = parsed.sections.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, vec!["Alpha", "Beta"]);
}

/// A section that is one line of a megabyte (the 30 MB case is measured by `benches/scale.rs`,
/// peak RSS and all): `cat` shows one budget's worth and says how to read on, `cat -o` reads
/// on, and the last page says where it ends.
#[test]
fn a_one_line_megabyte_section_pages_by_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("one-line.md");
    let words = "lorem ipsum dolor sit amet ".repeat(40_000);
    std::fs::write(&doc, format!("# Huge\n\n{words}\n")).unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(run(&ws, &["index", doc.to_str().unwrap()]).code, 0);
    let total = "# Huge\n\n".len() + words.trim_end().len() + 1;

    let first = run(&ws, &["exec", "cat /one-line"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let lines: Vec<&str> = first.stdout.lines().collect();
    assert_eq!(lines[0], "== one-line  (lines 1–3) ==");
    let body: String = first.stdout[lines[0].len() + 1..]
        .lines()
        .take_while(|l| !l.starts_with("[chars "))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(body.chars().count(), 4000);
    assert_eq!(
        *lines.last().unwrap(),
        format!(
            "[chars 0–4000 of {total} shown (lines 1–3 of 3): page cut at its last char within \
             the 4000-char output budget; read on: cat -o 4000 /one-line]"
        )
    );

    let last = run(&ws, &["exec", &format!("cat -o {} /one-line", total - 10)]);
    assert_eq!(last.code, 0, "{}", last.stderr);
    assert_eq!(
        last.stdout,
        format!(
            "== one-line  (lines 1–3) ==\n sit amet\n[chars {}–{total} of {total} shown (line 3 of 3); end of /one-line]\n",
            total - 10
        )
    );
}
