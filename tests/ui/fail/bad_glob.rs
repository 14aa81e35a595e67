// bad glob
agent_hooks::hooks!("bad_glob.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
