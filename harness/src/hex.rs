//! Hex text and SHA-256 digests of bytes, as reports, manifests and lowered steps write them.

use sha2::Digest as _;

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    onav::ids::hex(bytes)
}

/// The SHA-256 of bytes as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha2::Sha256::digest(bytes))
}
