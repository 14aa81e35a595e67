// empty file
agent_hooks::hooks!("empty_file.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
