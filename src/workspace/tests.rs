use super::*;

#[test]
fn unique_slug_appends_numbers() {
    let taken = ["guide", "guide-2"];
    assert_eq!(unique_slug("guide", |c| taken.contains(&c)), "guide-3");
    assert_eq!(unique_slug("intro", |c| taken.contains(&c)), "intro");
}

#[test]
fn shard_key_is_shared_by_every_id_unique_slug_makes_of_a_base() {
    assert_eq!(shard_key("guide"), "guide");
    assert_eq!(shard_key("guide-2"), "guide");
    assert_eq!(shard_key("guide-2-2"), "guide");
    assert_eq!(shard_key("guide-10"), "guide");
    // Not suffixes unique_slug writes: kept.
    assert_eq!(shard_key("guide-1"), "guide-1");
    assert_eq!(shard_key("doc-007"), "doc-007");
    assert_eq!(shard_key("r-intro"), "r-intro");
    assert_eq!(shard_key("2024"), "2024");
    assert_eq!(shard_key("-3"), "-3");
    for base in ["guide", "guide-1", "guide-2", "doc-007"] {
        let taken: Vec<String> = vec![base.to_string(), format!("{base}-2")];
        let id = unique_slug(base, |c| taken.iter().any(|t| t == c));
        assert_eq!(shard_key(&id), shard_key(base), "{id}");
    }
}

#[test]
fn slugify_is_readable() {
    assert_eq!(slugify("nodejs-doc__fs"), "nodejs-doc-fs");
    assert_eq!(slugify("R-intro"), "r-intro");
    assert_eq!(slugify("___"), "doc");
}

/// `text` written to `dir/name`, with the workspace folder `dir/ws` and the arguments of an
/// index run of that one file: `(source, ws_dir, args)`.
fn one_source(dir: &Path, name: &str, text: &str) -> (PathBuf, PathBuf, [String; 1]) {
    let src = dir.join(name);
    std::fs::write(&src, text).unwrap();
    let args = [src.to_string_lossy().into_owned()];
    (src, dir.join("ws"), args)
}

/// The folder `dir/src` holding `files` (name, text), with the workspace folder `dir/ws` and
/// the arguments of an index run of the folder: `(folder, ws_dir, args)`.
fn source_folder(dir: &Path, files: &[(&str, &str)]) -> (PathBuf, PathBuf, [String; 1]) {
    let src = dir.join("src");
    std::fs::create_dir(&src).unwrap();
    for (name, text) in files {
        std::fs::write(src.join(name), text).unwrap();
    }
    let args = [src.to_string_lossy().into_owned()];
    (src, dir.join("ws"), args)
}

/// The report of an index run of `args` into `ws_dir` with `options`, which must succeed.
fn index_run(ws_dir: &Path, args: &[String], options: &IndexOptions) -> IndexReport {
    Workspace::index(ws_dir, args, options, &indexer::NoProgress).unwrap()
}

/// Change every row of the catalog in `ws_dir` with `sql` (a test's way to make an older row).
fn edit_catalog(ws_dir: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(catalog_path(ws_dir)).unwrap();
    conn.execute_batch(sql).unwrap();
}

#[test]
fn unknown_format_version_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    store::write(dir.path(), &store::CatalogChanges::default()).unwrap();
    edit_catalog(
        dir.path(),
        "UPDATE meta SET value = '99' WHERE key = 'format_version'",
    );
    let err = Workspace::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("format version 99")
            && err.contains(&format!("reads version {FORMAT_VERSION}")),
        "{err}"
    );
    std::fs::remove_file(dir.path().join("catalog.db-wal")).ok();
    std::fs::remove_file(dir.path().join("catalog.db-shm")).ok();
    std::fs::write(catalog_path(dir.path()), b"{}").unwrap();
    let err = Workspace::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "workspace file `{}` is damaged: ",
            catalog_path(dir.path()).display()
        )) && err.contains("index --force"),
        "{err}"
    );
}

/// A workspace of format 4 (`catalog.bin`, read whole by every command) is outdated: readers
/// say so, `docnav index` rebuilds it into a `catalog.db`.
#[test]
fn a_catalog_bin_of_format_4_is_an_outdated_workspace_that_index_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let (src, ws_dir, _) = one_source(dir.path(), "notes.txt", "1 Start\n\nText.\n");
    std::fs::create_dir_all(&ws_dir).unwrap();
    let built = Document::build(&src, b"1 Start\n", "notes", true, &Default::default()).unwrap();
    let card = built.document.card;
    let legacy = LegacyCatalog {
        format_version: 4,
        docnav_version: "0.1.0".into(),
        index_generation: 3,
        documents: vec![LegacyCatalogEntry {
            card,
            tree_file: "notes-0123456789ab.bin".into(),
            source_len: 3,
            mtime_ms: 1,
            build_key: "builder 9, max leaf 4000 tokens".into(),
        }],
    };
    let mut bytes = CATALOG_MAGIC.to_vec();
    bytes.extend_from_slice(&4u32.to_le_bytes());
    bytes.extend_from_slice(&postcard::to_stdvec(&legacy).unwrap());
    std::fs::write(catalog_v4_path(&ws_dir), bytes).unwrap();
    let err = Workspace::open(&ws_dir).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "workspace `{}` was made by an older docnav (format 4; this one reads format \
             {FORMAT_VERSION}) (hint: run `docnav index` to rebuild it)",
            ws_dir.display()
        )
    );
    let report = index_run(&ws_dir, &[], &IndexOptions::default());
    assert_eq!((report.indexed, report.failed), (1, 0), "{report:?}");
    assert!(!catalog_v4_path(&ws_dir).exists());
    let ws = Workspace::open(&ws_dir).unwrap();
    assert_eq!(ws.document_count(), 1);
    assert!(ws.document("notes").is_ok());
}

/// A `catalog.db` of format 5 (no text hashes, no aliases) is outdated: readers say so, and
/// `docnav index` rebuilds it, keeping its ids and keeping a text it held twice once.
#[test]
fn a_catalog_db_of_format_5_is_rebuilt_and_its_duplicates_kept_once() {
    let dir = tempfile::tempdir().unwrap();
    let (src, ws_dir, args) = source_folder(
        dir.path(),
        &[
            ("a.txt", "1 Start\n\nText.\n"),
            ("b.txt", "1 Other\n\nMore text.\n"),
        ],
    );
    index_run(&ws_dir, &args, &IndexOptions::default());
    // What format 5 wrote: no `text_sha256` column, build keys as text, no `aliases` table;
    // `b.txt` then copied from `a.txt`, which format 5 kept as a second document.
    edit_catalog(
        &ws_dir,
        "DROP INDEX documents_by_text; ALTER TABLE documents DROP COLUMN text_sha256; \
         ALTER TABLE documents ADD COLUMN build_key TEXT NOT NULL DEFAULT ''; \
         ALTER TABLE documents DROP COLUMN builder; \
         ALTER TABLE documents DROP COLUMN max_leaf_tokens; \
         DROP TABLE aliases; UPDATE meta SET value = '5' WHERE key = 'format_version'",
    );
    std::fs::write(src.join("b.txt"), "1 Start\n\nText.\n").unwrap();
    let err = Workspace::open(&ws_dir).unwrap_err().to_string();
    assert!(err.contains("(format 5; this one reads format"), "{err}");
    let report = index_run(&ws_dir, &[], &IndexOptions::default());
    assert_eq!(
        (report.indexed, report.duplicates, report.failed),
        (1, 1, 0),
        "{report:?}"
    );
    let ws = Workspace::open(&ws_dir).unwrap();
    assert_eq!(ws.document_count(), 1);
    assert_eq!(ws.resolve_id("b").as_deref(), Some("a"));
    assert_eq!(ws.aliases(), vec![("b".to_string(), "a".to_string())]);
}

/// The text hash reads a tree's text, not the file's name or bytes: two copies hash alike
/// whatever their names, a title of the document's own counts, and no text hashes to "".
#[test]
fn text_fingerprints_ignore_the_file_name_and_keep_a_document_s_own_title() {
    let hash = |name: &str, text: &str| {
        let path = Path::new(name);
        let built = Document::build(path, text.as_bytes(), "x", true, &Default::default()).unwrap();
        built.text_sha256
    };
    let notes = "1 Start\n\nText.\n";
    assert_eq!(hash("a.txt", notes), hash("b.txt", notes));
    assert_ne!(hash("a.txt", notes), hash("a.txt", "1 Start\n\nText!\n"));
    assert_eq!(
        hash("a.md", "# A\n\nText.\n"),
        hash("b.md", "# A\n\nText.\n")
    );
    assert_ne!(
        hash("a.md", "# A\n\nText.\n"),
        hash("a.md", "# B\n\nText.\n")
    );
    assert_eq!(hash("a.md", "# Only a heading\n\n## And another\n"), "");
}

#[test]
fn a_json_catalog_of_an_older_format_is_an_outdated_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("catalog.json"),
        r#"{"format_version": 2, "docnav_version": "0.1.0", "documents": []}"#,
    )
    .unwrap();
    let err = Workspace::open(dir.path()).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "workspace `{}` was made by an older docnav (format 2; this one reads format \
             {FORMAT_VERSION}) (hint: run `docnav index` to rebuild it)",
            dir.path().display()
        )
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

/// A tree file of tree builder 13 (before `Tree::first_split`, the last field a tree file
/// holds) is refused with the re-index hint, never misread or a panic.
#[test]
fn a_tree_file_from_before_split_parts_were_marked_asks_for_a_re_index() {
    let lib = crate::workspace::InMemoryLibrary::from_paths(
        &[std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/docs/ripgrep__FAQ.md")],
        &crate::tree::BuildOptions::default(),
    )
    .unwrap();
    let doc = lib.document("ripgrep-faq").unwrap();
    let mut body = postcard::to_allocvec(doc.as_ref()).unwrap();
    // `first_split` is the varint at the very end.
    let field = postcard::to_allocvec(&doc.tree.first_split).unwrap();
    assert!(body.ends_with(&field));
    body.truncate(body.len() - field.len());
    let mut old = TREE_FILE_MAGIC.to_vec();
    old.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    old.extend_from_slice(&lz4_flex::block::compress_prepend_size(&body));
    let err = decode_tree_file(std::path::Path::new("t.bin"), &old)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("is damaged") && err.contains("hint: re-index with `docnav index --force`"),
        "{err}"
    );
}

/// Regression: a reader holding the catalog from before a re-index (a `docnav shell`) got an
/// I/O error loading a rebuilt document, whose old tree file the re-index had deleted.
#[test]
fn reader_with_a_stale_catalog_loads_a_reindexed_document() {
    let dir = tempfile::tempdir().unwrap();
    let (src, ws_dir, args) =
        one_source(dir.path(), "guide.md", "# Guide\n\n## Old\n\nOld text.\n");
    let options = IndexOptions {
        jobs: 1,
        ..IndexOptions::default()
    };
    index_run(&ws_dir, &args, &options);
    let reader = Workspace::open(&ws_dir).unwrap();
    let pruned_reader = Workspace::open(&ws_dir).unwrap();

    std::fs::write(&src, "# Guide\n\n## New\n\nNew text, longer.\n").unwrap();
    let report = index_run(&ws_dir, &args, &options);
    assert_eq!((report.indexed, report.unchanged), (1, 0));
    assert_eq!(std::fs::read_dir(ws_dir.join("docs")).unwrap().count(), 1);

    let doc = reader.document("guide").unwrap();
    let titles: Vec<&str> = doc.tree.nodes.iter().map(|n| n.title.as_str()).collect();
    assert_eq!(titles, ["Guide", "New"]);
    // The reader's cards are the ones it opened with; the document carries its new card.
    assert_ne!(reader.cards_page(0, 1)[0].fingerprint, doc.card.fingerprint);

    // Removed meanwhile (`--prune` after the source vanished): a clear not-found.
    std::fs::remove_file(&src).unwrap();
    let prune = IndexOptions {
        prune: true,
        ..options.clone()
    };
    index_run(&ws_dir, &[], &prune);
    let err = pruned_reader.document("guide").unwrap_err().to_string();
    assert_eq!(
        err,
        "document not found: guide (hint: `docnav docs` lists the ids)"
    );
}

/// A tree file that vanished while the catalog still names it stays an I/O error naming it.
#[test]
fn missing_tree_file_named_by_the_current_catalog_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, ws_dir, args) = one_source(dir.path(), "notes.txt", "1 Start\n\nText.\n");
    index_run(&ws_dir, &args, &IndexOptions::default());
    let ws = Workspace::open(&ws_dir).unwrap();
    let file = ws_dir
        .join("docs")
        .join(ws.entry("notes").unwrap().tree_file);
    std::fs::remove_file(&file).unwrap();
    let err = ws.document("notes").unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("workspace file `{}`: ", file.display())),
        "{err}"
    );
}

/// The catalog tables as docnav wrote them at format 8 before the typed build keys: each row's
/// [`BuildKey`] one text (`builder 16, max leaf 4000 tokens`) in a `build_key` column. Made
/// from a catalog of this build, rows kept.
const TEXT_BUILD_KEYS: &str = "
    CREATE TABLE documents_text_keys (
        doc_id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        format TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        tree_file TEXT NOT NULL,
        source_len INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        build_key TEXT NOT NULL,
        text_sha256 TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO documents_text_keys SELECT doc_id, source, format, fingerprint, tree_file,
        source_len, mtime_ms, 'builder ' || builder || ', max leaf ' || max_leaf_tokens
        || ' tokens', text_sha256 FROM documents;
    DROP TABLE documents;
    ALTER TABLE documents_text_keys RENAME TO documents;
    CREATE INDEX documents_by_source ON documents (source);
    CREATE INDEX documents_by_text ON documents (text_sha256);
    CREATE TABLE aliases_text_keys (
        alias TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        source TEXT NOT NULL,
        format TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        source_len INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        build_key TEXT NOT NULL,
        text_sha256 TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO aliases_text_keys SELECT alias, target, source, format, fingerprint,
        source_len, mtime_ms, 'builder ' || builder || ', max leaf ' || max_leaf_tokens
        || ' tokens', text_sha256 FROM aliases;
    DROP TABLE aliases;
    ALTER TABLE aliases_text_keys RENAME TO aliases;
    CREATE INDEX aliases_by_target ON aliases (target);
";

/// The values of one SQL query over the catalog of `ws_dir`, each row's columns joined by `|`.
fn catalog_rows(ws_dir: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(catalog_path(ws_dir)).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        let cells: Vec<String> = (0..n)
            .map(|i| match r.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                _ => "NULL".to_string(),
            })
            .collect();
        Ok(cells.join("|"))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// A format-8 catalog that keeps its build keys as text is read as it is (a document opens, its
/// row has its key), an index run keeps its unchanged documents, and that run's write moves
/// every key, an alias's too, to the `builder` and `max_leaf_tokens` columns.
#[test]
fn a_catalog_with_text_build_keys_is_read_and_moved_to_typed_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (src, ws_dir, args) = source_folder(
        dir.path(),
        &[
            ("a.txt", "1 Start\n\nText.\n"),
            ("b.txt", "1 Start\n\nText.\n"),
            ("c.txt", "1 Other\n\nMore text.\n"),
        ],
    );
    let options = IndexOptions {
        jobs: 1,
        ..IndexOptions::default()
    };
    let report = index_run(&ws_dir, &args, &options);
    assert_eq!((report.indexed, report.duplicates), (2, 1), "{report:?}");
    edit_catalog(&ws_dir, TEXT_BUILD_KEYS);
    let key = BuildKey::of(&crate::tree::BuildOptions::default());
    let text_key = format!("builder {TREE_BUILDER_VERSION}, max leaf 4000 tokens");
    assert_eq!(
        catalog_rows(
            &ws_dir,
            "SELECT doc_id, build_key FROM documents ORDER BY doc_id"
        ),
        [format!("a|{text_key}"), format!("c|{text_key}")]
    );

    let ws = Workspace::open(&ws_dir).unwrap();
    assert_eq!(ws.entry("a").unwrap().build_key, Some(key));
    assert_eq!(ws.document("c").unwrap().card.doc_id, "c");
    assert_eq!(ws.aliases(), vec![("b".to_string(), "a".to_string())]);
    drop(ws);

    // A new source makes the run write the catalog; the others are kept as they are.
    std::fs::write(src.join("d.txt"), "1 New\n\nNew text.\n").unwrap();
    let report = index_run(&ws_dir, &args, &options);
    assert_eq!(
        (report.indexed, report.unchanged, report.failed),
        (1, 3, 0),
        "{report:?}"
    );
    let typed = format!("{TREE_BUILDER_VERSION}|4000");
    assert_eq!(
        catalog_rows(
            &ws_dir,
            "SELECT doc_id, builder, max_leaf_tokens FROM documents ORDER BY doc_id"
        ),
        ["a", "c", "d"].map(|id| format!("{id}|{typed}"))
    );
    assert_eq!(
        catalog_rows(
            &ws_dir,
            "SELECT alias, builder, max_leaf_tokens FROM aliases"
        ),
        [format!("b|{typed}")]
    );
    assert_eq!(
        catalog_rows(
            &ws_dir,
            "SELECT name FROM pragma_table_info('documents') WHERE name = 'build_key' \
             UNION SELECT name FROM pragma_table_info('aliases') WHERE name = 'build_key'"
        ),
        Vec::<String>::new()
    );
    let report = index_run(&ws_dir, &args, &options);
    assert_eq!((report.indexed, report.unchanged), (0, 4), "{report:?}");
}

/// An unchanged source is rebuilt when the tree-changing options or the builder version differ
/// from what built its tree (a catalog row from before build keys has none).
#[test]
fn unchanged_sources_are_rebuilt_when_the_build_differs() {
    let dir = tempfile::tempdir().unwrap();
    let long_section: String = "word ".repeat(400);
    let text = format!("# Guide\n\n## Long\n\n{long_section}\n\n{long_section}\n");
    let (_, ws_dir, args) = one_source(dir.path(), "guide.md", &text);
    let options = IndexOptions {
        jobs: 1,
        ..IndexOptions::default()
    };
    let index = |options: &IndexOptions| {
        let r = index_run(&ws_dir, &args, options);
        (r.indexed, r.unchanged)
    };
    let node_count = || {
        let ws = Workspace::open(&ws_dir).unwrap();
        ws.document("guide").unwrap().tree.nodes.len()
    };
    assert_eq!(index(&options), (1, 0));
    assert_eq!(index(&options), (0, 1));
    assert_eq!(node_count(), 2);

    // Smaller leaves: the same bytes make another tree (the long section splits into parts).
    let small_leaves = IndexOptions {
        build: crate::tree::BuildOptions {
            max_leaf_tokens: 300,
            ..options.build.clone()
        },
        ..options.clone()
    };
    assert_eq!(index(&small_leaves), (1, 0));
    assert!(node_count() > 2, "{}", node_count());
    assert_eq!(index(&small_leaves), (0, 1));

    // A row written by an older build (no build key): rebuilt once, then reused.
    edit_catalog(
        &ws_dir,
        "UPDATE documents SET builder = NULL, max_leaf_tokens = NULL",
    );
    assert_eq!(index(&options), (1, 0));
    assert_eq!(node_count(), 2);
    assert_eq!(index(&options), (0, 1));
}

/// An index made before the `doc_id` sorting is made anew, sorted, by a run that rebuilds every
/// document anyway (they were all built by an older builder), and searches find what they did.
#[test]
fn an_unsorted_index_is_made_anew_sorted_when_every_document_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        (
            "a.md",
            "# A

## Kiwi

kiwi mango
",
        ),
        (
            "b.md",
            "# B

kiwi
",
        ),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let ws_dir = dir.path().join("ws");
    let args = [dir.path().join("*.md").to_string_lossy().into_owned()];
    let run = || index_run(&ws_dir, &args, &IndexOptions::default());
    run();
    let index_dir = ws_dir.join("index");
    let sorted = || {
        crate::index::SectionIndex::open(&index_dir)
            .unwrap()
            .sorted_by_doc_id()
    };
    assert!(sorted());
    let hits = |ws: &Workspace| -> Vec<String> {
        let sections = ws.sections().unwrap();
        let search = sections.prepare("kiwi", crate::index::Scope::All).unwrap();
        search
            .top(5)
            .unwrap()
            .into_iter()
            .map(|h| h.doc_id)
            .collect()
    };
    let before = hits(&Workspace::open(&ws_dir).unwrap());
    assert_eq!(before.len(), 2, "{before:?}");

    // An older docnav's workspace: an unsorted index, rows of an older builder.
    std::fs::remove_dir_all(&index_dir).unwrap();
    drop(crate::index::SectionIndex::create_unsorted(&index_dir));
    assert!(!sorted());
    edit_catalog(&ws_dir, "UPDATE documents SET builder = 11");
    let report = run();
    assert_eq!(report.indexed, 2);
    assert!(
        report
            .notices
            .iter()
            .any(|n| n.contains("made anew, sorted by document")),
        "{:?}",
        report.notices
    );
    assert!(sorted());
    assert_eq!(hits(&Workspace::open(&ws_dir).unwrap()), before);
    // Up to date now: nothing rebuilt, no notice.
    let report = run();
    assert_eq!((report.indexed, report.notices.len()), (0, 0));
}

/// A tree file that no longer decodes is "outdated" when its catalog row names another builder
/// (an older docnav wrote it: run `docnav index`), and "damaged" when this builder wrote it;
/// `docnav index` then rebuilds the outdated one without `--force`.
#[test]
fn an_undecodable_tree_of_an_older_builder_is_outdated_not_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let (_, ws_dir, args) = one_source(dir.path(), "notes.txt", "1 Start\n\nText.\n");
    index_run(&ws_dir, &args, &IndexOptions::default());
    let file = ws_dir.join("docs").join(
        Workspace::open(&ws_dir)
            .unwrap()
            .entry("notes")
            .unwrap()
            .tree_file,
    );
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 3]).unwrap();
    let err = Workspace::open(&ws_dir)
        .unwrap()
        .document("notes")
        .unwrap_err()
        .to_string();
    assert!(err.contains("is damaged"), "{err}");

    edit_catalog(&ws_dir, "UPDATE documents SET builder = 7");
    let err = Workspace::open(&ws_dir)
        .unwrap()
        .document("notes")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!(
            "was written by an older docnav (builder 7; this one is builder {TREE_BUILDER_VERSION})"
        )) && err.contains("hint: run `docnav index`"),
        "{err}"
    );
    let report = index_run(&ws_dir, &[], &IndexOptions::default());
    assert_eq!(report.indexed, 1);
    let ws = Workspace::open(&ws_dir).unwrap();
    assert!(ws.document("notes").is_ok());
}

/// A damaged catalog says "re-index with `docnav index --force`", and that works: the damaged
/// file is kept beside the workspace and the paths given are indexed into a new catalog.
#[test]
fn index_force_over_a_damaged_catalog_keeps_it_aside_and_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let (_, ws_dir, args) = one_source(dir.path(), "notes.txt", "1 Start\n\nText.\n");
    index_run(&ws_dir, &args, &IndexOptions::default());
    std::fs::write(catalog_path(&ws_dir), b"garbage").unwrap();
    std::fs::remove_file(ws_dir.join("catalog.db-wal")).ok();
    std::fs::remove_file(ws_dir.join("catalog.db-shm")).ok();
    let err = Workspace::index(
        &ws_dir,
        &args,
        &IndexOptions::default(),
        &indexer::NoProgress,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("is damaged") && err.contains("--force"),
        "{err}"
    );
    let force = IndexOptions {
        force: true,
        ..IndexOptions::default()
    };
    let report = index_run(&ws_dir, &args, &force);
    assert_eq!((report.indexed, report.failed), (1, 0), "{report:?}");
    assert!(
        report.notices.iter().any(|n| n.contains("was damaged")),
        "{:?}",
        report.notices
    );
    let aside: Vec<_> = std::fs::read_dir(&ws_dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("catalog.db.damaged-")
        })
        .collect();
    assert_eq!(aside.len(), 1);
    let ws = Workspace::open(&ws_dir).unwrap();
    assert_eq!(ws.document_count(), 1);
    assert!(ws.document("notes").is_ok());
}

/// The count and digests an index run records — updated from the old and new rows of the
/// documents it changed, for folders and for named files (only their rows are read) — are those of the rows the catalog holds after it, read back, and those an in-memory
/// library of the same cards computes; a run that changes nothing writes neither the catalog nor
/// the index; a catalog whose digests are of the older, ordered kind gets them computed at its
/// next write.
#[test]
fn recorded_totals_are_those_of_the_stored_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (src, ws_dir, args) = source_folder(
        dir.path(),
        &[
            ("b.txt", "1 Bees\n\nHoney.\n"),
            ("a.txt", "1 Ants\n\nColonies.\n"),
            ("c.md", "# Cats\n\nWhiskers.\n"),
        ],
    );
    let stored = || {
        let conn = rusqlite::Connection::open(catalog_path(&ws_dir)).unwrap();
        let meta = |key: &str| -> String {
            conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .unwrap()
        };
        let mut rows = conn
            .prepare("SELECT doc_id, fingerprint FROM documents")
            .unwrap();
        let rows: Vec<(String, String)> = rows
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let read_back = store::CatalogTotals::of(rows.iter().map(|(i, f)| (&**i, &**f)));
        let recorded = store::CatalogTotals {
            documents: meta("documents").parse().unwrap(),
            rows: SetDigest::from_hex(&meta("catalog_sha256")).unwrap(),
            ids: SetDigest::from_hex(&meta("ids_sha256")).unwrap(),
        };
        (recorded, read_back, meta("index_generation"))
    };
    let check = |documents: usize| {
        let (recorded, read_back, generation) = stored();
        assert_eq!(recorded, read_back);
        assert_eq!(recorded.documents, documents);
        let ws = Workspace::open(&ws_dir).unwrap();
        let documents: Vec<Document> = ws
            .all_cards()
            .iter()
            .map(|c| (*ws.document(&c.doc_id).unwrap()).clone())
            .collect();
        let in_memory = InMemoryLibrary::new(documents);
        assert_eq!(ws.catalog_digest(), in_memory.catalog_digest());
        assert_eq!(ws.catalog_ids_digest(), in_memory.catalog_ids_digest());
        generation
    };
    let prune = IndexOptions {
        prune: true,
        ..IndexOptions::default()
    };
    index_run(&ws_dir, &args, &prune);
    let first_generation = check(3);

    // Nothing changed: nothing written.
    let catalog_before = std::fs::read(catalog_path(&ws_dir)).unwrap();
    let report = index_run(&ws_dir, &args, &prune);
    assert_eq!((report.indexed, report.unchanged), (0, 3));
    assert_eq!(stored().2, first_generation);
    assert_eq!(
        std::fs::read(catalog_path(&ws_dir)).unwrap(),
        catalog_before
    );

    // One changed, one removed (pruned), one added.
    std::fs::write(src.join("a.txt"), "1 Ants\n\nColonies and queens.\n").unwrap();
    std::fs::remove_file(src.join("b.txt")).unwrap();
    std::fs::write(src.join("d.txt"), "1 Dogs\n\nBarking.\n").unwrap();
    let report = index_run(&ws_dir, &args, &prune);
    assert_eq!((report.indexed, report.pruned), (2, 1), "{report:?}");
    assert_ne!(check(3), first_generation);

    // Named files: one changed, one new; the totals are updated from their rows alone.
    std::fs::write(src.join("c.md"), "# Cats\n\nWhiskers and tails.\n").unwrap();
    std::fs::write(src.join("e.txt"), "1 Eels\n\nSlippery.\n").unwrap();
    let named = [
        src.join("c.md").to_string_lossy().into_owned(),
        src.join("e.txt").to_string_lossy().into_owned(),
    ];
    let report = index_run(&ws_dir, &named, &IndexOptions::default());
    assert_eq!((report.indexed, report.unchanged), (2, 0), "{report:?}");
    check(4);

    // Digests of the older kind: computed again over every row at the next write.
    edit_catalog(
        &ws_dir,
        "DELETE FROM meta WHERE key = 'digest_kind'; \
         UPDATE meta SET value = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
         WHERE key IN ('catalog_sha256', 'ids_sha256')",
    );
    std::fs::write(src.join("e.txt"), "1 Eels\n\nVery slippery.\n").unwrap();
    let report = index_run(&ws_dir, &named[1..], &IndexOptions::default());
    assert_eq!(report.indexed, 1, "{report:?}");
    check(4);
}

/// Files named one by one read only their own rows: a new file whose name's id is taken by a
/// row not read still gets a unique id, a rebuilt document's old tree file is deleted and the
/// other documents' tree files are left alone.
#[test]
fn named_files_keep_ids_unique_and_replace_only_their_tree_files() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("one"), dir.path().join("two"));
    std::fs::create_dir(&first).unwrap();
    std::fs::create_dir(&second).unwrap();
    std::fs::write(first.join("guide.md"), "# Guide\n\nFirst.\n").unwrap();
    std::fs::write(first.join("notes.md"), "# Notes\n\nKept.\n").unwrap();
    let ws_dir = dir.path().join("ws");
    let options = IndexOptions::default();
    let folder = [first.to_string_lossy().into_owned()];
    index_run(&ws_dir, &folder, &options);
    let tree_files = || -> std::collections::BTreeSet<String> {
        std::fs::read_dir(ws_dir.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let before = tree_files();
    let ws = Workspace::open(&ws_dir).unwrap();
    let notes_tree = ws.entry("notes").unwrap().tree_file;
    let old_guide_tree = ws.entry("guide").unwrap().tree_file;
    drop(ws);

    // Another `guide.md`, named alone: its id cannot be `guide` (a row this run did not read).
    std::fs::write(second.join("guide.md"), "# Guide two\n\nSecond.\n").unwrap();
    std::fs::write(first.join("guide.md"), "# Guide\n\nFirst, changed.\n").unwrap();
    let named = [
        second.join("guide.md").to_string_lossy().into_owned(),
        first.join("guide.md").to_string_lossy().into_owned(),
    ];
    let report = index_run(&ws_dir, &named, &options);
    assert_eq!(report.indexed, 2, "{report:?}");
    let ws = Workspace::open(&ws_dir).unwrap();
    let ids: Vec<String> = ws.all_cards().iter().map(|c| c.doc_id.clone()).collect();
    assert_eq!(ids, ["guide", "guide-2", "notes"]);
    assert_eq!(ws.card("guide-2").unwrap().title, "Guide two");
    assert_eq!(
        ws.card("guide").unwrap().source,
        first.join("guide.md").to_string_lossy()
    );
    let after = tree_files();
    assert!(after.contains(&notes_tree));
    assert!(before.contains(&old_guide_tree) && !after.contains(&old_guide_tree));
    assert!(after.contains(&ws.entry("guide").unwrap().tree_file));
    assert!(after.contains(&ws.entry("guide-2").unwrap().tree_file));
    assert_eq!(after.len(), 3);
    // The index follows: the changed text is found, the old one is not.
    assert!(!ws.document("guide").unwrap().tree.is_empty());
    let sections = ws.sections().unwrap();
    let hits = sections
        .prepare("changed", crate::index::sections::Scope::All)
        .unwrap()
        .top(5)
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].doc_id, "guide");
}

/// An index run that writes at least a quarter of the search index merges it into one segment
/// after its commits (`IndexReport::merged`); a run of one changed file does not.
#[test]
fn a_bulk_index_run_leaves_one_segment_and_a_one_file_run_adds_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let names = kiwi_pages(dir.path(), 8, "\n## Papaya\n\npapaya\n");
    let ws_dir = dir.path().join("ws");
    let path = |name: &String| dir.path().join(name).to_string_lossy().into_owned();
    // One indexing thread: one segment per run.
    let options = IndexOptions {
        jobs: 1,
        ..IndexOptions::default()
    };
    let run = |files: &[String]| {
        let args: Vec<String> = files.iter().map(path).collect();
        index_run(&ws_dir, &args, &options)
    };
    let segments = || segment_count(&ws_dir);
    let first = run(&names[..4]);
    assert_eq!((first.indexed, segments()), (4, 1));
    assert!(first.merged.is_none(), "one segment: {:?}", first.merged);
    // Four more documents: half of the index, merged with the first four.
    let second = run(&names[4..]);
    assert_eq!(second.indexed, 4);
    let merged = second.merged.expect("a bulk run merges");
    assert_eq!((merged.segments_before, merged.segments_after), (2, 1));
    assert_eq!(segments(), 1);
    // One changed file of eight: its own segment, no merge.
    std::fs::write(
        dir.path().join(&names[0]),
        "# Page 0\n\n## Kiwi\n\nkiwi kiwi\n",
    )
    .unwrap();
    let third = run(&names[..1]);
    assert_eq!(third.indexed, 1);
    assert!(third.merged.is_none(), "{:?}", third.merged);
    assert_eq!(segments(), 2);
    let hits = kiwi_hits(&ws_dir, 8);
    assert_eq!(hits.len(), 8);
    assert_eq!(hits[0].0, "page1", "the changed page says kiwi twice");
}

/// `--merge` merges the whole index into one segment, whatever the run wrote: after a one-file
/// run (its own segment, the replaced entries deleted from the first), and in a run with
/// nothing to write; with one segment and nothing deleted there is nothing to merge. Searches
/// answer the same before and after.
#[test]
fn a_requested_merge_leaves_one_segment_without_deleted_entries() {
    let dir = tempfile::tempdir().unwrap();
    let names = kiwi_pages(dir.path(), 6, "");
    let ws_dir = dir.path().join("ws");
    let path = |name: &String| dir.path().join(name).to_string_lossy().into_owned();
    let run = |files: &[String], merge: bool| {
        let options = IndexOptions {
            jobs: 1,
            merge,
            ..IndexOptions::default()
        };
        let args: Vec<String> = files.iter().map(path).collect();
        index_run(&ws_dir, &args, &options)
    };
    let segments = || segment_count(&ws_dir);
    let deletion_files = || {
        std::fs::read_dir(ws_dir.join("index"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "del")
            })
            .count()
    };
    run(&names, false);
    let change = |text: &str| std::fs::write(dir.path().join(&names[0]), text).unwrap();
    change("# Page 0\n\n## Kiwi\n\nkiwi kiwi\n");
    let small = run(&names[..1], false);
    assert!(small.merged.is_none());
    assert_eq!((segments(), deletion_files()), (2, 1));
    let before = kiwi_hits(&ws_dir, 6);

    // Nothing to write: merged all the same.
    let tidy = run(&names[..1], true);
    assert_eq!((tidy.indexed, tidy.unchanged), (0, 1));
    let merged = tidy.merged.expect("a requested merge");
    assert_eq!((merged.segments_before, merged.segments_after), (2, 1));
    assert!(!tidy.merge_failed);
    assert_eq!((segments(), deletion_files()), (1, 0));
    assert_eq!(kiwi_hits(&ws_dir, 6), before);

    // One segment, nothing deleted: nothing to merge, and no failure.
    let again = run(&names[..1], true);
    assert!(again.merged.is_none() && !again.merge_failed);

    // A one-file run that asks for the merge: its segment merged with the rest at once.
    change("# Page 0\n\n## Kiwi\n\nkiwi kiwi kiwi\n");
    let changed = run(&names[..1], true);
    assert_eq!(changed.indexed, 1);
    let merged = changed.merged.expect("a requested merge");
    assert_eq!((merged.segments_before, merged.segments_after), (2, 1));
    assert_eq!((segments(), deletion_files()), (1, 0));
    assert_eq!(kiwi_hits(&ws_dir, 6)[0].0, "page1");
}

/// Writes `page1.md` … `page{count}.md` into `dir` (page `i`: a title, a Kiwi section saying
/// "kiwi mango i", then `more`) and returns their names.
fn kiwi_pages(dir: &Path, count: usize, more: &str) -> Vec<String> {
    let names: Vec<String> = (1..=count).map(|i| format!("page{i}.md")).collect();
    for (i, name) in names.iter().enumerate() {
        let text = format!("# Page {i}\n\n## Kiwi\n\nkiwi mango {i}\n{more}");
        std::fs::write(dir.join(name), text).unwrap();
    }
    names
}

/// Segments of the search index of the workspace at `ws_dir`.
fn segment_count(ws_dir: &Path) -> usize {
    crate::index::SectionIndex::open(&ws_dir.join("index"))
        .unwrap()
        .segment_count()
        .unwrap()
}

/// `(doc_id, rank)` of the first `limit` hits of "kiwi" over the workspace at `ws_dir`.
fn kiwi_hits(ws_dir: &Path, limit: usize) -> Vec<(String, u32)> {
    let ws = Workspace::open(ws_dir).unwrap();
    let search = ws
        .sections()
        .unwrap()
        .prepare("kiwi", crate::index::Scope::All)
        .unwrap();
    let hits = search.top(limit).unwrap();
    hits.into_iter().map(|h| (h.doc_id, h.rank)).collect()
}

/// A large new document's entries go to the index while they are built, before its tree
/// file is written: when that write fails, none of them is committed, and the next run that
/// can write it indexes it whole, in reading order.
#[test]
fn a_large_new_document_whose_tree_file_cannot_be_written_leaves_no_entry() {
    let dir = tempfile::tempdir().unwrap();
    let small = kiwi_pages(dir.path(), 1, "");
    let sections = crate::index::sections::STREAM_MIN_ENTRIES + 10;
    let text: String = (1..=sections)
        .map(|i| format!("## Heading {i}\n\nkiwi {i}\n\n"))
        .collect();
    let big = dir.path().join("big.md");
    std::fs::write(&big, &text).unwrap();
    let ws_dir = dir.path().join("ws");
    let options = IndexOptions::default();
    let args = vec![
        dir.path().join(&small[0]).to_string_lossy().into_owned(),
        big.to_string_lossy().into_owned(),
    ];
    // The big document's tree file cannot be written: its name is taken by a directory.
    let name = tree_file_name(
        "big",
        &fingerprint(text.as_bytes()),
        &BuildKey::of(&options.build),
    );
    let blocked = ws_dir.join("docs").join(name);
    std::fs::create_dir_all(&blocked).unwrap();
    let report = index_run(&ws_dir, &args, &options);
    assert_eq!(
        (report.indexed, report.failed),
        (1, 1),
        "{:?}",
        report.errors
    );
    assert!(
        report.errors[0].contains("cannot write"),
        "{:?}",
        report.errors
    );
    let indexed = crate::index::SectionIndex::open(&ws_dir.join("index"))
        .unwrap()
        .documents()
        .unwrap();
    assert_eq!(indexed.keys().collect::<Vec<_>>(), vec!["page1"]);
    let hits = kiwi_hits(&ws_dir, 5);
    assert!(
        !hits.is_empty() && hits.iter().all(|(id, _)| id == "page1"),
        "{hits:?}"
    );

    std::fs::remove_dir(&blocked).unwrap();
    let report = index_run(&ws_dir, &args, &options);
    assert_eq!(
        (report.indexed, report.failed),
        (1, 0),
        "{:?}",
        report.errors
    );
    let hits = kiwi_hits(&ws_dir, 1000);
    let big_ranks: Vec<u32> = hits
        .iter()
        .filter(|(id, _)| id == "big")
        .map(|(_, rank)| *rank)
        .collect();
    assert!(big_ranks.len() >= 990, "{}", big_ranks.len());
    let first = big_ranks[0];
    let in_order: Vec<u32> = (first..).take(big_ranks.len()).collect();
    assert_eq!(big_ranks, in_order, "reading order");
}

/// A run that changes nothing still merges an index left in many segments, as a run killed in
/// its final merge leaves it (here: each document committed again on its own), by tantivy's
/// log merge policy, and answers as before.
#[test]
fn a_run_with_nothing_to_write_merges_an_index_left_in_many_segments() {
    let dir = tempfile::tempdir().unwrap();
    for i in 1..=9 {
        std::fs::write(
            dir.path().join(format!("p{i}.md")),
            format!("# P{i}\n\n## Kiwi\n\nkiwi mango {i}\n"),
        )
        .unwrap();
    }
    let ws_dir = dir.path().join("ws");
    let args = [dir.path().join("*.md").to_string_lossy().into_owned()];
    let options = IndexOptions {
        jobs: 1,
        ..IndexOptions::default()
    };
    let run = || index_run(&ws_dir, &args, &options);
    run();
    let hits = || kiwi_hits(&ws_dir, 5);
    let before = hits();
    let index_dir = ws_dir.join("index");
    {
        let ws = Workspace::open(&ws_dir).unwrap();
        let index = crate::index::SectionIndex::open(&index_dir).unwrap();
        let generation = index.generation().unwrap().unwrap();
        // One commit per document, never finished (no merge): nine segments of one each.
        for (doc_id, identity) in index.documents().unwrap() {
            let doc = ws.document(&doc_id).unwrap();
            let writer = index.writer(1).unwrap();
            writer
                .replace(index.entries(&doc.card, &doc.tree, &identity))
                .unwrap();
            drop(writer.commit(generation).unwrap());
        }
        assert_eq!(index.segment_count().unwrap(), 9);
    }
    let report = run();
    assert_eq!((report.indexed, report.unchanged), (0, 9));
    let merged = report.merged.expect("nine segments merged");
    assert_eq!((merged.segments_before, merged.segments_after), (9, 1));
    assert_eq!(hits(), before);
    // Nothing left to merge: the next run merges nothing.
    assert!(run().merged.is_none());
}

/// A catalog of `n` documents `doc-0000`…: every third titled "Zebra handbook N", the rest
/// "Report N"; every tenth a PDF.
fn catalog_of(dir: &Path, n: usize) {
    let src = dir.join("notes.txt");
    std::fs::write(&src, "1 Start\n\nText.\n").unwrap();
    let built = Document::build(&src, b"1 Start\n", "notes", true, &Default::default()).unwrap();
    let base = built.document.card;
    let upsert = (0..n)
        .map(|i| {
            let mut card = base.clone();
            card.doc_id = format!("doc-{i:04}");
            card.title = if i % 3 == 0 {
                format!("Zebra handbook {i}")
            } else {
                format!("Report {i}")
            };
            card.format = if i % 10 == 0 {
                crate::tree::DocFormat::Pdf
            } else {
                crate::tree::DocFormat::Text
            };
            let entry = CatalogEntry {
                doc_id: card.doc_id.clone(),
                source: format!("/src/{}.txt", card.doc_id),
                format: card.format,
                fingerprint: format!("f{i}"),
                tree_file: format!("{}.bin", card.doc_id),
                source_len: 1,
                mtime_ms: 1,
                build_key: None,
                text_sha256: String::new(),
            };
            (entry, card)
        })
        .collect();
    let changes = store::CatalogChanges {
        upsert,
        ..Default::default()
    };
    store::write(dir, &changes).unwrap();
}

/// The catalog of `dir` opened without a section index (the filter reads only the catalog).
fn catalog_only(dir: &Path) -> Workspace {
    let store = CatalogStore::open(dir).unwrap();
    Workspace::from_parts(
        dir,
        dir.to_path_buf(),
        None,
        Some(store),
        Err("no index in this test".into()),
    )
}

fn ids(cards: &[Arc<DocCard>]) -> Vec<&str> {
    cards.iter().map(|c| c.doc_id.as_str()).collect()
}

#[test]
fn the_listing_filters_by_id_title_and_format_a_page_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    catalog_of(dir.path(), 300);
    let ws = catalog_only(dir.path());
    // Titles, in any ASCII case: every third document, in id order, paged.
    let (total, page) = ws.cards_matching("ZEBRA", 3, 2);
    assert_eq!((total, ids(&page)), (100, vec!["doc-0009", "doc-0012"]));
    // Ids: a part of one.
    let (total, page) = ws.cards_matching("c-02", 0, 50);
    assert_eq!(total, 100);
    assert_eq!(page.len(), 50);
    assert_eq!(page[0].doc_id, "doc-0200");
    // A format by name.
    let (total, page) = ws.cards_matching("pdf", 0, 3);
    assert_eq!(
        (total, ids(&page)),
        (30, vec!["doc-0000", "doc-0010", "doc-0020"])
    );
    // LIKE's wildcards are plain characters.
    assert_eq!(ws.cards_matching("%", 0, 10).0, 0);
    assert_eq!(ws.cards_matching("doc_0", 0, 10).0, 0);
    // Past the end: the count, no cards.
    let (total, page) = ws.cards_matching("zebra", 100, 10);
    assert_eq!((total, page.len()), (100, 0));
    // The same answers as reading every card.
    for needle in ["ZEBRA", "c-02", "pdf", "%", "report 29"] {
        let scanned = document::scan_matching(&ws, needle, 5, 7);
        let stored = ws.cards_matching(needle, 5, 7);
        assert_eq!(
            (scanned.0, ids(&scanned.1)),
            (stored.0, ids(&stored.1)),
            "{needle}"
        );
    }
}

/// A catalog written before the store kept a listing: filtered card by card until its next
/// write fills the listing from the cards.
#[test]
fn a_catalog_without_a_listing_is_filtered_and_gets_one_at_its_next_write() {
    let dir = tempfile::tempdir().unwrap();
    catalog_of(dir.path(), 30);
    edit_catalog(dir.path(), "DROP TABLE listing");
    let ws = catalog_only(dir.path());
    assert!(ws
        .store
        .as_ref()
        .unwrap()
        .matching("zebra", 0, 5)
        .unwrap()
        .is_none());
    let (total, page) = ws.cards_matching("zebra", 0, 2);
    assert_eq!((total, ids(&page)), (10, vec!["doc-0000", "doc-0003"]));
    drop(ws);
    store::write(dir.path(), &store::CatalogChanges::default()).unwrap();
    let ws = catalog_only(dir.path());
    let (total, cards) = ws
        .store
        .as_ref()
        .unwrap()
        .matching("zebra", 0, 2)
        .unwrap()
        .unwrap();
    assert_eq!(total, 10);
    assert_eq!(cards[1].doc_id, "doc-0003");
}

/// How long the Library's filter takes at 100,000 documents (printed; run by hand with
/// `cargo test --release --lib -- --ignored filter_at_100000 --nocapture`).
#[test]
#[ignore = "a timing, run by hand"]
fn filter_at_100000_documents() {
    let dir = tempfile::tempdir().unwrap();
    catalog_of(dir.path(), 100_000);
    let ws = catalog_only(dir.path());
    for needle in ["zebra", "doc-0999", "pdf", "no such thing"] {
        let started = std::time::Instant::now();
        let (total, page) = ws.cards_matching(needle, 50, 50);
        println!(
            "{needle:>14}: {total:>6} match, page of {:>2} in {:?}",
            page.len(),
            started.elapsed()
        );
    }
}
