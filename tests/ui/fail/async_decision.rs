// async: true on a hook that decides at once
agent_hooks::hooks!("async_decision.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
