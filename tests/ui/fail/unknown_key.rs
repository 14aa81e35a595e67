// unknown key
agent_hooks::hooks!("unknown_key.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
