//! The web app's pages over real HTTP on 127.0.0.1: the icon every browser asks for, the
//! Library's count, filter and pages, kept in the URL, the Reader's section as the server
//! renders it (no script), and a big trace's page read only as far as it shows.

use pretty_assertions::assert_eq;

use super::common::run;
use super::mcp::workspace;
use crate::support::server::{client, Served};

/// Status, content type and body of `GET path`.
async fn fetch(served: &Served, path: &str) -> (u16, String, String) {
    let r = client().get(served.at(path)).send().await.unwrap();
    let status = r.status().as_u16();
    let mime = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, mime, r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_favicon_is_served_to_everyone_and_linked_from_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    // With a token: the login page asks for the icon before anyone has logged in.
    let token = "correct-horse-battery-staple";
    let served = Served::start(&ws, &[], &[("DOCNAV_TOKEN", token.to_string())]);

    let (status, mime, svg) = fetch(&served, "/favicon.svg").await;
    assert_eq!((status, mime.as_str()), (200, "image/svg+xml"));
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(!svg.contains("<script") && !svg.contains("style="), "{svg}");
    let (status, mime, ico) = fetch(&served, "/favicon.ico").await;
    assert_eq!((status, mime.as_str(), ico), (200, "image/svg+xml", svg));

    let (status, _, login) = fetch(&served, "/login").await;
    assert_eq!(status, 200);
    assert!(
        login.contains(r#"<link rel="icon" href="/favicon.svg" type="image/svg+xml">"#),
        "{login}"
    );

    // Cached like the other assets: an unchanged icon costs a 304.
    let first = client()
        .get(served.at("/favicon.ico"))
        .send()
        .await
        .unwrap();
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    let again = client()
        .get(served.at("/favicon.ico"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 304);

    // Everything else still needs the token.
    let page = client().get(served.at("/")).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 303, "{:?}", page.headers());
}

/// A workspace of 117 documents: `alpha-000`…`alpha-059` ("Alpha report N"), `beta-000`…
/// `beta-054` ("Beta notes N"), `gamma` ("The Zebra Handbook") and `plain` (text).
pub fn library_workspace(dir: &std::path::Path) -> std::path::PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for i in 0..60 {
        let body = format!("# Alpha report {i}\n\nQuarterly figures.\n");
        std::fs::write(src.join(format!("alpha-{i:03}.md")), body).unwrap();
    }
    for i in 0..55 {
        let body = format!("# Beta notes {i}\n\nMeeting minutes.\n");
        std::fs::write(src.join(format!("beta-{i:03}.md")), body).unwrap();
    }
    std::fs::write(src.join("gamma.md"), "# The Zebra Handbook\n\nStripes.\n").unwrap();
    std::fs::write(src.join("plain.txt"), "1 Start\n\nJust words.\n").unwrap();
    let ws = dir.join("ws");
    let r = run(&ws, &["index", src.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    ws
}

/// The text between `start` and the next `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {html}"))
        + start.len();
    let len = html[from..].find(end).unwrap();
    &html[from..from + len]
}

/// What the Library page says: the count line, the table's heading, the pager, the doc ids of
/// its rows, and its Previous and Next links.
#[derive(Debug, PartialEq)]
struct Listing {
    meta: String,
    heading: String,
    pager: String,
    ids: Vec<String>,
    previous: Option<String>,
    next: Option<String>,
}

fn listing(html: &str) -> Listing {
    let link = |rel: &str| {
        let marker = format!("\" rel=\"{rel}\"");
        html.find(&marker).map(|at| {
            let start = html[..at].rfind("href=\"").unwrap() + "href=\"".len();
            // The template escapes `&` in attributes as `&#38;`.
            html[start..at].replace("&#38;", "&")
        })
    };
    Listing {
        meta: between(html, "<p class=\"meta\">", " · ").to_string(),
        heading: between(html, "<h2 id=\"docs-title\">", "</h2>").to_string(),
        pager: between(html, "<span>Page ", "</span>").to_string(),
        ids: html
            .split("<div class=\"id\">")
            .skip(1)
            .map(|s| s[..s.find("</div>").unwrap()].to_string())
            .collect(),
        previous: link("prev"),
        next: link("next"),
    }
}

async fn library(served: &Served, path: &str) -> Listing {
    let (status, _, html) = fetch(served, path).await;
    assert_eq!(status, 200, "{path}: {html}");
    listing(&html)
}

fn names(prefix: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("{prefix}-{i:03}")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_library_counts_every_document_and_pages_them_in_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let ws = library_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);

    assert_eq!(
        library(&served, "/").await,
        Listing {
            meta: "117 documents".into(),
            heading: "Documents 1–50 of 117".into(),
            pager: "1 of 3".into(),
            ids: names("alpha", 0..50),
            previous: None,
            next: Some("/?page=2".into()),
        }
    );
    let mut last_ids = names("beta", 40..55);
    last_ids.extend(["gamma".to_string(), "plain".to_string()]);
    assert_eq!(
        library(&served, "/?page=3").await,
        Listing {
            meta: "117 documents".into(),
            heading: "Documents 101–117 of 117".into(),
            pager: "3 of 3".into(),
            ids: last_ids.clone(),
            previous: Some("/?page=2".into()),
            next: None,
        }
    );
    // A page past the end shows the last one.
    assert_eq!(library(&served, "/?page=9").await.ids, last_ids);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_library_filters_by_id_title_and_format_and_keeps_the_filter_in_its_links() {
    let dir = tempfile::tempdir().unwrap();
    let ws = library_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);

    // By id, paged, the filter kept in the pager's links.
    assert_eq!(
        library(&served, "/?q=beta").await,
        Listing {
            meta: "117 documents".into(),
            heading: "Documents 1–50 of 55 matching “beta”".into(),
            pager: "1 of 2".into(),
            ids: names("beta", 0..50),
            previous: None,
            next: Some("/?q=beta&page=2".into()),
        }
    );
    assert_eq!(
        library(&served, "/?q=beta&page=2").await,
        Listing {
            meta: "117 documents".into(),
            heading: "Documents 51–55 of 55 matching “beta”".into(),
            pager: "2 of 2".into(),
            ids: names("beta", 50..55),
            previous: Some("/?q=beta&page=1".into()),
            next: None,
        }
    );
    assert_eq!(
        library(&served, "/?q=beta&page=7").await.ids,
        names("beta", 50..55),
        "past the end: the last page"
    );
    // By title (not in the id), any case; by format; by a part of an id.
    assert_eq!(library(&served, "/?q=zEBRA").await.ids, vec!["gamma"]);
    assert_eq!(library(&served, "/?q=text").await.ids, vec!["plain"]);
    assert_eq!(
        library(&served, "/?q=A-05").await.ids,
        [names("alpha", 50..60), names("beta", 50..55)].concat()
    );
    assert_eq!(
        library(&served, "/?q=report+7").await.ids,
        vec!["alpha-007"],
        "a title's words with the space between them"
    );

    // Nothing matches: said so, with the way back.
    let (status, _, html) = fetch(&served, "/?q=%25").await;
    assert_eq!(status, 200);
    let none = listing(&html);
    assert_eq!(
        (none.heading.as_str(), none.ids.len(), none.pager.as_str()),
        ("No documents matching “%”", 0, "1 of 1")
    );
    assert!(
        html.contains("<p id=\"no-match\">No document's id or title contains “%”"),
        "{html}"
    );
    assert!(html.contains("<a href=\"/\">Show all</a>"), "{html}");

    // The filter is text in the page, never markup.
    let (status, _, html) = fetch(&served, "/?q=%3Cimg%20src%3Dx%3E%22").await;
    assert_eq!(status, 200);
    assert!(!html.contains("<img"), "{html}");
    assert!(
        html.contains(r#"value="&#60;img src=x&#62;&#34;""#)
            || html.contains(r#"value="&lt;img src=x&gt;&quot;""#),
        "{html}"
    );
}

/// `GET path` as JSON.
async fn api(served: &Served, path: &str) -> (u16, serde_json::Value) {
    let r = client().get(served.at(path)).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

fn ids_of(page: &serde_json::Value) -> Vec<String> {
    page["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_docs_api_filters_by_id_title_and_format_like_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let ws = library_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);

    // By id, paged like the catalog: `total` counts what the filter keeps.
    let (status, page) = api(&served, "/api/v1/docs?q=beta&limit=50").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        (
            page["total"].clone(),
            page["offset"].clone(),
            page["next_offset"].clone()
        ),
        (
            serde_json::json!(55),
            serde_json::json!(0),
            serde_json::json!(50)
        )
    );
    assert_eq!(ids_of(&page), names("beta", 0..50));
    let (_, last) = api(&served, "/api/v1/docs?q=BETA&offset=50&limit=50").await;
    assert_eq!(ids_of(&last), names("beta", 50..55));
    assert_eq!(last["next_offset"], serde_json::Value::Null);
    // By title (a word only the title holds), by format, and nothing.
    let (_, zebra) = api(&served, "/api/v1/docs?q=zebra").await;
    assert_eq!(
        (ids_of(&zebra), zebra["total"].clone()),
        (vec!["gamma".to_string()], serde_json::json!(1))
    );
    let (_, text) = api(&served, "/api/v1/docs?q=text").await;
    assert_eq!(ids_of(&text), ["plain"]);
    let (_, none) = api(&served, "/api/v1/docs?q=nothing-like-this").await;
    assert_eq!(
        (none["total"].clone(), ids_of(&none).len()),
        (serde_json::json!(0), 0)
    );
    // A blank filter is the whole catalog.
    let (_, all) = api(&served, "/api/v1/docs?q=%20&limit=1").await;
    assert_eq!(all["total"], 117);
    // Bad filters are 400s that say why.
    let long = "x".repeat(201);
    for (path, detail) in [
        (
            format!("/api/v1/docs?q={long}"),
            "the filter `q` is over 200 chars (ids and titles are shorter)",
        ),
        (
            "/api/v1/docs?q=beta&for=notes".to_string(),
            "give either `for` (rank for a question) or `q` (filter by id, title or format)",
        ),
    ] {
        let (status, body) = api(&served, &path).await;
        assert_eq!(
            (status, body["error"].as_str(), body["detail"].as_str()),
            (400, Some("bad_request"), Some(detail))
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reader_links_to_its_source_view_and_back_without_script() {
    let dir = tempfile::tempdir().unwrap();
    let ws = library_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);
    let (status, _, formatted) = fetch(&served, "/doc/gamma/").await;
    assert_eq!(status, 200);
    assert!(
        formatted.contains(r#"<a id="view-toggle" href="?view=source">Show source lines</a>"#),
        "{formatted}"
    );
    let (status, _, source) = fetch(&served, "/doc/gamma/?view=source").await;
    assert_eq!(status, 200);
    assert!(
        source.contains(r#"<a id="view-toggle" href="?">Show formatted</a>"#),
        "{source}"
    );
    // The Reader's other parameter, `mark`, is the script's; the page still answers.
    let (status, _, _) = fetch(&served, "/doc/gamma/?mark=1-4&view=source").await;
    assert_eq!(status, 200);
}

/// The texts inside `<mark>` in `html`, in order.
fn marked(html: &str) -> Vec<&str> {
    html.split("<mark>")
        .skip(1)
        .map(|m| m.split("</mark>").next().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reader_renders_a_section_its_grep_line_and_evidence_without_script() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let served = Served::start(&ws, &[], &[]);

    // A section by its URL: heading, place, neighbours and the formatted text, in the page.
    let (status, _, page) = fetch(&served, "/doc/ripgrep-faq/?s=1.8").await;
    assert_eq!(status, 200);
    let pane = between(&page, "<article id=\"section\"", "</article>");
    for part in [
        "<h2 id=\"section-title\">§1.8 How do I search compressed files?</h2>",
        "<p class=\"meta\">lines 163–176 · 501 chars</p>",
        "<a href=\"?s=1.9#1.9\" data-s=\"1.9\" rel=\"next\">",
        "<a href=\"?s=1.7#1.7\" data-s=\"1.7\" rel=\"prev\">",
        "<div class=\"section-body rendered\" role=\"document\">",
        "<h1><span id=\"L1\"></span>How do I search compressed files?</h1>",
        "<code>-z/--search-zip</code>",
    ] {
        assert!(pane.contains(part), "{part} not in {pane}");
    }
    assert!(marked(pane).is_empty(), "{pane}");
    assert!(page.contains("data-s=\"1.8\" aria-selected=\"true\""));
    // Raw HTML of the document is text, never markup.
    assert!(!pane.contains("<h3 name="), "{pane}");

    // A grep hit (line 3): that line's own text is marked, its block is the target, and #L3
    // lands on it.
    let (_, _, hit) = fetch(&served, "/doc/ripgrep-faq/?s=1.8&line=3").await;
    let pane = between(&hit, "<article id=\"section\"", "</article>");
    assert_eq!(
        marked(pane),
        [
            "ripgrep's ",
            "-z/--search-zip",
            " flag will cause it to search compressed files"
        ]
    );
    assert!(pane.contains("<div class=\"block target\" data-line=\"3\" data-last=\"7\""));
    assert!(pane.contains("<p><span id=\"L3\"></span><mark>ripgrep's </mark>"));
    let toggle = between(&hit, "<a id=\"view-toggle\" href=\"", "\"");
    assert_eq!(toggle, "?view=source&#38;s=1.8&#38;line=3#L3");

    // The same in the source view: numbered lines, line 3 the target, its text marked.
    let (_, _, source) = fetch(&served, "/doc/ripgrep-faq/?view=source&s=1.8&line=3").await;
    let pane = between(&source, "<article id=\"section\"", "</article>");
    assert!(pane.contains("<div class=\"line target\" id=\"L3\" data-line=\"3\"><span class=\"gutter\" aria-hidden=\"true\">3</span><span class=\"src\"><mark>ripgrep&#39;s `-z/--search-zip` flag will cause it to search compressed files</mark></span></div>"), "{pane}");
    // Its links keep the view.
    assert!(
        pane.contains("<a href=\"?view=source&#38;s=1.9#1.9\" data-s=\"1.9\" rel=\"next\">"),
        "{pane}"
    );

    // An evidence span (chars 75..110 of the section's text, inside line 3): just those chars.
    let (_, _, evidence) = fetch(&served, "/doc/ripgrep-faq/?s=1.8&mark=75-110").await;
    let pane = between(&evidence, "<article id=\"section\"", "</article>");
    assert_eq!(marked(pane), ["cause it to search compressed files"]);
    assert_eq!(pane.matches("class=\"block marked\"").count(), 1);

    // The pane alone, for the script.
    let (status, _, part) = fetch(&served, "/doc/ripgrep-faq/?s=1.8&part=section").await;
    assert_eq!(status, 200);
    assert!(
        part.starts_with("<div class=\"pane\" data-s=\"1.8\""),
        "{part}"
    );
    assert!(!part.contains("<html"));
    // Errors are pages that say what is wrong.
    let (status, _, missing) = fetch(&served, "/doc/ripgrep-faq/?s=9.9").await;
    assert_eq!(status, 404);
    assert!(
        missing.contains("ripgrep-faq has no section 9.9"),
        "{missing}"
    );
    let (status, _, _) = fetch(&served, "/doc/ripgrep-faq/?s=x.1").await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_big_traces_page_stays_bounded_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let traces = ws.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    // 16 MB: 4,000 commands, each with a 4,000-char observation.
    let mut text = serde_json::json!({
        "type": "header", "format_version": 4, "docnav_version": "0.1.0",
        "question": "big", "model": "fake-model", "options": {}, "documents": [],
        "started_unix_ms": 1_795_622_671_000u64,
    })
    .to_string();
    text.push('\n');
    let actor = "r1-w1-notes";
    text.push_str(
        &serde_json::json!({"actor": actor, "seq": 0, "type": "worker_started", "doc_id": "notes", "task": "t"})
            .to_string(),
    );
    text.push('\n');
    for i in 0..4000u64 {
        let observation = format!("obs{i:04} {}", "x".repeat(3992));
        for event in [
            serde_json::json!({"actor": actor, "seq": 1 + 2 * i, "type": "command", "line": format!("cat {i}")}),
            serde_json::json!({"actor": actor, "seq": 2 + 2 * i, "type": "observation", "text": observation,
                "chars": 4000, "sha256": "0".repeat(64), "error": false}),
        ] {
            text.push_str(&event.to_string());
            text.push('\n');
        }
    }
    assert!(text.len() > 16_000_000);
    let name = "20261125T160431Z-big.jsonl";
    std::fs::write(traces.join(name), &text).unwrap();
    let served = Served::start(&ws, &[], &[]);

    let (status, _, html) = fetch(&served, &format!("/trace/{name}")).await;
    assert_eq!(status, 200);
    assert!(html.len() < 2_500_000, "the page is {} bytes", html.len());
    // The first observations whole; the note says what is left out and where it is.
    assert!(html.contains(&format!("obs0000 {}", "x".repeat(3992))));
    assert!(
        // The page read the first 2,000 events (about 4 MB) and counted the other 6,001.
        html.contains("6001 later events of the file are not read, 750 texts are cut."),
        "{}",
        &html[..4000]
    );
    assert!(html.contains("more chars not shown on this page; Download has the whole trace"));
    assert!(html.contains(&format!(
        "href=\"/api/v1/traces/{name}/raw\" download>Download</a> has the whole trace"
    )));
}
