//! SHA-256 of bytes and files, as lower-case hex (the form every planseal format stores).

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// Lower-case hex of a digest. sha2 0.11 digests no longer format with `{:x}`.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0x0f) as usize] as char);
    }
    out
}

/// SHA-256 of `bytes` as 64 lower-case hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    to_hex(&Sha256::digest(bytes))
}

/// SHA-256 of a file's raw bytes, streamed (the file is never held in memory whole).
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(to_hex(&hasher.finalize()))
}

/// An incremental SHA-256 for callers that feed several pieces (fingerprints).
#[derive(Default)]
pub struct Sha256Stream(Sha256);

impl Sha256Stream {
    /// A stream that has been fed nothing yet.
    pub fn new() -> Self {
        Self(Sha256::new())
    }
    /// Feeds the next piece; pieces are hashed as if they were one concatenated byte string.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    /// The SHA-256 of everything fed, as 64 lower-case hex digits.
    pub fn finish_hex(self) -> String {
        to_hex(&self.0.finalize())
    }
}

/// True when `s` looks like a SHA-256 hex digest (64 lower- or upper-case hex digits).
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut s = Sha256Stream::new();
        s.update(b"a");
        s.update(b"bc");
        assert_eq!(s.finish_hex(), sha256_hex(b"abc"));
    }

    #[test]
    fn file_digest_matches_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        assert_eq!(sha256_file(&p).unwrap(), sha256_hex(&data));
    }

    #[test]
    fn hex_shape() {
        assert!(is_sha256_hex(&sha256_hex(b"x")));
        assert!(!is_sha256_hex("abc"));
    }
}
