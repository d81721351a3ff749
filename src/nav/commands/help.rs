//! `help [command]`: list the commands, or show one command's usage, summary and examples.

use super::{find_command, registry, usage_error, Command, Example};
use crate::nav::{CommandOutput, NavError, Session};

/// `help`.
pub struct Help;

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
        match args {
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
                lines.push(
                    "paths: /doc_id/2/1, titles (quote spaces; a unique prefix is enough), .., #2.1.3"
                        .into(),
                );
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
