// unsupported version
agent_hooks::hooks!("unsupported_version.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
