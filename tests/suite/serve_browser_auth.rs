//! The token-protected web app in a real headless Chromium: a person logs in, reads, asks (BM25)
//! and logs out; a page of another site (another port on 127.0.0.1) that posts to the server or
//! sends the browser to `/ask?q=…&run=1` while the person is logged in makes no model call and
//! stores no trace. Screenshots go to `target/screenshots/`.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::mcp::workspace;
use crate::support::browser::{browser_available, Browser};
use crate::support::fake_model::FakeModel;
use crate::support::server::Served;

const TOKEN: &str = "correct-horse-battery-staple";

async fn text_of(browser: &Browser, css: &str) -> String {
    browser.find(css).await.text().await.unwrap()
}

/// Open `path` on `served`, which sends the browser to the login form, and log in there.
async fn log_in(browser: &Browser, served: &Served, path: &str) {
    browser.client.goto(&served.at(path)).await.unwrap();
    browser
        .until("location.pathname === '/login'", "the login page")
        .await;
    browser.find("#token").await.send_keys(TOKEN).await.unwrap();
    browser
        .find("form.login button[type=submit]")
        .await
        .click()
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn log_in_read_ask_with_bm25_and_log_out_in_chromium() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let served = Served::start(&ws, &[], &[("DOCNAV_TOKEN", TOKEN.to_string())]);
    let browser = Browser::start().await;
    let c = &browser.client;

    // The Reader, through the login form, back where the person was going.
    log_in(&browser, &served, "/doc/ripgrep-faq/").await;
    browser
        .until(
            "location.pathname === '/doc/ripgrep-faq/' && \
             (document.querySelector('#section-title')||{}).textContent",
            "the Reader after logging in",
        )
        .await;
    browser.screenshot("login-reader").await;
    c.goto(&served.at("/doc/ripgrep-faq/#1.8")).await.unwrap();
    browser
        .until(
            "(document.querySelector('#section-title')||{}).textContent === \
             '§1.8 How do I search compressed files?'",
            "section 1.8",
        )
        .await;

    // Ask, with the BM25 baseline (no model on this server).
    c.goto(&served.at("/ask")).await.unwrap();
    assert_eq!(
        browser
            .eval("document.querySelector('input[name=mode]:checked').value")
            .await,
        "lexical"
    );
    browser
        .find("#question")
        .await
        .send_keys("How do I search compressed files?")
        .await
        .unwrap();
    browser.find("#ask-button").await.click().await.unwrap();
    browser
        .until(
            "document.querySelectorAll('#evidence li').length > 0",
            "evidence",
        )
        .await;
    assert_eq!(
        text_of(&browser, "#evidence li a").await,
        "ripgrep-faq › FAQ › How do I search compressed files?"
    );
    browser.screenshot("login-ask-bm25").await;

    // Log out: back to the login form, and the pages need it again.
    browser
        .until("!document.querySelector('#logout').hidden", "Log out")
        .await;
    browser.find("#logout button").await.click().await.unwrap();
    browser
        .until("location.pathname === '/login'", "the login page")
        .await;
    c.goto(&served.at("/")).await.unwrap();
    browser
        .until(
            "location.pathname === '/login' && location.search === '?next=%2F'",
            "the login page again",
        )
        .await;
    browser.close().await;
}

/// A site on another port of 127.0.0.1: `/` posts to `target`'s ask (a `fetch` without CORS,
/// then a form), `/go` sends the browser to `target`'s Ask page with `run=1`.
async fn other_site(target: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let target = target.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let page = if head.starts_with("GET /go ") {
                    format!(
                        "<!doctype html><script>location.href = \
                         '{target}/ask?q=spend%20the%20budget&run=1';</script>"
                    )
                } else {
                    format!(
                        r#"<!doctype html><title>other site</title>
<form id="f" method="post" action="{target}/api/v1/ask" enctype="text/plain">
<input type="hidden" name='{{"question":"spend the budget","x":"' value='"}}'></form>
<script>
fetch('{target}/api/v1/ask', {{method: 'POST', mode: 'no-cors', credentials: 'include',
  headers: {{'Content-Type': 'text/plain'}}, body: '{{"question":"spend the budget"}}'}})
  .catch(() => {{}})
  .finally(() => document.getElementById('f').submit());
</script>"#
                    )
                };
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn another_sites_page_starts_no_ask_and_stores_no_trace() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    // Any call would be one more than the empty script: the fake model counts them.
    let fake = FakeModel::start(vec![]).await;
    let served = Served::start(
        &ws,
        &[],
        &[
            ("DOCNAV_TOKEN", TOKEN.to_string()),
            ("DOCNAV_MODEL", "fake-model".to_string()),
            ("OPENAI_BASE_URL", fake.base_url()),
        ],
    );
    let browser = Browser::start().await;
    let c = &browser.client;
    log_in(&browser, &served, "/ask").await;
    browser
        .until("location.pathname === '/ask'", "the Ask page")
        .await;
    let other = other_site(served.url.clone()).await;

    // The posts: the fetch is refused unseen, the form lands on the server's refusal.
    c.goto(&format!("{other}/")).await.unwrap();
    browser
        .until(
            &format!("location.origin === '{}'", served.url),
            "the form's post to the server",
        )
        .await;
    let refusal: Value = serde_json::from_str(&text_of(&browser, "body").await).unwrap();
    assert_eq!(refusal["error"], "cross_origin");

    // The link: the question is filled in, and nothing runs.
    c.goto(&format!("{other}/go")).await.unwrap();
    browser
        .until(
            "location.pathname === '/ask' && \
             (document.querySelector('#question')||{}).value === 'spend the budget'",
            "the Ask page with the question",
        )
        .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(text_of(&browser, "#run-status").await, "");
    assert_eq!(
        browser
            .eval("document.querySelector('#answer').hidden")
            .await,
        true
    );
    browser.screenshot("ask-prefilled-not-run").await;

    assert_eq!(fake.requests().len(), 0, "the model was called");
    let traces: Vec<_> = std::fs::read_dir(ws.join("traces"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(
        traces,
        Vec::<std::ffi::OsString>::new(),
        "a trace was stored"
    );
    browser.close().await;
}
