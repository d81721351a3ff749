//! Small helpers over quick-xml's event reader for the XML inside DOCX and EPUB files: names
//! without their namespace prefix (`w:p` → `p`), attribute values by local name, and the text of
//! entity references.

use std::borrow::Cow;

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::Reader;

/// A reader over `text` that keeps whitespace (it is text in `<w:t xml:space="preserve">`)
/// and does not check that end tags match their start tags: a document with a stray end tag
/// is read on instead of cut short there, and no end tag pays for a comparison.
pub fn reader(text: &str) -> Reader<&[u8]> {
    let mut reader = Reader::from_reader(text.as_bytes());
    let config = reader.config_mut();
    config.trim_text(false);
    config.check_end_names = false;
    reader
}

/// The events of `text` as [`reader`] reads them, in order, up to its end or to the first
/// malformed construct: a document is read as far as it parses and taken to end there.
pub fn events(text: &str) -> impl Iterator<Item = Event<'_>> {
    let mut r = reader(text);
    std::iter::from_fn(move || match r.read_event() {
        Ok(Event::Eof) | Err(_) => None,
        Ok(e) => Some(e),
    })
    .fuse()
}

/// The element's name without its prefix (`w:p` → `p`): the tag's first word (up to any
/// Unicode whitespace) after its last `:`.
///
/// Called for every element of a document body, so it reads the name quick-xml already
/// delimited (at XML's four whitespace bytes) and looks at bytes; a name with other bytes that
/// Unicode counts as whitespace (vertical tab, form feed, anything non-ASCII) takes the
/// char-by-char split, which cuts there too.
pub fn local<'a>(e: &'a BytesStart<'_>) -> &'a str {
    let name = e.name().into_inner();
    if name.bytes().all(|b| b.is_ascii() && b != 0x0B && b != 0x0C) {
        return local_end(name);
    }
    let tag: &str = e;
    local_end(tag.split(char::is_whitespace).next().unwrap_or(""))
}

/// The name of an end tag without its prefix (what follows its last `:`).
pub fn local_end(name: &str) -> &str {
    match name.bytes().rposition(|b| b == b':') {
        Some(colon) => name.get(colon + 1..).unwrap_or(name),
        None => name,
    }
}

/// The value of the attribute whose local name is `name` (`w:val`, `val`), unescaped; `None`
/// when absent or malformed.
pub fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    let [value] = attrs(e, [name]);
    value.map(Cow::into_owned)
}

/// The values of the attributes whose local names are `names`, in that order, unescaped and
/// borrowed from the tag when no entity needed replacing; `None` for each one absent or
/// malformed.
///
/// One pass over the tag's attributes for all the names: the body walk asks a hyperlink for
/// two and a relationship for three, and a pass parses every attribute of the tag, so a tag's
/// cost must not grow with the names asked (the share of DOCX indexing these lookups take: the
/// benchmark history, docs/src/benchmarks-history.md, "Formats").
pub fn attrs<'a, const N: usize>(
    e: &'a BytesStart<'_>,
    names: [&str; N],
) -> [Option<Cow<'a, str>>; N] {
    let mut values = [const { None }; N];
    let mut missing = N;
    // Without the duplicate check (a list of keys allocated per call): the first attribute of
    // a name is kept, and any duplicate of it is skipped instead of reported.
    for a in e.attributes().with_checks(false).flatten() {
        let key: &str = a.key.local_name().into_inner();
        let Some(slot) = names.iter().position(|n| *n == key) else {
            continue;
        };
        if values[slot].is_some() {
            continue;
        }
        let Ok(value) = a.normalized_value(quick_xml::XmlVersion::Implicit1_0) else {
            continue;
        };
        values[slot] = Some(value);
        missing -= 1;
        if missing == 0 {
            break;
        }
    }
    values
}

/// The text an entity reference stands for: a character reference or one of XML's five
/// predefined entities; `None` for others.
pub fn entity(r: &BytesRef<'_>) -> Option<String> {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return Some(c.to_string());
    }
    quick_xml::escape::resolve_predefined_entity(r).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use quick_xml::events::Event;

    use super::*;

    #[test]
    fn names_attributes_and_entities() {
        let mut r = reader("<w:p w:val=\"a&amp;b\">x &amp; &#233;</w:p>");
        let mut seen = Vec::new();
        loop {
            match r.read_event().unwrap() {
                Event::Start(e) => {
                    seen.push(local(&e).to_string());
                    seen.push(attr(&e, "val").unwrap());
                }
                Event::Text(t) => seen.push(t.to_string()),
                Event::GeneralRef(g) => seen.push(entity(&g).unwrap()),
                Event::Eof => break,
                _ => {}
            }
        }
        assert_eq!(seen, ["p", "a&b", "x ", "&", " ", "é"]);
    }

    #[test]
    fn attrs_come_in_the_order_asked_first_of_duplicates_and_borrowed_unless_unescaped() {
        let mut r = reader(
            "<Relationship Id=\"rId1\" Target=\"a&amp;b.html\" Id=\"rId2\" \
             Type=\"http://x/hyperlink\"/>",
        );
        let Ok(Event::Empty(e)) = r.read_event() else {
            panic!("an empty tag")
        };
        let [kind, id, target, missing] = attrs(&e, ["Type", "Id", "Target", "TargetMode"]);
        assert_eq!(kind.as_deref(), Some("http://x/hyperlink"));
        assert_eq!(id.as_deref(), Some("rId1"));
        assert!(matches!(id, Some(Cow::Borrowed(_))));
        assert_eq!(target.as_deref(), Some("a&b.html"));
        assert!(matches!(target, Some(Cow::Owned(_))));
        assert_eq!(missing, None);
        assert_eq!(attr(&e, "Target").as_deref(), Some("a&b.html"));
    }

    #[test]
    fn a_stray_end_tag_does_not_stop_the_reader() {
        let texts: Vec<String> = events("<a><b>one</c><d>two</d></a>")
            .filter_map(|e| match e {
                Event::Text(t) => Some(t.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["one", "two"]);
    }

    #[test]
    fn events_end_at_the_first_malformed_construct() {
        let texts: Vec<String> = events("<a>one</a><!x>two<c>three</c>")
            .filter_map(|e| match e {
                Event::Text(t) => Some(t.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["one"]);
    }
}
