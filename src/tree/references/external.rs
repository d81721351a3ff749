//! Links to other documents, resolved when a tree is read against a catalog.
//!
//! At build time a link such as `[guide](GUIDE.md#configuration-file)` is kept as written
//! ([`crate::tree::ExternalLink`]): which indexed document `GUIDE.md` is depends on what else is
//! indexed, and may change without the linking file changing. A reader (`cat`'s `[see also: …]`
//! line) resolves it with [`target_document`] over the catalog's `(doc_id, source)` pairs, then
//! the anchor with [`anchor_node`] over the target's tree.

use std::path::{Component, Path, PathBuf};

use super::slug::Slugger;
use crate::tree::{NodeId, Tree};

/// The document a link to `file` names, written in the document whose source is `from_source`,
/// among `docs` (`(doc_id, source path)` in catalog order). In order:
/// 1. the document at that path relative to the linking document's folder (`..` and `.`
///    resolved lexically);
/// 2. else a document with that file name (ASCII case-insensitive), or a flattened copy of it:
///    linked from `ripgrep__FAQ.md`, `GUIDE.md` names `ripgrep__GUIDE.md` — the linking file's
///    name and the target's share a prefix that ends in `_`, `-` or `.`, followed in the target
///    by the linked file name (how a folder of packages' documents is often flattened, as
///    `../shared/corpus` is). Among several, the one whose source shares the longest folder
///    prefix with the linking document; then the same name over a copy; then catalog order.
///
/// Returns the doc id, or `None` when no document matches (a link to a file that is not
/// indexed).
pub fn target_document<'a>(
    from_source: &str,
    file: &str,
    docs: &[(&'a str, &'a str)],
) -> Option<&'a str> {
    let from = Path::new(from_source);
    let wanted = normalize(&from.parent().unwrap_or(Path::new("")).join(file));
    if let Some((id, _)) = docs.iter().find(|(_, s)| normalize(Path::new(s)) == wanted) {
        return Some(id);
    }
    let name = file_name(file)?.to_ascii_lowercase();
    let from_name = file_name(from_source)?.to_ascii_lowercase();
    // (shared folder prefix, same name rather than a flattened copy): the best wins, then the
    // first in catalog order.
    let mut best: Option<((usize, bool), &str)> = None;
    for (id, s) in docs {
        let Some(target) = file_name(s).map(str::to_ascii_lowercase) else {
            continue;
        };
        let same = target == name;
        let flattened = target.strip_suffix(&name).is_some_and(|prefix| {
            prefix.ends_with(['_', '-', '.']) && from_name.starts_with(prefix)
        });
        if !(same || flattened) {
            continue;
        }
        let key = (shared_prefix(from_source, s), same);
        if best.is_none_or(|(k, _)| key > k) {
            best = Some((key, id));
        }
    }
    best.map(|(_, id)| id)
}

/// The node `anchor` (a link's fragment) names in `tree`: an explicit anchor of the document
/// ([`crate::tree::Links::anchors`]), else the GitHub slug of a heading (repeated titles get
/// `-1`, `-2`… in reading order, as GitHub numbers them; `Part N` splits of the build stage are
/// not headings). Compared as written, then lowercase; GitHub's `user-content-` prefix is
/// ignored. `None` when nothing matches.
pub fn anchor_node(tree: &Tree, anchor: &str) -> Option<NodeId> {
    let anchor = anchor.strip_prefix("user-content-").unwrap_or(anchor);
    let lower = anchor.to_lowercase();
    for want in [anchor, lower.as_str()] {
        if let Some((_, id)) = tree.links.anchors.iter().find(|(a, _)| a == want) {
            return Some(*id);
        }
    }
    let mut slugger = Slugger::default();
    let mut root = None;
    for id in tree.preorder(NodeId::ROOT) {
        let node = tree.node(id);
        if is_split_part(tree, id) {
            continue;
        }
        let slug = slugger.slug(&node.title);
        if slug == anchor || slug == lower {
            if id == NodeId::ROOT {
                // A root is a heading only when the document was rooted at its single h1; any
                // section with the same slug is the better target.
                root = Some(id);
                continue;
            }
            return Some(id);
        }
    }
    root
}

/// A part the build stage split off a large leaf ([`Tree::is_split`]).
pub(super) fn is_split_part(tree: &Tree, id: NodeId) -> bool {
    tree.is_split(id)
}

/// The lookup keys ([`crate::index::cross_refs::lookup_keys`]) of a document whose source is `source`: its path,
/// its file name (ASCII lowercase) and every tail of that name after a `_`, `-` or `.` — so
/// every document [`target_document`] can pick for a link carries one of [`link_keys`].
pub fn source_keys(source: &str) -> Vec<String> {
    let mut keys = vec![source_key(Path::new(source))];
    if let Some(name) = file_name(source).map(str::to_ascii_lowercase) {
        for (i, c) in name.char_indices() {
            if matches!(c, '_' | '-' | '.') && i + 1 < name.len() {
                keys.push(format!("file:{}", &name[i + 1..]));
            }
        }
        keys.push(format!("file:{name}"));
    }
    keys
}

/// The lookup keys to ask the catalog for to resolve a link to `file` written in the document
/// whose source is `from_source` ([`target_document`] then picks among the cards found).
pub fn link_keys(from_source: &str, file: &str) -> Vec<String> {
    let from = Path::new(from_source);
    let mut keys = vec![source_key(
        &from.parent().unwrap_or(Path::new("")).join(file),
    )];
    if let Some(name) = file_name(file) {
        keys.push(format!("file:{}", name.to_ascii_lowercase()));
    }
    keys
}

/// The key of a source path (`src:` + the path with `.` and `..` resolved lexically).
pub fn source_key(path: &Path) -> String {
    format!("src:{}", normalize(path).to_string_lossy())
}

/// The last component of a `/`- or `\`-separated path, if not empty.
fn file_name(path: &str) -> Option<&str> {
    path.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())
}

/// Bytes of the common folder prefix of two paths (up to and including the last shared `/`).
fn shared_prefix(a: &str, b: &str) -> usize {
    let mut last = 0;
    for (i, (x, y)) in a.bytes().zip(b.bytes()).enumerate() {
        if x != y {
            break;
        }
        if x == b'/' || x == b'\\' {
            last = i + 1;
        }
    }
    last
}

/// `path` with `.` removed and `..` applied lexically (no filesystem access).
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCS: &[(&str, &str)] = &[
        ("guide", "/docs/a/GUIDE.md"),
        ("guide-2", "/docs/b/GUIDE.md"),
        ("build", "/docs/a/commandline/build.md"),
        ("ripgrep-guide", "/corpus/ripgrep__GUIDE.md"),
        ("ripgrep-faq", "/corpus/ripgrep__FAQ.md"),
        ("docker-run", "/corpus/docker-doc__run.md"),
    ];

    #[test]
    fn a_link_names_the_file_beside_it_then_by_name_then_a_flattened_copy() {
        let t = |from: &str, file: &str| {
            let all = target_document(from, file, DOCS);
            // The same answer from the documents filed under the link's keys.
            let keys = link_keys(from, file);
            let candidates: Vec<(&str, &str)> = DOCS
                .iter()
                .filter(|(_, source)| source_keys(source).iter().any(|k| keys.contains(k)))
                .copied()
                .collect();
            assert!(candidates.len() < DOCS.len(), "{file}: {keys:?}");
            assert_eq!(target_document(from, file, &candidates), all, "{file}");
            all
        };
        assert_eq!(t("/docs/a/FAQ.md", "GUIDE.md"), Some("guide"));
        assert_eq!(t("/docs/b/FAQ.md", "./GUIDE.md"), Some("guide-2"));
        assert_eq!(t("/docs/b/x/FAQ.md", "../../a/GUIDE.md"), Some("guide"));
        assert_eq!(t("/docs/a/FAQ.md", "commandline/build.md"), Some("build"));
        // Not beside it: by name, the closest folder first.
        assert_eq!(t("/docs/b/deep/FAQ.md", "guide.md"), Some("guide-2"));
        assert_eq!(t("/elsewhere/FAQ.md", "build.md"), Some("build"));
        // Flattened copies share the linking file's prefix.
        assert_eq!(
            t("/corpus/ripgrep__FAQ.md", "GUIDE.md"),
            Some("ripgrep-guide")
        );
        assert_eq!(t("/corpus/ripgrep__FAQ.md", "FAQ.md"), Some("ripgrep-faq"));
        assert_eq!(
            t("/corpus/docker-doc__builder.md", "run.md"),
            Some("docker-run")
        );
        assert_eq!(t("/corpus/other__FAQ.md", "run.md"), None);
        assert_eq!(t("/corpus/ripgrep__FAQ.md", "CHANGELOG.md"), None);
    }
}
