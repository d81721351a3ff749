//! Cross-references between sections: fills [`Node::references`](super::Node::references)
//! (DESIGN.md §1) during the build stage.
//!
//! Two kinds of mention in a node's own `content` are resolved:
//! - **Links to headings** (Markdown only, outside code fences): `[text](#anchor)`, reference
//!   links `[text][label]` / `[label][]` with a local `[label]: #anchor` (shortcut `[label]`
//!   links are not followed), and `href="#anchor"`. The anchor is looked up among explicit anchors (`<h3 name="config">`,
//!   `{#id}` attribute lists, `<a name="x">`/`id="x"` tags inside a section) and GitHub heading
//!   slugs ([`Slugger`]).
//! - **Textual cross-references** (every format): `see Section 2.1`, `Section 2.1`, `§2.1`,
//!   `see Chapter 3`, `Appendix A` (`textual` says which count), resolved by `numbers` to the
//!   heading whose printed number is that number; and headings named by title as man pages do,
//!   `(see INVOCATION below)`, resolved to the heading with exactly that title (the next one
//!   after the mention for `below`, the last one before it for `above`).
//!
//! A node never references itself (nor a `Part N` split its parent); each target is kept once,
//! in order of first mention. Unresolvable mentions are dropped silently.
//!
//! **Links to other files** (`[guide](GUIDE.md#configuration-file)`, a reference definition or an
//! `href` naming a `.md`/`.markdown`/`.txt`/`.pdf` path without a scheme) cannot be resolved here:
//! which indexed document a file is, and which heading its anchor names, depends on the catalog
//! the tree is read with. They are kept in [`Tree::links`](super::Tree::links) with the document's
//! explicit anchors, and resolved when read ([`external`]).
//!
//! **Other documents named in the text** (`except those listed in FHS, section 4.9`, `see
//! ‘An Introduction to R’`) are the same case: found in every format (`cited`), kept as written
//! in [`Links::named`](super::Links::named), and resolved when read against the catalog's
//! titles, acronyms, file names and title pages ([`crate::index::cross_refs::named`]).
//!
//! Cost: one [`regex`] scan per kind over each node's content, with literal prefilters (GB/s on
//! text without mentions; see `scan`); slugs and number tables are built only for documents
//! with mentions. It must stay a small share of parse + build + keyword index + card:
//! `reference_resolution_cost` (`tests/suite/references.rs`) measures both over the corpus
//! Markdown (the figures: the benchmark history, docs/src/benchmarks-history.md, "Indexing").

mod cited;
pub mod external;
mod numbers;
mod scan;
mod slug;
mod textual;

use std::collections::{HashMap, HashSet};

pub use cited::GENERIC_NOUNS;
pub use numbers::{printed_number, section_node, RefKind};
pub use slug::{github_slug, Slugger};

use super::{DocFormat, ExternalLink, NodeId, Tree};
use crate::parse::RawLink;

/// Which nodes of a freshly built tree are headings, and their explicit anchors.
#[derive(Debug, Clone, Default)]
pub struct HeadingNodes {
    /// Nodes `1..end` are headings (or PDF outline entries, or text headings); nodes from `end`
    /// on are synthetic `Part N` splits, never targets of a reference.
    pub end: usize,
    /// True when the root is itself a heading (a Markdown document rooted at its only h1), so it
    /// has a slug.
    pub root_is_heading: bool,
    /// Explicit anchor per node id below `end` (see [`crate::parse::RawSection::anchor`]).
    pub anchors: Vec<Option<String>>,
    /// Link targets inside sections that the parser found (HTML ids, see
    /// [`crate::parse::RawSection::ids`]) and the node each names; Markdown's are found in
    /// the text instead.
    pub section_anchors: Vec<(String, NodeId)>,
    /// Links the parser found (see [`crate::parse::RawSection::links`]) and the node whose
    /// text holds each, in reading order.
    pub links: Vec<(NodeId, RawLink)>,
}

/// A mention found in a node's content, before resolution.
#[derive(Debug, Clone)]
enum Mention {
    /// A link to `#fragment` (percent-decoded).
    Link(String),
    /// A link to another file (path and fragment percent-decoded).
    External {
        file: String,
        anchor: Option<String>,
    },
    /// `Section 2.1`, `Chapter 3`, `§4`, `Appendix A`; `see` when "see" came before it.
    Numbered {
        kind: RefKind,
        number: String,
        see: bool,
    },
    /// `see INVOCATION below`: a heading by its exact title, looked for after the mention
    /// (`below`) or before it.
    Titled { title: String, below: bool },
}

/// Fill `references` of every node of `tree` and `tree.links` (replacing what was there); never
/// fails.
pub fn resolve_references(tree: &mut Tree, headings: &HeadingNodes) {
    let markdown = tree.format == DocFormat::Markdown;
    // Textual references in marked-up documents resolve only to printed numbers (see
    // `numbers`): without numbered headings there is nothing to scan for.
    let textual = !tree.format.is_markup() || numbers::any_printed_number(tree, headings.end);
    let scan::Scanned {
        mut mentions,
        mut anchors,
    } = scan::scan(tree, headings, markdown, textual);
    for (name, node) in &headings.section_anchors {
        anchors.entry(name.clone()).or_insert(*node);
    }
    // After every textual mention of its node: the parser gives no offsets, only the order.
    for (i, (node, link)) in headings.links.iter().enumerate() {
        let at = usize::MAX / 2 + i;
        let mention = match (&link.file, &link.anchor) {
            (Some(file), anchor) => Mention::External {
                file: file.clone(),
                anchor: anchor.clone(),
            },
            (None, Some(anchor)) => Mention::Link(anchor.clone()),
            (None, None) => continue,
        };
        mentions.push((*node, at, mention));
    }
    for node in &mut tree.nodes {
        node.references.clear();
    }
    tree.links = super::Links {
        external: Vec::new(),
        anchors: explicit_anchors(headings, &anchors),
        named: cited::scan(tree, markdown),
    };
    if mentions.is_empty() {
        return;
    }
    mentions.sort_by_key(|(node, at, _)| (*node, *at));
    let mut links = LinkTargets::new(tree, headings, anchors);
    let mut numbered = None;
    let mut external: Vec<ExternalLink> = Vec::new();
    let mut titled: Option<HashMap<&str, Vec<NodeId>>> = None;
    let mut pairs: Vec<(NodeId, NodeId)> = Vec::with_capacity(mentions.len());
    for (from, _, mention) in &mentions {
        // A `Part N` split stands for its parent: pointing there is pointing at itself.
        let owner = match tree.node(*from).parent {
            Some(parent) if from.index() >= headings.end => parent,
            _ => *from,
        };
        let target = match mention {
            Mention::External { file, anchor } => {
                let link = ExternalLink {
                    from: *from,
                    file: file.clone(),
                    anchor: anchor.clone(),
                };
                if !external.contains(&link) {
                    external.push(link);
                }
                continue;
            }
            Mention::Link(fragment) => links.resolve(fragment),
            Mention::Numbered { kind, number, see } => numbered
                .get_or_insert_with(|| numbers::NumberIndex::new(tree, headings.end))
                .resolve(tree, *kind, number, *see),
            Mention::Titled { title, below } => {
                let by_title = titled.get_or_insert_with(|| {
                    let mut map: HashMap<&str, Vec<NodeId>> = HashMap::new();
                    for (i, node) in tree.nodes.iter().enumerate().take(headings.end).skip(1) {
                        let id = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
                        map.entry(node.title.as_str()).or_default().push(id);
                    }
                    map
                });
                by_title.get(title.as_str()).and_then(|ids| {
                    let after = ids.iter().find(|id| id.index() > owner.index());
                    let before = ids.iter().rev().find(|id| id.index() < owner.index());
                    let near = if *below { after } else { before };
                    near.or(ids.first()).copied()
                })
            }
        };
        // `Chapter 22` without "see" inside section 22.31 is a running page header.
        let header = matches!(mention, Mention::Numbered { see: false, .. });
        let target = target.filter(|to| !(header && tree.is_ancestor_or_self(*to, owner)));
        if let Some(to) = target.filter(|to| *to != owner) {
            pairs.push((*from, to));
        }
    }
    let mut seen: HashSet<(NodeId, NodeId)> = HashSet::with_capacity(pairs.len());
    for (from, to) in pairs {
        if seen.insert((from, to)) {
            tree.nodes[from.index()].references.push(to);
        }
    }
    tree.links.external = external;
}

/// The explicit anchors of a document: its headings' (`{#id}`, `<h3 name>`), in node order, then
/// those written inside sections (`<a name="x">`), sorted by name.
fn explicit_anchors(
    headings: &HeadingNodes,
    in_sections: &HashMap<String, NodeId>,
) -> Vec<(String, NodeId)> {
    let first = usize::from(!headings.root_is_heading);
    let mut out: Vec<(String, NodeId)> = headings
        .anchors
        .iter()
        .enumerate()
        .skip(first)
        .filter_map(|(i, a)| {
            let id = NodeId(u32::try_from(i).ok()?);
            a.clone().map(|a| (a, id))
        })
        .collect();
    let mut tags: Vec<(&String, &NodeId)> = in_sections.iter().collect();
    tags.sort();
    for (name, id) in tags {
        if !out.iter().any(|(a, _)| a == name) {
            out.push((name.clone(), *id));
        }
    }
    out
}

/// Link fragment → node: explicit anchors first, then GitHub slugs of the headings (built on
/// first use).
struct LinkTargets<'t> {
    tree: &'t Tree,
    headings: &'t HeadingNodes,
    anchors: HashMap<String, NodeId>,
    slugs_built: bool,
}

impl<'t> LinkTargets<'t> {
    fn new(tree: &'t Tree, headings: &'t HeadingNodes, anchors: HashMap<String, NodeId>) -> Self {
        LinkTargets {
            tree,
            headings,
            anchors,
            slugs_built: false,
        }
    }

    fn build_slugs(&mut self) {
        self.slugs_built = true;
        let first = if self.headings.root_is_heading { 0 } else { 1 };
        // Explicit heading anchors beat in-section tags and slugs.
        for (i, anchor) in self.headings.anchors.iter().enumerate().skip(first) {
            if let Some(a) = anchor {
                self.anchors
                    .insert(a.clone(), NodeId(u32::try_from(i).unwrap_or(u32::MAX)));
            }
        }
        let mut slugger = Slugger::default();
        let end = self.headings.end.min(self.tree.nodes.len());
        for i in first..end {
            let slug = slugger.slug(&self.tree.nodes[i].title);
            let id = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
            self.anchors.entry(slug).or_insert(id);
        }
    }

    fn resolve(&mut self, fragment: &str) -> Option<NodeId> {
        if !self.slugs_built {
            self.build_slugs();
        }
        let fragment = fragment.strip_prefix("user-content-").unwrap_or(fragment);
        self.anchors
            .get(fragment)
            .or_else(|| self.anchors.get(&fragment.to_lowercase()))
            .copied()
    }
}

#[cfg(test)]
mod tests;
