//! `cd [path]`: move the cursor; prints the new path. Without a path, goes to `/`.

use super::{one_path, options, target, try_out, Command, Example};
use crate::nav::{CommandOutput, NavError, Session};

/// `cd`.
pub struct Cd;

static EXAMPLES: &[Example] = &[
    Example {
        command: "cd /ripgrep-guide/1/2",
        description: "go to a section by child numbers as printed by ls",
    },
    Example {
        command: "cd /ripgrep-guide/user/basics",
        description: "go by titles (case-insensitive)",
    },
    Example {
        command: "cd \"/ripgrep-guide/User Guide/Manual filtering: globs\"",
        description: "quote titles with spaces",
    },
    Example {
        command: "cd /ripgrep-guide/1/rec",
        description: "a unique prefix of a title is enough",
    },
    Example {
        command: "cd #1.3",
        description: "go to a node of the current document by its structure number",
    },
    Example {
        command: "cd ..",
        description: "go up one level (at / stays at /)",
    },
    Example {
        command: "cd /multilingual/インストール",
        description: "non-ASCII titles work the same way",
    },
];

impl Command for Cd {
    fn name(&self) -> &'static str {
        "cd"
    }
    fn usage(&self) -> &'static str {
        "cd [path]"
    }
    fn summary(&self) -> &'static str {
        "move to a section (numbers, titles, unique prefixes, .., #2.1.3); prints the new path"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[]));
        let path = try_out!(one_path(self, &parsed)).unwrap_or("/");
        let place = try_out!(target(self, session, Some(path))?);
        session.set_cursor(place.cursor());
        Ok(CommandOutput::ok(place.path()))
    }
}
