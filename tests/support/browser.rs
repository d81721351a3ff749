//! A real headless Chromium (Debian's `chromium`, driven through `chromedriver` over WebDriver on
//! 127.0.0.1) for the web app's tests, and where their screenshots go.
//!
//! Without Chromium the browser tests skip with a message on a developer's machine; under CI
//! (`CI` set; `.ci/run` installs `chromium` and `chromium-driver`) a missing browser fails them.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Whether the browser tests can run (see the module docs).
pub fn browser_available() -> bool {
    let present =
        std::path::Path::new(CHROMIUM).exists() && std::path::Path::new(CHROMEDRIVER).exists();
    if !present && std::env::var_os("CI").is_some() {
        panic!("chromium and chromedriver are required under CI (.ci/run installs them)");
    }
    if !present {
        eprintln!("skipping: chromium or chromedriver is not installed (apt-get install chromium chromium-driver)");
    }
    present
}

/// A chromedriver process and one browser session; both end when dropped.
pub struct Browser {
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    /// Start chromedriver and a headless Chromium window of 1280×900 with a fresh profile and
    /// no background networking (the machine has no network).
    pub async fn start() -> Browser {
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let profile = tempfile::tempdir().unwrap();
        let caps = json!({
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--no-first-run", "--disable-extensions",
                    "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ]
            }
        });
        let Value::Object(caps) = caps else {
            unreachable!()
        };
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        let client = loop {
            match ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(c) => break c,
                Err(e) if Instant::now() < deadline => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot start a Chromium session through chromedriver: {e}"),
            }
        };
        Browser {
            client,
            driver,
            _profile: profile,
        }
    }

    /// Wait (up to 10 s) for an element matching `css`.
    pub async fn find(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element `{css}`: {e}"))
    }

    /// Wait (up to 30 s: a loaded 2-core CI machine has taken over 10) until the JavaScript
    /// expression `js` is truthy; panics with `what`.
    pub async fn until(&self, js: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self
                .client
                .execute(&format!("return !!({js});"), vec![])
                .await
                .unwrap();
            if v == Value::Bool(true) {
                return;
            }
            if Instant::now() > deadline {
                let shot = self.screenshot(&format!("failed-{}", slug(what))).await;
                panic!(
                    "timed out waiting for {what} (`{js}`); screenshot {}",
                    shot.display()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The value of the JavaScript expression `js`.
    pub async fn eval(&self, js: &str) -> Value {
        self.client
            .execute(&format!("return ({js});"), vec![])
            .await
            .unwrap()
    }

    /// Save a screenshot as `target/screenshots/NAME.png` (a test artifact); returns its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        let png = self.client.screenshot().await.unwrap();
        std::fs::write(&path, png).unwrap();
        path
    }

    /// Press keys in the focused element (WebDriver key codes for special keys, e.g.
    /// `"\u{E015}"` for ArrowDown).
    pub async fn keys(&self, keys: &str) {
        let active = self.client.active_element().await.unwrap();
        active.send_keys(keys).await.unwrap();
    }

    /// End the session and chromedriver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
    }
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// WebDriver key codes.
pub mod key {
    pub const ENTER: &str = "\u{E007}";
    pub const ARROW_DOWN: &str = "\u{E015}";
    pub const ARROW_UP: &str = "\u{E013}";
    pub const ARROW_RIGHT: &str = "\u{E014}";
    pub const ARROW_LEFT: &str = "\u{E012}";
}
