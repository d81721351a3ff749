//! `help [command]`: list the commands, or show one command's usage, summary and examples.

use super::{find_command, options, registry, try_out, usage_error, Command, Example};
use crate::nav::{CommandOutput, NavError, Session};

/// `help`.
pub struct Help;

/// The conventions every command shares, printed under the command list.
pub const NOTES: &[&str] = &[
    "paths: /doc_id/2/1, titles (quote spaces; a unique prefix is enough), .., #2.1.3",
    "lines: grep's `path:N` is line N of the section's text as `cat path` shows it below its `==` header (line 1: the section's heading), in every format; `cat path:N` reads from that line",
    "regex: grep takes Rust regex syntax (a|b, [0-9]+, (?i), \\b; \\ escapes . ( [ and friends; no look-around, no backreferences)",
    "options: -- ends them, so a word may start with a dash: find -- --max-count",
];

static EXAMPLES: &[Example] = &[
    Example {
        command: "help",
        description: "list the commands",
    },
    Example {
        command: "help cat",
        description: "usage, summary and examples of one command",
    },
];

impl Command for Help {
    fn name(&self) -> &'static str {
        "help"
    }
    fn usage(&self) -> &'static str {
        "help [command]"
    }
    fn summary(&self) -> &'static str {
        "list the commands, or explain one"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], _session: &mut Session) -> Result<CommandOutput, NavError> {
        match try_out!(options(self, args, &[])).positional.as_slice() {
            [] => {
                let width = registry()
                    .iter()
                    .map(|c| c.usage().len())
                    .max()
                    .unwrap_or(0);
                let mut lines: Vec<String> = registry()
                    .iter()
                    .map(|c| format!("{:width$}  {}", c.usage(), c.summary()))
                    .collect();
                lines.extend(NOTES.iter().map(|n| n.to_string()));
                Ok(CommandOutput::ok(lines.join("\n")))
            }
            [name] => match find_command(name) {
                Some(cmd) => Ok(CommandOutput::ok(explain(cmd))),
                None => Ok(CommandOutput::error(format!(
                    "help: unknown command '{name}' (try help)"
                ))),
            },
            _ => Ok(usage_error(self, Some("too many arguments"))),
        }
    }
}

/// Usage, summary and examples of one command.
fn explain(cmd: &dyn Command) -> String {
    let mut out = format!("usage: {}\n{}", cmd.usage(), cmd.summary());
    if !cmd.examples().is_empty() {
        out.push_str("\nexamples:");
        for ex in cmd.examples() {
            out.push_str(&format!("\n  {}\n      {}", ex.command, ex.description));
        }
    }
    out
}
