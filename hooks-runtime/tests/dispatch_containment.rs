//! Containment is part of dispatch: a call of a tool whose settings say
//! `writes: true` is checked once per `before_tool` event, whether or not
//! a `run`, `http` or `policy` hook is invoked for it (with the reference
//! config, or with no hook at all), values that are not paths are refused,
//! `*` in a path pointer reaches every element, and arguments rewritten by
//! the table's own rules are checked again.

#[path = "common/hooks.rs"]
mod hooks;

use std::sync::Arc;

use hooks::Fixture;
use hooks_runtime::{
    AgentHook, Dispatcher, Flow, HookContext, HookStack, StepEvent, Table, TableRef,
};
use hooks_schema::Phase;
use serde_json::{Value, json};

/// `config` bound to the fixture's runtime (records, workspace root).
fn dispatcher(fx: &Fixture, config: &str) -> Dispatcher {
    let table = Table::load_str(config, "team.yaml").expect("the config loads");
    Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(Arc::clone(&fx.runtime))
}

fn write<'a>(tool_name: &'a str, args: &'a Value) -> StepEvent<'a> {
    StepEvent::BeforeTool {
        tool_name,
        call_id: "c1",
        args,
    }
}

/// The flow of `event` through `hooks` in a stack, as an agent folds it
/// (the stack asks `observes` first).
async fn decide(hooks: Dispatcher, ctx: &HookContext, event: StepEvent<'_>) -> Flow {
    HookStack::new()
        .with("config", hooks)
        .fold(ctx, event)
        .await
        .net_flow()
}

/// Asserts `flow` is a refusal whose reason holds `why`, and that the one
/// record is the containment's, with a finding of `kind`.
fn assert_refused(fx: &Fixture, flow: &Flow, why: &str, kind: &str) {
    let Flow::Skip { reason } = flow else {
        panic!("not refused: {flow:?}");
    };
    assert!(reason.contains(why), "{reason}");
    let records = fx.records();
    assert_eq!(records.len(), 1, "{records:?}");
    let r = &records[0];
    assert_eq!(r["hook_id"], "tool_settings.write_file", "{r}");
    assert_eq!(
        (&r["status"], &r["decision"]),
        (&json!("decision"), &json!("skip"))
    );
    assert_eq!(r["message"], json!(reason.as_ref()));
    let kinds: Vec<&Value> = r["path_diagnostics"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|d| &d["kind"])
        .collect();
    assert!(kinds.iter().any(|k| *k == kind), "{kinds:?}");
}

const WRITES: &str = r#"
version: 1
tool_settings:
  write_file:
    path_pointers: [/path, "/edits/*/path"]
    writes: true
hooks: []
"#;

#[tokio::test]
async fn the_reference_config_refuses_a_write_outside_the_root_without_a_hook_for_it() {
    // No `run`, `http` or `policy` hook of the reference config is invoked
    // for this call: once, nothing checked it and it ran.
    let fx = Fixture::new();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let text = std::fs::read_to_string(examples.join("hooks.yaml")).expect("reference config");
    let compiled = hooks_schema::Loader::new()
        .base_dir(&examples)
        .workspace(examples.join(".."))
        .compile_str(&text, "examples/hooks.yaml")
        .expect("the reference config is valid");
    let table = Table::from_plan(compiled.plan);
    let hooks =
        Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(Arc::clone(&fx.runtime));
    let args = json!({"path": "/etc/passwd", "content": "root::0:0::/:/bin/sh"});
    let flow = decide(hooks, &HookContext::new("r"), write("write_file", &args)).await;
    assert_refused(&fx, &flow, "outside the workspace root", "outside_root");
}

#[tokio::test]
async fn a_config_with_no_hook_at_all_still_contains_its_writing_tools() {
    let fx = Fixture::new();
    let ctx = HookContext::new("r");
    let hooks = dispatcher(&fx, WRITES);
    assert!(hooks.observes(Phase::BeforeTool));
    assert!(!hooks.observes(Phase::AfterTool));
    // Inside the root: nothing to say, nothing recorded.
    let inside = json!({"path": "src/new.rs"});
    assert_eq!(
        decide(hooks.clone(), &ctx, write("write_file", &inside)).await,
        Flow::Continue
    );
    // Another tool is not looked at.
    let other = json!({"path": "/etc/passwd"});
    assert_eq!(
        decide(hooks.clone(), &ctx, write("read_file", &other)).await,
        Flow::Continue
    );
    assert!(fx.records().is_empty(), "{:?}", fx.records());
    let flow = decide(hooks, &ctx, write("write_file", &other)).await;
    assert_refused(&fx, &flow, "outside the workspace root", "outside_root");
}

#[tokio::test]
async fn the_unchecked_paths_are_refused_at_dispatch_too() {
    let mut many: Vec<String> = (0..16).map(|i| format!("f{i}")).collect();
    many.push("/etc/passwd".into());
    let cases = [
        (
            json!({"path": format!("/tmp/{}", "x".repeat(1058))}),
            "longer than 1024",
            "too_long",
        ),
        (
            json!({"edits": many.iter().map(|p| json!({"path": p})).collect::<Vec<_>>()}),
            "more than 16 paths",
            "too_many",
        ),
        (
            json!({"path": "/etc/passwd\0/../../tmp/a"}),
            "NUL byte",
            "nul_byte",
        ),
    ];
    for (args, why, kind) in cases {
        let fx = Fixture::new();
        let flow = decide(
            dispatcher(&fx, WRITES),
            &HookContext::new("r"),
            write("write_file", &args),
        )
        .await;
        assert_refused(&fx, &flow, why, kind);
    }
}

#[tokio::test]
async fn a_path_value_that_is_not_a_string_is_refused_not_skipped() {
    let cases = [
        json!({"path": 7}),
        json!({"path": {"file": "/etc/passwd"}}),
        json!({"path": [["/etc/passwd"]]}),
        json!({"path": null}),
        json!({"edits": [{"path": "a"}, {"path": {"p": "/etc/passwd"}}]}),
    ];
    for args in cases {
        let fx = Fixture::new();
        let flow = decide(
            dispatcher(&fx, WRITES),
            &HookContext::new("r"),
            write("write_file", &args),
        )
        .await;
        assert_refused(&fx, &flow, "should be a path", "not_a_path");
    }
}

#[tokio::test]
async fn a_star_in_a_path_pointer_reaches_every_element() {
    let fx = Fixture::new();
    let ctx = HookContext::new("r");
    let edits = |third: &str| json!({"edits": [{"path": "a"}, {"path": "b"}, {"path": third}]});
    let ok = edits("c");
    assert_eq!(
        decide(dispatcher(&fx, WRITES), &ctx, write("write_file", &ok)).await,
        Flow::Continue
    );
    let escape = edits("../../etc/passwd");
    let flow = decide(dispatcher(&fx, WRITES), &ctx, write("write_file", &escape)).await;
    assert_refused(&fx, &flow, "at `/edits/2/path`", "outside_root");
    assert_eq!(
        fx.records()[0]["path_diagnostics"][0]["pointer"],
        "/edits/2/path"
    );
}

#[tokio::test]
async fn relative_paths_are_taken_from_the_agents_cwd() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.path("sub")).expect("sub");
    let ctx = HookContext::new("r").with_cwd(fx.path("sub"));
    let up_once = json!({"path": "../a"});
    assert_eq!(
        decide(dispatcher(&fx, WRITES), &ctx, write("write_file", &up_once)).await,
        Flow::Continue
    );
    let up_twice = json!({"path": "../../a"});
    let flow = decide(
        dispatcher(&fx, WRITES),
        &ctx,
        write("write_file", &up_twice),
    )
    .await;
    assert_refused(&fx, &flow, "outside the workspace root", "outside_root");
}

#[tokio::test]
async fn arguments_rewritten_by_a_rule_are_checked_again() {
    let fx = Fixture::new();
    let config = format!(
        "{WRITES}  - id: redirect\n    phase: before_tool\n    include_tools: [write_file]\n    rewrite:\n      - {{ op: set, pointer: /path, value: /etc/passwd }}\n"
    )
    .replace("hooks: []\n", "hooks:\n");
    let args = json!({"path": "a"});
    let outcome = HookStack::new()
        .with("config", dispatcher(&fx, &config))
        .fold(&HookContext::new("r"), write("write_file", &args))
        .await;
    let flow = outcome.clone().net_flow();
    let Flow::Skip { reason } = &flow else {
        panic!("the rewritten call was not refused: {outcome:?}");
    };
    assert!(reason.contains("outside the workspace root"), "{reason}");
    let ids: Vec<Value> = fx.records().iter().map(|r| r["hook_id"].clone()).collect();
    assert_eq!(ids, [json!("redirect"), json!("tool_settings.write_file")]);
}

#[tokio::test]
async fn without_a_shell_runtime_a_writing_tool_is_refused() {
    // No workspace root to check against: fail closed.
    let table = Table::load_str(WRITES, "team.yaml").expect("the config loads");
    let args = json!({"path": "a"});
    let flow = table
        .on_event(&HookContext::new("r"), write("write_file", &args))
        .await;
    let Flow::Skip { reason } = flow else {
        panic!("not refused: {flow:?}");
    };
    assert!(reason.contains("no shell runtime is bound"), "{reason}");
    let other = table
        .on_event(&HookContext::new("r"), write("read_file", &args))
        .await;
    assert_eq!(other, Flow::Continue);
}

#[tokio::test]
async fn a_hook_invoked_on_a_contained_call_sees_the_paths_dispatch_resolved() {
    // Resolved once, at dispatch; the hook's payload carries the same.
    let fx = Fixture::new();
    std::fs::create_dir(fx.path("src")).expect("src");
    std::os::unix::fs::symlink("src", fx.path("alias")).expect("symlink");
    let config = WRITES.replace(
        "hooks: []\n",
        "hooks:\n  - id: keep\n    phase: before_tool\n    run: { command: \"cat > stdin.json\" }\n",
    );
    let args = json!({"path": "alias/new.rs", "edits": [{"path": "src/./b.rs"}, {"path": 3}]});
    let flow = decide(
        dispatcher(&fx, &config),
        &HookContext::new("r"),
        write("write_file", &args),
    )
    .await;
    // The number is not a path: refused before the hook runs.
    assert!(matches!(flow, Flow::Skip { .. }), "{flow:?}");
    assert!(!fx.path("stdin.json").exists(), "the hook ran");
    let args = json!({"path": "alias/new.rs", "edits": [{"path": "src/./b.rs"}]});
    let flow = decide(
        dispatcher(&fx, &config),
        &HookContext::new("r"),
        write("write_file", &args),
    )
    .await;
    assert_eq!(flow, Flow::Continue);
    let payload: Value = serde_json::from_str(
        &std::fs::read_to_string(fx.path("stdin.json")).expect("the hook ran"),
    )
    .expect("JSON");
    let root = fx.root().canonicalize().expect("canonical root");
    let p = |s: &str| json!(root.join(s));
    assert_eq!(
        payload["affected_paths"],
        json!([p("src/new.rs"), p("src/b.rs")])
    );
    assert!(payload.get("path_diagnostics").is_none(), "{payload}");
}
