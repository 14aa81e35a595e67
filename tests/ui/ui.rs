//! Compile-fail and pass cases of `hooks!`, one per error class; each
//! `.stderr` shows the config's `file:line:col` and snippet.
//!
//! trybuild builds the cases in its own project (`target/tests/trybuild/`)
//! whose dependencies are this package's: the facade with its default
//! feature (`rewrite-check`) alone, `hooks-plan` and `serde_json`. A case that needs a facade feature
//! belongs with the tests of that feature.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p
//! agent-hooks-ui-tests` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
    t.pass("pass/*.rs");
}
