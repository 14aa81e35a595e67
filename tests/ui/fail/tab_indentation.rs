// tab indentation
agent_hooks::hooks!("tab_indentation.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
