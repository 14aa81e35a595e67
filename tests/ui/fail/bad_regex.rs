// bad regex
agent_hooks::hooks!("bad_regex.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
