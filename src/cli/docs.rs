//! `docnav docs`: the catalog as a table, or `--json` (an array of DocCards).

use std::fmt::Write as _;
use std::process::ExitCode;

use super::{output, GlobalArgs};
use crate::index::doccard::human_bytes;
use crate::workspace::{Library, Workspace};

/// Arguments of `docnav docs`.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Print a JSON array of DocCards.
    #[arg(long)]
    json: bool,
}

/// Run `docnav docs`.
pub fn run(global: &GlobalArgs, args: DocsArgs) -> anyhow::Result<ExitCode> {
    let ws = Workspace::open(&global.workspace)?;
    if args.json {
        let mut s = serde_json::to_string_pretty(ws.cards())?;
        s.push('\n');
        output::print(&s)?;
    } else {
        let width = ws
            .cards()
            .iter()
            .map(|c| c.doc_id.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let mut s = format!(
            "{:<width$}  {:<8}  {:>9}  {:>6}  TITLE\n",
            "DOC_ID", "FORMAT", "SIZE", "NODES"
        );
        for c in ws.cards() {
            let _ = writeln!(
                s,
                "{:<width$}  {:<8}  {:>9}  {:>6}  {}",
                c.doc_id,
                c.format.as_str(),
                human_bytes(c.bytes),
                c.node_count,
                c.title
            );
        }
        output::print_human(&s)?;
    }
    Ok(ExitCode::SUCCESS)
}
