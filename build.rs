//! Facade build script. One purpose: **validate the shipped example configs**.
//!
//! Every `examples/*.yaml` (and `*.yml`) but the policy test files
//! (`*.test.yaml`, docs/cli.md "Policy tests") is loaded with `hooks-schema` — the
//! same three-layer check as `agent-hooks check` and `hooks!` — and any
//! finding fails the build with the rendered diagnostics (`file:line:col`,
//! snippet, hint). So an example config can never drift out of date with the
//! config language, even one no example program compiles with `hooks!`.
//!
//! Cargo reruns the script when the `examples` directory changes (a file
//! added or removed) or any example config is edited.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = Path::new("examples");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=examples");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return ExitCode::SUCCESS;
    };
    let mut configs: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        // Policy test files (`NAME.test.yaml`) are cases, not configs.
        .filter(|p| !p.to_string_lossy().ends_with(".test.yaml"))
        .collect();
    configs.sort();
    let mut failed = false;
    for path in &configs {
        println!("cargo:rerun-if-changed={}", path.display());
        let source = std::fs::read_to_string(path).ok();
        if let Err(diagnostics) = hooks_schema::load_file(path) {
            failed = true;
            eprintln!("{}", diagnostics.render(source.as_deref()));
        }
    }
    if failed {
        eprintln!("error: an example config in `examples/` is invalid (see above)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
