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

fn ids(ws: &Workspace) -> Vec<String> {
    ws.cards_page(0, 100)
        .iter()
        .map(|c| c.doc_id.clone())
        .collect()
}

#[test]
fn a_published_generation_opens_with_the_same_documents_and_hits() {
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    let done = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
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
    // Every file is in the manifest with its size and checksum.
    assert_eq!(manifest::verify(&done.path).unwrap(), done.manifest);
    let listed: Vec<&str> = done
        .manifest
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert!(listed.contains(&"catalog.db"), "{listed:?}");
    assert!(listed.contains(&"index/meta.json"), "{listed:?}");
    assert_eq!(
        listed.iter().filter(|p| p.starts_with("docs/")).count(),
        3,
        "{listed:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_generation_opens_without_write_access_to_its_folders() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    let done = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
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
    let mut expected: Vec<std::ffi::OsString> = ["catalog.db", "docs", "index", "manifest.json"]
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

#[test]
fn a_generation_with_a_missing_or_truncated_file_is_passed_over_for_the_older_one() {
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
    // The second generation as a replica might hold it mid-copy: every file written as a copy
    // (not a link: the damage below must not reach the first), then one truncated or missing.
    let second = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
    for file in &second.manifest.files {
        let path = second.path.join(&file.path);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, bytes).unwrap();
    }
    let tree = second
        .manifest
        .files
        .iter()
        .find(|f| f.path.starts_with("docs/"))
        .unwrap();
    let tree_path = second.path.join(&tree.path);
    let bytes = std::fs::read(&tree_path).unwrap();
    std::fs::write(&tree_path, &bytes[..bytes.len() / 2]).unwrap();
    let ws = Workspace::open(&out).unwrap();
    assert_eq!(ws.published_generation(), Some(1));
    assert_eq!(hits(&ws, "kiwi").len(), 3);

    std::fs::write(&tree_path, &bytes).unwrap();
    assert_eq!(
        Workspace::open(&out).unwrap().published_generation(),
        Some(2)
    );
    std::fs::remove_file(second.path.join("index/meta.json")).unwrap();
    assert_eq!(
        Workspace::open(&out).unwrap().published_generation(),
        Some(1)
    );
    // A manifest not arrived yet.
    std::fs::remove_file(second.path.join(MANIFEST)).unwrap();
    assert_eq!(
        Workspace::open(&out).unwrap().published_generation(),
        Some(1)
    );

    // Same sizes, other bytes: only the checksums see it.
    let first = out.join("gen-000001");
    let catalog = first.join("catalog.db");
    let mut bytes = std::fs::read(&catalog).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xFF;
    std::fs::write(&catalog, &bytes).unwrap();
    assert!(manifest::check(&first).is_ok());
    let why = manifest::verify(&first).unwrap_err();
    assert!(
        why.contains("sha256") && why.contains("catalog.db"),
        "{why}"
    );
}

#[test]
fn a_publish_folder_without_a_complete_generation_is_a_one_line_error() {
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    let done = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
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
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    let done = publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
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
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
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
    let root = tempfile::tempdir().unwrap();
    let ws_dir = indexed(root.path());
    let out = root.path().join("pub");
    publish(&ws_dir, &out, DEFAULT_KEEP).unwrap();
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
