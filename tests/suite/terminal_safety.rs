//! Hostile text never reaches a person's terminal raw (issue 11, point 5): a document whose
//! headings and body carry ANSI escapes, an OSC title sequence, C1 controls, a lone carriage
//! return and bidi overrides/isolates is shown with visible `\u{…}` escapes by every human
//! output, while `--json` keeps the exact text.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::{docnav, run, Run};

const TITLE: &str = "Evil \u{1b}[31mRed\u{1b}[0m title";
const SHOWN_TITLE: &str = "Evil \\u{1b}[31mRed\\u{1b}[0m title";
const CHILD: &str = "Right\u{202e}txt.exe";
const SHOWN_CHILD: &str = "Right\\u{202e}txt.exe";
const BODY: &str = "Body \u{2066}iso\u{2069} C1 \u{9b}31m lone\rreturn crlf\r\nend\n";
const SHOWN_BODY: &str = "Body \\u{2066}iso\\u{2069} C1 \\u{9b}31m lone\\u{d}return crlf\r\nend\n";

/// A workspace holding `hostile.md`.
fn hostile_workspace(dir: &Path) -> PathBuf {
    let doc = dir.join("hostile.md");
    let text = format!("# {TITLE}\n\nIntro with \u{1b}]0;pwned\u{7} OSC.\n\n## {CHILD}\n\n{BODY}");
    std::fs::write(&doc, text).unwrap();
    let ws = dir.join("ws");
    let r = run(&ws, &["index", doc.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    ws
}

/// No character a terminal would act on: C0 other than tab/newline (a CR only before a
/// newline), DEL, C1, bidi embeddings/overrides/isolates.
fn assert_terminal_safe(what: &str, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let ok = match c {
            '\t' | '\n' => true,
            '\r' => chars.peek() == Some(&'\n'),
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => false,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => false,
            _ => true,
        };
        assert!(ok, "{what}: raw {c:?} in {text:?}");
    }
}

fn ok(r: Run, what: &str) -> String {
    assert_eq!(r.code, 0, "{what}: {}", r.stderr);
    assert_terminal_safe(what, &r.stdout);
    assert_terminal_safe(what, &r.stderr);
    r.stdout
}

#[test]
fn exec_tree_docs_and_ask_escape_for_people_and_json_keeps_the_exact_text() {
    let dir = tempfile::tempdir().unwrap();
    let ws = hostile_workspace(dir.path());

    let ls = ok(run(&ws, &["exec", "ls /hostile"]), "exec ls");
    assert_eq!(
        ls,
        format!("1. {SHOWN_CHILD}  [no subsections, 8 words]  — Body \\u{{2066}}iso\\u{{2069}} C1 \\u{{9b}}31m lone return crlf end\n")
    );
    let cat = ok(run(&ws, &["exec", "cat /hostile/1"]), "exec cat");
    assert_eq!(
        cat,
        format!("== hostile › {SHOWN_CHILD}  (lines 5–8) ==\n# {SHOWN_CHILD}\n\n{SHOWN_BODY}")
    );
    let bad = run(&ws, &["exec", "cd /hostile/nowhere\u{1b}[2J"]);
    assert_eq!(bad.code, 1);
    assert_eq!(
        bad.stderr,
        "cd: no child 'nowhere\\u{1b}[2J' under /hostile (try ls)\n"
    );

    let tree = ok(run(&ws, &["tree", "hostile"]), "tree");
    assert_eq!(
        tree,
        format!("{SHOWN_TITLE} (hostile)  (lines 1–4)\n1 {SHOWN_CHILD}  (lines 5–8)\n")
    );
    let tree_json: Value =
        serde_json::from_str(&run(&ws, &["tree", "hostile", "--json"]).stdout).unwrap();
    assert_eq!(tree_json["title"], TITLE);
    assert_eq!(tree_json["children"][0]["title"], CHILD);

    let docs = ok(run(&ws, &["docs"]), "docs");
    assert!(docs.ends_with(&format!("  {SHOWN_TITLE}\n")), "{docs}");
    let cards: Value = serde_json::from_str(&run(&ws, &["docs", "--json"]).stdout).unwrap();
    assert_eq!(cards[0]["title"], TITLE);

    let ask = ok(
        run(&ws, &["ask", "--lexical", "-k", "1", "right body"]),
        "ask",
    );
    assert!(
        ask.contains(&format!("# {SHOWN_CHILD}\n\n{SHOWN_BODY}")),
        "{ask}"
    );
    let answer: Value = serde_json::from_str(
        &run(
            &ws,
            &["ask", "--lexical", "-k", "1", "--json", "right body"],
        )
        .stdout,
    )
    .unwrap();
    let text = answer["evidence"][0]["text"].as_str().unwrap();
    assert!(text.contains(CHILD) && text.contains(BODY), "{text:?}");
}

#[test]
fn the_shell_escapes_outputs_errors_and_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let ws = hostile_workspace(dir.path());
    let mut child = docnav(&ws)
        .arg("shell")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all("cd /hostile/1\nls ..\ncat .\ncd \u{1b}[2J\n".as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_terminal_safe("shell", &stdout);
    assert_terminal_safe("shell stderr", &String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains(&format!("1. {SHOWN_CHILD}  [no subsections")),
        "{stdout}"
    );
    assert!(stdout.contains(SHOWN_BODY), "{stdout}");
    assert!(stdout.contains("no child '\\u{1b}[2J'"), "{stdout}");
}

#[test]
fn replay_show_escapes_what_the_trace_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/traces/single-doc.jsonl");
    // The recorded question and one recorded command carry escapes (as a hostile document
    // could make a model echo them).
    let mut lines: Vec<Value> = std::fs::read_to_string(golden)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[0]["question"] = Value::from(format!("why {TITLE}?"));
    let command = lines
        .iter_mut()
        .find(|l| l["type"] == "command")
        .expect("the golden trace has a command");
    command["line"] = Value::from(format!("cat {CHILD}"));
    let trace = dir.path().join("hostile.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&trace, text).unwrap();

    let ws = dir.path().join("ws");
    let shown = ok(
        run(&ws, &["replay", "--show", trace.to_str().unwrap()]),
        "replay --show",
    );
    assert!(
        shown.starts_with(&format!("question: why {SHOWN_TITLE}?\n")),
        "{shown}"
    );
    assert!(shown.contains(&format!("cat {SHOWN_CHILD}")), "{shown}");
    let json = run(
        &ws,
        &["replay", "--show", "--json", trace.to_str().unwrap()],
    );
    assert!(json.stdout.contains(CHILD), "--json keeps the exact text");
}
