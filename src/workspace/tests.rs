#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

#[test]
fn unique_slug_appends_numbers() {
    let taken = ["guide", "guide-2"];
    assert_eq!(unique_slug("guide", |c| taken.contains(&c)), "guide-3");
    assert_eq!(unique_slug("intro", |c| taken.contains(&c)), "intro");
}

#[test]
fn slugify_is_readable() {
    assert_eq!(slugify("nodejs-doc__fs"), "nodejs-doc-fs");
    assert_eq!(slugify("R-intro"), "r-intro");
    assert_eq!(slugify("___"), "doc");
}

#[test]
fn unknown_format_version_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("catalog.json"),
        r#"{"format_version": 99, "docnav_version": "9", "documents": []}"#,
    )
    .unwrap();
    let err = Workspace::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("format version 99") && err.contains("reads version 1"),
        "{err}"
    );
}
