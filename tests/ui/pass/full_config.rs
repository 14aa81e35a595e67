// A full config (every rule shape) compiles, and its table answers events.
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use agent_hooks::{AgentHook, Flow, HookContext, StepEvent};

agent_hooks::hooks!(name = Full, "../../configs/full.yaml");

fn main() {
    let hooks = Full::default();
    assert_eq!(Full::table().rules().len(), 16);
    let args = serde_json::json!({"command": "rm -rf /"});
    let event = StepEvent::BeforeTool { tool_name: "bash", call_id: "c", args: &args };
    let ctx = HookContext::new("ui");
    let poll = pin!(hooks.on_event(&ctx, event)).poll(&mut Context::from_waker(Waker::noop()));
    assert_eq!(poll, Poll::Ready(Flow::skip("rm -rf is not allowed")));
}
