//! The web app's pages over real HTTP on 127.0.0.1: the icon every browser asks for.

use pretty_assertions::assert_eq;

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
