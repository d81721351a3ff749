//! `ls`, `cat`, `head`, `find`, `findtree`, `grep`, `tree`, `wc`: each call runs the shell's own
//! command on a fresh [`Session`] (stateless), so the text is what `docnav exec` prints.
//!
//! The command line is built from the arguments with the lexer's quoting ([`quote_word`]), options
//! before a `--`, so no argument can be read as another option. `find` and `findtree` search below
//! the cursor: the session is moved to `path` first. Paging: `cat` pages the section's text itself
//! (`-o`, `--budget`); every other output is produced whole (up to [`OUTPUT_CAP`] chars) and the
//! page `offset..offset+budget` of it is returned, cut at a line boundary ([`page`]), with a last
//! line saying how to read on.

use serde::Serialize;

use super::args::{self, CatArgs, FindArgs, FindTreeArgs, GrepArgs, HeadArgs, LsArgs, TreeArgs};
use crate::agent::evidence::{inclusive, part_lines};
use crate::nav::lexer::quote_word;
use crate::nav::path::section_uri;
use crate::nav::render::page;
use crate::nav::{display_path, CommandOutput, Effect, Session, Status};
use crate::workspace::Library;

/// Output of one command produced before paging, in chars (the session's budget): outputs past it
/// end with the shell's `… output cut` note.
pub const OUTPUT_CAP: usize = 2_000_000;

/// Sections up to this many chars get the exact source lines of the page `cat` showed
/// ([`part_lines`] renders the whole section again to map chars to lines); larger ones report the
/// section's lines, so a page of a 30 MB section costs what the page costs.
pub const PAGE_LINES_MAX_CHARS: usize = 1_000_000;

/// What a navigation tool returns: its text, or the one-line error, plus structured content.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolText {
    /// The text (the shell's output, paged), or the error message.
    pub text: String,
    /// True when `text` is an error message.
    pub is_error: bool,
    /// `structuredContent`, where the tool has one (`cat`).
    pub structured: Option<serde_json::Value>,
}

impl ToolText {
    fn ok(text: String) -> ToolText {
        ToolText {
            text,
            is_error: false,
            structured: None,
        }
    }

    /// An error result with this message.
    pub fn error(text: impl Into<String>) -> ToolText {
        ToolText {
            text: text.into(),
            is_error: true,
            structured: None,
        }
    }
}

/// `cat`'s structured content: where the page is and how to read on.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct CatPage {
    /// Document id.
    pub doc_id: String,
    /// Path of the section by child numbers (`/doc_id/2/1`).
    pub path: String,
    /// The section as a resource (`docnav://doc_id/#2.1`).
    pub uri: String,
    /// Dotted structure number (`2.1`; `""` for the whole document).
    pub structure: String,
    /// Titles from the document's first level down to the section.
    pub titles: Vec<String>,
    /// 1-based source lines `[first, last]` of the text on this page (Markdown and text; of the
    /// whole section when it is over 1,000,000 chars or the page cannot be mapped exactly).
    pub lines: Option<[u32; 2]>,
    /// 1-based PDF pages `[first, last]` of the section.
    pub pages: Option<[u32; 2]>,
    /// 1-based paragraphs `[first, last]` of the section in a Word document (then `lines` is
    /// `null`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paragraphs: Option<[u32; 2]>,
    /// First char of this page in the section's text.
    pub offset: usize,
    /// End of this page (exclusive), in chars.
    pub end: usize,
    /// Chars of the section's whole text.
    pub total_chars: usize,
    /// `offset` of the next page, `null` on the last page.
    pub next_offset: Option<usize>,
}

/// The page `offset..` of at most `budget` chars of `text`, with a last line saying how to read
/// on (`[output chars 0–3990 of 9120 shown; read on with offset=3990]`) when the output goes on,
/// or where it ended when it did not start at 0.
///
/// Errors: `offset` at or past the end of a non-empty output.
pub fn page_output(tool: &str, text: &str, offset: usize, budget: usize) -> Result<String, String> {
    let p = page(text, offset, budget);
    if offset > 0 && offset >= p.total {
        return Err(format!(
            "{tool}: offset {offset} is past the end of the output ({} chars)",
            p.total
        ));
    }
    if p.chars.start == 0 && p.chars.end == p.total {
        return Ok(text.to_string());
    }
    let mut out = p.body.trim_end_matches('\n').to_string();
    if p.chars.end < p.total {
        out.push_str(&format!(
            "\n[output chars {}–{} of {} shown; read on with offset={}]",
            p.chars.start, p.chars.end, p.total, p.chars.end
        ));
    } else {
        out.push_str(&format!(
            "\n[output chars {}–{} of {} shown; end of output]",
            p.chars.start, p.chars.end, p.total
        ));
    }
    Ok(out)
}

/// A navigation tool call, ready to run: the command words, the node to stand on first (for
/// `find`/`findtree`), and how to page.
struct Call<'a> {
    tool: &'static str,
    words: Vec<String>,
    cursor: Option<&'a str>,
    paging: Option<(usize, usize)>,
}

/// `path` when it is absolute, else the error telling how to write one.
fn absolute<'a>(tool: &str, path: &'a str) -> Result<&'a str, String> {
    if path.starts_with('/') {
        Ok(path)
    } else {
        Err(format!(
            "{tool}: path '{path}' is not absolute (start at /: `/` lists the documents, \
             `/doc_id/2/1` or `/doc_id/#2.1` is a section)"
        ))
    }
}

fn paging(
    tool: &str,
    offset: Option<usize>,
    budget: Option<usize>,
) -> Result<(usize, usize), String> {
    Ok((
        offset.unwrap_or(0),
        args::budget(tool, budget, args::DEFAULT_BUDGET)?,
    ))
}

fn words(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Run `call` on a clone of `base` (a session at `/`), so nothing carries over between calls.
fn run(base: &Session, call: Call<'_>) -> ToolText {
    let library = base.library().clone();
    let mut session = base.clone().with_budget(OUTPUT_CAP);
    if let Some(path) = call.cursor {
        match session.resolve(path) {
            Ok(Ok(place)) => session.set_cursor(place.cursor()),
            Ok(Err(why)) => return ToolText::error(format!("{}: {why}", call.tool)),
            Err(e) => return ToolText::error(format!("{}: {e}", call.tool)),
        }
    }
    let line: Vec<String> = call.words.iter().map(|w| quote_word(w)).collect();
    let out: CommandOutput = match session.execute(&line.join(" ")) {
        Ok(out) => out,
        Err(e) => return ToolText::error(format!("{}: {e}", call.tool)),
    };
    if out.status == Status::Error {
        return ToolText::error(out.text);
    }
    if let Effect::Evidence(ev) = &out.effect {
        let mut result = ToolText::ok(out.text);
        result.structured = cat_page(library.as_ref(), ev);
        return result;
    }
    match call.paging {
        Some((offset, budget)) => match page_output(call.tool, &out.text, offset, budget) {
            Ok(text) => ToolText::ok(text),
            Err(e) => ToolText::error(e),
        },
        None => ToolText::ok(out.text),
    }
}

/// The structured content of a `cat` page (`None` if the document vanished meanwhile).
fn cat_page(library: &dyn Library, ev: &crate::nav::Evidence) -> Option<serde_json::Value> {
    let doc = library.document(&ev.doc_id).ok()?;
    let tree = &doc.tree;
    let node = tree.get(ev.node)?;
    let exact = if ev.total_chars <= PAGE_LINES_MAX_CHARS {
        part_lines(tree, ev.node, &ev.chars)
    } else {
        None
    };
    let lines = exact.or_else(|| tree.subtree_span(ev.node, |n| n.lines.clone()));
    // A Word document's `lines` are paragraph numbers.
    let (lines, paragraphs) = match tree.format {
        crate::tree::DocFormat::Docx => (None, lines),
        _ => (lines, None),
    };
    let page = CatPage {
        doc_id: ev.doc_id.clone(),
        path: display_path(&ev.doc_id, tree, ev.node),
        uri: section_uri(&ev.doc_id, &node.structure),
        structure: node.structure.clone(),
        titles: tree.title_path(ev.node),
        lines: inclusive(&lines),
        pages: inclusive(&tree.subtree_span(ev.node, |n| n.pages.clone())),
        paragraphs: inclusive(&paragraphs),
        offset: ev.chars.start,
        end: ev.chars.end,
        total_chars: ev.total_chars,
        next_offset: (ev.chars.end < ev.total_chars).then_some(ev.chars.end),
    };
    serde_json::to_value(page).ok()
}

macro_rules! checked {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(message) => return ToolText::error(message),
        }
    };
}

/// `ls` on `args.path`, paged.
pub fn ls(base: &Session, a: LsArgs) -> ToolText {
    let path = checked!(absolute("ls", &a.path));
    let paging = checked!(paging("ls", a.offset, a.budget));
    let words = words(&["ls", "--", path]);
    run(
        base,
        Call {
            tool: "ls",
            words,
            cursor: None,
            paging: Some(paging),
        },
    )
}

/// `cat -o OFFSET --budget BUDGET path`: pages the section's text; structured [`CatPage`].
pub fn cat(base: &Session, a: CatArgs) -> ToolText {
    let path = checked!(absolute("cat", &a.path));
    let budget = checked!(args::budget("cat", a.budget, args::DEFAULT_BUDGET));
    let offset = a.offset.unwrap_or(0).to_string();
    let budget = budget.to_string();
    let words = words(&["cat", "-o", &offset, "--budget", &budget, "--", path]);
    run(
        base,
        Call {
            tool: "cat",
            words,
            cursor: None,
            paging: None,
        },
    )
}

/// `head -n LINES path`, paged.
pub fn head(base: &Session, a: HeadArgs) -> ToolText {
    counted_on_path(base, "head", ("-n", a.lines), &a.path, a.offset, a.budget)
}

/// `find -n HITS keywords…` standing on `path` (default `/`), paged.
pub fn find(base: &Session, a: FindArgs) -> ToolText {
    let path = checked!(absolute("find", a.path.as_deref().unwrap_or("/")));
    let paging = checked!(paging("find", a.offset, a.budget));
    let mut words = words(&["find"]);
    if let Some(n) = a.hits {
        words.extend(["-n".to_string(), n.to_string()]);
    }
    words.push("--".into());
    words.extend(a.query.split_whitespace().map(String::from));
    run(
        base,
        Call {
            tool: "find",
            words,
            cursor: Some(path),
            paging: Some(paging),
        },
    )
}

/// `findtree pattern` standing on `path` (default `/`), paged.
pub fn findtree(base: &Session, a: FindTreeArgs) -> ToolText {
    let path = checked!(absolute("findtree", a.path.as_deref().unwrap_or("/")));
    let paging = checked!(paging("findtree", a.offset, a.budget));
    let mut words = words(&["findtree", "--"]);
    words.extend(a.pattern.split_whitespace().map(String::from));
    run(
        base,
        Call {
            tool: "findtree",
            words,
            cursor: Some(path),
            paging: Some(paging),
        },
    )
}

/// `grep [-i] [-c] -m MAX -- pattern path`, paged.
pub fn grep(base: &Session, a: GrepArgs) -> ToolText {
    let path = checked!(absolute("grep", a.path.as_deref().unwrap_or("/")));
    let paging = checked!(paging("grep", a.offset, a.budget));
    let mut words = words(&["grep"]);
    if a.ignore_case.unwrap_or(false) {
        words.push("-i".into());
    }
    if a.count.unwrap_or(false) {
        words.push("-c".into());
    }
    if let Some(max) = a.max {
        words.extend(["-m".to_string(), max.to_string()]);
    }
    words.extend(["--".to_string(), a.pattern, path.to_string()]);
    run(
        base,
        Call {
            tool: "grep",
            words,
            cursor: None,
            paging: Some(paging),
        },
    )
}

/// `tree -L DEPTH path`, paged.
pub fn tree(base: &Session, a: TreeArgs) -> ToolText {
    counted_on_path(base, "tree", ("-L", a.depth), &a.path, a.offset, a.budget)
}

/// `TOOL [FLAG N] -- path`, paged, where `flag` is the option and its value when the call gave
/// one: what `head` (`-n LINES`) and `tree` (`-L DEPTH`) run.
fn counted_on_path(
    base: &Session,
    tool: &'static str,
    flag: (&str, Option<usize>),
    path: &str,
    offset: Option<usize>,
    budget: Option<usize>,
) -> ToolText {
    let path = checked!(absolute(tool, path));
    let paging = checked!(paging(tool, offset, budget));
    let mut words = words(&[tool]);
    if let (option, Some(n)) = flag {
        words.extend([option.to_string(), n.to_string()]);
    }
    words.extend(["--".to_string(), path.to_string()]);
    run(
        base,
        Call {
            tool,
            words,
            cursor: None,
            paging: Some(paging),
        },
    )
}

/// `wc path`.
pub fn wc(base: &Session, a: super::args::WcArgs) -> ToolText {
    let path = checked!(absolute("wc", &a.path));
    let words = words(&["wc", "--", path]);
    run(
        base,
        Call {
            tool: "wc",
            words,
            cursor: None,
            paging: None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_output_returns_short_output_unchanged_and_notes_the_next_offset() {
        assert_eq!(page_output("ls", "a\nb", 0, 10).unwrap(), "a\nb");
        let text = "line one\nline two\nline three\n";
        let first = page_output("ls", text, 0, 12).unwrap();
        assert_eq!(
            first,
            "line one\n[output chars 0–9 of 29 shown; read on with offset=9]"
        );
        let last = page_output("ls", text, 18, 100).unwrap();
        assert_eq!(
            last,
            "line three\n[output chars 18–29 of 29 shown; end of output]"
        );
        assert_eq!(
            page_output("ls", text, 29, 10).unwrap_err(),
            "ls: offset 29 is past the end of the output (29 chars)"
        );
    }

    #[test]
    fn relative_paths_are_refused_with_how_to_write_one() {
        let lib = std::sync::Arc::new(crate::workspace::InMemoryLibrary::default());
        let out = ls(
            &Session::new(lib, crate::nav::Role::Person),
            LsArgs {
                path: "guide/2".into(),
                offset: None,
                budget: None,
            },
        );
        assert!(out.is_error);
        assert!(
            out.text.starts_with("ls: path 'guide/2' is not absolute"),
            "{}",
            out.text
        );
    }
}
