//! Running a navigator over a question set and scoring it (see the module docs of
//! [`crate::eval`]).

use std::time::Instant;

use serde::Serialize;

use super::gold::{normalize_space, DocResolver, GoldIndex};
use super::{DataError, QaItem, QaSet};
use crate::agent::evidence::Answer;
use crate::agent::lexical::ask_lexical;
use crate::workspace::Library;

/// A navigator's failure on one question (the model was unreachable, a document failed to
/// load…). The question is scored as a miss and the set goes on.
pub type NavigatorError = Box<dyn std::error::Error + Send + Sync>;

/// What a navigator returns for one question.
#[derive(Debug, Clone)]
pub struct Navigation {
    /// Ranked evidence and run stats.
    pub answer: Answer,
    /// The run's JSONL trace, when the navigator records one (written by `eval --out`).
    pub trace: Option<String>,
}

/// Answers one question. `doc_ids` is `Some` when the question names its document (resolved to
/// an id of the library), `None` to search every document.
pub trait Navigator {
    /// Answer `item.question`. Errors: any failure of the run, see [`NavigatorError`].
    fn navigate(
        &self,
        item: &QaItem,
        doc_ids: Option<&[String]>,
    ) -> Result<Navigation, NavigatorError>;
}

impl<F> Navigator for F
where
    F: Fn(&QaItem, Option<&[String]>) -> Result<Navigation, NavigatorError>,
{
    fn navigate(
        &self,
        item: &QaItem,
        doc_ids: Option<&[String]>,
    ) -> Result<Navigation, NavigatorError> {
        self(item, doc_ids)
    }
}

/// The lexical navigator ([`ask_lexical`]) over a library, returning `k` evidence items.
pub struct LexicalNavigator<'a> {
    /// Where documents come from.
    pub library: &'a dyn Library,
    /// Evidence items per question.
    pub k: usize,
}

impl Navigator for LexicalNavigator<'_> {
    fn navigate(
        &self,
        item: &QaItem,
        doc_ids: Option<&[String]>,
    ) -> Result<Navigation, NavigatorError> {
        let answer = ask_lexical(self.library, &item.question, doc_ids, self.k)?;
        Ok(Navigation {
            answer,
            trace: None,
        })
    }
}

/// How one line of the set ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Navigated and scored.
    Ok,
    /// Bad data (line, document or gold path): not scored.
    DataError,
    /// The navigator failed: scored as a miss.
    NavError,
}

/// One line of the set, scored.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionResult {
    /// 1-based line in the question file.
    pub line: usize,
    /// How it ended.
    pub status: Status,
    /// The error message for `data_error` / `nav_error`.
    pub error: Option<String>,
    /// The question (empty when the line did not parse).
    pub question: String,
    /// Resolved doc id the question was scoped to, if any.
    pub doc_id: Option<String>,
    /// The gold path as written.
    pub gold_path: Vec<String>,
    /// 1-based rank of the first evidence that is the gold section or inside it.
    pub section_rank: Option<usize>,
    /// 1-based rank of the first evidence whose text contains the answer phrase.
    pub answer_rank: Option<usize>,
    /// `1 / section_rank`, 0 when no section hit.
    pub reciprocal_rank: f64,
    /// Evidence items returned.
    pub evidence_count: usize,
    /// Characters of evidence text returned (all items).
    pub evidence_chars: usize,
    /// `doc_id › title path` of each evidence item, in rank order.
    pub evidence_paths: Vec<String>,
    /// Model calls.
    pub llm_calls: u32,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Wall time of the navigator call in milliseconds (fractional).
    pub wall_ms: f64,
    /// The navigator's trace, if any (not serialised; `eval --out` writes it to a file).
    #[serde(skip)]
    pub trace: Option<String>,
}

/// Totals over a set. Hit rates and MRR are fractions 0–1 over the `n` scored questions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Scored questions (status `ok` or `nav_error`).
    pub n: usize,
    /// Fraction with a section hit at rank 1.
    pub section_hit_at_1: f64,
    /// … within the first 3.
    pub section_hit_at_3: f64,
    /// … within the first 5.
    pub section_hit_at_5: f64,
    /// Fraction with an answer hit at rank 1.
    pub answer_hit_at_1: f64,
    /// … within the first 3.
    pub answer_hit_at_3: f64,
    /// … within the first 5.
    pub answer_hit_at_5: f64,
    /// Mean reciprocal rank of the first section hit.
    pub mrr: f64,
    /// Lines not scored because of bad data.
    pub data_errors: usize,
    /// Questions on which the navigator failed.
    pub nav_errors: usize,
    /// Median wall time per scored question, ms.
    pub median_ms: f64,
    /// Mean evidence characters per scored question.
    pub mean_evidence_chars: f64,
    /// Model calls, all questions.
    pub llm_calls: u64,
    /// Prompt tokens, all questions.
    pub prompt_tokens: u64,
    /// Completion tokens, all questions.
    pub completion_tokens: u64,
}

/// The `eval --json` document: `{"questions": [...], "summary": {...}}`.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// One entry per non-blank line, in file order.
    pub questions: Vec<QuestionResult>,
    /// Totals.
    pub summary: Summary,
}

impl QuestionResult {
    fn new(line: usize, status: Status, error: Option<String>) -> QuestionResult {
        QuestionResult {
            line,
            status,
            error,
            question: String::new(),
            doc_id: None,
            gold_path: Vec::new(),
            section_rank: None,
            answer_rank: None,
            reciprocal_rank: 0.0,
            evidence_count: 0,
            evidence_chars: 0,
            evidence_paths: Vec::new(),
            llm_calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            wall_ms: 0.0,
            trace: None,
        }
    }
}

/// Run `navigator` on every question of `qa` against `library` and score it.
///
/// `resolver` maps each question's `doc` to a doc id of `library` (see [`DocResolver::new`]).
/// Lines of `qa.errors`, unknown documents and bad gold paths become
/// `data_error` entries; a navigator error becomes a `nav_error` entry scored as a miss. Never
/// fails as a whole.
pub fn run_eval(
    library: &dyn Library,
    resolver: &DocResolver,
    qa: &QaSet,
    navigator: &dyn Navigator,
) -> EvalReport {
    let mut gold = GoldIndex::new();
    let all_ids: Vec<String> = library
        .all_cards()
        .iter()
        .map(|c| c.doc_id.clone())
        .collect();
    let mut questions: Vec<QuestionResult> = qa
        .errors
        .iter()
        .map(|e| QuestionResult::new(e.line, Status::DataError, Some(e.error.to_string())))
        .collect();
    for item in &qa.items {
        questions.push(run_one(
            library, resolver, &mut gold, &all_ids, item, navigator,
        ));
    }
    questions.sort_by_key(|q| q.line);
    let summary = summarize(&questions);
    EvalReport { questions, summary }
}

fn run_one(
    library: &dyn Library,
    resolver: &DocResolver,
    gold: &mut GoldIndex,
    all_ids: &[String],
    item: &QaItem,
    navigator: &dyn Navigator,
) -> QuestionResult {
    let data_error = |e: DataError| {
        let mut r = QuestionResult::new(item.line, Status::DataError, Some(e.to_string()));
        r.question = item.question.clone();
        r.gold_path = item.gold_path.clone();
        r
    };
    let scope: Option<Vec<String>> = match &item.doc {
        Some(doc) => match resolver.resolve(doc) {
            Ok(id) => Some(vec![id]),
            Err(e) => return data_error(e),
        },
        None => None,
    };
    let section = match gold.find(
        library,
        scope.as_deref().unwrap_or(all_ids),
        &item.gold_path,
        &item.answer,
    ) {
        Ok(s) => s,
        Err(e) => return data_error(e),
    };
    let mut r = QuestionResult::new(item.line, Status::Ok, None);
    r.question = item.question.clone();
    r.gold_path = item.gold_path.clone();
    r.doc_id = scope.as_ref().and_then(|s| s.first().cloned());
    let start = Instant::now();
    let result = navigator.navigate(item, scope.as_deref());
    r.wall_ms = start.elapsed().as_secs_f64() * 1000.0;
    let nav = match result {
        Ok(nav) => nav,
        Err(e) => {
            r.status = Status::NavError;
            r.error = Some(e.to_string());
            return r;
        }
    };
    let answer_phrase = normalize_space(&item.answer);
    let prefix = format!("{}.", section.structure);
    for (i, e) in nav.answer.evidence.iter().enumerate() {
        let inside = e.doc_id == section.doc_id
            && (section.structure.is_empty()
                || e.structure == section.structure
                || e.structure.starts_with(&prefix));
        if inside && r.section_rank.is_none() {
            r.section_rank = Some(i + 1);
        }
        if r.answer_rank.is_none() && normalize_space(&e.text).contains(&answer_phrase) {
            r.answer_rank = Some(i + 1);
        }
        r.evidence_chars += e.text.chars().count();
        let mut shown = e.doc_id.clone();
        for t in &e.path {
            shown.push_str(" › ");
            shown.push_str(t);
        }
        r.evidence_paths.push(shown);
    }
    r.reciprocal_rank = r.section_rank.map_or(0.0, |k| 1.0 / k as f64);
    r.evidence_count = nav.answer.evidence.len();
    r.llm_calls = nav.answer.stats.llm_calls;
    r.prompt_tokens = nav.answer.stats.prompt_tokens;
    r.completion_tokens = nav.answer.stats.completion_tokens;
    r.trace = nav.trace;
    r
}

/// Totals of scored questions; see [`Summary`].
fn summarize(questions: &[QuestionResult]) -> Summary {
    let scored: Vec<&QuestionResult> = questions
        .iter()
        .filter(|q| q.status != Status::DataError)
        .collect();
    let n = scored.len();
    let frac = |count: usize| if n == 0 { 0.0 } else { count as f64 / n as f64 };
    let hits = |rank: fn(&QuestionResult) -> Option<usize>, k: usize| {
        frac(
            scored
                .iter()
                .filter(|q| rank(q).is_some_and(|r| r <= k))
                .count(),
        )
    };
    let mut ms: Vec<f64> = scored.iter().map(|q| q.wall_ms).collect();
    ms.sort_by(f64::total_cmp);
    let median_ms = match ms.len() {
        0 => 0.0,
        len if len % 2 == 1 => ms[len / 2],
        len => (ms[len / 2 - 1] + ms[len / 2]) / 2.0,
    };
    Summary {
        n,
        section_hit_at_1: hits(|q| q.section_rank, 1),
        section_hit_at_3: hits(|q| q.section_rank, 3),
        section_hit_at_5: hits(|q| q.section_rank, 5),
        answer_hit_at_1: hits(|q| q.answer_rank, 1),
        answer_hit_at_3: hits(|q| q.answer_rank, 3),
        answer_hit_at_5: hits(|q| q.answer_rank, 5),
        mrr: if n == 0 {
            0.0
        } else {
            scored.iter().map(|q| q.reciprocal_rank).sum::<f64>() / n as f64
        },
        data_errors: questions.len() - n,
        nav_errors: scored
            .iter()
            .filter(|q| q.status == Status::NavError)
            .count(),
        median_ms,
        mean_evidence_chars: if n == 0 {
            0.0
        } else {
            scored.iter().map(|q| q.evidence_chars as f64).sum::<f64>() / n as f64
        },
        llm_calls: scored.iter().map(|q| u64::from(q.llm_calls)).sum(),
        prompt_tokens: scored.iter().map(|q| q.prompt_tokens).sum(),
        completion_tokens: scored.iter().map(|q| q.completion_tokens).sum(),
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
