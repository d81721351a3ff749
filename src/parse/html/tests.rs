use pretty_assertions::assert_eq;

use super::*;
use crate::parse::RawLink;

fn outline(doc: &ParsedDoc) -> Vec<(u32, String)> {
    doc.sections
        .iter()
        .map(|s| (s.level, s.title.clone()))
        .collect()
}

#[test]
fn headings_nest_and_chrome_is_dropped() {
    let page = "<!DOCTYPE html>\n<html><head><title>Guide &mdash; Site</title>\n\
        <meta name=description content='A guide'></head>\n<body>\n\
        <div class=related role=navigation><h3>Navigation</h3><a href=index.html>index</a></div>\n\
        <div class=body role=main>\n<section id=guide><h1>Guide<a class=headerlink href=#guide>¶</a></h1>\n\
        <p>Intro &amp; more.</p>\n<section id=install><h2>Install</h2>\n<p>Run <code>x</code>.</p>\n\
        <pre>cargo  install\n  docnav</pre>\n</section>\n<section id=use><h2>Use</h2>\n\
        <ul><li>one</li><li>two<ol><li>a</li></ol></li></ul>\n\
        <table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td>1</td></tr></table>\n\
        <dl><dt>term</dt><dd>meaning</dd></dl>\n</section></section></div>\n\
        <div class=sphinxsidebar><h4>Previous topic</h4><p>Show Source</p></div>\n\
        <div class=footer>Report a Bug</div></body></html>\n";
    let doc = parse_html(page, Some("guide.html"), DocFormat::Html).unwrap();
    assert_eq!(doc.title.as_deref(), Some("Guide — Site"));
    assert_eq!(
        doc.metadata,
        vec![
            ("title".to_string(), "Guide — Site".to_string()),
            ("description".to_string(), "A guide".to_string())
        ]
    );
    assert_eq!(
        outline(&doc),
        vec![
            (1, "Guide".to_string()),
            (2, "Install".to_string()),
            (2, "Use".to_string())
        ]
    );
    let texts: Vec<&str> = doc.sections.iter().map(|s| s.content.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "Intro & more.",
            "Run x.\n\n```\ncargo  install\n  docnav\n```",
            "- one\n- two\n  1. a\n\n| k | v |\n| --- | --- |\n| a\\|b | 1 |\n\nterm\n  meaning",
        ]
    );
    assert_eq!(doc.sections[0].lines, Some(7..9));
    assert_eq!(doc.sections[1].anchor.as_deref(), Some("install"));
    assert_eq!(doc.sections[0].anchor.as_deref(), Some("guide"));
    assert_eq!(doc.source_units as usize, page.lines().count());
}

#[test]
fn sphinx_api_descriptions_are_nodes_under_their_heading() {
    let page = "<body><div class=body><h1>sys</h1><p>Intro <a href='argparse.html#nargs'>nargs</a>.</p>\
        <dl class='py data'><dt class='sig sig-object py' id=sys.argv>\
        <span class='sig-prename descclassname'><span class=pre>sys.</span></span>\
        <span class='sig-name descname'><span class=pre>argv</span></span>\
        <a class=headerlink href=#sys.argv>¶</a></dt><dd><p>The list. See <a href='#sys.exit'>exit</a>.</p>\
        <dl class='py method'><dt class=sig id=sys.x.y><span class='sig-name descname'>y</span>(<em>a</em>)</dt>\
        <dd>Inner.</dd></dl><p>After inner.</p></dd></dl>\
        <p>Back in sys.</p><h2>Next</h2><p>end</p></div></body>";
    let doc = parse_html(page, Some("sys.html"), DocFormat::Html).unwrap();
    assert_eq!(
        outline(&doc),
        vec![
            (1, "sys".to_string()),
            (ENTRY_LEVEL, "sys.argv".to_string()),
            (ENTRY_LEVEL + 1, "y".to_string()),
            (2, "Next".to_string())
        ]
    );
    assert_eq!(doc.sections[0].content, "Intro nargs.\n\nBack in sys.");
    assert_eq!(
        doc.sections[1].content,
        "sys.argv\n\nThe list. See exit.\n\nAfter inner."
    );
    assert_eq!(doc.sections[2].content, "y(a)\n\nInner.");
    assert_eq!(doc.sections[1].anchor.as_deref(), Some("sys.argv"));
    assert_eq!(
        doc.sections[0].links,
        vec![RawLink {
            file: Some("argparse.html".into()),
            anchor: Some("nargs".into())
        }]
    );
    assert_eq!(
        doc.sections[1].links,
        vec![RawLink {
            file: None,
            anchor: Some("sys.exit".into())
        }]
    );
}

/// `Part N` splits of a long section start on the source line of their first text: paragraph
/// `k` of the page sits on line `FIRST + k`, and a table row on a line of its own.
#[test]
fn parts_of_a_long_section_start_on_the_line_of_their_first_text() {
    const FIRST: u32 = 5;
    let mut page = String::from(
        "<!DOCTYPE html>\n<html><head><title>Long</title></head>\n<body>\n<main>\n<h1>Long</h1>\n",
    );
    let filler = "word ".repeat(60);
    for k in 1..=30 {
        if k == 20 {
            page.push_str(&format!("<table><tr><td>Row {k} {filler}</td></tr>\n"));
            page.push_str(&format!(
                "<tr><td>Row {} {filler}</td></tr></table>\n",
                k + 1
            ));
        } else if k != 21 {
            page.push_str(&format!("<p>Paragraph {k} {filler}</p>\n"));
        }
    }
    page.push_str("</main>\n</body></html>\n");
    let doc = parse_html(&page, Some("long.html"), DocFormat::Html).unwrap();
    let (tree, parts) = crate::tree::build::numbered_parts(doc, 200);
    for (k, lines) in &parts {
        // "Paragraph 12 word…" or "| Row 20 word…" starts on line FIRST + 12 or FIRST + 20.
        assert_eq!(lines.start, FIRST + k, "part starting with {k}");
    }
    // The last part ends with its section (here the page's root: the file's end).
    let last_end = parts.last().map(|p| p.1.end);
    assert_eq!(last_end, tree.nodes[0].lines.clone().map(|l| l.end));
    assert_eq!(last_end, Some(FIRST + 33));
}
