//! A document as docnav keeps it: card and tree, and the glue that makes one from a file
//! (parse → build → card). Its search entries live in the workspace's section index.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::WorkspaceError;
use crate::index::{DocCard, NodeTerms, SectionIndex};
use crate::parse::{parse_bytes_with, ParseError};
use crate::tree::{build_tree_with, BuildOptions, Tree};

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
    /// [`text_fingerprint`] of the tree: what the indexer compares to keep a text once.
    pub text_sha256: String,
}

/// Lowercase hex sha256 of `bytes` (the document fingerprint).
pub fn fingerprint(bytes: &[u8]) -> String {
    crate::digest::sha256_hex(bytes)
}

/// Lowercase hex sha256 of a tree's text: every node's structure number, title and content, in
/// arena order, each length-prefixed. Two sources with this hash equal read the same, section by
/// section, whatever their bytes (a PDF saved again with another producer or date, a DOCX zipped
/// again), so the indexer keeps them once ([`crate::workspace::indexer`]).
///
/// `titled`: the root's title comes from the document ([`crate::tree::build::names_its_title`]);
/// when it does not, the root's title is the file's stem and is left out, so that copies of one
/// text under two names hash alike. Summaries, locations and links are left out: they follow
/// from the text, or (links resolved against a file's folder) from where the file is.
///
/// Returns "" (no text to compare) for a tree without any content: two scanned PDFs without a
/// text layer, or two empty files, are not the same document, and keeping both is never a loss.
pub fn text_fingerprint(tree: &Tree, titled: bool) -> String {
    if tree.nodes.iter().all(|node| node.content.trim().is_empty()) {
        return String::new();
    }
    let mut hasher = Sha256::new();
    let mut field = |text: &str| {
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    };
    for (i, node) in tree.nodes.iter().enumerate() {
        field(&node.structure);
        field(if i == 0 && !titled { "" } else { &node.title });
        field(&node.content);
    }
    crate::digest::lower_hex(&hasher.finalize())
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

/// File stems that name a page by its place rather than its subject: a site's page served from
/// its own folder (`guide/index.html`, as MkDocs, Docusaurus, Hugo and Sphinx's `dirhtml`
/// write every page) and a package's readme (`packages/cli/README.md`).
const PLACE_STEMS: &[&str] = &["index", "readme"];

/// The readable base of a new document's id, before [`super::unique_slug`] makes it unique: the
/// [slug](slugify) of the file's stem (`nodejs-doc__fs.md` → `nodejs-doc-fs`), or for a file whose
/// stem is `index` or `readme` (any case) the slug of the folder it is in (`site/guide/index.html`
/// → `guide`, where a MkDocs site's pages would be `index`, `index-2`, … `index-40`). The folder
/// is that of the absolute path (no file system access), so a relative `README.md` is named after
/// the current folder; a file at the root of the file system keeps its stem.
pub fn doc_id_base(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("doc");
    if !PLACE_STEMS.iter().any(|p| stem.eq_ignore_ascii_case(p)) {
        return slugify(stem);
    }
    let folder = std::path::absolute(path)
        .ok()
        .and_then(|p| Some(p.parent()?.file_name()?.to_str()?.to_string()));
    slugify(folder.as_deref().unwrap_or(stem))
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
        Document::build_fingerprinted_with(
            path,
            bytes,
            fingerprint,
            doc_id,
            explicit,
            options,
            |_, _| {},
        )
    }

    /// [`Document::build_fingerprinted`], calling `tokenized` with the tree and its terms as
    /// soon as its nodes are final ([`build_tree_with`]): before their summaries and
    /// references, the card and the text fingerprint are made (the indexer starts handing a
    /// large document's entries to the search index there).
    pub fn build_fingerprinted_with(
        path: &Path,
        bytes: &[u8],
        fingerprint: &str,
        doc_id: &str,
        explicit: bool,
        options: &BuildOptions,
        tokenized: impl FnOnce(&Tree, &NodeTerms),
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
        let titled = crate::tree::build::names_its_title(&parsed);
        // Tokenized as soon as the nodes are final, so `tokenized` sees them before the
        // summaries and references are filled.
        let mut terms = None;
        let tree = build_tree_with(parsed, &options, |tree| {
            let of_tree = NodeTerms::of(tree);
            tokenized(tree, &of_tree);
            terms = Some(of_tree);
        });
        let terms = terms.unwrap_or_else(|| NodeTerms::of(&tree));
        let text_sha256 = text_fingerprint(&tree, titled);
        let source = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
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
            text_sha256,
        })
    }
}

/// Cards in catalog order (sorted by `doc_id`), held in memory: what the in-memory libraries
/// (tests, one-off runs, replays) answer [`Library`]'s catalog questions from.
#[derive(Debug, Clone, Default)]
pub struct CardList {
    cards: Vec<Arc<DocCard>>,
}

impl CardList {
    /// The list of `cards`, sorted by `doc_id`.
    pub fn new(cards: impl IntoIterator<Item = DocCard>) -> CardList {
        let mut cards: Vec<Arc<DocCard>> = cards.into_iter().map(Arc::new).collect();
        cards.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        CardList { cards }
    }

    /// How many cards.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// True without cards.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// Cards `offset..offset + limit` (fewer at the end, none past it).
    pub fn page(&self, offset: usize, limit: usize) -> Vec<Arc<DocCard>> {
        let start = offset.min(self.cards.len());
        let end = start.saturating_add(limit).min(self.cards.len());
        self.cards[start..end].to_vec()
    }

    /// The card with this id.
    pub fn get(&self, doc_id: &str) -> Option<Arc<DocCard>> {
        self.position(doc_id).map(|i| self.cards[i].clone())
    }

    /// The position of the card with this id (0-based, catalog order).
    pub fn position(&self, doc_id: &str) -> Option<usize> {
        self.cards
            .binary_search_by(|c| c.doc_id.as_str().cmp(doc_id))
            .ok()
    }

    /// All cards, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<DocCard>> {
        self.cards.iter()
    }
}

impl FromIterator<DocCard> for CardList {
    fn from_iter<I: IntoIterator<Item = DocCard>>(cards: I) -> CardList {
        CardList::new(cards)
    }
}

/// How many cards [`Library::for_each_card`] reads per page.
pub const CARD_SCAN_PAGE: usize = 1_000;

/// Whether a filter of the listing keeps `card`: its doc id or title contains `needle` (ASCII
/// letters compared in either case, as SQLite's `LIKE` does), or its format is `needle`
/// (`pdf`, `markdown`, …).
pub fn card_matches(card: &DocCard, needle: &str) -> bool {
    let needle = needle.to_ascii_lowercase();
    card.doc_id.to_ascii_lowercase().contains(&needle)
        || card.title.to_ascii_lowercase().contains(&needle)
        || card.format.as_str() == needle
}

/// [`Library::cards_matching`] by reading every card of `library`.
pub fn scan_matching(
    library: &(impl Library + ?Sized),
    needle: &str,
    offset: usize,
    limit: usize,
) -> (usize, Vec<Arc<DocCard>>) {
    let mut total = 0;
    let mut out = Vec::new();
    library.for_each_card(&mut |card| {
        if card_matches(card, needle) {
            if total >= offset && out.len() < limit {
                out.push(Arc::new(card.clone()));
            }
            total += 1;
        }
        ControlFlow::Continue(())
    });
    (total, out)
}

/// Where the command language and the agent get documents from.
///
/// The catalog is asked only for what a command uses: the count, a page, a card by
/// id, the cards under a lookup key; a workspace answers each from its catalog store without
/// reading the rest, so these costs do not grow with the catalog. Only commands whose work is
/// the whole catalog (`grep` at `/`, `eval`, `docs`) walk it, through
/// [`Library::for_each_card`].
pub trait Library: Send + Sync {
    /// How many documents the catalog holds.
    fn document_count(&self) -> usize;

    /// Cards `offset..offset + limit` in catalog order (sorted by `doc_id`); fewer at the end,
    /// none past it.
    fn cards_page(&self, offset: usize, limit: usize) -> Vec<Arc<DocCard>>;

    /// The card with this id, `None` for an unknown id.
    fn card(&self, doc_id: &str) -> Option<Arc<DocCard>>;

    /// The document with this id, loaded on first use and cached.
    ///
    /// Errors: [`WorkspaceError::NotFound`] for an unknown id; I/O or format errors for a
    /// damaged tree file.
    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError>;

    /// The section index every search goes through (opened on first use for a workspace).
    ///
    /// Errors: [`WorkspaceError::Search`] when the index is missing or damaged (the message
    /// names the workspace and the command that repairs it).
    fn sections(&self) -> Result<&SectionIndex, WorkspaceError>;

    /// Call `f` on every card in catalog order, [`CARD_SCAN_PAGE`] at a time, until it returns
    /// `ControlFlow::Break`. Costs the whole catalog: for commands whose work is all of it.
    fn for_each_card(&self, f: &mut dyn FnMut(&DocCard) -> ControlFlow<()>) {
        let mut offset = 0;
        loop {
            let page = self.cards_page(offset, CARD_SCAN_PAGE);
            for card in &page {
                if f(card).is_break() {
                    return;
                }
            }
            if page.len() < CARD_SCAN_PAGE {
                return;
            }
            offset += page.len();
        }
    }

    /// Every card in catalog order, read with [`Library::for_each_card`]: for commands whose
    /// work is the whole catalog (`grep` at `/`, `eval`).
    fn all_cards(&self) -> Vec<Arc<DocCard>> {
        let mut out = Vec::with_capacity(self.document_count());
        self.for_each_card(&mut |card| {
            out.push(Arc::new(card.clone()));
            ControlFlow::Continue(())
        });
        out
    }

    /// The cards filed under any of `keys` ([`crate::index::cross_refs::lookup_keys`]: a
    /// document's name, source path, file-name suffixes, title forms), each once, in catalog
    /// order. The default walks the catalog; a workspace looks the keys up in its store.
    fn cards_with_keys(&self, keys: &[String]) -> Vec<Arc<DocCard>> {
        let mut out = Vec::new();
        if keys.is_empty() {
            return out;
        }
        self.for_each_card(&mut |card| {
            if crate::index::cross_refs::lookup_keys(card)
                .iter()
                .any(|k| keys.contains(k))
            {
                out.push(Arc::new(card.clone()));
            }
            ControlFlow::Continue(())
        });
        out
    }

    /// Run `read` and fail with the first catalog read that failed during it: the reads here
    /// answer a failed read as an empty catalog would (a workspace logs it), which a listing or
    /// a ranking must not pass off as the catalog. The default, for a library whose reads
    /// cannot fail (held in memory), runs `read` and returns `Ok`; a workspace holds the
    /// failures of its reads during `read` ([`crate::workspace::Workspace::strict`]).
    ///
    /// Errors: the first [`WorkspaceError`] of a catalog read during `read`.
    fn strict_reads(&self, read: &mut dyn FnMut()) -> Result<(), WorkspaceError> {
        read();
        Ok(())
    }

    /// The 0-based position of `doc_id` in catalog order (its number in `ls /` minus one),
    /// `None` for an unknown id.
    fn card_position(&self, doc_id: &str) -> Option<usize> {
        let mut position = 0;
        let mut found = None;
        self.for_each_card(&mut |card| {
            if card.doc_id == doc_id {
                found = Some(position);
                return ControlFlow::Break(());
            }
            position += 1;
            ControlFlow::Continue(())
        });
        found
    }

    /// The document the alias `alias` names (DESIGN.md §2: a source whose text equals an indexed
    /// document's is kept once, its name an alias), `None` for an id that is no alias. The
    /// default knows no aliases.
    fn alias_target(&self, _alias: &str) -> Option<String> {
        None
    }

    /// Every alias and the document it names, `(alias, doc_id)` in alias order (there are few:
    /// one per duplicate source). The default knows none.
    fn aliases(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// The id of the document `id` names: `id` itself when a document has it, else the document
    /// the alias `id` names; `None` when neither (or the alias names no document). What `cd`,
    /// `docnav tree` and `--doc` look an id up by.
    fn resolve_id(&self, id: &str) -> Option<String> {
        if self.card(id).is_some() {
            return Some(id.to_string());
        }
        self.alias_target(id)
            .filter(|target| self.card(target).is_some())
    }

    /// The cards that [`card_matches`] `needle`, `offset..offset + limit` of them in catalog
    /// order, with how many match in all. Here every card is read; a workspace answers from its
    /// catalog store's short id, title and format rows instead.
    fn cards_matching(
        &self,
        needle: &str,
        offset: usize,
        limit: usize,
    ) -> (usize, Vec<Arc<DocCard>>) {
        scan_matching(self, needle, offset, limit)
    }

    /// The cards whose doc id starts with `prefix`, at most `limit`, in catalog order.
    fn cards_with_id_prefix(&self, prefix: &str, limit: usize) -> Vec<Arc<DocCard>> {
        let mut out = Vec::new();
        self.for_each_card(&mut |card| {
            if out.len() >= limit {
                return ControlFlow::Break(());
            }
            if card.doc_id.starts_with(prefix) {
                out.push(Arc::new(card.clone()));
            }
            ControlFlow::Continue(())
        });
        out
    }

    /// A digest of the catalog: its size and the [`SetDigest`] of `doc_id \t fingerprint \n` of
    /// every document (what a trace and the answer cache record to tell catalogs apart).
    fn catalog_digest(&self) -> CatalogDigest {
        let mut rows = SetDigest::default();
        let mut documents = 0;
        self.for_each_card(&mut |card| {
            documents += 1;
            rows.toggle_row(&card.doc_id, &card.fingerprint);
            ControlFlow::Continue(())
        });
        CatalogDigest::finish(documents, rows)
    }

    /// The [`SetDigest`] (hex) of the doc ids, `doc_id \n` each: tells apart catalogs with other
    /// documents, not with changed ones (the answer cache checks the documents a run read
    /// itself).
    fn catalog_ids_digest(&self) -> String {
        let mut ids = SetDigest::default();
        self.for_each_card(&mut |card| {
            ids.toggle_id(&card.doc_id);
            ControlFlow::Continue(())
        });
        ids.hex()
    }
}

/// An order-independent digest of a set of lines: the XOR of the sha256 of each line (a
/// multiset hash; a catalog's lines are unique by doc id, so no two cancel). A line is added and
/// removed the same way ([`SetDigest::toggle_row`]), so a re-index of one document updates the
/// catalog's digest from that document's old and new rows without reading the others (an
/// ordered sha256 over every row would have to read them all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SetDigest([u8; 32]);

impl SetDigest {
    fn toggle(&mut self, parts: &[&[u8]]) {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update(part);
        }
        for (acc, byte) in self.0.iter_mut().zip(hasher.finalize()) {
            *acc ^= byte;
        }
    }

    /// Add (or remove, when present) the catalog row `doc_id \t fingerprint \n`.
    pub fn toggle_row(&mut self, doc_id: &str, fingerprint: &str) {
        self.toggle(&[doc_id.as_bytes(), b"\t", fingerprint.as_bytes(), b"\n"]);
    }

    /// Add (or remove, when present) the id line `doc_id \n`.
    pub fn toggle_id(&mut self, doc_id: &str) {
        self.toggle(&[doc_id.as_bytes(), b"\n"]);
    }

    /// Lowercase hex, 64 chars (all `0` for the empty set).
    pub fn hex(&self) -> String {
        crate::digest::lower_hex(&self.0)
    }

    /// The digest written by [`SetDigest::hex`]; `None` for anything else.
    pub fn from_hex(text: &str) -> Option<SetDigest> {
        if text.len() != 64 || !text.is_ascii() {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(SetDigest(out))
    }
}

/// A catalog's size and content digest (see [`Library::catalog_digest`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogDigest {
    /// How many documents.
    pub documents: usize,
    /// [`SetDigest`] hex of `doc_id \t fingerprint \n` of every document (the field keeps the
    /// name traces have recorded it under).
    pub sha256: String,
}

impl CatalogDigest {
    /// The digest of `documents` rows toggled into `rows`.
    pub fn finish(documents: usize, rows: SetDigest) -> CatalogDigest {
        CatalogDigest {
            documents,
            sha256: rows.hex(),
        }
    }
}

/// A library held in memory: its cards listed and its section index built in RAM. Its documents
/// are held too ([`InMemoryLibrary::new`]: tests, benchmarks, one-off runs over files without a
/// workspace), or they are those of another library narrowed to some of its cards
/// ([`InMemoryLibrary::narrowed`]: a replay sees only the documents its recording saw).
#[derive(Debug)]
pub struct InMemoryLibrary {
    cards: CardList,
    documents: Documents,
    /// The index, or why it could not be built in memory (reported by [`Library::sections`]).
    sections: Result<SectionIndex, String>,
    /// `alias → doc_id` ([`InMemoryLibrary::with_alias`]).
    aliases: std::collections::BTreeMap<String, String>,
}

/// Where the documents of an [`InMemoryLibrary`] come from.
enum Documents {
    /// Held in memory, by id.
    Held(HashMap<String, Arc<Document>>),
    /// Loaded from this library, which also answers the aliases naming one of the cards and the
    /// catalog reads' failures ([`Library::strict_reads`]).
    Narrowed(Arc<dyn Library>),
}

impl std::fmt::Debug for Documents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Documents::Held(docs) => f.debug_tuple("Held").field(&docs.len()).finish(),
            Documents::Narrowed(_) => f.write_str("Narrowed"),
        }
    }
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
        let cards = CardList::new(documents.iter().map(|d| d.card.clone()));
        let docs = documents
            .into_iter()
            .map(|d| (d.card.doc_id.clone(), Arc::new(d)))
            .collect();
        InMemoryLibrary {
            cards,
            documents: Documents::Held(docs),
            sections,
            aliases: std::collections::BTreeMap::new(),
        }
    }

    /// `library` narrowed to the documents `doc_ids` that it holds (cards in catalog order):
    /// [`Library::cards_page`] lists only them, [`Library::document`] loads only them from
    /// `library` (another id is [`WorkspaceError::NotFound`]), an alias counts when it names one
    /// of them, and [`Library::sections`] is a section index of only them, built in memory, so
    /// searches at `/` see their statistics alone. Loads their trees to index them; one that
    /// cannot be loaded leaves [`Library::sections`] reporting why.
    pub fn narrowed<'a>(
        library: Arc<dyn Library>,
        doc_ids: impl IntoIterator<Item = &'a str>,
    ) -> InMemoryLibrary {
        let cards: Vec<DocCard> = doc_ids
            .into_iter()
            .filter_map(|doc_id| library.card(doc_id))
            .map(|c| DocCard::clone(&c))
            .collect();
        let cards = CardList::new(cards);
        let sections = cards
            .iter()
            .map(|c| library.document(&c.doc_id))
            .collect::<Result<Vec<Arc<Document>>, WorkspaceError>>()
            .map_err(|e| e.to_string())
            .and_then(|docs| {
                index_in_memory(cards.iter().zip(&docs).map(|(c, d)| (&**c, &d.tree)))
                    .map_err(|e| e.to_string())
            });
        InMemoryLibrary {
            cards,
            documents: Documents::Narrowed(library),
            sections,
            aliases: std::collections::BTreeMap::new(),
        }
    }

    /// This library with `alias` a name of the document `doc_id` too (as a workspace records a
    /// duplicate source).
    pub fn with_alias(mut self, alias: &str, doc_id: &str) -> InMemoryLibrary {
        self.aliases.insert(alias.to_string(), doc_id.to_string());
        self
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
            let id = super::unique_slug(&doc_id_base(path), |c| taken.contains(c));
            taken.insert(id.clone());
            documents.push(Document::build(path, &bytes, &id, true, options)?.document);
        }
        Ok(InMemoryLibrary::new(documents))
    }
}

impl Library for InMemoryLibrary {
    fn document_count(&self) -> usize {
        self.cards.len()
    }

    fn cards_page(&self, offset: usize, limit: usize) -> Vec<Arc<DocCard>> {
        self.cards.page(offset, limit)
    }

    fn card(&self, doc_id: &str) -> Option<Arc<DocCard>> {
        self.cards.get(doc_id)
    }

    /// The alias given by [`InMemoryLibrary::with_alias`], else the narrowed library's when it
    /// names one of the cards (a run asked with `--doc` an alias replays).
    fn alias_target(&self, alias: &str) -> Option<String> {
        if let Some(target) = self.aliases.get(alias) {
            return Some(target.clone());
        }
        match &self.documents {
            Documents::Held(_) => None,
            Documents::Narrowed(inner) => inner
                .alias_target(alias)
                .filter(|target| self.cards.get(target).is_some()),
        }
    }

    /// The cards and index are in memory; a narrowed library's aliases are read from the library
    /// it narrows, whose read failures count.
    fn strict_reads(&self, read: &mut dyn FnMut()) -> Result<(), WorkspaceError> {
        match &self.documents {
            Documents::Held(_) => {
                read();
                Ok(())
            }
            Documents::Narrowed(inner) => inner.strict_reads(read),
        }
    }

    fn aliases(&self) -> Vec<(String, String)> {
        let mut aliases = match &self.documents {
            Documents::Held(_) => Vec::new(),
            Documents::Narrowed(inner) => {
                let mut aliases = inner.aliases();
                aliases.retain(|(_, target)| self.cards.get(target).is_some());
                aliases
            }
        };
        aliases.extend(
            self.aliases
                .iter()
                .map(|(alias, doc_id)| (alias.clone(), doc_id.clone())),
        );
        aliases
    }

    fn document(&self, doc_id: &str) -> Result<Arc<Document>, WorkspaceError> {
        match &self.documents {
            Documents::Held(docs) => docs.get(doc_id).cloned(),
            Documents::Narrowed(inner) if self.cards.get(doc_id).is_some() => {
                return inner.document(doc_id)
            }
            Documents::Narrowed(_) => None,
        }
        .ok_or_else(|| WorkspaceError::NotFound(doc_id.to_string()))
    }

    fn sections(&self) -> Result<&SectionIndex, WorkspaceError> {
        let dir = match self.documents {
            Documents::Held(_) => "in memory",
            Documents::Narrowed(_) => "replay (in memory)",
        };
        self.sections
            .as_ref()
            .map_err(|reason| WorkspaceError::Search {
                dir: dir.into(),
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
