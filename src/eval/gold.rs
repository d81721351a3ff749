//! Gold data of a question set: which document a question names ([`DocResolver`]), which section
//! its gold path names ([`GoldIndex`]), and a library built from the files a set names when there
//! is no workspace ([`library_from_qa`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{DataError, QaItem};
use crate::tree::{BuildOptions, NodeId};
use crate::workspace::{doc_id_base, unique_slug, Document, InMemoryLibrary, Library};

/// Collapse runs of whitespace to one space and trim (`"a \n b"` → `"a b"`).
pub fn normalize_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A heading title in comparable form: inline Markdown removed (code spans' backticks, `*`/`_`
/// emphasis, `~~`, links and images keep their text, HTML tags, backslash escapes, a trailing
/// `{#id .class}` attribute list), then lowercased with whitespace collapsed and no space before
/// `, ; : . ! ? )` (parsers differ on the space a removed code span leaves).
/// `"Class: `FileHandle`"` and `"class:  FileHandle"` both give `"class: filehandle"`.
pub fn normalize_heading(title: &str) -> String {
    let chars: Vec<char> = title.trim().chars().collect();
    let mut out = String::with_capacity(title.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\\' if next.is_some_and(|n| n.is_ascii_punctuation()) => {
                out.extend(next);
                i += 2;
                continue;
            }
            '!' if next == Some('[') => {}
            '[' => {
                if let Some((text_end, link_end)) = link_at(&chars, i) {
                    out.extend(&chars[i + 1..text_end]);
                    i = link_end + 1;
                    continue;
                }
                out.push(c);
            }
            '<' if next.is_some_and(|n| n.is_ascii_alphabetic() || n == '/') => {
                if let Some(end) = chars[i..].iter().position(|&ch| ch == '>') {
                    i += end + 1;
                    continue;
                }
                out.push(c);
            }
            '{' if chars[i..].last() == Some(&'}')
                && next.is_some_and(|n| n == '#' || n == ' ') =>
            {
                break;
            }
            '`' | '*' | '~' => {}
            '_' => {
                let prev_word = i > 0 && chars[i - 1].is_alphanumeric();
                let next_word = next.is_some_and(char::is_alphanumeric);
                if prev_word && next_word {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    let mut spaced = normalize_space(&out).to_lowercase();
    for p in [",", ";", ":", ".", "!", "?", ")"] {
        spaced = spaced.replace(&format!(" {p}"), p);
    }
    spaced
}

/// For a `[` at `open`: the index of the closing `]` and of the `)` of a `[text](url)` link.
fn link_at(chars: &[char], open: usize) -> Option<(usize, usize)> {
    let close = open + chars[open..].iter().position(|&c| c == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = close + 1 + chars[close + 1..].iter().position(|&c| c == ')')?;
    Some((close, end))
}

/// Maps the `doc` field of a question (a doc id, or a path to a document's source file) to a
/// doc id of a library.
#[derive(Debug, Clone)]
pub struct DocResolver {
    ids: HashSet<String>,
    sources: HashMap<PathBuf, String>,
    failed: HashMap<String, String>,
    base_dir: PathBuf,
}

impl DocResolver {
    /// A resolver over `library`'s cards; relative paths are tried against `base_dir` (the
    /// question file's folder) first, then the current directory.
    pub fn new(library: &dyn Library, base_dir: &Path) -> DocResolver {
        let mut sources = HashMap::new();
        let cards = library.all_cards();
        for card in &cards {
            let source = PathBuf::from(&card.source);
            if let Ok(canonical) = source.canonicalize() {
                sources.insert(canonical, card.doc_id.clone());
            }
            sources.insert(source, card.doc_id.clone());
        }
        DocResolver {
            ids: cards.iter().map(|c| c.doc_id.clone()).collect(),
            sources,
            failed: HashMap::new(),
            base_dir: base_dir.to_path_buf(),
        }
    }

    /// Remember documents that could not be built (`(doc value, reason)`, as returned by
    /// [`library_from_qa`]) so their questions report the reason instead of "unknown".
    pub fn with_failures(mut self, failures: Vec<(String, String)>) -> DocResolver {
        self.failed.extend(failures);
        self
    }

    /// The doc id `doc` names: itself when it is an id, else the document whose source file is
    /// `doc` (relative to the base folder or the current directory).
    ///
    /// Errors: [`DataError::DocumentFailed`] for a file that could not be built (see
    /// [`DocResolver::with_failures`]), [`DataError::UnknownDocument`] otherwise.
    pub fn resolve(&self, doc: &str) -> Result<String, DataError> {
        if self.ids.contains(doc) {
            return Ok(doc.to_string());
        }
        let found = [self.base_dir.join(doc), PathBuf::from(doc)]
            .iter()
            .find_map(|p| {
                let canonical = p.canonicalize().ok()?;
                self.sources.get(&canonical).cloned()
            });
        match (found, self.failed.get(doc)) {
            (Some(id), _) => Ok(id),
            (None, Some(reason)) => Err(DataError::DocumentFailed {
                doc: doc.to_string(),
                reason: reason.clone(),
            }),
            (None, None) => Err(DataError::UnknownDocument(doc.to_string())),
        }
    }
}

/// Build an in-memory library of the files the questions' `doc` fields name (relative to
/// `base_dir` first, then the current directory), for running a set without a workspace.
/// Doc ids are slugs of the file stems made unique, as `docnav index` makes them. Returns the
/// library and one `(doc value, reason)` per file that could not be read or parsed (pass them to
/// [`DocResolver::with_failures`]). `doc` values that are not files are left for the resolver.
pub fn library_from_qa(
    items: &[QaItem],
    base_dir: &Path,
    options: &BuildOptions,
) -> (InMemoryLibrary, Vec<(String, String)>) {
    let mut seen = HashSet::new();
    let mut taken = HashSet::new();
    let mut documents = Vec::new();
    let mut warnings = Vec::new();
    for doc in items.iter().filter_map(|i| i.doc.as_deref()) {
        let Some(path) = [base_dir.join(doc), PathBuf::from(doc)]
            .into_iter()
            .find(|p| p.is_file())
        else {
            continue;
        };
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !seen.insert(key) {
            continue;
        }
        let id = unique_slug(&doc_id_base(&path), |c| taken.contains(c));
        let built = std::fs::read(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))
            .and_then(|bytes| {
                Document::build(&path, &bytes, &id, true, options).map_err(|e| e.to_string())
            });
        match built {
            Ok(b) => {
                taken.insert(id);
                documents.push(b.document);
            }
            Err(e) => warnings.push((doc.to_string(), e)),
        }
    }
    (InMemoryLibrary::new(documents), warnings)
}

/// The section a gold path names.
#[derive(Debug, Clone)]
pub struct GoldSection {
    /// Its document's id.
    pub doc_id: String,
    /// Its node.
    pub node: NodeId,
    /// Its dotted structure (`""` for a root).
    pub structure: String,
    /// Its document.
    pub document: Arc<Document>,
}

/// Looks gold paths up, caching each document's normalised title paths.
#[derive(Debug, Default)]
pub struct GoldIndex {
    paths: HashMap<String, Vec<(Vec<String>, NodeId)>>,
}

impl GoldIndex {
    /// An empty cache.
    pub fn new() -> GoldIndex {
        GoldIndex::default()
    }

    /// The one section of the documents `scope` whose title path (below the root, compared with
    /// [`normalize_heading`]) is `gold_path`, checked to contain `answer` (whitespace
    /// normalised) in its [`crate::tree::Tree::text_of`].
    ///
    /// Errors: [`DataError::GoldNotFound`], [`DataError::GoldAmbiguous`] (more than one match),
    /// [`DataError::AnswerNotInGold`], [`DataError::Library`] when a document fails to load.
    pub fn find(
        &mut self,
        library: &dyn Library,
        scope: &[String],
        gold_path: &[String],
        answer: &str,
    ) -> Result<GoldSection, DataError> {
        let want: Vec<String> = gold_path.iter().map(|t| normalize_heading(t)).collect();
        let shown = gold_path.join(" › ");
        let mut found = Vec::new();
        for doc_id in scope {
            let document = library
                .document(doc_id)
                .map_err(|e| DataError::Library(e.to_string()))?;
            let paths = self.paths.entry(doc_id.clone()).or_insert_with(|| {
                let tree = &document.tree;
                tree.preorder(NodeId::ROOT)
                    .into_iter()
                    .map(|id| {
                        let path = tree.title_path(id);
                        (path.iter().map(|t| normalize_heading(t)).collect(), id)
                    })
                    .collect()
            });
            for (path, id) in paths.iter() {
                if *path == want {
                    found.push((doc_id.clone(), *id, document.clone()));
                }
            }
        }
        let (doc_id, node, document) = match found.len() {
            0 => {
                let scope = match scope {
                    [one] => format!("document `{one}`"),
                    _ => "any document".to_string(),
                };
                return Err(DataError::GoldNotFound { path: shown, scope });
            }
            1 => found.remove(0),
            count => return Err(DataError::GoldAmbiguous { path: shown, count }),
        };
        let text = normalize_space(&document.tree.text_of(node));
        if !text.contains(&normalize_space(answer)) {
            return Err(DataError::AnswerNotInGold {
                answer: answer.to_string(),
                path: shown,
            });
        }
        Ok(GoldSection {
            structure: document.tree.node(node).structure.clone(),
            doc_id,
            node,
            document,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn headings_compare_without_markup_case_or_extra_spaces() {
        let cases = [
            ("Class: `FileHandle`", "class: filehandle"),
            (
                "  The  **special**   `all` file type ",
                "the special all file type",
            ),
            ("[Links](http://x.y/z) and ![img](a.png)", "links and img"),
            (
                "fs.read(fd[, options], callback)",
                "fs.read(fd[, options], callback)",
            ),
            ("_emphasis_ and snake_case", "emphasis and snake_case"),
            ("Escaped \\*star\\*", "escaped *star*"),
            ("<code>rg</code> usage", "rg usage"),
            ("Title { #anchor data-toc-label='x' }", "title"),
            ("Café  Crème", "café crème"),
            ("When I run rg , why ?", "when i run rg, why?"),
            ("When I run `rg`, why?", "when i run rg, why?"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_heading(input), want, "{input:?}");
        }
    }

    #[test]
    fn paths_resolve_to_the_ids_of_their_documents() {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let item = |doc: &str| QaItem {
            line: 1,
            doc: Some(doc.into()),
            question: "q".into(),
            gold_path: vec![],
            answer: "a".into(),
        };
        let items = vec![
            item("docs/notes.txt"),
            item("docs/../docs/notes.txt"),
            item("nope.md"),
        ];
        let (library, warnings) = library_from_qa(&items, &base, &BuildOptions::default());
        assert_eq!(warnings, Vec::<(String, String)>::new());
        assert_eq!(library.document_count(), 1);
        let resolver = DocResolver::new(&library, &base);
        assert_eq!(resolver.resolve("docs/notes.txt"), Ok("notes".into()));
        assert_eq!(resolver.resolve("notes"), Ok("notes".into()));
        assert_eq!(
            resolver.resolve("docs/ripgrep__FAQ.md"),
            Err(DataError::UnknownDocument("docs/ripgrep__FAQ.md".into()))
        );
        let resolver = resolver.with_failures(vec![("nope.md".into(), "bad".into())]);
        assert_eq!(
            resolver.resolve("nope.md"),
            Err(DataError::DocumentFailed {
                doc: "nope.md".into(),
                reason: "bad".into()
            })
        );
    }
}
