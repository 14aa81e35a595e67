// inline config with an error
agent_hooks::hooks!(name = Inline, inline = "version: 1\nhooks:\n  - id: x\n    phase: before_completion\n    inject: { content: too early }\n");

fn main() {
    let _ = Inline::new();
}
