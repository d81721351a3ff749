//! The module tree is the design's map (DESIGN.md §1–§9, STYLE.md "One core, many faces"): the
//! pipeline's stages stand in layers — parse, tree, index, workspace, nav, agent, trace — and
//! the faces (eval, mcp, repl, serve, then cli) on top. Code may use its own layer and the ones
//! below, never one above, and a face never another face but through `cli`, which starts them
//! all. These tests read `src/` as text: a `crate::…` path on a line of code (comments and test
//! modules left out) is a use of that module.

use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and its layer, lowest first. Modules of one layer above
/// the stages (the faces) may not use one another.
const LAYERS: &[(&str, u8)] = &[
    ("durable", 0),
    ("digest", 0),
    ("llm", 0),
    ("parse", 1),
    ("tree", 2),
    ("index", 3),
    ("workspace", 4),
    ("nav", 5),
    ("agent", 6),
    ("trace", 7),
    ("eval", 8),
    ("mcp", 8),
    ("repl", 8),
    ("serve", 8),
    ("cli", 9),
];

/// The layer of the faces: modules there use the stages below, not each other.
const FACES: u8 = 8;

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// The `.rs` files of a module (`src/NAME.rs` and everything under `src/NAME/`), test files
/// (`tests.rs`, `*_tests.rs`) left out.
fn module_files(src: &Path, module: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let single = src.join(format!("{module}.rs"));
    if single.is_file() {
        files.push(single);
    }
    let mut folders = vec![src.join(module)];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") && !is_test_file(&path) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn is_test_file(path: &Path) -> bool {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    stem == "tests" || stem.ends_with("_tests")
}

/// `(line number, module)` for every `crate::MODULE` on a line of code of `text`: comment
/// lines are skipped, and so is an inline test module (`#[cfg(test)]` then `mod …`) to the end
/// of the file.
fn crate_uses(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut uses = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            let next = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty());
            if next.is_some_and(|l| l.starts_with("mod ") || l.starts_with("pub(crate) mod ")) {
                break;
            }
        }
        if code.starts_with("//") {
            continue;
        }
        let code = code.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let standalone =
                at == 0 || !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            if standalone && !name.is_empty() {
                uses.push((i + 1, name));
            }
            rest = after;
        }
    }
    uses
}

/// Every use in the source tree `src` that breaks the layering, as `src/file:line: module
/// (layer) uses other (layer)`.
fn violations(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (module, own) in LAYERS {
        for file in module_files(src, module) {
            let text = fs::read_to_string(&file).unwrap();
            for (line, used) in crate_uses(&text) {
                let Some(theirs) = layer(&used) else {
                    continue;
                };
                let upward = theirs > *own;
                let sideways = *own == FACES && theirs == FACES && used != *module;
                if upward || sideways {
                    let place = file.strip_prefix(src).unwrap().display().to_string();
                    found.push(format!(
                        "src/{place}:{line}: {module} (layer {own}) uses {used} (layer {theirs})"
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn every_top_level_module_has_a_layer() {
    let mut unlisted: Vec<String> = fs::read_dir(src())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let name = path.file_stem()?.to_str()?.to_string();
            let is_module = path.is_dir() || path.extension().is_some_and(|x| x == "rs");
            (is_module && !["lib", "main"].contains(&name.as_str()) && layer(&name).is_none())
                .then_some(name)
        })
        .collect();
    unlisted.sort();
    assert!(
        unlisted.is_empty(),
        "modules of src/ without a layer in tests/suite/layers.rs: {unlisted:?}"
    );
}

#[test]
fn no_stage_uses_a_later_stage_and_no_face_another_face() {
    let found = violations(&src());
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
}

#[test]
fn the_reader_finds_uses_and_skips_comments_and_test_modules() {
    let text = "use crate::tree::Tree;\n\
                /// see [`crate::agent`]\n\
                let x = crate::index::bm25::score(); // crate::serve\n\
                let y = my_crate::serve::x();\n\
                #[cfg(test)]\n\
                pub(crate) fn helper() { crate::nav::x() }\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::serve::x;\n}\n";
    let modules: Vec<(usize, String)> = crate_uses(text);
    assert_eq!(
        modules,
        vec![
            (1, "tree".to_string()),
            (3, "index".to_string()),
            (6, "nav".to_string())
        ]
    );
}

#[test]
fn an_upward_use_and_a_face_using_another_face_are_reported_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    fs::create_dir_all(src.join("index/sections")).unwrap();
    fs::create_dir_all(src.join("mcp")).unwrap();
    fs::write(
        src.join("index/sections/write.rs"),
        "use crate::tree::Tree;\nuse crate::workspace::Workspace;\n",
    )
    .unwrap();
    // A test file may use what it needs.
    fs::write(src.join("index/tests.rs"), "use crate::agent::x;\n").unwrap();
    fs::write(
        src.join("mcp/server.rs"),
        "fn f() { crate::serve::run() }\n",
    )
    .unwrap();
    fs::write(src.join("cli.rs"), "use crate::serve::run;\n").unwrap();
    assert_eq!(
        violations(src),
        vec![
            "src/index/sections/write.rs:2: index (layer 3) uses workspace (layer 4)".to_string(),
            "src/mcp/server.rs:1: mcp (layer 8) uses serve (layer 8)".to_string(),
        ]
    );
}
