// duration out of range
agent_hooks::hooks!("duration_out_of_range.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
