//! `docnav mcp` resources (`docnav://DOC_ID`, `docnav://DOC_ID/#2.1`) and paging of a 30 MB
//! section, over stdio with rmcp's client.

use std::path::Path;

use pretty_assertions::assert_eq;
use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams, ResourceContents};
use rmcp::ServiceError;
use serde_json::json;

use super::common::run;
use super::mcp::{call, exec, start, structured, text, workspace};

#[tokio::test(flavor = "multi_thread")]
async fn documents_and_sections_are_paged_resources() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["nodejs-doc__fs.md"]);
    let (server, _) = start(&ws, &[], &[]).await;
    // Expected: every document and its sections down to depth 2, as `tree -L 2` lists them.
    let mut expected = 0;
    for doc in ["multilingual", "nodejs-doc-fs", "notes", "ripgrep-guide"] {
        let r = run(
            &ws,
            &["exec", "--budget", "1000000", &format!("tree -L 2 /{doc}")],
        );
        expected += r.stdout.lines().count();
    }
    let mut uris = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = server
            .list_resources(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .unwrap();
        pages += 1;
        assert!(page.resources.len() <= 100);
        uris.extend(page.resources.into_iter().map(|r| r.uri));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert!(pages >= 2, "{pages} page(s)");
    assert_eq!(uris.len(), expected);
    assert_eq!(
        uris[..3],
        [
            "docnav://multilingual",
            "docnav://multilingual/#1",
            "docnav://multilingual/#1.1"
        ]
    );
    let unique: std::collections::HashSet<&String> = uris.iter().collect();
    assert_eq!(unique.len(), uris.len());

    // Reading a section gives what cat reads, below cat's location header.
    let read = server
        .read_resource(ReadResourceRequestParams::new("docnav://notes/#1.1"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents {
        text: body,
        mime_type,
        uri,
        ..
    } = &read.contents[0]
    else {
        panic!("{read:?}");
    };
    assert_eq!(uri, "docnav://notes/#1.1");
    assert_eq!(mime_type.as_deref(), Some("text/plain"));
    let (_, cat) = exec(&ws, None, "cat /notes/#1.1");
    assert_eq!(body.trim_end(), cat.split_once('\n').unwrap().1.trim_end());
    let read = server
        .read_resource(ReadResourceRequestParams::new("docnav://multilingual/#2"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents {
        text: body,
        mime_type,
        ..
    } = &read.contents[0]
    else {
        panic!("{read:?}");
    };
    assert_eq!(mime_type.as_deref(), Some("text/markdown"));
    assert!(body.starts_with("# Café crème\n\nUn café crème"), "{body}");
    // Errors: unknown document or section → resource not found; a bad URI → invalid params.
    for (uri, code) in [
        ("docnav://nope", -32002),
        ("docnav://notes/#9.9", -32002),
        ("file:///etc/passwd", -32602),
    ] {
        match server
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
        {
            Err(ServiceError::McpError(e)) => assert_eq!(e.code.0, code, "{uri}: {}", e.message),
            other => panic!("{uri}: expected an error, got {other:?}"),
        }
    }
    let templates = server.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "docnav://{doc_id}/#{structure}");
    server.cancel().await.unwrap();
}

/// Index a small Markdown file, then swap its section `#1` for `chars` chars of text in the tree
/// file (indexing 30 MB in a debug build takes too long for the suite; what is tested here is
/// reading, not indexing).
fn workspace_with_huge_section(dir: &Path, chars: usize) -> std::path::PathBuf {
    let source = dir.join("big.md");
    std::fs::write(
        &source,
        "# Big\n\nIntro.\n\n## Huge\n\nplaceholder\n\n## After\n\ntail\n",
    )
    .unwrap();
    let ws = dir.join("ws");
    assert_eq!(run(&ws, &["index", source.to_str().unwrap()]).code, 0);
    let docs = ws.join("docs");
    let file = std::fs::read_dir(&docs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut doc =
        docnav::workspace::decode_tree_file(&file, &std::fs::read(&file).unwrap()).unwrap();
    let node = doc.tree.by_structure("1").unwrap();
    let paragraph =
        "Paragraph text that goes on and on, ünïcödé included, to fill the section.\n\n";
    let mut text = String::with_capacity(chars + paragraph.len());
    let mut n = 0;
    let per = paragraph.chars().count();
    while n + per <= chars {
        text.push_str(paragraph);
        n += per;
    }
    text.extend(std::iter::repeat_n('x', chars - n));
    doc.tree.nodes[node.index()].content = text;
    let bytes = docnav::workspace::encode_tree_file(&doc, chars * 2).unwrap();
    std::fs::write(&file, bytes).unwrap();
    ws
}

#[tokio::test(flavor = "multi_thread")]
async fn a_30_mb_section_is_paged_by_budget() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_with_huge_section(dir.path(), 30_000_000);
    let (server, _) = start(&ws, &[], &[]).await;
    let r = call(&server, "cat", json!({"path": "/big/#1", "budget": 100000})).await;
    let page = structured(&server, "cat", &r).await;
    let total = page["total_chars"].as_u64().unwrap();
    assert!(total > 30_000_000, "{total}");
    let end = page["end"].as_u64().unwrap();
    assert!(end <= 100_000 && end > 90_000, "{end}");
    assert_eq!(page["next_offset"], end);
    let shown = text(&r);
    assert!(shown.chars().count() < 100_300, "{}", shown.chars().count());
    assert!(
        shown.ends_with(&format!("read on: cat -o {end} /big/1]")),
        "{}",
        &shown[shown.len() - 200..]
    );
    // The next page starts where this one ended, in the default budget.
    let r = call(&server, "cat", json!({"path": "/big/#1", "offset": end})).await;
    let next = structured(&server, "cat", &r).await;
    assert_eq!(next["offset"], end);
    let next_end = next["end"].as_u64().unwrap();
    assert!(next_end > end && next_end <= end + 4000, "{next}");
    assert_eq!(next["next_offset"], next_end);
    assert!(
        text(&r).starts_with("== big › Huge  (lines 5–8) ==\nParagraph text"),
        "{}",
        text(&r)
    );
    // Everything else stays within its budget too.
    let r = call(
        &server,
        "grep",
        json!({"pattern": "ünïcödé", "path": "/big"}),
    )
    .await;
    assert!(
        text(&r).chars().count() < 4_200,
        "{}",
        text(&r).chars().count()
    );
    assert!(
        text(&r).ends_with("more matching line(s) not shown (narrow the regex or the path, or -m)")
    );
    // A resource read is one bounded page that names the next one.
    let read = server
        .read_resource(ReadResourceRequestParams::new("docnav://big/#1"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text: body, .. } = &read.contents[0] else {
        panic!("{read:?}");
    };
    assert!(body.chars().count() < 100_200);
    let next = body
        .rsplit_once("read on: ")
        .unwrap()
        .1
        .trim_end_matches(']');
    let offset: usize = next
        .strip_prefix("docnav://big/?offset=")
        .and_then(|rest| rest.strip_suffix("#1"))
        .unwrap_or_else(|| panic!("{next}"))
        .parse()
        .unwrap();
    assert!(offset > 90_000 && offset <= 100_000, "{offset}");
    assert!(body.contains(&format!("[chars 0–{offset} of {total} shown; read on: ")));
    let read = server
        .read_resource(ReadResourceRequestParams::new(next))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text: body, .. } = &read.contents[0] else {
        panic!("{read:?}");
    };
    assert!(
        body.contains(&format!("[chars {offset}–")),
        "{}",
        &body[body.len() - 200..]
    );
    server.cancel().await.unwrap();
}
