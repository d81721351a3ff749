//! Byte-bounded backpressure for tantivy's indexing queue.
//!
//! tantivy's queue between [`tantivy::IndexWriter::run`] and its indexing threads is bounded in
//! batches (10,000), not bytes: with one batch per document, 10,000 whole documents can wait
//! there. A [`Backlog`] counts the bytes of `text` values handed to tantivy and not yet
//! tokenized by an indexing thread (the term-list tokenizer reports each value it splits), and
//! a writer waits before handing over more once the count passes its limit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long [`Backlog::reserve`] waits at most before handing its batch over anyway: the
/// bound is for memory, and a writer must not hang if an indexing thread has died (tantivy
/// then reports the failure on the next hand-over).
const PATIENCE: Duration = Duration::from_secs(10);

/// Longest single sleep of a waiting writer (a release that races with the start of a wait is
/// seen at the latest this late).
const RECHECK: Duration = Duration::from_millis(5);

/// Bytes of `text` queued for tantivy's indexing threads (see the module documentation).
/// Shared by one [`super::SectionWriter`] and the tokenizer its indexing threads use.
#[derive(Debug, Default)]
pub struct Backlog {
    queued: AtomicUsize,
    waiters: AtomicUsize,
    lock: Mutex<()>,
    drained: Condvar,
}

impl Backlog {
    /// Count `bytes` more as queued, first waiting (up to 10 s) while the queue is not empty
    /// and `bytes` more would pass `limit_bytes`. A batch larger than the limit goes alone.
    pub fn reserve(&self, bytes: usize, limit_bytes: usize) {
        let fits = |queued: usize| queued == 0 || queued.saturating_add(bytes) <= limit_bytes;
        if !fits(self.queued.load(Ordering::Acquire)) {
            self.waiters.fetch_add(1, Ordering::AcqRel);
            let deadline = Instant::now() + PATIENCE;
            let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            while !fits(self.queued.load(Ordering::Acquire)) {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                let wait = RECHECK.min(deadline - now);
                guard = match self.drained.wait_timeout(guard, wait) {
                    Ok((guard, _)) => guard,
                    Err(poisoned) => poisoned.into_inner().0,
                };
            }
            drop(guard);
            self.waiters.fetch_sub(1, Ordering::AcqRel);
        }
        self.queued.fetch_add(bytes, Ordering::AcqRel);
    }

    /// An indexing thread has taken `bytes` off the queue (never goes below zero).
    pub fn release(&self, bytes: usize) {
        let _ = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                Some(q.saturating_sub(bytes))
            });
        if self.waiters.load(Ordering::Acquire) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.drained.notify_all();
        }
    }

    /// Bytes queued now.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_writer_waits_until_the_indexing_side_releases_enough() {
        let backlog = Arc::new(Backlog::default());
        backlog.reserve(60, 100);
        // Over the limit only with something queued: an oversized batch alone goes through.
        let lone = Backlog::default();
        lone.reserve(500, 100);
        assert_eq!(lone.queued(), 500);

        let released = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (backlog, released) = (Arc::clone(&backlog), Arc::clone(&released));
            std::thread::spawn(move || {
                backlog.reserve(60, 100);
                released.load(Ordering::Acquire)
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(backlog.queued(), 60, "the second batch must wait");
        released.store(true, Ordering::Release);
        backlog.release(60);
        assert!(
            writer.join().unwrap(),
            "reserve returned before the release"
        );
        assert_eq!(backlog.queued(), 60);
        backlog.release(1_000);
        assert_eq!(backlog.queued(), 0, "release never goes below zero");
    }
}
