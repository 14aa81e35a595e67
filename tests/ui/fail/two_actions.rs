// two actions
agent_hooks::hooks!("two_actions.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
