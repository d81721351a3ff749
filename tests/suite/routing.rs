//! Routing by name and period: a document's names and period are read from it when it is
//! indexed and shown on its DocCard, and a question that names an issuer and a period sees that
//! issuer's document for that period first — in the pre-rank the Orchestrator reads and in
//! `docnav docs --for`, which prints the same ranking with its reasons.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use docnav::agent::orchestrator::pre_rank;
use docnav::agent::routing::explain;
use docnav::index::period::Period;
use docnav::tree::BuildOptions;
use docnav::workspace::{InMemoryLibrary, Library};
use pretty_assertions::assert_eq;

use super::common::{fixture, index_notes_and_faq, run};
use super::parse_filings::filing;

/// Apple's FY2019 10-K, Costco's 8-K of 2023-08-09 and a few Markdown documents.
fn library() -> Arc<dyn Library> {
    static LIB: OnceLock<Arc<InMemoryLibrary>> = OnceLock::new();
    LIB.get_or_init(|| {
        let mut paths: Vec<PathBuf> = ["APPLE_2019_10K.pdf", "COSTCO_2023_8K_dated-2023-08-09.pdf"]
            .map(filing)
            .to_vec();
        paths.extend(["ripgrep__FAQ.md", "regex__CHANGELOG.md", "notes.txt"].map(fixture));
        Arc::new(InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap())
    })
    .clone()
}

#[test]
fn a_filings_card_names_its_issuer_ticker_and_period() {
    let lib = library();
    let apple = lib.card("apple-2019-10k").unwrap();
    assert_eq!(apple.names, ["Apple Inc.", "Apple", "AAPL"]);
    assert_eq!(
        apple.period,
        Some(Period {
            form: Some("10-K".into()),
            fiscal_year: Some(2019),
            quarter: None,
            end: Some((2019, 9, 28)),
            report: None,
            releases: None,
        })
    );
    let costco = lib.card("costco-2023-8k-dated-2023-08-09").unwrap();
    assert_eq!(
        costco.names,
        [
            "COSTCO WHOLESALE CORPORATION",
            "COSTCO WHOLESALE",
            "COST",
            "COSTCO"
        ]
    );
    assert_eq!(
        costco.period.as_ref().map(Period::label).as_deref(),
        Some("8-K, report of 2023-08-09")
    );
    // What the analyze prompt shows of a card.
    let body = docnav::agent::orchestrator::card_body(&apple);
    assert!(
        body.starts_with("title: Apple Inc. — Form 10-K, fiscal year ended September 28, 2019 (pdf, 796.0 KB, ")
            && body.contains(" sections), FY2019\nnames: Apple Inc.; Apple; AAPL\nperiod: 10-K, fiscal year 2019, ended 2019-09-28\n"),
        "{body}"
    );
    // A document without an issuer keeps its file's name only.
    assert_eq!(lib.card("ripgrep-faq").unwrap().names, ["ripgrep"]);
    assert_eq!(lib.card("ripgrep-faq").unwrap().period, None);
}

#[test]
fn a_question_naming_an_issuer_sees_its_filing_first() {
    let lib = library();
    for (question, first) in [
        (
            "What was Apple's net sales of iPhone in FY2019?",
            "apple-2019-10k",
        ),
        (
            "AAPL 2019 research and development expense",
            "apple-2019-10k",
        ),
        (
            "What did Costco report in its 8-K of August 2023?",
            "costco-2023-8k-dated-2023-08-09",
        ),
        (
            "COST net sales for July 2023",
            "costco-2023-8k-dated-2023-08-09",
        ),
        (
            "Costco Wholesale sales results",
            "costco-2023-8k-dated-2023-08-09",
        ),
    ] {
        let pre = pre_rank(lib.as_ref(), question);
        assert_eq!(pre.docs[0], first, "{question}: {:?}", pre.docs);
    }
    // The reasons `docs --for` prints come from the same ranking.
    let ranked = explain(lib.as_ref(), "What was AAPL's revenue in fiscal 2019?", 3).unwrap();
    assert_eq!(ranked[0].card.doc_id, "apple-2019-10k");
    assert_eq!(ranked[0].why.name.as_deref(), Some("AAPL"));
    let period = ranked[0].why.period.as_ref().unwrap();
    assert_eq!(
        (period.label.as_str(), period.score),
        ("10-K, fiscal year 2019, ended 2019-09-28", 6)
    );
    let ids: Vec<&str> = ranked.iter().map(|r| r.card.doc_id.as_str()).collect();
    assert_eq!(
        ids,
        pre_rank(lib.as_ref(), "What was AAPL's revenue in fiscal 2019?").docs[..3]
    );
}

/// A question that names no document keeps the ranking by section hits and cards: the
/// lowercase words of a question are no issuer's name.
#[test]
fn a_question_naming_nothing_is_ranked_by_its_words() {
    let lib = library();
    let pre = pre_rank(lib.as_ref(), "how do I search compressed files?");
    assert_eq!(pre.docs[0], "ripgrep-faq", "{:?}", pre.docs);
    assert!(
        explain(lib.as_ref(), "how do I search compressed files?", 1).unwrap()[0]
            .why
            .name
            .is_none()
    );
}

#[test]
fn docs_for_prints_the_ranked_cards_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let ws = ws.as_path();
    let files = [
        filing("APPLE_2019_10K.pdf"),
        filing("COSTCO_2023_8K_dated-2023-08-09.pdf"),
        fixture("ripgrep__FAQ.md"),
    ];
    let mut args = vec!["index"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let r = run(ws, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(
        ws,
        &["docs", "--for", "Costco's 8-K of August 9, 2023", "-k", "2"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first: Vec<&str> = r.stdout.lines().take(4).collect();
    assert!(
        first[0].starts_with(
            "1. costco-2023-8k-dated-2023-08-09  — name \"COSTCO\" · period 8-K, report of 2023-08-09 (match 9) · section hit #1 ("
        ),
        "{}",
        r.stdout
    );
    assert!(
        first[1].starts_with(
            "   title: COSTCO WHOLESALE CORPORATION — Form 8-K, August 9, 2023 (pdf, "
        ),
        "{}",
        r.stdout
    );
    assert_eq!(
        first[2],
        "   names: COSTCO WHOLESALE CORPORATION; COSTCO WHOLESALE; COST; COSTCO"
    );
    assert_eq!(first[3], "   period: 8-K, report of 2023-08-09");
    assert!(r.stdout.contains("\n2. "), "{}", r.stdout);
    assert!(!r.stdout.contains("\n3. "), "{}", r.stdout);
    let r = run(ws, &["docs", "--for", "AAPL FY2019", "-k", "1", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(json[0]["rank"], 1);
    assert_eq!(json[0]["card"]["doc_id"], "apple-2019-10k");
    assert_eq!(json[0]["why"]["name"], "AAPL");
    assert_eq!(json[0]["why"]["period"]["score"], 6);
    assert_eq!(json[0]["card"]["period"]["fiscal_year"], 2019);
}

/// A ticker only one of an issuer's documents prints still reaches the others: `MCD` is on the
/// 10-K's cover (here its cover page as Markdown, the 10-K itself is 1.5 MB), not in the
/// earnings release, and a question about the second quarter of 2023 wants the release.
#[test]
fn a_ticker_reaches_the_issuers_documents_that_do_not_print_it() {
    let dir = tempfile::tempdir().unwrap();
    let cover = dir.path().join("MCDONALDS_2022_10K.md");
    std::fs::write(
        &cover,
        "# McDONALD'S CORPORATION — Form 10-K, fiscal year ended December 31, 2022\n\n\
         Securities registered pursuant to Section 12(b) of the Act:\n\n\
         Title of each class Trading Symbol(s) Name of each exchange on which registered\n\
         Common Stock, $0.01 par value MCD New York Stock Exchange\n",
    )
    .unwrap();
    let paths = [cover, filing("MCDONALDS_2023Q2_EARNINGS.pdf")];
    let lib = InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap();
    let release = lib.card("mcdonalds-2023q2-earnings").unwrap();
    assert!(
        !release.names.iter().any(|n| n == "MCD"),
        "the release prints no ticker: {:?}",
        release.names
    );
    let ranked = explain(&lib, "MCD revenue in Q2 2023", 2).unwrap();
    let ids: Vec<&str> = ranked.iter().map(|r| r.card.doc_id.as_str()).collect();
    assert_eq!(ids, ["mcdonalds-2023q2-earnings", "mcdonalds-2022-10k"]);
    // Both are named by the ticker the question used; the release's period answers it.
    assert_eq!(ranked[0].why.name.as_deref(), Some("MCD"));
    assert_eq!(ranked[1].why.name.as_deref(), Some("MCD"));
    assert!(
        ranked[0].why.period.as_ref().unwrap().score > ranked[1].why.period.as_ref().unwrap().score
    );
}

/// A changelog's period is the range of releases its headings name, and a question that names
/// a package and a version sees the changelog whose range holds the version first: regex's
/// changelog split where 1.0.0 begins, the newer releases in one file and the older in another.
#[test]
fn a_question_naming_a_version_sees_the_changelog_that_holds_it_first() {
    let text = std::fs::read_to_string(fixture("regex__CHANGELOG.md")).unwrap();
    let at = text.find("\n1.0.0 (2018-05-01)").unwrap() + 1;
    let dir = tempfile::tempdir().unwrap();
    let (newer, older) = (
        dir.path().join("regex__CHANGELOG.md"),
        dir.path().join("regex__CHANGELOG-1.0-and-older.md"),
    );
    std::fs::write(&newer, &text[..at]).unwrap();
    std::fs::write(&older, &text[at..]).unwrap();
    let lib = InMemoryLibrary::from_paths(&[newer, older], &BuildOptions::default()).unwrap();
    let label = |id: &str| lib.card(id).unwrap().period.as_ref().map(Period::label);
    assert_eq!(
        label("regex-changelog").as_deref(),
        Some("releases 1.0.1–1.13.1")
    );
    assert_eq!(
        label("regex-changelog-1-0-and-older").as_deref(),
        Some("releases 0.1.66–1.0.0")
    );
    for (question, first) in [
        (
            "What changed in regex version 0.1.x?",
            "regex-changelog-1-0-and-older",
        ),
        ("regex 1.0.0 release notes", "regex-changelog-1-0-and-older"),
        ("What did regex v1.9.5 fix?", "regex-changelog"),
        ("regex version 1.x", "regex-changelog"),
    ] {
        let ranked = explain(&lib, question, 2).unwrap();
        assert_eq!(ranked[0].card.doc_id, first, "{question}");
        let score = |i: usize| ranked[i].why.period.as_ref().map_or(0, |p| p.score);
        assert!(
            score(0) > score(1) || question.contains("1.x"),
            "{question}: {ranked:?}"
        );
    }
}

/// A catalog whose cards do not decode is an error that names the file and says what to do,
/// for `docs --for` and the plain listing alike — not an empty ranking with exit 0.
#[test]
fn docs_over_a_catalog_whose_cards_do_not_decode_fails_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    index_notes_and_faq(&ws);
    let catalog = docnav::workspace::catalog_path(&ws);
    rusqlite::Connection::open(&catalog)
        .unwrap()
        .execute_batch("UPDATE cards SET card = X'DEADBEEF'")
        .unwrap();
    for args in [
        &["docs", "--for", "compressed files"][..],
        &["docs", "--for", "compressed files", "--json"],
        &["docs"],
        &["docs", "--json"],
    ] {
        let r = run(&ws, args);
        assert_eq!(r.code, 1, "{args:?}: {}{}", r.stdout, r.stderr);
        let stderr = r.stderr.trim_end();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: workspace file `")
                && stderr.contains("catalog.db` is damaged: a card does not decode")
                && stderr.ends_with("(hint: re-index with `docnav index --force`)"),
            "{args:?}: {stderr}"
        );
    }
    // Re-indexing as told mends it.
    let r = run(&ws, &["index", "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(&ws, &["docs", "--for", "compressed files", "-k", "1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("1. ripgrep-faq "), "{}", r.stdout);
}

/// A workspace in `dir/ws` (notes and the ripgrep FAQ) whose DocCards do not decode, as the
/// CLI test above damages it; with the line `docnav docs --for "compressed files"` prints.
fn damaged_workspace(dir: &std::path::Path) -> (PathBuf, String) {
    let ws = dir.join("ws");
    index_notes_and_faq(&ws);
    rusqlite::Connection::open(docnav::workspace::catalog_path(&ws))
        .unwrap()
        .execute_batch("UPDATE cards SET card = X'DEADBEEF'")
        .unwrap();
    let cli = run(&ws, &["docs", "--for", "compressed files"]);
    assert_eq!(cli.code, 1, "{}", cli.stdout);
    let line = cli.stderr.trim_end().strip_prefix("error: ").unwrap();
    assert!(line.contains("catalog.db` is damaged"), "{line}");
    (ws, line.to_string())
}

/// `/api/v1/docs?for=` over such a catalog answers the CLI's error as the typed API error
/// (500 `internal`, the same one line), not 200 with an empty ranking.
#[tokio::test(flavor = "multi_thread")]
async fn api_docs_for_over_a_catalog_whose_cards_do_not_decode_is_the_clis_error() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, line) = damaged_workspace(dir.path());
    let served = crate::support::server::Served::start(&ws, &[], &[]);
    let r = crate::support::server::client()
        .get(served.at("/api/v1/docs?for=compressed+files&k=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 500);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["error"], "internal", "{body}");
    assert_eq!(body["detail"], line.as_str(), "{body}");
}

/// MCP's `docs` with `for` over such a catalog is a tool error carrying the CLI's line.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_docs_for_over_a_catalog_whose_cards_do_not_decode_is_a_tool_error() {
    use super::mcp::{call, start, text};
    let dir = tempfile::tempdir().unwrap();
    let (ws, line) = damaged_workspace(dir.path());
    let (server, _) = start(&ws, &[], &[]).await;
    let r = call(
        &server,
        "docs",
        serde_json::json!({"for": "compressed files", "k": 2}),
    )
    .await;
    assert_eq!(r.is_error, Some(true), "{r:?}");
    assert_eq!(text(&r), format!("docs: {line}"));
    server.cancel().await.unwrap();
}
