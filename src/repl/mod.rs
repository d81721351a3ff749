//! `docnav shell` (DESIGN.md §4, §8): an interactive loop over the command language with
//! rustyline. The prompt shows the current path; history is kept in a file (the workspace's);
//! Tab completes command names and child titles/numbers; Ctrl-C cancels the line, Ctrl-D (or
//! `exit`) leaves. Colour only when asked ([`ShellOptions::from_env`]: a TTY and no `NO_COLOR`);
//! long output goes through `$PAGER` only when it is set.

pub mod agent;
mod helper;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Command as Process, ExitCode, Stdio};
use std::sync::Arc;

use anyhow::Context as _;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{CompletionType, Config, Editor};

pub use agent::ShellAgent;
pub use helper::ShellHelper;

use crate::nav::render::for_display;
use crate::nav::{find_command, Role, Session, Status, DEFAULT_BUDGET};
use crate::workspace::Library;

/// Output longer than this many lines goes through `$PAGER` (when set and stdout is a TTY).
pub const PAGER_MIN_LINES: usize = 40;

/// Options of [`run_shell`].
#[derive(Debug, Clone)]
pub struct ShellOptions {
    /// Per-command output budget in chars.
    pub budget: usize,
    /// Path to `cd` into first (e.g. `/guide/2`); `None` starts at `/`.
    pub cwd: Option<String>,
    /// ANSI colour for the prompt and errors.
    pub color: bool,
    /// Pager command run with `sh -c` for long output; `None` prints directly.
    pub pager: Option<String>,
}

impl ShellOptions {
    /// Defaults from the environment: colour when stdout is a terminal and `NO_COLOR` is unset
    /// or empty (<https://no-color.org>); the pager from a non-empty `$PAGER` when stdout is a
    /// terminal; [`DEFAULT_BUDGET`]; start at `/`.
    pub fn from_env() -> ShellOptions {
        let tty = std::io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let pager = std::env::var("PAGER").ok().filter(|p| !p.trim().is_empty());
        ShellOptions {
            budget: DEFAULT_BUDGET,
            cwd: None,
            color: tty && !no_color,
            pager: if tty { pager } else { None },
        }
    }
}

/// The shell's own commands, listed by `help` after the navigation commands.
pub const SHELL_HELP: &[&str] = &[
    "shell: ask [--answer] [--new] [--no-cache] <question>  the agent answers (a follow-up is rewritten to stand alone; a question already answered over unchanged documents comes from its trace)",
    "shell: new  forget the conversation (the next question stands alone)",
    "shell: goto N  move to evidence N of the last answer",
    "shell: suggest [goal]  the model's next command from here (shown, not run)",
    "shell: replay [FILE [WORKER]]  walk a trace step by step (without FILE: the last one)",
];

/// What the shell does with one input line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineKind {
    /// Blank: nothing.
    Blank,
    /// `exit` / `quit`: leave the shell.
    Exit,
    /// A question (`ask …`, or words that are not a command ending in `?`): needs the agent.
    Question,
    /// Anything else goes to [`Session::execute`].
    Command,
}

/// Classify a line (see [`LineKind`]).
pub fn classify(line: &str) -> LineKind {
    let trimmed = line.trim();
    let first = trimmed.split_whitespace().next().unwrap_or("");
    match first {
        "" => LineKind::Blank,
        "exit" | "quit" => LineKind::Exit,
        "ask" => LineKind::Question,
        _ if find_command(first).is_none()
            && (trimmed.ends_with('?') || trimmed.split_whitespace().count() >= 3) =>
        {
            LineKind::Question
        }
        _ => LineKind::Command,
    }
}

/// Run the interactive shell over `library` until Ctrl-D or `exit`; history is loaded from and
/// saved to `history_path` (its folder is created when missing).
///
/// Errors: the terminal cannot be set up, or a document of the library cannot be loaded
/// (fatal [`NavError`](crate::nav::NavError)). A history file that cannot be written is a
/// warning on stderr, not an error.
pub fn run_shell(
    library: Arc<dyn Library>,
    history_path: PathBuf,
    options: ShellOptions,
    mut agent: ShellAgent,
) -> anyhow::Result<ExitCode> {
    let mut session = Session::new(library.clone(), Role::Person).with_budget(options.budget);
    if let Some(cwd) = &options.cwd {
        let out = session.execute(&format!("cd {}", crate::nav::lexer::quote_word(cwd)))?;
        if out.status == Status::Error {
            anyhow::bail!("{}", out.text);
        }
    }
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .auto_add_history(false)
        .max_history_size(10_000)
        .context("bad history size")?
        .build();
    let mut editor: Editor<ShellHelper, DefaultHistory> =
        Editor::with_config(config).context("cannot set up the terminal")?;
    editor.set_helper(Some(ShellHelper {
        session,
        color: options.color,
    }));
    if history_path.exists() {
        if let Err(e) = editor.load_history(&history_path) {
            eprintln!(
                "warning: cannot read history `{}`: {e}",
                history_path.display()
            );
        }
    } else if let Some(dir) = history_path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    while let Some(helper) = editor.helper() {
        let prompt = format!("docnav:{}> ", for_display(&helper.session.pwd()?));
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("cannot read from the terminal"),
        };
        if !line.trim().is_empty() {
            let _ = editor.add_history_entry(line.as_str());
            if let Err(e) = editor.save_history(&history_path) {
                eprintln!(
                    "warning: cannot save history `{}`: {e}",
                    history_path.display()
                );
            }
        }
        let first = line.split_whitespace().next().unwrap_or("");
        let rest = line.trim_start()[first.len()..].trim();
        let (text, status) = if first == "replay" {
            // Its steps are read by the same editor as the command lines: keys typed ahead stay
            // in order, and Ctrl-C or Ctrl-D at a step stops the walk.
            let mut args = crate::nav::split_words(rest).unwrap_or_default();
            if args.is_empty() {
                // Without a file: the shell's last trace, said before its first step.
                if let Some(last) = agent::default_replay_trace(&agent) {
                    println!("replaying `{}`", for_display(&last.display().to_string()));
                    args.push(last.display().to_string());
                }
            }
            let end =
                agent::replay_in_shell(&library, &args, |text| replay_step(&mut editor, text));
            let Some(helper) = editor.helper_mut() else {
                break;
            };
            agent::move_to_replay_end(&mut helper.session, end)
        } else {
            let Some(helper) = editor.helper_mut() else {
                break;
            };
            let session = &mut helper.session;
            match (first, classify(&line)) {
                ("goto", _) => agent::goto(&agent, session, rest),
                ("suggest", _) => agent::suggest(&mut agent, session, rest),
                ("new", _) if rest.is_empty() => agent::forget(&mut agent),
                ("help", _) if rest.is_empty() => {
                    let out = session.execute(&line)?;
                    (
                        format!("{}\n{}", out.text, SHELL_HELP.join("\n")),
                        out.status,
                    )
                }
                (_, LineKind::Blank) => continue,
                (_, LineKind::Exit) => break,
                (_, LineKind::Question) => {
                    let question = if first == "ask" { rest } else { line.trim() };
                    agent::ask_in_shell(&mut agent, session, question)
                }
                (_, LineKind::Command) => {
                    let out = session.execute(&line)?;
                    (out.text, out.status)
                }
            }
        };
        show(&text, status, &options);
    }
    Ok(ExitCode::SUCCESS)
}

/// Show one replayed transcript line and wait for Enter; `q`, Ctrl-C and Ctrl-D stop.
fn replay_step(editor: &mut Editor<ShellHelper, DefaultHistory>, line: &str) -> bool {
    println!("{}", for_display(line));
    match editor.readline("   (Enter: next, q: stop) ") {
        Ok(answer) => answer.trim() != "q",
        Err(_) => false,
    }
}

/// Print one command's output ([`for_display`]: document text cannot drive the terminal):
/// errors in red when colour is on, long output through the pager.
fn show(text: &str, status: Status, options: &ShellOptions) {
    if text.is_empty() {
        return;
    }
    let text = &*for_display(text);
    if let Some(pager) = &options.pager {
        if text.lines().count() > PAGER_MIN_LINES && page_through(pager, text).is_ok() {
            return;
        }
    }
    let mut stdout = std::io::stdout().lock();
    let _ = if status == Status::Error && options.color {
        writeln!(stdout, "\x1b[31m{text}\x1b[0m")
    } else {
        writeln!(stdout, "{text}")
    };
    let _ = stdout.flush();
}

/// Run `sh -c <pager>` with `text` on its stdin and wait for it.
fn page_through(pager: &str, text: &str) -> std::io::Result<()> {
    let mut child = Process::new("sh")
        .arg("-c")
        .arg(pager)
        .stdin(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // The pager may quit before reading everything (q in less): a broken pipe is fine.
        let _ = stdin.write_all(text.as_bytes());
        let _ = stdin.write_all(b"\n");
    }
    child.wait()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_commands_and_exit_are_told_apart() {
        assert_eq!(classify("   "), LineKind::Blank);
        assert_eq!(classify("exit"), LineKind::Exit);
        assert_eq!(classify("ask how do I install it"), LineKind::Question);
        assert_eq!(classify("how do I install it"), LineKind::Question);
        assert_eq!(classify("what is this?"), LineKind::Question);
        assert_eq!(classify("grep -i how do"), LineKind::Command);
        assert_eq!(classify("lss"), LineKind::Command);
    }
}
