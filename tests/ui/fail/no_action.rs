// no action
agent_hooks::hooks!("no_action.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
