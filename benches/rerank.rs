//! Where the final rerank of a handful of evidence passages runs (issue 13 asks to decide by
//! measurement): in memory with [`Bm25Scorer`] (statistics of the passages themselves), or in a
//! tantivy index built in RAM for them with the same tokenizer. 20 passages of real
//! documentation (the ripgrep guide's sections), one question. Run: `cargo bench --bench rerank`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, Criterion};
use docnav::index::analyzer::{DocnavTokenizer, TOKENIZER_NAME};
use docnav::index::Bm25Scorer;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::{Index, TantivyDocument, Term};

const QUESTION: &str = "How do I search compressed files with ripgrep?";

fn passages() -> Vec<String> {
    let guide = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/docs/ripgrep__GUIDE.md"
    ))
    .unwrap();
    guide
        .split("\n### ")
        .map(|s| s.chars().take(2500).collect::<String>())
        .take(20)
        .collect()
}

fn tantivy_rank(passages: &[String]) -> Vec<(f32, u32)> {
    let mut b = Schema::builder();
    let text = b.add_text_field(
        "text",
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqs),
        ),
    );
    let index = Index::create_in_ram(b.build());
    index
        .tokenizers()
        .register(TOKENIZER_NAME, DocnavTokenizer::default());
    let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
    for p in passages {
        let mut doc = TantivyDocument::new();
        doc.add_text(text, p);
        writer.add_document(doc).unwrap();
    }
    writer.commit().unwrap();
    let searcher = index.reader().unwrap().searcher();
    let clauses: Vec<(Occur, Box<dyn Query>)> = docnav::index::tokenize(QUESTION)
        .into_iter()
        .map(|t| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(text, &t),
                IndexRecordOption::WithFreqs,
            ));
            (Occur::Should, q)
        })
        .collect();
    searcher
        .search(
            &BooleanQuery::new(clauses),
            &TopDocs::with_limit(passages.len()).order_by_score(),
        )
        .unwrap()
        .into_iter()
        .map(|(s, a)| (s, a.doc_id))
        .collect()
}

fn bench(c: &mut Criterion) {
    let passages = passages();
    let mut g = c.benchmark_group("rerank");
    g.bench_function("in_memory_bm25_20_passages", |b| {
        b.iter(|| Bm25Scorer::new(&passages).rank(QUESTION))
    });
    g.bench_function("tantivy_ram_index_20_passages", |b| {
        b.iter(|| tantivy_rank(&passages))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
