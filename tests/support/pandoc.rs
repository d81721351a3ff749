//! pandoc for the tests that convert corpus Markdown to DOCX and EPUB, without the network:
//! pandoc downloads the remote images a document shows (to embed them) before any filter runs,
//! so the Markdown is read to pandoc's JSON with every image replaced by its description, and
//! that JSON is written out.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The Lua filter: an image becomes its description.
const NO_IMAGES: &str = "function Image(el) return el.caption end\n";

/// Whether pandoc is on the PATH.
pub fn available() -> bool {
    Command::new("pandoc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Convert the GitHub Markdown file `md` to `out` (format by its extension) with the writer
/// options `args`; panics with pandoc's message when it fails.
pub fn convert(md: &Path, out: &Path, args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let filter = dir.path().join("no-images.lua");
    std::fs::write(&filter, NO_IMAGES).unwrap();
    let json = Command::new("pandoc")
        .args(["-f", "gfm", "-t", "json", "--lua-filter"])
        .arg(&filter)
        .arg(md)
        .output()
        .unwrap();
    assert!(
        json.status.success(),
        "pandoc failed on {}: {}",
        md.display(),
        String::from_utf8_lossy(&json.stderr)
    );
    let mut writer = Command::new("pandoc")
        .args(["-f", "json"])
        .args(args)
        .arg("-o")
        .arg(out)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writer
        .stdin
        .take()
        .unwrap()
        .write_all(&json.stdout)
        .unwrap();
    let done = writer.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "pandoc failed on {}: {}",
        md.display(),
        String::from_utf8_lossy(&done.stderr)
    );
}
