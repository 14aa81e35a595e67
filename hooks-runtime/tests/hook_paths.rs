//! Affected paths resolved against the real file system, flagged when they
//! leave the workspace root, and refused for a writing tool (as are the
//! paths left unchecked: too long, past the cap, holding a NUL byte); the
//! session directory swapped for a symlink.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, sh};
use hooks_runtime::{Flow, HookLimits, PayloadLimits, ToolOutcome, ToolPathSettings};
use hooks_schema::Phase;
use serde_json::{Value, json};
use std::path::Path;

fn writer(allow_absolute: bool) -> ToolPathSettings {
    ToolPathSettings {
        path_pointers: vec!["/path".into()],
        allow_absolute,
        writes: true,
    }
}

/// A hook that keeps its stdin in `stdin.json`.
fn keeping_stdin(settings: ToolPathSettings, phase: Phase) -> hooks_runtime::ShellHookSpec {
    let mut spec = sh("guard", phase, "cat > stdin.json");
    spec.tool_paths = Some(settings);
    spec
}

fn stdin(fx: &Fixture) -> Value {
    let text = std::fs::read_to_string(fx.path("stdin.json")).expect("the hook kept its stdin");
    serde_json::from_str(&text).expect("the payload is JSON")
}

#[tokio::test]
async fn a_write_outside_the_root_is_refused_unrun_and_recorded() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.path("sub")).unwrap();
    let mut spec = keeping_stdin(writer(false), Phase::BeforeTool);
    spec.process_mut().expect("a run hook").cwd = Some("sub".into());
    let args = json!({"path": "../../etc/passwd"});
    let inv = fx
        .invoke(spec, before_tool("write_file", "c1", &args))
        .await;
    let Flow::Skip { reason } = &inv.flow else {
        panic!("not refused: {inv:?}");
    };
    assert!(reason.contains("outside the workspace root"), "{reason}");
    assert!(!fx.path("stdin.json").exists(), "the hook ran");
    let outside = fx.root().canonicalize().unwrap();
    let outside = outside.parent().unwrap().join("etc/passwd");
    let records = fx.records();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["decision"], "skip");
    assert_eq!(
        records[0]["path_diagnostics"],
        json!([{"kind": "outside_root", "pointer": "/path", "path": outside}])
    );
    assert!(records[0].get("stdout").is_none(), "no process ran");
    assert!(inv.report.output.is_none());
    assert!(
        inv.diagnostics()
            .iter()
            .any(|d| d.contains("outside the workspace root")),
        "{:?}",
        inv.diagnostics()
    );
}

#[tokio::test]
async fn a_symlinked_parent_is_flagged_in_the_payload_when_allowed() {
    let fx = Fixture::new();
    std::os::unix::fs::symlink("/etc", fx.path("linkdir")).unwrap();
    let spec = keeping_stdin(writer(true), Phase::BeforeTool);
    let args = json!({"path": "linkdir/passwd"});
    let inv = fx
        .invoke(spec, before_tool("write_file", "c1", &args))
        .await;
    assert_eq!(inv.flow, Flow::Continue, "{inv:?}");
    let payload = stdin(&fx);
    assert_eq!(payload["affected_paths"], json!(["/etc/passwd"]));
    let flagged = json!([{"kind": "outside_root", "pointer": "/path", "path": "/etc/passwd"}]);
    assert_eq!(payload["path_diagnostics"], flagged);
    // The envelope type reads it back.
    let typed: hooks_schema::Payload = serde_json::from_value(payload).unwrap();
    assert_eq!(typed.path_diagnostics.len(), 1);
    assert_eq!(fx.records()[0]["path_diagnostics"], flagged);
}

#[tokio::test]
async fn after_the_tool_ran_a_write_outside_is_flagged_not_refused() {
    let fx = Fixture::new();
    let spec = keeping_stdin(writer(false), Phase::AfterTool);
    let args = json!({"path": "/etc/passwd"});
    let (result, outcome) = (json!("ok"), ToolOutcome::Success);
    let event = after_tool("write_file", "c1", &args, &result, &outcome);
    let inv = fx.invoke(spec, event).await;
    assert_eq!(inv.flow, Flow::Continue, "{inv:?}");
    assert_eq!(stdin(&fx)["path_diagnostics"][0]["kind"], "outside_root");
}

#[tokio::test]
async fn an_absolute_path_inside_the_root_is_kept() {
    let fx = Fixture::new();
    let spec = keeping_stdin(writer(false), Phase::BeforeTool);
    let inside = fx.root().canonicalize().unwrap().join("src/new.rs");
    let args = json!({"path": inside});
    let inv = fx
        .invoke(spec, before_tool("write_file", "c1", &args))
        .await;
    assert_eq!(inv.flow, Flow::Continue, "{inv:?}");
    let payload = stdin(&fx);
    assert_eq!(payload["affected_paths"], json!([inside]));
    assert!(payload.get("path_diagnostics").is_none(), "{payload}");
    assert!(fx.records()[0].get("path_diagnostics").is_none());
}

#[tokio::test]
async fn a_session_dir_swapped_for_a_symlink_gets_no_payload_ref_file() {
    let limits = HookLimits {
        payload: PayloadLimits {
            stdin_cap: 1024,
            spill_cap: 1 << 20,
        },
        ..Default::default()
    };
    let fx = Fixture::with_limits(limits);
    let outside = tempfile::tempdir().unwrap();
    std::fs::rename(fx.path("session"), fx.path("session-old")).unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.path("session")).unwrap();
    let args = json!({"content": "x".repeat(4096)});
    let spec = sh("spill", Phase::BeforeTool, "cat > stdin.json");
    let inv = fx
        .invoke(spec, before_tool("write_file", "c1", &args))
        .await;
    assert_eq!(
        inv.report.failure.map(|f| f.kind.as_str()),
        Some("spawn_failed"),
        "{inv:?}"
    );
    assert!(!fx.path("stdin.json").exists(), "the hook ran");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// Invokes a guard for a writing tool (paths at `/path` and `/paths`) on
/// the arguments `args` makes of the canonical workspace root; asserts the call is refused unrun with a reason holding `why`
/// and a record of finding `kind`.
async fn assert_refused(args: impl FnOnce(&Path) -> Value, why: &str, kind: &str) {
    let fx = Fixture::new();
    let args = args(&fx.root().canonicalize().expect("canonical root"));
    std::fs::create_dir(fx.path("sub")).expect("sub");
    let mut settings = writer(false);
    settings.path_pointers.push("/paths".into());
    let spec = keeping_stdin(settings, Phase::BeforeTool);
    let inv = fx
        .invoke(spec, before_tool("write_file", "c1", &args))
        .await;
    let Flow::Skip { reason } = &inv.flow else {
        panic!("not refused: {inv:?}");
    };
    assert!(reason.contains(why), "{reason}");
    assert!(!fx.path("stdin.json").exists(), "the hook ran");
    let records = fx.records();
    assert_eq!(records[0]["decision"], "skip", "{records:?}");
    let kinds: Vec<&Value> = records[0]["path_diagnostics"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|d| &d["kind"])
        .collect();
    assert!(kinds.iter().any(|k| *k == kind), "{kinds:?}");
}

#[tokio::test]
async fn a_write_to_a_path_over_1024_characters_outside_the_root_is_refused() {
    // 1,063 characters, outside the root: once only noted `too_long`.
    let long = format!("/tmp/{}", "x".repeat(1058));
    assert_eq!(long.chars().count(), 1063);
    assert_refused(|_| json!({"path": long}), "longer than 1024", "too_long").await;
}

#[tokio::test]
async fn a_write_whose_escape_is_the_17th_path_is_refused() {
    let mut paths: Vec<String> = (0..16).map(|i| format!("f{i}")).collect();
    paths.push("/etc/passwd".into());
    assert_refused(
        |_| json!({"paths": paths}),
        "more than 16 paths",
        "too_many",
    )
    .await;
}

#[tokio::test]
async fn a_write_to_a_path_with_a_nul_byte_is_refused() {
    // Resolves lexically inside the workspace; a C program opens /etc/passwd.
    let sneaky = |ws: &Path| json!({"path": format!("/etc/passwd\0/../..{}/sub/a", ws.display())});
    assert_refused(sneaky, "NUL byte", "nul_byte").await;
}
