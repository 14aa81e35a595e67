//! `Compiled::enforced_plan`: a config in `mode: shadow` lowered again as
//! if enforced, for the what-if pass of `test` and `replay`. Every hook
//! gets its own `mode` back (an `audit` hook stays one), the plan is no
//! longer a shadow one, and what loading gave the plan (a layer from a
//! stack file, the catalogue's schemas, the policy files) is kept.

use hooks_schema::plan::ActionSpec;
use hooks_schema::{Loader, Mode};

const SHADOW: &str = "version: 1
mode: shadow
layer: user
hooks:
  - id: no-rm
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, matches: 'rm\\s+-rf' }
    block: { reason: \"no rm -rf\" }
  - id: watch-curl
    phase: before_tool
    mode: audit
    include_tools: [bash]
    when: { pointer: /command, matches: curl }
    block: { reason: \"no network\" }
  - id: gate
    phase: before_tool
    policy:
      rego: [policies/gate.rego]
      query: data.agent.gate.decision
";

const REGO: &str = "package agent.gate\n\ndecision := {\"decision\": \"block\", \"reason\": \"no\"} if input.tool_name == \"bash\"\n";

fn modes(plan: &hooks_schema::plan::Plan) -> Vec<Mode> {
    plan.rules.iter().map(|r| r.mode).collect()
}

#[test]
fn a_shadow_config_is_lowered_again_with_each_hooks_own_mode() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir_all(dir.path().join("policies")).expect("creatable");
    std::fs::write(dir.path().join("policies/gate.rego"), REGO).expect("writable");
    let mut compiled = Loader::new()
        .workspace(dir.path())
        .compile_str(SHADOW, "shadow.yaml")
        .expect("compiles");
    assert!(compiled.plan.shadow);
    assert_eq!(modes(&compiled.plan), [Mode::Audit; 3]);
    // A layer a stack file gave (the config's own is `user`).
    compiled.plan.layer = hooks_schema::plan::Layer {
        name: "team".into(),
        rank: 250,
    };

    let enforced = compiled.enforced_plan(dir.path()).expect("lowers");
    assert!(!enforced.shadow);
    assert_eq!(
        modes(&enforced),
        [Mode::Enforce, Mode::Audit, Mode::Enforce]
    );
    assert_eq!(enforced.layer.name, "team");
    assert_eq!(enforced.layer.rank, 250);
    assert_eq!(enforced.source, "shadow.yaml");
    let ActionSpec::Policy(policy) = &enforced.rules[2].action else {
        panic!("a policy rule: {:?}", enforced.rules[2].action);
    };
    assert_eq!(&*policy.modules[0].source, REGO);
    // The loaded config still says what it declared.
    assert_eq!(compiled.config.mode, hooks_schema::ConfigMode::Shadow);
}

#[test]
fn a_policy_file_gone_since_loading_is_an_error() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir_all(dir.path().join("policies")).expect("creatable");
    std::fs::write(dir.path().join("policies/gate.rego"), REGO).expect("writable");
    let compiled = Loader::new()
        .workspace(dir.path())
        .compile_str(SHADOW, "shadow.yaml")
        .expect("compiles");
    std::fs::remove_file(dir.path().join("policies/gate.rego")).expect("removable");
    let err = compiled
        .enforced_plan(dir.path())
        .expect_err("the policy file is gone");
    assert!(err.to_string().contains("gate.rego"), "{err}");
}
