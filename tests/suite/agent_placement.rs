//! The Orchestrator with its Workers dispatched elsewhere and its catalog ranked over shards
//! ([`docnav::agent::orchestrator::placement`]): the fixtures split over three libraries, each
//! Worker's request and reply passed through JSON to the library holding its document (as
//! between processes), the ranking merged from the shards' parts, the Orchestrator reading the
//! catalog gathered from the shards' parts ([`GatheredCatalog`]). Against the same scripted
//! model, the run sends the same prompts, collects the same evidence and reaches the same
//! verdict as the run over one library holding every document; recorded, either run replays
//! with each Worker replayed on its shard ([`replay_placed`]).

use std::sync::{Arc, Mutex};

use docnav::agent::decisions::Task;
use docnav::agent::events::{EventRecord, EventSink};
use docnav::agent::orchestrator::placement::{
    forward_events, run_requested_worker, CatalogPart, CatalogRanking, GatheredCards,
    GatheredCatalog, WorkerDispatch, WorkerReply, WorkerRequest,
};
use docnav::agent::orchestrator::shards::{
    merge_rank_statistics, merge_rankings, rank_shard, rank_statistics,
};
use docnav::agent::orchestrator::{Placement, RankedDocuments};
use docnav::agent::worker::{WorkerContext, WorkerOutcome};
use docnav::agent::{ask_placed, AgentError, AgentOptions, SharedModel};
use docnav::llm::{BoxFuture, ChatModel};
use docnav::trace::replay::{comparable, replay_placed, MemorySink, ReplayModel};
use docnav::trace::{Trace, TraceHeader};
use docnav::tree::BuildOptions;
use docnav::workspace::{InMemoryLibrary, Library};
use pretty_assertions::assert_eq;

use super::agent::{analysis, command, evaluation, model, plan};
use super::common::fixture;
use crate::support::fake_model::{FakeModel, Reply};

const SHARDS: [&[&str]; 3] = [
    &["ripgrep__FAQ.md", "ripgrep__GUIDE.md"],
    &["notes.txt", "multilingual.md", "clap__git.md"],
    &["nodejs-doc__fs.md", "python-markdown__toc.md"],
];

const TASKS: [(&str, &str, &str); 3] = [
    (
        "ripgrep-faq",
        "find how to search compressed files",
        "cat 1/8",
    ),
    ("notes", "find how a workspace is chosen", "cat 1"),
    ("nodejs-doc-fs", "find the promise example", "cat 1"),
];

const QUESTION: &str = "How do I search compressed files with ripgrep?";

fn library(files: &[&str]) -> Arc<InMemoryLibrary> {
    let paths: Vec<_> = files.iter().map(|f| fixture(f)).collect();
    Arc::new(InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap())
}

fn script() -> Vec<Reply> {
    let tasks: Vec<(&str, &str)> = TASKS.iter().map(|(d, t, _)| (*d, *t)).collect();
    let mut script = vec![analysis(&["compressed files"], &tasks)];
    for (doc, _, line) in TASKS {
        script.push(plan(doc, &[line], line));
        script.push(command(doc, "done"));
    }
    script.push(evaluation("sufficient", "", &[]));
    script
}

/// Every shard's catalog, each part through JSON, gathered.
fn gathered(shards: &[Arc<InMemoryLibrary>]) -> Arc<GatheredCards> {
    let parts = shards
        .iter()
        .map(|s| {
            let json = CatalogPart::of_library(s.as_ref())
                .unwrap()
                .to_json()
                .unwrap();
            CatalogPart::from_json(&json).unwrap()
        })
        .collect();
    Arc::new(GatheredCards::new(parts))
}

/// Each Worker runs on the shard holding its document, its request and reply through JSON; the
/// reply's documents go to the run's catalog.
struct ShardWorkers {
    shards: Vec<Arc<InMemoryLibrary>>,
    catalog: Arc<GatheredCatalog>,
    model: Arc<dyn ChatModel>,
    /// `(doc_id, shard)` of every Worker run.
    ran: Arc<Mutex<Vec<(String, usize)>>>,
    /// In a replay: the recorded events each Worker's model answers from.
    recorded: Option<Vec<EventRecord>>,
}

impl WorkerDispatch for ShardWorkers {
    fn run(
        &self,
        ctx: Arc<WorkerContext>,
        task: Task,
        worker_id: String,
        sink: Arc<dyn EventSink>,
    ) -> BoxFuture<'static, WorkerOutcome> {
        let shard = self
            .shards
            .iter()
            .position(|s| s.card(&task.doc_id).is_some())
            .expect("a shard holds the document");
        self.ran.lock().unwrap().push((task.doc_id.clone(), shard));
        let library: Arc<dyn Library> = self.shards[shard].clone();
        let model: Arc<dyn ChatModel> = match &self.recorded {
            Some(events) => Arc::new(ReplayModel::for_actor(&worker_id, "replay", events)),
            None => self.model.clone(),
        };
        let request = serde_json::to_string(&WorkerRequest::of(&ctx, task, worker_id)).unwrap();
        let catalog = self.catalog.clone();
        Box::pin(async move {
            let request: WorkerRequest = serde_json::from_str(&request).unwrap();
            let reply = run_requested_worker(library, model, request).await;
            let reply: WorkerReply =
                serde_json::from_str(&serde_json::to_string(&reply).unwrap()).unwrap();
            assert!(reply
                .documents
                .iter()
                .any(|d| d.card.doc_id == reply.outcome.doc_id));
            forward_events(&reply, sink.as_ref());
            catalog.keep(reply.documents);
            reply.outcome
        })
    }
}

/// The catalog ranked in two rounds over the shards.
struct ShardRanking(Vec<Arc<InMemoryLibrary>>);

impl CatalogRanking for ShardRanking {
    fn rank(&self, _library: &dyn Library, question: &str) -> Result<RankedDocuments, AgentError> {
        let parts: Vec<_> = self
            .0
            .iter()
            .map(|s| rank_statistics(s.as_ref(), question).unwrap())
            .collect();
        let stats = merge_rank_statistics(&parts);
        let ranked: Vec<_> = self
            .0
            .iter()
            .map(|s| rank_shard(s.as_ref(), question, &stats, 0).unwrap())
            .collect();
        Ok(merge_rankings(&stats, &ranked))
    }
}

/// Every event's comparable form, per actor in sequence order.
fn comparable_events(events: &[EventRecord]) -> Vec<(String, u64, Option<String>)> {
    let mut out: Vec<_> = events
        .iter()
        .map(|e| (e.actor.clone(), e.seq, comparable(&e.event)))
        .collect();
    out.sort();
    out
}

/// Every request's messages, in a stable order (Workers run concurrently).
fn prompts(fake: &FakeModel) -> Vec<String> {
    let mut out: Vec<String> = fake
        .requests()
        .iter()
        .map(|r| r["messages"].to_string())
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn workers_dispatched_to_shards_give_the_run_of_one_library() {
    let files: Vec<&str> = SHARDS.iter().flat_map(|s| s.iter().copied()).collect();
    let whole = library(&files);
    let options = AgentOptions::default();

    let one_fake = FakeModel::start(script()).await;
    let one_sink = Arc::new(MemorySink::default());
    let one = ask_placed(
        whole.clone(),
        Arc::new(SharedModel(model(&one_fake))),
        one_sink.clone(),
        &options,
        &[],
        QUESTION,
        &Placement::local(),
    )
    .await
    .unwrap();
    one_fake.verify().unwrap();

    let fake = FakeModel::start(script()).await;
    let shards: Vec<_> = SHARDS.iter().map(|s| library(s)).collect();
    let cards = gathered(&shards);
    let catalog = Arc::new(GatheredCatalog::new(cards.clone()));
    let ran = Arc::new(Mutex::new(Vec::new()));
    let placement = Placement {
        workers: Arc::new(ShardWorkers {
            shards: shards.clone(),
            catalog: catalog.clone(),
            model: model(&fake),
            ran: ran.clone(),
            recorded: None,
        }),
        ranking: Arc::new(ShardRanking(shards.clone())),
        shards: Vec::new(),
    };
    let sink = Arc::new(MemorySink::default());
    let run = ask_placed(
        catalog,
        Arc::new(SharedModel(model(&fake))),
        sink.clone(),
        &options,
        &[],
        QUESTION,
        &placement,
    )
    .await
    .unwrap();
    fake.verify().unwrap();

    let mut ran = ran.lock().unwrap().clone();
    ran.sort();
    assert_eq!(
        ran,
        [
            ("nodejs-doc-fs".to_string(), 2),
            ("notes".to_string(), 1),
            ("ripgrep-faq".to_string(), 0)
        ]
    );
    assert_eq!(prompts(&fake), prompts(&one_fake));
    assert_eq!(run.answer.evidence.len(), 3);
    assert_eq!(run.answer.evidence, one.answer.evidence);
    assert_eq!(run.verdict, one.verdict);
    assert!(run.worker_errors.is_empty());
    assert_eq!(run.answer.stats.llm_calls, one.answer.stats.llm_calls);
    assert_eq!(
        comparable_events(&sink.events()),
        comparable_events(&one_sink.events())
    );

    // Recorded, the run replays with each Worker replayed on its shard from its own calls, as
    // does the run over one library.
    for (events, over) in [
        (sink.events(), "shards"),
        (one_sink.events(), "one library"),
    ] {
        let trace = Trace {
            header: TraceHeader::for_run(whole.as_ref(), QUESTION, "replay", &options, 0),
            events: events.clone(),
            truncated_at_line: None,
        };
        let catalog = Arc::new(GatheredCatalog::new(cards.clone()));
        let placement = Placement {
            workers: Arc::new(ShardWorkers {
                shards: shards.clone(),
                catalog: catalog.clone(),
                model: model(&fake),
                ran: Arc::new(Mutex::new(Vec::new())),
                recorded: Some(events),
            }),
            ranking: Arc::new(ShardRanking(shards.clone())),
            shards: Vec::new(),
        };
        let outcome = replay_placed(&trace, catalog, &placement).await;
        assert_eq!(outcome.divergence, None, "the run over {over}");
        let replayed = outcome.run.unwrap();
        assert_eq!(replayed.answer.evidence, run.answer.evidence);
        assert_eq!(replayed.verdict, run.verdict);
    }
}
