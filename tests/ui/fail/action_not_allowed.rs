// action not allowed
agent_hooks::hooks!("action_not_allowed.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
