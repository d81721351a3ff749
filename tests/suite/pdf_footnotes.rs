//! Footnotes of real PDFs: out of the running text, once, marked, at the end of the section
//! that refers to them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use docnav::parse::pdf::parse_pdf;
use docnav::parse::{ParsedDoc, RawSection};
use pretty_assertions::assert_eq;

use super::parse_pdf::{one_page_content, save};

fn parse_fixture(name: &str) -> ParsedDoc {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docs")
        .join(name);
    parse_pdf(&path, &std::fs::read(&path).unwrap()).unwrap()
}

fn section<'a>(doc: &'a ParsedDoc, title: &str) -> &'a RawSection {
    doc.sections
        .iter()
        .find(|s| s.title == title)
        .unwrap_or_else(|| panic!("no section {title:?}"))
}

/// How many times `needle` occurs in the preamble and all sections.
/// The text of a one-page PDF drawn by `content`: its preamble and sections, concatenated.
fn one_page_text(content: &str) -> String {
    let doc = parse_pdf(Path::new("f.pdf"), &save(one_page_content(content))).unwrap();
    std::iter::once(&doc.preamble)
        .chain(&doc.sections)
        .map(|s| s.content.as_str())
        .collect()
}

fn occurrences(doc: &ParsedDoc, needle: &str) -> usize {
    std::iter::once(&doc.preamble)
        .chain(&doc.sections)
        .map(|s| s.content.matches(needle).count())
        .sum()
}

#[test]
fn r_intro_footnote_no_longer_splits_the_sentence_it_interrupted() {
    // Page 12 of R-intro ends mid-sentence ("… but it can" / "be quite hard …" on page 13) with
    // footnote 5 between the two halves; the footnote now follows its section's text.
    let doc = parse_fixture("R-intro.pdf");
    let note = "[^5]: The leading “dot” in this file name makes it invisible in normal file \
                listings in UNIX, and in default GUI\nfile listings on macOS and Windows.";
    assert_eq!(occurrences(&doc, "The leading “dot” in this file name"), 1);
    let s = section(&doc, "Data permanency and removing objects");
    assert_eq!(s.pages, Some(12..14));
    assert!(s.content.ends_with(note), "{}", s.content);
    assert!(s
        .content
        .contains("written to a file called .RData[^5] in the current directory"));
    assert!(s
        .content
        .contains("in the context of a single analysis, but it can\n\nbe quite hard to decide"));
}

#[test]
fn r_intro_footnote_goes_to_the_section_of_its_reference_not_of_its_page_bottom() {
    // Footnote 4 is printed at the bottom of page 12, below the start of "Data permanency …";
    // its reference is in the section before, which shares that page.
    let doc = parse_fixture("R-intro.pdf");
    let s = section(
        &doc,
        "Executing commands from or diverting output to a file",
    );
    assert!(s
        .content
        .starts_with("If commands[^4] are stored in an external file"));
    assert!(s
        .content
        .ends_with("restores it to the console once again.\n\n[^4]: of unlimited length."));
    assert_eq!(occurrences(&doc, "of unlimited length."), 1);
    let notes = |title: &str| -> Vec<String> {
        section(&doc, title)
            .content
            .lines()
            .filter(|l| l.starts_with("[^"))
            .map(|l| l.split(':').next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(notes("Data permanency and removing objects"), vec!["[^5]"]);
    assert_eq!(
        notes("R commands, case sensitivity, etc."),
        vec!["[^1]", "[^2]", "[^3]"]
    );
}

#[test]
fn fhs_footnotes_with_glued_marks_and_references_set_on_their_own_line() {
    // fhs-3.0 glues some marks to the note (`9Found at …`) and sets some references a line
    // lower than the text they belong to (`… is installed:` then a line `3`).
    let doc = parse_fixture("fhs-3.0.pdf");
    let total: usize = doc
        .sections
        .iter()
        .map(|s| {
            s.content
                .lines()
                .filter(|l| l.starts_with("[^") && l.contains("]: "))
                .count()
        })
        .sum();
    // Every line of fhs's page-bottom small type that starts with a mark (47, read off the
    // page lines by eye) opens a footnote.
    assert_eq!(total, 47);
    assert_eq!(
        occurrences(&doc, "Found at http://standards.freedesktop.org"),
        1
    );
    let glued = doc
        .sections
        .iter()
        .find(|s| {
            s.content
                .contains("[^9]: Found at http://standards.freedesktop.org")
        })
        .unwrap();
    assert!(glued
        .content
        .contains("the XDG Base Directories specification[^9] and the GLib conventions"));
    let own_line = section(&doc, "3.7.3. Specific Options");
    assert!(own_line
        .content
        .contains("must be in /etc if the corresponding subsystem is installed:\n[^3]\n"));
    assert!(own_line
        .content
        .contains("\n\n[^3]: Systems that use the shadow password suite will have additional"));
}

#[test]
fn small_type_at_the_page_bottom_without_a_raised_reference_stays_in_place() {
    // A 10 pt paragraph with a raised 6 pt `1`, then at the bottom two 8 pt lines: a numbered
    // listing line without any reference (`2 …`) and the footnote `1 …`. Only the referenced
    // one moves; the listing line keeps its place.
    let content = "BT /F1 10 Tf 1 0 0 1 72 720 Tm (A sentence with a note) Tj ET \
                   BT /F1 6 Tf 1 0 0 1 182 724 Tm (1) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 72 708 Tm (that goes on.) Tj ET \
                   BT /F1 8 Tf 1 0 0 1 72 110 Tm (2 listing line) Tj ET \
                   BT /F1 8 Tf 1 0 0 1 72 100 Tm (1 The note text.) Tj ET";
    assert_eq!(
        one_page_text(content),
        "A sentence with a note[^1]\nthat goes on.\n\n2 listing line\n\n[^1]: The note text."
    );
}

#[test]
fn two_references_side_by_side_drawn_in_pieces_are_two_footnotes() {
    // debian-policy's `hard links,²³`: the raised 6 pt `2` and `3` are two strings; "hard links,"
    // in 10 pt ends at 72 + 11 × 5.5 = 132.5, `2` spans 132.5–135.8, `3` follows at once. The
    // body needs more text than the notes, or the notes' size would be the body size.
    let content = "BT /F1 10 Tf 1 0 0 1 72 720 Tm (hard links,) Tj ET \
                   BT /F1 6 Tf 1 0 0 1 132.5 724 Tm (2) Tj ET \
                   BT /F1 6 Tf 1 0 0 1 135.8 724 Tm (3) Tj ET \
                   BT /F1 10 Tf 1 0 0 1 141 720 Tm (device files, sockets or setuid files.) Tj ET \
                   BT /F1 8 Tf 1 0 0 1 72 110 Tm (2 First note.) Tj ET \
                   BT /F1 8 Tf 1 0 0 1 72 100 Tm (3 Second note.) Tj ET";
    assert_eq!(
        one_page_text(content),
        "hard links,[^2][^3] device files, sockets or setuid files.\n\n[^2]: First note.\n\n\
         [^3]: Second note."
    );
}
