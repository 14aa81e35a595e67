// a rewrite value the schema rejects
agent_hooks::hooks!("catalogue_rewrite_value.yaml");

fn main() {
    let _ = Hooks::new();
}
