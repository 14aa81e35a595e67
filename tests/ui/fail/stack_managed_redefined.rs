// a lower layer of a stack redefines a managed hook
agent_hooks::hooks!(name = Fleet, stack = "stack_managed_redefined.stack.yaml");

fn main() {
    let _ = Fleet::new();
}
