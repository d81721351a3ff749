//! `pwd`: print the current path.

use super::{options, try_out, usage_error, Command, Example};
use crate::nav::{CommandOutput, NavError, Session};

/// `pwd`.
pub struct Pwd;

static EXAMPLES: &[Example] = &[Example {
    command: "pwd",
    description: "print where you are, e.g. /ripgrep-guide",
}];

impl Command for Pwd {
    fn name(&self) -> &'static str {
        "pwd"
    }
    fn usage(&self) -> &'static str {
        "pwd"
    }
    fn summary(&self) -> &'static str {
        "print the current path (/doc_id/2/1)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        if !try_out!(options(self, args, &[])).positional.is_empty() {
            return Ok(usage_error(self, Some("takes no arguments")));
        }
        Ok(CommandOutput::ok(session.pwd()?))
    }
}
