//! The web app in a real headless Chromium: what a person sees and does. Library and search as
//! you type, the Reader (a section by URL, a reference followed, find and grep, the keyboard
//! alone), Ask against the scripted model with its Worker lanes and evidence, the run's trace and
//! its replay (identical, then a diverging copy), and a hostile document shown as text. Each page
//! is saved as `target/screenshots/*.png`.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::agent::{command, evaluation, plan, understand};
use super::mcp::workspace;
use super::serve_security::hostile_workspace;
use crate::support::browser::{browser_available, key, Browser};
use crate::support::fake_model::{FakeModel, Reply};
use crate::support::server::Served;

/// The text of the first element `css` matches. A page's script may replace the element between
/// finding it and reading it (the library table re-renders as it loads): then it is found again.
async fn text_of(browser: &Browser, css: &str) -> String {
    for _ in 0..50 {
        match browser.find(css).await.text().await {
            Ok(text) => return text,
            Err(e) if format!("{e:?}").contains("StaleElementReference") => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => panic!("reading the text of `{css}`: {e}"),
        }
    }
    panic!("`{css}` was replaced 50 times in a row while its text was read")
}

/// On the Ask page: ask "How do I search compressed files?" of `ripgrep-faq` only.
async fn ask_about_compressed_files(browser: &Browser) {
    browser
        .find("#question")
        .await
        .send_keys("How do I search compressed files?")
        .await
        .unwrap();
    browser
        .find("#doc-ids")
        .await
        .send_keys("ripgrep-faq")
        .await
        .unwrap();
    browser.find("#ask-button").await.click().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn library_search_reader_references_and_keyboard() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let served = Served::start(&ws, &[], &[]);
    let browser = Browser::start().await;
    let c = &browser.client;

    // Library: the documents, and results as you type.
    c.goto(&served.at("/")).await.unwrap();
    let rows = text_of(&browser, "table.docs tbody").await;
    assert!(
        rows.contains("ripgrep-faq") && rows.contains("notes"),
        "{rows}"
    );
    browser
        .find("#q")
        .await
        .send_keys("compressed files")
        .await
        .unwrap();
    browser
        .until(
            "document.querySelectorAll('#results li').length > 0",
            "search results",
        )
        .await;
    let first = text_of(&browser, "#results li").await;
    assert!(
        first.starts_with("ripgrep-faq › FAQ › How do I search compressed files?"),
        "{first}"
    );
    assert_eq!(
        browser
            .eval("document.querySelector('#results li mark').textContent")
            .await,
        "compressed"
    );
    browser.screenshot("library-search").await;

    // Keyboard: down into the results, Enter opens the section in the Reader.
    browser.keys(key::ARROW_DOWN).await;
    browser.keys(key::ENTER).await;
    browser
        .until(
            "location.pathname === '/doc/ripgrep-faq/' && location.hash === '#1.8'",
            "the Reader at #1.8",
        )
        .await;
    browser
        .until(
            "(document.querySelector('#section-title')||{}).textContent === '§1.8 How do I search compressed files?'",
            "section 1.8",
        )
        .await;
    assert_eq!(
        browser
            .eval("document.querySelector('li[aria-selected=true]').dataset.s")
            .await,
        "1.8"
    );
    assert_eq!(
        browser
            .eval("document.querySelector('.section-head .meta').textContent")
            .await,
        "lines 163–176 · 501 chars"
    );
    browser.screenshot("reader").await;

    // A shareable URL opens its section directly; its reference to the guide is a link.
    c.goto(&served.at("/doc/ripgrep-faq/#1.1")).await.unwrap();
    browser
        .until(
            "document.querySelectorAll('.see-also a').length > 0",
            "see also links",
        )
        .await;
    let link = browser.find(".see-also a").await;
    assert_eq!(
        link.text().await.unwrap(),
        "ripgrep-guide #1.8 Configuration file"
    );
    link.click().await.unwrap();
    browser
        .until(
            "location.pathname === '/doc/ripgrep-guide/' && (document.querySelector('#section-title')||{}).textContent === '§1.8 Configuration file'",
            "the referenced section in the guide",
        )
        .await;

    // grep within the document, then to the matching line.
    c.goto(&served.at("/doc/ripgrep-faq/")).await.unwrap();
    browser
        .find("#grep-q")
        .await
        .send_keys("search-zip")
        .await
        .unwrap();
    browser.keys(key::ENTER).await;
    browser
        .until(
            "document.querySelectorAll('#hits li a').length > 0",
            "grep hits",
        )
        .await;
    assert_eq!(text_of(&browser, "#hits li a").await, "1.8:3");
    browser.find("#hits li a").await.click().await.unwrap();
    // Formatted, the block holding line 3 is the target; in the source view, line 3 itself.
    browser
        .until(
            "(b => b && +b.dataset.line <= 3 && 3 <= +b.dataset.last)(document.querySelector('.rendered .block.target'))",
            "the block of line 3 marked",
        )
        .await;
    assert!(
        text_of(&browser, ".block.target")
            .await
            .contains("search-zip"),
        "the target block holds the match"
    );
    c.goto(&served.at("/doc/ripgrep-faq/?view=source#1.8@3"))
        .await
        .unwrap();
    browser
        .until(
            "(document.querySelector('.line.target')||{}).dataset && document.querySelector('.line.target').dataset.line === '3'",
            "line 3 marked",
        )
        .await;
    assert!(text_of(&browser, ".line.target")
        .await
        .contains("search-zip"));
    // The toggle goes back to the formatted view of the same line.
    assert_eq!(
        browser
            .eval("document.querySelector('#view-toggle').getAttribute('href')")
            .await,
        "/doc/ripgrep-faq/#1.8@3"
    );

    // The keyboard alone: t to the outline, arrows, Enter reads; j and k step through sections.
    c.goto(&served.at("/doc/ripgrep-faq/#1.2")).await.unwrap();
    browser
        .until(
            "(document.querySelector('#section-title')||{}).textContent.startsWith('§1.2 ')",
            "section 1.2",
        )
        .await;
    browser.keys("t").await;
    assert_eq!(
        browser.eval("document.activeElement.dataset.s").await,
        "1.2"
    );
    browser.keys(key::ARROW_DOWN).await;
    browser.keys(key::ARROW_DOWN).await;
    assert_eq!(
        browser.eval("document.activeElement.dataset.s").await,
        "1.4"
    );
    browser.keys(key::ENTER).await;
    browser
        .until(
            "(document.querySelector('#section-title')||{}).textContent.startsWith('§1.4 ')",
            "section 1.4 by Enter",
        )
        .await;
    browser.eval("document.activeElement.blur()").await;
    browser.keys("j").await;
    browser
        .until(
            "(document.querySelector('#section-title')||{}).textContent.startsWith('§1.5 ')",
            "section 1.5 by j",
        )
        .await;
    browser.keys("k").await;
    browser.keys("k").await;
    browser
        .until(
            "(document.querySelector('#section-title')||{}).textContent.startsWith('§1.3 ')",
            "section 1.3 by k k",
        )
        .await;
    // Collapse and open the outline with the arrows.
    browser.keys("t").await;
    browser.keys(key::ARROW_LEFT).await; // 1.3 is a leaf: to its parent, 1
    assert_eq!(browser.eval("document.activeElement.dataset.s").await, "1");
    browser.keys(key::ARROW_LEFT).await;
    assert_eq!(
        browser
            .eval("document.activeElement.getAttribute('aria-expanded')")
            .await,
        "false"
    );
    browser.keys(key::ARROW_RIGHT).await;
    assert_eq!(
        browser
            .eval("document.activeElement.getAttribute('aria-expanded')")
            .await,
        "true"
    );
    browser.screenshot("reader-keyboard").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_shows_worker_lanes_and_evidence_then_its_trace_replays() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let fake = FakeModel::start(vec![
        understand(&["compressed files"]),
        plan("ripgrep-faq", &["cat 1.8"], "cat 1/8"),
        command("ripgrep-faq", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let served = Served::start(
        &ws,
        &[],
        &[
            ("DOCNAV_MODEL", "fake-model".to_string()),
            ("OPENAI_BASE_URL", fake.base_url()),
        ],
    );
    let browser = Browser::start().await;
    let c = &browser.client;
    c.goto(&served.at("/ask")).await.unwrap();
    ask_about_compressed_files(&browser).await;
    browser
        .until(
            "document.querySelectorAll('#evidence li').length > 0",
            "evidence",
        )
        .await;
    browser
        .until("document.querySelector('#trace-link a')", "the trace link")
        .await;
    let lane = text_of(&browser, ".lane[data-actor='r1-w1-ripgrep-faq']").await;
    assert!(lane.contains("$ cat 1/8"), "{lane}");
    assert!(lane.contains("ripgrep-faq #1.8"), "{lane}");
    let orchestrator = text_of(&browser, "#orchestrator").await;
    assert!(
        orchestrator.contains("evaluate: sufficient"),
        "{orchestrator}"
    );
    assert!(text_of(&browser, "#verdict")
        .await
        .starts_with("sufficient"));
    let evidence = text_of(&browser, "#evidence li a").await;
    assert_eq!(
        evidence,
        "ripgrep-faq › FAQ › How do I search compressed files?"
    );
    browser.screenshot("ask").await;
    fake.verify().unwrap();

    // The evidence opens in the Reader with its span marked.
    browser.find("#evidence li a").await.click().await.unwrap();
    browser
        .until(
            "document.querySelectorAll('.block.marked').length > 0",
            "the evidence span",
        )
        .await;
    // The span is the whole section: every block of it is marked.
    assert_eq!(
        browser
            .eval("document.querySelectorAll('.block.marked').length")
            .await,
        browser
            .eval("document.querySelectorAll('.rendered .block').length")
            .await
    );
    c.back().await.unwrap();

    // Its trace: the timeline, then Replay.
    c.goto(&served.at("/traces")).await.unwrap();
    let row = text_of(&browser, "table.traces tbody tr").await;
    assert!(
        row.contains("How do I search compressed files?") && row.contains("sufficient"),
        "{row}"
    );
    browser.screenshot("traces").await;
    browser
        .find("table.traces tbody tr a")
        .await
        .click()
        .await
        .unwrap();
    browser.find(".timeline").await;
    let lanes = text_of(&browser, ".lanes").await;
    assert!(
        lanes.contains("r1-w1-ripgrep-faq") && lanes.contains("$ cat 1/8"),
        "{lanes}"
    );
    assert!(
        browser
            .eval("document.querySelectorAll('details.model-call').length")
            .await
            .as_u64()
            .unwrap()
            >= 4
    );
    browser.find(".replay-button").await.click().await.unwrap();
    browser
        .until(
            "document.querySelector('.replay-status')",
            "the replay result",
        )
        .await;
    let status = text_of(&browser, ".replay-status").await;
    assert!(status.starts_with("Replay identical: "), "{status}");
    browser.screenshot("trace-replay").await;

    // A copy whose recorded plan reads another section: the replay shows where it diverges.
    let name = browser
        .eval("document.querySelector('.replay-button').dataset.name")
        .await;
    let raw = served
        .get_text(&format!("/api/v1/traces/{}/raw", name.as_str().unwrap()))
        .await;
    let uploaded: Value = served
        .post_raw("/api/v1/traces", raw.replace("cat 1/8", "cat 1/9"))
        .await
        .json()
        .await
        .unwrap();
    c.goto(&served.at(&format!("/trace/{}", uploaded["name"].as_str().unwrap())))
        .await
        .unwrap();
    browser.find(".replay-button").await.click().await.unwrap();
    browser
        .until(
            "document.querySelector('.replay-status')",
            "the replay result",
        )
        .await;
    let status = text_of(&browser, ".replay-status").await;
    assert!(
        status.starts_with("Replay diverged in r1-w1-ripgrep-faq at step 1"),
        "{status}"
    );
    let diff = text_of(&browser, "pre.diff").await;
    assert!(
        diff.contains("How do I search over multiple lines?"),
        "{diff}"
    );
    browser.screenshot("trace-diverged").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_document_is_shown_as_text_in_the_browser() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = hostile_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);
    let browser = Browser::start().await;
    let c = &browser.client;
    // Anything that runs would set this.
    let ran = "window.__pwned || document.querySelectorAll('img, b, iframe').length > 0 || \
               document.querySelectorAll('script').length !== 1";

    c.goto(&served.at("/")).await.unwrap();
    assert_eq!(browser.eval(ran).await, false);
    let summary = text_of(&browser, "td.summary").await;
    assert!(summary.contains("<script>alert(5)</script>"), "{summary}");
    let title = text_of(&browser, "table.docs tbody td a").await;
    assert!(
        title.contains("\\u{202e}txt.exe"),
        "the override is shown, not obeyed: {title}"
    );
    browser.find("#q").await.send_keys("alert").await.unwrap();
    browser
        .until(
            "document.querySelectorAll('#results li').length > 0",
            "search results",
        )
        .await;
    assert_eq!(browser.eval(ran).await, false);
    browser.screenshot("hostile-library").await;

    // Formatted: headings and paragraphs, the document's markup shown as text, its
    // `javascript:` link without a target.
    c.goto(&served.at("/doc/hostile/")).await.unwrap();
    browser
        .until(
            "document.querySelector('.rendered .block')",
            "the formatted section",
        )
        .await;
    let text = text_of(&browser, ".rendered").await;
    assert!(text.contains("<b onmouseover=alert(4)>bold</b>"), "{text}");
    assert!(text.contains("\\u{202e}reversed"), "{text}");
    assert_eq!(
        browser
            .eval(
                "[...document.querySelectorAll('.rendered h2')].map(h => h.textContent).join('|')"
            )
            .await,
        "Second"
    );
    assert_eq!(
        browser
            .eval("[...document.querySelectorAll('.rendered a')].map(a => `${a.textContent}:${a.getAttribute('href')}`).join('|')")
            .await,
        "a link:null"
    );
    assert_eq!(browser.eval(ran).await, false);
    browser.screenshot("hostile-reader").await;
    // The source lines, as before.
    c.goto(&served.at("/doc/hostile/?view=source#1"))
        .await
        .unwrap();
    browser
        .until("document.querySelector('.text .line')", "the section text")
        .await;
    let text = text_of(&browser, ".text").await;
    assert!(text.contains("<b onmouseover=alert(4)>bold</b>"), "{text}");
    assert!(text.contains("\\u{202e}reversed"), "{text}");
    assert_eq!(browser.eval(ran).await, false);
    browser.close().await;
}

/// The Ask page keeps the conversation: after an answer, the next question is a follow-up
/// (rewritten to stand alone: "Searched for: …"), the written answer shows its sentences with
/// their citations, and "New conversation" forgets.
#[tokio::test(flavor = "multi_thread")]
async fn ask_follows_up_on_the_last_answer_and_writes_a_cited_answer() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let run = || {
        vec![
            understand(&["compressed files"]),
            plan("ripgrep-faq", &["cat 1.8"], "cat 1/8"),
            command("ripgrep-faq", "done"),
            evaluation("sufficient", "", &[]),
        ]
    };
    let mut replies = run();
    replies.push(
        Reply::text(
            serde_json::json!({"standalone": "How does ripgrep search a .tar.gz archive?"})
                .to_string(),
        )
        .when("Follow-up question: and a .tar.gz?"),
    );
    replies.extend(run());
    replies.push(
        Reply::text(
            serde_json::json!({"sentences": [
                {"text": "Pass `--search-zip`.", "citations": [1]},
                {"text": "It reads \"tarballs of any size\".", "citations": [1]}]})
            .to_string(),
        )
        .when("You write the answer to a question from numbered evidence"),
    );
    let fake = FakeModel::start(replies).await;
    let served = Served::start(
        &ws,
        &[],
        &[
            ("DOCNAV_MODEL", "fake-model".to_string()),
            ("OPENAI_BASE_URL", fake.base_url()),
        ],
    );
    let browser = Browser::start().await;
    let c = &browser.client;
    c.goto(&served.at("/ask")).await.unwrap();
    assert_eq!(
        browser
            .eval("document.querySelector('#conversation').hidden")
            .await,
        Value::Bool(true)
    );
    ask_about_compressed_files(&browser).await;
    browser
        .until(
            "!document.querySelector('#conversation').hidden",
            "the conversation",
        )
        .await;
    assert!(text_of(&browser, "#conversation")
        .await
        .contains("Follow-up of 1 earlier question"));

    browser.find("#question").await.clear().await.unwrap();
    browser
        .find("#question")
        .await
        .send_keys("and a .tar.gz?")
        .await
        .unwrap();
    browser.find("#write-answer").await.click().await.unwrap();
    browser.find("#ask-button").await.click().await.unwrap();
    browser
        .until(
            "document.querySelectorAll('#sentences li').length === 2",
            "the written answer",
        )
        .await;
    assert_eq!(
        text_of(&browser, "#standalone").await,
        "Searched for: How does ripgrep search a .tar.gz archive?"
    );
    let sentences = text_of(&browser, "#sentences").await;
    assert!(
        sentences.contains("Pass `--search-zip`. [1]"),
        "{sentences}"
    );
    assert!(sentences.contains("unsupported: it quotes"), "{sentences}");
    let orchestrator = text_of(&browser, "#orchestrator").await;
    assert!(
        orchestrator.contains("How does ripgrep search a .tar.gz archive?"),
        "{orchestrator}"
    );
    browser
        .until(
            "document.querySelector('#conversation-text').textContent.includes('2 earlier')",
            "two turns",
        )
        .await;
    browser.screenshot("ask-follow-up").await;
    fake.verify().unwrap();

    browser
        .find("#new-conversation")
        .await
        .click()
        .await
        .unwrap();
    assert_eq!(
        browser
            .eval("document.querySelector('#conversation').hidden")
            .await,
        Value::Bool(true)
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_library_filter_in_chromium_keeps_the_filter_and_page_in_the_url() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = super::serve_pages::library_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);
    let browser = Browser::start().await;
    let c = &browser.client;

    c.goto(&served.at("/")).await.unwrap();
    assert_eq!(
        text_of(&browser, "#docs-title").await,
        "Documents 1–50 of 117"
    );
    browser
        .find("#filter")
        .await
        .send_keys("beta")
        .await
        .unwrap();
    browser.keys(key::ENTER).await;
    browser
        .until("location.search === '?q=beta'", "the filter in the URL")
        .await;
    assert_eq!(
        text_of(&browser, "#docs-title").await,
        "Documents 1–50 of 55 matching “beta”"
    );
    assert_eq!(
        browser
            .eval("document.querySelector('#filter').value")
            .await,
        "beta"
    );
    browser.find("a[rel=next]").await.click().await.unwrap();
    browser
        .until(
            "location.search === '?q=beta&page=2'",
            "the second page of the filter",
        )
        .await;
    assert_eq!(
        text_of(&browser, "#docs-title").await,
        "Documents 51–55 of 55 matching “beta”"
    );
    assert_eq!(
        browser
            .eval("[...document.querySelectorAll('table.docs .id')].map(e => e.textContent).join(' ')")
            .await,
        "beta-050 beta-051 beta-052 beta-053 beta-054"
    );
    browser.screenshot("library-filtered").await;
    c.goto(&served.at("/?q=handbook")).await.unwrap();
    assert_eq!(
        text_of(&browser, "table.docs tbody a").await,
        "The Zebra Handbook"
    );
    browser.close().await;
}

/// The Reader formats a Markdown section (headings, lists, code blocks), an HTML page's section
/// (its table) and PDF text (its table, visual lines, page marks); a `path:N` link lands on the
/// block holding line N. Screenshots `reader-markdown`, `reader-html`, `reader-pdf-table`.
#[tokio::test(flavor = "multi_thread")]
async fn the_reader_formats_markdown_html_and_pdf_sections() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let r = super::common::run(
        &ws,
        &[
            "index",
            root.join("docs/ripgrep__GUIDE.md").to_str().unwrap(),
            root.join("html/postgresql/datatype-datetime.html")
                .to_str()
                .unwrap(),
            root.join("filings/MCDONALDS_2023Q2_EARNINGS.pdf")
                .to_str()
                .unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let served = Served::start(&ws, &[], &[]);
    let browser = Browser::start().await;
    let c = &browser.client;
    let count = |css: &str| format!("document.querySelectorAll('.rendered {css}').length");

    // Markdown: headings, paragraphs, lists and code blocks, not `#` and fences.
    c.goto(&served.at("/doc/ripgrep-guide/#1.5")).await.unwrap();
    browser
        .until(
            "document.querySelector('.rendered pre code')",
            "a code block",
        )
        .await;
    assert_eq!(
        text_of(&browser, ".rendered h1").await,
        "Manual filtering: globs"
    );
    assert!(browser.eval(&count("p")).await.as_u64().unwrap() >= 3);
    let source = text_of(&browser, ".rendered").await;
    assert!(
        !source.contains("```") && !source.contains("# Manual"),
        "{source}"
    );
    browser.screenshot("reader-markdown").await;

    // An HTML page's section: its table is a table.
    c.goto(&served.at("/doc/datatype-datetime/#1.4"))
        .await
        .unwrap();
    browser
        .until("document.querySelector('.rendered table')", "a table")
        .await;
    assert_eq!(
        browser
            .eval(
                "[...document.querySelectorAll('.rendered th')].map(t => t.textContent).join('|')"
            )
            .await,
        "Input String|Valid Types|Description"
    );
    assert_eq!(browser.eval(&count("tbody tr")).await, 8);
    browser.screenshot("reader-html").await;

    // PDF text: the comparable-sales table, reached by its line as a grep hit would link it.
    let section: Value = crate::support::server::client()
        .get(served.at("/api/v1/docs/mcdonalds-2023q2-earnings/section?structure=1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let text = section["text"].as_str().unwrap();
    let line = 1 + text[..text.find("COMPARABLE SALES").unwrap()]
        .matches('\n')
        .count();
    c.goto(&served.at(&format!("/doc/mcdonalds-2023q2-earnings/#1@{line}")))
        .await
        .unwrap();
    browser
        .until(
            "document.querySelector('.rendered .block.target')",
            "the target block",
        )
        .await;
    assert_eq!(text_of(&browser, ".block.target").await, "COMPARABLE SALES");
    assert_eq!(
        browser
            .eval("document.querySelector('.rendered .page-mark').textContent")
            .await,
        "pages 1–6"
    );
    assert_eq!(
        browser
            .eval("[...document.querySelector('.rendered table').querySelectorAll('tbody td:first-child')].map(t => t.textContent).join('|')")
            .await,
        "U.S.|International Operated Markets|International Developmental Licensed Markets & Corporate|Total"
    );
    // Visual lines kept: the bullets are lines, not one run-on paragraph.
    assert!(browser.eval(&count("p br")).await.as_u64().unwrap() > 5);
    browser.screenshot("reader-pdf-table").await;
    browser.close().await;
}
