//! agent-hooks: declared, checked and compiled hooks for AI agents.
//!
//! This facade re-exports [`hooks_schema`] (as [`schema`]), [`hooks_runtime`]
//! (as [`runtime`]) and the [`hooks!`] macro. What you use, by role:
//!
//! - **an agent loop**: [`hooks!`] (or [`runtime::Table::load`]) in a
//!   [`runtime::HookStack`]; its driver methods return typed decisions
//!   ([`runtime::ToolDecision`], ...) inside a [`runtime::Decided`] with a
//!   [`runtime::HookReport`] per consulted hook; [`runtime::HookContext`]
//!   carries the run;
//! - **Rust hooks**: [`runtime::AgentHook`] / [`runtime::FnHook`] answering
//!   [`runtime::Flow`]s;
//! - **shell hooks and tools**: [`runtime::ShellRuntime`] over a
//!   [`runtime::Executor`], with [`runtime::RecordWriter`] and
//!   [`runtime::SecretSet`];
//! - **config authors and tools**: [`schema::load_file`],
//!   [`schema::compile_str`], [`schema::config_schema`].
//!
//! The runtime's crate root lists its whole public API, grouped the same way.
//! `docs/architecture.md` in the repository maps the crates and the path of
//! one event from YAML to decision.
//!
//! ```
//! use std::future::Future;
//! use std::pin::pin;
//! use std::task::{Context, Poll, Waker};
//!
//! use agent_hooks::runtime::{AgentHook, Flow, HookContext, StepEvent};
//!
//! agent_hooks::hooks!(name = Guard, inline = r#"
//! version: 1
//! hooks:
//!   - id: no-rm-rf
//!     phase: before_tool
//!     include_tools: [bash]
//!     when: { pointer: /command, matches: 'rm\s+-rf' }
//!     block: { reason: "rm -rf is not allowed" }
//! "#);
//!
//! let hooks = Guard::new();
//! let ctx = HookContext::new("run-1");
//! let args = serde_json::json!({"command": "rm -rf /"});
//! let event = StepEvent::BeforeTool { tool_name: "bash", call_id: "c1", args: &args };
//! // Declarative rules answer at once: the future is ready on the first poll.
//! let poll = pin!(hooks.on_event(&ctx, event)).poll(&mut Context::from_waker(Waker::noop()));
//! assert_eq!(poll, Poll::Ready(Flow::skip("rm -rf is not allowed")));
//! ```
//!
//! # Embedding `hooks!` in your own agent loop
//!
//! Put the generated type in a [`HookStack`](runtime::HookStack) (alone or
//! beside your own Rust hooks) and call the stack's driver method for each
//! step of your loop: [`before_tool`](runtime::HookStack::before_tool),
//! [`after_tool`](runtime::HookStack::after_tool),
//! [`before_completion`](runtime::HookStack::before_completion),
//! [`stop`](runtime::HookStack::stop), ... Each returns a typed decision to
//! apply. Bind a [`ShellRuntime`](runtime::ShellRuntime) so `run` rules
//! execute (`examples/coding_agent/` is a whole agent built this way):
//!
//! ```
//! use std::sync::Arc;
//!
//! use agent_hooks::runtime::{
//!     Executor, HookContext, HookStack, ToolCall, ToolDecision, ToolOutcome,
//! };
//! use serde_json::json;
//!
//! // Checked and compiled at build time (`hooks!("hooks.yaml")` reads a file,
//! // relative to this source file, instead).
//! agent_hooks::hooks!(name = MyHooks, inline = r#"
//! version: 1
//! hooks:
//!   - id: no-rm-rf
//!     phase: before_tool
//!     include_tools: [bash]
//!     when: { pointer: /command, matches: 'rm\s+-rf' }
//!     block: { reason: "rm -rf is not allowed" }
//!   - id: remind-tests
//!     phase: after_tool
//!     include_tools: [write_file]
//!     run:
//!       command: echo '{"context_items":[{"role":"user","content":"run the tests"}]}'
//! "#);
//!
//! // Shell hooks run through the shared executor, confined to the workspace,
//! // under the config's `limits`; add `.with_records(...)` to keep records.
//! let workspace = tempfile::tempdir()?;
//! let shell = Arc::new(MyHooks::shell_runtime(Executor::new(workspace.path())?));
//! let hooks = HookStack::new().with("hooks.yaml", MyHooks::new().with_shell(shell));
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! runtime.block_on(async {
//!     let ctx = HookContext::new("run-1");
//!     // The tool calls your model asked for.
//!     let calls = [
//!         ("bash", json!({"command": "rm -rf /"})),
//!         ("write_file", json!({"path": "notes.md", "content": "hi"})),
//!     ];
//!     for (i, (tool, args)) in calls.iter().enumerate() {
//!         let call_id = format!("call-{i}");
//!         let call = ToolCall { tool_name: tool, call_id: &call_id, args };
//!         let decided = hooks.before_tool(&ctx, call).await;
//!         // A hook's `ask` goes to the agent's approver; with none it is refused.
//!         let args = match decided.resolve(&ctx, call, None).await.decision {
//!             ToolDecision::Run { args } => args, // possibly rewritten by hooks
//!             ToolDecision::Skip { reason, .. } | ToolDecision::Ask { reason, .. } => {
//!                 // The tool does not run: `reason` is its result for the model.
//!                 assert_eq!(reason, "rm -rf is not allowed");
//!                 continue;
//!             }
//!             ToolDecision::Terminate { reason } => return Err(reason.into_owned()),
//!         };
//!         let result = json!({"bytes_written": 2}); // run the tool with `args` here
//!         let ran = ToolCall { args: &args, ..call };
//!         let after = hooks.after_tool(&ctx, ran, call.args, &result, &ToolOutcome::Success).await;
//!         // Give the model `after.decision.result` and the injected context.
//!         assert_eq!(after.context[0].content, "run the tests");
//!     }
//!     Ok::<(), String>(())
//! })?;
//! Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use hooks_runtime as runtime;
pub use hooks_schema as schema;

#[cfg(feature = "otlp")]
pub mod telemetry;

// The binary's `import claude` and `replay` commands (and their tests), not
// library API.
#[doc(hidden)]
pub mod import;
#[doc(hidden)]
pub mod replay;

/// Compiles a YAML hook config into a type implementing
/// [`AgentHook`](hooks_runtime::AgentHook) over a `static` dispatch table
/// ([`Table`](hooks_runtime::Table)), validating it at build time.
///
/// # Forms
///
/// - `hooks!("hooks.yaml")` — a config file. The path is **relative to the
///   directory of the source file containing the `hooks!` call** (like
///   `include_str!`); absolute paths are refused. The generated type is
///   named `Hooks`.
/// - `hooks!(name = MyHooks, "hooks.yaml")` — the same, naming the type.
/// - `hooks!(inline = r#"..."#)`, `hooks!(name = MyHooks, inline = "...")` —
///   the YAML in the source (diagnostics name it `<inline>`).
///
/// # Generated items
///
/// `pub struct NAME` (`Debug`, `Clone`, `Default`) with `const fn new()`,
/// `with_shell(Arc<ShellRuntime>)` (where `run` rules execute; without it
/// they count as failed under their failure policy), `table() -> &'static
/// Table` and `dispatcher()`, implementing `AgentHook`. Helper items live in
/// a `const _: () = { ... };` block and refer to this crate through a hidden
/// path, so renaming the dependency works.
///
/// # Errors
///
/// Every diagnostic of the config (YAML syntax, schema, semantic rules) is a
/// compile error on the path literal, with `file:line:col` and a snippet, as
/// `agent-hooks check` prints it. The type is still emitted (with an empty
/// table) so no other error follows. The file is `include_bytes!`-ed: editing
/// it rebuilds the crate.
#[macro_export]
macro_rules! hooks {
    ($($input:tt)*) => {
        $crate::__private::hooks_impl! { $crate::__private; $($input)* }
    };
}

/// Paths the code generated by [`hooks!`] refers to. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use hooks_macros::hooks_impl;
    pub use hooks_runtime::__private::*;
}
