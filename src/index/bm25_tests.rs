use super::*;

fn close(a: f32, b: f64) -> bool {
    (f64::from(a) - b).abs() < 1e-5
}

#[test]
fn idf_matches_lucene_formula() {
    // N = 3, df = 1: ln(1 + 2.5 / 1.5)
    assert!(close(idf(3, 1), (1.0f64 + 2.5 / 1.5).ln()));
    // A term in every unit still gets a small positive idf: ln(1 + 0.5 / 3.5).
    assert!(close(idf(3, 3), (1.0f64 + 0.5 / 3.5).ln()));
    assert!(idf(3, 0) > idf(3, 1));
    // Inconsistent df is clamped, never negative.
    assert!(close(idf(3, 9), idf(3, 3).into()));
}

/// Three texts, computed by hand:
/// 0: "apple banana apple" → tf(apple)=2, len 3
/// 1: "banana cherry"      → len 2
/// 2: "cherry cherry cherry date" → len 4
/// N = 3, avgdl = 9 / 3 = 3.
#[test]
fn scorer_matches_closed_form_on_tiny_corpus() {
    let texts = [
        "apple banana apple",
        "banana cherry",
        "cherry cherry cherry date",
    ];
    let s = Bm25Scorer::new(&texts);
    assert_eq!(s.unit_count(), 3);
    assert!(close(s.average_length(), 3.0));
    assert_eq!(s.document_frequency("banana"), 2);
    assert_eq!(s.document_frequency("cherry"), 2);

    let (k1, b) = (1.2f64, 0.75f64);
    let idf_ = |n: f64, df: f64| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
    let part = |tf: f64, len: f64, avg: f64, idf: f64| {
        idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / avg))
    };

    // "apple" in text 0: tf 2, len 3 = avgdl, df 1.
    let expect0 = part(2.0, 3.0, 3.0, idf_(3.0, 1.0));
    assert!(close(s.score(0, "apple"), expect0));
    assert!(close(s.score(0, "apples"), expect0), "query is stemmed too");

    // "banana cherry" in text 1: both tf 1, len 2, df 2 each.
    let expect1 = 2.0 * part(1.0, 2.0, 3.0, idf_(3.0, 2.0));
    assert!(close(s.score(1, "banana cherry"), expect1));

    // "cherry" in text 2: tf 3, len 4.
    let expect2 = part(3.0, 4.0, 3.0, idf_(3.0, 2.0));
    let e = s.explain(2, "cherry banana").unwrap();
    assert!(close(e.score, expect2));
    assert_eq!(e.terms.len(), 1, "banana (tf 0) is omitted");
    assert_eq!(e.terms[0].term, "cherry");
    assert!(close(e.terms[0].tf, 3.0));
    assert_eq!(e.terms[0].df, 2);
    assert!(close(e.unit_length, 4.0));

    // Ranking for "cherry": text 2 (tf 3) beats text 1 (tf 1, shorter), text 0 scores 0.
    let ranked = s.rank("cherry");
    assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), [2, 1, 0]);
    assert_eq!(ranked[2].1, 0.0);
}

#[test]
fn repeated_query_terms_count_once() {
    let s = Bm25Scorer::new(&["alpha beta", "beta gamma"]);
    assert_eq!(s.score(0, "alpha alpha alpha"), s.score(0, "alpha"));
}

#[test]
fn term_score_handles_degenerate_statistics() {
    assert_eq!(term_score(1.0, 0.0, 5.0, 3.0), 0.0);
    // avgdl 0 → length ratio 1: tf (k1+1) / (tf + k1)
    assert!(close(term_score(1.0, 1.0, 0.0, 0.0), 2.2 / 2.2));
    let empty = Bm25Scorer::new::<&str>(&[]);
    assert!(empty.is_empty());
    assert!(empty.rank("x").is_empty());
    assert_eq!(empty.score(3, "anything"), 0.0);
}
