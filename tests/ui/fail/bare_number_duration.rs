// bare number duration
agent_hooks::hooks!("bare_number_duration.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
