// yaml syntax
agent_hooks::hooks!("yaml_syntax.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
