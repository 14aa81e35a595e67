// include tools non tool phase
agent_hooks::hooks!("include_tools_non_tool_phase.yaml");

fn main() {
    // The type is emitted even though the config is invalid: no cascade.
    let _ = Hooks::new();
}
