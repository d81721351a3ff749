//! The index run's inputs: command-line arguments (files, folders, globs) expanded into files,
//! the start of a run over files named one by one, and the sources of a refresh.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use globset::Glob;
use rustc_hash::FxHashSet;

use super::IndexOptions;
use crate::parse::format_for_path;
use crate::tree::DocFormat;
use crate::workspace::site_files::{is_not_found_page, is_sphinx_output, sources_beside_pages};
use crate::workspace::{open_store, Catalog, CatalogEntry, CatalogStore};

/// A file to index; `explicit` when named on the command line (not found by recursion).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Absolute path.
    pub path: PathBuf,
    /// Named directly by the user.
    pub explicit: bool,
}

/// True when a command-line path is a glob (`docs/**/*.md`): it has `*`, `?`, `[` or `{`.
pub fn is_glob(arg: &str) -> bool {
    arg.contains(['*', '?', '[', '{'])
}

fn is_hidden(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0
        && entry
            .file_name()
            .to_str()
            .is_some_and(|s| s.starts_with('.'))
}

/// A walked entry that is a site's by-product, not one of its pages: Sphinx's own output beside
/// the pages of an HTML build ([`is_sphinx_output`]) or a "not found" page
/// ([`is_not_found_page`]); never the walk's root.
fn is_walked_site_output(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0
        && match (entry.path().parent(), entry.file_name().to_str()) {
            (Some(parent), Some(name)) => {
                (entry.file_type().is_file() && is_not_found_page(name))
                    || is_sphinx_output(parent, name)
            }
            _ => false,
        }
}

/// Expand command-line arguments (files, folders, globs) into input files of `formats`.
///
/// Folders are walked recursively for the extensions of `formats` ([`DocFormat::extensions`]:
/// `.md .markdown .pdf .txt .html .htm .xhtml .docx .epub` for all), passing over hidden entries,
/// [Sphinx's own output](is_sphinx_output) beside a build's pages, a site's `404.html`
/// ([`is_not_found_page`]) and a `.txt` file beside an HTML page of its stem
/// ([`sources_beside_pages`]); globs
/// (`docs/**/*.md`) are matched with globset from their literal prefix, and their matches of
/// known extensions outside `formats` passed over. Returns the inputs (deduplicated, sorted)
/// and one error line per argument that matched nothing, per one that is neither a file nor a
/// folder (a device, pipe or socket) and per named file of a format outside `formats`.
pub fn collect_inputs(args: &[String], formats: &[DocFormat]) -> (Vec<Input>, Vec<String>) {
    let mut found: Vec<Input> = Vec::new();
    let mut errors = Vec::new();
    let excluded = |p: &Path| format_for_path(p).is_some_and(|f| !formats.contains(&f));
    let names: Vec<&str> = formats.iter().map(|f| f.flag_name()).collect();
    for arg in args {
        let path = Path::new(arg);
        // One stat per argument, following links as `Path::is_file` does.
        let kind = std::fs::metadata(path).ok().map(|m| m.file_type());
        if kind.is_some_and(|k| k.is_file()) {
            if excluded(path) {
                errors.push(format!(
                    "`{arg}` is {}, not one of --formats {}",
                    format_for_path(path).map_or("", |f| f.flag_name()),
                    names.join(",")
                ));
                continue;
            }
            found.push(Input {
                path: absolute(path),
                explicit: true,
            });
        } else if kind.is_some_and(|k| k.is_dir()) {
            let before = found.len();
            // Resolved once: below it the walk meets real folders and regular files only (links
            // are not followed), so a file's path is the root's plus its own name, and no file
            // costs a `readlink` per component of its path.
            let root = absolute(path);
            let mut pages = false;
            for entry in walkdir::WalkDir::new(path)
                // By file name, compared as whole paths: siblings share their parent's path, so
                // the order is the same, without parsing each name out of its path for each of
                // the comparisons (1.7 million at 100,000 documents).
                .sort_by(|a, b| a.path().as_os_str().cmp(b.path().as_os_str()))
                .into_iter()
                .filter_entry(|e| !is_hidden(e) && !is_walked_site_output(e))
                .flatten()
            {
                if !entry.file_type().is_file() {
                    continue;
                }
                let format = format_for_path(entry.path());
                if format.is_some_and(|f| formats.contains(&f)) {
                    pages |= format == Some(DocFormat::Html);
                    let path = match entry.path().strip_prefix(path) {
                        Ok(relative) => root.join(relative),
                        Err(_) => absolute(entry.path()),
                    };
                    found.push(Input {
                        path,
                        explicit: false,
                    });
                }
            }
            // Only a walk that found HTML pages can have their sources beside them.
            let sources: HashSet<usize> = if pages {
                let paths: Vec<&Path> = found[before..].iter().map(|i| i.path.as_path()).collect();
                sources_beside_pages(&paths).into_iter().collect()
            } else {
                HashSet::new()
            };
            if !sources.is_empty() {
                let walked = found.split_off(before);
                found.extend(
                    walked
                        .into_iter()
                        .enumerate()
                        .filter(|(i, _)| !sources.contains(i))
                        .map(|(_, input)| input),
                );
            }
            if found.len() == before {
                errors.push(format!(
                    "`{arg}` contains no {} files",
                    crate::parse::extension_list(formats)
                ));
            }
        } else if is_glob(arg) {
            let before = found.len();
            match Glob::new(arg) {
                Ok(glob) => {
                    let matcher = glob.compile_matcher();
                    let base = glob_base(arg);
                    for entry in walkdir::WalkDir::new(&base)
                        .sort_by_file_name()
                        .into_iter()
                        .flatten()
                    {
                        let p = entry.path();
                        let rel = p.strip_prefix("./").unwrap_or(p);
                        if entry.file_type().is_file()
                            && (matcher.is_match(rel) || matcher.is_match(p))
                            && !excluded(p)
                        {
                            found.push(Input {
                                path: absolute(p),
                                explicit: true,
                            });
                        }
                    }
                    if found.len() == before {
                        errors.push(format!("`{arg}` matches no files"));
                    }
                }
                Err(e) => errors.push(format!("`{arg}` is not a valid glob: {e}")),
            }
        } else if kind.is_some() {
            // There, but not something to read to its end: /dev/zero never ends, a pipe waits.
            errors.push(format!(
                "`{arg}` is not a file or a folder (a device, pipe or socket); not indexed"
            ));
        } else {
            errors.push(format!("`{arg}`: no such file or directory"));
        }
    }
    dedup_inputs(&mut found);
    (found, errors)
}

/// Where an index run of files named one by one starts (see [`named_files_start`]).
pub(super) struct NamedFilesStart {
    /// The catalog's rows of those files only.
    pub(super) catalog: Catalog,
    pub(super) walked: (Vec<Input>, Vec<String>),
    /// Those rows' tree files that exist.
    pub(super) tree_files: FxHashSet<String>,
    /// The catalog, to check new ids against the rows not read.
    pub(super) store: CatalogStore,
    /// The named files' sources (absolute), present and gone: only their aliases are pruned.
    pub(super) sources: FxHashSet<String>,
}

/// For a run over files named one by one (no folder or glob), on a workspace of this format:
/// their inputs, their rows only, and which of those rows' tree files exist, so a re-index of
/// one file reads neither every row nor the listing of `docs/`. With
/// `--prune`, a named file that is gone is named for its row, which the run then drops (what
/// `docnav index --watch` does when a file is deleted); one that no document came from is an
/// error. `None` for any other run, or when the catalog cannot be opened as it is (missing,
/// older, damaged: the whole-catalog path reports or repairs it).
pub(super) fn named_files_start(
    dir: &Path,
    args: &[String],
    options: &IndexOptions,
    docs_dir: &Path,
) -> Option<NamedFilesStart> {
    let gone = |a: &String| options.prune && !is_glob(a) && !Path::new(a).exists();
    if args.is_empty() || !args.iter().all(|a| Path::new(a).is_file() || gone(a)) {
        return None;
    }
    let store = open_store(dir).ok()?;
    let (present, gone): (Vec<String>, Vec<String>) = args.iter().cloned().partition(|a| !gone(a));
    let mut walked = collect_inputs(&present, &options.formats);
    let gone_sources: Vec<String> = gone
        .iter()
        .map(|a| resolved_path(Path::new(a)).to_string_lossy().into_owned())
        .collect();
    let sources: Vec<String> = walked
        .0
        .iter()
        .map(|i| i.path.to_string_lossy().into_owned())
        .chain(gone_sources.iter().cloned())
        .collect();
    let rows = store.entries_for_sources(&sources).ok()?;
    let aliases = store.aliases().ok()?;
    for (arg, source) in gone.iter().zip(&gone_sources) {
        let known = rows.iter().any(|r| r.source == *source)
            || aliases.iter().any(|a| a.row.source == *source);
        if !known {
            walked.1.push(format!("`{arg}`: no such file or directory"));
        }
    }
    let tree_files = rows
        .iter()
        .filter(|r| docs_dir.join(&r.tree_file).is_file())
        .map(|r| r.tree_file.clone())
        .collect();
    Some(NamedFilesStart {
        catalog: Catalog {
            index_generation: store.head().index_generation,
            documents: rows,
            aliases,
        },
        walked,
        tree_files,
        store,
        sources: sources.into_iter().collect(),
    })
}

/// The result of a scoped thread; its panic goes on in the caller, as if it had run there.
pub(super) fn join_scoped<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Keep the first input of each path, sorted by path. A stable sort keeps equal paths in their
/// order, and the sort is linear on a walk's output, which is nearly sorted (hashing every path
/// to find duplicates first would cost more than the sort).
pub(super) fn dedup_inputs(inputs: &mut Vec<Input>) {
    inputs.sort_by(|a, b| a.path.cmp(&b.path));
    inputs.dedup_by(|later, first| later.path == first.path);
}

/// The names of the files in the workspace's `docs/` (tree files, stray temp files), read once,
/// not a stat per document: a one-file re-index must not cost a call per document. Empty when it
/// cannot be read (the writes that follow report that).
pub(super) fn list_tree_files(docs_dir: &Path) -> FxHashSet<String> {
    std::fs::read_dir(docs_dir)
        .map(|read| {
            read.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The literal directory prefix of a glob (`docs/**/*.md` → `docs`), `.` when none.
fn glob_base(glob: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for part in Path::new(glob).components() {
        let s = part.as_os_str().to_string_lossy();
        if is_glob(&s) {
            break;
        }
        base.push(part);
    }
    if base.as_os_str().is_empty() || base.is_file() {
        PathBuf::from(".")
    } else {
        base
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The path the catalog knows a file by, whether or not it still exists: the path made absolute
/// with symlinks resolved (`absolute`) when it exists; when it is gone, its folder's (when that
/// is still there) joined with its name — what `absolute` made of it while it existed.
pub fn resolved_path(path: &Path) -> PathBuf {
    if path.exists() {
        return absolute(path);
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            absolute(parent).join(name)
        }
        _ => absolute(path),
    }
}

/// The inputs of a run and its error lines: the `walked` arguments, and with `refresh` (no
/// paths, or an older workspace) the sources of every row of `catalog`, aliases included (one
/// changed since may no longer have its document's text). Sources of formats outside
/// `--formats` are left as they are, not refused. In an older workspace (`outdated`) the rows
/// whose source is gone are dropped from `catalog`, with a notice each: their tree files are of
/// the old format, so nothing of them can be kept.
pub(super) fn gather(
    walked: Option<(Vec<Input>, Vec<String>)>,
    refresh: bool,
    outdated: bool,
    catalog: &mut Catalog,
    options: &IndexOptions,
    notices: &mut Vec<String>,
) -> (Vec<Input>, Vec<String>) {
    let (mut inputs, mut errors) = walked.unwrap_or_default();
    if !refresh {
        return (inputs, errors);
    }
    let (present, gone): (Vec<&CatalogEntry>, Vec<&CatalogEntry>) = catalog
        .documents
        .iter()
        .chain(catalog.aliases.iter().map(|a| &a.row))
        .partition(|e| Path::new(&e.source).is_file());
    let sources: Vec<String> = present
        .iter()
        .filter(|e| options.formats.contains(&e.format))
        .map(|e| e.source.clone())
        .collect();
    if outdated {
        for e in &gone {
            notices.push(format!(
                "`{}` ({}) is gone; dropped from the workspace",
                e.source, e.doc_id
            ));
        }
        let gone: HashSet<String> = gone.iter().map(|e| e.doc_id.clone()).collect();
        catalog.documents.retain(|e| !gone.contains(&e.doc_id));
        catalog.aliases.retain(|a| !gone.contains(a.alias()));
    }
    let (more, more_errors) = collect_inputs(&sources, &options.formats);
    inputs.extend(more);
    errors.extend(more_errors);
    dedup_inputs(&mut inputs);
    (inputs, errors)
}
