//! Shared usage counters: one [`UsageLog`] per client (or per run, when the caller shares one
//! across clients), updated once per call, read as a [`UsageTotals`] snapshot.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::Usage;

/// Totals over every call recorded in a [`UsageLog`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Calls that returned a reply.
    pub calls: u64,
    /// Calls that ended in an error (after retries).
    pub failed_calls: u64,
    /// HTTP attempts over all calls, retries included.
    pub attempts: u64,
    /// Sum of prompt tokens of successful calls.
    pub prompt_tokens: u64,
    /// Sum of completion tokens of successful calls.
    pub completion_tokens: u64,
    /// Sum of call latencies in ms (successful and failed calls).
    pub latency_ms: u64,
}

/// Thread-safe usage counters. Share it as `Arc<UsageLog>`.
#[derive(Debug, Default)]
pub struct UsageLog {
    totals: Mutex<UsageTotals>,
}

impl UsageLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record one successful call: its token `usage`, HTTP `attempts` and wall time `latency_ms`.
    pub fn record_success(&self, usage: Usage, attempts: u32, latency_ms: u64) {
        self.update(|t| {
            t.calls += 1;
            t.attempts = t.attempts.saturating_add(u64::from(attempts));
            t.prompt_tokens = t.prompt_tokens.saturating_add(usage.prompt_tokens);
            t.completion_tokens = t.completion_tokens.saturating_add(usage.completion_tokens);
            t.latency_ms = t.latency_ms.saturating_add(latency_ms);
        });
    }

    /// Record one failed call after `attempts` HTTP attempts and `latency_ms` of wall time.
    pub fn record_failure(&self, attempts: u32, latency_ms: u64) {
        self.update(|t| {
            t.failed_calls += 1;
            t.attempts = t.attempts.saturating_add(u64::from(attempts));
            t.latency_ms = t.latency_ms.saturating_add(latency_ms);
        });
    }

    /// The totals so far.
    pub fn totals(&self) -> UsageTotals {
        match self.totals.lock() {
            Ok(guard) => *guard,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    fn update(&self, f: impl FnOnce(&mut UsageTotals)) {
        // A panic while holding this lock cannot leave the counters half-updated in a way that
        // matters, so a poisoned lock is used as is.
        let mut guard = match self.totals.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut guard);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn totals_add_up_across_threads() {
        let log = Arc::new(UsageLog::new());
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let log = Arc::clone(&log);
                std::thread::spawn(move || {
                    log.record_success(
                        Usage {
                            prompt_tokens: 10,
                            completion_tokens: i,
                        },
                        1,
                        5,
                    );
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        log.record_failure(4, 100);
        let expected = UsageTotals {
            calls: 8,
            failed_calls: 1,
            attempts: 12,
            prompt_tokens: 80,
            completion_tokens: 28,
            latency_ms: 140,
        };
        assert_eq!(log.totals(), expected);
    }
}
