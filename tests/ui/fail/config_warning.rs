// A warning of a valid config is a compiler warning, shown here as an
// error through `deny`: rustc prints the finding with `file:line:col`.
#![deny(deprecated)]

agent_hooks::hooks!("config_warning.yaml");

fn main() {
    let _ = Hooks::new();
}
