//! `docnav ask` in a real terminal (tmux) against the fake model: live progress on stderr while
//! the Workers run, and Ctrl-C cancels cleanly (exit 130) leaving a valid trace prefix.

use serde_json::Value;

use super::agent::{analysis, command, plan};
use super::common::{fixture, run};
use super::shell::{start_tmux, tmux_available};
use crate::support::fake_model::FakeModel;

#[tokio::test(flavor = "multi_thread")]
async fn ask_shows_progress_on_a_terminal_and_ctrl_c_cancels_keeping_the_trace() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(
        run(&ws, &["index", fixture("notes.txt").to_str().unwrap()]).code,
        0
    );
    // The worker's second step never comes back in time: the run is still waiting when Ctrl-C
    // arrives.
    let fake = FakeModel::start(vec![
        analysis(&["workspace"], &[("notes", "keep indexes apart")]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done").after(60_000),
    ])
    .await;
    let trace = dir.path().join("run.jsonl");
    // `trap` keeps the outer shell alive through Ctrl-C (the terminal signals the whole group),
    // so it can print docnav's exit code; docnav itself runs with the default disposition.
    let line = format!(
        "trap true INT; env -u PAGER NO_COLOR=1 TERM=xterm DOCNAV_MODEL=fake-model OPENAI_BASE_URL={} {} --workspace {} ask --trace {} 'how do I keep two indexes apart?'; echo EXITED:$?; sleep 60",
        fake.base_url(),
        env!("CARGO_BIN_EXE_docnav"),
        ws.display(),
        trace.display()
    );
    let t = start_tmux(&line);
    // Progress: which worker is where, as it happens (stderr is the terminal).
    t.wait_for("[r1-w1-notes] $ cat '#1.1'");
    // Wait until the slow request is in flight, then cancel.
    let start = std::time::Instant::now();
    while fake.received().len() < 3 {
        assert!(start.elapsed().as_secs() < 10, "the 3rd request never came");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    t.keys(&["C-c"]);
    let screen = t.wait_for("EXITED:130");
    assert!(
        screen.contains(&format!("cancelled; trace so far in `{}`", trace.display())),
        "{screen}"
    );
    drop(t);

    // The trace is a valid prefix: every line is JSON, the header first, the commands so far in.
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.ends_with('\n'), "whole lines only");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "header", "{}", lines[0]);
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "command" && l["line"] == "cat '#1.1'"),
        "{text}"
    );
}
