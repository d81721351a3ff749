//! What a paragraph's style makes it (`word/styles.xml`), and the numbers and bullets of
//! numbered paragraphs (`word/numbering.xml`).
//!
//! A heading is a paragraph whose style is named `heading 1`…`heading 9` (Word's built-in
//! names, whatever the document's language calls them on screen), or whose style, or a style it
//! is based on, has an outline level 0–8 (a custom heading style); outline level 9 is body
//! text. `Title` names the document. Styles named `toc …` belong to a table of contents, which
//! repeats the headings: such paragraphs are not text.

use rustc_hash::FxHashMap;

use quick_xml::events::Event;

use crate::parse::xml::{attr, events, local, local_end};

/// What a paragraph style makes a paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The document's title.
    Title,
    /// A heading of this level (1–9).
    Heading(u32),
    /// A line of a table of contents.
    Contents,
    /// Preformatted code (pandoc's `Source Code`, Word's `HTML Preformatted`).
    Code,
    /// Body text.
    Text,
}

#[derive(Debug, Default, Clone)]
struct Style {
    name: String,
    based_on: Option<String>,
    outline: Option<u32>,
    numbering: Option<(String, u32)>,
}

/// The paragraph styles of a document.
#[derive(Debug, Default)]
pub struct Styles {
    styles: FxHashMap<String, Style>,
}

impl Styles {
    /// Parse `styles.xml` (an empty set when it is missing or unreadable: every paragraph is
    /// then body text unless it carries an outline level itself).
    pub fn parse(xml: &str) -> Styles {
        let mut styles = FxHashMap::default();
        let mut current: Option<(String, Style)> = None;
        let mut in_num = false;
        for event in events(xml) {
            match event {
                Event::Start(e) | Event::Empty(e) => match local(&e) {
                    "style" => {
                        let paragraph = attr(&e, "type").is_none_or(|t| t == "paragraph");
                        current = attr(&e, "styleId")
                            .filter(|_| paragraph)
                            .map(|id| (id, Style::default()));
                    }
                    "name" => set(&mut current, |s| {
                        s.name = attr(&e, "val").unwrap_or_default()
                    }),
                    "basedOn" => set(&mut current, |s| s.based_on = attr(&e, "val")),
                    "outlineLvl" => set(&mut current, |s| {
                        s.outline = attr(&e, "val").and_then(|v| v.parse().ok())
                    }),
                    "numPr" => in_num = true,
                    "numId" if in_num => set(&mut current, |s| {
                        let ilvl = s.numbering.as_ref().map_or(0, |n| n.1);
                        s.numbering = attr(&e, "val").map(|id| (id, ilvl));
                    }),
                    "ilvl" if in_num => set(&mut current, |s| {
                        let level = attr(&e, "val").and_then(|v| v.parse().ok()).unwrap_or(0);
                        let id = s.numbering.take().map(|n| n.0).unwrap_or_default();
                        s.numbering = Some((id, level));
                    }),
                    _ => {}
                },
                Event::End(e) => match local_end(&e) {
                    "style" => {
                        if let Some((id, style)) = current.take() {
                            styles.insert(id, style);
                        }
                    }
                    "numPr" => in_num = false,
                    _ => {}
                },
                _ => {}
            }
        }
        Styles { styles }
    }

    /// The role of a paragraph of style `id` (`None`: the default style), with its own
    /// outline level `outline` if it sets one.
    pub fn role(&self, id: Option<&str>, outline: Option<u32>) -> Role {
        if let Some(level) = outline {
            return heading_of_outline(level);
        }
        let Some(id) = id else {
            return Role::Text;
        };
        let style = self.styles.get(id);
        let name = style.map_or(id, |s| s.name.as_str()).to_ascii_lowercase();
        let compact = name.replace(' ', "");
        if compact == "title" {
            return Role::Title;
        }
        if let Some(n) = compact.strip_prefix("heading") {
            if let Ok(level @ 1..=9) = n.parse::<u32>() {
                return Role::Heading(level);
            }
        }
        if name.starts_with("toc") {
            return Role::Contents;
        }
        if matches!(
            compact.as_str(),
            "sourcecode" | "htmlpreformatted" | "code" | "plaintext"
        ) {
            return Role::Code;
        }
        // A custom style: its outline level, or one it inherits.
        let mut at = style;
        for _ in 0..16 {
            let Some(s) = at else { break };
            if let Some(level) = s.outline {
                return heading_of_outline(level);
            }
            at = s.based_on.as_ref().and_then(|b| self.styles.get(b));
        }
        Role::Text
    }

    /// The numbering a style gives its paragraphs (`numId`, level), if any.
    pub fn numbering(&self, id: &str) -> Option<(String, u32)> {
        let mut at = self.styles.get(id);
        for _ in 0..16 {
            let s = at?;
            if s.numbering.is_some() {
                return s.numbering.clone();
            }
            at = s.based_on.as_ref().and_then(|b| self.styles.get(b));
        }
        None
    }
}

fn set(current: &mut Option<(String, Style)>, f: impl FnOnce(&mut Style)) {
    if let Some((_, style)) = current.as_mut() {
        f(style);
    }
}

/// Outline levels 0–8 are headings 1–9; 9 (and anything else) is body text.
fn heading_of_outline(level: u32) -> Role {
    if level < 9 {
        Role::Heading(level + 1)
    } else {
        Role::Text
    }
}

/// One level of a numbering definition.
#[derive(Debug, Clone, Default)]
struct Level {
    format: String,
    text: String,
    start: u32,
}

/// The numbering definitions of a document and the counters of a walk through it.
#[derive(Debug, Default)]
pub struct Numbering {
    /// `numId` → `abstractNumId`. Fx hashes (rustc's): the keys are a document's own short
    /// ids, looked up for every numbered paragraph, and need no DoS resistance.
    nums: FxHashMap<String, String>,
    /// `abstractNumId` → its levels.
    abstracts: FxHashMap<String, Vec<Level>>,
    /// Counters per `abstractNumId` (lists sharing a definition continue its count, as Word
    /// counts them).
    counters: FxHashMap<String, Vec<u32>>,
}

impl Numbering {
    /// Parse `numbering.xml` (none when missing: numbered paragraphs are then plain).
    pub fn parse(xml: &str) -> Numbering {
        let mut n = Numbering::default();
        let mut abstract_id: Option<String> = None;
        let mut level: Option<(usize, Level)> = None;
        let mut num_id: Option<String> = None;
        for event in events(xml) {
            match event {
                Event::Start(e) | Event::Empty(e) => match local(&e) {
                    "abstractNum" => abstract_id = attr(&e, "abstractNumId"),
                    "lvl" => {
                        let ilvl = attr(&e, "ilvl").and_then(|v| v.parse().ok()).unwrap_or(0);
                        level = Some((
                            ilvl,
                            Level {
                                start: 1,
                                ..Level::default()
                            },
                        ));
                    }
                    "start" => {
                        if let Some((_, l)) = level.as_mut() {
                            l.start = attr(&e, "val").and_then(|v| v.parse().ok()).unwrap_or(1);
                        }
                    }
                    "numFmt" => {
                        if let Some((_, l)) = level.as_mut() {
                            l.format = attr(&e, "val").unwrap_or_default();
                        }
                    }
                    "lvlText" => {
                        if let Some((_, l)) = level.as_mut() {
                            l.text = attr(&e, "val").unwrap_or_default();
                        }
                    }
                    "num" => num_id = attr(&e, "numId"),
                    "abstractNumId" => {
                        if let (Some(id), Some(a)) = (num_id.clone(), attr(&e, "val")) {
                            n.nums.insert(id, a);
                        }
                    }
                    _ => {}
                },
                Event::End(e) => match local_end(&e) {
                    "lvl" => {
                        if let (Some(a), Some((i, l))) = (abstract_id.as_ref(), level.take()) {
                            let levels = n.abstracts.entry(a.clone()).or_default();
                            if levels.len() <= i && i < 9 {
                                levels.resize(i + 1, Level::default());
                            }
                            if let Some(slot) = levels.get_mut(i) {
                                *slot = l;
                            }
                        }
                    }
                    "abstractNum" => abstract_id = None,
                    "num" => num_id = None,
                    _ => {}
                },
                _ => {}
            }
        }
        n
    }

    /// Count one paragraph numbered `num_id` at level `ilvl` and return its label: `- ` for a
    /// bullet, else the level's text with its counters (`2.1.`, `b)`); `None` when `num_id` is
    /// not defined (or is `0`, Word's "no numbering").
    pub fn next(&mut self, num_id: &str, ilvl: u32) -> Option<NumberLabel> {
        let abstract_id = self.nums.get(num_id)?;
        let levels = self.abstracts.get(abstract_id)?;
        let i = usize::try_from(ilvl).ok()?.min(8);
        let level = levels.get(i)?;
        if level.format == "bullet" || level.format == "none" {
            return Some(NumberLabel::Bullet);
        }
        if !self.counters.contains_key(abstract_id) {
            self.counters.insert(abstract_id.clone(), vec![0; 9]);
        }
        let counters = self.counters.get_mut(abstract_id)?;
        counters[i] = if counters[i] == 0 {
            level.start
        } else {
            counters[i] + 1
        };
        for deeper in counters.iter_mut().skip(i + 1) {
            *deeper = 0;
        }
        let mut label = level.text.clone();
        for (k, value) in counters.iter().enumerate().take(i + 1) {
            let format = levels.get(k).map_or("decimal", |l| l.format.as_str());
            let start = levels.get(k).map_or(1, |l| l.start);
            let value = if *value == 0 { start } else { *value };
            label = label.replace(&format!("%{}", k + 1), &format_number(value, format));
        }
        Some(NumberLabel::Number(label))
    }
}

/// What a numbered paragraph is labelled with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumberLabel {
    /// A bullet.
    Bullet,
    /// A number as printed (`2.1.`).
    Number(String),
}

/// `n` in Word's number format `format` (decimal, letters, roman; others as decimal).
fn format_number(n: u32, format: &str) -> String {
    match format {
        "lowerLetter" | "upperLetter" => {
            let mut s = String::new();
            let mut k = n.max(1);
            while k > 0 {
                let d = u8::try_from((k - 1) % 26).unwrap_or(0);
                s.insert(0, char::from(b'a' + d));
                k = (k - 1) / 26;
            }
            if format == "upperLetter" {
                s.to_ascii_uppercase()
            } else {
                s
            }
        }
        "lowerRoman" | "upperRoman" => {
            let roman = roman(n);
            if format == "lowerRoman" {
                roman.to_ascii_lowercase()
            } else {
                roman
            }
        }
        _ => n.to_string(),
    }
}

fn roman(mut n: u32) -> String {
    const TABLE: &[(u32, &str)] = &[
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, digits) in TABLE {
        while n >= *value {
            out.push_str(digits);
            n -= value;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_styles_outline_levels_and_numbers() {
        let styles = Styles::parse(
            r#"<w:styles xmlns:w="x"><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
            <w:style w:type="paragraph" w:styleId="Kapitel"><w:name w:val="Kapitel"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
            <w:style w:type="paragraph" w:styleId="Sub"><w:name w:val="Sub"/><w:basedOn w:val="Kapitel"/></w:style>
            <w:style w:type="paragraph" w:styleId="TOC1"><w:name w:val="toc 1"/></w:style>
            <w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
            <w:style w:type="paragraph" w:styleId="Body"><w:name w:val="Body"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style></w:styles>"#,
        );
        assert_eq!(styles.role(Some("Heading2"), None), Role::Heading(2));
        assert_eq!(styles.role(Some("Kapitel"), None), Role::Heading(1));
        assert_eq!(styles.role(Some("Sub"), None), Role::Heading(1));
        assert_eq!(styles.role(Some("TOC1"), None), Role::Contents);
        assert_eq!(styles.role(Some("Title"), None), Role::Title);
        assert_eq!(styles.role(Some("Body"), None), Role::Text);
        assert_eq!(styles.role(None, Some(2)), Role::Heading(3));
        assert_eq!(styles.role(Some("Missing"), None), Role::Text);

        let mut numbering = Numbering::parse(
            r#"<w:numbering xmlns:w="x"><w:abstractNum w:abstractNumId="7">
            <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
            <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1.%2)"/></w:lvl>
            </w:abstractNum><w:abstractNum w:abstractNumId="8"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
            <w:num w:numId="1"><w:abstractNumId w:val="7"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="8"/></w:num></w:numbering>"#,
        );
        let label = |n: &mut Numbering, id: &str, l: u32| n.next(id, l).unwrap();
        assert_eq!(
            label(&mut numbering, "1", 0),
            NumberLabel::Number("1.".into())
        );
        assert_eq!(
            label(&mut numbering, "1", 1),
            NumberLabel::Number("1.a)".into())
        );
        assert_eq!(
            label(&mut numbering, "1", 1),
            NumberLabel::Number("1.b)".into())
        );
        assert_eq!(
            label(&mut numbering, "1", 0),
            NumberLabel::Number("2.".into())
        );
        assert_eq!(label(&mut numbering, "2", 0), NumberLabel::Bullet);
        assert_eq!(numbering.next("9", 0), None);
        assert_eq!(roman(1994), "MCMXCIV");
    }
}
