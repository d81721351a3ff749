//! Retry policy: which failures are retried and how long to wait before the next attempt.
//!
//! Exponential backoff with jitter ("full jitter" variants are discussed in the AWS Architecture
//! Blog, "Exponential Backoff And Jitter", 2015; we use the bounded ±25 % variant): the wait before
//! retry `n` (0-based) is `min(base · 2ⁿ, cap)` scaled by a random factor in `[0.75, 1.25]`. A
//! server's `retry-after-ms` or `Retry-After` (seconds) header overrides the computed wait, bounded
//! by `max_retry_after` (the order follows OpenAI's Python client, `_calculate_retry_timeout`).

use std::time::Duration;

use rand::Rng;
use reqwest::header::HeaderMap;

/// How transient failures (timeouts, transport errors, HTTP 408/429/5xx, and success statuses
/// whose body is not a usable chat completion) are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3, so at most 4 attempts).
    pub max_retries: u32,
    /// Wait before the first retry, before jitter (default 500 ms); doubles each retry.
    pub base: Duration,
    /// Upper bound of the computed wait, before jitter (default 8 s).
    pub cap: Duration,
    /// Upper bound of a server-requested wait (`Retry-After`), default 60 s.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0-based): the server's `retry_after` when given
    /// (bounded by `max_retry_after`), else [`backoff_delay`] with a random jitter.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        match retry_after {
            Some(wait) => wait.min(self.max_retry_after),
            None => backoff_delay(
                self.base,
                self.cap,
                retry,
                rand::rng().random_range(0.75..=1.25),
            ),
        }
    }
}

/// Whether an HTTP status is worth retrying: 408 (request timeout), 429 (rate limit) and 5xx.
pub(crate) fn is_retryable_status(status: u16) -> bool {
    status == 408 || status == 429 || (500..=599).contains(&status)
}

/// `min(base · 2^retry, cap) · jitter`, saturating; `jitter` is a factor such as 0.75–1.25.
/// A non-finite or negative `jitter` counts as 1.
pub fn backoff_delay(base: Duration, cap: Duration, retry: u32, jitter: f64) -> Duration {
    let factor = 2u32.checked_pow(retry).unwrap_or(u32::MAX);
    let raw = base.checked_mul(factor).unwrap_or(cap).min(cap);
    let jitter = if jitter.is_finite() && jitter >= 0.0 {
        jitter
    } else {
        1.0
    };
    Duration::try_from_secs_f64(raw.as_secs_f64() * jitter).unwrap_or(raw)
}

/// The wait a server asks for: `retry-after-ms` (milliseconds) if present and valid, else
/// `Retry-After` as a number of seconds (fractions allowed). The HTTP-date form of `Retry-After`
/// and negative or non-numeric values give `None` (the computed backoff applies).
pub fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let value: f64 = headers.get(name)?.to_str().ok()?.trim().parse().ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    number("retry-after").and_then(|s| Duration::try_from_secs_f64(s).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn backoff_doubles_then_caps() {
        let waits: Vec<_> = (0..6)
            .map(|n| backoff_delay(MS(500), MS(5000), n, 1.0))
            .collect();
        assert_eq!(
            waits,
            vec![MS(500), MS(1000), MS(2000), MS(4000), MS(5000), MS(5000)]
        );
        assert_eq!(backoff_delay(MS(500), MS(5000), 40, 1.0), MS(5000));
        assert_eq!(backoff_delay(MS(400), MS(5000), 0, 1.25), MS(500));
        assert_eq!(backoff_delay(MS(400), MS(5000), 0, f64::NAN), MS(400));
    }

    #[test]
    fn jittered_delay_stays_in_band() {
        let policy = RetryPolicy::default();
        for _ in 0..200 {
            let d = policy.delay(1, None);
            assert!(d >= MS(750) && d <= MS(1250), "{d:?}");
        }
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3600))),
            Duration::from_secs(60)
        );
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        assert_eq!(parse_retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after", HeaderValue::from_static("0.5"));
        assert_eq!(parse_retry_after(&h), Some(MS(500)));
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(parse_retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("-1"));
        assert_eq!(parse_retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("1e300"));
        assert_eq!(parse_retry_after(&h), None);
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(parse_retry_after(&h), Some(MS(250)));
    }

    #[test]
    fn retryable_statuses() {
        let retried: Vec<u16> = [200, 400, 401, 404, 408, 409, 429, 500, 502, 503, 599]
            .into_iter()
            .filter(|s| is_retryable_status(*s))
            .collect();
        assert_eq!(retried, vec![408, 429, 500, 502, 503, 599]);
    }
}
