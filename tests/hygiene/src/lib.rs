//! `hooks!` with the `agent-hooks` dependency renamed to `hooks`: the
//! generated code refers to the runtime through the facade's `$crate`, never
//! through a hard-coded crate name, so this compiles (and runs).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

hooks::hooks!(name = Guard, "../../configs/full.yaml");

/// A second invocation in the same module: helper items never clash.
pub mod more {
    hooks::hooks!(inline = "version: 1\nhooks: []\n");
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use hooks::{AgentHook, Flow, HookContext, StepEvent};

    #[test]
    fn renamed_dependency_still_dispatches() {
        let args = serde_json::json!({"command": "rm -rf /"});
        let event = StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c",
            args: &args,
        };
        let ctx = HookContext::new("hygiene");
        let hooks = super::Guard::new();
        let poll = pin!(hooks.on_event(&ctx, event)).poll(&mut Context::from_waker(Waker::noop()));
        assert_eq!(poll, Poll::Ready(Flow::skip("rm -rf is not allowed")));
        assert!(super::more::Hooks::table().rules().is_empty());
    }
}
