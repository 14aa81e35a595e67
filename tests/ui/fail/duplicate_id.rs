// duplicate id
agent_hooks::hooks!("duplicate_id.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
