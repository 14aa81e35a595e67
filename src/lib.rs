//! agent-hooks: declared, checked and compiled hooks for AI agents.
//!
//! The curated API, by role (every name below is at the crate root unless
//! a module is named):
//!
//! - **`hooks!`**: [`hooks!`] compiles a config into a type implementing
//!   [`AgentHook`] over a static [`Table`];
//! - **driver and decisions**: put hooks in a [`HookStack`]; its driver
//!   methods ([`HookStack::before_tool`], ...) take a [`HookContext`] and a
//!   [`ToolCall`] / [`StepEvent`] and return a typed decision
//!   ([`ToolDecision`], [`AfterToolDecision`], [`CompletionDecision`],
//!   [`PromptDecision`], [`StopDecision`], [`PermissionDecision`],
//!   [`InvalidCallDecision`], [`CompactionDecision`], [`Observed`]) inside a
//!   [`Decided`]; an `ask` goes to your [`Approver`];
//! - **hooks and stacks**: [`AgentHook`] / [`FnHook`] answer [`Flow`]s
//!   ([`RequestPatch`], [`ContextItem`], ...);
//! - **tables and trust** (feature `load`): [`Table`]`::load` loads a config
//!   at run time once a `TrustStore` trusts it;
//! - **the shell runtime and records**: [`shell`] (the executor, the shell
//!   runtime of `run` hooks, records, secrets) and [`report`] (what each
//!   consulted hook did).
//!
//! The crates underneath keep their larger APIs: `hooks-runtime` (the fold,
//! the executor's every type, redaction), `hooks-schema` (loading, checking
//! and lowering configs, JSON Schemas), `hooks-plan` (the plan's types).
//! `docs/architecture.md` in the repository maps the crates and the path of
//! one event from YAML to decision.
//!
//! # Cargo features
//!
//! A build pays only for what its configs use (docs/embedding.md's "Cargo
//! features" gives each one's build cost): `rewrite-check` (default; a
//! `catalogue:`'s schemas, jsonschema), `http` (`http` hooks; reqwest,
//! rustls), `policy` (`policy` hooks; regorus), `load` (`Table::load`,
//! `TrustStore`), `otlp` (OpenTelemetry export), `cli` (the `agent-hooks`
//! binary; all of the above but `otlp`). A config that uses an `http` or
//! `policy` hook or a `catalogue:` without its feature is a located
//! `hooks!` (or `Table::load`) error naming the feature.
//!
//! ```
//! use std::future::Future;
//! use std::pin::pin;
//! use std::task::{Context, Poll, Waker};
//!
//! use agent_hooks::{AgentHook, Flow, HookContext, StepEvent};
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
//! Put the generated type in a [`HookStack`] (alone or beside your own Rust
//! hooks) and call the stack's driver method for each step of your loop:
//! [`before_tool`](HookStack::before_tool),
//! [`after_tool`](HookStack::after_tool),
//! [`before_completion`](HookStack::before_completion),
//! [`stop`](HookStack::stop), ... Each returns a typed decision to apply.
//! Bind a [`ShellRuntime`](shell::ShellRuntime) so `run` rules
//! execute (`examples/coding_agent/` is a whole agent built this way):
//!
//! ```
//! use std::sync::Arc;
//!
//! use agent_hooks::shell::Executor;
//! use agent_hooks::{HookContext, HookStack, ToolCall, ToolDecision, ToolOutcome};
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

// The curated surface: what an agent loop, a Rust hook and a shell-hook
// host use, grouped by role. The crates underneath (`hooks-runtime`,
// `hooks-schema`, `hooks-plan`) keep their own, larger APIs for tools that
// need more.

// Driver and decisions: events in, typed decisions out, with a report per
// consulted hook.
pub use hooks_runtime::{
    AfterToolDecision, Approval, ApprovalFuture, ApprovalRequest, Approver, CompactionDecision,
    CompletionDecision, Decided, HookContext, HookStack, InvalidCallDecision, Observed,
    PermissionDecision, PromptDecision, StepEvent, StepEventKind, StopDecision, ToolCall,
    ToolDecision, ToolFailure, ToolOutcome,
};

// Hooks and what they answer.
pub use hooks_runtime::{
    AgentHook, ContextItem, Diagnostic, Flow, FlowKind, FnHook, HookFuture, HookId, RequestPatch,
    Text, ToolChoice,
};

// Tables and trust: a config's rules as a hook, compiled in by [`hooks!`] or
// loaded at run time once trusted.
pub use hooks_runtime::Table;
#[cfg(feature = "load")]
pub use hooks_runtime::{LoadError, TrustStore, Untrusted};

/// What each consulted hook did: the reports in every
/// [`Decided`] and the provenance of the net result.
pub mod report {
    pub use hooks_runtime::{
        Change, FailureKind, HookFailure, HookReport, OutputSizes, Provenance, StreamSize, Verdict,
    };
}

/// The shared shell executor (hooks' processes and an agent's own bash tool)
/// and the records every hook invocation writes.
pub mod shell {
    pub use hooks_runtime::{
        CancellationToken, CommandForm, ExecOutcome, ExecRequest, ExecStatus, Executor, Record,
        RecordWriter, SecretSet, SessionDir, ShellRuntime,
    };
}

#[cfg(feature = "otlp")]
pub mod telemetry;

// The hook engine of `agent-hooks hook` (and of a server behind the
// agents' `http` hooks): an agent's payload in, its answer out.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod agent;
#[cfg(feature = "server")]
pub mod serve;

// The binary's `import claude` and `replay` commands (and their tests), not
// library API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod import;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod replay;

// Policy tests: cases of events and expected decisions, run through the
// runtime from `agent-hooks test --expect` or `cargo test`.
#[cfg(feature = "cli")]
pub mod policy_test;

/// Compiles a YAML hook config into a type implementing
/// [`AgentHook`] over a `static` dispatch table ([`Table`]), validating it at
/// build time.
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
