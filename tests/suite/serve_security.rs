//! `docnav serve` is secure by default: loopback unless a token is given; with a token every API
//! and MCP request needs it and the web app logs in with a cookie; without one, only loopback
//! host names are answered; bodies are bounded; trace names and doc ids cannot leave the
//! workspace; document text is escaped in every page.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::{docnav, fixture, run};
use super::mcp::workspace;
use crate::support::server::{client, Served};

fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// A urlencoded login form body.
fn form(token: &str, next: &str) -> String {
    format!("token={}&next={}", enc(token), enc(next))
}

#[test]
fn a_public_address_without_a_token_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = docnav(&dir.path().join("ws"))
        .env_remove("DOCNAV_TOKEN")
        .args(["serve", "--bind", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: refusing to listen on 0.0.0.0:0 without a token"),
        "{stderr}"
    );
    assert!(stderr.contains("--token"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_a_token_every_request_needs_it_and_the_web_app_logs_in() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let token = "correct-horse-battery-staple";
    let served = Served::start(&ws, &[], &[("DOCNAV_TOKEN", token.to_string())]);
    let http = client();

    let none = http.get(served.at("/api/v1/health")).send().await.unwrap();
    assert_eq!(none.status().as_u16(), 401);
    assert_eq!(
        none.headers()["www-authenticate"],
        "Bearer realm=\"docnav\""
    );
    let body: Value = none.json().await.unwrap();
    assert_eq!(body["error"], "unauthorized");
    let wrong = http
        .get(served.at("/api/v1/health"))
        .bearer_auth("correct-horse-battery-stapl")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    let right = http
        .get(served.at("/api/v1/health"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(right.status().as_u16(), 200);
    let mcp = http
        .post(served.at("/mcp"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.status().as_u16(), 401);

    // A page sends the browser to the login form, which sets an HttpOnly, SameSite=Strict
    // cookie that is not the token.
    let page = http.get(served.at("/doc/notes/")).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 303);
    assert_eq!(page.headers()["location"], "/login?next=%2Fdoc%2Fnotes%2F");
    let login = http
        .get(served.at("/login?next=%2Fdoc%2Fnotes%2F"))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status().as_u16(), 200);
    let failed = http
        .post(served.at("/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form("nope", "/doc/notes/"))
        .send()
        .await
        .unwrap();
    assert_eq!(failed.status().as_u16(), 401);
    assert!(failed.headers().get("set-cookie").is_none());
    let ok = http
        .post(served.at("/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(token, "/doc/notes/"))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status().as_u16(), 303);
    assert_eq!(ok.headers()["location"], "/doc/notes/");
    let cookie = ok.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(
        cookie.contains("Max-Age=604800"),
        "a login lasts a week: {cookie}"
    );
    assert!(!cookie.contains(token), "{cookie}");
    let value = cookie.split(';').next().unwrap().to_string();
    let with_cookie = http
        .get(served.at("/api/v1/health"))
        .header("cookie", &value)
        .send()
        .await
        .unwrap();
    assert_eq!(with_cookie.status().as_u16(), 200);
    let page = http
        .get(served.at("/doc/notes/"))
        .header("cookie", &value)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    // The login never sends anyone off this server.
    let away = http
        .post(served.at("/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(token, "//evil.example/"))
        .send()
        .await
        .unwrap();
    assert_eq!(away.headers()["location"], "/");

    // A browser's API request with the cookie needs the session's CSRF token; the bearer token
    // needs none, whatever the case of its scheme.
    let session: Value = http
        .get(served.at("/api/v1/session"))
        .header("cookie", &value)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(session["login"], true);
    let csrf = session["csrf"].as_str().unwrap();
    for (csrf, status) in [("", 403), (csrf, 400)] {
        let r = http
            .post(served.at("/api/v1/traces"))
            .header("cookie", &value)
            .header("x-docnav-csrf", csrf)
            .body("not a trace\n")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "csrf {csrf:?}");
    }
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let r = http
            .post(served.at("/api/v1/traces"))
            .header("authorization", format!("{scheme} {token}"))
            .header("origin", &served.url)
            .body("not a trace\n")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 400, "{scheme}");
    }

    // Logging out removes the cookie and goes to the login page.
    let out = http
        .post(served.at("/logout"))
        .header("cookie", &value)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status().as_u16(), 303);
    assert_eq!(out.headers()["location"], "/login");
    let gone = out.headers()["set-cookie"].to_str().unwrap();
    assert!(gone.starts_with("docnav_session=;"), "{gone}");
    assert!(gone.contains("Max-Age=0"), "{gone}");
}

#[test]
fn a_short_token_is_refused_at_start_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    for token in ["a", "fifteen-chars!!"] {
        let out = docnav(&dir.path().join("ws"))
            .env_remove("DOCNAV_TOKEN")
            .args(["serve", "--bind", "127.0.0.1:0", "--token", token])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{token}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        let n = token.chars().count();
        assert!(
            stderr.starts_with(&format!(
                "error: the token has {n} characters, fewer than 16 (hint: "
            )),
            "{stderr}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_tokens_slow_their_client_down() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let token = "correct-horse-battery-staple";
    let served = Served::start(&ws, &[], &[("DOCNAV_TOKEN", token.to_string())]);
    let http = client();
    let login = |t: &str| {
        http.post(served.at("/login"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(t, "/"))
            .send()
    };
    for i in 0..5 {
        let r = login("guess").await.unwrap();
        assert_eq!(r.status().as_u16(), 401, "wrong token {i}");
    }
    // Now every try waits, the right token too, by the form or the bearer header.
    let r = login(token).await.unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&wait), "{wait}");
    assert!(r.text().await.unwrap().contains("Too many wrong tokens"));
    let r = http
        .get(served.at("/api/v1/health"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    assert!(r.headers().contains_key("retry-after"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"], "too_many_attempts");
    // After the wait, the right token works and clears the count.
    tokio::time::sleep(std::time::Duration::from_secs(wait)).await;
    let r = login(token).await.unwrap();
    assert_eq!(r.status().as_u16(), 303);
    let r = login("guess").await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn login_sends_the_browser_only_to_a_path_here_and_never_fails() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let token = "correct-horse-battery-staple";
    let served = Served::start(&ws, &[], &[("DOCNAV_TOKEN", token.to_string())]);
    let http = client();
    for (next, location) in [
        ("/doc/notes/", "/doc/notes/"),
        ("/ask?q=a%20b", "/ask?q=a%20b"),
        ("/%09/127.0.0.1:9/x", "/"),
        ("/\t/127.0.0.1:9/x", "/"),
        ("/\n/x", "/"),
        ("/a\r\nSet-Cookie: x=y", "/"),
        ("//evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("/%2F/evil.example", "/"),
        ("/%5C/evil.example", "/"),
        ("https://evil.example/", "/"),
        ("", "/"),
    ] {
        let r = http
            .post(served.at("/login"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(token, next))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 303, "{next:?}");
        assert_eq!(r.headers()["location"], location, "{next:?}");
        let page = http
            .get(format!("{}/login?next={}", served.url, enc(next)))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status().as_u16(), 200, "{next:?}");
        let html = page.text().await.unwrap();
        let field = format!("name=\"next\" value=\"{}\"", location.replace('&', "&#38;"));
        assert!(html.contains(&field), "{next:?}: {html}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_token_only_loopback_host_names_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let served = Served::start(&ws, &[], &[]);
    let port = served.url.rsplit(':').next().unwrap().to_string();
    for (host, status) in [
        (format!("127.0.0.1:{port}"), 200),
        (format!("localhost:{port}"), 200),
        (format!("evil.example:{port}"), 403),
        ("rebind.attacker.test".to_string(), 403),
    ] {
        let r = client()
            .get(served.at("/api/v1/health"))
            .header("host", &host)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "{host}");
    }
    // A page of another site cannot make this server act (CSRF); its own pages can, with the
    // CSRF token their script reads from /api/v1/session.
    let own = served.url.clone();
    let csrf = served.get_json("/api/v1/session").await["csrf"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(csrf.len(), 64, "{csrf}");
    for (origin, token, status, code) in [
        ("https://evil.example", csrf.as_str(), 403, "cross_origin"),
        ("null", csrf.as_str(), 403, "cross_origin"),
        (own.as_str(), "", 403, "csrf"),
        (own.as_str(), "0123", 403, "csrf"),
        (own.as_str(), csrf.as_str(), 400, "bad_request"),
    ] {
        let r = client()
            .post(served.at("/api/v1/traces"))
            .header("origin", origin)
            .header("x-docnav-csrf", token)
            .header("content-type", "text/plain")
            .body("not a trace\n")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "{origin} {token}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"], code, "{origin} {token}");
    }
    // A script (no browser headers) needs no CSRF token on a server without a token.
    let r = served.post_raw("/api/v1/traces", "not a trace\n").await;
    assert_eq!(r.status().as_u16(), 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn bodies_are_bounded_and_names_cannot_leave_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let served = Served::start(&ws, &[], &[]);
    let http = client();
    let big = format!("{{\"command\": \"{}\"}}", "x".repeat(100_000));
    let r = http
        .post(served.at("/api/v1/exec"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"], "too_large");
    let r = http
        .post(served.at("/api/v1/traces"))
        .body(vec![b'{'; 17 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    // The server answers 413 before reading the whole 17 MB and closes that connection; a
    // pooled client could send the next request on it and see a reset (seen under load).
    let http = client();

    std::fs::create_dir_all(ws.join("traces")).unwrap();
    for path in [
        "/api/v1/traces/..%2F..%2Fcatalog.db",
        "/api/v1/traces/%2Fetc%2Fpasswd",
        "/api/v1/traces/..%5Ccatalog.db",
        "/api/v1/traces/.hidden.jsonl",
        "/trace/..%2Fcatalog.db",
    ] {
        let r = http.get(served.at(path)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 400, "{path}");
    }
    for path in [
        "/api/v1/docs/..%2F..%2Fetc%2Fpasswd",
        "/api/v1/docs/..",
        "/doc/..%2Fcatalog.db/",
    ] {
        let r = http.get(served.at(path)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 404, "{path}");
    }
    // A symbolic link in traces/ is not followed out of it.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/passwd", ws.join("traces/link.jsonl")).unwrap();
        let r = http
            .get(served.at("/api/v1/traces/link.jsonl/raw"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 404);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_document_text_is_escaped_in_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let ws = hostile_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);
    for path in ["/", "/doc/hostile/"] {
        let r = client().get(served.at(path)).send().await.unwrap();
        let csp = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(csp.contains("script-src 'self'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        let html = r.text().await.unwrap();
        assert!(!html.contains("<script>alert"), "{path}");
        assert!(!html.contains("<img src=x onerror"), "{path}");
        // Shown as text: the markup escaped (askama writes `<` as `&#60;`, the Reader's
        // sanitized section as `&lt;`).
        assert!(
            html.contains("&#60;script&#62;alert(5)") || html.contains("&lt;script&gt;alert(5)"),
            "{path}"
        );
        assert!(
            html.contains("&#60;img src=x onerror=alert(1)&#62;")
                || html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{path}"
        );
        assert!(!html.contains('\u{202e}'), "{path}: a raw bidi override");
        assert!(
            html.contains("\\u{202e}"),
            "{path}: the override shown as an escape"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_markdown_is_formatted_inert_in_the_readers_html() {
    let dir = tempfile::tempdir().unwrap();
    let ws = hostile_workspace(dir.path());
    let served = Served::start(&ws, &[], &[]);
    let r = client()
        .get(served.at("/api/v1/docs/hostile/section?structure=&html=true"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let view: serde_json::Value = r.json().await.unwrap();
    let html = view["html"].as_str().unwrap();
    for live in ["<script", "<img", "<b ", "javascript:", "\u{202e}"] {
        assert!(!html.contains(live), "{live} is live in {html}");
    }
    let handler = regex::Regex::new(r"<[a-z][^>]*\son[a-z]+\s*=").unwrap();
    assert!(!handler.is_match(html), "an on* attribute in {html}");
    // Formatted: the headings are headings and each block carries its first source line; the
    // markup the document held is shown as text.
    assert!(
        html.starts_with("<div class=\"block\" data-line=\"1\" data-last=\"1\" data-from=\"0\""),
        "{html}"
    );
    // Titles lose their tags when indexed; text keeps them, as text.
    assert!(
        html.contains("<h1><span id=\"L1\"></span>alert('title') Hostile \\u{202e}txt.exe</h1>"),
        "{html}"
    );
    assert!(
        html.contains(
            "<p><span id=\"L3\"></span>Intro &lt;script&gt;alert(5)&lt;/script&gt; with &lt;img src=x onerror=alert(1)&gt;"
        ),
        "{html}"
    );
    assert!(
        html.contains("<div class=\"block\" data-line=\"5\" data-last=\"5\""),
        "{html}"
    );
    assert!(
        html.contains("<h2><span id=\"L5\"></span>Second</h2>"),
        "{html}"
    );
    assert!(
        html.contains("Text &lt;b onmouseover=alert(4)&gt;bold&lt;/b&gt; and \\u{202e}reversed\\u{202c} text."),
        "{html}"
    );
    assert!(
        html.contains("<a rel=\"noopener noreferrer\">a link</a>"),
        "{html}"
    );
    // Without `html=true` the API answers as before: no `html` field.
    let (status, plain) = {
        let r = client()
            .get(served.at("/api/v1/docs/hostile/section?structure="))
            .send()
            .await
            .unwrap();
        (
            r.status().as_u16(),
            r.json::<serde_json::Value>().await.unwrap(),
        )
    };
    assert_eq!((status, plain.get("html")), (200, None));
}

/// A workspace in `dir/ws` holding [`HOSTILE`] (as `hostile`) and `notes.txt`.
pub fn hostile_workspace(dir: &std::path::Path) -> std::path::PathBuf {
    let source = dir.join("hostile.md");
    std::fs::write(&source, HOSTILE).unwrap();
    let ws = dir.join("ws");
    let r = run(
        &ws,
        &[
            "index",
            source.to_str().unwrap(),
            fixture("notes.txt").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    ws
}

/// A document whose title, headings and text try to run script, load images, link to
/// `javascript:` and reorder text with a bidi override.
pub const HOSTILE: &str = "# <script>alert('title')</script> Hostile \u{202e}txt.exe\n\n\
Intro <script>alert(5)</script> with <img src=x onerror=alert(1)> and [a link](javascript:alert(2)).\n\n\
## <img src=x onerror=alert(3)> Second\n\n\
Text <b onmouseover=alert(4)>bold</b> and \u{202e}reversed\u{202c} text.\n";
