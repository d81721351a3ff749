use super::*;

fn leaf(title: &str, content: &str, structure: &str, depth: u32, parent: u32) -> Node {
    Node {
        title: title.into(),
        content: content.into(),
        summary: String::new(),
        structure: structure.into(),
        depth,
        parent: Some(NodeId(parent)),
        children: vec![],
        lines: None,
        pages: None,
        token_count: 0,
        references: vec![],
    }
}

fn sample() -> Tree {
    let mut root = leaf("Guide", "Intro.", "", 0, 0);
    root.parent = None;
    root.children = vec![NodeId(1), NodeId(3)];
    let mut install = leaf("Install", "How to install.", "1", 1, 0);
    install.children = vec![NodeId(2)];
    Tree {
        nodes: vec![
            root,
            install,
            leaf("Linux", "apt install x", "1.1", 2, 1),
            leaf("Usage", "Run it.", "2", 1, 0),
        ],
        format: DocFormat::Markdown,
        metadata: vec![],
        summary_strategy: SummaryStrategy::Quick,
        pages_without_text: vec![],
        source_units: 10,
        links: Links::default(),
        first_split: 4,
    }
}

#[test]
fn preorder_is_reading_order() {
    let t = sample();
    assert_eq!(
        t.preorder(NodeId::ROOT),
        vec![NodeId(0), NodeId(1), NodeId(2), NodeId(3)]
    );
}

#[test]
fn text_of_renders_subtree_under_headings() {
    let t = sample();
    assert_eq!(
        t.text_of(NodeId(1)),
        "# Install\n\nHow to install.\n\n## Linux\n\napt install x\n"
    );
}

#[test]
fn heading_lines_are_where_text_of_writes_each_heading() {
    let t = sample();
    // "# Guide", "", "Intro.", "", "## Install", "", "How to install.", "", "### Linux", …
    assert_eq!(
        t.heading_lines(NodeId::ROOT),
        vec![
            (1, NodeId(0)),
            (5, NodeId(1)),
            (9, NodeId(2)),
            (13, NodeId(3))
        ]
    );
    let text = t.text_of(NodeId::ROOT);
    let lines: Vec<&str> = text.lines().collect();
    for (line, id) in t.heading_lines(NodeId::ROOT) {
        assert!(lines[line - 1].ends_with(&format!(" {}", t.node(id).title)));
    }
    assert_eq!(
        t.heading_lines(NodeId(1)),
        vec![(1, NodeId(1)), (5, NodeId(2))]
    );
}

#[test]
fn lookups_by_structure_and_title_path() {
    let t = sample();
    assert_eq!(t.by_structure("1.1"), Some(NodeId(2)));
    assert_eq!(t.by_structure(""), Some(NodeId::ROOT));
    assert_eq!(t.by_structure("3"), None);
    assert_eq!(t.by_structure("x"), None);
    assert_eq!(t.by_structure("0"), None);
    assert_eq!(t.by_title_path(&["install", "LINUX"]), Some(NodeId(2)));
    assert_eq!(t.by_title_path(&["install", "mac"]), None);
    assert_eq!(t.title_path(NodeId(2)), vec!["Install", "Linux"]);
}

#[test]
fn text_head_is_a_prefix_of_text_of_with_its_whole_length() {
    let md = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/docs/ripgrep__FAQ.md"
    ))
    .unwrap();
    let tree = build_tree(
        crate::parse::markdown::parse_markdown(&md),
        &BuildOptions::default(),
    );
    for id in tree.preorder(NodeId::ROOT) {
        let whole = tree.text_of(id);
        let chars = whole.chars().count();
        for max in [0, 1, 7, 100, 5_000, usize::MAX] {
            let (head, total) = tree.text_head(id, max);
            assert_eq!(total, chars, "{id:?}");
            let expected: String = whole.chars().take(max).collect();
            assert_eq!(head, expected, "{id:?} {max}");
        }
    }
    let s = sample();
    assert_eq!(
        s.text_head(NodeId::ROOT, usize::MAX).0,
        s.text_of(NodeId::ROOT)
    );
}
