// parallel: true beside a rewrite
agent_hooks::hooks!("parallel_rewrite.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
