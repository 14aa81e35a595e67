// A script a `run` hook names that does not exist under the package root is
// a compiler warning (shown here as an error through `deny`).
#![deny(deprecated)]

agent_hooks::hooks!("missing_script.yaml");

fn main() {
    let _ = Hooks::new();
}
