//! The agent inside `docnav shell`, driven in a real terminal (tmux) against the fake model:
//! `ask` shows the workers' commands as they happen and the evidence, `goto N` moves the cursor,
//! `suggest` shows the model's next command, `replay FILE WORKER` leaves the cursor where it ended.

use super::agent::{analysis, command, evaluation, plan};
use super::common::{fixture, run};
use super::shell::{start_tmux, tmux_available};
use crate::support::fake_model::{FakeModel, Reply};

/// A workspace `dir/ws` holding `notes.txt` (the fixture), indexed.
fn indexed_notes(dir: &std::path::Path) -> std::path::PathBuf {
    let ws = dir.join("ws");
    assert_eq!(
        run(&ws, &["index", fixture("notes.txt").to_str().unwrap()]).code,
        0
    );
    ws
}

/// The model's replies for one ask that sends one Worker to `notes`, which reads `#1.1` and is
/// done, and an evaluation that finds the evidence sufficient.
fn one_worker_run() -> Vec<Reply> {
    vec![
        analysis(&["workspace"], &[("notes", "keep indexes apart")]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ]
}

/// `docnav shell` over `ws` in tmux, its model the fake at its prompt at `/`.
fn shell_with_model(ws: &std::path::Path, fake: &FakeModel) -> super::shell::Tmux {
    shell_with_model_env(ws, fake, "")
}

/// [`shell_with_model`] with more `NAME=value` environment settings (`env`, space-separated).
fn shell_with_model_env(ws: &std::path::Path, fake: &FakeModel, env: &str) -> super::shell::Tmux {
    let shell = format!(
        "env -u PAGER NO_COLOR=1 TERM=xterm {env} DOCNAV_MODEL=fake-model OPENAI_BASE_URL={} {} --workspace {} shell; echo EXITED:$?; sleep 60",
        fake.base_url(),
        env!("CARGO_BIN_EXE_docnav"),
        ws.display()
    );
    let t = start_tmux(&shell);
    t.wait_for("docnav:/> ");
    t
}

#[tokio::test(flavor = "multi_thread")]
async fn shell_ask_goto_suggest_and_replay() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = indexed_notes(dir.path());
    let mut script = one_worker_run();
    script.push(Reply::text(
        r#"{"reason": "the section that answers it", "command": "cat ."}"#,
    ));
    let fake = FakeModel::start(script).await;
    let t = shell_with_model(&ws, &fake);
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
    // The run was recorded into the workspace's traces/ (beside `answers/`, kept for reuse).
    let traces: Vec<_> = std::fs::read_dir(ws.join("traces"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
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

/// A follow-up in the shell is rewritten to stand alone from the question before it — shown on
/// screen, recorded in the trace with the memory it came from (and replayed identical) — and
/// `new` forgets, so the next question is taken as it stands.
#[tokio::test(flavor = "multi_thread")]
async fn a_follow_up_is_rewritten_to_stand_alone_and_new_forgets() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = indexed_notes(dir.path());
    let standalone = "how do I keep three docnav indexes apart?";
    let fake = FakeModel::start(vec![
        analysis(&["workspace"], &[("notes", "keep indexes apart")]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
        Reply::text(serde_json::json!({ "standalone": standalone }).to_string())
            .when("Follow-up question: and with three?"),
        analysis(&["workspace"], &[("notes", "keep three indexes apart")]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
        analysis(&["workspace"], &[("notes", "where indexes live")]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let t = shell_with_model(&ws, &fake);
    t.keys(&["ask how do I keep two indexes apart?", "Enter"]);
    t.wait_for("goto N");
    t.keys(&["ask and with three?", "Enter"]);
    // Shown as it happens (the orchestrator's progress line) and atop the answer.
    t.wait_for(&format!(
        "[orchestrator] question, standalone: {standalone}"
    ));
    let screen = t.wait_for(&format!("question, standalone: {standalone}\n\n[1] notes"));
    assert!(screen.matches("goto N").count() >= 2, "{screen}");
    t.keys(&["new", "Enter"]);
    t.wait_for("new conversation: 2 earlier question(s) forgotten");
    t.keys(&["ask where do the notes say indexes live?", "Enter"]);
    t.wait_for_prompt_after("verdict: sufficient", "docnav:/> ");
    t.keys(&["C-d"]);
    t.wait_for("EXITED:0");
    fake.verify().unwrap();
    // One rewrite: the question after `new` stood alone.
    let rewrites = fake
        .requests()
        .iter()
        .filter(|r| r.to_string().contains("Follow-up question"))
        .count();
    assert_eq!(rewrites, 1);

    // The follow-up's trace holds the memory it was asked in and the rewrite.
    let mut traces: Vec<_> = std::fs::read_dir(ws.join("traces"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    traces.sort();
    let follow_up = traces
        .iter()
        .find(|p| p.to_string_lossy().ends_with("-and-with-three.jsonl"))
        .unwrap();
    let trace = docnav::trace::read_trace(follow_up).unwrap();
    assert_eq!(trace.header.question, "and with three?");
    assert_eq!(trace.header.memory.len(), 1);
    assert_eq!(
        trace.header.memory[0].question,
        "how do I keep two indexes apart?"
    );
    assert!(
        trace.header.memory[0].key_points.starts_with("notes › "),
        "{}",
        trace.header.memory[0].key_points
    );
    let recorded = std::fs::read_to_string(follow_up).unwrap();
    assert!(recorded.contains(r#""kind":"standalone""#), "{recorded}");
    let replay = super::common::docnav(&ws)
        .arg("replay")
        .arg(follow_up)
        .output()
        .unwrap();
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(replayed.starts_with("replay identical: "), "{replayed}");
    // The question after `new` was recorded without memory.
    let after_new = traces
        .iter()
        .find(|p| p.to_string_lossy().contains("-where-do-the-notes"))
        .unwrap();
    assert!(docnav::trace::read_trace(after_new)
        .unwrap()
        .header
        .memory
        .is_empty());
}

/// The shell reuses a recorded answer as the CLI does: after `new`, the same question (up to
/// case and end punctuation) is answered from its trace without a model call; `--no-cache` asks
/// afresh.
#[tokio::test(flavor = "multi_thread")]
async fn a_repeated_question_is_answered_from_its_trace_without_a_model_call() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = indexed_notes(dir.path());
    let fake = FakeModel::start([one_worker_run(), one_worker_run()].concat()).await;
    let t = shell_with_model(&ws, &fake);
    t.keys(&["ask how do I keep two indexes apart?", "Enter"]);
    t.wait_for_prompt_after("verdict: sufficient", "docnav:/> ");
    assert_eq!(fake.received().len(), 4);
    // A follow-up is never reused, so `new` first.
    t.keys(&["new", "Enter"]);
    t.wait_for("new conversation: 1 earlier question(s) forgotten");
    t.keys(&["ask How do I keep two indexes apart", "Enter"]);
    let screen = t.wait_for_prompt_after("from trace ", "docnav:/> ");
    assert!(
        screen.contains("set DOCNAV_WORKSPACE to keep several indexes apart"),
        "{screen}"
    );
    assert_eq!(fake.received().len(), 4, "the second ask reached the model");
    t.keys(&[
        "ask --new --no-cache how do I keep two indexes apart?",
        "Enter",
    ]);
    t.wait_for_prompt_after("[r1-w1-notes] $ cat '#1.1'", "docnav:/> ");
    t.keys(&["C-d"]);
    t.wait_for("EXITED:0");
    fake.verify().unwrap();
}

/// `DOCNAV_TRACE_DIR` moves the shell's recording as it moves `docnav ask`'s: the run is a new
/// file in that folder and none in the workspace's `traces/`, and the answer kept from it is
/// reused.
#[tokio::test(flavor = "multi_thread")]
async fn the_shell_records_into_docnav_trace_dir_as_ask_does() {
    if !tmux_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = indexed_notes(dir.path());
    let elsewhere = dir.path().join("elsewhere");
    let fake = FakeModel::start(one_worker_run()).await;
    let env = format!("DOCNAV_TRACE_DIR={}", elsewhere.display());
    let t = shell_with_model_env(&ws, &fake, &env);
    t.keys(&["ask how do I keep two indexes apart?", "Enter"]);
    t.wait_for_prompt_after("verdict: sufficient", "docnav:/> ");
    let jsonl = |folder: &std::path::Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(folder)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let recorded = jsonl(&elsewhere);
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert!(jsonl(&ws.join("traces")).is_empty());
    t.keys(&["new", "Enter"]);
    t.wait_for("new conversation: 1 earlier question(s) forgotten");
    t.keys(&["ask how do I keep two indexes apart?", "Enter"]);
    t.wait_for_prompt_after("from trace ", "docnav:/> ");
    assert_eq!(fake.received().len(), 4, "the second ask reached the model");
    t.keys(&["C-d"]);
    t.wait_for("EXITED:0");
    fake.verify().unwrap();
}
