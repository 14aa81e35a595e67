//! Payloads over the stdin cap spill to a payload-ref file.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::__private::payload::{PayloadError, PayloadInput, build_payload};
use hooks_runtime::{Executor, Flow, HookLimits, PayloadLimits, ShellRuntime};
use hooks_schema::Phase;
use serde_json::json;

fn small_limits(spill_cap: usize) -> HookLimits {
    HookLimits {
        payload: PayloadLimits {
            stdin_cap: 4096,
            spill_cap,
        },
        ..Default::default()
    }
}

#[tokio::test]
async fn an_oversized_payload_spills_to_a_0600_file_removed_afterwards() {
    let fx = Fixture::with_limits(small_limits(1 << 20));
    let big = "x".repeat(10_000);
    let args = json!({"content": big, "path": "a.txt"});
    // The hook records the ref's mode, path and content, and its own stdin.
    let spec = sh(
        "spill",
        Phase::BeforeTool,
        r#"cat > stdin.json; stat -c %a "$AGENT_HOOKS_PAYLOAD_REF" > mode.txt; printf %s "$AGENT_HOOKS_PAYLOAD_REF" > ref.txt; cp "$AGENT_HOOKS_PAYLOAD_REF" full.json"#,
    );
    let inv = fx.invoke(spec, before_tool("write", "c1", &args)).await;
    assert_eq!(inv.flow, Flow::Continue, "{inv:?}");
    assert_eq!(
        std::fs::read_to_string(fx.path("mode.txt")).unwrap().trim(),
        "600"
    );
    let ref_path = std::fs::read_to_string(fx.path("ref.txt")).unwrap();
    let session = fx.path("session").canonicalize().unwrap();
    assert!(
        std::path::Path::new(&ref_path).starts_with(&session),
        "{ref_path}"
    );
    assert!(
        !std::path::Path::new(&ref_path).exists(),
        "payload-ref file left behind"
    );

    let stdin: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("stdin.json")).unwrap()).unwrap();
    assert_eq!(stdin["elided"], true);
    assert_eq!(stdin["payload_ref"], ref_path.as_str());
    assert!(stdin.get("args").is_none());
    assert_eq!(stdin["tool_name"], "write");

    let full: hooks_schema::Payload =
        serde_json::from_str(&std::fs::read_to_string(fx.path("full.json")).unwrap()).unwrap();
    assert_eq!(full.args, Some(args));
    assert!(!full.elided);
    assert!(inv.diagnostics().is_empty(), "{:?}", inv.diagnostics());
    // Only the records file is left in the session directory.
    let left: Vec<_> = std::fs::read_dir(&session)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("records.jsonl")]);
}

#[tokio::test]
async fn a_payload_over_the_spill_cap_is_elided_without_a_ref() {
    let fx = Fixture::with_limits(small_limits(8192));
    let args = json!({"content": "y".repeat(10_000)});
    let spec = sh(
        "nospill",
        Phase::BeforeTool,
        r#"cat > stdin.json; printf %s "${AGENT_HOOKS_PAYLOAD_REF-unset}" > ref.txt"#,
    );
    let inv = fx.invoke(spec, before_tool("write", "c1", &args)).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(
        std::fs::read_to_string(fx.path("ref.txt")).unwrap(),
        "unset"
    );
    let stdin: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("stdin.json")).unwrap()).unwrap();
    assert_eq!(stdin["elided"], true);
    assert!(stdin.get("payload_ref").is_none());
    assert_eq!(inv.diagnostics().len(), 1);
    assert!(
        inv.diagnostics()[0].contains("over the spill cap"),
        "{:?}",
        inv.diagnostics()
    );
}

#[test]
fn a_session_directory_symlinked_out_of_the_root_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join("session")).unwrap();
    let runtime = ShellRuntime::new(Executor::new(root.path()).unwrap());
    let err = runtime
        .with_session_dir(root.path().join("session"))
        .unwrap_err();
    assert!(
        matches!(err, PayloadError::SessionDirOutsideRoot { .. }),
        "{err}"
    );
    let msg = err.to_string();
    assert!(msg.starts_with("session directory `"), "{msg}");
    assert!(msg.contains("outside the workspace root"), "{msg}");

    // The payload builder refuses it too, when it comes to spilling.
    let secrets = hooks_runtime::SecretSet::new();
    let root_c = root.path().canonicalize().unwrap();
    let args = json!({"content": "z".repeat(10_000)});
    let input = PayloadInput {
        hook_id: "h",
        ctx: &hooks_runtime::HookContext::new("r"),
        cwd: &root_c,
        mode: hooks_schema::PayloadMode::Full,
        protocol: hooks_schema::Protocol::Native,
        tool_paths: None,
        secrets: &secrets,
        session_dir: Some(&root.path().join("session")),
        root: &root_c,
        limits: PayloadLimits {
            stdin_cap: 1024,
            spill_cap: 1 << 20,
        },
    };
    let event = before_tool("t", "c", &args);
    let err = build_payload(&event, &input).unwrap_err();
    assert!(
        matches!(err, PayloadError::SessionDirOutsideRoot { .. }),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written outside"
    );
}

/// A session directory outside the workspace root is accepted when it is
/// private to the user (`SessionDir`: mode 0700, not a symlink): the
/// payload-ref file goes there, so nothing appears in the workspace. A
/// directory others can read is refused.
#[test]
fn a_private_session_directory_outside_the_root_gets_the_payload_ref_file() {
    let root = tempfile::tempdir().unwrap();
    let parent = tempfile::tempdir().unwrap();
    let session = hooks_runtime::SessionDir::create_in(parent.path()).unwrap();
    let runtime = ShellRuntime::new(Executor::new(root.path()).unwrap());
    runtime.with_session_dir(session.path()).unwrap();
    let secrets = hooks_runtime::SecretSet::new();
    let root_c = root.path().canonicalize().unwrap();
    let ctx = hooks_runtime::HookContext::new("r");
    let args = json!({"content": "z".repeat(10_000)});
    let input = PayloadInput {
        hook_id: "h",
        ctx: &ctx,
        cwd: &root_c,
        mode: hooks_schema::PayloadMode::Full,
        protocol: hooks_schema::Protocol::Native,
        tool_paths: None,
        secrets: &secrets,
        session_dir: Some(session.path()),
        root: &root_c,
        limits: PayloadLimits {
            stdin_cap: 1024,
            spill_cap: 1 << 20,
        },
    };
    let event = before_tool("t", "c", &args);
    let built = build_payload(&event, &input).unwrap();
    let spill = built.spill.as_ref().expect("spilled");
    assert!(
        spill
            .path()
            .starts_with(session.path().canonicalize().unwrap())
    );
    assert!(spill.path().exists());
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);

    use std::os::unix::fs::PermissionsExt;
    let shared = parent.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runtime = ShellRuntime::new(Executor::new(root.path()).unwrap());
    let err = runtime.with_session_dir(&shared).unwrap_err();
    assert!(
        matches!(err, PayloadError::SessionDirNotPrivate { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("not private"), "{err}");
}

#[tokio::test]
async fn affected_paths_reach_the_payload() {
    let fx = Fixture::new();
    std::os::unix::fs::symlink("/etc/hostname", fx.path("link.txt")).unwrap();
    let args = json!({"file_path": "src/lib.rs", "also": ["link.txt", "/etc/passwd"]});
    let mut settings = hooks_runtime::ToolPathSettings {
        path_pointers: vec!["/file_path".into(), "/also".into()],
        allow_absolute: false,
        writes: false,
    };
    let mut spec = sh("paths", Phase::BeforeTool, "cat > stdin.json");
    spec.tool_paths = Some(settings.clone());
    let inv = fx
        .invoke(spec.clone(), before_tool("edit", "c1", &args))
        .await;
    assert_eq!(inv.flow, Flow::Continue);
    let stdin: hooks_schema::Payload =
        serde_json::from_str(&std::fs::read_to_string(fx.path("stdin.json")).unwrap()).unwrap();
    let root = fx.root().canonicalize().unwrap();
    // The symlink is resolved to its target; both outside paths are listed
    // and flagged.
    assert_eq!(
        stdin.affected_paths,
        vec![
            root.join("src/lib.rs").to_string_lossy().into_owned(),
            "/etc/hostname".to_owned(),
            "/etc/passwd".to_owned()
        ]
    );
    let flagged: Vec<_> = stdin
        .path_diagnostics
        .iter()
        .map(|d| d.path.as_str())
        .collect();
    assert_eq!(flagged, ["/etc/hostname", "/etc/passwd"]);
    assert_eq!(inv.diagnostics().len(), 2, "{:?}", inv.diagnostics());
    assert!(
        inv.diagnostics()
            .iter()
            .all(|d| d.contains("outside the workspace root"))
    );
    // A tool that writes them is refused before the hook runs.
    std::fs::remove_file(fx.path("stdin.json")).unwrap();
    settings.writes = true;
    spec.tool_paths = Some(settings);
    let inv = fx.invoke(spec, before_tool("edit", "c1", &args)).await;
    assert!(matches!(inv.flow, Flow::Skip { .. }), "{inv:?}");
    assert!(!fx.path("stdin.json").exists());
}

#[tokio::test]
async fn a_cleanup_failure_becomes_a_diagnostic() {
    let fx = Fixture::with_limits(small_limits(1 << 20));
    let args = json!({"content": "w".repeat(10_000)});
    // The hook deletes the ref itself, so the runtime's removal fails.
    let spec = sh(
        "eager",
        Phase::BeforeTool,
        r#"rm -f "$AGENT_HOOKS_PAYLOAD_REF""#,
    );
    let inv = fx.invoke(spec, before_tool("write", "c1", &args)).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.diagnostics().len(), 1, "{:?}", inv.diagnostics());
    assert!(
        inv.diagnostics()[0].starts_with("cannot remove the payload-ref file `")
            && inv.diagnostics()[0].contains("of hook `eager`"),
        "{:?}",
        inv.diagnostics()
    );
}

/// Every protocol's elided stdin copy leaves its large fields in the file
/// (Copilot's `toolArgs` is not among the native names): stdin stays under
/// the cap.
#[tokio::test]
async fn a_copilot_payload_over_the_cap_keeps_stdin_small() {
    let fx = Fixture::with_limits(small_limits(1 << 20));
    let args = json!({"command": "y".repeat(10_000)});
    let mut spec = sh(
        "copilot-spill",
        Phase::BeforeTool,
        r#"cat > stdin.json; cp "$AGENT_HOOKS_PAYLOAD_REF" full.json"#,
    );
    spec.protocol = hooks_schema::Protocol::Copilot;
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    assert!(inv.diagnostics().is_empty(), "{:?}", inv.diagnostics());
    let stdin = std::fs::read_to_string(fx.path("stdin.json")).unwrap();
    assert!(stdin.len() <= 4096, "stdin is {} bytes", stdin.len());
    let stdin: serde_json::Value = serde_json::from_str(&stdin).unwrap();
    assert_eq!(stdin["payload_elided"], true);
    assert!(stdin.get("toolArgs").is_none(), "{stdin}");
    assert!(stdin.get("payload_ref").is_some(), "{stdin}");
    let full: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("full.json")).unwrap()).unwrap();
    assert!(
        full["toolArgs"].to_string().contains(&"y".repeat(10_000)),
        "{full}"
    );
}
