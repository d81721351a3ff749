//! A document as docnav keeps it: card and tree, and the glue that makes one from a file
//! (parse → build → card). Its search entries live in the workspace's section index.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::WorkspaceError;
use crate::index::{DocCard, NodeTerms, SectionIndex};
use crate::parse::{parse_bytes_with, ParseError};
use crate::tree::{build_tree, BuildOptions, Tree};

/// One indexed document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The card (also stored in the catalog).
    pub card: DocCard,
    /// The heading tree.
    pub tree: Tree,
}

impl Document {
    /// About how many heap bytes the decoded tree holds: its nodes' strings plus a fixed
    /// overhead per node (the struct, its vectors and ranges). What the tree cache of a
    /// long-running reader counts against its budget.
    pub fn heap_bytes(&self) -> usize {
        const PER_NODE: usize = 160;
        self.tree
            .nodes
            .iter()
            .map(|n| {
                n.title.len()
                    + n.content.len()
                    + n.summary.len()
                    + n.structure.len()
                    + 4 * (n.children.len() + n.references.len())
                    + PER_NODE
            })
            .sum()
    }
}

/// A freshly built document and the non-fatal warnings met on the way (one line each).
#[derive(Debug)]
pub struct BuiltDocument {
    /// The document.
    pub document: Document,
    /// Warnings naming the file (lossy UTF-8, pages without text, …).
    pub warnings: Vec<String>,
    /// The tree's terms, tokenized once for the card's top terms and kept for its section
    /// index entries ([`crate::index::SectionIndex::entries_with_terms`]).
    pub terms: NodeTerms,
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
        let source = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let terms = NodeTerms::of(&tree);
        let card = DocCard::with_terms(
            doc_id,
            &source.to_string_lossy(),
            bytes.len() as u64,
            fingerprint,
            &tree,
            &terms,
        );
        Ok(BuiltDocument {
            document: Document { card, tree },
            warnings,
            terms,
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
        self.cards()
            .binary_search_by(|c| c.doc_id.as_str().cmp(doc_id))
            .ok()
            .and_then(|i| self.cards().get(i))
    }

    /// The section index every search goes through (opened on first use for a workspace).
    ///
    /// Errors: [`WorkspaceError::Search`] when the index is missing or damaged (the message
    /// names the workspace and the command that repairs it).
    fn sections(&self) -> Result<&SectionIndex, WorkspaceError>;
}

/// A library held in memory, with its section index in RAM (tests, benchmarks, one-off runs
/// over files without a workspace).
#[derive(Debug)]
pub struct InMemoryLibrary {
    cards: Vec<DocCard>,
    docs: HashMap<String, Arc<Document>>,
    /// The index, or why tantivy could not build it in memory (reported by
    /// [`Library::sections`]).
    sections: Result<SectionIndex, String>,
}

impl Default for InMemoryLibrary {
    /// A library of no documents.
    fn default() -> InMemoryLibrary {
        InMemoryLibrary::new(Vec::new())
    }
}

impl InMemoryLibrary {
    /// A library of these documents; cards sorted by `doc_id`; every document indexed in an
    /// in-memory section index (should tantivy fail to build it, every search of the library
    /// reports why).
    pub fn new(documents: Vec<Document>) -> InMemoryLibrary {
        let sections = index_in_memory(documents.iter().map(|d| (&d.card, &d.tree)))
            .map_err(|e| e.to_string());
        let mut cards: Vec<DocCard> = documents.iter().map(|d| d.card.clone()).collect();
        cards.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        let docs = documents
            .into_iter()
            .map(|d| (d.card.doc_id.clone(), Arc::new(d)))
            .collect();
        InMemoryLibrary {
            cards,
            docs,
            sections,
        }
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

    fn sections(&self) -> Result<&SectionIndex, WorkspaceError> {
        self.sections
            .as_ref()
            .map_err(|reason| WorkspaceError::Search {
                dir: "in memory".into(),
                reason: reason.clone(),
            })
    }
}

/// An in-memory section index of `documents` (each card's fingerprint as its build identity).
///
/// Errors: [`crate::index::SectionIndexError`] if tantivy fails in memory (a bug).
pub fn index_in_memory<'a>(
    documents: impl IntoIterator<Item = (&'a DocCard, &'a Tree)>,
) -> Result<SectionIndex, crate::index::SectionIndexError> {
    let sections = SectionIndex::create_in_ram()?;
    let writer = sections.writer(1)?;
    for (card, tree) in documents {
        writer.replace(sections.entries(card, tree, &card.fingerprint))?;
    }
    writer.commit(1)?;
    sections.reload()?;
    Ok(sections)
}
