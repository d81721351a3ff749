//! The agent inside `docnav shell`, driven in a real terminal (tmux) against the fake model:
//! `ask` shows the workers' commands as they happen and the evidence, `goto N` moves the cursor,
//! `suggest` shows the model's next command, `replay FILE WORKER` leaves the cursor where it ended.

use super::agent::{analysis, command, evaluation, plan};
use super::common::{fixture, run};
use super::shell::{start_tmux, tmux_available};
use crate::support::fake_model::{FakeModel, Reply};

#[tokio::test(flavor = "multi_thread")]
async fn shell_ask_goto_suggest_and_replay() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(
        run(&ws, &["index", fixture("notes.txt").to_str().unwrap()]).code,
        0
    );
    let fake = FakeModel::start(vec![
        analysis(&["workspace"], &[("notes", "keep indexes apart")]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
        Reply::text(r#"{"reason": "the section that answers it", "command": "cat ."}"#),
    ])
    .await;
    let shell = format!(
        "env -u PAGER NO_COLOR=1 TERM=xterm DOCNAV_MODEL=fake-model OPENAI_BASE_URL={} {} --workspace {} shell; echo EXITED:$?; sleep 60",
        fake.base_url(),
        env!("CARGO_BIN_EXE_docnav"),
        ws.display()
    );
    let t = start_tmux(&shell);
    t.wait_for("docnav:/> ");
    t.keys(&["ask how do I keep two indexes apart?", "Enter"]);
    t.wait_for("[r1-w1-notes] $ cat '#1.1'");
    t.wait_for("[1] notes › 1 Getting started › 1.1 Choosing a workspace");
    let screen = t.wait_for("goto N");
    assert!(
        screen.contains("set DOCNAV_WORKSPACE to keep several indexes apart"),
        "{screen}"
    );
    t.keys(&["goto 1", "Enter"]);
    t.wait_for("docnav:/notes/1/1> ");
    t.keys(&["suggest", "Enter"]);
    t.wait_for_prompt_after("suggested: cat .", "docnav:/notes/1/1> ");
    fake.verify().unwrap();
    // The run was recorded into the workspace's traces/.
    let traces: Vec<_> = std::fs::read_dir(ws.join("traces"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(traces.len(), 1);
    let trace = traces[0].path();
    assert!(
        trace
            .to_string_lossy()
            .ends_with("-how-do-i-keep-two-indexes-apart.jsonl"),
        "{}",
        trace.display()
    );
    // Replay it step by step from elsewhere; `q` stops early; the cursor goes where the worker ended.
    t.keys(&["cd /", "Enter"]);
    t.wait_for_prompt_after("> cd /\n/\n", "docnav:/> ");
    t.keys(&[&format!("replay {} r1-w1-notes", trace.display()), "Enter"]);
    t.wait_for("(Enter: next, q: stop)");
    t.keys(&["Enter"]);
    t.wait_for("[2/");
    t.keys(&["q", "Enter"]);
    t.wait_for_prompt_after(
        "cursor moved to where r1-w1-notes ended: /notes",
        "docnav:/notes> ",
    );
    // Ctrl-C at a step stops the walk, not the shell.
    t.keys(&["cd /", "Enter"]);
    t.wait_for_prompt_after("> cd /\n/\n", "docnav:/> ");
    t.keys(&[&format!("replay {}", trace.display()), "Enter"]);
    t.wait_for_prompt_after("[1/", "(Enter: next, q: stop)");
    t.keys(&["C-c"]);
    let screen = t.wait_for_prompt_after(
        "cursor moved to where r1-w1-notes ended: /notes",
        "docnav:/notes> ",
    );
    assert!(!screen.contains("EXITED"), "{screen}");
    // Keys typed ahead (three steps, then q) are read in order by the steps.
    t.keys(&["cd /", "Enter"]);
    t.wait_for_prompt_after("> cd /\n/\n", "docnav:/> ");
    let replay = format!("replay {} r1-w1-notes", trace.display());
    t.keys(&[
        &replay, "Enter", "Enter", "Enter", "q", "Enter", "pwd", "Enter",
    ]);
    let screen = t.wait_for_prompt_after("> pwd\n/notes\n", "docnav:/notes> ");
    let last_replay = &screen[screen.rfind(&replay).unwrap()..];
    assert!(
        last_replay.contains("[3/") && !last_replay.contains("[4/"),
        "{last_replay}"
    );
    // Without a file, `replay` walks the shell's last trace and says which.
    t.keys(&["cd /", "Enter"]);
    t.wait_for_prompt_after("> cd /\n/\n", "docnav:/> ");
    t.keys(&["replay", "Enter"]);
    t.wait_for_prompt_after(
        &format!("replaying `{}`", trace.display()),
        "(Enter: next, q: stop)",
    );
    t.keys(&["q", "Enter"]);
    t.wait_for_prompt_after(
        "cursor moved to where r1-w1-notes ended: /notes",
        "docnav:/notes> ",
    );
    t.keys(&["C-d"]);
    t.wait_for("EXITED:0");
}
