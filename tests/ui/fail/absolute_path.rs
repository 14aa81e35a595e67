// absolute path
agent_hooks::hooks!(name = Abs, "/etc/agent-hooks/hooks.yaml");

fn main() {
    let _ = Abs::new();
}
