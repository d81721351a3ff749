//! Answers of `/api/v1/search` kept per index generation: a section index does not change
//! between two commits of `docnav index`, so the same query over the same generation has the same
//! answer. The as-you-type Library and a team asking the same things hit it; a BM25 query over
//! 10,000 documents costs milliseconds of CPU, a hit microseconds. Bounded by bytes, least
//! recently used evicted first; a new generation (or a reopened workspace) empties it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;

/// Bytes of answers kept (JSON).
pub const SEARCH_CACHE_BYTES: usize = 8 * 1024 * 1024;

/// What makes two searches the same.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SearchKey {
    /// Index generation and the opened workspace's identity (its address), so a reopen at the
    /// same generation (a repair) does not reuse answers.
    pub generation: (u64, usize),
    /// The query as given.
    pub query: String,
    /// Results.
    pub k: usize,
    /// Chars of text per result.
    pub budget: usize,
    /// The scope, as given (order matters: it breaks ties).
    pub doc_ids: Vec<String>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<SearchKey, (Bytes, u64)>,
    bytes: usize,
    clock: u64,
    generation: Option<(u64, usize)>,
}

/// The cache (see the module docs).
#[derive(Default)]
pub struct SearchCache {
    inner: Mutex<Inner>,
}

impl SearchCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The answer to `key`, if kept.
    pub fn get(&self, key: &SearchKey) -> Option<Bytes> {
        let mut inner = self.lock();
        inner.clock += 1;
        let clock = inner.clock;
        inner.entries.get_mut(key).map(|(body, used)| {
            *used = clock;
            body.clone()
        })
    }

    /// Keep `body` as the answer to `key`; answers of other generations are dropped first.
    pub fn insert(&self, key: SearchKey, body: Bytes) {
        let mut inner = self.lock();
        if inner.generation != Some(key.generation) {
            inner.entries.clear();
            inner.bytes = 0;
            inner.generation = Some(key.generation);
        }
        let size = body.len() + key.query.len() + 64;
        if size > SEARCH_CACHE_BYTES / 8 {
            return;
        }
        while inner.bytes + size > SEARCH_CACHE_BYTES {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some((b, _)) = inner.entries.remove(&oldest) {
                inner.bytes -= b.len() + oldest.query.len() + 64;
            }
        }
        inner.clock += 1;
        let clock = inner.clock;
        if let Some((old, _)) = inner.entries.insert(key.clone(), (body, clock)) {
            inner.bytes -= old.len() + key.query.len() + 64;
        }
        inner.bytes += size;
    }
}

/// The identity of an opened workspace for [`SearchKey::generation`].
pub fn generation_of(workspace: &Arc<crate::workspace::Workspace>) -> (u64, usize) {
    (
        workspace.index_generation(),
        Arc::as_ptr(workspace) as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(generation: u64, q: &str) -> SearchKey {
        SearchKey {
            generation: (generation, 1),
            query: q.into(),
            k: 10,
            budget: 800,
            doc_ids: vec![],
        }
    }

    #[test]
    fn answers_are_per_generation() {
        let cache = SearchCache::default();
        cache.insert(key(1, "a"), Bytes::from_static(b"one"));
        assert_eq!(cache.get(&key(1, "a")).as_deref(), Some(&b"one"[..]));
        assert_eq!(cache.get(&key(1, "b")), None);
        cache.insert(key(2, "b"), Bytes::from_static(b"two"));
        assert_eq!(
            cache.get(&key(1, "a")),
            None,
            "a new generation empties the cache"
        );
        assert_eq!(cache.get(&key(2, "b")).as_deref(), Some(&b"two"[..]));
    }
}
