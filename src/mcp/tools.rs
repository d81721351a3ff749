//! The tool table: name, title, description (written for the calling model), input schema and,
//! where the result is structured, output schema; and [`run_sync`], which checks a call's
//! arguments against its struct and runs every tool but `ask` (see [`super::server`]).

use std::sync::{Arc, LazyLock};

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::args::{
    AskArgs, CatArgs, DocsArgs, FindArgs, FindTreeArgs, GrepArgs, HeadArgs, LsArgs, SearchArgs,
    TreeArgs, WcArgs,
};
use super::nav_tools::{self, CatPage, ToolText};
use super::search;
use crate::agent::search::{DocsPage, SearchResults};
use crate::nav::live::Opened;

/// What `ls`, `cat` and friends share, said once in each description's last sentence.
const PATHS: &str = "Paths are absolute: `/` is the list of documents, `/doc_id/2/1` a section by \
                     the child numbers ls shows, `/doc_id/#2.1` a section by structure number.";

/// JSON Schema (draft 2020-12) of `T`, for what it accepts (`serialize` false) or writes
/// (`serialize` true), without the root `title`/`description` (the Rust type's name and doc).
fn schema<T: JsonSchema>(serialize: bool) -> Arc<JsonObject> {
    let settings = SchemaSettings::draft2020_12();
    let settings = if serialize {
        settings.for_serialize()
    } else {
        settings
    };
    let root = settings.into_generator().into_root_schema_for::<T>();
    match serde_json::to_value(root) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.remove("title");
            object.remove("description");
            Arc::new(object)
        }
        _ => Arc::new(JsonObject::new()),
    }
}

fn tool<A: JsonSchema>(name: &'static str, title: &str, description: String) -> Tool {
    Tool::new(name, description, schema::<A>(false))
        .with_title(title)
        .with_annotations(
            ToolAnnotations::with_title(title)
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
}

static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    vec![
        tool::<DocsArgs>(
            "docs",
            "List documents",
            "The indexed documents: id, format, size, title, summary and the first entries of \
             each outline. Paths and resources start from these ids. With `for` (a question): \
             the documents ranked for it as `ask` ranks them (a name or period the question \
             uses first), each with why."
                .into(),
        )
        .with_raw_output_schema(schema::<DocsPage>(true)),
        tool::<SearchArgs>(
            "search",
            "Search sections (BM25)",
            "Start here. Ranks every section of every document (or of `doc_ids`) for a query with \
             BM25 and returns the k best, each with its document, title path, structure number, \
             lines or pages, score, `path` to cat, and its text cut to `budget` chars. No model \
             involved; fast."
                .into(),
        )
        .with_raw_output_schema(schema::<SearchResults>(true)),
        tool::<LsArgs>(
            "ls",
            "List sections",
            format!(
                "The sections under a node: `N. Title  [S subsections, W words]  — summary` per child \
                 (documents at `/`). Use the numbers in the next path. {PATHS}"
            ),
        ),
        tool::<CatArgs>(
            "cat",
            "Read a section",
            format!(
                "The verbatim text of a section with its subsections, under a header with its \
                 source lines or pages. Long sections come in pages of `budget` chars: a page \
                 that ends with `read on: cat -o N …` continues with offset N. Ends with the \
                 sections the text refers to (`[see also: #2.1 …]`). {PATHS}"
            ),
        )
        .with_raw_output_schema(schema::<CatPage>(true)),
        tool::<HeadArgs>(
            "head",
            "Preview a section",
            format!(
                "The first lines of a section (default 10), to decide whether to cat it. {PATHS}"
            ),
        ),
        tool::<FindArgs>(
            "find",
            "Find by keywords",
            format!(
                "BM25 keyword search in the document of `path`, or in every document when \
                 `path` is `/` (default): `path  score  title: snippet` lines. {PATHS}"
            ),
        ),
        tool::<FindTreeArgs>(
            "findtree",
            "Find titles",
            format!(
                "Sections below `path` (default `/`) whose title matches a glob (`*auth*`) or \
                 contains all the words, case-insensitive: `path  Title › Path` lines. {PATHS}"
            ),
        ),
        tool::<GrepArgs>(
            "grep",
            "Grep section text",
            format!(
                "A regular expression over titles and text below `path` (default `/`): \
                 `path:line: text` lines with source line numbers (`+N` within the section for \
                 PDF), at most `max` (default 30). {PATHS}"
            ),
        ),
        tool::<TreeArgs>(
            "tree",
            "Outline",
            format!(
                "The outline below a node with structure numbers, `depth` levels (default 2); \
                 `(+N)` marks sections with more below. {PATHS}"
            ),
        ),
        tool::<WcArgs>(
            "wc",
            "Size of a section",
            format!(
                "Lines, words, chars and estimated tokens of a section with its subsections, to \
                 choose a budget before cat. {PATHS}"
            ),
        ),
        Tool::new(
            "ask",
            "Answer a question with docnav's navigation agent: a model reads the document \
             cards, walks the heading trees of the likely documents (ls, find, cat) and returns \
             the sections that answer it, verbatim and ranked, with exact locations. Slower than \
             search (several model calls; progress is reported per step) and needs a model \
             configured for the server (DOCNAV_MODEL and OPENAI_API_KEY or OPENAI_BASE_URL); \
             without one it returns an error saying what to set.",
            schema::<AskArgs>(false),
        )
        .with_title("Ask the navigation agent")
        .with_annotations(
            ToolAnnotations::with_title("Ask the navigation agent")
                .read_only(true)
                .destructive(false)
                .idempotent(false)
                .open_world(true),
        ),
    ]
});

/// Every tool, in the order `tools/list` returns them (built once).
pub fn list() -> &'static [Tool] {
    &TOOLS
}

/// The tool named `name`, if any.
pub fn get(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// `arguments` as `T`, or the error result naming the tool and what is wrong (a missing or
/// unknown property, a wrong type), so the model can correct the call.
pub fn parse<T: DeserializeOwned>(
    tool: &str,
    arguments: Option<JsonObject>,
) -> Result<T, ToolText> {
    let value = serde_json::Value::Object(arguments.unwrap_or_default());
    serde_json::from_value(value).map_err(|e| {
        ToolText::error(format!(
            "{tool}: bad arguments: {e} (see the tool's input schema)"
        ))
    })
}

/// Run tool `name` (anything but `ask`) with `arguments` on the `opened` workspace. Blocking: the
/// caller runs it off the async runtime.
///
/// Returns `None` for a name this function does not run (`ask`, or an unknown tool).
pub fn run_sync(name: &str, arguments: Option<JsonObject>, opened: Opened) -> Option<ToolText> {
    macro_rules! call {
        ($args:ty, $run:expr) => {
            match parse::<$args>(name, arguments) {
                Ok(a) => $run(a),
                Err(e) => e,
            }
        };
    }
    let ws = opened.workspace.as_ref();
    let lib = &opened.session;
    Some(match name {
        "docs" => call!(DocsArgs, |a| search::docs(ws, a)),
        "search" => call!(SearchArgs, |a| search::search(ws, a)),
        "ls" => call!(LsArgs, |a| nav_tools::ls(lib, a)),
        "cat" => call!(CatArgs, |a| nav_tools::cat(lib, a)),
        "head" => call!(HeadArgs, |a| nav_tools::head(lib, a)),
        "find" => call!(FindArgs, |a| nav_tools::find(lib, a)),
        "findtree" => call!(FindTreeArgs, |a| nav_tools::findtree(lib, a)),
        "grep" => call!(GrepArgs, |a| nav_tools::grep(lib, a)),
        "tree" => call!(TreeArgs, |a| nav_tools::tree(lib, a)),
        "wc" => call!(WcArgs, |a| nav_tools::wc(lib, a)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_and_a_description() {
        let names: Vec<&str> = list().iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "docs", "search", "ls", "cat", "head", "find", "findtree", "grep", "tree", "wc",
                "ask"
            ]
        );
        for t in list() {
            assert_eq!(t.input_schema.get("type").unwrap(), "object", "{}", t.name);
            assert_eq!(
                t.input_schema.get("additionalProperties").unwrap(),
                false,
                "{}",
                t.name
            );
            assert!(t.description.as_ref().unwrap().len() > 60, "{}", t.name);
        }
    }

    #[test]
    fn bad_arguments_name_the_tool_and_the_problem() {
        let err = parse::<LsArgs>("ls", None).unwrap_err();
        assert!(err.is_error);
        assert_eq!(
            err.text,
            "ls: bad arguments: missing field `path` (see the tool's input schema)"
        );
        let mut args = JsonObject::new();
        args.insert("path".into(), "/".into());
        args.insert("recursive".into(), true.into());
        let err = parse::<LsArgs>("ls", Some(args)).unwrap_err();
        assert!(
            err.text
                .starts_with("ls: bad arguments: unknown field `recursive`"),
            "{}",
            err.text
        );
    }
}
