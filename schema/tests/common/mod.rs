//! Helpers shared by `hooks-schema`'s integration tests. Include with
//! `mod common;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::{Path, PathBuf};

/// The workspace root (the parent of this crate's manifest directory).
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives inside the workspace")
        .to_path_buf()
}

/// Asserts that `schema/<file>` is `generated`, pretty-printed plus `\n`;
/// with `UPDATE_SCHEMAS` set, writes it instead. `test` names the test
/// target that regenerates it, for the failure message.
pub(crate) fn assert_committed(file: &str, generated: &serde_json::Value, test: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = serde_json::to_string_pretty(generated).expect("a schema serializes") + "\n";
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &text).expect("the schema file is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "`schema/{file}` is stale or missing; regenerate it with \
         `UPDATE_SCHEMAS=1 cargo test -p hooks-schema --test {test}` and review the diff"
    );
}
