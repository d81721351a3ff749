//! Evaluate (DESIGN.md §6.5) with the replan folded in: one call judges whether the union of the
//! evidence answers the question — sufficient, insufficient (what is missing) or absent (not
//! covered) — and, when it is insufficient and a round is left, names the next round's tasks.
//!
//! The judge sees, per task run: how its Worker ended (its check's verdict, `done`, a budget, or
//! its failure — a failed task may be dispatched again), its searches that found
//! nothing and its leads (sections of other documents its text links to); then every
//! excerpt, fenced; then, when a round is left, the documents best ranked for the question, one
//! line each (the same pre-rank as analyze), plus those the leads name.
//!
//! "Absent" means searched and not there: when evaluate says absent while a round is
//! left, the catalog is searched for the question and what evaluate said is not covered, and
//! evaluate is asked again with the documents found that no Worker searched ([`Pass::AfterSearch`]);
//! when the search finds none, the verdict stands without another call.

use std::fmt::Write as _;
use std::sync::Arc;

use super::cards::{one_line_cards, ranked_cards, PreRank, EVALUATE_CARDS};
use crate::agent::budget::clip;
use crate::agent::decisions::{evaluation_schema, Evaluation, Outcome};
use crate::agent::events::Emitter;
use crate::agent::model::ask_model;
use crate::agent::prompt_evidence::{heading_path, render_items, PromptItem};
use crate::agent::prompts::{room_chars, system_prompt, untrusted_inline, Prompt};
use crate::agent::worker::{CollectedEvidence, WorkerEnd, WorkerOutcome};
use crate::agent::{AgentError, AgentOptions};
use crate::index::DocCard;
use crate::llm::{ChatMessage, ChatModel};
use crate::nav::render::one_line;
use crate::workspace::Library;

/// Chars of a Worker's `done` reason shown to evaluate.
const DONE_REASON_CHARS: usize = 1_000;

/// Said to evaluate when it is asked again because it judged "sufficient" with no evidence.
pub(super) const OVERRULED_NOTE: &str = "\nYour previous verdict was \"sufficient\", but no \
evidence has been collected: nothing can answer the question yet. Reply \"insufficient\" with the \
next round's tasks, or \"absent\" if the documents do not cover it.\n";

/// Why evaluate is asked (again).
#[derive(Debug, Clone, Copy)]
pub(super) enum Pass<'a> {
    /// After a round.
    First,
    /// Asked again because its "sufficient" came over zero evidence ([`OVERRULED_NOTE`] is
    /// added).
    Overruled,
    /// Asked again because it said "absent" while a round was left: the catalog was searched for
    /// `queries`, and `found` lists the documents found that no Worker searched yet (the next
    /// round's candidates instead of the pre-rank's).
    AfterSearch {
        /// What was searched.
        queries: &'a [String],
        /// What the search found, minus the documents already searched.
        found: &'a PreRank,
    },
}

/// Evaluate after round `round` of `rounds` (1-based), for the reason `pass` says; `terms` are
/// the question's and key concepts' terms ([`crate::agent::prompt_evidence::query_terms`]), the
/// lines an excerpt too long for the prompt keeps.
///
/// Errors: [`AgentError::Llm`] when the model call fails or its reply does not parse after the
/// repair round.
#[allow(clippy::too_many_arguments)]
pub(super) async fn evaluate(
    model: &dyn ChatModel,
    emitter: &Emitter,
    library: &dyn Library,
    options: &AgentOptions,
    (round, rounds): (usize, usize),
    (question, terms): (&str, &[String]),
    pre: &PreRank,
    outcomes: &[WorkerOutcome],
    collected: &[CollectedEvidence],
    pass: Pass<'_>,
) -> Result<Evaluation, AgentError> {
    let cap = options.prompt_cap_tokens;
    let system = system_prompt(Prompt::Evaluate, options, &[("round", round.to_string())]);
    let head = format!(
        "Question: {question}\n\nTasks run (round {round} of {rounds}):\n{}\n",
        tasks_block(library, outcomes)
    );
    let documents = if let Pass::AfterSearch { queries, found } = pass {
        let cards = ranked_cards(library, found, EVALUATE_CARDS);
        let quoted: Vec<String> = queries.iter().map(|q| format!("\"{q}\"")).collect();
        format!(
            "\nYou said the documents do not cover the question. Before that answer stands, the \
             catalog was searched for {}: {} document(s) found that no Worker searched yet; \
             {}, one line each. Give the next round's tasks in those that may cover it, or \
             confirm \"absent\" with tasks [].\n{}\n",
            quoted.join(", "),
            found.docs.len(),
            shown_of(cards.len(), found.docs.len()),
            one_line_cards(&cards)
        )
    } else if round < rounds {
        let (cards, leads) = next_round_cards(library, pre, outcomes);
        let led = if leads > 0 {
            format!(", then {leads} a lead names")
        } else {
            String::new()
        };
        format!(
            "\nDocuments for the next round's tasks ({} of the {} documents, best first for the \
             question{led}; one line each):\n{}\n",
            cards.len() - leads,
            library.document_count(),
            one_line_cards(&cards)
        )
    } else {
        "\nNo round is left: tasks must be [].\n".to_string()
    };
    let room = room_chars(cap, &[&system, &head, &documents, "Evidence:\n"]);
    let mut user = format!(
        "{head}Evidence:\n{}{documents}",
        evidence_block(library, collected, room, terms)
    );
    if matches!(pass, Pass::Overruled) {
        user.push_str(OVERRULED_NOTE);
    }
    let messages = vec![ChatMessage::system(system), ChatMessage::user(user)];
    Ok(ask_model(
        model,
        emitter,
        "evaluate",
        messages,
        &evaluation_schema(),
        cap,
    )
    .await?)
}

/// One entry per task run: the Worker, its document and task, how it ended, what it collected,
/// the searches that found nothing and its leads (fenced: their titles are document text).
fn tasks_block(library: &dyn Library, outcomes: &[WorkerOutcome]) -> String {
    // Sections some Worker read, as leads name them (`/doc/#2.1`, `/doc` for a root): a lead
    // another Worker followed is no lead.
    let read: std::collections::HashSet<String> = outcomes
        .iter()
        .flat_map(|o| &o.evidence)
        .filter_map(|ev| {
            let doc = library.document(&ev.doc_id).ok()?;
            let structure = &doc.tree.get(ev.node)?.structure;
            Some(if structure.is_empty() {
                format!("/{}", ev.doc_id)
            } else {
                format!("/{}/#{structure}", ev.doc_id)
            })
        })
        .collect();
    let mut out = String::new();
    for o in outcomes {
        let ended = match (&o.error, o.end, &o.verdict) {
            (Some(e), _, _) => format!("FAILED: {e}"),
            (None, _, Some(v)) if v.verdict == Outcome::Sufficient => {
                "its check said sufficient".to_string()
            }
            (None, _, Some(v)) if o.end == WorkerEnd::Checked => {
                format!("its check said {}: {}", v.verdict.as_str(), v.missing)
            }
            (None, WorkerEnd::Done, _) if o.last_reason.trim().is_empty() => {
                "ended with done".to_string()
            }
            // Its reason whole (it is the Worker's own account), within a bound.
            (None, WorkerEnd::Done, _) => format!(
                "ended with done, saying: {}",
                clip(o.last_reason.trim(), DONE_REASON_CHARS)
            ),
            // The Worker's own account of why its document is not the place, whole within a bound.
            (None, WorkerEnd::Absent, _) => format!(
                "ended with absent (its document does not cover the task), saying: {}",
                clip(o.last_reason.trim(), DONE_REASON_CHARS)
            ),
            (None, WorkerEnd::EvidenceBudget, _) => "stopped at its evidence budget".into(),
            (None, _, _) => format!("stopped after {} commands (its budget)", o.steps),
        };
        let _ = writeln!(
            out,
            "- {} on `{}`: {}\n  → {ended}; {} excerpt(s)",
            o.worker_id,
            o.doc_id,
            o.task,
            o.evidence.len()
        );
        if !o.found_nothing.is_empty() {
            let list: Vec<String> = o.found_nothing.iter().map(|s| format!("`{s}`")).collect();
            let _ = writeln!(out, "  → searches that found nothing: {}", list.join(" · "));
        }
        let unread: Vec<&str> = o
            .leads
            .iter()
            .map(String::as_str)
            .filter(|l| !read.contains(l.split(' ').next().unwrap_or(l)))
            .collect();
        if !unread.is_empty() {
            let _ = writeln!(
                out,
                "  → leads not read: {}",
                untrusted_inline("leads", &unread.join(" · "))
            );
        }
    }
    out
}

/// `all 12` when `shown` is `total`, else `the best 15 of them`.
fn shown_of(shown: usize, total: usize) -> String {
    if shown >= total {
        format!("all {total}")
    } else {
        format!("the best {shown} of them")
    }
}

/// The [`EVALUATE_CARDS`] best documents for the question, then any other a lead names, and how
/// many the leads added.
fn next_round_cards(
    library: &dyn Library,
    pre: &PreRank,
    outcomes: &[WorkerOutcome],
) -> (Vec<Arc<DocCard>>, usize) {
    let mut cards = ranked_cards(library, pre, EVALUATE_CARDS);
    let ranked = cards.len();
    for lead in outcomes.iter().flat_map(|o| &o.leads) {
        let id = lead
            .trim_start_matches('/')
            .split(['/', ' '])
            .next()
            .unwrap_or("");
        if let Some(card) = library.card(id) {
            if !cards.iter().any(|c| c.doc_id == card.doc_id) {
                cards.push(card);
            }
        }
    }
    let leads = cards.len() - ranked;
    (cards, leads)
}

/// Every excerpt, numbered, fenced as untrusted data, labelled `doc_id #structure chars a–b`
/// (a document's own text outside every section: `doc_id "Title"`), under its heading path and
/// shortened to share `budget_chars` as [`render_items`] does for the answer: shown as the
/// answer will see it, none left out.
fn evidence_block(
    library: &dyn Library,
    collected: &[CollectedEvidence],
    budget_chars: usize,
    terms: &[String],
) -> String {
    if collected.is_empty() {
        return "(no evidence collected)\n".into();
    }
    let items: Vec<PromptItem> = collected
        .iter()
        .map(|ev| {
            let place = library
                .document(&ev.doc_id)
                .map(|d| {
                    let node = d.tree.node(ev.node);
                    match node.structure.as_str() {
                        "" => format!("{} \"{}\"", ev.doc_id, one_line(&node.title, 80)),
                        structure => format!("{} #{structure}", ev.doc_id),
                    }
                })
                .unwrap_or_else(|_| ev.doc_id.clone());
            PromptItem {
                header: String::new(),
                source: format!("{place} chars {}–{}", ev.chars.start, ev.chars.end),
                heading: heading_path(library, &ev.doc_id, ev.node),
                text: ev.text.clone(),
                cited: ev.cited_lines(),
            }
        })
        .collect();
    render_items(&items, budget_chars, terms)
}
