//! `ask --answer` (issue 23) against the fake model: a correct answer verifies; citing an item
//! that does not exist and quoting text the evidence does not hold are each flagged unsupported;
//! an insufficient verdict ends the answer with what is missing; no evidence, no call; the CLI's
//! text and JSON, one extra call under 3,000 prompt tokens, and a trace that replays identical.

use docnav::agent::answer::ANSWER_PROMPT_TOKENS;
use docnav::agent::AgentOptions;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::agent::{
    analysis, command, evaluation, library, plan, requests_containing, run, EVALUATE_TAG,
};
use super::common::docnav;
use super::mcp::workspace;
use crate::support::fake_model::{FakeModel, Reply};

const QUESTION: &str = "How do I search compressed files with ripgrep?";

/// Text only the answer prompt holds.
const ANSWER_TAG: &str = "You write the answer to a question from numbered evidence";

fn written(sentences: Value) -> Reply {
    Reply::text(json!({ "sentences": sentences }).to_string()).when(ANSWER_TAG)
}

/// The run up to the answer: one Worker reads the FAQ's section on compressed files.
fn navigation(verdict: &str, missing: &str) -> Vec<Reply> {
    vec![
        analysis(
            &["compressed files"],
            &[("ripgrep-faq", "how to search compressed files")],
        ),
        plan("ripgrep-faq", &["cat 1/8"], "cat 1/8"),
        command("ripgrep-faq", "done"),
        evaluation(verdict, missing, &[]),
    ]
}

fn with_answer() -> AgentOptions {
    AgentOptions {
        answer: true,
        ..AgentOptions::default()
    }
}

#[tokio::test]
async fn a_correct_answer_verifies_at_the_cost_of_one_call() {
    let mut script = navigation("sufficient", "");
    script.push(written(json!([
        {"text": "Pass `-z/--search-zip` and ripgrep searches \"compressed files\".", "citations": [1]},
        {"text": "Archive formats such as `*.tar.gz` are skipped.", "citations": [1]}
    ])));
    let fake = FakeModel::start(script).await;
    let run = run(
        &fake,
        library(&["ripgrep__FAQ.md"]),
        with_answer(),
        QUESTION,
    )
    .await
    .unwrap();
    fake.verify().unwrap();
    let answer = run.answer.answer.as_ref().unwrap();
    assert!(answer.sentences.iter().all(|s| s.supported), "{answer:?}");
    assert_eq!(answer.missing, None);
    assert_eq!(
        answer.text,
        "Pass `-z/--search-zip` and ripgrep searches \"compressed files\". [1]\n\
         Archive formats such as `*.tar.gz` are skipped. [1]"
    );
    assert_eq!(run.answer.stats.llm_calls, 5);
    // The answer prompt holds the evidence, numbered, under its cap.
    let [prompt] = requests_containing(&fake, ANSWER_TAG).try_into().unwrap();
    assert!(prompt.contains("[1] lines 163–176"), "{prompt}");
    assert!(prompt.contains("--search-zip"));
    assert!(
        prompt.chars().count() / 4 <= ANSWER_PROMPT_TOKENS,
        "{}",
        prompt.len()
    );
}

#[tokio::test]
async fn a_citation_past_the_evidence_and_an_invented_quote_are_unsupported() {
    let mut script = navigation("sufficient", "");
    script.push(written(json!([
        {"text": "ripgrep's `-z/--search-zip` flag searches compressed files.", "citations": [1]},
        {"text": "It also reads zip archives.", "citations": [7]},
        {"text": "The FAQ says \"ripgrep decompresses archives natively\".", "citations": [1]}
    ])));
    let fake = FakeModel::start(script).await;
    let run = run(
        &fake,
        library(&["ripgrep__FAQ.md"]),
        with_answer(),
        QUESTION,
    )
    .await
    .unwrap();
    let answer = run.answer.answer.unwrap();
    let flags: Vec<(bool, Option<String>)> = answer
        .sentences
        .iter()
        .map(|s| (s.supported, s.problem.clone()))
        .collect();
    assert_eq!(
        flags,
        vec![
            (true, None),
            (
                false,
                Some("it cites [7], and there are 1 evidence items".into())
            ),
            (
                false,
                Some(
                    "it quotes \"ripgrep decompresses archives natively\", which [1] does not contain"
                        .into()
                )
            ),
        ]
    );
    // Kept and marked, never dropped.
    assert!(answer.text.contains(
        "It also reads zip archives. [7] [unsupported: it cites [7], and there are 1 evidence items]"
    ));
}

#[tokio::test]
async fn an_insufficient_verdict_gives_a_missing_answer() {
    let mut script = navigation(
        "insufficient",
        "which archive formats are searched on Windows",
    );
    script.push(written(json!([
        {"text": "The `-z/--search-zip` flag searches compressed files.", "citations": [1]}
    ])));
    let fake = FakeModel::start(script).await;
    let options = AgentOptions {
        rounds: 1,
        ..with_answer()
    };
    let run = run(&fake, library(&["ripgrep__FAQ.md"]), options, QUESTION)
        .await
        .unwrap();
    let answer = run.answer.answer.unwrap();
    assert_eq!(
        answer.missing.as_deref(),
        Some("which archive formats are searched on Windows")
    );
    assert!(answer
        .text
        .ends_with("\nMissing: which archive formats are searched on Windows"));
    // The prompt told the model what was missing and not to claim it.
    let [prompt] = requests_containing(&fake, ANSWER_TAG).try_into().unwrap();
    assert!(prompt.contains("judged insufficient: missing: which archive formats"));
}

#[tokio::test]
async fn without_evidence_no_answer_call_is_made() {
    let fake = FakeModel::start(vec![
        analysis(
            &["compressed files"],
            &[("ripgrep-faq", "how to search compressed files")],
        ),
        plan("ripgrep-faq", &["ls"], "ls"),
        command("ripgrep-faq", "done"),
        evaluation("absent", "nothing on compressed files", &[]),
    ])
    .await;
    let options = AgentOptions {
        rounds: 1,
        ..with_answer()
    };
    let run = run(&fake, library(&["ripgrep__FAQ.md"]), options, QUESTION)
        .await
        .unwrap();
    fake.verify().unwrap();
    let answer = run.answer.answer.unwrap();
    assert!(answer.sentences.is_empty());
    assert_eq!(answer.text, "Missing: nothing on compressed files");
}

#[tokio::test]
async fn the_cli_prints_the_answer_records_it_and_replay_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let mut script = navigation("sufficient", "");
    script.push(written(json!([
        {"text": "Use `-z/--search-zip`.", "citations": [1]},
        {"text": "It needs \"an internet connection\".", "citations": [1]}
    ])));
    let fake = FakeModel::start(script.clone()).await;
    let trace = dir.path().join("answer.jsonl");
    let out = docnav(&ws)
        .env("DOCNAV_MODEL", "fake-model")
        .env("OPENAI_BASE_URL", fake.base_url())
        .args(["ask", "--answer", "--json", "--trace"])
        .arg(&trace)
        .arg(QUESTION)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["answer"]["sentences"],
        json!([
            {"text": "Use `-z/--search-zip`.", "citations": [1], "supported": true},
            {"text": "It needs \"an internet connection\".", "citations": [1], "supported": false,
             "problem": "it quotes \"an internet connection\", which [1] does not contain"}
        ])
    );
    assert_eq!(json["stats"]["llm_calls"], 5);

    let fake = FakeModel::start(script).await;
    let text = docnav(&ws)
        .env("DOCNAV_MODEL", "fake-model")
        .env("OPENAI_BASE_URL", fake.base_url())
        .args(["ask", "--answer", "--no-cache", QUESTION])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("answer:\n  Use `-z/--search-zip`. [1]\n  It needs \"an internet connection\". [1] [unsupported: it quotes"),
        "{stdout}"
    );

    let replay = docnav(&ws).arg("replay").arg(&trace).output().unwrap();
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replay.status.success(),
        "{replayed}{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(replayed.starts_with("replay identical: "), "{replayed}");
    // The trace holds the draft and the verification.
    let recorded = std::fs::read_to_string(&trace).unwrap();
    assert!(recorded.contains("\"kind\":\"answer\""));
    assert!(recorded.contains("\"kind\":\"answer_verified\""));
}

/// Evidence far over the answer's budget: every item is still shown, shortened, and the lines a
/// Worker read by number (`cat path:N-M`, here two lines with no word of the question) are kept
/// in the answer prompt as in the verdict's — the answer sees what the verdict saw.
#[tokio::test]
async fn shortened_evidence_keeps_every_item_and_the_lines_a_worker_cited() {
    const CITED: [&str; 2] = ["# Because who cares about case!?", "--smart-case"];
    let question = "How do I set up a ripgrep config file?";
    let fake = FakeModel::start(vec![
        analysis(
            &["configuration file"],
            &[("ripgrep-guide", "how to set up a config file")],
        ),
        plan("ripgrep-guide", &["cat #1.8"], "cat #1.8"),
        command("ripgrep-guide", "cat #1.8:48-49"),
        command("ripgrep-guide", "cat #1.9"),
        command("ripgrep-guide", "cat #1.11"),
        command("ripgrep-guide", "cat #1.7"),
        command("ripgrep-guide", "done"),
        evaluation("sufficient", "", &[]),
        written(json!([{"text": "Set RIPGREP_CONFIG_PATH.", "citations": [1]}])),
    ])
    .await;
    let options = AgentOptions {
        prompt_cap_tokens: 2_000,
        evidence_chars: 50_000,
        rounds: 1,
        ..with_answer()
    };
    let run = run(&fake, library(&["ripgrep__GUIDE.md"]), options, question)
        .await
        .unwrap();
    fake.verify().unwrap();
    let evidence = &run.answer.evidence;
    let structures: Vec<&str> = evidence.iter().map(|e| e.structure.as_str()).collect();
    assert_eq!(structures.len(), 4, "{structures:?}");
    // The two reads of #1.8 are one item, which remembers the lines read by number.
    let config = evidence.iter().find(|e| e.structure == "1.8").unwrap();
    let lines: Vec<&str> = config.text.split('\n').collect();
    let [[a, b]] = config.cited_lines[..] else {
        panic!("{:?}", config.cited_lines)
    };
    assert_eq!(lines[a as usize - 1..b as usize], CITED);
    let [prompt] = requests_containing(&fake, ANSWER_TAG).try_into().unwrap();
    // Shortened: the evidence alone is over the prompt cap (2,000 tokens of 4 chars).
    let whole: usize = evidence.iter().map(|e| e.text.chars().count()).sum();
    assert!(whole > 4 * 2_000, "{whole}");
    assert!(prompt.contains("not shown]"), "{prompt}");
    assert!(prompt.chars().count() < whole, "{prompt}");
    // Every item, numbered, under its heading path.
    for (i, e) in evidence.iter().enumerate() {
        let title = e.path.last().unwrap();
        assert!(
            prompt.contains(&format!("[{}] lines", i + 1))
                && prompt.contains(&format!("ripgrep-guide › User Guide › {title}")),
            "item {} ({title}) missing:\n{prompt}",
            i + 1
        );
    }
    // The cited lines, together, in the answer's prompt and in the verdict's.
    let [verdict] = requests_containing(&fake, EVALUATE_TAG).try_into().unwrap();
    for shown in [&prompt, &verdict] {
        assert!(shown.contains(&CITED.join("\n")), "{shown}");
    }
}
