// failure policy block
agent_hooks::hooks!("failure_policy_block.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
