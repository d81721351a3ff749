//! Wrong tokens slow their client down: after [`FREE_FAILURES`] wrong tokens (login form or
//! bearer header) from one address, the next attempt must wait 1 s after the last failure, then
//! 2, 4, … up to [`MAX_DELAY_SECS`]; an attempt while waiting is answered 429 with
//! `Retry-After` and is not even checked. The right token clears the address. Guessing a
//! 16-character token this way takes longer than anyone has.
//!
//! Clients are told apart by IP address only: behind a reverse proxy every client is the proxy.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong tokens from one address answered without delay.
pub const FREE_FAILURES: u32 = 5;

/// The longest wait between attempts, seconds.
pub const MAX_DELAY_SECS: u64 = 60;

/// An address whose last failure is older than this is forgotten.
const FORGET_AFTER: Duration = Duration::from_secs(15 * 60);

/// Addresses remembered at most; past it the forgotten ones are dropped first.
const MAX_CLIENTS: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
}

impl Failures {
    /// When the next attempt may come.
    fn next_allowed(&self) -> Instant {
        if self.count < FREE_FAILURES {
            return self.last;
        }
        let doublings = (self.count - FREE_FAILURES).min(16);
        let delay = (1u64 << doublings).min(MAX_DELAY_SECS);
        self.last + Duration::from_secs(delay)
    }
}

/// Failed attempts per client address.
#[derive(Default)]
pub struct Throttle {
    clients: Mutex<HashMap<IpAddr, Failures>>,
}

impl Throttle {
    /// Whether `client` may try a token at `now`; `Err(seconds)` to wait (at least 1) when not.
    /// An unknown client (no address) is never slowed.
    pub fn check(&self, client: Option<IpAddr>, now: Instant) -> Result<(), u64> {
        let Some(ip) = client else { return Ok(()) };
        let clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        let Some(failures) = clients.get(&ip) else {
            return Ok(());
        };
        let at = failures.next_allowed();
        if at <= now {
            return Ok(());
        }
        let wait = at - now;
        Err(wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
    }

    /// Record a wrong token from `client` at `now`.
    pub fn failed(&self, client: Option<IpAddr>, now: Instant) {
        let Some(ip) = client else { return };
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if clients.len() >= MAX_CLIENTS && !clients.contains_key(&ip) {
            clients.retain(|_, f| now.saturating_duration_since(f.last) < FORGET_AFTER);
            if clients.len() >= MAX_CLIENTS {
                // Still full of recent failures: keep the ones that must wait longest.
                let mut by_wait: Vec<(IpAddr, Instant)> = clients
                    .iter()
                    .map(|(ip, f)| (*ip, f.next_allowed()))
                    .collect();
                by_wait.sort_by_key(|(_, at)| *at);
                for (old, _) in by_wait.iter().take(MAX_CLIENTS / 10) {
                    clients.remove(old);
                }
            }
        }
        let entry = clients.entry(ip).or_insert(Failures {
            count: 0,
            last: now,
        });
        if now.saturating_duration_since(entry.last) >= FORGET_AFTER {
            entry.count = 0;
        }
        entry.count = entry.count.saturating_add(1);
        entry.last = now;
    }

    /// The right token from `client`: its failures are forgotten.
    pub fn succeeded(&self, client: Option<IpAddr>) {
        let Some(ip) = client else { return };
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        clients.remove(&ip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_past_the_free_ones_wait_longer_each_time() {
        let t = Throttle::default();
        let ip: Option<IpAddr> = "192.0.2.7".parse().ok();
        let other: Option<IpAddr> = "192.0.2.8".parse().ok();
        let start = Instant::now();
        for _ in 0..FREE_FAILURES - 1 {
            t.failed(ip, start);
            assert_eq!(t.check(ip, start), Ok(()));
        }
        t.failed(ip, start);
        assert_eq!(t.check(ip, start), Err(1));
        assert_eq!(t.check(other, start), Ok(()), "only that client waits");
        assert_eq!(t.check(None, start), Ok(()));
        let later = start + Duration::from_secs(1);
        assert_eq!(t.check(ip, later), Ok(()));
        t.failed(ip, later);
        assert_eq!(t.check(ip, later), Err(2));
        assert_eq!(
            t.check(ip, later + Duration::from_millis(1_500)),
            Err(1),
            "rounded up"
        );
        for _ in 0..20 {
            t.failed(ip, later);
        }
        assert_eq!(t.check(ip, later), Err(MAX_DELAY_SECS));
        t.succeeded(ip);
        assert_eq!(t.check(ip, later), Ok(()));
    }

    #[test]
    fn an_old_failure_is_forgotten() {
        let t = Throttle::default();
        let ip: Option<IpAddr> = "192.0.2.7".parse().ok();
        let start = Instant::now();
        for _ in 0..FREE_FAILURES {
            t.failed(ip, start);
        }
        let much_later = start + FORGET_AFTER;
        t.failed(ip, much_later);
        assert_eq!(t.check(ip, much_later), Ok(()));
    }
}
