//! `docnav publish` and `docnav index --publish`: a workspace published as generations that
//! every command opens read-only, through the real binary.

use pretty_assertions::assert_eq;

use super::common::{fixture, index_notes_and_faq, run};

#[test]
fn a_published_folder_answers_as_its_workspace_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let out = dir.path().join("pub");
    let faq = fixture("ripgrep__FAQ.md");
    let faq = faq.to_str().unwrap();
    let indexed = run(
        &ws,
        &[
            "index",
            faq,
            "--publish",
            out.to_str().unwrap(),
            "--keep",
            "2",
        ],
    );
    assert_eq!(indexed.code, 0, "{}", indexed.stderr);
    assert!(
        indexed.stderr.contains("published `") && indexed.stderr.contains("gen-000001"),
        "{}",
        indexed.stderr
    );
    index_notes_and_faq(&ws);
    let published = run(&ws, &["publish", out.to_str().unwrap(), "--keep", "2"]);
    assert_eq!(published.code, 0, "{}", published.stderr);
    assert_eq!(
        published.stdout,
        format!("{}\n", out.join("gen-000002").display())
    );

    for args in [
        &["docs", "--json"][..],
        &["ask", "--lexical", "how do I search compressed files"][..],
        &["tree", "notes"][..],
    ] {
        let from_ws = run(&ws, args);
        let from_pub = run(&out, args);
        assert_eq!(from_ws.code, 0, "{args:?}: {}", from_ws.stderr);
        assert_eq!(
            (from_pub.code, without_timing(&from_pub.stdout)),
            (0, without_timing(&from_ws.stdout)),
            "{args:?}: {}",
            from_pub.stderr
        );
    }

    let verified = run(&out, &["publish", "--verify", out.to_str().unwrap()]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
    assert_eq!(verified.stdout.lines().count(), 2, "{}", verified.stdout);
    assert!(
        verified.stdout.lines().all(|l| l.contains(": ok (")),
        "{}",
        verified.stdout
    );

    // A tree file changed in place (a copy of it: the generations and the workspace share
    // links) keeps its size and name, so opening still takes the generation; --verify names it.
    let docs = out.join("gen-000002").join("docs");
    let tree = std::fs::read_dir(&docs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&tree).unwrap();
    bytes[0] ^= 0xFF;
    std::fs::remove_file(&tree).unwrap();
    std::fs::write(&tree, &bytes).unwrap();
    let verified = run(&out, &["publish", "--verify", out.to_str().unwrap()]);
    assert_eq!(verified.code, 1, "{}", verified.stderr);
    assert_eq!(
        verified.stdout.lines().next().unwrap(),
        format!(
            "{}: incomplete or damaged: `{}` does not have the sha256 `docs.sha256` lists",
            out.join("gen-000002").display(),
            tree.display()
        )
    );

    let refused = run(&out, &["index", faq]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let errors = refused.error_lines();
    assert_eq!(errors.len(), 1, "{}", refused.stderr);
    assert!(
        errors[0].contains(&format!("`{}`", out.display())) && errors[0].contains("read-only"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_publish_folder_without_a_complete_generation_names_the_folder_and_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let out = dir.path().join("pub");
    index_notes_and_faq(&ws);
    assert_eq!(run(&ws, &["publish", out.to_str().unwrap()]).code, 0);
    std::fs::remove_file(out.join("gen-000001").join("manifest.json")).unwrap();
    let r = run(&out, &["docs"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let errors = r.error_lines();
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].contains(&format!("publish folder `{}`", out.display()))
            && errors[0].contains("docnav publish"),
        "{}",
        errors[0]
    );
}

/// `stdout` without `ask`'s closing line (`N evidence · … · T ms`), whose time differs from run
/// to run.
fn without_timing(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|line| !(line.contains(" evidence · ") && line.contains(" tokens · ")))
        .collect::<Vec<_>>()
        .join("\n")
}
