// active_tools naming a tool not in the catalogue
agent_hooks::hooks!("catalogue_patch_tool.yaml");

fn main() {
    let _ = Hooks::new();
}
