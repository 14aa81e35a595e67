// unknown phase
agent_hooks::hooks!("unknown_phase.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
