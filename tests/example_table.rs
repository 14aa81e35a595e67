//! The reference config `examples/hooks.yaml` compiles with `hooks!` (its
//! Rego policy file included, resolved against the package root), and the
//! static table equals the plan the run-time loader builds from the same
//! file.

use std::path::Path;

agent_hooks::hooks!(name = Example, "../examples/hooks.yaml");

#[test]
fn the_compiled_reference_config_equals_the_loaded_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let compiled = agent_hooks::schema::Loader::new()
        .workspace(root)
        .compile_file(&root.join("examples/hooks.yaml"))
        .expect("the reference config and its policy compile");
    let loaded = agent_hooks::runtime::Table::from_plan(compiled.plan);
    let ids = |t: &agent_hooks::runtime::Table| -> Vec<String> {
        t.rules().iter().map(|r| r.id.to_string()).collect()
    };
    assert!(ids(Example::table()).contains(&"fleet-policy-local".to_owned()));
    assert_eq!(ids(Example::table()), ids(&loaded));
    assert_eq!(Example::table().rules(), loaded.rules());
}
