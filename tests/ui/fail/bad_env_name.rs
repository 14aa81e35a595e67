// bad env name
agent_hooks::hooks!("bad_env_name.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
