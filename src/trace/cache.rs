//! Answers reused from traces: an `ask` whose normalised question, model and options
//! match a recorded run over unchanged documents returns that run's evidence (and written answer)
//! at once, marked with the trace it came from, instead of paying for the same model calls again.
//! Matching is exact on the normalised question ([`normalize_question`]) — no embeddings.
//!
//! Each recorded run that completed (no failed Worker, no conversation memory: a follow-up's
//! answer depends on what came before) leaves one small entry in the workspace's
//! `traces/answers/`, named by the hash of its key ([`CacheKey`]). The entry holds the answer, the
//! trace's path, the catalog's index generation, a digest of the document ids, and for each
//! document a Worker read its fingerprint and its source file's size and modification time.
//!
//! An entry is used only while it still describes the workspace ([`AnswerCache::lookup`]):
//! - its trace file exists (deleting the trace forgets the answer);
//! - no source file a Worker read has changed size or modification time since the run (touching
//!   or editing a document asks afresh, even before it is re-indexed);
//! - the catalog is the one the run saw — the same index generation, read from the catalog's
//!   first bytes without opening the workspace (work independent of the catalog's size) — or, after
//!   a re-index, one where the documents read have the same fingerprints and no document was
//!   added or removed ([`AnswerCache::confirm`], which needs the opened catalog).
//!
//! Entries are written atomically; a damaged or foreign entry is a miss, never an error.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization;

use crate::agent::evidence::{Answer, ReusedFrom};
use crate::agent::AgentOptions;
use crate::workspace::Library;

/// Version of the entry layout; an entry of another version is a miss.
const ENTRY_VERSION: u32 = 1;

/// The question as the cache compares it: Unicode NFKC, lowercase, runs of whitespace as one
/// space, without the spaces and `?`, `.`, `!` at either end. "How do I X?" and "how do i  x"
/// match; anything that changes a word does not.
pub fn normalize_question(question: &str) -> String {
    let folded: String = question.nfkc().collect::<String>().to_lowercase();
    let words: Vec<&str> = folded.split_whitespace().collect();
    words
        .join(" ")
        .trim_matches(|c: char| c == '?' || c == '.' || c == '!' || c.is_whitespace())
        .to_string()
}

/// What a cached answer must match: the normalised question, the model name and the agent
/// options (budgets, `--doc` ids, `--answer`). Its serialization ([`CacheKey::canonical`]) is
/// stable: the fields in declaration order, each named, so two keys serialize alike only when
/// they are equal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheKey {
    /// [`normalize_question`] of the question.
    pub question: String,
    /// The model name (`ChatModel::model_id`).
    pub model: String,
    /// The agent options (as serialized into a trace header).
    pub options: AgentOptions,
}

impl CacheKey {
    /// The key of `question` asked of `model` with `options`.
    pub fn new(question: &str, model: &str, options: &AgentOptions) -> CacheKey {
        CacheKey {
            question: normalize_question(question),
            model: model.to_string(),
            options: options.clone(),
        }
    }

    /// The key as JSON, fields in declaration order. Strings, numbers and lists cannot fail to
    /// serialize; were it ever to fail, the key's debug form (as distinct) stands in.
    pub fn canonical(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| format!("{self:?}"))
    }

    /// The entry's file name: 32 hex digits of sha256 over [`CacheKey::canonical`].
    fn file_name(&self) -> String {
        let hash = Sha256::digest(self.canonical().as_bytes());
        let hex = crate::digest::lower_hex(&hash[..16]);
        format!("{hex}.json")
    }
}

/// A document a Worker of the cached run read, as it was then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadDocument {
    /// Document id.
    pub doc_id: String,
    /// sha256 hex of its source when indexed.
    pub fingerprint: String,
    /// Its source file.
    pub source: String,
    /// The source's size in bytes when the run was stored (`None`: it could not be read).
    pub source_len: Option<u64>,
    /// The source's modification time, ns since the Unix epoch, when the run was stored.
    pub source_mtime_ns: Option<u128>,
}

/// One stored answer (`traces/answers/<hash>.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedAnswer {
    /// The entry layout's version (1, `ENTRY_VERSION`); an entry of another version is a miss.
    pub version: u32,
    /// What it answers.
    pub key: CacheKey,
    /// The trace of the run.
    pub trace: PathBuf,
    /// When the run started, ms since the Unix epoch.
    pub started_unix_ms: u64,
    /// The catalog's index generation the run saw, or the latest one it was confirmed against.
    pub index_generation: u64,
    /// sha256 hex over the workspace's sorted document ids then.
    pub catalog_digest: String,
    /// The documents the run's Workers read.
    pub read: Vec<ReadDocument>,
    /// The run's answer as `docnav ask --json` printed it.
    pub answer: Answer,
}

impl CachedAnswer {
    /// The stored answer to `asked` (the question as asked now, which may differ from the
    /// recorded one in case, spaces and end punctuation), marked as reused
    /// ([`Answer::from_trace`]): the cost fields of its stats are this lookup's (no model call,
    /// no token, `wall_ms`); rounds and Workers stay the recorded run's, since they describe where
    /// the evidence came from.
    pub fn reused(&self, asked: &str, wall_ms: u64) -> Answer {
        let mut answer = self.answer.clone();
        answer.question = asked.to_string();
        answer.from_trace = Some(ReusedFrom {
            trace: self.trace.display().to_string(),
            name: self
                .trace
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            recorded: super::utc_minute(self.started_unix_ms),
            started_unix_ms: self.started_unix_ms,
            llm_calls: answer.stats.llm_calls,
        });
        answer.stats.llm_calls = 0;
        answer.stats.prompt_tokens = 0;
        answer.stats.completion_tokens = 0;
        answer.stats.wall_ms = wall_ms;
        answer
    }
}

/// What a lookup found.
#[derive(Debug)]
pub enum Lookup {
    /// The entry still describes the workspace: use its answer.
    Hit(Box<CachedAnswer>),
    /// The entry's trace and sources hold, but the workspace was re-indexed since: check it
    /// against the opened catalog with [`AnswerCache::confirm`].
    NeedsCatalog(Box<CachedAnswer>),
    /// No usable entry: ask the model.
    Miss,
}

/// The answer cache of one workspace (`<workspace>/traces/answers/`).
#[derive(Debug, Clone)]
pub struct AnswerCache {
    workspace: PathBuf,
}

impl AnswerCache {
    /// The cache of the workspace in `workspace` (nothing is read or created yet).
    pub fn new(workspace: &Path) -> AnswerCache {
        AnswerCache {
            workspace: workspace.to_path_buf(),
        }
    }

    /// The workspace directory this cache belongs to.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    fn dir(&self) -> PathBuf {
        self.workspace.join("traces").join("answers")
    }

    /// Find `key`'s entry and check what can be checked without opening the workspace: the
    /// trace exists, the read sources are unchanged on disk, the catalog's generation (a publish
    /// folder's: its newest complete generation's). Reads one small file, stats a few, and the
    /// catalog's first 512 bytes. Never fails: anything
    /// unreadable is a [`Lookup::Miss`].
    pub fn lookup(&self, key: &CacheKey) -> Lookup {
        let Ok(bytes) = std::fs::read(self.dir().join(key.file_name())) else {
            return Lookup::Miss;
        };
        let Ok(entry) = serde_json::from_slice::<CachedAnswer>(&bytes) else {
            return Lookup::Miss;
        };
        if entry.version != ENTRY_VERSION || &entry.key != key || !entry.trace.is_file() {
            return Lookup::Miss;
        }
        if entry
            .read
            .iter()
            .any(|d| source_stat(&d.source) != (d.source_len, d.source_mtime_ns))
        {
            return Lookup::Miss;
        }
        // A publish folder's catalog is in its newest complete generation.
        let generation = crate::workspace::publish::data_dir(&self.workspace)
            .and_then(|(data, _)| crate::workspace::read_index_generation(&data));
        match generation {
            Ok(g) if g == entry.index_generation => Lookup::Hit(Box::new(entry)),
            Ok(_) => Lookup::NeedsCatalog(Box::new(entry)),
            Err(_) => Lookup::Miss,
        }
    }

    /// `key`'s answer to `asked`, marked as reused ([`CachedAnswer::reused`]), when an entry
    /// holds: a [`Lookup::Hit`] at once; a [`Lookup::NeedsCatalog`] when `confirm` (given this
    /// cache and the entry; it opens the catalog and calls [`AnswerCache::confirm`]) says it still
    /// holds. `None` otherwise: ask the model.
    pub fn reuse(
        &self,
        key: &CacheKey,
        asked: &str,
        confirm: impl FnOnce(&AnswerCache, &mut CachedAnswer) -> bool,
    ) -> Option<Answer> {
        let started = std::time::Instant::now();
        let entry = match self.lookup(key) {
            Lookup::Hit(entry) => entry,
            Lookup::NeedsCatalog(mut entry) => {
                if !confirm(self, &mut entry) {
                    return None;
                }
                entry
            }
            Lookup::Miss => return None,
        };
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Some(entry.reused(asked, ms))
    }

    /// After a re-index: whether `entry` still holds over `library` (the opened workspace) —
    /// every document it read has the same fingerprint and the set of document ids is the same.
    /// When it holds, the entry is rewritten with `generation` so the next lookup is a plain
    /// [`Lookup::Hit`] (best effort: a read-only workspace just checks again next time).
    pub fn confirm(
        &self,
        entry: &mut CachedAnswer,
        library: &dyn Library,
        generation: u64,
    ) -> bool {
        let holds = entry.catalog_digest == library.catalog_ids_digest()
            && entry.read.iter().all(|d| {
                library
                    .card(&d.doc_id)
                    .is_some_and(|c| c.fingerprint == d.fingerprint)
            });
        if holds && entry.index_generation != generation {
            entry.index_generation = generation;
            let _ = self.write(entry);
        }
        holds
    }

    /// Store the answer of a completed run recorded in `trace`, asked as `key` over `library`
    /// at `generation`. Only the documents its Workers read are remembered with their sources'
    /// size and time. Errors: the entry cannot be written (the caller warns; the run stands).
    pub fn store(
        &self,
        key: CacheKey,
        answer: &Answer,
        trace: &Path,
        started_unix_ms: u64,
        library: &dyn Library,
        generation: u64,
    ) -> std::io::Result<()> {
        let mut read: Vec<ReadDocument> = Vec::new();
        for w in &answer.stats.workers {
            if read.iter().any(|d| d.doc_id == w.doc_id) {
                continue;
            }
            let Some(card) = library.card(&w.doc_id) else {
                continue;
            };
            let (source_len, source_mtime_ns) = source_stat(&card.source);
            read.push(ReadDocument {
                doc_id: card.doc_id.clone(),
                fingerprint: card.fingerprint.clone(),
                source: card.source.clone(),
                source_len,
                source_mtime_ns,
            });
        }
        let trace = std::path::absolute(trace).unwrap_or_else(|_| trace.to_path_buf());
        let entry = CachedAnswer {
            version: ENTRY_VERSION,
            key,
            trace,
            started_unix_ms,
            index_generation: generation,
            catalog_digest: library.catalog_ids_digest(),
            read,
            answer: answer.clone(),
        };
        self.write(&entry)
    }

    fn write(&self, entry: &CachedAnswer) -> std::io::Result<()> {
        let dir = self.dir();
        std::fs::create_dir_all(&dir)?;
        let bytes = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
        crate::workspace::write_atomic(&dir.join(entry.key.file_name()), &bytes)
    }
}

/// A source file's size in bytes and modification time in ns since the Unix epoch; `None`s when
/// it cannot be read (a document indexed from a file since deleted).
fn source_stat(path: &str) -> (Option<u64>, Option<u128>) {
    match std::fs::metadata(path) {
        Ok(m) => (
            Some(m.len()),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_nanos()),
        ),
        Err(_) => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_normalise_case_space_and_end_punctuation_only() {
        assert_eq!(
            normalize_question("  How do I  search\tcompressed files?  "),
            "how do i search compressed files"
        );
        assert_eq!(
            normalize_question("how do i search compressed files"),
            normalize_question("HOW DO I SEARCH COMPRESSED FILES!")
        );
        assert_ne!(
            normalize_question("how do I search compressed file"),
            normalize_question("how do I search compressed files")
        );
        // NFKC: a full-width letter is the ASCII one.
        assert_eq!(normalize_question("ｒｇ -z?"), "rg -z");
    }

    /// A library of the files in `dir` named `names`.
    fn library(dir: &Path, names: &[&str]) -> crate::workspace::InMemoryLibrary {
        let paths: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
        crate::workspace::InMemoryLibrary::from_paths(&paths, &Default::default()).unwrap()
    }

    #[test]
    fn after_a_re_index_an_answer_holds_while_what_it_read_and_the_document_set_do() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n\nalpha\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "# B\n\nbeta\n").unwrap();
        std::fs::write(dir.path().join("c.md"), "# C\n\ngamma\n").unwrap();
        let trace = dir.path().join("run.jsonl");
        std::fs::write(&trace, "{}\n").unwrap();
        let cache = AnswerCache::new(&dir.path().join("ws"));
        let key = CacheKey::new("q", "m", &AgentOptions::default());
        let answer = Answer {
            question: "q".into(),
            standalone_question: None,
            from_trace: None,
            evidence: Vec::new(),
            stats: crate::agent::evidence::AskStats {
                workers: vec![crate::agent::evidence::WorkerStats {
                    doc_id: "a".into(),
                    steps: 1,
                    evidence: 0,
                }],
                ..Default::default()
            },
            worker_errors: Vec::new(),
            answer: None,
            verdict: None,
        };
        let before = library(dir.path(), &["a.md", "b.md"]);
        cache
            .store(key.clone(), &answer, &trace, 0, &before, 1)
            .unwrap();
        // No catalog in this workspace: a lookup cannot check the generation.
        assert!(matches!(cache.lookup(&key), Lookup::Miss));
        let entry = || -> CachedAnswer {
            let bytes = std::fs::read(cache.dir().join(key.file_name())).unwrap();
            serde_json::from_slice(&bytes).unwrap()
        };
        assert_eq!(entry().read.len(), 1);
        assert!(cache.confirm(&mut entry(), &before, 1));
        // b changed (a was read, b was not): holds, and the entry moves to the new generation.
        std::fs::write(dir.path().join("b.md"), "# B\n\nbeta, changed\n").unwrap();
        let mut kept = entry();
        assert!(cache.confirm(&mut kept, &library(dir.path(), &["a.md", "b.md"]), 2));
        assert_eq!(entry().index_generation, 2);
        // a changed: no longer holds.
        std::fs::write(dir.path().join("a.md"), "# A\n\nalpha, changed\n").unwrap();
        assert!(!cache.confirm(&mut entry(), &library(dir.path(), &["a.md", "b.md"]), 3));
        // a as it was, but one more document: no longer holds.
        std::fs::write(dir.path().join("a.md"), "# A\n\nalpha\n").unwrap();
        assert!(cache.confirm(&mut entry(), &library(dir.path(), &["a.md", "b.md"]), 3));
        assert!(!cache.confirm(
            &mut entry(),
            &library(dir.path(), &["a.md", "b.md", "c.md"]),
            4
        ));
    }

    #[test]
    fn keys_differ_by_model_and_options() {
        let options = AgentOptions::default();
        let a = CacheKey::new("q?", "m1", &options);
        assert_eq!(
            a.file_name(),
            CacheKey::new("Q", "m1", &options).file_name()
        );
        assert_ne!(
            a.file_name(),
            CacheKey::new("q", "m2", &options).file_name()
        );
        let answer = AgentOptions {
            answer: true,
            ..AgentOptions::default()
        };
        assert_ne!(a.file_name(), CacheKey::new("q", "m1", &answer).file_name());
        // Lists are JSON, not joined: two ids are not one id with a comma.
        let two = AgentOptions {
            doc_ids: vec!["a".into(), "b".into()],
            ..AgentOptions::default()
        };
        let one = AgentOptions {
            doc_ids: vec!["a,b".into()],
            ..AgentOptions::default()
        };
        assert_ne!(
            CacheKey::new("q", "m1", &two).file_name(),
            CacheKey::new("q", "m1", &one).file_name()
        );
    }

    /// Any agent options, each field over a small range so that near misses are drawn.
    fn any_options() -> impl proptest::strategy::Strategy<Value = AgentOptions> {
        use proptest::prelude::*;
        (
            (0usize..4, 0usize..4, 0usize..4, 0usize..4, 0usize..4),
            (0usize..4, 0usize..4, 0usize..4),
            proptest::collection::vec("[ab,]{0,3}", 0..3),
            any::<bool>(),
        )
            .prop_map(
                |((s, r, c, d, w), (e, p, o), doc_ids, answer)| AgentOptions {
                    max_steps: s,
                    rounds: r,
                    max_cards: c,
                    max_docs: d,
                    concurrency: w,
                    evidence_chars: e,
                    prompt_cap_tokens: p,
                    output_budget: o,
                    doc_ids,
                    answer,
                },
            )
    }

    proptest::proptest! {
        #[test]
        fn two_different_option_sets_never_share_an_entry(a in any_options(), b in any_options()) {
            let (ka, kb) = (CacheKey::new("q", "m", &a), CacheKey::new("q", "m", &b));
            proptest::prop_assert_eq!(a == b, ka.file_name() == kb.file_name());
            // The stored key reads back as the same key.
            let back: CacheKey = serde_json::from_str(&ka.canonical()).unwrap();
            proptest::prop_assert_eq!(back, ka);
        }
    }
}
