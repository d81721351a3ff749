//! Finding mentions: the regexes and the checks a regex cannot express (fences, tag context,
//! definition lines). See the parent module for what counts as a reference.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::textual::textual;
use super::{HeadingNodes, Mention};
use crate::tree::{NodeId, Tree};

/// Textual references. The keyword is matched here; "see", the word boundary before it and the
/// line position are checked in [`textual`], which is cheaper than a regex prefix on "see".
/// The second alternative is a heading named by its title, as man pages cite their sections:
/// `(see INVOCATION below)`, `under Shell Variables below`.
pub(super) const TEXTUAL: &str = concat!(
    r"(?P<kw>Sections?|Chapters?|Appendix|section|chapter|appendix|§)[ \t\r\n]*",
    r"(?P<num>[0-9]+(?:\.[0-9]+)*|[A-Z](?:\.[0-9]+)*)(?-u:\b)",
    r"|(?:[Ss]ee|under)[ \t\r\n]+(?P<title>[A-Z][A-Za-z_]*(?:[ \t\r\n]+[A-Z][A-Za-z_]*){0,5})",
    r"[ \t\r\n]+(?P<dir>below|above)(?-u:\b)",
);

/// Markdown links and anchors. Every alternative starts with a literal (`](`, `]:`, `href`,
/// `id="`, …) so the regex crate skips to candidates with a literal prefilter instead of running
/// its automaton over every byte; what a literal cannot say (a definition starts its line, an
/// `id=` sits inside a tag) is checked by hand. Kept apart from [`TEXTUAL`]: a prefilter over
/// all the literals of both is slower than two scans with few literals each, one after another.
///
/// Links to another document are the `x`-prefixed groups: a relative path without a
/// scheme (no `:`) ending in a document extension, with an optional fragment
/// (`[guide](GUIDE.md#configuration-file)`, `[x]: errors.md#common-system-errors`,
/// `href="run.md"`); the character after the target must end it, so `GUIDE.md.bak` is not one.
pub(super) const LINKS: &str = concat!(
    r"\]\([ \t]*<?#(?P<link>[^)\s>]+)",
    r"|\]:[ \t]*<?#(?P<def>[^\s>]+)",
    r#"|href[ \t]*=[ \t]*["']?#(?P<href>[^"'\s>]+)"#,
    r#"|(?:id|name)=["'](?P<anchor>[^"'\s>]+)"#,
    r"|\]\([ \t]*<?(?P<xlink>[^)\s>#:]+\.(?i:md|markdown|txt|pdf))(?:#(?P<xlinkfrag>[^)\s>]*))?[)\s>]",
    r"|\]:[ \t]*<?(?P<xdef>[^\s>#:]+\.(?i:md|markdown|txt|pdf))(?:#(?P<xdeffrag>[^\s>]*))?(?:[\s>]|\z)",
    r#"|href[ \t]*=[ \t]*["']?(?P<xhref>[^"'\s>#:]+\.(?i:md|markdown|txt|pdf))(?:#(?P<xhreffrag>[^"'\s>]*))?["'\s>]"#,
);

/// Reference-style link uses `[text][label]` and `[label][]`, found by their `][` (the text
/// before it is read by hand, [`link_text_before`]). Scanned only in documents that define local
/// labels (`[x]: #frag`). Shortcut links (`[label]` alone) are not followed: matching every
/// bracket pair would cost more than they are worth for in-document anchors.
pub(super) const REFERENCE_USE: &str = r"\]\[(?P<label>[^\[\]\n]*)\]";

pub(super) static TEXTUAL_RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(TEXTUAL).ok());
pub(super) static LINKS_RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(LINKS).ok());
pub(super) static REFERENCE_USE_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(REFERENCE_USE).ok());

/// What a scan of one document found.
pub(super) struct Scanned {
    /// `(node, byte offset in its content, mention)`, unsorted.
    pub(super) mentions: Vec<(NodeId, usize, Mention)>,
    /// Explicit anchors written inside sections (`<a name="x">`) → the node they stand for; the
    /// first definition wins.
    pub(super) anchors: HashMap<String, NodeId>,
}

/// Scan every node's content: Markdown links (when `markdown`) and textual references (when
/// `textual_refs`). Matches inside Markdown code fences are skipped.
pub(super) fn scan(
    tree: &Tree,
    headings: &HeadingNodes,
    markdown: bool,
    textual_refs: bool,
) -> Scanned {
    let mut out = Scanned {
        mentions: Vec::new(),
        anchors: HashMap::new(),
    };
    // Reference definitions `[label]: #fragment` (or another document), label normalised.
    let mut definitions: HashMap<String, Mention> = HashMap::new();
    // Fence ranges per node, computed for nodes with a candidate only.
    let mut fences: Vec<Option<Vec<Range<usize>>>> = vec![None; tree.nodes.len()];
    let scans = [(markdown, &LINKS_RE), (textual_refs, &TEXTUAL_RE)];
    for re in scans
        .iter()
        .filter(|(on, _)| *on)
        .filter_map(|(_, re)| re.as_ref())
    {
        for (i, node) in tree.nodes.iter().enumerate() {
            let id = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
            let content = node.content.as_str();
            for caps in re.captures_iter(content) {
                let Some(found) = classify(&caps, content, i, headings) else {
                    continue;
                };
                // Checked last: fence ranges are computed only for nodes with a real find.
                if markdown && in_fence(&mut fences[i], content, found.at) {
                    continue;
                }
                match found.what {
                    What::Anchor(name, target) => {
                        out.anchors.entry(name).or_insert(target);
                    }
                    What::Definition(label, target) => {
                        definitions.entry(label).or_insert(target);
                    }
                    What::Mention(mention) => out.mentions.push((id, found.at, mention)),
                }
            }
        }
    }
    if !definitions.is_empty() {
        reference_uses(tree, &definitions, &mut fences, &mut out.mentions);
    }
    out
}

/// One regex match that survived its context checks, at byte `at` of its node's content.
struct Found {
    at: usize,
    what: What,
}

enum What {
    /// An explicit anchor and the node it stands for.
    Anchor(String, NodeId),
    /// A reference definition: normalised label, and the link it stands for
    /// ([`Mention::Link`] or [`Mention::External`]).
    Definition(String, Mention),
    /// A link or textual reference.
    Mention(Mention),
}

/// What a match of [`LINKS`] or [`TEXTUAL`] in node `i`'s `content` is, if anything.
fn classify(
    caps: &Captures<'_>,
    content: &str,
    i: usize,
    headings: &HeadingNodes,
) -> Option<Found> {
    let at = caps.get(0)?.start();
    let what = if let Some(name) = caps.name("anchor") {
        if !inside_tag(content, at) {
            return None;
        }
        let target = anchor_target(content, at, name.end(), i, headings);
        What::Anchor(name.as_str().to_string(), target)
    } else if let Some(def) = caps.name("def") {
        let label = definition_label(content, at)?;
        let target = Mention::Link(percent_decode(def.as_str()));
        What::Definition(normalize_label(label), target)
    } else if let Some(def) = caps.name("xdef") {
        let label = definition_label(content, at)?;
        let target = external(def.as_str(), caps.name("xdeffrag").map(|m| m.as_str()));
        What::Definition(normalize_label(label), target)
    } else if let Some(m) = caps.name("link").or_else(|| caps.name("href")) {
        What::Mention(Mention::Link(percent_decode(m.as_str())))
    } else if let Some(m) = caps.name("xlink") {
        What::Mention(external(
            m.as_str(),
            caps.name("xlinkfrag").map(|m| m.as_str()),
        ))
    } else if let Some(m) = caps.name("xhref") {
        What::Mention(external(
            m.as_str(),
            caps.name("xhreffrag").map(|m| m.as_str()),
        ))
    } else {
        What::Mention(textual(content, caps)?)
    };
    Some(Found { at, what })
}

/// A link to another document: its path and fragment, percent-decoded (an empty fragment is
/// none).
fn external(file: &str, fragment: Option<&str>) -> Mention {
    Mention::External {
        file: percent_decode(file),
        anchor: fragment.filter(|f| !f.is_empty()).map(percent_decode),
    }
}

/// Add the link (a [`Mention::Link`] or [`Mention::External`]) of every reference-style link use
/// whose label is defined in the document.
fn reference_uses(
    tree: &Tree,
    definitions: &HashMap<String, Mention>,
    fences: &mut [Option<Vec<Range<usize>>>],
    mentions: &mut Vec<(NodeId, usize, Mention)>,
) {
    let Some(re) = REFERENCE_USE_RE.as_ref() else {
        return;
    };
    for (i, node) in tree.nodes.iter().enumerate() {
        let id = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
        let content = node.content.as_str();
        for caps in re.captures_iter(content) {
            let (Some(whole), Some(label)) = (caps.get(0), caps.name("label")) else {
                continue;
            };
            let Some((start, text)) = link_text_before(content, whole.start()) else {
                continue;
            };
            let label = if label.as_str().trim().is_empty() {
                text
            } else {
                label.as_str()
            };
            let Some(target) = definitions.get(&normalize_label(label)) else {
                continue;
            };
            if in_fence(&mut fences[i], content, start) {
                continue;
            }
            mentions.push((id, start, target.clone()));
        }
    }
}

/// The `[text]` whose `]` is at byte `close`: its `[` offset and the text, with one level of
/// nested brackets (`[![img](x)]`); `None` when no `[` opens it on the same line.
fn link_text_before(content: &str, close: usize) -> Option<(usize, &str)> {
    let bytes = content.as_bytes();
    let mut depth = 0usize;
    for at in (0..close).rev() {
        match bytes[at] {
            b'\n' => return None,
            b']' => depth += 1,
            b'[' if depth == 0 => return Some((at, &content[at + 1..close])),
            b'[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The label of a reference definition whose `]:` is at byte `at`: the line must read
/// `[label]:` after at most 3 spaces (CommonMark); `None` otherwise.
fn definition_label(content: &str, at: usize) -> Option<&str> {
    let line_start = content[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &content[line_start..at];
    let indent = line.len() - line.trim_start_matches(' ').len();
    let label = line[indent..].strip_prefix('[')?;
    (indent <= 3 && !label.is_empty() && !label.contains([']', '['])).then_some(label)
}

/// True when the `id=`/`name=` at byte `at` is an attribute of an HTML tag: whitespace before
/// it, and an unclosed `<tag` earlier on the way back (looking back at most 512 bytes).
fn inside_tag(content: &str, at: usize) -> bool {
    let before = &content[..at];
    if !before.ends_with(char::is_whitespace) {
        return false;
    }
    let mut from = at.saturating_sub(512);
    while !content.is_char_boundary(from) {
        from += 1;
    }
    let window = &content[from..at];
    match window.rfind('<') {
        Some(lt) => {
            !window[lt..].contains('>')
                && window[lt + 1..].starts_with(|c: char| c.is_ascii_alphabetic())
        }
        None => false,
    }
}

/// CommonMark label matching: case-insensitive, inner whitespace collapsed.
fn normalize_label(label: &str) -> String {
    crate::tree::normalize_title(label)
}

/// True when byte `at` of Markdown `content` is inside a fenced code block; the fence ranges are
/// computed on first use and kept in `cache`.
fn in_fence(cache: &mut Option<Vec<Range<usize>>>, content: &str, at: usize) -> bool {
    cache
        .get_or_insert_with(|| fenced_ranges(content))
        .iter()
        .any(|r| r.contains(&at))
}

/// The node an explicit anchor tag at byte `start` of node `i`'s content stands for: the node
/// itself, or the next heading when the tag sits alone on the last non-blank line (the common
/// `<a name="x"></a>` right above a heading).
fn anchor_target(
    content: &str,
    start: usize,
    end: usize,
    i: usize,
    headings: &HeadingNodes,
) -> NodeId {
    let line_start = content[..start].rfind('\n').map_or(0, |p| p + 1);
    let line_end = content[end..].find('\n').map_or(content.len(), |p| end + p);
    let line = content[line_start..line_end].trim();
    let alone = line.starts_with('<') && line.ends_with('>');
    let last = content[line_end..].trim().is_empty();
    let next = i + 1;
    let target = if alone && last && i < headings.end && next < headings.end {
        next
    } else {
        i
    };
    NodeId(u32::try_from(target).unwrap_or(u32::MAX))
}

/// Byte ranges of fenced code blocks (``` or ~~~) in Markdown `content`, fence lines included.
pub(super) fn fenced_ranges(content: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize, usize)> = None;
    let mut offset = 0;
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some((c, n)) = crate::tree::fence::fence_marker(trimmed) {
            match open {
                None => open = Some((c, n, offset)),
                Some((oc, on, start)) if c == oc && n >= on && trimmed.trim().len() == n => {
                    out.push(start..offset + line.len());
                    open = None;
                }
                Some(_) => {}
            }
        }
        offset += line.len();
    }
    if let Some((_, _, start)) = open {
        out.push(start..content.len());
    }
    out
}

/// Decode `%XX` escapes of a URL fragment; the input unchanged when they do not form UTF-8.
fn percent_decode(fragment: &str) -> String {
    percent_encoding::percent_decode_str(fragment)
        .decode_utf8()
        .map_or_else(|_| fragment.to_string(), |s| s.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile() {
        assert!(TEXTUAL_RE.is_some() && LINKS_RE.is_some() && REFERENCE_USE_RE.is_some());
    }

    #[test]
    fn fragments_fences_definitions_and_tags() {
        assert_eq!(percent_decode("%E4%B8%AD-x"), "中-x");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%FF"), "%FF");
        let md = "a\n```\n[x](#y)\n```\nb\n~~~~\nunclosed";
        assert_eq!(fenced_ranges(md), vec![2..18, 20..md.len()]);
        let defs = "[a b]: #x\n    [code]: #y\n";
        assert_eq!(definition_label(defs, 4), Some("a b"));
        assert_eq!(definition_label(defs, 19), None);
        let text = "x [a [b] c][] y [z]\n]";
        assert_eq!(link_text_before(text, 10), Some((2, "a [b] c")));
        assert_eq!(link_text_before(text, text.len() - 1), None);
        let html = "<a name=\"q\"></a> and name=\"p\" and <span\n  id=\"t\">";
        assert!(inside_tag(html, 3));
        assert!(!inside_tag(html, html.find("name=\"p").unwrap()));
        assert!(inside_tag(html, html.find("id=").unwrap()));
    }
}
