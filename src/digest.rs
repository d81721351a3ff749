//! sha256 in lowercase hex: the fingerprints, cache keys, manifests and etags every stage writes.
//! Below every stage, as `durable` is.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

/// `bytes` as lowercase hex, two digits a byte (`[0x0a, 0xff]` → `"0aff"`).
pub fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// sha256 of `bytes` (FIPS 180-4), 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    lower_hex(&Sha256::digest(bytes))
}

/// sha256 of a file's contents, read in 64 KiB blocks, 64 lowercase hex digits. Errors: the I/O
/// error of opening or reading `path`.
pub fn sha256_file_hex(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut block = vec![0u8; 64 * 1024];
    loop {
        let read = match file.read(&mut block) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&block[..read]);
    }
    Ok(lower_hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(lower_hex(&[0x0a, 0xff, 0x00]), "0aff00");
        // FIPS 180-4 example: sha256("abc").
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let text = "x".repeat(200_000);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(sha256_file_hex(&path).unwrap(), sha256_hex(text.as_bytes()));
        assert!(sha256_file_hex(&dir.path().join("missing")).is_err());
    }
}
