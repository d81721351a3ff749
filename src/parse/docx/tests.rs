use std::io::{Cursor, Write};

use pretty_assertions::assert_eq;

use super::*;
use crate::parse::RawLink;

const W: &str = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\" \
                 xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";

fn para(style: &str, text: &str) -> String {
    format!(
        "<w:p><w:pPr><w:pStyle w:val=\"{style}\"/></w:pPr><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"
    )
}

/// A DOCX archive of these parts.
pub(crate) fn docx(parts: &[(&str, String)]) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let mut w = zip::ZipWriter::new(&mut out);
    for (name, data) in parts {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        w.start_file(*name, options).unwrap();
        w.write_all(data.as_bytes()).unwrap();
    }
    w.finish().unwrap();
    out.into_inner()
}

#[test]
fn styles_make_headings_and_the_rest_is_text_with_notes_at_the_section_end() {
    let styles = format!(
        "<w:styles {W}><w:style w:type=\"paragraph\" w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style>\
         <w:style w:type=\"paragraph\" w:styleId=\"Heading2\"><w:name w:val=\"heading 2\"/></w:style>\
         <w:style w:type=\"paragraph\" w:styleId=\"Chapter\"><w:name w:val=\"Chapter\"/><w:pPr><w:outlineLvl w:val=\"0\"/><w:numPr><w:numId w:val=\"5\"/></w:numPr></w:pPr></w:style>\
         <w:style w:type=\"paragraph\" w:styleId=\"Title\"><w:name w:val=\"Title\"/></w:style>\
         <w:style w:type=\"paragraph\" w:styleId=\"TOC1\"><w:name w:val=\"toc 1\"/></w:style></w:styles>"
    );
    let numbering = format!(
        "<w:numbering {W}><w:abstractNum w:abstractNumId=\"1\"><w:lvl w:ilvl=\"0\"><w:numFmt w:val=\"bullet\"/></w:lvl>\
         <w:lvl w:ilvl=\"1\"><w:start w:val=\"1\"/><w:numFmt w:val=\"decimal\"/><w:lvlText w:val=\"%2.\"/></w:lvl></w:abstractNum>\
         <w:abstractNum w:abstractNumId=\"2\"><w:lvl w:ilvl=\"0\"><w:start w:val=\"3\"/><w:numFmt w:val=\"decimal\"/><w:lvlText w:val=\"%1.\"/></w:lvl></w:abstractNum>\
         <w:num w:numId=\"4\"><w:abstractNumId w:val=\"1\"/></w:num><w:num w:numId=\"5\"><w:abstractNumId w:val=\"2\"/></w:num></w:numbering>"
    );
    let item = |level: u32, text: &str| {
        format!(
            "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"{level}\"/><w:numId w:val=\"4\"/></w:numPr></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"
        )
    };
    let body = [
        para("Title", "The Manual"),
        para("TOC1", "Install 1"),
        "<w:p><w:r><w:t>Before &amp; after.</w:t></w:r></w:p>".to_string(),
        "<w:bookmarkStart w:id=\"0\" w:name=\"install\"/>".to_string(),
        para("Heading1", "Install"),
        "<w:p><w:r><w:t xml:space=\"preserve\">Run it</w:t></w:r><w:r><w:footnoteReference w:id=\"2\"/></w:r>\
         <w:hyperlink w:anchor=\"use\"><w:r><w:t> see use</w:t></w:r></w:hyperlink>\
         <w:hyperlink r:id=\"rId9\"><w:r><w:t> guide</w:t></w:r></w:hyperlink></w:p>"
            .to_string(),
        item(0, "first"),
        item(1, "sub one"),
        item(1, "sub two"),
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>k</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>v</w:t></w:r></w:p></w:tc></w:tr>\
         <w:tr><w:tc><w:p><w:r><w:t>a|b</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
            .to_string(),
        "<w:bookmarkStart w:id=\"1\" w:name=\"use\"/>".to_string(),
        para("Heading2", "Use"),
        para("Chapter", "Custom"),
        para("Normal", "End."),
    ]
    .concat();
    let document = format!("<w:document {W}><w:body>{body}</w:body></w:document>");
    let footnotes = format!(
        "<w:footnotes {W}><w:footnote w:type=\"separator\" w:id=\"-1\"><w:p><w:r><w:t>--</w:t></w:r></w:p></w:footnote>\
         <w:footnote w:id=\"2\"><w:p><w:r><w:t>A note.</w:t></w:r></w:p></w:footnote></w:footnotes>"
    );
    let rels = "<Relationships><Relationship Id=\"rId9\" Type=\"http://x/hyperlink\" Target=\"guide.docx#intro\" TargetMode=\"External\"/></Relationships>".to_string();
    let bytes = docx(&[
        ("word/document.xml", document),
        ("word/styles.xml", styles),
        ("word/numbering.xml", numbering),
        ("word/footnotes.xml", footnotes),
        ("word/_rels/document.xml.rels", rels),
    ]);
    let doc = parse_docx(Path::new("m.docx"), &bytes, &ZipOptions::default()).unwrap();
    assert_eq!(doc.title.as_deref(), Some("The Manual"));
    let outline: Vec<(u32, &str)> = doc
        .sections
        .iter()
        .map(|s| (s.level, s.title.as_str()))
        .collect();
    assert_eq!(outline, vec![(1, "Install"), (2, "Use"), (1, "3. Custom")]);
    assert_eq!(doc.preamble.content, "Before & after.");
    assert_eq!(
        doc.sections[0].content,
        "Run it[^2] see use guide\n\n- first\n  1. sub one\n  2. sub two\n\n| k | v |\n| a\\|b | 1 |\n\n[^2]: A note."
    );
    assert_eq!(doc.sections[0].anchor.as_deref(), Some("install"));
    assert_eq!(doc.sections[1].anchor.as_deref(), Some("use"));
    assert_eq!(
        doc.sections[0].links,
        vec![
            RawLink {
                file: None,
                anchor: Some("use".into())
            },
            RawLink {
                file: Some("guide.docx".into()),
                anchor: Some("intro".into())
            }
        ]
    );
    // Paragraphs: title, toc, text, Install, text, 3 items, 4 in the table, Use, Custom, End.
    assert_eq!(doc.source_units, 15);
    assert_eq!(doc.sections[0].lines, Some(4..13));
    assert_eq!(doc.sections[2].lines, Some(14..16));
}

#[test]
fn not_a_word_document_is_one_clear_error() {
    let err = parse_docx(Path::new("x.docx"), b"PK garbage", &ZipOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot read Word document `x.docx`: not a readable zip archive"),
        "{err}"
    );
    let bytes = docx(&[("other.xml", "<x/>".to_string())]);
    let err = parse_docx(Path::new("x.docx"), &bytes, &ZipOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read Word document `x.docx`: no `word/document.xml` in the archive"
    );
}

#[test]
fn a_paragraph_keeps_nothing_of_the_one_before() {
    // The walk reuses one paragraph's buffers: a list item's numbering, a heading's style and
    // a paragraph's text must not leak into the next paragraph.
    let styles = format!(
        "<w:styles {W}><w:style w:type=\"paragraph\" w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style></w:styles>"
    );
    let numbering = format!(
        "<w:numbering {W}><w:abstractNum w:abstractNumId=\"1\"><w:lvl w:ilvl=\"0\"><w:numFmt w:val=\"bullet\"/></w:lvl></w:abstractNum>\
         <w:num w:numId=\"4\"><w:abstractNumId w:val=\"1\"/></w:num></w:numbering>"
    );
    let plain = |text: &str| format!("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>");
    let body = [
        "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"4\"/></w:numPr></w:pPr><w:r><w:t>one</w:t></w:r></w:p>"
            .to_string(),
        plain("plain"),
        para("Heading1", "Head"),
        plain("after"),
        "<w:p/>".to_string(),
        plain("last"),
    ]
    .concat();
    let document = format!("<w:document {W}><w:body>{body}</w:body></w:document>");
    let bytes = docx(&[
        ("word/document.xml", document),
        ("word/styles.xml", styles),
        ("word/numbering.xml", numbering),
    ]);
    let doc = parse_docx(Path::new("m.docx"), &bytes, &ZipOptions::default()).unwrap();
    assert_eq!(doc.preamble.content, "- one\n\nplain");
    let outline: Vec<(u32, &str)> = doc
        .sections
        .iter()
        .map(|s| (s.level, s.title.as_str()))
        .collect();
    assert_eq!(outline, vec![(1, "Head")]);
    assert_eq!(doc.sections[0].content, "after\n\nlast");
}

#[test]
fn tables_nested_past_the_bound_join_their_cell() {
    // A table in a cell is written into that cell as its rows; past MAX_NESTED_TABLES levels a
    // table is no longer one, and its text joins the innermost kept cell. 100,000 levels (a
    // hostile file) read in time proportional to the file.
    let plain = |text: &str| format!("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>");
    let nested = |levels: usize| {
        let open = "<w:tbl><w:tr><w:tc>".repeat(levels);
        let close = "</w:tc></w:tr></w:tbl>".repeat(levels);
        let body = format!("{open}{}{close}{}", plain("deep"), plain("after"));
        let document = format!("<w:document {W}><w:body>{body}</w:body></w:document>");
        let bytes = docx(&[("word/document.xml", document)]);
        parse_docx(Path::new("t.docx"), &bytes, &ZipOptions::default()).unwrap()
    };
    // Two levels: the inner table's row inside the outer cell, its bar escaped.
    assert_eq!(nested(2).preamble.content, "| \\| deep \\| |\n\nafter");
    let at_bound = nested(body::MAX_NESTED_TABLES).preamble.content;
    let past = nested(100_000).preamble.content;
    assert_eq!(past, at_bound);
    assert!(
        past.ends_with("\n\nafter") && past.contains("deep"),
        "{past}"
    );
    // The deepest kept cell's bars are escaped once per level above it, no more.
    assert!(past.len() < 2_000, "{} chars", past.len());
}

/// `Part N` splits of a long section are located by the paragraphs they hold: the heading is
/// paragraph 1, body paragraph `k` is paragraph `k + 1`, and a table's rows count one each.
#[test]
fn parts_of_a_long_section_are_located_by_their_paragraphs() {
    let styles = format!(
        "<w:styles {W}><w:style w:type=\"paragraph\" w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style></w:styles>"
    );
    let filler = "word ".repeat(60);
    let mut body = para("Heading1", "Long");
    for k in 1..=30 {
        if k == 20 {
            body.push_str(&format!(
                "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Row {k} {filler}</w:t></w:r></w:p></w:tc></w:tr>\
                 <w:tr><w:tc><w:p><w:r><w:t>Row {} {filler}</w:t></w:r></w:p></w:tc></w:tr></w:tbl>",
                k + 1
            ));
        } else if k != 21 {
            body.push_str(&para("Normal", &format!("Paragraph {k} {filler}")));
        }
    }
    let document = format!("<w:document {W}><w:body>{body}</w:body></w:document>");
    let bytes = docx(&[("word/document.xml", document), ("word/styles.xml", styles)]);
    let doc = parse_docx(Path::new("long.docx"), &bytes, &ZipOptions::default()).unwrap();
    let (_, parts) = crate::tree::build::numbered_parts(doc, 200);
    for (k, lines) in &parts {
        assert_eq!(lines.start, k + 1, "part starting with {k}");
    }
    assert_eq!(parts.last().map(|p| p.1.end), Some(32));
}
