//! The two optimized profiles of `Cargo.toml` stay what its comment says. `dist` inherits
//! `release`'s per-crate settings, so a crate `release` compiles cheaply (opt-level 1 or 2,
//! several codegen units) would silently ship that way unless `dist` restates it: every
//! `[profile.release.package.X]` needs a `[profile.dist.package.X]` at opt-level 3 or "s" in one
//! codegen unit, and `dist` itself is fat LTO, opt-level 3, one codegen unit.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// `section name → (key → value)` of a TOML file's `[profile…]` tables, read line by line
/// (`key = value`, values as written).
fn profile_tables(toml: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut tables: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in toml.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.starts_with("profile.").then(|| name.to_string());
            if let Some(name) = &current {
                tables.entry(name.clone()).or_default();
            }
        } else if let (Some(name), Some((key, value))) = (&current, line.split_once('=')) {
            if !line.starts_with('#') {
                tables
                    .entry(name.clone())
                    .or_default()
                    .insert(key.trim().to_string(), value.trim().to_string());
            }
        }
    }
    tables
}

/// What is wrong with the profiles of `toml`, one line each.
fn dist_problems(toml: &str) -> Vec<String> {
    let tables = profile_tables(toml);
    let mut problems = Vec::new();
    let dist = tables.get("profile.dist").cloned().unwrap_or_default();
    for (key, want) in [
        ("lto", "\"fat\""),
        ("opt-level", "3"),
        ("codegen-units", "1"),
    ] {
        if dist.get(key).map(String::as_str) != Some(want) {
            problems.push(format!("[profile.dist] needs {key} = {want}"));
        }
    }
    for name in tables.keys() {
        let Some(package) = name.strip_prefix("profile.release.package.") else {
            continue;
        };
        let shipped = tables.get(&format!("profile.dist.package.{package}"));
        let opt = shipped.and_then(|t| t.get("opt-level")).map(String::as_str);
        let units = shipped
            .and_then(|t| t.get("codegen-units"))
            .map(String::as_str);
        if !matches!(opt, Some("3" | "\"s\"")) || units != Some("1") {
            problems.push(format!(
                "{package}: [profile.dist.package.{package}] needs opt-level = 3 (or \"s\") and \
                 codegen-units = 1, has {opt:?} and {units:?}"
            ));
        }
    }
    problems
}

#[test]
fn dist_restates_every_crate_release_names() {
    let toml =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .unwrap();
    let tables = profile_tables(&toml);
    assert!(
        tables
            .keys()
            .any(|k| k.starts_with("profile.release.package.")),
        "no per-crate release settings read from Cargo.toml: {:?}",
        tables.keys().collect::<Vec<_>>()
    );
    let problems = dist_problems(&toml);
    assert!(problems.is_empty(), "Cargo.toml:\n{}", problems.join("\n"));
}

#[test]
fn a_crate_dist_forgets_is_reported() {
    let toml = "[profile.release]\nopt-level = 2\n\
                [profile.release.package.tantivy]\nopt-level = 3\ncodegen-units = 4\n\
                [profile.release.package.rmcp]\nopt-level = 1\n\
                [profile.dist]\ninherits = \"release\"\nlto = \"fat\"\nopt-level = 3\ncodegen-units = 1\n\
                [profile.dist.package.rmcp]\nopt-level = \"s\"\ncodegen-units = 1\n";
    assert_eq!(
        dist_problems(toml),
        [
            "tantivy: [profile.dist.package.tantivy] needs opt-level = 3 (or \"s\") and \
          codegen-units = 1, has None and None"
        ]
    );
    let thin = toml.replace("lto = \"fat\"", "lto = \"thin\"");
    assert!(dist_problems(&thin).contains(&"[profile.dist] needs lto = \"fat\"".to_string()));
}
