//! Facade build script. One purpose: **validate the shipped example configs**.
//!
//! Every `examples/*.yaml` (and `*.yml`) but the policy test files
//! (`*.test.yaml`, docs/cli.md "Policy tests") and the stack files
//! (`*.stack.yaml`) is loaded with `hooks-schema` — the same three-layer
//! check as `agent-hooks check` and `hooks!` — and each stack file's
//! configs are checked together (`hooks_schema::stack_findings`, as `check
//! --stack` does); any error fails the build with the rendered diagnostics
//! (`file:line:col`, snippet, hint). So an example config can never drift out of date with the
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
    // Stack files (`NAME.stack.yaml`) list configs (docs/fleet.md, "Layers").
    let (stacks, configs): (Vec<_>, Vec<_>) = configs
        .into_iter()
        .partition(|p| p.to_string_lossy().ends_with(".stack.yaml"));
    let mut failed = false;
    for path in &stacks {
        println!("cargo:rerun-if-changed={}", path.display());
        failed |= !stack_is_valid(path);
    }
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

/// Whether the stack file at `path` and its configs, checked together,
/// have no error (each config is checked on its own with the others).
fn stack_is_valid(path: &Path) -> bool {
    let entries = match hooks_schema::read_stack_file(path) {
        Ok(entries) => entries,
        Err(diagnostics) => {
            let source = std::fs::read_to_string(path).ok();
            eprintln!("{}", diagnostics.render(source.as_deref()));
            return false;
        }
    };
    match hooks_schema::check_stack(&entries) {
        Ok(_) => true,
        Err(errors) => {
            for d in errors.iter() {
                let source = std::fs::read_to_string(&d.file).ok();
                eprintln!("{}", d.render(source.as_deref()));
            }
            false
        }
    }
}
