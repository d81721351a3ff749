//! `check`: the agent asks the model whether its evidence answers the task. In a person's shell
//! it only says that the agent runs it.

use super::{Command, Example};
use crate::nav::{CommandOutput, Effect, NavError, Role, Session, Status};

/// `check`.
pub struct Check;

static EXAMPLES: &[Example] = &[Example {
    command: "check",
    description: "(agent) ask whether the evidence read so far answers the task",
}];

impl Command for Check {
    fn name(&self) -> &'static str {
        "check"
    }
    fn usage(&self) -> &'static str {
        "check"
    }
    fn summary(&self) -> &'static str {
        "(agent only) ask whether the evidence so far answers the task"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, _args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        Ok(agent_only(self.name(), session.role(), Effect::Check))
    }
}

/// The agent gets `effect` with empty text; a person gets `name: only the agent can run this`.
pub(crate) fn agent_only(name: &str, role: Role, effect: Effect) -> CommandOutput {
    match role {
        Role::Agent => CommandOutput {
            text: String::new(),
            status: Status::Ok,
            effect,
        },
        Role::Person => CommandOutput::error(format!("{name}: only the agent can run this")),
    }
}
