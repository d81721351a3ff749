//! Prompt templates from `prompts/*.txt` (loaded with `include_str!`) and the helpers that fill
//! them: `{{name}}` placeholders, the budget figures of a run, and fencing of document text as
//! untrusted data.
//!
//! Every system prompt ([`Prompt`]) states three things:
//! - the command language of the Workers: `prompts/commands.txt`, one shared text composed into
//!   each template at its `{{commands}}` placeholder by [`render`];
//! - the JSON reply shape, written out in the template (the same object the decision's JSON Schema
//!   in [`super::decisions`] describes, see [`Prompt::schema`]);
//! - the budget of that decision, a closing `Budget:` paragraph whose figures come from the run's
//!   [`AgentOptions`] ([`budget_vars`]) and from live counters such as the steps left.

use super::decisions::{
    analysis_schema, check_schema, evaluation_schema, nav_step_schema, plan_step_schema,
    query_plan_schema,
};
use super::AgentOptions;
use crate::llm::ResponseSchema;

/// The command language, stated in every prompt.
pub const COMMANDS: &str = include_str!("../../prompts/commands.txt");
/// Understand: question → query plan (only when the user names the documents; otherwise
/// understanding is part of analyze).
pub const UNDERSTAND: &str = include_str!("../../prompts/understand.txt");
/// Analyze: question + section hits + DocCards → understanding and tasks.
pub const ANALYZE: &str = include_str!("../../prompts/analyze.txt");
/// Worker plan and first command (and the worker's replan after an insufficient check).
pub const PLAN: &str = include_str!("../../prompts/plan.txt");
/// Worker step: one command.
pub const NAVIGATE: &str = include_str!("../../prompts/navigate.txt");
/// Worker `check`: is the evidence sufficient for the task?
pub const CHECK: &str = include_str!("../../prompts/check.txt");
/// Orchestrator evaluate: is the union of evidence sufficient for the question, and if not, the
/// next round's tasks (the replan).
pub const EVALUATE: &str = include_str!("../../prompts/evaluate.txt");
/// Shell `suggest`: the next command for a person.
pub const SUGGEST: &str = include_str!("../../prompts/suggest.txt");

/// The decisions the agent (and the shell's `suggest`) asks the model for, one prompt each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    /// [`UNDERSTAND`].
    Understand,
    /// [`ANALYZE`].
    Analyze,
    /// [`PLAN`].
    Plan,
    /// [`NAVIGATE`].
    Navigate,
    /// [`CHECK`].
    Check,
    /// [`EVALUATE`].
    Evaluate,
    /// [`SUGGEST`].
    Suggest,
}

impl Prompt {
    /// Every prompt.
    pub const ALL: [Prompt; 7] = [
        Prompt::Understand,
        Prompt::Analyze,
        Prompt::Plan,
        Prompt::Navigate,
        Prompt::Check,
        Prompt::Evaluate,
        Prompt::Suggest,
    ];

    /// The template text (with `{{…}}` placeholders).
    pub fn template(self) -> &'static str {
        match self {
            Prompt::Understand => UNDERSTAND,
            Prompt::Analyze => ANALYZE,
            Prompt::Plan => PLAN,
            Prompt::Navigate => NAVIGATE,
            Prompt::Check => CHECK,
            Prompt::Evaluate => EVALUATE,
            Prompt::Suggest => SUGGEST,
        }
    }

    /// The JSON Schema of the reply (sent as `response_format` when enabled).
    pub fn schema(self) -> ResponseSchema {
        match self {
            Prompt::Understand => query_plan_schema(),
            Prompt::Analyze => analysis_schema(),
            Prompt::Plan => plan_step_schema(),
            Prompt::Navigate | Prompt::Suggest => nav_step_schema(),
            Prompt::Check => check_schema(),
            Prompt::Evaluate => evaluation_schema(),
        }
    }

    /// The budget figures the prompt states in its `Budget:` paragraph: keys of [`budget_vars`]
    /// plus the live counters of [`Prompt::live_keys`].
    pub fn budget_keys(self) -> &'static [&'static str] {
        match self {
            Prompt::Understand => &[
                "rounds",
                "max_docs",
                "max_steps",
                "evidence_budget",
                "prompt_cap",
            ],
            Prompt::Analyze => &[
                "max_docs",
                "max_cards",
                "max_steps",
                "evidence_budget",
                "rounds",
                "prompt_cap",
            ],
            Prompt::Plan => &[
                "max_steps",
                "evidence_budget",
                "output_budget",
                "prompt_cap",
            ],
            Prompt::Navigate => &[
                "steps_left",
                "max_steps",
                "evidence_chars",
                "evidence_budget",
                "output_budget",
                "prompt_cap",
            ],
            Prompt::Check => &[
                "steps_left",
                "max_steps",
                "evidence_chars",
                "evidence_budget",
                "prompt_cap",
            ],
            Prompt::Evaluate => &["round", "rounds", "max_docs", "prompt_cap"],
            Prompt::Suggest => &["output_budget", "prompt_cap"],
        }
    }

    /// Placeholders that are not run options and must be passed to [`system_prompt`] as `live`:
    /// `steps_left` (commands the Worker has left), `evidence_chars` (evidence chars it has
    /// collected), `round` (1-based dispatch round).
    pub fn live_keys(self) -> &'static [&'static str] {
        match self {
            Prompt::Navigate | Prompt::Check => &["steps_left", "evidence_chars"],
            Prompt::Evaluate => &["round"],
            _ => &[],
        }
    }
}

/// The budget figures of a run, as placeholder values: `max_steps` (commands per Worker),
/// `rounds`, `max_docs` (Workers per round), `max_cards` (DocCards shown), `evidence_budget`
/// (evidence chars per Worker), `prompt_cap` (estimated tokens per prompt), `output_budget`
/// (chars per command output). Plain integers, no separators.
pub fn budget_vars(options: &AgentOptions) -> Vec<(&'static str, String)> {
    vec![
        ("max_steps", options.max_steps.to_string()),
        ("rounds", options.rounds.to_string()),
        ("max_docs", options.max_docs.to_string()),
        ("max_cards", options.max_cards.to_string()),
        ("evidence_budget", options.evidence_chars.to_string()),
        ("prompt_cap", options.prompt_cap_tokens.to_string()),
        ("output_budget", options.output_budget.to_string()),
    ]
}

/// The system prompt of `prompt`: its template with the command language, `live` (see
/// [`Prompt::live_keys`]; applied first, so it may also override a run figure) and the budget
/// figures of `options`. A live key left out stays as its `{{placeholder}}`.
pub fn system_prompt(prompt: Prompt, options: &AgentOptions, live: &[(&str, String)]) -> String {
    let mut vars: Vec<(&str, String)> = live.to_vec();
    vars.extend(budget_vars(options));
    render(prompt.template(), &vars)
}

/// Fill `{{key}}` placeholders; `{{commands}}` is always available. When a key is given twice the
/// first wins. Unknown placeholders stay.
pub fn render(template: &str, vars: &[(&str, String)]) -> String {
    let mut out = template.replace("{{commands}}", COMMANDS.trim_end());
    for (key, value) in vars {
        out = out.replace(&format!("{{{{{key}}}}}"), value);
    }
    out
}

/// Chars left for the variable parts of a prompt (observations, history, cards, evidence) when
/// `fixed` are its other parts, so that the whole conversation stays under `cap_tokens` as
/// [`super::budget::estimate_prompt_tokens`] counts it (chars / 4 rounded up, + 4 per message;
/// two messages assumed) with a margin of 64 chars. 0 when the fixed parts alone reach the cap.
pub fn room_chars(cap_tokens: usize, fixed: &[&str]) -> usize {
    let used: usize = fixed.iter().map(|s| s.chars().count()).sum();
    cap_tokens
        .saturating_sub(2 * 4 + 2)
        .saturating_mul(4)
        .saturating_sub(used + 64)
}

/// Neutralise fence tags inside `text` so it cannot close (or open) a fence.
fn defuse(text: &str) -> String {
    text.replace("</document-data", "<\\/document-data")
        .replace("<document-data", "<\\document-data")
}

fn attribute(source: &str) -> String {
    defuse(source).replace('"', "'").replace('\n', " ")
}

/// Fence document text as untrusted data: `<document-data source="…">` … `</document-data>`.
/// A closing tag inside the text is neutralised so the text cannot end the fence early and pose
/// as instructions.
pub fn untrusted(source: &str, text: &str) -> String {
    format!(
        "<document-data source=\"{}\">\n{}\n</document-data>",
        attribute(source),
        defuse(text).trim_end()
    )
}

/// [`untrusted`] on one line, for one-line summaries of document text (a Worker's compacted
/// history): `<document-data source="…">text</document-data>`; line breaks in `text` become
/// spaces.
pub fn untrusted_inline(source: &str, text: &str) -> String {
    let flat: String = text
        .trim()
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    format!(
        "<document-data source=\"{}\">{}</document-data>",
        attribute(source),
        defuse(&flat)
    )
}

#[cfg(test)]
#[path = "prompts_tests.rs"]
mod tests;
