//! `docnav docs`: the catalog as a table, `--json` (an array of DocCards) or `--count`; with
//! `--for QUESTION`, the cards ranked for the question as the Orchestrator ranks them, each
//! with why ([`crate::agent::routing::explain`]). Both
//! listings stream the catalog a page at a time ([`Library::for_each_card`]), so `docs | head`
//! prints its first lines without the rest being read.
//!
//! A document kept once for several sources with the same text lists its aliases (the other
//! sources' ids, which `cd` and `--doc` accept): in the table after its title, `(aliases: b)`;
//! in the JSON as an `aliases` array after the card's fields, present only on those cards. The
//! stored DocCard has no such field — the agent reads cards, and an alias adds nothing for it to
//! read — so a card stays as small as it was, and gaining an alias rewrites no card. The
//! aliases are read once, whole (there is one per duplicate source), not per card.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::process::ExitCode;

use serde::Serialize;

use super::{output, GlobalArgs};
use crate::index::doccard::human_bytes;
use crate::index::DocCard;
use crate::workspace::{Library, Workspace};

/// Arguments of `docnav docs`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  docnav docs\n  docnav docs --for \"Costco FY2019 revenue\" -k 5\n  docnav docs --for \"KO 2019 10-K\" --json"
)]
pub struct DocsArgs {
    /// Print a JSON array of DocCards (streamed in catalog order; with --for, ranked, each with
    /// its rank and why).
    #[arg(long, conflicts_with = "count")]
    json: bool,
    /// Print only how many documents the workspace holds.
    #[arg(long)]
    count: bool,
    /// Rank the DocCards for this question exactly as the Orchestrator's pre-rank does (names
    /// the question uses, then the period it asks about, then section hits and BM25 over the
    /// cards) and say why each ranks where it does.
    #[arg(long = "for", value_name = "QUESTION", conflicts_with = "count")]
    for_question: Option<String>,
    /// With --for: how many cards to print.
    #[arg(
        short = 'k',
        long = "top",
        value_name = "N",
        default_value_t = 10,
        requires = "for_question"
    )]
    top: usize,
}

/// Ids wider than this do not widen the table's first column (the table is streamed, so the
/// width cannot come from the widest id of the whole catalog).
const ID_COLUMN_MAX: usize = 40;

/// Run `docnav docs`.
pub fn run(global: &GlobalArgs, args: DocsArgs) -> anyhow::Result<ExitCode> {
    let ws = Workspace::open(&global.workspace)?;
    if args.count {
        output::print(&format!("{}\n", ws.document_count()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed: Option<std::io::Error> = None;
    // `print` returns Ok(false) when the reader closed the pipe: stop quietly.
    let mut emit = |text: &str| -> ControlFlow<()> {
        match output::print(text) {
            Ok(true) => ControlFlow::Continue(()),
            Ok(false) => ControlFlow::Break(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    if let Some(question) = &args.for_question {
        // A catalog whose cards do not decode is an error, not an empty ranking.
        let ranked = crate::agent::routing::explain(&ws, question, args.top)?;
        let text = if args.json {
            serde_json::to_string_pretty(&ranked)? + "\n"
        } else {
            crate::agent::routing::ranked_text(&ranked)
        };
        let _ = emit(&output::for_display(&text));
        if let Some(e) = failed {
            return Err(e.into());
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Cards that do not decode make the listing fail (after what was printed), not end early.
    ws.strict(|ws| list(ws, args.json, &mut emit))?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    Ok(ExitCode::SUCCESS)
}

/// The catalog as a table or (`json`) a JSON array, streamed through `emit`.
fn list(ws: &Workspace, json: bool, emit: &mut dyn FnMut(&str) -> ControlFlow<()>) {
    let aliases = aliases_by_document(ws);
    if json {
        stream_json(ws, &aliases, emit);
    } else {
        let width = ws
            .cards_page(0, 100)
            .iter()
            .map(|c| c.doc_id.chars().count())
            .max()
            .unwrap_or(6)
            .clamp(6, ID_COLUMN_MAX);
        let head = format!(
            "{:<width$}  {:<8}  {:>9}  {:>6}  TITLE\n",
            "DOC_ID", "FORMAT", "SIZE", "NODES"
        );
        if emit(&head).is_continue() {
            ws.for_each_card(&mut |c| {
                let also = match aliases.get(&c.doc_id) {
                    Some(names) => format!("  (aliases: {})", names.join(", ")),
                    None => String::new(),
                };
                let line = format!(
                    "{:<width$}  {:<8}  {:>9}  {:>6}  {}{also}\n",
                    c.doc_id,
                    c.format.as_str(),
                    human_bytes(c.bytes),
                    c.node_count,
                    c.title
                );
                // Shown as `print_human` shows text: control characters made visible.
                emit(&output::for_display(&line))
            });
        }
    }
}

/// The aliases of each document that has any, `doc_id → [alias…]` in alias order.
fn aliases_by_document(library: &dyn Library) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (alias, doc_id) in library.aliases() {
        out.entry(doc_id).or_default().push(alias);
    }
    out
}

/// A card as `docs --json` prints it: its fields, then `aliases` when it has any.
#[derive(Serialize)]
struct Listed<'a> {
    #[serde(flatten)]
    card: &'a DocCard,
    aliases: &'a [String],
}

/// Write the catalog as a pretty-printed JSON array (the bytes `serde_json::to_string_pretty`
/// gives for the whole array), one card at a time, each with its `aliases` when it has any.
fn stream_json(
    ws: &Workspace,
    aliases: &HashMap<String, Vec<String>>,
    emit: &mut dyn FnMut(&str) -> ControlFlow<()>,
) {
    let mut first = true;
    let mut flow = ControlFlow::Continue(());
    ws.for_each_card(&mut |card: &DocCard| {
        let mut chunk = String::from(if first { "[\n" } else { ",\n" });
        first = false;
        let body = match aliases.get(&card.doc_id) {
            Some(aliases) => serde_json::to_string_pretty(&Listed { card, aliases }),
            None => serde_json::to_string_pretty(card),
        }
        .unwrap_or_else(|_| "null".into());
        for (i, line) in body.lines().enumerate() {
            if i > 0 {
                chunk.push('\n');
            }
            let _ = write!(chunk, "  {line}");
        }
        flow = emit(&chunk);
        flow
    });
    if flow.is_continue() {
        let _ = emit(if first { "[]\n" } else { "\n]\n" });
    }
}
