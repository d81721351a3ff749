use pretty_assertions::assert_eq;

use super::*;
use crate::parse::docx::tests::docx as archive;

const CONTAINER: &str = r#"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;

fn chapter(body: &str) -> String {
    format!("<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t</title></head><body>{body}</body></html>")
}

fn book(opf: &str, files: &[(&str, String)]) -> Vec<u8> {
    let mut parts = vec![
        ("META-INF/container.xml", CONTAINER.to_string()),
        ("OPS/book.opf", opf.to_string()),
    ];
    parts.extend(files.iter().map(|(n, t)| (*n, t.clone())));
    archive(&parts)
}

fn outline(doc: &ParsedDoc) -> Vec<(u32, &str)> {
    doc.sections
        .iter()
        .map(|s| (s.level, s.title.as_str()))
        .collect()
}

const OPF: &str = r#"<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
  <dc:title>The  Book</dc:title><dc:creator>A. Writer</dc:creator><dc:language>en</dc:language></metadata>
  <manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
  <item id="cover" href="text/cover.xhtml" media-type="application/xhtml+xml"/>
  <item id="c1" href="text/c1.xhtml" media-type="application/xhtml+xml"/>
  <item id="c2" href="text/c2.xhtml" media-type="application/xhtml+xml"/>
  <item id="notes" href="text/notes.xhtml" media-type="application/xhtml+xml"/>
  <item id="img" href="img/a.png" media-type="image/png"/></manifest>
  <spine><itemref idref="cover"/><itemref idref="c1"/><itemref idref="c2"/><itemref idref="notes" linear="no"/><itemref idref="img"/></spine></package>"#;

#[test]
fn chapters_come_from_the_spine_and_the_toc_and_headings_from_each_chapter() {
    let nav = r#"<html><body><nav epub:type="toc"><ol>
        <li><a href="text/c1.xhtml">Chapter One</a></li>
        <li><a href="text/c2.xhtml">Appendix</a></li></ol></nav></body></html>"#;
    let bytes = book(
        OPF,
        &[
            ("OPS/nav.xhtml", nav.to_string()),
            ("OPS/text/cover.xhtml", chapter("<h1>The Book</h1><p>By A. Writer.</p>")),
            (
                "OPS/text/c1.xhtml",
                chapter("<h2 id=\"one\">Chapter One</h2><p>Call me.</p><h3>Loomings</h3><p>Sea <a href=\"c2.xhtml#tables\">tables</a>.</p>"),
            ),
            (
                "OPS/text/c2.xhtml",
                chapter("<p>Extra matter.</p><h1 id=\"tables\">Tables</h1><table><tr><td>a</td><td>b</td></tr></table><p><a href=\"c1.xhtml\">back</a> <a href=\"https://x.org/\">out</a></p>"),
            ),
            ("OPS/text/notes.xhtml", chapter("<h1>Notes</h1>")),
        ],
    );
    let doc = parse_epub(Path::new("b.epub"), &bytes, &ZipOptions::default()).unwrap();
    assert_eq!(doc.title.as_deref(), Some("The Book"));
    assert_eq!(
        doc.metadata,
        vec![
            ("title".to_string(), "The Book".to_string()),
            ("creator".to_string(), "A. Writer".to_string()),
            ("language".to_string(), "en".to_string())
        ]
    );
    assert_eq!(
        outline(&doc),
        vec![
            (1, "Chapter One"),
            (2, "Loomings"),
            (1, "Appendix"),
            (2, "Tables")
        ]
    );
    assert_eq!(doc.preamble.content, "The Book\n\nBy A. Writer.");
    assert_eq!(doc.sections[0].anchor.as_deref(), Some("one"));
    assert_eq!(doc.sections[2].content, "Extra matter.");
    assert_eq!(
        doc.sections[1].links,
        vec![RawLink {
            file: None,
            anchor: Some("tables".into())
        }]
    );
    assert_eq!(
        doc.sections[3].links,
        vec![RawLink {
            file: None,
            anchor: Some("one".into())
        }]
    );
    assert_eq!(doc.sections[0].lines, None);
    assert_eq!(doc.source_units, 3);
}

#[test]
fn an_epub2_book_reads_its_ncx_and_a_book_without_toc_its_headings() {
    let opf = OPF
        .replace(" properties=\"nav\"", "")
        .replace("<spine>", "<spine toc=\"ncx\">")
        .replace(
            "</manifest>",
            "<item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/></manifest>",
        );
    let ncx = r#"<ncx><navMap><navPoint id="p"><navLabel><text>Part I</text></navLabel><content src="text/c1.xhtml"/>
        <navPoint id="q"><navLabel><text>Sea</text></navLabel><content src="text/c2.xhtml"/></navPoint></navPoint></navMap></ncx>"#;
    let files = [
        (
            "OPS/nav.xhtml",
            "<html><body><p>not a toc</p></body></html>".to_string(),
        ),
        ("OPS/toc.ncx", ncx.to_string()),
        ("OPS/text/cover.xhtml", chapter("<p>Cover.</p>")),
        ("OPS/text/c1.xhtml", chapter("<p>Part text.</p>")),
        ("OPS/text/c2.xhtml", chapter("<h1>Sea</h1><h2>Waves</h2>")),
    ];
    let doc = parse_epub(
        Path::new("b.epub"),
        &book(&opf, &files),
        &ZipOptions::default(),
    )
    .unwrap();
    assert_eq!(outline(&doc), vec![(1, "Part I"), (2, "Sea"), (3, "Waves")]);
    assert_eq!(doc.sections[0].content, "Part text.");
    assert_eq!(doc.preamble.content, "Cover.");
    // No toc at all: each chapter at depth 1 by its own headings.
    let opf = opf.replace("<spine toc=\"ncx\">", "<spine>").replace(
        "<item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/>",
        "",
    );
    let doc = parse_epub(
        Path::new("b.epub"),
        &book(&opf, &files),
        &ZipOptions::default(),
    )
    .unwrap();
    assert_eq!(
        outline(&doc),
        vec![(1, "t"), (1, "t"), (1, "Sea"), (2, "Waves")]
    );
}

#[test]
fn a_broken_book_is_one_clear_error() {
    let err = parse_epub(Path::new("x.epub"), b"nope", &ZipOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot read EPUB book `x.epub`: not a readable zip archive"),
        "{err}"
    );
    let bytes = archive(&[("mimetype", "application/epub+zip".to_string())]);
    let err = parse_epub(Path::new("x.epub"), &bytes, &ZipOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read EPUB book `x.epub`: no `META-INF/container.xml` in the archive"
    );
    let bytes = book("<package><spine/></package>", &[]);
    let err = parse_epub(Path::new("x.epub"), &bytes, &ZipOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot read EPUB book `x.epub`: the spine of `OPS/book.opf` lists no chapters"
    );
    // A chapter nested deeper than browsers build is named in the book's one error.
    let opf = OPF.replace(" properties=\"nav\"", "");
    let deep = chapter(&format!("{}x{}", "<div>".repeat(600), "</div>".repeat(600)));
    let bytes = book(&opf, &[("OPS/text/cover.xhtml", deep)]);
    let err = parse_epub(Path::new("x.epub"), &bytes, &ZipOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`x.epub` (chapter `OPS/text/cover.xhtml`) nests elements more than 512 deep, deeper \
         than browsers build pages; not indexed"
    );
}
