//! The agent's verdicts and rounds against the fake model (issues 14 and 11.2): three outcomes
//! and the final verdict, a failed Worker that does not sink the question, every excerpt of a
//! section kept, links to other documents read or reported as leads.

use docnav::agent::AgentOptions;
use pretty_assertions::assert_eq;
use serde_json::Value;

use super::agent::{
    analysis, analysis_exploring, check, command, evaluation, library, plan, requests_containing,
    run, sent, worker_tag, EVALUATE_TAG,
};
use crate::support::fake_model::{FakeModel, Reply};

/// The one Worker's check skips evaluate only for a question understood as `focused`: a question
/// with several parts routed to one document is still judged by evaluate, which sees the whole
/// question and may send a Worker elsewhere.
#[tokio::test]
async fn a_check_on_one_part_of_a_broader_question_still_goes_to_evaluate() {
    let fake = FakeModel::start(vec![
        analysis_exploring(&["workspace", "café"], &[("notes", "the workspace flag")]),
        plan("notes", &["read 1.1"], "cat '#1.1'"),
        command("notes", "check"),
        check("notes", "sufficient", ""),
        evaluation(
            "insufficient",
            "how café crème is made",
            &[("multilingual", "café crème")],
        ),
        plan("multilingual", &["cat 2"], "cat 2"),
        command("multilingual", "check"),
        check("multilingual", "sufficient", ""),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let run = run(
        &fake,
        library(&["notes.txt", "multilingual.md"]),
        AgentOptions::default(),
        "How do I keep indexes apart, and how is café crème made?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    assert_eq!(run.answer.stats.rounds, 2);
    assert_eq!(run.answer.evidence.len(), 2);
    assert_eq!(run.verdict.judged_by, "evaluate");
}

/// Issue 11.2: a failed Worker does not sink the question. Its error is recorded, evaluate sees
/// which task failed, and may give it again in the next round.
#[tokio::test]
async fn a_failed_worker_is_shown_to_evaluate_which_runs_its_task_again() {
    let fake = FakeModel::start(vec![
        analysis(
            &["café", "workspace"],
            &[("notes", "workspace"), ("multilingual", "café")],
        ),
        plan("notes", &["cat 1.1"], "ls"),
        plan("multilingual", &["cat 2"], "cat 2"),
        Reply::text("not json").when(&worker_tag("notes")),
        Reply::text("still not json").when(&worker_tag("notes")),
        command("multilingual", "done"),
        evaluation(
            "insufficient",
            "the workspace flag",
            &[("notes", "workspace")],
        ),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let lib = library(&["notes.txt", "multilingual.md"]);
    let run = run(&fake, lib, AgentOptions::default(), "café and workspace")
        .await
        .unwrap();
    fake.verify().unwrap();
    assert_eq!(run.worker_errors.len(), 1);
    assert_eq!(run.worker_errors[0].0, "r1-w1-notes");
    assert!(
        run.worker_errors[0]
            .1
            .contains("not a valid decision after one repair round"),
        "{:?}",
        run.worker_errors
    );
    let failure = &run.answer.worker_errors[0];
    assert_eq!(
        (
            failure.worker.as_str(),
            failure.doc_id.as_str(),
            failure.task.as_str()
        ),
        ("r1-w1-notes", "notes", "workspace")
    );
    let evaluate = &requests_containing(&fake, EVALUATE_TAG)[0];
    assert!(
        evaluate.contains("- r1-w1-notes on `notes`: workspace\n  → FAILED: model reply is not a valid decision after one repair round"),
        "{evaluate}"
    );
    let mut docs: Vec<&str> = run
        .answer
        .evidence
        .iter()
        .map(|e| e.doc_id.as_str())
        .collect();
    docs.sort();
    assert_eq!(docs, ["multilingual", "notes"]);
    assert_eq!(run.verdict.judged_by, "evaluate");
    assert_eq!(docnav::cli::agent::exit_status(&run), 0);
}

/// Issue 14.9: a check may say the document does not cover the task; the Worker stops, and
/// evaluate, which sees its searches that found nothing, can end the question as absent.
#[tokio::test]
async fn absent_stops_the_worker_and_the_question() {
    let fake = FakeModel::start(vec![
        analysis(&["kubernetes helm chart"], &[("notes", "helm charts")]),
        plan("notes", &["grep helm"], "grep -i helm"),
        command("notes", "check"),
        check("notes", "absent", "nothing on Helm or Kubernetes"),
        evaluation("absent", "Helm charts are not covered", &[]),
        // "Absent" stands only after a catalog search, which finds the document no Worker
        // searched; evaluate confirms.
        evaluation("absent", "Helm charts are not covered", &[])
            .when("Before that answer stands, the catalog was searched"),
    ])
    .await;
    let run = run(
        &fake,
        library(&["notes.txt", "multilingual.md"]),
        AgentOptions::default(),
        "How do I install the Helm chart?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    let after_search = &requests_containing(&fake, "the catalog was searched for")[0];
    assert!(
        after_search.contains("\"How do I install the Helm chart?\", \"Helm charts are not covered\": 1 document(s) found that no Worker searched yet")
            && after_search.contains("- `multilingual` — "),
        "{after_search}"
    );
    assert!(run.answer.evidence.is_empty());
    assert_eq!(
        run.answer.verdict.as_ref().map(|v| v.line()),
        Some(
            "verdict: absent — not covered: Helm charts are not covered (judged by evaluate)"
                .to_string()
        )
    );
    let check_prompt = &requests_containing(&fake, "You judge whether the evidence")[0];
    assert!(
        check_prompt.contains("(none collected)\nSearches that found nothing: `find -- \"kubernetes helm chart\"` · `grep -i helm`"),
        "{check_prompt}"
    );
    let evaluate = &requests_containing(&fake, EVALUATE_TAG)[0];
    assert!(
        evaluate.contains("→ its check said absent: nothing on Helm or Kubernetes; 0 excerpt(s)\n  → searches that found nothing: `find -- \"kubernetes helm chart\"` · `grep -i helm`"),
        "{evaluate}"
    );
}

/// Issue 14.9: an empty task list from analyze says no document covers the question; no Worker
/// runs and the verdict is absent.
#[tokio::test]
async fn analyze_may_say_no_document_covers_the_question() {
    // "Absent" stands only after a search: the first "no document" gets the cards a catalog
    // search for the question finds, and must be confirmed.
    let fake = FakeModel::start(vec![
        analysis(&["helm"], &[]),
        // The confirmation gives its reason and leaves the understanding out.
        Reply::text(r#"{"tasks": [], "search": [], "reason": "nothing about Helm charts"}"#),
    ])
    .await;
    let run = run(
        &fake,
        library(&["notes.txt"]),
        AgentOptions::default(),
        "How do I install the Helm chart?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    assert!(run.answer.evidence.is_empty() && run.answer.stats.workers.is_empty());
    assert_eq!(run.verdict.verdict, docnav::agent::Outcome::Absent);
    assert_eq!(run.verdict.judged_by, "analyze");
    assert_eq!(run.verdict.missing, "nothing about Helm charts");
    let first: String = sent(&fake, 0)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        first.contains("{\"tasks\": [], \"search\": []} says no listed document covers it"),
        "the prompt says an empty list is allowed"
    );
    let second = sent(&fake, 1);
    assert!(
        second.contains("You said no listed document covers the question. Before that answer stands, the catalog was searched for \"How do I install the Helm chart?\", \"helm\""),
        "{second}"
    );
    assert_eq!(run.answer.stats.llm_calls, 2);
}

/// Issues 11.2 and 14.9 through `docnav ask`: the verdict ends the output (text and `--json`);
/// a failed Worker is one `warning:` line and `worker_errors` in the JSON; the exit code is 0
/// when the final evidence was judged sufficient, else 1 with the failure listed.
#[tokio::test(flavor = "multi_thread")]
async fn ask_exits_0_despite_a_failed_worker_when_the_evidence_suffices_else_1() {
    use super::trace::{ask_cmd, output, workspace};
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["notes.txt", "multilingual.md"]);
    let script = |last: &str, missing: &str| {
        vec![
            analysis(
                &["café", "workspace"],
                &[("notes", "workspace"), ("multilingual", "café")],
            ),
            plan("notes", &["cat 1.1"], "ls"),
            plan("multilingual", &["cat 2"], "cat 2"),
            Reply::text("not json").when(&worker_tag("notes")),
            Reply::text("still not json").when(&worker_tag("notes")),
            command("multilingual", "done"),
            evaluation(last, missing, &[]),
        ]
    };
    let q = ["café and workspace?", "--rounds", "1"];
    let fake = FakeModel::start(script("sufficient", "")).await;
    let r = output(ask_cmd(&ws, &fake, &q)).await;
    fake.verify().unwrap();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let warnings: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(
        warnings[0]
            .starts_with("warning: worker r1-w1-notes failed: model reply is not a valid decision"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("error:"), "{}", r.stderr);
    assert!(
        r.stdout
            .ends_with("verdict: sufficient (judged by evaluate)\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("worker r1-w1-notes on notes failed: "),
        "{}",
        r.stdout
    );

    let fake = FakeModel::start(script("insufficient", "the workspace flag")).await;
    let mut args = q.to_vec();
    args.push("--json");
    let r = output(ask_cmd(&ws, &fake, &args)).await;
    fake.verify().unwrap();
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "error: 1 worker(s) failed and the evidence was not judged sufficient (insufficient)"
        ),
        "{}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["verdict"],
        serde_json::json!({"verdict": "insufficient", "missing": "the workspace flag",
            "judged_by": "evaluate"})
    );
    assert_eq!(v["worker_errors"][0]["worker"], "r1-w1-notes");
    assert_eq!(v["worker_errors"][0]["task"], "workspace");
    assert_eq!(v["evidence"][0]["doc_id"], "multilingual");
}

/// Issue 14.8: a Worker reading one section at several offsets keeps every excerpt (merged by
/// char range), says exactly what it holds, and returns each as evidence.
#[tokio::test]
async fn separate_reads_of_one_section_are_all_kept() {
    let fake = FakeModel::start(vec![
        analysis(&["file"], &[("notes", "everything about troubleshooting")]),
        plan("notes", &["read 3 in parts"], "cat --budget 40 '#3'"),
        command("notes", "cat --budget 40 -o 120 '#3'"),
        command("notes", "cat --budget 40 -o 15 '#3'"),
        command("notes", "check"),
        check("notes", "sufficient", ""),
    ])
    .await;
    let run = run(
        &fake,
        library(&["notes.txt"]),
        AgentOptions::default(),
        "What if indexing fails?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    // Two excerpts: chars 0–a and 15–b merged into one, 120–c kept apart.
    let prompts = requests_containing(&fake, "Evidence collected:");
    let last = prompts.last().unwrap();
    let held = last
        .lines()
        .find(|l| l.starts_with("  #3: chars 0–"))
        .unwrap_or_else(|| panic!("{last}"));
    let ranges: Vec<&str> = held["  #3: chars ".len()..]
        .split(" of ")
        .next()
        .unwrap()
        .split(", ")
        .collect();
    assert_eq!(ranges.len(), 2, "{held}");
    assert!(ranges[1].starts_with("120–"), "{held}");
    assert!(
        last.contains("3. cat --budget 40 -o 15 '#3' → ")
            && last.contains("collected; evidence #3 now holds chars 0–"),
        "{last}"
    );
    assert_eq!(run.answer.evidence.len(), 2);
    assert!(run.answer.evidence.iter().all(|e| e.structure == "3"));
}

/// Issue 14.5: a Worker bound to one document may read a see-also section of another directly
/// (one command, not a round); the links it leaves are reported to evaluate as leads, and the
/// documents they name are listed for the next round.
#[tokio::test]
async fn links_to_other_documents_are_read_or_reported_as_leads() {
    let fake = FakeModel::start(vec![
        analysis(
            &["configuration file"],
            &[("ripgrep-faq", "config files and encodings")],
        ),
        plan("ripgrep-faq", &["read 1.1"], "cat '#1.1'"),
        command("ripgrep-faq", "cat /ripgrep-guide/#1.8"),
        command("ripgrep-faq", "cat '#1.7'"),
        command("ripgrep-faq", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let lib = library(&["ripgrep__FAQ.md", "ripgrep__GUIDE.md"]);
    let run = run(
        &fake,
        lib,
        AgentOptions {
            rounds: 2,
            ..AgentOptions::default()
        },
        "Does ripgrep read a configuration file, and UTF-16?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    let mut read: Vec<(&str, &str)> = run
        .answer
        .evidence
        .iter()
        .map(|e| (e.doc_id.as_str(), e.structure.as_str()))
        .collect();
    read.sort();
    assert_eq!(
        read,
        [
            ("ripgrep-faq", "1.1"),
            ("ripgrep-faq", "1.7"),
            ("ripgrep-guide", "1.8")
        ]
    );
    // The first cat showed the link; the navigate prompt after it says what the other read holds.
    let after_guide = sent(&fake, 3);
    assert!(
        after_guide.contains("/ripgrep-guide/#1.8: chars 0–"),
        "{after_guide}"
    );
    let evaluate = &requests_containing(&fake, EVALUATE_TAG)[0];
    assert!(
        evaluate.contains("→ leads not read: <document-data source=\"leads\">/ripgrep-guide/#1.9 File encoding</document-data>"),
        "{evaluate}"
    );
    assert!(evaluate.contains("- `ripgrep-guide` — "), "{evaluate}");
}

/// Issue 25.8: a "sufficient" over zero evidence is overruled — evaluate is asked again (the
/// note says why) and its next round runs; with no round left the answer is insufficient, saying
/// the model's verdict was overruled.
#[tokio::test]
async fn a_sufficient_verdict_over_no_evidence_is_overruled() {
    let fake = FakeModel::start(vec![
        analysis(&["workspace"], &[("notes", "the workspace flag")]),
        plan("notes", &["look around"], "ls"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
        evaluation(
            "insufficient",
            "the workspace flag",
            &[("notes", "read section 1.1")],
        )
        .when("no evidence has been collected"),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let answered = run(
        &fake,
        library(&["notes.txt", "multilingual.md"]),
        AgentOptions {
            rounds: 2,
            ..AgentOptions::default()
        },
        "How do I keep two indexes apart?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    assert_eq!(answered.answer.stats.rounds, 2);
    assert_eq!(answered.answer.evidence.len(), 1);
    assert_eq!(answered.verdict.judged_by, "evaluate");

    // No round left: insufficient, and the answer says the model was overruled.
    let fake = FakeModel::start(vec![
        analysis(&["workspace"], &[("notes", "the workspace flag")]),
        plan("notes", &["look around"], "ls"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let run = run(
        &fake,
        library(&["notes.txt", "multilingual.md"]),
        AgentOptions {
            rounds: 1,
            ..AgentOptions::default()
        },
        "How do I keep two indexes apart?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    assert!(run.answer.evidence.is_empty());
    assert_eq!(run.verdict.verdict.as_str(), "insufficient");
    assert_eq!(run.verdict.missing, "no evidence was collected");
    assert_eq!(
        run.verdict.judged_by,
        "evaluate (its \"sufficient\" over no evidence was overruled)"
    );
}

/// Issue 25.1: when the shown cards do not fit, analyze asks for a catalog search and chooses
/// from the cards found (one more call only then).
#[tokio::test]
async fn analyze_searches_the_catalog_when_the_shown_cards_do_not_fit() {
    let fake = FakeModel::start(vec![
        Reply::text(
            serde_json::json!({"intent": "factual", "key_concepts": ["café crème"],
                "strategy": "focused", "tasks": [], "search": ["café crème multilingual"]})
            .to_string(),
        ),
        analysis(
            &["café crème"],
            &[("multilingual", "how café crème is made")],
        ),
        plan("multilingual", &["cat 2"], "cat 2"),
        command("multilingual", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let run = run(
        &fake,
        library(&["notes.txt", "multilingual.md", "ripgrep__FAQ.md"]),
        AgentOptions {
            max_cards: 1,
            ..AgentOptions::default()
        },
        "How do I keep two indexes apart?",
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    let second = sent(&fake, 1);
    assert!(
        second.contains(
            "You asked for a search of the catalog for \"café crème multilingual\": 1 document(s) found."
        ),
        "{second}"
    );
    assert!(second.contains("- id: `multilingual`"), "{second}");
    assert_eq!(run.answer.stats.workers[0].doc_id, "multilingual");
    assert_eq!(run.answer.stats.llm_calls, 5);
}
