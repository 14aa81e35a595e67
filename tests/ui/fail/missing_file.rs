// missing file
agent_hooks::hooks!("does_not_exist.yaml");

fn main() {
    let _ = Hooks::new();
}
