//! The plain reference BM25 that `BENCHMARKS.md` compares the lexical navigator against:
//! every section (node) of the candidate documents scored on its own title + text, lowercase
//! alphanumeric words, no stopwords, no stemming, no title weight, no dedup, statistics per
//! document. BM25 after Robertson & Zaragoza (2009), *The Probabilistic Relevance Framework:
//! BM25 and Beyond*, k1 = 1.2, b = 0.75, Lucene's idf `ln(1 + (N - n + 0.5) / (n + 0.5))`.
//!
//! Deliberately independent of docnav's tokenizer and index, so it measures what docnav's own
//! choices add. Scored by the same `docnav eval` code (gold paths, hit@k, MRR).
//!
//! ```sh
//! cargo run --release --example reference_bm25 -- fixtures/qa.jsonl [--json]
//! ```

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use docnav::agent::evidence::{Answer, AskStats, Evidence};
use docnav::eval::{
    library_from_qa, parse_qa, render_table, run_eval, DocResolver, Navigation, NavigatorError,
    QaItem,
};
use docnav::tree::{BuildOptions, NodeId};
use docnav::workspace::Library;

const K1: f64 = 1.2;
const B: f64 = 0.75;
const TOP_K: usize = 5;

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// One document's sections as term-frequency maps, with its BM25 statistics.
struct Sections {
    tfs: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    df: HashMap<String, f64>,
}

impl Sections {
    fn new(library: &dyn Library, doc_id: &str) -> Option<Sections> {
        let doc = library.document(doc_id).ok()?;
        let tree = &doc.tree;
        let mut out = Sections {
            tfs: Vec::with_capacity(tree.len()),
            lengths: Vec::with_capacity(tree.len()),
            df: HashMap::new(),
        };
        for i in 0..tree.len() {
            let node = tree.node(NodeId(u32::try_from(i).ok()?));
            let mut tf: HashMap<String, f64> = HashMap::new();
            let tokens = words(&format!("{}\n{}", node.title, node.content));
            for t in &tokens {
                *tf.entry(t.clone()).or_default() += 1.0;
            }
            for t in tf.keys() {
                *out.df.entry(t.clone()).or_default() += 1.0;
            }
            out.lengths.push(tokens.len() as f64);
            out.tfs.push(tf);
        }
        Some(out)
    }

    fn scores(&self, query: &[String]) -> Vec<(usize, f64)> {
        let n = self.tfs.len() as f64;
        let avg = self.lengths.iter().sum::<f64>() / n.max(1.0);
        let mut out = Vec::new();
        for (i, tf) in self.tfs.iter().enumerate() {
            let mut score = 0.0;
            for term in query {
                let (Some(f), Some(df)) = (tf.get(term), self.df.get(term)) else {
                    continue;
                };
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                let norm = K1 * (1.0 - B + B * self.lengths[i] / avg.max(1e-9));
                score += idf * f * (K1 + 1.0) / (f + norm);
            }
            if score > 0.0 {
                out.push((i, score));
            }
        }
        out
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(qa_path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: reference_bm25 QA.jsonl [--json]");
        return ExitCode::from(2);
    };
    let json = args.iter().any(|a| a == "--json");
    let text = match std::fs::read_to_string(qa_path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read `{qa_path}`: {e}");
            return ExitCode::from(1);
        }
    };
    let base = Path::new(qa_path).parent().unwrap_or(Path::new("."));
    let qa = parse_qa(&text);
    let (library, _warnings) = library_from_qa(&qa.items, base, &BuildOptions::default());
    let all: Vec<String> = library
        .all_cards()
        .iter()
        .map(|c| c.doc_id.clone())
        .collect();
    let sections: HashMap<String, Sections> = all
        .iter()
        .filter_map(|id| Some((id.clone(), Sections::new(&library, id)?)))
        .collect();
    let navigator = |item: &QaItem, doc_ids: Option<&[String]>| {
        let start = Instant::now();
        let query = words(&item.question);
        let mut hits: Vec<(f64, &str, usize)> = Vec::new();
        for id in doc_ids.unwrap_or(&all) {
            let Some(s) = sections.get(id) else {
                continue;
            };
            hits.extend(
                s.scores(&query)
                    .into_iter()
                    .map(|(i, sc)| (sc, id.as_str(), i)),
            );
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut evidence = Vec::new();
        for (score, id, i) in hits.into_iter().take(TOP_K) {
            let doc = library.document(id)?;
            let node = NodeId(u32::try_from(i)?);
            evidence.extend(Evidence::from_node(id, &doc.tree, node, score as f32));
        }
        let stats = AskStats {
            wall_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
            ..AskStats::default()
        };
        Ok::<_, NavigatorError>(Navigation {
            answer: Answer {
                question: item.question.clone(),
                standalone_question: None,
                from_trace: None,
                evidence,
                stats,
                answer: None,
                verdict: None,
                worker_errors: Vec::new(),
            },
            trace: None,
        })
    };
    let report = run_eval(&library, &DocResolver::new(&library, base), &qa, &navigator);
    if json {
        match serde_json::to_string_pretty(&report) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        print!("{}", render_table(&report));
    }
    ExitCode::SUCCESS
}
