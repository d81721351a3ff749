use super::*;
use crate::workspace::indexer::NoProgress;
use crate::workspace::{IndexOptions, Library};

/// A workspace in `root/ws` indexed from three Markdown files written in `root/src`.
fn indexed(root: &Path) -> PathBuf {
    let src = root.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for (name, text) in [
        (
            "kiwi.md",
            "# Kiwi\n\nThe kiwi is a flightless bird.\n\n## Eggs\n\nKiwi eggs are large.\n",
        ),
        (
            "apple.md",
            "# Apple\n\nAn apple a day.\n\n## Kiwi\n\nNot a bird.\n",
        ),
        ("pear.md", "# Pear\n\nPears ripen off the tree.\n"),
    ] {
        std::fs::write(src.join(name), text).unwrap();
    }
    let ws = root.join("ws");
    index(&ws, &src);
    ws
}

fn index(ws: &Path, src: &Path) {
    let report = Workspace::index(
        ws,
        &[src.display().to_string()],
        &IndexOptions::default(),
        &NoProgress,
    )
    .unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
}

/// The top hits of `query`: (doc id, node, score).
fn hits(ws: &Workspace, query: &str) -> Vec<(String, String, f32)> {
    let sections = ws.sections().unwrap();
    let search = sections.prepare(query, crate::index::Scope::All).unwrap();
    search
        .top(10)
        .unwrap()
        .into_iter()
        .map(|h| (h.doc_id, format!("{:?}", h.node), h.score))
        .collect()
}

/// A fresh temporary root holding the workspace [`indexed`] there and its publish folder
/// `root/pub`, with a first generation published into it: `(root, ws_dir, out, generation)`.
fn published() -> (tempfile::TempDir, PathBuf, PathBuf, Published) {
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    let done = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
    (root, ws_dir, out, done)
}

/// A further generation of `ws_dir` published into `out`, its files then made copies of
/// themselves, as a replica holds them (see [`unlink_copies`]).
fn copied_generation(ws_dir: &Path, out: &Path) -> Published {
    let generation = publish(ws_dir, out, DEFAULT_KEEP).unwrap();
    unlink_copies(&generation.path);
    generation
}

/// The first tree file `read_dir` lists in the `docs` folder of `generation`.
fn first_tree_file(generation: &Path) -> PathBuf {
    std::fs::read_dir(generation.join("docs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

fn ids(ws: &Workspace) -> Vec<String> {
    ws.cards_page(0, 100)
        .iter()
        .map(|c| c.doc_id.clone())
        .collect()
}

#[test]
fn a_published_generation_opens_with_the_same_documents_and_hits() {
    let (_root, ws_dir, out, done) = published();
    assert_eq!(done.path, out.join("gen-000001"));
    assert!(is_publish_folder(&out));
    assert_eq!(done.manifest.documents, 3);

    let source = Workspace::open(&ws_dir).unwrap();
    let replica = Workspace::open(&out).unwrap();
    assert_eq!(replica.published_generation(), Some(1));
    assert_eq!(replica.data_dir(), done.path);
    assert_eq!(replica.dir(), out);
    assert_eq!(ids(&replica), ids(&source));
    let expected = hits(&source, "kiwi bird");
    assert_eq!(expected.len(), 3, "{expected:?}");
    assert_eq!(hits(&replica, "kiwi bird"), expected);
    let doc = replica.document("kiwi").unwrap();
    assert_eq!(doc.card.title, source.document("kiwi").unwrap().card.title);

    // The copy is self-contained: a rollback-journal database (header bytes 18 and 19 are 1,
    // not WAL's 2), no -wal or -shm beside it; the tree files are links to the workspace's.
    let header = std::fs::read(done.path.join("catalog.db")).unwrap();
    assert_eq!(&header[18..20], &[1, 1]);
    assert!(!done.path.join("catalog.db-wal").exists());
    assert!(!done.path.join("catalog.db-shm").exists());
    assert!(done.linked > 0, "{done:?}");
    // Every file is in the manifest with its size and checksum, but the tree files: those are
    // counted there and listed in docs.sha256.
    assert_eq!(manifest::verify(&done.path).unwrap(), done.manifest);
    let listed: Vec<&str> = done
        .manifest
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert!(listed.contains(&"catalog.db"), "{listed:?}");
    assert!(listed.contains(&"index/meta.json"), "{listed:?}");
    assert!(listed.contains(&"docs.sha256"), "{listed:?}");
    assert!(!listed.iter().any(|p| p.starts_with("docs/")), "{listed:?}");
    let mut names: Vec<String> = std::fs::read_dir(done.path.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(
        done.manifest.docs,
        listing::DocsSummary {
            files: 3,
            bytes: names
                .iter()
                .map(|n| std::fs::metadata(done.path.join("docs").join(n))
                    .unwrap()
                    .len())
                .sum(),
            names_sha256: listing::names_digest(names.iter().map(String::as_str)),
        }
    );
    let listing = std::fs::read_to_string(done.path.join(listing::DOCS_LISTING)).unwrap();
    let expected: String = names
        .iter()
        .map(|n| {
            let sum = crate::digest::sha256_file_hex(&done.path.join("docs").join(n)).unwrap();
            format!("{sum}  docs/{n}\n")
        })
        .collect();
    assert_eq!(listing, expected);
}

#[cfg(unix)]
#[test]
fn a_generation_opens_without_write_access_to_its_folders() {
    use std::os::unix::fs::PermissionsExt;
    let (_root, ws_dir, out, done) = published();
    let read_only = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let folders = [
        done.path.join("index"),
        done.path.join("docs"),
        done.path.clone(),
        out.clone(),
    ];
    for folder in &folders {
        read_only(folder, 0o555);
    }
    // Root may write anyway; the test then shows that nothing needed to be created (the folder
    // listing below).
    let opened = Workspace::open(&out);
    let before: Vec<_> = std::fs::read_dir(&done.path)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let result = opened.map(|ws| (hits(&ws, "kiwi"), ws.document("pear").is_ok()));
    for folder in folders.iter().rev() {
        read_only(folder, 0o755);
    }
    let (found, loaded) = result.unwrap();
    assert_eq!(found, hits(&Workspace::open(&ws_dir).unwrap(), "kiwi"));
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(loaded);
    let mut before = before;
    before.sort();
    let mut expected: Vec<std::ffi::OsString> = [
        "catalog.db",
        "docs",
        "docs.sha256",
        "index",
        "manifest.json",
    ]
    .iter()
    .map(|s| s.into())
    .collect();
    expected.sort();
    assert_eq!(before, expected);
}

#[test]
fn a_newer_generation_is_opened_and_older_ones_are_pruned_to_keep() {
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    publish(&ws_dir, &out, 2).unwrap();
    std::fs::write(
        root.path().join("src").join("plum.md"),
        "# Plum\n\nA plum is a stone fruit.\n",
    )
    .unwrap();
    index(&ws_dir, &root.path().join("src"));
    let second = publish(&ws_dir, &out, 2).unwrap();
    assert_eq!(second.manifest.generation, 2);
    assert!(second.pruned.is_empty());
    let replica = Workspace::open(&out).unwrap();
    assert_eq!(replica.published_generation(), Some(2));
    assert_eq!(replica.document_count(), 4);
    assert_eq!(hits(&replica, "stone fruit")[0].0, "plum");

    let third = publish(&ws_dir, &out, 2).unwrap();
    assert_eq!(third.pruned, vec![out.join("gen-000001")]);
    let left: Vec<u64> = generations(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(left, vec![3, 2]);
    assert_eq!(
        Workspace::open(&out).unwrap().published_generation(),
        Some(3)
    );
}

/// Every file under `dir`, rewritten as a copy of itself (not a link): damage done to it then
/// does not reach the generation it was linked from.
fn unlink_copies(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            unlink_copies(&path);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            std::fs::remove_file(&path).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }
    }
}

fn opened_generation(out: &Path) -> Option<u64> {
    Workspace::open(out).unwrap().published_generation()
}

#[test]
fn a_generation_with_a_missing_or_truncated_catalog_or_index_file_is_passed_over() {
    let (_root, ws_dir, out, _) = published();
    // The second generation as a replica might hold it mid-copy.
    let second = copied_generation(&ws_dir, &out);
    assert_eq!(opened_generation(&out), Some(2));
    for name in ["catalog.db", "index/meta.json", "docs.sha256"] {
        let path = second.path.join(name);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(opened_generation(&out), Some(1), "{name} truncated");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(opened_generation(&out), Some(1), "{name} missing");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(opened_generation(&out), Some(2), "{name} back");
    }
    let segment = second
        .manifest
        .files
        .iter()
        .find(|f| f.path.starts_with("index/") && f.path != "index/meta.json")
        .unwrap();
    std::fs::remove_file(second.path.join(&segment.path)).unwrap();
    assert_eq!(opened_generation(&out), Some(1));
    // A manifest not arrived yet.
    std::fs::remove_file(second.path.join(MANIFEST)).unwrap();
    assert_eq!(opened_generation(&out), Some(1));
}

#[test]
fn a_generation_whose_docs_have_not_all_arrived_is_passed_over_even_after_it_was_complete() {
    let (_root, ws_dir, out, _) = published();
    let second = copied_generation(&ws_dir, &out);
    let docs = second.path.join("docs");
    let name = first_tree_file(&second.path)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    // As rsync holds a file it is still writing: under a temporary dot-name.
    let in_progress = docs.join(format!(".{name}.Xy12ab"));
    std::fs::rename(docs.join(&name), &in_progress).unwrap();
    let ws = Workspace::open(&out).unwrap();
    assert_eq!(ws.published_generation(), Some(1));
    assert_eq!(hits(&ws, "kiwi").len(), 3);
    let why = manifest::check(&second.path).unwrap_err();
    assert!(why.contains("holds 2 of the 3 tree files"), "{why}");

    // Arrived: complete, and remembered for the next opens.
    std::fs::rename(&in_progress, docs.join(&name)).unwrap();
    assert_eq!(opened_generation(&out), Some(2));
    let memo = out.join(listing::CHECKED).join("gen-000002");
    let remembered = std::fs::read(&memo).unwrap();
    assert_eq!(opened_generation(&out), Some(2));

    // A file gone from a generation that was complete: the folder changed, so the memory no
    // longer holds, even written back as it was.
    std::fs::remove_file(docs.join(&name)).unwrap();
    std::fs::write(&memo, &remembered).unwrap();
    assert_eq!(opened_generation(&out), Some(1));
    // Another file in its place (same count, other names) is not the generation either.
    std::fs::write(docs.join("stray-000000000000.bin"), b"x").unwrap();
    let why = manifest::check(&second.path).unwrap_err();
    assert!(why.contains("does not hold the tree files"), "{why}");
    assert_eq!(opened_generation(&out), Some(1));
}

#[test]
fn verify_names_a_changed_file_that_opening_does_not_read() {
    let (_root, _, _, done) = published();
    unlink_copies(&done.path);
    assert_eq!(manifest::verify(&done.path).unwrap(), done.manifest);
    // Same sizes, other bytes: only the checksums see it.
    let flip = |path: &Path| {
        let mut bytes = std::fs::read(path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xFF;
        std::fs::write(path, &bytes).unwrap();
    };
    let tree = first_tree_file(&done.path);
    flip(&tree);
    assert!(manifest::check(&done.path).is_ok());
    let why = manifest::verify(&done.path).unwrap_err();
    assert_eq!(
        why,
        format!(
            "`{}` does not have the sha256 `docs.sha256` lists",
            tree.display()
        )
    );
    flip(&tree);
    let catalog = done.path.join("catalog.db");
    flip(&catalog);
    let why = manifest::verify(&done.path).unwrap_err();
    assert_eq!(
        why,
        format!(
            "`{}` does not have the sha256 `manifest.json` lists",
            catalog.display()
        )
    );
    flip(&catalog);
    // A listing that no longer names every tree file is caught before any file is read.
    let listing_path = done.path.join(listing::DOCS_LISTING);
    let text = std::fs::read_to_string(&listing_path).unwrap();
    let shorter: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&listing_path, shorter).unwrap();
    assert!(manifest::verify(&done.path).is_err());
}

#[test]
fn a_generation_of_the_first_manifest_format_is_refused_with_the_way_out() {
    let (_root, _, out, done) = published();
    let old = r#"{"format": 1, "generation": 1, "files": []}"#;
    std::fs::write(done.path.join(MANIFEST), old).unwrap();
    let line = Workspace::open(&out).unwrap_err().to_string();
    assert!(
        line.contains("has format 1; this docnav reads 2")
            && line.contains("publish the workspace again"),
        "{line}"
    );
}

#[test]
fn a_publish_folder_without_a_complete_generation_is_a_one_line_error() {
    let (_root, _, out, done) = published();
    std::fs::remove_file(done.path.join(MANIFEST)).unwrap();
    let err = Workspace::open(&out).unwrap_err();
    assert!(matches!(err, WorkspaceError::NoGeneration { .. }), "{err}");
    let line = err.to_string();
    assert!(!line.contains('\n'), "{line}");
    assert!(line.contains(&format!("`{}`", out.display())), "{line}");
    assert!(
        line.contains("manifest.json") && line.contains("docnav publish"),
        "{line}"
    );

    std::fs::remove_dir_all(&done.path).unwrap();
    let line = Workspace::open(&out).unwrap_err().to_string();
    assert!(line.contains("holds no generation"), "{line}");
}

#[test]
fn writing_into_a_publish_folder_or_a_generation_is_refused() {
    let (root, ws_dir, out, done) = published();
    let src = root.path().join("src").display().to_string();
    for target in [&out, &done.path] {
        let err = Workspace::index(
            target,
            std::slice::from_ref(&src),
            &IndexOptions::default(),
            &NoProgress,
        )
        .unwrap_err();
        assert!(matches!(err, WorkspaceError::PublishedReadOnly(_)), "{err}");
        assert!(err.to_string().contains("docnav publish"), "{err}");
        let err = publish(target, &root.path().join("other"), 1).unwrap_err();
        assert!(matches!(err, WorkspaceError::PublishedReadOnly(_)), "{err}");
    }
    assert!(!out.join("docs").exists() && !out.join("catalog.db").exists());
    // Nor is a folder holding other things made a publish folder.
    let err = publish(&ws_dir, &root.path().join("src"), 1).unwrap_err();
    assert!(matches!(err, WorkspaceError::NotPublishFolder(_)), "{err}");
    assert!(!root.path().join("src").join(MARKER).exists());
}

#[test]
fn a_failed_publish_leaves_only_a_temporary_that_readers_pass_over_and_the_next_removes() {
    let (_root, ws_dir, out, _) = published();
    let stale = out.join(".tmp-gen-000002");
    std::fs::create_dir_all(stale.join("docs")).unwrap();
    std::fs::write(stale.join("catalog.db"), b"half").unwrap();
    assert_eq!(
        Workspace::open(&out).unwrap().published_generation(),
        Some(1)
    );
    let next = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
    assert_eq!(next.manifest.generation, 2);
    assert!(!stale.exists());
}

#[test]
fn a_long_running_reader_moves_to_a_newer_generation_once_it_is_complete() {
    let (_root, ws_dir, out, _) = published();
    let live = crate::nav::live::LiveLibrary::new(&out);
    assert_eq!(
        live.get().unwrap().workspace.published_generation(),
        Some(1)
    );
    // A newer generation whose manifest has not arrived: the reader keeps the first.
    let second = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
    let manifest = std::fs::read(second.path.join(MANIFEST)).unwrap();
    std::fs::remove_file(second.path.join(MANIFEST)).unwrap();
    assert_eq!(
        live.get().unwrap().workspace.published_generation(),
        Some(1)
    );
    std::fs::write(second.path.join(MANIFEST), manifest).unwrap();
    // Looked at again after a pause; no clock is read here: the library is asked until it moves
    // (each call returns at once while the pause lasts).
    let moved = std::iter::repeat_with(|| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        live.get().unwrap().workspace.published_generation()
    })
    .take(200)
    .any(|g| g == Some(2));
    assert!(moved);
}
