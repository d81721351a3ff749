//! `done`: the agent ends its Worker. In a person's shell it only says that the agent runs it.

use super::check::agent_only;
use super::{Command, Example};
use crate::nav::{CommandOutput, Effect, NavError, Session};

/// `done`.
pub struct Done;

static EXAMPLES: &[Example] = &[Example {
    command: "done",
    description: "(agent) end this Worker and hand back its evidence",
}];

impl Command for Done {
    fn name(&self) -> &'static str {
        "done"
    }
    fn usage(&self) -> &'static str {
        "done"
    }
    fn summary(&self) -> &'static str {
        "(agent only) end this Worker"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, _args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        Ok(agent_only(self.name(), session.role(), Effect::Done))
    }
}
