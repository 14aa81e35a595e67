//! A policy's identity.

use sha2::{Digest, Sha256};

/// The identity of a policy made of `modules` (path as written, text), in
/// order: `sha256:` and the hex SHA-256 over, for each file, its path, a
/// NUL byte, its length in decimal, a NUL byte and its text. The same files
/// always give the same digest; any edit, rename or reorder changes it.
pub fn policy_digest<'a>(modules: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut hash = Sha256::new();
    for (path, text) in modules {
        hash.update(path.as_bytes());
        hash.update([0]);
        hash.update(text.len().to_string().as_bytes());
        hash.update([0]);
        hash.update(text.as_bytes());
    }
    let digest = hash.finalize();
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The identity of a file's bytes: `sha256:` and the hex SHA-256 of
/// `bytes` (what trust binds a script, a sourced file or a Rego file to).
pub fn file_digest(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}
