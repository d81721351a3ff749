//! `done` and `absent`: the agent ends its Worker — `absent` saying this document does not cover
//! its task (the step's reason says why), so evaluate knows the document was searched and is not
//! the place. In a person's shell they only say that the agent runs them.

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

/// `absent`.
pub struct Absent;

static ABSENT_EXAMPLES: &[Example] = &[Example {
    command: "absent",
    description:
        "(agent) end this Worker: this document does not cover the task (the reason says why)",
}];

impl Command for Absent {
    fn name(&self) -> &'static str {
        "absent"
    }
    fn usage(&self) -> &'static str {
        "absent"
    }
    fn summary(&self) -> &'static str {
        "(agent only) end this Worker: the document does not cover the task"
    }
    fn examples(&self) -> &'static [Example] {
        ABSENT_EXAMPLES
    }
    fn run(&self, _args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        Ok(agent_only(self.name(), session.role(), Effect::Absent))
    }
}
