//! Writing to stdout the way CLI users expect: a closed pipe (`docnav docs | head`) ends the
//! program quietly with exit 0; colour only on a TTY and never when `NO_COLOR` is set.

use std::io::{IsTerminal, Write};

pub use crate::nav::render::for_display;

/// Write `text` to stdout. Returns `Ok(false)` when the reader closed the pipe (the caller should
/// stop and exit 0), `Ok(true)` otherwise. Errors: other I/O errors.
pub fn print(text: &str) -> std::io::Result<bool> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e),
    }
}

/// True when stdout is a terminal and `NO_COLOR` is unset or empty (<https://no-color.org>).
pub fn color_stdout() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// True when stderr is a terminal and `NO_COLOR` is unset or empty (log lines go there).
pub fn color_stderr() -> bool {
    stderr_is_tty() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// True when stderr is a terminal (progress bars go there).
pub fn stderr_is_tty() -> bool {
    std::io::stderr().is_terminal()
}

/// [`fn@print`] of text meant for a person: [`for_display`] first.
pub fn print_human(text: &str) -> std::io::Result<bool> {
    print(&for_display(text))
}

/// [`fn@print`] of a rendered answer: exact for `--json` (a script reads it), [`print_human`]
/// otherwise.
pub fn print_answer(
    text: &str,
    format: crate::agent::evidence::AnswerFormat,
) -> std::io::Result<bool> {
    if format == crate::agent::evidence::AnswerFormat::Json {
        print(text)
    } else {
        print_human(text)
    }
}
