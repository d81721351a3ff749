//! The web app's URLs, built here from doc ids, structure numbers and trace names — never taken
//! from a document: the Reader's for a section or an evidence span, a trace's timeline.

use crate::agent::evidence::Evidence;
use crate::tree::NodeId;
use crate::workspace::Library;

/// Percent-encode a path segment: all but ASCII letters, digits, `-`, `_` and `.` (doc ids are
/// slugs and trace names are checked, but nothing is assumed).
pub fn segment(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, crate::nav::path::DOC_ID_IN_URI).to_string()
}

/// The Reader's URL for `evidence`: its section (`?s=2.1`, and `#2.1` for the page's script),
/// with the evidence's span of the section's text marked (`&mark=A-B`, chars) when it is found
/// there verbatim (always, unless the document was re-indexed since).
pub fn evidence_link(library: &dyn Library, evidence: &Evidence) -> String {
    let base = format!("/doc/{}/", segment(&evidence.doc_id));
    let (section, fragment) = if evidence.structure.is_empty() {
        (String::new(), String::new())
    } else {
        (
            format!("s={}", segment(&evidence.structure)),
            format!("#{}", segment(&evidence.structure)),
        )
    };
    let mark = library.document(&evidence.doc_id).ok().and_then(|doc| {
        let tree = &doc.tree;
        let id = if evidence.structure.is_empty() {
            NodeId::ROOT
        } else {
            tree.by_structure(&evidence.structure)?
        };
        let text = tree.text_of(id);
        let at = text.find(&evidence.text)?;
        let start = text[..at].chars().count();
        Some((start, start + evidence.text.chars().count()))
    });
    let query = match (mark, section.is_empty()) {
        (Some((a, b)), true) => format!("?mark={a}-{b}"),
        (Some((a, b)), false) => format!("?{section}&mark={a}-{b}"),
        (None, true) => String::new(),
        (None, false) => format!("?{section}"),
    };
    format!("{base}{query}{fragment}")
}
