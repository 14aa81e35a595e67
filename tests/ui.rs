//! Compile-fail and pass cases of `hooks!`, one per error
//! class; each `.stderr` shows the config's `file:line:col` and snippet.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p
//! agent-hooks --test ui` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
