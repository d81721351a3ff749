use pretty_assertions::assert_eq;

use super::*;
use crate::parse::{ParsedDoc, RawSection};
use crate::tree::{build_tree, BuildOptions};

fn tree(preamble: &str, sections: Vec<(u32, String, String)>) -> Tree {
    let doc = ParsedDoc {
        format: DocFormat::Text,
        title: Some("Handbook".into()),
        metadata: vec![],
        preamble: RawSection {
            content: preamble.into(),
            ..RawSection::default()
        },
        sections: sections
            .into_iter()
            .map(|(level, title, content)| RawSection {
                level,
                title,
                content,
                ..RawSection::default()
            })
            .collect(),
        pages_without_text: vec![],
        source_units: 1,
        warnings: vec![],
    };
    build_tree(doc, &BuildOptions::default())
}

fn card(t: &Tree) -> DocCard {
    DocCard::new("handbook", "/tmp/handbook.txt", 1234, &"ab".repeat(32), t)
}

fn json_size(c: &DocCard) -> usize {
    serde_json::to_string(c).unwrap().len()
}

#[test]
fn small_tree_lists_whole_outline_in_reading_order() {
    let t = tree(
        "A handbook about brokers. It has sections.",
        vec![
            (1, "Install".into(), "Install kafka brokers.".into()),
            (2, "Linux".into(), "apt".into()),
            (1, "Usage".into(), "Run brokers.".into()),
        ],
    );
    let c = card(&t);
    assert_eq!(c.outline, ["1 Install", "1.1 Linux", "2 Usage"]);
    assert_eq!(c.summary, "A handbook about brokers. It has sections.");
    assert_eq!(c.title, "Handbook");
    assert_eq!(c.node_count, 4);
    assert!(
        c.top_terms.iter().any(|t| t == "broker"),
        "{:?}",
        c.top_terms
    );
    assert!(c.top_terms.len() <= CARD_TOP_TERMS);
}

#[test]
fn large_outline_is_cut_depth_one_first_and_marked() {
    let mut sections = Vec::new();
    for i in 0..60 {
        sections.push((
            1,
            format!("Chapter number {i} with a fairly long title"),
            "text".into(),
        ));
        sections.push((2, format!("Subsection {i}"), "more text".into()));
    }
    let t = tree("", sections);
    let c = card(&t);
    assert!(json_size(&c) < 1024, "{}", json_size(&c));
    let last = c.outline.last().unwrap();
    assert!(
        last.starts_with("… (+") && last.ends_with(" more)"),
        "{last}"
    );
    let listed = c.outline.len() - 1;
    let more: usize = last["… (+".len()..last.len() - " more)".len()]
        .parse()
        .unwrap();
    assert_eq!(listed + more, 120);
    // Depth 1 entries go first: nothing of depth 2 is listed while depth 1 entries are missing.
    assert!(c.outline[..listed].iter().all(|e| !e.contains('.')));
    assert_eq!(c.outline[0], "1 Chapter number 0 with a fairly long title");
}

#[test]
fn long_non_ascii_fields_stay_in_budget() {
    let long_cjk = "設定ファイルはホームディレクトリに置きます。".repeat(30);
    let sections = (0..40)
        .map(|i| {
            (
                1,
                format!("{i}: {}", "インストール".repeat(20)),
                long_cjk.clone(),
            )
        })
        .collect();
    let t = tree(&long_cjk, sections);
    let c = card(&t);
    assert!(json_size(&c) < 1024, "{}", json_size(&c));
    assert!(c.summary.chars().count() <= CARD_SUMMARY_MAX_CHARS);
    assert!(!c.summary.is_empty());
    assert!(c
        .outline
        .iter()
        .all(|e| e.chars().count() <= OUTLINE_TITLE_MAX_CHARS + 4));
}

#[test]
fn part_splits_are_not_outline_entries() {
    let long = (0..40)
        .map(|i| format!("Paragraph {i} about brokers and topics.\n\n"))
        .collect();
    let t = build_tree(
        ParsedDoc {
            format: DocFormat::Text,
            title: None,
            metadata: vec![],
            preamble: RawSection {
                content: long,
                ..RawSection::default()
            },
            sections: vec![],
            pages_without_text: vec![],
            source_units: 1,
            warnings: vec![],
        },
        &BuildOptions {
            max_leaf_tokens: 50,
            ..BuildOptions::default()
        },
    );
    assert!(t.len() > 2, "the root was split into parts");
    assert_eq!(card(&t).outline, Vec::<String>::new());
}

#[test]
fn truncate_chars_cuts_on_char_boundaries() {
    assert_eq!(truncate_chars("short", 10), "short");
    assert_eq!(truncate_chars("インストール", 4), "インス…");
    assert_eq!(truncate_chars("abc def", 5), "abc…");
}

#[test]
fn top_terms_read_past_a_prefix_of_redundant_terms() {
    // `stat` first, then 30 dotted terms whose part `stat` is already listed (all redundant,
    // more than the ordered prefix holds), then `zebra`: it must still be found.
    let mut text = "stat ".repeat(100);
    for first in ['q', 'r'] {
        for second in 'a'..='o' {
            text.push_str(&format!("stat.{first}{second} ").repeat(10));
        }
    }
    text.push_str(&"zebra ".repeat(5));
    let t = tree(&text, vec![]);
    assert_eq!(crate::index::top_terms(&t, 2), ["stat", "zebra"]);
}

/// A changelog's card names its newest and oldest releases, and under a single
/// wrapper heading ("1 Changelog") the outline shows the level below it.
#[test]
fn a_changelog_card_names_its_release_range_and_looks_below_its_wrapper() {
    let t = tree(
        "",
        vec![
            (1, "Changelog".into(), "All notable changes.".into()),
            (2, "Unreleased".into(), "Nothing yet.".into()),
            (2, "[v2.10.0] - 2024-01-02".into(), String::new()),
            (3, "Added".into(), "Rule no-cycle.".into()),
            (2, "2.9.1".into(), "Fixes.".into()),
            (2, "Version 1.0".into(), "First.".into()),
        ],
    );
    let c = card(&t);
    assert!(
        c.summary
            .starts_with("releases v2.10.0 (newest) to 1.0 (oldest), 3 versions. "),
        "{}",
        c.summary
    );
    assert_eq!(
        c.outline,
        [
            "1 Changelog",
            "1.1 Unreleased",
            "1.2 [v2.10.0] - 2024-01-02",
            "1.2.1 Added",
            "1.3 2.9.1",
            "1.4 Version 1.0"
        ]
    );
    // Numbered sections are not releases.
    let t = tree(
        "",
        vec![
            (1, "2.1 Install".into(), "x".into()),
            (1, "2.2 Usage".into(), "y".into()),
            (1, "3.13.2. Requirements".into(), "z".into()),
        ],
    );
    assert!(version_range(&t).is_none());
    // Pre-releases sort before their release, and among themselves by their identifiers
    // (babel-parser's changelog lists 7.0.0-beta.0 last: its card said it was the newest).
    let t = tree(
        "",
        vec![
            (1, "7.0.0-beta.8".into(), "x".into()),
            (1, "7.0.0-beta.10".into(), "x".into()),
            (1, "7.0.0-alpha.20".into(), "x".into()),
            (1, "7.0.0-beta.0".into(), "x".into()),
        ],
    );
    assert_eq!(
        version_range(&t).unwrap(),
        "releases 7.0.0-beta.10 (newest) to 7.0.0-alpha.20 (oldest), 4 versions"
    );
    let t = tree(
        "",
        vec![
            (1, "7.0.0-rc.1".into(), "x".into()),
            (1, "7.0.0".into(), "x".into()),
            (1, "6.26.0".into(), "x".into()),
        ],
    );
    assert_eq!(
        version_range(&t).unwrap(),
        "releases 7.0.0 (newest) to 6.26.0 (oldest), 3 versions"
    );
}
