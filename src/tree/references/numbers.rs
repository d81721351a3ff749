//! Section numbers for textual cross-references (`see Section 2.1`, `Chapter 3`, `Appendix A`).
//!
//! A reference names the number *printed* in a heading, which is not the tree's `structure`
//! (R-intro's outline starts with `Preface`, so its printed chapter `1` is structure `2`). Numbers
//! come from, in order of preference:
//! 1. the title itself: `2.1 Title`, `2.1. Title`, `Chapter 3. Title`, `A A sample session`;
//! 2. derived: an unnumbered heading under a numbered one is numbered by its position
//!    (R-intro's outline prints `6 Lists and data frames` but not `6.2.1` on its grandchild
//!    `Concatenating lists`, which the text calls `Section 6.2.1`);
//! 3. the structure number, only when no title of the document carries a printed number, the
//!    document is a PDF or plain text (in Markdown, `Section 3` without numbered headings
//!    usually cites another document, e.g. `RFC 7230 Section 3`), and the mention says "see"
//!    (R's reference manual, unnumbered, cites "Extending R (Chapters 9 and 10.)").
//!
//! A title's keyword must agree with the reference's: `Section 3` does not resolve to a heading
//! `Chapter 3. …` (FHS says "Section 3 describes library routines" of the man pages).

use std::collections::HashMap;

use super::super::{NodeId, Tree};

/// Keyword of a reference or of a numbered title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    /// `Section`, `§` (references); `Section 2.1 …` (titles).
    Section,
    /// `Chapter`.
    Chapter,
    /// `Appendix`.
    Appendix,
    /// A bare number in a title (`2.1 Title`): matches every reference kind.
    Any,
}

impl RefKind {
    /// The kind named by a reference keyword (`Sections`, `chapter`, `§`, …).
    pub fn of_keyword(keyword: &str) -> RefKind {
        match keyword.as_bytes().first().map(u8::to_ascii_lowercase) {
            Some(b'c') => RefKind::Chapter,
            Some(b'a') => RefKind::Appendix,
            _ => RefKind::Section,
        }
    }

    /// True when a title of kind `self` can be the target of a reference of kind `reference`.
    fn accepts(self, reference: RefKind) -> bool {
        self == RefKind::Any || self == reference
    }
}

/// The number printed at the start of a heading title, with the keyword before it:
/// `"2.1 Vectors"` → `(Any, "2.1")`, `"3.18. /tmp : Temporary files"` → `(Any, "3.18")`,
/// `"Chapter 3. The Root Filesystem"` → `(Chapter, "3")`, `"A A sample session"` →
/// `(Any, "A")`. `None` for titles without one (`"Preface"`, `"I/O"`, `"X11 forwarding"`).
pub fn printed_number(title: &str) -> Option<(RefKind, String)> {
    let title = title.trim_start();
    let mut kind = RefKind::Any;
    let mut rest = title;
    for (word, k) in [
        ("Chapter ", RefKind::Chapter),
        ("Section ", RefKind::Section),
        ("Appendix ", RefKind::Appendix),
        ("§", RefKind::Section),
    ] {
        if let Some(r) = title.strip_prefix(word) {
            kind = k;
            rest = r.trim_start();
            break;
        }
    }
    let bytes = rest.as_bytes();
    let mut end = match bytes.first() {
        Some(b) if b.is_ascii_digit() => bytes.iter().take_while(|b| b.is_ascii_digit()).count(),
        Some(b) if b.is_ascii_uppercase() => 1,
        _ => return None,
    };
    // Further `.N` components.
    while bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end += 1 + bytes[end + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    }
    let number = &rest[..end];
    let after = &rest[end..];
    let after = after.strip_prefix(['.', ':']).unwrap_or(after);
    let lettered = !number.as_bytes()[0].is_ascii_digit();
    let ends_ok = if lettered && kind == RefKind::Any {
        // A bare letter is a number only when a word follows: `A A sample session`, not `A`.
        after.starts_with(' ') && !after.trim_start().is_empty()
    } else {
        after.is_empty() || after.starts_with(char::is_whitespace)
    };
    ends_ok.then(|| (kind, number.to_string()))
}

/// True when a heading among nodes `1..end` has a printed number ([`printed_number`]), i.e. a
/// Markdown document where textual references can resolve.
pub(super) fn any_printed_number(tree: &Tree, end: usize) -> bool {
    let end = end.min(tree.nodes.len());
    tree.nodes
        .get(1..end)
        .is_some_and(|nodes| nodes.iter().any(|n| printed_number(&n.title).is_some()))
}

/// True for a bare letter number (`A`).
fn is_letter(number: &str) -> bool {
    number.len() == 1 && number.as_bytes()[0].is_ascii_uppercase()
}

/// True when a sibling of `id` is numbered by the letter before or after `letter`: appendices
/// come in runs (`A A sample session`, `B Invoking R`), while a lone `A specific example` is a
/// sentence, not appendix A.
fn has_adjacent_letter(tree: &Tree, id: NodeId, letter: &str) -> bool {
    let Some(parent) = tree.node(id).parent else {
        return false;
    };
    let l = letter.as_bytes()[0];
    tree.node(parent).children.iter().any(|s| {
        *s != id
            && printed_number(&tree.node(*s).title).is_some_and(|(k, n)| {
                k == RefKind::Any && is_letter(&n) && n.as_bytes()[0].abs_diff(l) == 1
            })
    })
}

/// The node `section` (as kept in a mention: `section 4.9`, `Chapter 3`, `§2.1`) names in
/// `tree`: the heading whose printed number is that number, of an agreeing keyword (`numbers`;
/// `Chapter 3` is not `Section 3`), else one numbered from a numbered parent by its position.
/// `None` when nothing is (the mention then names the whole document).
pub fn section_node(tree: &Tree, section: &str) -> Option<NodeId> {
    let (kind, number) = match section.strip_prefix('§') {
        Some(number) => (RefKind::Section, number.trim()),
        None => {
            let (keyword, number) = section.split_once(' ')?;
            (RefKind::of_keyword(keyword), number.trim())
        }
    };
    // The build stage appends split parts after the headings.
    let end = (tree.first_split as usize).min(tree.nodes.len());
    NumberIndex::new(tree, end)
        .resolve(tree, kind, number, false)
        .filter(|id| *id != NodeId::ROOT)
}

/// Number → headings, for one document. Built once per document that has textual references.
pub(super) struct NumberIndex {
    /// Numbers printed in titles; first heading in reading order first.
    printed: HashMap<String, Vec<(NodeId, RefKind)>>,
    /// Numbers derived from a numbered parent and the position.
    derived: HashMap<String, NodeId>,
    /// Nodes from here on are `Part N` splits.
    end: usize,
}

impl NumberIndex {
    /// Index the headings `1..end` of `tree` (see the module doc).
    pub(super) fn new(tree: &Tree, end: usize) -> NumberIndex {
        let mut printed: HashMap<String, Vec<(NodeId, RefKind)>> = HashMap::new();
        let mut derived = HashMap::new();
        // Effective number per node (printed, else derived), in preorder parents come first.
        let mut effective: Vec<Option<String>> = vec![None; tree.nodes.len()];
        for id in tree.preorder(NodeId::ROOT).into_iter().skip(1) {
            if id.index() >= end {
                continue;
            }
            let node = tree.node(id);
            let own = printed_number(&node.title).filter(|(kind, number)| {
                *kind != RefKind::Any || !is_letter(number) || has_adjacent_letter(tree, id, number)
            });
            if let Some((kind, number)) = own {
                printed.entry(number.clone()).or_default().push((id, kind));
                effective[id.index()] = Some(number);
            } else if let Some(parent) = node.parent {
                let Some(parent_number) = effective[parent.index()].clone() else {
                    continue;
                };
                let siblings = &tree.node(parent).children;
                let pos = siblings.iter().position(|c| *c == id).unwrap_or(0) + 1;
                let number = format!("{parent_number}.{pos}");
                derived.entry(number.clone()).or_insert(id);
                effective[id.index()] = Some(number);
            }
        }
        NumberIndex {
            printed,
            derived,
            end,
        }
    }

    /// The heading a reference `kind number` names, if any; `see` when "see" came before it.
    pub(super) fn resolve(
        &self,
        tree: &Tree,
        kind: RefKind,
        number: &str,
        see: bool,
    ) -> Option<NodeId> {
        if let Some(list) = self.printed.get(number) {
            if let Some((id, _)) = list.iter().find(|(_, k)| k.accepts(kind)) {
                return Some(*id);
            }
        }
        if let Some(id) = self.derived.get(number) {
            return Some(*id);
        }
        let by_structure = see
            && self.printed.is_empty()
            && !tree.format.is_markup()
            && number.starts_with(|c: char| c.is_ascii_digit());
        by_structure
            .then(|| tree.by_structure(number))
            .flatten()
            .filter(|id| *id != NodeId::ROOT && id.index() < self.end)
    }
}
