// bad pointer
agent_hooks::hooks!("bad_pointer.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
