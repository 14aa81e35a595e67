// a when literal of the wrong type for the schema
agent_hooks::hooks!("catalogue_never_matches.yaml");

fn main() {
    let _ = Hooks::new();
}
