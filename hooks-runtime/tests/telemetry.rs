//! Every hook invocation is one `tracing` span `agent_hooks.hook` — a Rust
//! hook, declarative rules, a `run` hook, an `http` hook — inside the span of the event's
//! fold, with its phase, id, config, action, decision and outcome, and one
//! metrics event each; no field holds the canary secret a hook saw.

#[path = "common/http_server.rs"]
mod http_server;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hooks_runtime::{
    Dispatcher, Executor, Flow, FnHook, HookContext, HookStack, Table, TableRef, ToolCall,
};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

const CANARY: &str = "ghp_CanaryCanaryCanaryCanaryCanary123456";

/// A span as the test's layer saw it: name, parent, fields.
type SeenSpan = (String, Option<u64>, BTreeMap<String, String>);

/// What the test's layer saw: spans and events.
#[derive(Debug, Default)]
struct Seen {
    spans: BTreeMap<u64, SeenSpan>,
    events: Vec<(Option<u64>, BTreeMap<String, String>)>,
}

#[derive(Clone, Default)]
struct Collect(Arc<Mutex<Seen>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Collect {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = ctx
            .span(id)
            .and_then(|s| s.parent())
            .map(|p| p.id().into_u64());
        let name = attrs.metadata().name().to_owned();
        let mut seen = self.0.lock().expect("not poisoned");
        seen.spans.insert(id.into_u64(), (name, parent, fields));
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut seen = self.0.lock().expect("not poisoned");
        if let Some((_, _, fields)) = seen.spans.get_mut(&id.into_u64()) {
            values.record(&mut Fields(fields));
        }
    }
    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let span = ctx.event_span(event).map(|s| s.id().into_u64());
        self.0
            .lock()
            .expect("not poisoned")
            .events
            .push((span, fields));
    }
}

/// The config, its `http` hook asking `url`.
fn config(url: &str) -> String {
    format!(
        r#"version: 1
hooks:
  - id: mark
    phase: before_tool
    rewrite: [{{ op: set, pointer: /checked, value: true }}]
  - id: script
    phase: before_tool
    run:
      command: 'echo "leaked $GITHUB_TOKEN" >&2; exit 1'
      env: {{ set: {{ GITHUB_TOKEN: "ghp_CanaryCanaryCanaryCanaryCanary123456" }} }}
      timeout: 10s
    failure_policy: warn
  - id: service
    phase: before_tool
    http: {{ url: "{url}", timeout: 10s }}
  - id: refuse
    phase: before_tool
    block: {{ reason: "refused: ghp_CanaryCanaryCanaryCanaryCanary123456" }}
"#
    )
}

#[test]
fn every_invocation_is_one_span_inside_its_fold() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    // The service answers with context that quotes the canary.
    let server = runtime.block_on(http_server::Server::start(|_| async {
        http_server::Reply::json(
            200,
            &json!({"context_items": [{"role": "user", "content": format!("service saw {CANARY}")}]}),
        )
    }));
    let root = tempfile::tempdir().expect("workspace root");
    let config = config(&server.url("/hook"));
    let table = Arc::new(Table::load_str(&config, "hooks.yaml").expect("valid"));
    let shell = Arc::new(table.shell_runtime(Executor::new(root.path()).expect("executor")));
    let dispatcher = Dispatcher::new(TableRef::Shared(Arc::clone(&table))).with_shell(shell);
    let stack = HookStack::new()
        .with("rust-guard", FnHook::new(|_, _| Flow::Continue))
        .with("config", dispatcher);
    let ctx = HookContext::new("telemetry");
    let args = json!({"command": "ls"});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };

    let collect = Collect::default();
    let subscriber = tracing_subscriber::registry().with(collect.clone());
    let decided = tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(stack.before_tool(&ctx, call))
    });
    assert_eq!(server.seen().len(), 1);
    assert!(matches!(
        decided.decision,
        hooks_runtime::ToolDecision::Skip { .. }
    ));

    let seen = collect.0.lock().expect("not poisoned");
    let folds: Vec<u64> = seen
        .spans
        .iter()
        .filter(|(_, (name, _, _))| name == "agent_hooks.fold")
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(folds.len(), 1, "{seen:#?}");
    let hooks: BTreeMap<&str, (&Option<u64>, &BTreeMap<String, String>)> = seen
        .spans
        .values()
        .filter(|(name, _, _)| name == "agent_hooks.hook")
        .map(|(_, parent, fields)| (fields["hook.id"].as_str(), (parent, fields)))
        .collect();
    assert_eq!(
        hooks.keys().copied().collect::<Vec<_>>(),
        ["mark", "refuse", "rust-guard", "script", "service"],
        "one span per invocation: {seen:#?}"
    );
    for (id, (parent, fields)) in &hooks {
        assert_eq!(**parent, Some(folds[0]), "{id}: the fold is the parent");
        assert_eq!(fields["hook.phase"], "before_tool", "{id}");
        assert!(fields.contains_key("hook.elapsed_ms"), "{id}: {fields:?}");
    }
    let field = |id: &str, key: &str| hooks[id].1.get(key).cloned().unwrap_or_default();
    assert_eq!(field("rust-guard", "hook.action"), "rust");
    assert_eq!(field("rust-guard", "hook.outcome"), "ok");
    assert_eq!(field("mark", "hook.action"), "rewrite");
    assert_eq!(field("mark", "hook.decision"), "rewrite_args");
    assert_eq!(field("mark", "hook.config"), "hooks.yaml");
    assert_eq!(field("mark", "hook.layer"), "project");
    assert_eq!(field("script", "hook.layer"), "project");
    assert_eq!(field("rust-guard", "hook.layer"), "");
    assert_eq!(field("script", "hook.action"), "run");
    assert_eq!(field("script", "hook.outcome"), "failed");
    assert_eq!(field("script", "hook.failure_kind"), "nonzero_exit");
    assert_eq!(field("service", "hook.action"), "http");
    assert_eq!(field("service", "hook.outcome"), "decision");
    assert_eq!(field("service", "hook.decision"), "inject_context");
    assert_eq!(field("refuse", "hook.decision"), "skip");
    assert!(field("refuse", "hook.message").starts_with("refused: "));

    // One metrics event per invocation, inside its span.
    let counted: Vec<&String> = seen
        .events
        .iter()
        .filter(|(_, f)| f.contains_key("monotonic_counter.agent_hooks.hook.invocations"))
        .map(|(_, f)| &f["hook.id"])
        .collect();
    assert_eq!(counted.len(), 5, "{:#?}", seen.events);

    for (name, _, fields) in seen.spans.values() {
        for (key, value) in fields {
            assert!(!value.contains(CANARY), "{name} {key} = {value}");
        }
    }
    for (_, fields) in &seen.events {
        for (key, value) in fields {
            assert!(!value.contains(CANARY), "event {key} = {value}");
        }
    }
}

/// An unbound table answering a plain block (the dispatch path that builds
/// no fold when nothing can read it) still gives a subscriber exactly one
/// hook span, with the decision.
#[test]
fn an_unbound_tables_block_is_one_span() {
    let config = "version: 1
hooks:
  - id: no-rm
    phase: before_tool
    include_tools: [bash]
    block: { reason: no }
";
    let table = Table::load_str(config, "quick.yaml").expect("valid");
    let ctx = HookContext::new("quick");
    let args = json!({"command": "rm -rf /"});
    let collect = Collect::default();
    let subscriber = tracing_subscriber::registry().with(collect.clone());
    let flow = tracing::subscriber::with_default(subscriber, || {
        let event = hooks_runtime::StepEvent::BeforeTool {
            tool_name: "bash",
            call_id: "c1",
            args: &args,
        };
        futures_lite_ready(hooks_runtime::AgentHook::on_event(&table, &ctx, event))
    });
    assert!(matches!(flow, Flow::Skip { .. }), "{flow:?}");
    let seen = collect.0.lock().expect("not poisoned");
    let hook_spans: Vec<_> = seen
        .spans
        .values()
        .filter(|(name, _, fields)| {
            name == "agent_hooks.hook" && fields.get("hook.id").map(String::as_str) == Some("no-rm")
        })
        .collect();
    assert_eq!(hook_spans.len(), 1, "{hook_spans:?}");
    assert_eq!(
        hook_spans[0].2.get("hook.decision").map(String::as_str),
        Some("skip"),
        "{hook_spans:?}"
    );
}

/// A stack answers a tool call at once only when no subscriber would see
/// the fold's span: with one set, `before_tool_now` declines, a miss and a
/// block alike, and the fold gives the subscriber its span.
#[test]
fn a_subscriber_gets_the_fold_not_the_quick_answer() {
    let config = "version: 1
hooks:
  - id: no-rm
    phase: before_tool
    include_tools: [bash]
    when: { pointer: /command, matches: 'rm\\s+-rf' }
    block: { reason: no }
";
    let table = Table::load_str(config, "quick.yaml").expect("valid");
    let stack = HookStack::new().with("quick.yaml", table);
    let ctx = HookContext::new("quick");
    let (ls, rm) = (json!({"command": "ls"}), json!({"command": "rm -rf /"}));
    let call = |args| ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args,
    };
    assert!(stack.before_tool_now(call(&ls)).is_some(), "no subscriber");
    let collect = Collect::default();
    let subscriber = tracing_subscriber::registry().with(collect.clone());
    tracing::subscriber::with_default(subscriber, || {
        for args in [&ls, &rm] {
            assert_eq!(stack.before_tool_now(call(args)), None, "{args}");
            futures_lite_ready(stack.before_tool(&ctx, call(args)));
        }
    });
    let seen = collect.0.lock().expect("not poisoned");
    let folds = seen
        .spans
        .values()
        .filter(|(name, _, _)| name == "agent_hooks.fold")
        .count();
    assert_eq!(folds, 2, "one fold span per call");
}

/// Polls a future that completes on its first poll.
fn futures_lite_ready<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("an unbound table's answer was not ready"),
    }
}
