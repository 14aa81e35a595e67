// a tool name the catalogue does not have
agent_hooks::hooks!("catalogue_unknown_tool.yaml");

fn main() {
    let _ = Hooks::new();
}
