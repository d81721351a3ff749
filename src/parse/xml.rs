//! Small helpers over quick-xml's event reader for the XML inside DOCX and EPUB files: names
//! without their namespace prefix (`w:p` → `p`), attribute values by local name, and the text of
//! entity references.

use quick_xml::events::{BytesRef, BytesStart};
use quick_xml::Reader;

/// A reader over `text` that keeps whitespace (it is text in `<w:t xml:space="preserve">`).
pub fn reader(text: &str) -> Reader<&[u8]> {
    let mut reader = Reader::from_reader(text.as_bytes());
    reader.config_mut().trim_text(false);
    reader
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
    // Without the duplicate check (a list of keys allocated per call): the first attribute of
    // a name is returned before any duplicate of it could be reported.
    e.attributes().with_checks(false).flatten().find_map(|a| {
        let key: &str = a.key.local_name().into_inner();
        (key == name).then(|| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })?
    })
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
#[allow(clippy::unwrap_used)]
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
}
