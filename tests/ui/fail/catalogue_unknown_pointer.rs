// a when pointer the tool's input schema cannot contain
agent_hooks::hooks!("catalogue_unknown_pointer.yaml");

fn main() {
    let _ = Hooks::new();
}
