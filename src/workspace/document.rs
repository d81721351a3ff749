//! A document as docnav keeps it: card, tree and keyword index, and the glue that makes one from
//! a file (parse → build → index → card).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::WorkspaceError;
use crate::index::{DocCard, KeywordIndex};
use crate::parse::{parse_bytes_with, ParseError};
use crate::tree::{build_tree, BuildOptions, Tree};

/// One indexed document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The card (also stored in the catalog).
    pub card: DocCard,
    /// The heading tree.
    pub tree: Tree,
    /// BM25 keyword index over the tree's nodes.
    pub index: KeywordIndex,
}

/// A freshly built document and the non-fatal warnings met on the way (one line each).
#[derive(Debug)]
pub struct BuiltDocument {
    /// The document.
    pub document: Document,
    /// Warnings naming the file (lossy UTF-8, pages without text, …).
    pub warnings: Vec<String>,
}

/// Lowercase hex sha256 of `bytes` (the document fingerprint).
pub fn fingerprint(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Readable slug of a file stem: lowercase ASCII letters and digits, other runs become `-`
/// (`nodejs-doc__fs` → `nodejs-doc-fs`). Non-ASCII letters are kept (lowercased). Never empty:
/// falls back to `doc`.
pub fn slugify(stem: &str) -> String {
    let mut out = String::new();
    for c in stem.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "doc".into()
    } else {
        out
    }
}

impl Document {
    /// Parse and build the document in `bytes` read from `path`.
    ///
    /// `explicit`: the user named this file (unknown extensions are then read as text when UTF-8).
    /// Errors: [`ParseError`] naming the file.
    pub fn build(
        path: &Path,
        bytes: &[u8],
        doc_id: &str,
        explicit: bool,
        options: &BuildOptions,
    ) -> Result<BuiltDocument, ParseError> {
        Document::build_fingerprinted(path, bytes, &fingerprint(bytes), doc_id, explicit, options)
    }

    /// [`Document::build`] for a caller that already hashed `bytes` (`fingerprint` is their
    /// lowercase hex sha256), so the indexer does not hash every file twice.
    pub fn build_fingerprinted(
        path: &Path,
        bytes: &[u8],
        fingerprint: &str,
        doc_id: &str,
        explicit: bool,
        options: &BuildOptions,
    ) -> Result<BuiltDocument, ParseError> {
        let parsed = parse_bytes_with(path, bytes, explicit, &options.parse)?;
        let mut warnings = parsed.warnings.clone();
        if !parsed.pages_without_text.is_empty() {
            warnings.push(format!(
                "`{}`: {} of {} page(s) have no extractable text (kept with empty content)",
                path.display(),
                parsed.pages_without_text.len(),
                parsed.source_units
            ));
        }
        let mut options = options.clone();
        if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
            options.fallback_title = stem.to_string();
        }
        let tree = build_tree(parsed, &options);
        let index = KeywordIndex::build(&tree);
        let source = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let card = DocCard::new(
            doc_id,
            &source.to_string_lossy(),
            bytes.len() as u64,
            fingerprint,
            &tree,
            &index,
        );
        Ok(BuiltDocument {
            document: Document { card, tree, index },
            warnings,
        })
    }
}

/// Where the command language and the agent get documents from.
pub trait Library: Send + Sync {
    /// All cards, in catalog order (sorted by `doc_id`).
    fn cards(&self) -> &[DocCard];

    /// The document with this id, loaded on first use and cached.
    ///
    /// Errors: [`WorkspaceError::NotFound`] for an unknown id; I/O or format errors for a
    /// damaged tree file.
    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError>;

    /// The card with this id.
    fn card(&self, doc_id: &str) -> Option<&DocCard> {
        self.cards().iter().find(|c| c.doc_id == doc_id)
    }
}

/// A library held in memory (tests, benchmarks, one-off runs over files without a workspace).
#[derive(Debug, Default)]
pub struct InMemoryLibrary {
    cards: Vec<DocCard>,
    docs: HashMap<String, Arc<Document>>,
}

impl InMemoryLibrary {
    /// A library of these documents; cards sorted by `doc_id`.
    pub fn new(documents: Vec<Document>) -> InMemoryLibrary {
        let mut cards: Vec<DocCard> = documents.iter().map(|d| d.card.clone()).collect();
        cards.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        let docs = documents
            .into_iter()
            .map(|d| (d.card.doc_id.clone(), Arc::new(d)))
            .collect();
        InMemoryLibrary { cards, docs }
    }

    /// Parse and build each file; ids are slugs of the file stems made unique (`guide`,
    /// `guide-2`). Errors: the first file that fails to parse.
    pub fn from_paths<P: AsRef<Path>>(
        paths: &[P],
        options: &BuildOptions,
    ) -> Result<InMemoryLibrary, ParseError> {
        let mut documents = Vec::new();
        let mut taken = std::collections::HashSet::new();
        for path in paths {
            let path = path.as_ref();
            let bytes = std::fs::read(path).map_err(|source| ParseError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("doc");
            let id = super::unique_slug(&slugify(stem), |c| taken.contains(c));
            taken.insert(id.clone());
            documents.push(Document::build(path, &bytes, &id, true, options)?.document);
        }
        Ok(InMemoryLibrary::new(documents))
    }
}

impl Library for InMemoryLibrary {
    fn cards(&self) -> &[DocCard] {
        &self.cards
    }

    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError> {
        self.docs
            .get(doc_id)
            .cloned()
            .ok_or_else(|| WorkspaceError::NotFound(doc_id.to_string()))
    }
}
