//! Readable text from HTML's inline flow: whitespace collapsed as a browser does, paragraph and
//! line breaks where blocks end, list markers and indentation for nested blocks, code kept
//! verbatim between ``` fences.
//!
//! The writer appends to whichever section's text the walker hands it (`dst`), so one writer
//! serves a whole page while sections change under it; its state is the break owed before the
//! next text and the indentation of the blocks open around it.

/// The separation owed before the next text, strongest wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Break {
    None,
    Space,
    Line,
    Paragraph,
}

/// Indentation of one open block: `first` is written once, on the first line written inside the
/// block (a list item's `- `), `rest` on the lines after it.
#[derive(Debug, Clone)]
struct Indent {
    first: Option<String>,
    rest: String,
}

/// See the module doc.
#[derive(Debug)]
pub struct Writer {
    owed: Break,
    indents: Vec<Indent>,
}

impl Writer {
    /// A writer with nothing owed and no indentation.
    pub fn new() -> Writer {
        Writer {
            owed: Break::None,
            indents: Vec::new(),
        }
    }

    /// Forget the break owed: the next text starts a new section's text.
    pub fn start_section(&mut self) {
        self.owed = Break::None;
    }

    /// The next text starts a new paragraph.
    pub fn paragraph(&mut self) {
        self.owed = self.owed.max(Break::Paragraph);
    }

    /// The next text starts a new line.
    pub fn line(&mut self) {
        self.owed = self.owed.max(Break::Line);
    }

    /// Open an indented block; `first` marks its first line (`- `, `3. `), `rest` indents the
    /// others.
    pub fn push_indent(&mut self, first: Option<String>, rest: &str) {
        self.indents.push(Indent {
            first,
            rest: rest.to_string(),
        });
    }

    /// Close the innermost indented block.
    pub fn pop_indent(&mut self) {
        self.indents.pop();
    }

    /// Inline text: whitespace runs become one space, none at the start of a line.
    pub fn text(&mut self, dst: &mut String, text: &str) {
        if text.starts_with(char::is_whitespace) {
            self.owed = self.owed.max(Break::Space);
        }
        let mut words = text.split_whitespace().peekable();
        while let Some(word) = words.next() {
            self.settle(dst);
            dst.push_str(word);
            if words.peek().is_some() {
                self.owed = Break::Space;
            }
        }
        if text.ends_with(char::is_whitespace) && !text.trim().is_empty() {
            self.owed = self.owed.max(Break::Space);
        }
    }

    /// A line of text as it is (a table row, a signature), on a line of its own.
    pub fn raw_line(&mut self, dst: &mut String, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        self.line();
        self.settle(dst);
        dst.push_str(line.trim_end());
        self.line();
    }

    /// Preformatted text (code) between ``` fences, its lines kept as they are.
    pub fn code_block(&mut self, dst: &mut String, code: &str) {
        let code = code.trim_matches('\n').trim_end();
        if code.trim().is_empty() {
            return;
        }
        self.paragraph();
        self.settle(dst);
        // A fence longer than any backtick run inside, so the block cannot end early.
        let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        dst.push_str(&fence);
        for line in code.lines() {
            self.owed = Break::Line;
            self.settle(dst);
            dst.push_str(line.trim_end());
        }
        self.owed = Break::Line;
        self.settle(dst);
        dst.push_str(&fence);
        self.paragraph();
    }

    /// Pay the break owed before writing into `dst`: nothing at the start of a text, else a
    /// space, or line ends followed by the indentation of the open blocks.
    fn settle(&mut self, dst: &mut String) {
        let owed = std::mem::replace(&mut self.owed, Break::None);
        if dst.is_empty() {
            self.write_indent(dst);
            return;
        }
        match owed {
            Break::None => {}
            Break::Space => {
                if !dst.ends_with([' ', '\n']) {
                    dst.push(' ');
                }
            }
            Break::Line | Break::Paragraph => {
                if owed == Break::Paragraph {
                    dst.push('\n');
                }
                dst.push('\n');
                self.write_indent(dst);
            }
        }
    }

    fn write_indent(&mut self, dst: &mut String) {
        for indent in &mut self.indents {
            match indent.first.take() {
                Some(first) => dst.push_str(&first),
                None => dst.push_str(&indent.rest),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaks_indents_and_fences() {
        let mut w = Writer::new();
        let mut s = String::new();
        w.text(&mut s, "  Hello\n   world ");
        w.text(&mut s, "again");
        w.paragraph();
        w.push_indent(Some("- ".into()), "  ");
        w.text(&mut s, "item one");
        w.line();
        w.text(&mut s, "more");
        w.pop_indent();
        w.code_block(&mut s, "\nfn x() {\n    1\n}\n");
        w.raw_line(&mut s, "| a | b |");
        assert_eq!(
            s,
            "Hello world again\n\n- item one\n  more\n\n```\nfn x() {\n    1\n}\n```\n\n| a | b |"
        );
    }
}
