//! The tools' arguments: one struct per tool, deserialized from `tools/call` arguments and turned
//! into each tool's JSON Schema (draft 2020-12, via `schemars`; field doc comments become the
//! property descriptions a model reads). Unknown properties are refused
//! (`additionalProperties: false`), so a misspelt argument is reported instead of ignored.

use schemars::JsonSchema;
use serde::Deserialize;

/// Largest `budget` a call may ask for, in chars: a page of 1,000,000 chars (~250k tokens) is
/// already more than any model's context; larger texts are read page by page with `offset`.
pub const MAX_BUDGET: usize = 1_000_000;

/// Default `budget` of every text tool, in chars (the shell's per-command budget).
pub const DEFAULT_BUDGET: usize = crate::nav::DEFAULT_BUDGET;

/// Declares the arguments of a tool whose output is paged: the struct as written, deserialized
/// with unknown properties refused, then the paging pair every such tool takes with the same
/// meaning and schema — `offset` (first char of the output to show, default 0) and `budget`
/// (most chars of output to show, 1 to [`MAX_BUDGET`], default [`DEFAULT_BUDGET`]).
macro_rules! paged_args {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
            /// Paging: first char of the output to show (default 0).
            pub offset: Option<usize>,
            /// Paging: most chars of output to show (default 4000).
            #[schemars(range(min = 1, max = MAX_BUDGET))]
            pub budget: Option<usize>,
        }
    };
}

/// `ls`: the sections under a node.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LsArgs {
    /// Absolute path: `/` lists the documents, `/doc_id` a document's top sections, `/doc_id/2`
    /// (child numbers as ls shows them) or `/doc_id/#2.1` (structure number) a section's children.
    pub path: String,
    /// Paging: first char of the output to show (default 0). A cut page ends with the offset to
    /// ask for next.
    pub offset: Option<usize>,
    /// Paging: most chars of output to show (default 4000).
    #[schemars(range(min = 1, max = MAX_BUDGET))]
    pub budget: Option<usize>,
}

/// `cat`: the full text of a section with its subsections.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatArgs {
    /// Absolute path of the section: `/doc_id/2/1` (child numbers as ls shows them) or
    /// `/doc_id/#2.1` (structure number); `/doc_id` is the whole document.
    pub path: String,
    /// Paging: first char of the section's text to show (default 0). A cut page ends with
    /// `read on: cat -o N …`: call cat again with `offset` N.
    pub offset: Option<usize>,
    /// Paging: most chars of the section's text on this page (default 4000).
    #[schemars(range(min = 1, max = MAX_BUDGET))]
    pub budget: Option<usize>,
}

paged_args! {
    /// `head`: the first lines of a section.
    pub struct HeadArgs {
        /// Absolute path of the section (`/doc_id/2/1` or `/doc_id/#2.1`).
        pub path: String,
        /// Lines to show (default 10).
        pub lines: Option<usize>,
    }
}

paged_args! {
    /// `find`: BM25 keyword search inside one subtree's document (or every document at `/`).
    pub struct FindArgs {
        /// Keywords, e.g. `glob patterns hidden files`.
        pub query: String,
        /// Where to search: `/` (default) searches every document, `/doc_id…` that document.
        pub path: Option<String>,
        /// Most hits to list (default 10).
        pub hits: Option<usize>,
    }
}

paged_args! {
    /// `findtree`: sections whose title matches.
    pub struct FindTreeArgs {
        /// A glob over titles (`*install*`) or words that must all occur in the title
        /// (case-insensitive).
        pub pattern: String,
        /// Below which node to look: `/` (default) covers every document.
        pub path: Option<String>,
    }
}

paged_args! {
    /// `grep`: a regular expression over the text of a subtree.
    pub struct GrepArgs {
        /// Regular expression (Rust `regex` syntax, multi-line mode: `^`/`$` match at line ends).
        pub pattern: String,
        /// Below which node to search: `/` (default) covers every document.
        pub path: Option<String>,
        /// Match case-insensitively (default false).
        pub ignore_case: Option<bool>,
        /// Only count matching lines per section (default false).
        pub count: Option<bool>,
        /// Most matching lines to show (default 30).
        pub max: Option<usize>,
    }
}

paged_args! {
    /// `tree`: the outline below a node.
    pub struct TreeArgs {
        /// Absolute path: `/` outlines every document, `/doc_id` one document, `/doc_id/2` a
        /// section.
        pub path: String,
        /// Levels to show (default 2).
        pub depth: Option<usize>,
    }
}

/// `wc`: the size of a section with its subsections.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WcArgs {
    /// Absolute path (`/` sums every document).
    pub path: String,
}

/// `docs`: the documents of the workspace.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocsArgs {
    /// Paging: index of the first document to list, 0-based (default 0).
    pub offset: Option<usize>,
    /// Paging: most documents to list (default 100).
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
    /// A question: list the documents ranked for it instead, exactly as `ask`'s Orchestrator
    /// ranks them (names the question uses, then the period it asks about, then section hits
    /// and BM25 over the cards), each with why; `offset` and `limit` do not apply.
    #[serde(rename = "for")]
    pub for_question: Option<String>,
    /// With `for`: most documents to list (default 10, at most 50).
    #[schemars(range(min = 1, max = 50))]
    pub k: Option<usize>,
}

/// `search`: workspace-wide BM25 over sections.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for: a question or keywords.
    pub query: String,
    /// Most sections to return (default 5, at most 50).
    #[schemars(range(min = 1, max = 50))]
    pub k: Option<usize>,
    /// Only search these documents (ids as `docs` lists them); default every document.
    pub doc_ids: Option<Vec<String>>,
    /// Most chars of each section's text to include (default 800); cat the section's path for
    /// the rest.
    #[schemars(range(min = 1, max = MAX_BUDGET))]
    pub budget: Option<usize>,
}

/// `ask`: the navigation agent.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// The question, in natural language.
    pub question: String,
    /// Only search these documents (skips the agent's choice of documents).
    pub doc_ids: Option<Vec<String>>,
    /// Commands each Worker may run (default: the server's `--max-steps`, 12).
    #[schemars(range(min = 1, max = 100))]
    pub max_steps: Option<usize>,
    /// Dispatch rounds (default: the server's `--rounds`, 3).
    #[schemars(range(min = 1, max = 10))]
    pub rounds: Option<usize>,
    /// Also write a concise answer in which every sentence cites the evidence (`[1]`), each
    /// citation verified against the cited text; unsupported sentences are marked. One more
    /// model call.
    pub answer: Option<bool>,
    /// Ask the model afresh even when the same question was answered over unchanged documents
    /// (by default that recorded answer comes back at once, marked `from_trace`).
    pub no_cache: Option<bool>,
}

/// A `budget` argument checked against its bounds: `Ok(default)` when absent.
///
/// Errors: the one-line message for 0 or a value over [`MAX_BUDGET`].
pub fn budget(tool: &str, value: Option<usize>, default: usize) -> Result<usize, String> {
    match value {
        None => Ok(default),
        Some(0) => Err(format!("{tool}: budget must be at least 1 char")),
        Some(b) if b > MAX_BUDGET => Err(format!(
            "{tool}: budget {b} is over the limit of {MAX_BUDGET} chars per call (read on with offset)"
        )),
        Some(b) => Ok(b),
    }
}
