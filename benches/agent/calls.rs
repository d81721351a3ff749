//! Issue 14's figures: sequential model calls and prompt tokens per question, the analyze prompt's
//! size (43 documents, and 10,000 synthetic cards), and routing on the cross-document questions,
//! against a *scripted* model on 127.0.0.1 that plays a capable model's typical path:
//!
//! - the first orchestrator call (understand, or analyze with understanding folded in) gives the
//!   key concepts written for the question in `bench/key_concepts.jsonl`;
//! - analyze picks the question's gold document (the typical path), or the first documents the
//!   prompt lists (the routing figure: then the ranking of the cards is what is measured);
//! - each Worker reads the first `find` hit its prompt shows (`cat PATH`), then runs `check`;
//! - check and evaluate say sufficient (the replan variant: the first evaluate says what is
//!   missing and the second document is searched in a second round).
//!
//! Replies carry the fields of every version of a decision (serde ignores the others), so the
//! same script drives the agent before and after issue 14. Tokens are the fake's chars/4.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::{between, content};
use docnav::agent::{ask, AgentEvent, AgentOptions, EventRecord, SharedModel};
use docnav::eval::{parse_qa, GoldIndex, QaItem};
use docnav::llm::{ChatModel, ModelConfig, OpenAiCompatible};
use docnav::trace::replay::MemorySink;
use docnav::tree::BuildOptions;
use docnav::workspace::{slugify, Document, InMemoryLibrary, Library};
use regex::Regex;
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// How the scripted analyze chooses documents.
#[derive(Clone, Debug)]
enum Route {
    /// These documents, in order.
    Docs(Vec<String>),
    /// The first `n` documents the prompt lists.
    FirstListed(usize),
}

/// The script of one question.
#[derive(Clone, Debug)]
struct Plan {
    concepts: Vec<String>,
    /// `focused` for one-section questions, `exploratory` for questions with two parts.
    strategy: &'static str,
    route: Route,
    /// Documents the first evaluate asks for in a second round (with what is missing).
    second_round: Option<(Vec<String>, String)>,
}

#[derive(Default)]
struct State {
    plan: Option<Plan>,
    evaluations: usize,
    /// (decision, prompt chars) of every request.
    requests: Vec<(String, usize)>,
    /// Document ids analyze chose.
    routed: Vec<String>,
}

struct Responder(Arc<Mutex<State>>);

/// Document ids in the order the prompt lists them (`- id: \`x\`` or `- \`x\``).
fn listed_ids(user: &str) -> Vec<String> {
    let re = Regex::new(r"(?m)^- (?:id: )?`([^`]+)`").unwrap();
    let mut out: Vec<String> = Vec::new();
    for c in re.captures_iter(user) {
        let id = c[1].to_string();
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// The first `find` hit of document `doc` the prompt shows (`/doc/1/2  3.21  Title…`).
fn first_hit(user: &str, doc: &str) -> Option<String> {
    let re = Regex::new(&format!(
        r"(?m)^(/{}(?:/[0-9]+)*)  [0-9]+\.[0-9]+  ",
        regex::escape(doc)
    ))
    .unwrap();
    re.captures(user).map(|c| c[1].to_string())
}

fn tasks(ids: &[String]) -> Vec<Value> {
    ids.iter()
        .map(|d| json!({"doc_id": d, "task": "find the section that answers the question"}))
        .collect()
}

impl Responder {
    fn reply(&self, body: &Value) -> String {
        let (system, user) = content(body);
        let schema = body
            .pointer("/response_format/json_schema/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut state = self.0.lock().unwrap();
        let plan = state.plan.clone().expect("a question is set");
        let worker_doc = between(&user, "Task in document `", "`").map(str::to_string);
        let decision = match (schema.as_str(), &worker_doc) {
            ("query_plan", _) => "understand",
            ("analysis", _) => "analyze",
            ("task_list", _) if user.contains("\nMissing: ") => "replan",
            ("task_list", _) => "analyze",
            ("plan" | "plan_step", _) => "plan",
            ("nav_step", _) => "navigate",
            ("verdict" | "check", Some(_)) => "check",
            ("verdict" | "evaluation", None) => "evaluate",
            (other, _) => panic!("calls bench: unexpected schema {other:?}"),
        };
        state.requests.push((
            decision.to_string(),
            system.chars().count() + user.chars().count(),
        ));
        let understanding = json!({
            "intent": "factual",
            "key_concepts": plan.concepts,
            "strategy": plan.strategy,
        });
        let chosen = |n: &Route| match n {
            Route::Docs(d) => d.clone(),
            Route::FirstListed(k) => listed_ids(&user).into_iter().take(*k).collect(),
        };
        let reply = match decision {
            "understand" => understanding,
            "analyze" => {
                let ids = chosen(&plan.route);
                state.routed = ids.clone();
                let mut v = understanding;
                v["tasks"] = json!(tasks(&ids));
                v
            }
            "replan" => {
                json!({"tasks": tasks(&plan.second_round.map(|s| s.0).unwrap_or_default())})
            }
            "plan" | "navigate" => {
                let doc = worker_doc.unwrap_or_default();
                let command = if user.contains("Evidence collected:") {
                    "check".to_string()
                } else {
                    match first_hit(&user, &doc) {
                        Some(p) => format!("cat {p}"),
                        None => format!("cat /{doc}"),
                    }
                };
                json!({"plan": ["read the best hit", "check"], "reason": "scripted", "command": command})
            }
            "check" => json!({"sufficient": true, "verdict": "sufficient", "missing": ""}),
            _ => {
                state.evaluations += 1;
                match (&plan.second_round, state.evaluations) {
                    (Some((docs, missing)), 1) => json!({
                        "sufficient": false, "verdict": "insufficient", "missing": missing,
                        "tasks": tasks(docs)
                    }),
                    _ => {
                        json!({"sufficient": true, "verdict": "sufficient", "missing": "", "tasks": []})
                    }
                }
            }
        };
        reply.to_string()
    }
}

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let text = self.reply(&body);
        let (s, u) = content(&body);
        let prompt = (s.chars().count() + u.chars().count()).div_ceil(4) as u64;
        let completion = text.chars().count().div_ceil(4) as u64;
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "bench", "object": "chat.completion", "created": 0, "model": "bench",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        }))
    }
}

/// What one scripted question cost.
#[derive(Debug, Clone, Default)]
struct Cost {
    calls: usize,
    sequential: usize,
    prompt_tokens: u64,
    analyze_tokens: usize,
    routed: Vec<String>,
}

/// Model calls on the critical path: the orchestrator's, plus per round the busiest worker's.
fn sequential_calls(events: &[EventRecord]) -> usize {
    let mut per_actor: HashMap<&str, usize> = HashMap::new();
    for e in events {
        if matches!(e.event, AgentEvent::ModelRequest { .. }) {
            *per_actor.entry(e.actor.as_str()).or_default() += 1;
        }
    }
    let mut rounds: HashMap<&str, usize> = HashMap::new();
    let mut total = 0;
    for (actor, n) in &per_actor {
        if *actor == "orchestrator" {
            total += n;
        } else if let Some(r) = actor.split('-').next() {
            let slot = rounds.entry(r).or_default();
            *slot = (*slot).max(*n);
        }
    }
    total + rounds.values().sum::<usize>()
}

struct Bench {
    state: Arc<Mutex<State>>,
    model: Arc<dyn ChatModel>,
    _server: MockServer,
}

impl Bench {
    async fn start() -> Bench {
        let state = Arc::new(Mutex::new(State::default()));
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(Responder(state.clone()))
            .mount(&server)
            .await;
        let mut config = ModelConfig::new("bench", &format!("{}/v1", server.uri())).unwrap();
        config.concurrency = 8;
        let model: Arc<dyn ChatModel> = Arc::new(OpenAiCompatible::new(config).unwrap());
        Bench {
            state,
            model,
            _server: server,
        }
    }

    async fn cost(
        &self,
        library: Arc<dyn Library>,
        options: &AgentOptions,
        question: &str,
        plan: Plan,
    ) -> Cost {
        {
            let mut s = self.state.lock().unwrap();
            *s = State {
                plan: Some(plan),
                ..State::default()
            };
        }
        let sink = Arc::new(MemorySink::default());
        let run = ask(
            library,
            Arc::new(SharedModel(self.model.clone())),
            sink.clone(),
            options,
            question,
        )
        .await;
        let s = self.state.lock().unwrap();
        let analyze_chars = s
            .requests
            .iter()
            .filter(|(d, _)| d == "analyze")
            .map(|(_, c)| *c)
            .max()
            .unwrap_or(0);
        let (calls, prompt_tokens) = match &run {
            Ok(r) => (
                r.answer.stats.llm_calls as usize,
                r.answer.stats.prompt_tokens,
            ),
            Err(e) => panic!("calls bench: {question}: {e}"),
        };
        Cost {
            calls,
            sequential: sequential_calls(&sink.events()),
            prompt_tokens,
            analyze_tokens: analyze_chars.div_ceil(4),
            routed: s.routed.clone(),
        }
    }
}

fn median<T: Copy + PartialOrd>(mut xs: Vec<T>) -> T {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn concepts(root: &Path) -> HashMap<String, Vec<String>> {
    let text = std::fs::read_to_string(root.join("bench/key_concepts.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let q = v["question"].as_str().unwrap().to_string();
            let c = v["key_concepts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            (q, c)
        })
        .collect()
}

/// The gold document of each question in `library` (items whose gold section is not there are
/// left out): a named `doc` by its file stem's slug, else the one document holding the gold path.
fn gold_docs(library: &dyn Library, items: &[QaItem]) -> Vec<(QaItem, String)> {
    let all: Vec<String> = library
        .all_cards()
        .iter()
        .map(|c| c.doc_id.clone())
        .collect();
    let mut gold = GoldIndex::new();
    let mut out = Vec::new();
    for item in items {
        let scope = match &item.doc {
            Some(doc) => {
                let stem = Path::new(doc).file_stem().unwrap().to_string_lossy();
                let id = slugify(&stem);
                if !all.contains(&id) {
                    continue;
                }
                vec![id]
            }
            None => all.clone(),
        };
        if let Ok(g) = gold.find(library, &scope, &item.gold_path, &item.answer) {
            out.push((item.clone(), g.doc_id));
        }
    }
    out
}

fn options() -> AgentOptions {
    AgentOptions::default()
}

/// The issue 14 figures over `corpus` (the 43-document workspace) and `fixtures` (all of
/// `fixtures/docs`).
pub async fn run(root: &Path, corpus: Arc<dyn Library>, fixtures: Arc<dyn Library>) {
    let bench = Bench::start().await;
    let qa = parse_qa(&std::fs::read_to_string(root.join("fixtures/qa.jsonl")).unwrap()).items;
    let concepts = concepts(root);
    let concepts_of = |q: &str| concepts.get(q).cloned().unwrap_or_default();
    let options = options();

    // 1. Single-document factual questions, typical path, routed to the gold document.
    let golds = gold_docs(corpus.as_ref(), &qa);
    let mut costs = Vec::new();
    for (item, doc) in &golds {
        let plan = Plan {
            concepts: concepts_of(&item.question),
            strategy: "focused",
            route: Route::Docs(vec![doc.clone()]),
            second_round: None,
        };
        costs.push(
            bench
                .cost(corpus.clone(), &options, &item.question, plan)
                .await,
        );
    }
    let n = costs.len();
    println!(
        "| single-document factual question, scripted typical path | corpus ({} docs), {n} questions of fixtures/qa.jsonl | {} sequential calls (median; max {}) | {} calls; median {} prompt tokens per question (max {}) |",
        corpus.document_count(),
        median(costs.iter().map(|c| c.sequential).collect()),
        costs.iter().map(|c| c.sequential).max().unwrap_or(0),
        median(costs.iter().map(|c| c.calls).collect()),
        median(costs.iter().map(|c| c.prompt_tokens).collect()),
        costs.iter().map(|c| c.prompt_tokens).max().unwrap_or(0),
    );
    println!(
        "| analyze prompt | corpus ({} docs), same questions | {} est. tokens (median; max {}) | target ≤ 4,000 |",
        corpus.document_count(),
        median(costs.iter().map(|c| c.analyze_tokens).collect()),
        costs.iter().map(|c| c.analyze_tokens).max().unwrap_or(0),
    );

    // 2. Two-document questions: two questions on different documents asked as one.
    // Each document's first question with the next document's first question.
    let mut firsts: Vec<&(QaItem, String)> = Vec::new();
    for g in &golds {
        if !firsts.iter().any(|f| f.1 == g.1) {
            firsts.push(g);
        }
    }
    let pairs: Vec<(String, Vec<String>, String, String)> = (0..firsts.len())
        .map(|i| {
            let (a, da) = firsts[i];
            let (b, db) = firsts[(i + 1) % firsts.len()];
            let mut c = concepts_of(&a.question);
            c.extend(concepts_of(&b.question));
            (
                format!("{} Also: {}", a.question, b.question),
                c,
                da.clone(),
                db.clone(),
            )
        })
        .collect();
    for replan in [false, true] {
        let mut costs = Vec::new();
        for (q, c, da, db) in &pairs {
            let plan = if replan {
                Plan {
                    concepts: c.clone(),
                    strategy: "exploratory",
                    route: Route::Docs(vec![da.clone()]),
                    second_round: Some((vec![db.clone()], "the second part".into())),
                }
            } else {
                Plan {
                    concepts: c.clone(),
                    strategy: "exploratory",
                    route: Route::Docs(vec![da.clone(), db.clone()]),
                    second_round: None,
                }
            };
            costs.push(bench.cost(corpus.clone(), &options, q, plan).await);
        }
        println!(
            "| two-document question, {} | corpus, {} question pairs | {} sequential calls (median) | {} calls; median {} prompt tokens |",
            if replan {
                "first round one document, evaluate asks for the second"
            } else {
                "both documents in round 1"
            },
            costs.len(),
            median(costs.iter().map(|c| c.sequential).collect()),
            median(costs.iter().map(|c| c.calls).collect()),
            median(costs.iter().map(|c| c.prompt_tokens).collect()),
        );
    }

    // 3. Routing: the cross-document questions (no `doc`), the model picking the first listed.
    for (name, library) in [("fixtures/docs", &fixtures), ("corpus", &corpus)] {
        let cross: Vec<QaItem> = qa.iter().filter(|i| i.doc.is_none()).cloned().collect();
        let golds = gold_docs(library.as_ref(), &cross);
        for k in [1usize, 4] {
            let mut hits = 0;
            for (item, doc) in &golds {
                let plan = Plan {
                    concepts: concepts_of(&item.question),
                    strategy: "focused",
                    route: Route::FirstListed(k),
                    second_round: None,
                };
                let cost = bench
                    .cost(library.clone(), &options, &item.question, plan)
                    .await;
                hits += usize::from(cost.routed.contains(doc));
            }
            println!(
                "| routing: gold document among the first {k} listed | {name} ({} docs), {} cross-document questions | {hits} of {} | scripted model picks the first listed |",
                library.document_count(),
                golds.len(),
                golds.len()
            );
        }
    }

    // 4. The analyze prompt over 10,000 synthetic documents.
    let big = synthetic_library(10_000);
    let plan = Plan {
        concepts: vec!["topic 4242".into(), "install".into()],
        strategy: "focused",
        route: Route::FirstListed(1),
        second_round: None,
    };
    let cost = bench
        .cost(big, &options, "how do I install topic 4242?", plan)
        .await;
    println!(
        "| analyze prompt | 10,000 synthetic documents | {} est. tokens | prompt cap {} |",
        cost.analyze_tokens, options.prompt_cap_tokens
    );
}

/// `n` small Markdown documents with distinct titles, outlines and words.
fn synthetic_library(n: usize) -> Arc<dyn Library> {
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
    ];
    let documents: Vec<Document> = (0..n)
        .map(|i| {
            let w = |k: usize| words[(i / 16usize.pow(k as u32)) % 16];
            let text = format!(
                "# {} {} manual {i}\n\nThis manual covers topic {i}: {} and {}.\n\n## Install\n\nInstall topic {i} with the {} installer.\n\n## Usage\n\nRun {} {} every day.\n\n## Troubleshooting\n\nWhen topic {i} fails, check the {} log.\n",
                w(0), w(1), w(2), w(0), w(1), w(2), w(0), w(1)
            );
            let path = format!("/synthetic/manual-{i}.md");
            Document::build(
                Path::new(&path),
                text.as_bytes(),
                &format!("manual-{i}"),
                true,
                &BuildOptions::default(),
            )
            .unwrap()
            .document
        })
        .collect();
    Arc::new(InMemoryLibrary::new(documents))
}

/// Issue 14.2: key concepts as one combined `find` query, or one query per concept merged by
/// reciprocal rank fusion (Cormack, Clarke & Büttcher 2009: Σ 1 / (60 + rank)), over the gold
/// document of each question of `fixtures/qa.jsonl`; a hit counts when it is the gold section or
/// inside it. Prints hit@1/3/10 and MRR@10 of both.
pub fn concepts_figure(root: &Path, fixtures: &dyn Library) {
    use docnav::tree::NodeId;
    const K: usize = 10;
    const RRF_K: f32 = 60.0;
    let qa = parse_qa(&std::fs::read_to_string(root.join("fixtures/qa.jsonl")).unwrap()).items;
    let concepts = concepts(root);
    let golds = gold_docs(fixtures, &qa);
    let mut gold_index = GoldIndex::new();
    // (hit@1, hit@3, hit@10, reciprocal ranks) for combined, per-concept.
    let mut tallies = [(0usize, 0usize, 0usize, 0f32); 2];
    let mut n = 0;
    for (item, doc_id) in &golds {
        let Some(c) = concepts.get(&item.question) else {
            continue;
        };
        let gold = gold_index
            .find(
                fixtures,
                std::slice::from_ref(doc_id),
                &item.gold_path,
                &item.answer,
            )
            .unwrap();
        let doc = fixtures.document(doc_id).unwrap();
        let only = std::slice::from_ref(doc_id);
        let search = |q: &str| {
            fixtures
                .sections()
                .unwrap()
                .prepare(q, docnav::index::Scope::Documents(only))
                .unwrap()
                .top(K)
                .unwrap()
        };
        let combined: Vec<NodeId> = search(&c.join(" ")).into_iter().map(|h| h.node).collect();
        let mut fused: HashMap<NodeId, f32> = HashMap::new();
        for concept in c {
            for (rank, hit) in search(concept).into_iter().enumerate() {
                *fused.entry(hit.node).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
            }
        }
        let mut per_concept: Vec<(NodeId, f32)> = fused.into_iter().collect();
        per_concept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let per_concept: Vec<NodeId> = per_concept.into_iter().take(K).map(|(n, _)| n).collect();
        n += 1;
        for (t, list) in [combined, per_concept].iter().enumerate() {
            let rank = list
                .iter()
                .position(|&h| doc.tree.is_ancestor_or_self(gold.node, h));
            if let Some(r) = rank {
                tallies[t].0 += usize::from(r < 1);
                tallies[t].1 += usize::from(r < 3);
                tallies[t].2 += usize::from(r < K);
                tallies[t].3 += 1.0 / (r as f32 + 1.0);
            }
        }
    }
    for (t, name) in ["one combined query", "one query per concept, RRF-merged"]
        .iter()
        .enumerate()
    {
        let (h1, h3, h10, rr) = tallies[t];
        println!(
            "| key concepts as {name} | fixtures/docs, {n} questions, gold document | hit@1 {h1}, @3 {h3}, @10 {h10} of {n}; MRR@10 {:.3} | first find of each Worker |",
            rr / n as f32
        );
    }
}
