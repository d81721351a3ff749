//! Answers reused from traces (issue 23.3), through the CLI against the fake model: the second
//! identical `ask` (normalised) makes no model call and says which trace it comes from;
//! `--no-cache` asks afresh; touching or changing a document the run read, adding a document,
//! deleting the trace or changing an option asks again; re-indexing an unrelated change does not.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::agent::{analysis, command, evaluation, plan};
use super::common::{docnav, fixture, run};
use crate::support::fake_model::{FakeModel, Reply};

const QUESTION: &str = "How do I search compressed files with ripgrep?";

/// One Worker reads the FAQ's section on compressed files: four calls.
fn script() -> Vec<Reply> {
    vec![
        analysis(
            &["compressed files"],
            &[("ripgrep-faq", "how to search compressed files")],
        ),
        plan("ripgrep-faq", &["cat 1/8"], "cat 1/8"),
        command("ripgrep-faq", "done"),
        evaluation("sufficient", "", &[]),
    ]
}

/// `docnav ask ARGS… QUESTION` against a fresh fake model with [`script`]: (the JSON printed or
/// `Value::Null` for text, stdout, model requests received).
async fn ask(ws: &Path, args: &[&str], question: &str) -> (Value, String, usize) {
    let fake = FakeModel::start(script()).await;
    let out = docnav(ws)
        .env("DOCNAV_MODEL", "fake-model")
        .env("OPENAI_BASE_URL", fake.base_url())
        .arg("ask")
        .args(args)
        .arg(question)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = if args.contains(&"--json") {
        serde_json::from_str(&stdout).unwrap()
    } else {
        Value::Null
    };
    (json, stdout, fake.received().len())
}

/// Copies of the FAQ and the notes in `dir/docs`, indexed into `dir/ws`.
fn workspace(dir: &Path) -> (PathBuf, PathBuf) {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for name in ["ripgrep__FAQ.md", "notes.txt"] {
        std::fs::copy(fixture(name), docs.join(name)).unwrap();
    }
    let ws = dir.join("ws");
    let r = run(&ws, &["index", docs.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    (ws, docs)
}

fn reindex(ws: &Path, docs: &Path) {
    let r = run(ws, &["index", docs.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repeated_question_is_answered_from_its_trace_until_what_it_read_changes() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, docs) = workspace(dir.path());

    let (first, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 4);
    assert_eq!(first.get("from_trace"), None);
    let traces: Vec<PathBuf> = std::fs::read_dir(ws.join("traces"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(
        traces.len(),
        1,
        "the CLI records into the workspace's traces/"
    );

    // The same question, normalised (case, spaces, end punctuation): no model call.
    let (again, _, calls) = ask(
        &ws,
        &["--json"],
        "  how do I search compressed files with RIPGREP ",
    )
    .await;
    assert_eq!(calls, 0);
    assert_eq!(again["evidence"], first["evidence"]);
    assert_eq!(again["verdict"], first["verdict"]);
    assert_eq!(
        again["question"],
        "  how do I search compressed files with RIPGREP "
    );
    assert_eq!(again["stats"]["llm_calls"], 0);
    assert_eq!(again["from_trace"]["llm_calls"], 4);
    assert_eq!(
        again["from_trace"]["trace"].as_str().unwrap(),
        std::path::absolute(&traces[0]).unwrap().to_str().unwrap()
    );
    let (_, text, calls) = ask(&ws, &[], QUESTION).await;
    assert_eq!(calls, 0);
    let name = traces[0].file_name().unwrap().to_str().unwrap();
    assert!(
        text.starts_with(&format!("from trace {name} (20")),
        "{text}"
    );
    assert!(
        text.contains("UTC): the same question over unchanged documents; --no-cache asks afresh")
    );

    // --no-cache asks afresh (and its run is the one kept from now on).
    let (fresh, _, calls) = ask(&ws, &["--json", "--no-cache"], QUESTION).await;
    assert_eq!((calls, fresh.get("from_trace")), (4, None));

    // Another option is another question.
    let (_, _, calls) = ask(&ws, &["--json", "--max-steps", "5"], QUESTION).await;
    assert_eq!(calls, 4);

    // Re-indexing after an unrelated change keeps the answer: only what the run read matters.
    let notes = docs.join("notes.txt");
    let mut text = std::fs::read_to_string(&notes).unwrap();
    text.push_str("\nOne more line.\n");
    std::fs::write(&notes, &text).unwrap();
    reindex(&ws, &docs);
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 0);

    // Touching a document the run read asks again; the new run is reused after it.
    let faq = docs.join("ripgrep__FAQ.md");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .append(true)
        .open(&faq)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 4);
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 0);

    // Changing it and re-indexing asks again.
    let mut faq_text = std::fs::read_to_string(&faq).unwrap();
    faq_text.push_str("\n\nA new closing paragraph.\n");
    std::fs::write(&faq, &faq_text).unwrap();
    reindex(&ws, &docs);
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 4);
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 0);

    // A new document could hold a better answer: asks again.
    std::fs::copy(fixture("ripgrep__GUIDE.md"), docs.join("ripgrep__GUIDE.md")).unwrap();
    reindex(&ws, &docs);
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 4);

    // Deleting the trace forgets the answer.
    for entry in std::fs::read_dir(ws.join("traces")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|x| x == "jsonl") {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reused_answer_given_trace_file_copies_the_recorded_run_which_replays() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, _) = workspace(dir.path());
    let (_, _, calls) = ask(&ws, &["--json"], QUESTION).await;
    assert_eq!(calls, 4);
    let copy = dir.path().join("copy.jsonl");
    let (_, _, calls) = ask(
        &ws,
        &["--json", "--trace", copy.to_str().unwrap()],
        QUESTION,
    )
    .await;
    assert_eq!(calls, 0);
    let replay = docnav(&ws).arg("replay").arg(&copy).output().unwrap();
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(replayed.starts_with("replay identical: "), "{replayed}");
}

/// A publish folder reuses an answer asked through it as its workspace does, also where the
/// documents' sources are not on the machine (a replica: here they are moved away after the
/// publish), and a newer generation holding the same documents keeps it.
#[tokio::test(flavor = "multi_thread")]
async fn a_publish_folder_reuses_answers_also_without_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, docs) = workspace(dir.path());
    let out = dir.path().join("pub");
    let published = run(&ws, &["publish", out.to_str().unwrap()]);
    assert_eq!(published.code, 0, "{}", published.stderr);
    std::fs::rename(&docs, dir.path().join("moved")).unwrap();

    let (first, _, calls) = ask(&out, &["--json"], QUESTION).await;
    assert_eq!(calls, 4);
    let (again, _, calls) = ask(&out, &["--json"], QUESTION).await;
    assert_eq!(
        calls, 0,
        "the second ask through the publish folder reached the model"
    );
    assert_eq!(again["evidence"], first["evidence"]);
    assert_eq!(again["from_trace"]["llm_calls"], 4);

    // A new generation of the same documents: the kept answer still holds.
    let published = run(&ws, &["publish", out.to_str().unwrap()]);
    assert_eq!(published.code, 0, "{}", published.stderr);
    let (third, _, calls) = ask(&out, &["--json"], QUESTION).await;
    assert_eq!(calls, 0);
    assert_eq!(third["evidence"], first["evidence"]);
}
