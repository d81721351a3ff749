//! What a Worker keeps of the text it reads: every excerpt, merged by char range.
//!
//! `cat` reads a page of a node's rendered text ([`crate::tree::Tree::text_of`]); reading the
//! same node again at another offset (`cat -o`, `cat path:N`) adds that page. Excerpts of one node
//! that overlap or touch are merged into one (their union, re-read from the node's text, so it
//! stays verbatim); disjoint ones stay separate, in the order first read. Nothing read is ever
//! dropped: keeping only the longest read of a node would lose the paragraph that answers when
//! a shorter read holds it.

use std::fmt::Write as _;
use std::ops::Range;

use super::CollectedEvidence;
use crate::tree::NodeId;

/// The text of chars `range` of `full` (chars, end exclusive).
pub(crate) fn chars_of(full: &str, range: &Range<usize>) -> String {
    full.chars().skip(range.start).take(range.len()).collect()
}

/// `ranges` sorted, overlapping or touching ones joined, empty ones left out.
fn union(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::new();
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Every excerpt a Worker collected, in the order first read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Excerpts {
    items: Vec<CollectedEvidence>,
}

impl Excerpts {
    /// Add the read of chars `range` of node `node` of `doc_id`, whose full rendered text is
    /// `full`, with the char ranges of it the reader `cited` (read by line numbers, see
    /// [`CollectedEvidence::cited`]): merged with the excerpts of the node it overlaps or
    /// touches, their cited ranges joined.
    pub fn add(
        &mut self,
        doc_id: &str,
        node: NodeId,
        range: Range<usize>,
        full: &str,
        cited: &[Range<usize>],
    ) {
        let mut cites: Vec<Range<usize>> = cited.to_vec();
        let mut merged = range;
        let mut at: Option<usize> = None;
        let mut i = 0;
        while i < self.items.len() {
            let e = &self.items[i];
            let joins = e.doc_id == doc_id
                && e.node == node
                && e.chars.start <= merged.end
                && merged.start <= e.chars.end;
            if joins {
                merged = merged.start.min(e.chars.start)..merged.end.max(e.chars.end);
                at = Some(at.map_or(i, |a: usize| a.min(i)));
                cites.extend(self.items.remove(i).cited);
                continue;
            }
            i += 1;
        }
        let excerpt = CollectedEvidence {
            doc_id: doc_id.to_string(),
            node,
            text: chars_of(full, &merged),
            chars: merged,
            cited: union(cites),
        };
        match at {
            Some(a) => self.items.insert(a, excerpt),
            None => self.items.push(excerpt),
        }
    }

    /// The excerpts, in the order first read.
    pub fn items(&self) -> &[CollectedEvidence] {
        &self.items
    }

    /// Chars held, over all excerpts.
    pub fn chars(&self) -> usize {
        self.items.iter().map(|e| e.chars.len()).sum()
    }

    /// `chars 0–2692, 4000–6692 of 9000 (5384 chars)`: what is held of node `node` of `doc_id`,
    /// whose rendered text has `total` chars.
    pub fn describe(&self, doc_id: &str, node: NodeId, total: usize) -> String {
        let mut ranges: Vec<&Range<usize>> = self
            .items
            .iter()
            .filter(|e| e.doc_id == doc_id && e.node == node)
            .map(|e| &e.chars)
            .collect();
        ranges.sort_by_key(|r| r.start);
        let held: usize = ranges.iter().map(|r| r.len()).sum();
        let mut out = String::from("chars ");
        for (i, r) in ranges.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{}–{}", r.start, r.end);
        }
        let _ = write!(out, " of {total} ({held} chars)");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ranges(e: &Excerpts) -> Vec<(u32, Range<usize>)> {
        e.items()
            .iter()
            .map(|x| (x.node.0, x.chars.clone()))
            .collect()
    }

    /// Three reads of one node at different offsets are all kept.
    #[test]
    fn every_read_is_kept_and_overlapping_reads_merge() {
        let full: String = ('a'..='z').cycle().take(100).collect();
        let mut e = Excerpts::default();
        e.add("d", NodeId(4), 0..20, &full, &[]);
        e.add("d", NodeId(4), 50..60, &full, &[]);
        e.add("d", NodeId(7), 0..5, &full, &[]);
        e.add("d", NodeId(4), 80..90, &full, &[]);
        assert_eq!(
            ranges(&e),
            vec![(4, 0..20), (4, 50..60), (7, 0..5), (4, 80..90)]
        );
        assert_eq!(
            e.describe("d", NodeId(4), 100),
            "chars 0–20, 50–60, 80–90 of 100 (40 chars)"
        );
        // Touching and overlapping reads merge into the first one's place, text re-read.
        e.add("d", NodeId(4), 20..55, &full, &[]);
        assert_eq!(ranges(&e), vec![(4, 0..60), (7, 0..5), (4, 80..90)]);
        assert_eq!(e.items()[0].text, chars_of(&full, &(0..60)));
        assert_eq!(e.chars(), 60 + 5 + 10);
        // The same node of another document is another excerpt.
        e.add("other", NodeId(4), 0..100, &full, &[]);
        assert_eq!(e.items().len(), 4);
    }

    /// Lines read by number stay marked through merges with wider reads of the node, counted
    /// as lines of the merged excerpt's text.
    #[test]
    fn cited_ranges_survive_merging_as_lines_of_the_excerpt() {
        let full = "# T\none\ntwo\nthree\nfour\nfive\n";
        let at = |needle: &str| {
            let b = full.find(needle).unwrap();
            full[..b].chars().count()
        };
        let mut e = Excerpts::default();
        // `cat path:3-4` (lines "two" and "three"), then the first page, then line 6.
        let two = at("two")..at("four");
        e.add(
            "d",
            NodeId(1),
            two.clone(),
            full,
            std::slice::from_ref(&two),
        );
        e.add("d", NodeId(1), 0..at("four") + 2, full, &[]);
        let five = at("five")..at("five") + 5;
        e.add(
            "d",
            NodeId(1),
            five.clone(),
            full,
            std::slice::from_ref(&five),
        );
        let [one, two] = e.items() else {
            panic!("{:?}", e.items())
        };
        assert_eq!(one.chars, 0..at("four") + 2);
        assert_eq!(one.cited_lines(), vec![[3, 4]]);
        assert_eq!(two.cited_lines(), vec![[1, 1]]);
        // Touching the first: one excerpt, both ranges cited.
        e.add("d", NodeId(1), at("four")..at("five"), full, &[]);
        assert_eq!(e.items().len(), 1);
        assert_eq!(e.items()[0].cited_lines(), vec![[3, 4], [6, 6]]);
    }
}
