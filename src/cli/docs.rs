//! `docnav docs`: the catalog as a table, or `--json` (an array of DocCards).

use std::fmt::Write as _;
use std::process::ExitCode;

use super::{output, GlobalArgs};
use crate::workspace::{Library, Workspace};

/// Arguments of `docnav docs`.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Print a JSON array of DocCards.
    #[arg(long)]
    json: bool,
}

/// Human size: `812 B`, `40.1 KB`, `6.2 MB` (1 KB = 1000 bytes).
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b < 1_000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} KB", b as f64 / 1e3),
        b => format!("{:.1} MB", b as f64 / 1e6),
    }
}

/// Run `docnav docs`.
pub fn run(global: &GlobalArgs, args: DocsArgs) -> anyhow::Result<ExitCode> {
    let ws = Workspace::open(&global.workspace)?;
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(ws.cards())?;
        s.push('\n');
        s
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
        s
    };
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
