//! A real `docnav serve` process on 127.0.0.1 (port 0: the port it prints) for the HTTP, MCP and
//! browser tests, with a clean environment; killed when dropped.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running server.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// What the server wrote to stderr so far.
    pub stderr: Arc<Mutex<Vec<String>>>,
}

impl Served {
    /// `docnav --workspace WS serve --bind 127.0.0.1:0 ARGS` with only `env` set among the
    /// model variables; waits for `listening on …`.
    pub fn start(ws: &Path, args: &[&str], env: &[(&str, String)]) -> Served {
        Served::start_with_file_limit(ws, args, env, None)
    }

    /// [`Served::start`] with the server's limit on open files (`RLIMIT_NOFILE`, soft and
    /// hard) set to `nofile`, as `prlimit --nofile=N` would.
    pub fn start_with_file_limit(
        ws: &Path,
        args: &[&str],
        env: &[(&str, String)],
        nofile: Option<u64>,
    ) -> Served {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_docnav"));
        if let Some(n) = nofile {
            use std::os::unix::process::CommandExt;
            let limit = rustix::process::Rlimit {
                current: Some(n),
                maximum: Some(n),
            };
            // SAFETY: setrlimit is one system call, safe between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    rustix::process::setrlimit(rustix::process::Resource::Nofile, limit)
                        .map_err(std::io::Error::from)
                });
            }
        }
        cmd.env("NO_COLOR", "1").env("RUST_LOG", "error");
        for var in [
            "DOCNAV_WORKSPACE",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "DOCNAV_MODEL",
            "DOCNAV_TOKEN",
            "DOCNAV_TRACE_DIR",
        ] {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.arg("--workspace")
            .arg(ws)
            .arg("serve")
            .arg("--bind")
            .arg("127.0.0.1:0")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("docnav serve starts");
        let stderr = child.stderr.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let seen = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("listening on ") {
                    let _ = tx.send(url.to_string());
                }
                seen.lock().unwrap().push(line);
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!("docnav serve did not start: {:?}", lines.lock().unwrap());
            }
        };
        Served {
            child,
            url,
            stderr: lines,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `self.url` + `path`.
    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client that never uses a proxy (everything stays on loopback).
pub fn client() -> reqwest::Client {
    docnav::llm::install_crypto_provider();
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

impl Served {
    /// `GET path`: the body as JSON.
    pub async fn get_json(&self, path: &str) -> serde_json::Value {
        client()
            .get(self.at(path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// `GET path`: the body as text.
    pub async fn get_text(&self, path: &str) -> String {
        client()
            .get(self.at(path))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// `POST path` without a body: the answer as JSON.
    pub async fn post_empty(&self, path: &str) -> serde_json::Value {
        client()
            .post(self.at(path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// `POST path` with `body` as is: the response.
    pub async fn post_raw(&self, path: &str, body: impl Into<reqwest::Body>) -> reqwest::Response {
        client()
            .post(self.at(path))
            .body(body)
            .send()
            .await
            .unwrap()
    }
}
