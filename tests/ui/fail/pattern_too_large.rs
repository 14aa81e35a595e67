// a regex whose DFA would exceed the size limit
agent_hooks::hooks!("pattern_too_large.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
