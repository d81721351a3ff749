//! Login sessions and CSRF tokens, signed rather than stored.
//!
//! The login cookie is `EXPIRES.NONCE.MAC`: the Unix second it stops being valid, 16 random hex
//! digits, and HMAC-SHA256 of both under a key derived from the token. It never holds the token,
//! cannot be forged without the token, stops working at `EXPIRES` even if a browser keeps it,
//! survives a restart with the same token and dies with a new one.
//!
//! A page's script sends the session's CSRF token (`X-Docnav-Csrf`) with every request that
//! spends or stores something; it is the HMAC of the session cookie (or, on a server without a
//! token, of a fixed word under a key drawn at start), so a page of another site — which can
//! make the browser send the cookie but can neither read this server's answers nor add a header
//! to a cross-site request without asking first — cannot produce it.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::digest::lower_hex;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// How long a login lasts, seconds (the cookie's `Max-Age`): a week.
pub const SESSION_MAX_AGE_SECS: u64 = 7 * 24 * 3600;

/// The request header carrying the CSRF token.
pub const CSRF_HEADER: &str = "x-docnav-csrf";

/// Issues and checks session cookies and CSRF tokens under one key.
pub struct Sessions {
    key: [u8; 32],
}

impl Sessions {
    /// Sessions for a server with `token` (the key is derived from it) or without one (a random
    /// key for this process: only the CSRF tokens use it).
    pub fn new(token: Option<&str>) -> Sessions {
        let key = match token {
            Some(t) => Sha256::digest(format!("docnav-session-key:{t}").as_bytes()).into(),
            None => rand::random(),
        };
        Sessions { key }
    }

    /// A new session cookie value valid from `now_unix` (seconds) for
    /// [`SESSION_MAX_AGE_SECS`].
    pub fn issue(&self, now_unix: u64) -> String {
        let expires = now_unix.saturating_add(SESSION_MAX_AGE_SECS);
        let nonce = lower_hex(&rand::random::<[u8; 8]>());
        let mac = lower_hex(&hmac_sha256(
            &self.key,
            format!("session:{expires}.{nonce}").as_bytes(),
        ));
        format!("{expires}.{nonce}.{mac}")
    }

    /// Whether `value` is a cookie this key issued that has not expired at `now_unix` (constant
    /// time in the MAC).
    pub fn valid(&self, value: &str, now_unix: u64) -> bool {
        let mut parts = value.splitn(3, '.');
        let (Some(expires), Some(nonce), Some(mac)) = (parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        let Ok(expires_at) = expires.parse::<u64>() else {
            return false;
        };
        let expected = lower_hex(&hmac_sha256(
            &self.key,
            format!("session:{expires}.{nonce}").as_bytes(),
        ));
        bool::from(expected.as_bytes().ct_eq(mac.as_bytes())) && now_unix < expires_at
    }

    /// The CSRF token of the session with cookie `session` (`None`: a server without a token,
    /// where every page reader on this machine is the one user).
    pub fn csrf(&self, session: Option<&str>) -> String {
        let subject = session.unwrap_or("anonymous");
        lower_hex(&hmac_sha256(
            &self.key,
            format!("csrf:{subject}").as_bytes(),
        ))
    }

    /// Whether `given` is [`Sessions::csrf`] of `session` (constant time).
    pub fn csrf_matches(&self, session: Option<&str>, given: &str) -> bool {
        bool::from(self.csrf(session).as_bytes().ct_eq(given.as_bytes()))
    }
}

/// Seconds since the Unix epoch now (0 before it).
pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// HMAC-SHA256 of `message` under `key` (RFC 2104).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2 of RFC 4231.
        assert_eq!(
            lower_hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block is hashed first.
        assert_eq!(
            lower_hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn a_cookie_is_valid_until_it_expires_and_only_under_its_token() {
        let sessions = Sessions::new(Some("correct-horse-battery-staple"));
        let cookie = sessions.issue(1_000);
        assert!(!cookie.contains("correct-horse"));
        assert!(sessions.valid(&cookie, 1_000));
        assert!(sessions.valid(&cookie, 1_000 + SESSION_MAX_AGE_SECS - 1));
        assert!(!sessions.valid(&cookie, 1_000 + SESSION_MAX_AGE_SECS));
        let other = Sessions::new(Some("another-token-0123456789"));
        assert!(!other.valid(&cookie, 1_000));
        let restarted = Sessions::new(Some("correct-horse-battery-staple"));
        assert!(restarted.valid(&cookie, 1_000));
        // A later expiry cannot be written in without the key.
        let (_, rest) = cookie.split_once('.').unwrap_or_default();
        assert!(!sessions.valid(&format!("9999999999.{rest}"), 1_000));
        for bad in ["", "x", "1.2", "1.2.3", &cookie[..cookie.len() - 1]] {
            assert!(!sessions.valid(bad, 1_000), "{bad:?}");
        }
    }

    #[test]
    fn the_csrf_token_belongs_to_its_session() {
        let sessions = Sessions::new(Some("correct-horse-battery-staple"));
        let a = sessions.issue(1_000);
        let b = sessions.issue(1_000);
        assert_ne!(a, b);
        let csrf = sessions.csrf(Some(&a));
        assert!(sessions.csrf_matches(Some(&a), &csrf));
        assert!(!sessions.csrf_matches(Some(&b), &csrf));
        assert!(!sessions.csrf_matches(None, &csrf));
        assert!(!sessions.csrf_matches(Some(&a), ""));
    }
}
