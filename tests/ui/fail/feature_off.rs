// A config that uses what a cargo feature brings, built without the feature:
// each such hook is an error at the hook naming the feature to turn on.
agent_hooks::hooks!(name = Gated, inline = "version: 1\nhooks:\n  - id: opa-gate\n    phase: before_tool\n    policy:\n      rego: [policies/tools.rego]\n      query: data.agent.tools.decision\n  - id: remote\n    phase: before_tool\n    http:\n      url: http://127.0.0.1:9/hook\n");

fn main() {
    let _ = Gated::new();
}
