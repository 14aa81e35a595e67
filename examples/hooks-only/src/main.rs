//! An agent loop that uses only `hooks!`: the config is checked and compiled
//! at build time, a `run` hook goes through the shared executor, and the
//! declarative rule decides in process. Built with the facade's default
//! features off, so nothing that loads configs at run time, speaks HTTP or
//! evaluates Rego is linked (see docs/embedding.md, "Cargo features").

use std::sync::Arc;

use agent_hooks::shell::Executor;
use agent_hooks::{HookContext, HookStack, ToolCall, ToolDecision, ToolOutcome};
use serde_json::json;

agent_hooks::hooks!(name = Hooks, "../hooks.yaml");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    let shell = Arc::new(Hooks::shell_runtime(Executor::new(workspace.path())?));
    let hooks = HookStack::new().with("hooks.yaml", Hooks::new().with_shell(shell));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let ctx = HookContext::new("run-1");
        let calls = [
            ("bash", json!({"command": "cd été && rm -rf build"})),
            ("write_file", json!({"path": "notes.md", "content": "hi"})),
        ];
        for (i, (tool, args)) in calls.iter().enumerate() {
            let call_id = format!("call-{i}");
            let call = ToolCall {
                tool_name: tool,
                call_id: &call_id,
                args,
            };
            let decided = hooks.before_tool(&ctx, call).await;
            let args = match decided.resolve(&ctx, call, None).await.decision {
                ToolDecision::Run { args } => args,
                ToolDecision::Skip { reason, .. } | ToolDecision::Ask { reason, .. } => {
                    println!("{tool}: blocked: {reason}");
                    continue;
                }
                ToolDecision::Terminate { reason } => return Err(reason.into_owned().into()),
            };
            println!("{tool}: runs with {args}");
            let result = json!({"bytes_written": 2});
            let ran = ToolCall {
                args: &args,
                ..call
            };
            let after = hooks
                .after_tool(&ctx, ran, call.args, &result, &ToolOutcome::Success)
                .await;
            for item in &after.context {
                println!("{tool}: context for the model: {}", item.content);
            }
        }
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}
