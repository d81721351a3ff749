//! Heading titles: whitespace collapsing, attribute lists, and raw HTML `<h1>`…`<h6>` blocks.

/// Collapse runs of whitespace to one space, trim, and drop a trailing attribute list such as
/// `{: #stages }` (Python-Markdown `attr_list`, kramdown), `{#id .class}` or `{-}` (Pandoc).
pub(crate) fn clean_title(raw: &str) -> String {
    clean_title_and_id(raw).0
}

/// [`clean_title`], plus the `#id` of the dropped attribute list (`{: #stages }` → `stages`), the
/// heading's explicit anchor.
///
/// An attribute list is a trailing `{…}` after some title text whose items, after an optional
/// leading `:`, are each `#id`, `.class`, `key=value` or Pandoc's `-` (unnumbered): `{-1}`,
/// `{}` or `{x}` are title text (`fn main() {}` stays whole).
pub(crate) fn clean_title_and_id(raw: &str) -> (String, Option<String>) {
    let mut out = String::with_capacity(raw.len());
    for word in raw.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let mut id = None;
    if out.ends_with('}') {
        if let Some(open) = out.rfind('{') {
            let inner = out[open + 1..out.len() - 1].trim();
            let items = inner.strip_prefix(':').unwrap_or(inner);
            if is_attribute_list(items) && !out[..open].trim().is_empty() {
                id = items
                    .split_whitespace()
                    .find_map(|attr| attr.strip_prefix('#'))
                    .filter(|a| !a.is_empty())
                    .map(str::to_string);
                out.truncate(open);
                let kept = out.trim_end().len();
                out.truncate(kept);
            }
        }
    }
    (out, id)
}

/// True when every whitespace-separated item of `items` is `#id`, `.class`, `key=value` or
/// `-`, and there is at least one.
fn is_attribute_list(items: &str) -> bool {
    let name = |s: &str| {
        s.chars().next().is_some_and(char::is_alphabetic)
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
    };
    // Items split at whitespace outside quotes (`title="A b"` is one item).
    let mut split = Vec::new();
    let (mut start, mut quote) = (None, None);
    for (i, c) in items.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (None, _) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    split.push(&items[s..i]);
                }
            }
            (None, _) => {
                start.get_or_insert(i);
            }
        }
    }
    if quote.is_some() {
        return false;
    }
    if let Some(s) = start {
        split.push(&items[s..]);
    }
    let mut any = false;
    for item in split {
        any = true;
        let ok = item == "-"
            || item.strip_prefix('#').is_some_and(|id| !id.is_empty())
            || item.strip_prefix('.').is_some_and(name)
            || item.split_once('=').is_some_and(|(key, _)| name(key));
        if !ok {
            return false;
        }
    }
    any
}

/// A raw HTML heading found at the start of an HTML block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HtmlHeading {
    /// 1–6, from the tag name.
    pub(crate) level: u32,
    /// Inner text, tags dropped, a few common entities decoded, whitespace collapsed.
    pub(crate) title: String,
    /// Byte offset (within the block) just past the closing `</hN>` tag.
    pub(crate) end: usize,
    /// Value of the opening tag's `id` (else `name`) attribute: the heading's explicit anchor.
    pub(crate) anchor: Option<String>,
}

/// Recognise an HTML block that opens with `<hN …>` (up to 3 spaces of indent, tag name any case)
/// and find its `</hN>`. `None` when the block does not start with a heading tag, the tag is
/// never closed, or the heading has no text.
pub(crate) fn html_heading(block: &str) -> Option<HtmlHeading> {
    let body = block.trim_start_matches(' ');
    if block.len() - body.len() > 3 {
        return None;
    }
    let bytes = body.as_bytes();
    if bytes.len() < 4 || bytes[0] != b'<' || !bytes[1].eq_ignore_ascii_case(&b'h') {
        return None;
    }
    let level = match bytes[2] {
        d @ b'1'..=b'6' => u32::from(d - b'0'),
        _ => return None,
    };
    if !matches!(bytes[3], b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r') {
        return None;
    }
    let open_end = body.find('>')? + 1;
    let close: [u8; 4] = [b'<', b'/', b'h', bytes[2]];
    let close_at = bytes[open_end..]
        .windows(4)
        .position(|w| w.eq_ignore_ascii_case(&close))?
        + open_end;
    let close_end = body[close_at..]
        .find('>')
        .map_or(body.len(), |i| close_at + i + 1);
    let title = clean_title(&decode_entities(&strip_tags(&body[open_end..close_at])));
    if title.is_empty() {
        return None;
    }
    Some(HtmlHeading {
        level,
        title,
        end: block.len() - body.len() + close_end,
        anchor: attribute(&body[..open_end], "id").or_else(|| attribute(&body[..open_end], "name")),
    })
}

/// Value of attribute `name` in an opening tag such as `<h3 name="config" class=x>` (quoted with
/// `"` or `'`, or unquoted); `None` when absent or empty. The name is matched case-insensitively
/// and must follow whitespace, so `data-id=` is not `id=`.
pub(crate) fn attribute(tag: &str, name: &str) -> Option<String> {
    let bytes = tag.as_bytes();
    let mut from = 0;
    while let Some(at) = find_ascii_ci(&bytes[from..], name.as_bytes()).map(|i| i + from) {
        from = at + name.len();
        let before_ok = at > 0 && bytes[at - 1].is_ascii_whitespace();
        let rest = tag[from..].trim_start();
        let Some(value) = rest.strip_prefix('=').map(str::trim_start) else {
            continue;
        };
        if !before_ok {
            continue;
        }
        let value = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
            _ => value
                .split(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .next()
                .unwrap_or(""),
        };
        return (!value.is_empty()).then(|| decode_entities(value));
    }
    None
}

/// Byte offset of the first ASCII-case-insensitive occurrence of `needle` in `hay`.
fn find_ascii_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len().max(1))
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Remove `<…>` tags, keeping the text between them.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Decode the entities common in headings; others stay as written.
fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    text.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_collapse_whitespace_and_drop_attribute_lists() {
        assert_eq!(clean_title("  a \t b\n c "), "a b c");
        assert_eq!(
            clean_title("Phases of processing {: #stages }"),
            "Phases of processing"
        );
        assert_eq!(clean_title("Intro {#intro .x}"), "Intro");
        assert_eq!(clean_title("fn main() {}"), "fn main() {}");
        assert_eq!(clean_title("{#only}"), "{#only}");
        assert_eq!(
            clean_title_and_id("Phases of processing {: #stages }"),
            (
                "Phases of processing".to_string(),
                Some("stages".to_string())
            )
        );
        assert_eq!(
            clean_title_and_id("Intro {.x #intro}").1.as_deref(),
            Some("intro")
        );
        assert_eq!(clean_title_and_id("Intro {.x}").1, None);
        // Pandoc's unnumbered mark, kramdown without spaces, quoted values.
        assert_eq!(clean_title("Appendix {-}"), "Appendix");
        assert_eq!(clean_title("Appendix {- #app}"), "Appendix");
        assert_eq!(clean_title("Setup {:.no_toc}"), "Setup");
        assert_eq!(clean_title("Setup {: #s data-x=\"a b\" }"), "Setup");
        // Braces that are title text.
        assert_eq!(clean_title("Offsets {-1}"), "Offsets {-1}");
        assert_eq!(clean_title("Set {x, y}"), "Set {x, y}");
        assert_eq!(clean_title("Version {.5}"), "Version {.5}");
    }

    #[test]
    fn attributes_of_opening_tags() {
        assert_eq!(
            attribute("<h3 name=\"config\">", "name").as_deref(),
            Some("config")
        );
        assert_eq!(attribute("<a ID='x-1'>", "id").as_deref(), Some("x-1"));
        assert_eq!(attribute("<a id=bare>", "id").as_deref(), Some("bare"));
        assert_eq!(
            attribute("<a data-id=\"no\" id=\"yes\">", "id").as_deref(),
            Some("yes")
        );
        assert_eq!(attribute("<a href=\"#x\">", "id"), None);
        assert_eq!(attribute("<a id=\"\">", "id"), None);
    }

    #[test]
    fn html_heading_blocks() {
        let faq = "<h3 name=\"config\">\nDoes ripgrep support configuration files?\n</h3>\n";
        let h = html_heading(faq).unwrap();
        assert_eq!(h.level, 3);
        assert_eq!(h.title, "Does ripgrep support configuration files?");
        assert_eq!(h.anchor.as_deref(), Some("config"));
        assert_eq!(&faq[..h.end], faq.trim_end());
        let vant = "<H1 align=\"center\"><b>Vant</b> &amp; co</H1>\n<p>x</p>";
        let h = html_heading(vant).unwrap();
        assert_eq!((h.level, h.title.as_str()), (1, "Vant & co"));
        assert_eq!(html_heading("<hr>\n"), None);
        assert_eq!(html_heading("<header>x</header>"), None);
        assert_eq!(html_heading("<h2>never closed"), None);
        assert_eq!(html_heading("<h2></h2>"), None);
        assert_eq!(html_heading("    <h2>code</h2>"), None);
    }
}
