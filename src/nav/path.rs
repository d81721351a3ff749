//! Paths (DESIGN.md §4): `/` is the library, `/doc_id/2/1` a node by child numbers.
//!
//! A segment is `.`, `..`, a child number as printed by `ls`, `#2.1.3` (a node of the current
//! document by its dotted structure), or a title: compared case-insensitively after Unicode NFC
//! normalisation and whitespace collapsing; a unique prefix is enough; an ambiguous prefix is an
//! error listing the candidates, never a silent pick. Titles containing `/` are matched when typed
//! whole (the longest run of segments that equals a child's title wins).

use std::sync::Arc;

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::stats::{NodeStats, StatsCache};
use super::NavError;
use crate::tree::{title_key, NodeId, Tree};
use crate::workspace::{Document, Library};

/// Where a session stands: the library root `/`, or a node of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    /// `/`: the list of documents.
    Root,
    /// A node of a document.
    Node {
        /// Document id.
        doc_id: String,
        /// The node.
        node: NodeId,
    },
}

/// Characters escaped in a doc id inside a URI: all but ASCII letters, digits, `-` `_` `.`.
pub const DOC_ID_IN_URI: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.');

/// The scheme of a section's URI ([`section_uri`]).
pub const SCHEME: &str = "docnav://";

/// [`section_uri`] of the page starting at char `offset`: `docnav://doc_id?offset=N` or
/// `docnav://doc_id/?offset=N#2.1`.
pub fn page_uri(doc_id: &str, structure: &str, offset: usize) -> String {
    let id = utf8_percent_encode(doc_id, DOC_ID_IN_URI);
    if structure.is_empty() {
        format!("{SCHEME}{id}?offset={offset}")
    } else {
        format!("{SCHEME}{id}/?offset={offset}#{structure}")
    }
}

/// A section's URI, parsed ([`parse_uri`]): what an MCP resource read names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRef {
    /// Document id (percent-decoded).
    pub doc_id: String,
    /// Structure number of the section; empty for the whole document.
    pub structure: String,
    /// First char of the text to read.
    pub offset: usize,
}

/// Parse `docnav://DOC_ID[/][?offset=N][#STRUCTURE]`, the inverse of [`section_uri`] and
/// [`page_uri`].
///
/// Errors: the one-line reason for any other shape.
pub fn parse_uri(uri: &str) -> Result<ResourceRef, String> {
    let bad = |why: &str| {
        format!(
            "bad resource URI '{uri}': {why} (expected docnav://DOC_ID or docnav://DOC_ID/#2.1)"
        )
    };
    let rest = uri
        .strip_prefix(SCHEME)
        .ok_or_else(|| bad("not a docnav:// URI"))?;
    let (head, structure) = rest.split_once('#').unwrap_or((rest, ""));
    let (path, query) = head.split_once('?').unwrap_or((head, ""));
    let id = path.strip_suffix('/').unwrap_or(path);
    if id.is_empty() || id.contains('/') {
        return Err(bad("the part after docnav:// must be one document id"));
    }
    let doc_id = percent_decode_str(id)
        .decode_utf8()
        .map_err(|_| bad("the document id is not UTF-8"))?
        .into_owned();
    let mut offset = 0;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("offset", n)) => offset = n.parse().map_err(|_| bad("offset is not a number"))?,
            _ => return Err(bad(&format!("unknown query parameter '{pair}'"))),
        }
    }
    if !structure.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(bad("the fragment must be a structure number such as 2.1"));
    }
    Ok(ResourceRef {
        doc_id,
        structure: structure.to_string(),
        offset,
    })
}

/// The URI of a section, as MCP resources and search results name it: `docnav://doc_id` for the
/// root (`structure` empty), else `docnav://doc_id/#2.1` (the doc id percent-encoded).
pub fn section_uri(doc_id: &str, structure: &str) -> String {
    let id = utf8_percent_encode(doc_id, DOC_ID_IN_URI);
    if structure.is_empty() {
        format!("{SCHEME}{id}")
    } else {
        format!("{SCHEME}{id}/#{structure}")
    }
}

/// The printed path of a node: `/doc_id` followed by its structure numbers (`/guide/2/1`).
pub fn display_path(doc_id: &str, tree: &Tree, node: NodeId) -> String {
    structure_path(doc_id, tree.get(node).map_or("", |n| n.structure.as_str()))
}

/// The printed path of the node with dotted `structure` (`"2.1"`) in `doc_id`: `/guide/2/1`.
pub fn structure_path(doc_id: &str, structure: &str) -> String {
    let mut out = format!("/{doc_id}");
    for part in structure.split('.').filter(|p| !p.is_empty()) {
        out.push('/');
        out.push_str(part);
    }
    out
}

/// Outcome of matching one segment against a list of candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    /// Exactly one candidate (index into the list).
    One(usize),
    /// No candidate matches.
    None,
    /// Several candidates match (indices, in order).
    Ambiguous(Vec<usize>),
}

/// Match `segment` against candidate titles (1-based numbers are their positions): a number in
/// range, else an exact title, else a unique title prefix.
pub fn pick(titles: &[&str], segment: &str) -> Pick {
    let keys: Vec<String> = titles.iter().map(|t| title_key(t)).collect();
    pick_keys(&keys, segment)
}

/// [`pick`] over titles already turned into [`title_key`]s.
pub fn pick_keys<S: AsRef<str>>(keys: &[S], segment: &str) -> Pick {
    if let Ok(n) = segment.parse::<usize>() {
        if (1..=keys.len()).contains(&n) {
            return Pick::One(n - 1);
        }
    }
    let want = title_key(segment);
    if want.is_empty() {
        return Pick::None;
    }
    let exact: Vec<usize> = (0..keys.len())
        .filter(|&i| keys[i].as_ref() == want)
        .collect();
    let found = if exact.is_empty() {
        (0..keys.len())
            .filter(|&i| keys[i].as_ref().starts_with(&want))
            .collect()
    } else {
        exact
    };
    match found.len() {
        0 => Pick::None,
        1 => Pick::One(found[0]),
        _ => Pick::Ambiguous(found),
    }
}

/// A resolved position with its document loaded.
#[derive(Clone)]
pub enum Place {
    /// `/`.
    Root,
    /// A node of a loaded document.
    Node {
        /// Document id.
        doc_id: String,
        /// The document.
        doc: Arc<Document>,
        /// The node.
        node: NodeId,
    },
}

impl Place {
    /// The printed path (`/` or `/doc_id/2/1`).
    pub fn path(&self) -> String {
        match self {
            Place::Root => "/".into(),
            Place::Node { doc_id, doc, node } => display_path(doc_id, &doc.tree, *node),
        }
    }

    /// The cursor of this place.
    pub fn cursor(&self) -> Cursor {
        match self {
            Place::Root => Cursor::Root,
            Place::Node { doc_id, node, .. } => Cursor::Node {
                doc_id: doc_id.clone(),
                node: *node,
            },
        }
    }
}

/// Load the place a cursor points at.
///
/// Errors: [`NavError::Workspace`] when the document cannot be loaded.
pub fn place_of(library: &dyn Library, cursor: &Cursor) -> Result<Place, NavError> {
    match cursor {
        Cursor::Root => Ok(Place::Root),
        Cursor::Node { doc_id, node } => {
            let doc = load(library, doc_id)?;
            let node = if doc.tree.get(*node).is_some() {
                *node
            } else {
                NodeId::ROOT
            };
            Ok(Place::Node {
                doc_id: doc_id.clone(),
                doc,
                node,
            })
        }
    }
}

/// Load a document, mapping failures to [`NavError::Workspace`].
pub fn load(library: &dyn Library, doc_id: &str) -> Result<Arc<Document>, NavError> {
    library
        .document(doc_id)
        .map_err(|source| NavError::Workspace {
            doc_id: doc_id.to_string(),
            source,
        })
}

/// Resolve `path` from `from`. The inner `Err` is a fixable message without the command prefix,
/// e.g. `no child 'x' under /guide/2 (try ls)`.
///
/// Errors (outer): [`NavError::Workspace`] when a document cannot be loaded.
pub fn resolve(
    library: &dyn Library,
    cache: &StatsCache,
    from: &Cursor,
    path: &str,
) -> Result<Result<Place, String>, NavError> {
    let (mut place, rest) = match path.strip_prefix('/') {
        Some(rest) => (Place::Root, rest),
        None => (place_of(library, from)?, path),
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let mut i = 0;
    while i < segments.len() {
        let seg = segments[i];
        i += 1;
        match seg {
            "" | "." => continue,
            ".." => {
                place = match place {
                    Place::Root => Place::Root,
                    Place::Node { doc_id, doc, node } => match doc.tree.node(node).parent {
                        Some(parent) => Place::Node {
                            doc_id,
                            doc,
                            node: parent,
                        },
                        None => Place::Root,
                    },
                };
                continue;
            }
            _ => {}
        }
        place = match place {
            Place::Root => match step_root(library, seg)? {
                Ok(p) => p,
                Err(msg) => return Ok(Err(msg)),
            },
            Place::Node { doc_id, doc, node } => {
                if let Some(structure) = seg.strip_prefix('#') {
                    match doc.tree.by_structure(structure) {
                        Some(found) => Place::Node {
                            doc_id,
                            doc,
                            node: found,
                        },
                        None => {
                            return Ok(Err(format!(
                                "no node '#{structure}' in /{doc_id} (try tree /{doc_id})"
                            )))
                        }
                    }
                } else {
                    let stats = cache.get(&doc_id, &doc);
                    let step = step_node(&doc.tree, &stats, node, &segments[i - 1..]);
                    let (found, used) = match step {
                        Ok(found) => found,
                        Err(why) => {
                            let here = display_path(&doc_id, &doc.tree, node);
                            return Ok(Err(why.message(seg, &here)));
                        }
                    };
                    i += used - 1;
                    Place::Node {
                        doc_id,
                        doc,
                        node: found,
                    }
                }
            }
        };
    }
    Ok(Ok(place))
}

/// Why a segment did not resolve.
enum Miss {
    None,
    Ambiguous(Vec<String>),
}

impl Miss {
    fn message(self, seg: &str, here: &str) -> String {
        match self {
            Miss::None => format!("no child '{seg}' under {here} (try ls)"),
            Miss::Ambiguous(c) => format!(
                "'{seg}' is ambiguous under {here}: {} (use the number or more of the title)",
                c.join(", ")
            ),
        }
    }
}

/// One step below a node. Returns the child and how many segments it used (titles with `/`).
fn step_node(
    tree: &Tree,
    stats: &NodeStats,
    node: NodeId,
    segments: &[&str],
) -> Result<(NodeId, usize), Miss> {
    let children = &tree.node(node).children;
    let keys: Vec<&str> = children
        .iter()
        .map(|c| stats.keys[c.index()].as_str())
        .collect();
    let numbered = segments[0]
        .parse::<usize>()
        .is_ok_and(|n| (1..=children.len()).contains(&n));
    if !numbered && segments.len() > 1 && keys.iter().any(|k| k.contains('/')) {
        for take in (2..=segments.len()).rev() {
            let joined = title_key(&segments[..take].join("/"));
            if let Some(pos) = keys.iter().position(|k| *k == joined) {
                return Ok((children[pos], take));
            }
        }
    }
    match pick_keys(&keys, segments[0]) {
        Pick::One(i) => Ok((children[i], 1)),
        Pick::None => Err(Miss::None),
        Pick::Ambiguous(found) => Err(Miss::Ambiguous(
            found
                .into_iter()
                .map(|i| format!("{}. {}", i + 1, tree.node(children[i]).title))
                .collect(),
        )),
    }
}

/// One step below `/`: a document by number, id (exact, an alias of it, or a unique prefix) or
/// title.
fn step_root(library: &dyn Library, seg: &str) -> Result<Result<Place, String>, NavError> {
    if seg.starts_with('#') {
        return Ok(Err(format!(
            "'{seg}' needs a document: cd into one first (try ls /)"
        )));
    }
    // Asked of the catalog in this order, each step reading only what it needs: a
    // number, an id, an id prefix (ids are slugs: their title keys are themselves), and only
    // then the titles, which take a walk of the catalog.
    let key = title_key(seg);
    let mut found: Vec<String> = Vec::new();
    if let Ok(n) = seg.parse::<usize>() {
        if n >= 1 {
            if let Some(card) = library.cards_page(n - 1, 1).pop() {
                found.push(card.doc_id.clone());
            }
        }
    }
    if found.is_empty() && !key.is_empty() {
        // An id, or an alias (a source kept once, its text that of a document): the place is
        // the document's, and paths printed from it name the document's id.
        if let Some(doc_id) = library.resolve_id(&key) {
            found.push(doc_id);
        } else {
            found = library
                .cards_with_id_prefix(&key, AMBIGUOUS_SHOWN)
                .iter()
                .map(|c| c.doc_id.clone())
                .collect();
        }
        if found.is_empty() {
            let mut exact = Vec::new();
            library.for_each_card(&mut |card| {
                let title = title_key(&card.title);
                if title == key {
                    exact.push(card.doc_id.clone());
                } else if title.starts_with(&key) && found.len() < AMBIGUOUS_SHOWN {
                    found.push(card.doc_id.clone());
                }
                std::ops::ControlFlow::Continue(())
            });
            if !exact.is_empty() {
                found = exact;
            }
        }
    }
    match found.as_slice() {
        [] => Ok(Err(format!("no document '{seg}' under / (try ls /)"))),
        [doc_id] => {
            let doc_id = doc_id.clone();
            let doc = load(library, &doc_id)?;
            Ok(Ok(Place::Node {
                doc_id,
                doc,
                node: NodeId::ROOT,
            }))
        }
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|id| match library.card_position(id) {
                    Some(i) => format!("{}. {id}", i + 1),
                    None => id.clone(),
                })
                .collect();
            Ok(Err(format!(
                "'{seg}' is ambiguous under /: {} (use the number or more of the name)",
                names.join(", ")
            )))
        }
    }
}

/// Most documents an ambiguous `cd` under `/` names.
const AMBIGUOUS_SHOWN: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_prefers_numbers_then_exact_then_unique_prefix() {
        let titles = ["Café crème", "Café noir", "Café", "インストール", "2024"];
        assert_eq!(pick(&titles, "2"), Pick::One(1));
        assert_eq!(pick(&titles, "café"), Pick::One(2));
        assert_eq!(pick(&titles, "CAFÉ N"), Pick::One(1));
        assert_eq!(pick(&titles, "caf"), Pick::Ambiguous(vec![0, 1, 2]));
        assert_eq!(pick(&titles, "イン"), Pick::One(3));
        assert_eq!(pick(&titles, "2024"), Pick::One(4));
        assert_eq!(pick(&titles, "9"), Pick::None);
        assert_eq!(pick(&titles, ""), Pick::None);
        // NFD input (e + combining acute) matches the NFC title.
        assert_eq!(pick(&titles, "cafe\u{301} noir"), Pick::One(1));
    }

    #[test]
    fn uris_round_trip_with_escaped_ids_offsets_and_sections() {
        assert_eq!(section_uri("guide", ""), "docnav://guide");
        assert_eq!(section_uri("guide", "2.1"), "docnav://guide/#2.1");
        assert_eq!(section_uri("café", "1"), "docnav://caf%C3%A9/#1");
        for (uri, id, s, o) in [
            ("docnav://guide", "guide", "", 0),
            ("docnav://guide/", "guide", "", 0),
            ("docnav://guide/#2.1", "guide", "2.1", 0),
            ("docnav://caf%C3%A9/#1", "café", "1", 0),
            ("docnav://guide/?offset=400#2.1", "guide", "2.1", 400),
            ("docnav://guide?offset=7", "guide", "", 7),
        ] {
            let r = parse_uri(uri).unwrap();
            assert_eq!(
                (r.doc_id.as_str(), r.structure.as_str(), r.offset),
                (id, s, o),
                "{uri}"
            );
        }
        assert_eq!(
            parse_uri(&page_uri("guide", "2.1", 400)).unwrap().offset,
            400
        );
        for bad in [
            "file:///x",
            "docnav://",
            "docnav://a/b",
            "docnav://a?offset=x",
            "docnav://a?size=1",
            "docnav://a/#intro",
        ] {
            let err = parse_uri(bad).unwrap_err();
            assert!(
                err.starts_with(&format!("bad resource URI '{bad}'")),
                "{err}"
            );
        }
    }
}
