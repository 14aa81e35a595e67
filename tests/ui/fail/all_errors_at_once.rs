// all errors at once
agent_hooks::hooks!("all_errors_at_once.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
