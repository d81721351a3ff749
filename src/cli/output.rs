//! Writing to stdout the way CLI users expect: a closed pipe (`docnav docs | head`) ends the
//! program quietly with exit 0; colour only on a TTY and never when `NO_COLOR` is set.

use std::io::{IsTerminal, Write};

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

/// True when stdout is a terminal and `NO_COLOR` is unset or empty (https://no-color.org).
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

/// Document text made safe to print on a terminal: every character that could move the cursor,
/// recolour, hide or reorder what a person sees is shown as a visible Rust-style escape
/// (`\u{1b}`); everything else, tab and newline included, passes through unchanged.
///
/// Escaped: C0 controls (U+0000–U+001F) other than tab and newline, DEL (U+007F), C1 controls
/// (U+0080–U+009F), the bidi embeddings and overrides U+202A–U+202E and the bidi isolates
/// U+2066–U+2069 (the "Trojan Source" set, CVE-2021-42574). A carriage return directly before a
/// newline (a CRLF line end) is kept: it only moves to the start of a line that is about to end.
/// A lone `\r` is escaped, since it lets later text overwrite earlier text.
///
/// Returns the input borrowed when nothing needs escaping (the common case: one scan, no copy).
/// Apply it to text printed for a person only: `--json` output, prompts to the model and
/// command outputs fed to the model keep the exact text.
pub fn for_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write as _;
    let mut chars = text.char_indices().peekable();
    let mut out: Option<String> = None;
    while let Some((at, c)) = chars.next() {
        let unsafe_char = match c {
            '\r' => chars.peek().is_none_or(|(_, next)| *next != '\n'),
            _ => is_unsafe_for_terminal(c),
        };
        if unsafe_char {
            let buf = out.get_or_insert_with(|| {
                let mut s = String::with_capacity(text.len() + 16);
                s.push_str(&text[..at]);
                s
            });
            let _ = write!(buf, "\\u{{{:x}}}", u32::from(c));
        } else if let Some(buf) = out.as_mut() {
            buf.push(c);
        }
    }
    match out {
        Some(s) => std::borrow::Cow::Owned(s),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// Whether `c` (other than `\r`, which depends on what follows) is escaped by [`for_terminal`].
fn is_unsafe_for_terminal(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// [`print`] of text meant for a person: [`for_terminal`] first.
pub fn print_human(text: &str) -> std::io::Result<bool> {
    print(&for_terminal(text))
}

/// [`print`] of a rendered answer: exact for `--json` (a script reads it), [`print_human`]
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn controls_and_bidi_controls_become_visible_escapes() {
        assert_eq!(
            for_terminal("\u{1b}[31mred\u{1b}[0m \u{202e}evil\u{2069} \u{7}\u{0}\u{9b}"),
            "\\u{1b}[31mred\\u{1b}[0m \\u{202e}evil\\u{2069} \\u{7}\\u{0}\\u{9b}"
        );
        assert_eq!(for_terminal("a\rb\r"), "a\\u{d}b\\u{d}");
        assert_eq!(
            for_terminal("\u{7f}\u{80}\u{202a}\u{2066}"),
            "\\u{7f}\\u{80}\\u{202a}\\u{2066}"
        );
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for text in [
            "",
            "plain",
            "tab\tnew\nline\r\n",
            "日本語 é — “quotes” \u{200f}\u{a0}\u{a1}",
        ] {
            assert!(
                matches!(for_terminal(text), Cow::Borrowed(t) if t == text),
                "{text:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn output_has_no_unsafe_char_and_is_identity_on_safe_text(s in "\\PC{0,40}|[\\x00-\\x20\\u{80}-\\u{a0}\\u{2060}-\\u{2070}\\u{2020}-\\u{2030}a\r\n]{0,40}") {
            let shown = for_terminal(&s);
            let mut chars = shown.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\r' {
                    proptest::prop_assert_eq!(chars.peek(), Some(&'\n'));
                } else {
                    proptest::prop_assert!(!is_unsafe_for_terminal(c), "{:?} in {:?}", c, shown);
                }
            }
            if !s.chars().any(|c| is_unsafe_for_terminal(c) || c == '\r') {
                proptest::prop_assert_eq!(shown.as_ref(), s.as_str());
            }
        }
    }
}
