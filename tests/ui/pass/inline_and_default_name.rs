// The inline form, and the default type name `Hooks`, inside a module.
mod guard {
    agent_hooks::hooks!(inline = r#"
version: 1
hooks:
  - id: stop-on-error
    phase: run_error
    terminate: { reason: "failed" }
"#);
}

mod named {
    agent_hooks::hooks!(name = Empty, inline = "version: 1\nhooks: []\n");
}

fn main() {
    use agent_hooks::AgentHook;
    use hooks_plan::Phase;
    assert!(guard::Hooks::new().observes(Phase::RunError));
    assert!(!guard::Hooks::new().observes(Phase::BeforeTool));
    assert_eq!(guard::Hooks::table().source(), "<inline>");
    assert!(named::Empty::table().rules().is_empty());
}
