//! Byte offset → 1-based line number, in O(log n) per lookup after one O(n) pass.

/// Start offsets of every line of a text, built once per document.
#[derive(Debug, Clone)]
pub(crate) struct LineIndex {
    /// Byte offset of the first byte of each line; `starts[0] == 0`. A text ending with `\n` has a
    /// final entry equal to its length (an empty last "line" that is not counted).
    starts: Vec<usize>,
    /// Length of the text in bytes.
    len: usize,
}

impl LineIndex {
    /// Scan `text` once for `\n` bytes.
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        starts.push(0);
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// Number of lines, counted like [`str::lines`]: a trailing `\n` does not start a new line,
    /// an empty text has 0 lines.
    pub(crate) fn line_count(&self) -> u32 {
        let n = if self.len == 0 {
            0
        } else if self.starts.last().is_some_and(|s| *s == self.len) {
            self.starts.len() - 1
        } else {
            self.starts.len()
        };
        to_u32(n)
    }

    /// 1-based line holding byte `offset`. An offset at or past the end gives the line after the
    /// last line when the text ends with `\n` (where the next line would start).
    pub(crate) fn line_of(&self, offset: usize) -> u32 {
        to_u32(self.starts.partition_point(|s| *s <= offset))
    }

    /// [`LineIndex::line_of`] for an `offset` known to lie on line `from` or later (1-based):
    /// an exponential search forward from `from` (Bentley & Yao 1976), so a pass that looks up
    /// increasing offsets costs O(log gap) per lookup instead of O(log lines) over the whole
    /// table — for 100,000 headings, a walk of a few lines each instead of 18 probes across a
    /// table of megabytes. A `from` past `offset`'s line gives the same answer as `line_of`.
    pub(crate) fn line_of_from(&self, offset: usize, from: u32) -> u32 {
        let mut low = usize::try_from(from.saturating_sub(1)).unwrap_or(usize::MAX);
        if self.starts.get(low).is_none_or(|s| *s > offset) {
            return self.line_of(offset);
        }
        // Invariant: starts[low] <= offset; grow the step until starts[high] > offset.
        let mut step = 1;
        let mut high = low + 1;
        while self.starts.get(high).is_some_and(|s| *s <= offset) {
            low = high;
            step *= 2;
            high = low.saturating_add(step);
        }
        let high = high.min(self.starts.len());
        to_u32(low + self.starts[low..high].partition_point(|s| *s <= offset))
    }

    /// Byte offset where 1-based `line` starts; the text length for lines past the end.
    pub(crate) fn start_of(&self, line: u32) -> usize {
        let i = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
        self.starts
            .get(i)
            .copied()
            .unwrap_or(self.len)
            .min(self.len)
    }
}

/// Saturating `usize` → `u32`.
pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forward_lookup_agrees_with_the_whole_table_search_from_any_line() {
        let text = "ab\ncd\n\nef\n".repeat(40) + "tail";
        let idx = LineIndex::new(&text);
        for offset in 0..=text.len() + 2 {
            let want = idx.line_of(offset);
            for from in [
                0,
                1,
                2,
                want.saturating_sub(7),
                want.saturating_sub(1),
                want,
                want + 1,
                want + 50,
            ] {
                assert_eq!(
                    idx.line_of_from(offset, from),
                    want,
                    "offset {offset} from {from}"
                );
            }
        }
        assert_eq!(
            LineIndex::new("").line_of_from(0, 1),
            LineIndex::new("").line_of(0)
        );
    }

    #[test]
    fn lines_are_one_based_and_count_like_str_lines() {
        for text in ["", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "a\r\nb\r\n"] {
            let idx = LineIndex::new(text);
            assert_eq!(idx.line_count() as usize, text.lines().count(), "{text:?}");
        }
        let idx = LineIndex::new("ab\ncd\n\nef");
        assert_eq!(idx.line_of(0), 1);
        assert_eq!(idx.line_of(2), 1); // the '\n' belongs to its line
        assert_eq!(idx.line_of(3), 2);
        assert_eq!(idx.line_of(6), 3);
        assert_eq!(idx.line_of(7), 4);
        assert_eq!(idx.start_of(4), 7);
        assert_eq!(idx.start_of(9), 9);
    }
}
