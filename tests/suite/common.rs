//! Test support: run the real `docnav` binary against a temp workspace.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `fixtures/docs/<name>`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docs")
        .join(name)
}

/// The shared corpus when present (benchmarks and corpus-wide tests skip otherwise):
/// `../shared/corpus` from the crate root in the main checkout, `../../shared/corpus` from a
/// worktree under `/work/wt/`.
pub fn corpus_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.join("MANIFEST.tsv").is_file())
}

/// Output of one `docnav` run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The `error:` lines of its stderr, in order.
    pub fn error_lines(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("error:"))
            .collect()
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// The docnav binary with no colour and no inherited workspace/model environment.
fn docnav_clean_env() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docnav"));
    cmd.env("NO_COLOR", "1")
        .env_remove("DOCNAV_WORKSPACE")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("DOCNAV_MODEL")
        .env_remove("RUST_LOG");
    cmd
}

/// [`docnav_clean_env`] run in `cwd`, with no `--workspace` flag.
pub fn docnav_in(cwd: &Path) -> Command {
    let mut cmd = docnav_clean_env();
    cmd.current_dir(cwd);
    cmd
}

/// The docnav binary with `--workspace ws`, no colour, no inherited workspace/model env.
pub fn docnav(ws: &Path) -> Command {
    let mut cmd = docnav_clean_env();
    cmd.arg("--workspace").arg(ws);
    cmd
}

/// Index `notes.txt` and `ripgrep__FAQ.md` from the fixtures into `ws`; panics unless it exits 0.
pub fn index_notes_and_faq(ws: &Path) -> Run {
    let r = run(
        ws,
        &[
            "index",
            fixture("notes.txt").to_str().unwrap(),
            fixture("ripgrep__FAQ.md").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

/// Run docnav with these args.
pub fn run(ws: &Path, args: &[&str]) -> Run {
    docnav(ws).args(args).output().unwrap().into()
}
