// The reference config `examples/hooks.yaml` compiles with `hooks!`, and the
// static table has the same rules as the one the runtime loader builds.
agent_hooks::hooks!(name = Example, "../../../examples/hooks.yaml");

fn main() {
    let static_ids: Vec<String> = Example::table().rules().iter().map(|r| r.id.to_string()).collect();
    // trybuild compiles this file by its absolute path.
    let path = std::path::Path::new(file!())
        .parent()
        .expect("a directory")
        .join("../../../examples/hooks.yaml");
    let config = hooks_schema::load_file(&path).expect("the example is valid");
    let loaded = agent_hooks::Table::from_config(&config, "hooks.yaml").expect("loads");
    let loaded_ids: Vec<String> = loaded.rules().iter().map(|r| r.id.to_string()).collect();
    assert_eq!(static_ids, loaded_ids);
    assert!(!static_ids.is_empty());
}
