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
        err.contains("format version 99")
            && err.contains(&format!("reads version {FORMAT_VERSION}")),
        "{err}"
    );
}

#[test]
fn tree_files_round_trip_and_refuse_other_versions_and_garbage() {
    let lib = InMemoryLibrary::from_paths(
        &[concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/docs/multilingual.md"
        )],
        &crate::tree::BuildOptions::default(),
    )
    .unwrap();
    let doc = lib.document("multilingual").unwrap();
    let bytes = encode_tree_file(&doc, 0).unwrap();
    let path = std::path::Path::new("t.bin");
    assert_eq!(&decode_tree_file(path, &bytes).unwrap(), doc.as_ref());
    let mut other = bytes.clone();
    other[8] = 1;
    let err = decode_tree_file(path, &other).unwrap_err().to_string();
    assert!(err.contains("format version 1;"), "{err}");
    let err = decode_tree_file(path, b"{\"format_version\": 1}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a docnav tree file"), "{err}");
    let err = decode_tree_file(path, &bytes[..bytes.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(err.contains("is damaged"), "{err}");
}
