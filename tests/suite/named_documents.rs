//! Other documents named in the text (`except those listed in FHS, section 4.9`): kept as
//! written at build time, resolved by `cat` against the catalog, and followed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pretty_assertions::assert_eq;

use docnav::index::cross_refs::named::named_document;
use docnav::nav::{Role, Session, Status};
use docnav::tree::references::section_node;
use docnav::tree::BuildOptions;
use docnav::workspace::{InMemoryLibrary, Library, Workspace};

use super::common::fixture;

/// The Debian Policy excerpt that cites `FHS, section 4.9` (section 9.1.2 as `pdftotext`
/// extracts it; see `fixtures/SOURCES.md`).
fn policy_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/named/debian-policy-9.1.2.txt")
}

/// The policy excerpt beside `fhs-3.0.pdf`.
fn policy_and_fhs() -> Arc<dyn Library> {
    Arc::new(
        InMemoryLibrary::from_paths(
            &[policy_path(), fixture("fhs-3.0.pdf")],
            &BuildOptions::default(),
        )
        .unwrap(),
    )
}

fn exec(lib: &Arc<dyn Library>, line: &str) -> String {
    let out = Session::new(lib.clone(), Role::Person)
        .execute(line)
        .unwrap();
    assert_eq!(out.status, Status::Ok, "{line}: {}", out.text);
    out.text
}

/// The policy's text keeps `FHS, section 4.9` as written (not `see the FHS web site`, which
/// names a web site); `cat` names FHS's section 4.9 (printed `4.9. /usr/local : Local
/// hierarchy`), and following it reads that section.
#[test]
fn cat_follows_a_named_document_section_into_the_fhs() {
    let lib = policy_and_fhs();
    let policy = lib.document("debian-policy-9-1-2").unwrap();
    let named: Vec<(String, Option<String>)> = policy
        .tree
        .links
        .named
        .iter()
        .map(|m| (m.name.clone(), m.section.clone()))
        .collect();
    assert_eq!(
        named,
        vec![("FHS".to_string(), Some("section 4.9".to_string()))]
    );
    let out = exec(&lib, "cat /debian-policy-9-1-2");
    assert_eq!(
        out.lines().last(),
        Some("[see also: /fhs-3-0/#4.9 4.9. /usr/local : Local hierarchy]"),
        "{out}"
    );
    let target = exec(&lib, "cat /fhs-3-0/#4.9");
    assert!(
        target.contains("The /usr/local hierarchy is for use by the system administrator"),
        "{target}"
    );
}

/// Without the FHS indexed, nothing is named: the mention stays in the tree unresolved.
#[test]
fn a_named_document_that_is_not_indexed_is_left_out() {
    let lib: Arc<dyn Library> = Arc::new(
        InMemoryLibrary::from_paths(
            &[policy_path(), fixture("R-intro.pdf")],
            &BuildOptions::default(),
        )
        .unwrap(),
    );
    let out = exec(&lib, "cat /debian-policy-9-1-2");
    assert!(!out.contains("see also"), "{out}");
}

/// The CLI, indexing into a workspace, and the web Reader's section view show the same
/// reference (the server's `see_also` is `cat`'s list).
#[tokio::test(flavor = "multi_thread")]
async fn the_cli_and_the_server_show_a_named_document_section() {
    use crate::support::server::{client, Served};
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let policy = policy_path();
    let fhs = fixture("fhs-3.0.pdf");
    let r = super::common::run(
        &ws,
        &["index", policy.to_str().unwrap(), fhs.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cat = super::common::run(&ws, &["exec", "cat /debian-policy-9-1-2"]);
    assert_eq!(
        cat.stdout.lines().last(),
        Some("[see also: /fhs-3-0/#4.9 4.9. /usr/local : Local hierarchy]"),
        "{}",
        cat.stdout
    );
    let served = Served::start(&ws, &[], &[]);
    let section: serde_json::Value = client()
        .get(served.at("/api/v1/docs/debian-policy-9-1-2/section?structure="))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        section["see_also"],
        serde_json::json!([{
            "doc_id": "fhs-3-0",
            "structure": "4.9",
            "title": "4.9. /usr/local : Local hierarchy"
        }])
    );
}

/// Every mention of another document in a workspace that resolves, with its target, for a
/// person to read (what BENCHMARKS.md counts over the corpus). Run:
/// `DOCNAV_WORKSPACE=/tmp/ws cargo test --test all -- --ignored --nocapture named_documents_in_a_workspace`
/// after `docnav index <corpus copy> --workspace /tmp/ws`.
#[test]
#[ignore = "survey of a workspace named by DOCNAV_WORKSPACE"]
fn named_documents_in_a_workspace() {
    let Ok(dir) = std::env::var("DOCNAV_WORKSPACE") else {
        eprintln!("DOCNAV_WORKSPACE not set: skipped");
        return;
    };
    let ws = Workspace::open(Path::new(&dir)).unwrap();
    let (mut mentions, mut resolved, mut sections) = (0, 0, 0);
    let cards = ws.all_cards();
    for card in &cards {
        let doc = ws.document(&card.doc_id).unwrap();
        let tree = &doc.tree;
        for m in &tree.links.named {
            mentions += 1;
            let Some(other) = named_document(m, &card.doc_id, tree, &cards) else {
                continue;
            };
            resolved += 1;
            let (name, section) = (&m.name, &m.section);
            let target = ws.document(other).unwrap();
            let node = section
                .as_deref()
                .and_then(|s| section_node(&target.tree, s));
            if node.is_some() {
                sections += 1;
            }
            let shown = node.map_or_else(
                || target.tree.title().to_string(),
                |n| {
                    format!(
                        "#{} {}",
                        target.tree.node(n).structure,
                        target.tree.node(n).title
                    )
                },
            );
            println!(
                "{} › {} | {name:?} {section:?} → /{other} {shown}",
                card.doc_id,
                tree.node(m.from).title,
            );
        }
    }
    println!("{mentions} mentions kept, {resolved} resolved ({sections} to a section)");
}
