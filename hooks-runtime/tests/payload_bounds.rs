//! The payload builder stays bounded on hostile events: 10,000-deep
//! nesting, multi-megabyte strings and invalid UTF-8 (lossily decoded
//! text, binary blobs). Bounded means: what goes to stdin is within the
//! stdin cap, a payload-ref file within the spill cap, and building does
//! not blow a normal 2 MiB thread stack, in both modes and both protocols.

use std::path::PathBuf;

use base64::Engine as _;
use hooks_runtime::__private::payload::{BuiltPayload, PayloadInput, build_payload};
use hooks_runtime::{HookContext, PayloadLimits, SecretSet, StepEvent, ToolOutcome};
use hooks_schema::{PayloadMode, Protocol};
use serde_json::{Value, json};

/// The stack of a thread spawned with default settings.
const NORMAL_STACK: usize = 2 << 20;
const DEPTH: usize = 10_000;

/// Values nested `depth` levels deep, alternating objects and arrays, built
/// without recursion.
fn deep(depth: usize) -> Value {
    let mut v = json!("leaf");
    for level in 0..depth {
        v = if level % 2 == 0 {
            Value::Object(std::iter::once(("a".to_owned(), v)).collect())
        } else {
            Value::Array(vec![v])
        };
    }
    v
}

/// Takes `v` apart without recursion, so dropping a deep value in the test
/// cannot be what overflows the stack.
fn dismantle(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

struct Workspace {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Workspace {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("root");
        std::fs::create_dir(root.join("session")).expect("session dir");
        Workspace { _dir: dir, root }
    }
}

/// Builds the payload of an `after_tool` event with `args` and `result` in
/// every mode and protocol, with `limits`, and checks the caps; returns the
/// built payloads (native full, native redacted, claude full, claude
/// redacted).
fn build_all(ws: &Workspace, args: &Value, result: &Value, limits: PayloadLimits) -> Vec<Built> {
    let secrets = SecretSet::new();
    let ctx = HookContext::new("run-1");
    let outcome = ToolOutcome::Success;
    let event = StepEvent::AfterTool {
        tool_name: "t",
        call_id: "c",
        args,
        original_args: args,
        result,
        outcome: &outcome,
        duration_ms: None,
    };
    let mut out = Vec::new();
    for protocol in [Protocol::Native, Protocol::Claude] {
        for mode in [PayloadMode::Full, PayloadMode::Redacted] {
            let session = ws.root.join("session");
            let input = PayloadInput {
                hook_id: "h",
                ctx: &ctx,
                cwd: &ws.root,
                mode,
                protocol,
                tool_paths: None,
                secrets: &secrets,
                session_dir: Some(&session),
                root: &ws.root,
                limits,
            };
            let built = build_payload(&event, &input).expect("the payload builds");
            out.push(Built::check(
                built,
                limits,
                &format!("{protocol:?}/{mode:?}"),
            ));
        }
    }
    out
}

/// What a built payload amounted to.
#[derive(Debug)]
struct Built {
    stdin: Value,
    stdin_len: usize,
    spilled: Option<usize>,
    diagnostics: Vec<String>,
}

impl Built {
    fn check(built: BuiltPayload, limits: PayloadLimits, what: &str) -> Built {
        assert!(
            built.stdin().len() <= limits.stdin_cap,
            "{what}: stdin payload of {} bytes over the cap of {}",
            built.stdin().len(),
            limits.stdin_cap
        );
        let spilled = built.spill.as_ref().map(|s| {
            let len = std::fs::metadata(s.path()).expect("spill file").len();
            let len = usize::try_from(len).expect("size");
            assert!(
                len <= limits.spill_cap,
                "{what}: payload-ref file of {len} bytes over the cap of {}",
                limits.spill_cap
            );
            len
        });
        // Whatever went in, the hook reads well-formed UTF-8 JSON.
        let stdin = serde_json::from_slice(&built.stdin()).expect("stdin is one JSON document");
        Built {
            stdin_len: built.stdin().len(),
            stdin,
            spilled,
            diagnostics: built.diagnostics,
        }
    }
}

/// Runs `f` on a thread with a normal 2 MiB stack: a recursion that needs
/// more aborts the whole test binary with a stack overflow.
fn on_normal_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(NORMAL_STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the payload builder did not panic")
}

/// Builds the payloads of an event whose args and result are `depth`
/// levels deep, on a normal stack, and checks the caps.
fn deep_nesting_builds_within_the_caps(depth: usize) {
    on_normal_stack(move || {
        let ws = Workspace::new();
        let limits = PayloadLimits {
            stdin_cap: 4096,
            spill_cap: 1 << 20,
        };
        let args = deep(depth);
        let result = deep(depth);
        let started = std::time::Instant::now();
        let built = build_all(&ws, &args, &result, limits);
        eprintln!(
            "{depth}-deep args and result, 4 payloads: {:?}",
            started.elapsed()
        );
        for b in &built {
            assert!(b.stdin_len < 4096);
            // Deeper than the payload keeps (100 levels, so that hooks can
            // parse it): elided, with a diagnostic; else kept.
            let elided = b
                .diagnostics
                .iter()
                .any(|d| d.contains("nests deeper than 100 levels"));
            assert_eq!(elided, depth > 100, "{b:?}");
        }
        dismantle(args);
        dismantle(result);
    });
}

#[test]
fn a_thousand_deep_nesting_builds_on_a_normal_stack_within_the_caps() {
    deep_nesting_builds_within_the_caps(1_000);
}

#[test]
fn nesting_the_payload_keeps_is_kept_and_parses() {
    deep_nesting_builds_within_the_caps(90);
}

/// The payload builder clones, walks and serializes values recursively; a
/// value deeper than it keeps (512 levels) is elided instead, so 10,000-deep
/// args (which would overflow a 2 MiB stack: in a debug build a
/// `serde_json::Value` clone does at 2,000 levels) never abort the agent.
#[test]
fn ten_thousand_deep_nesting_builds_on_a_normal_stack_within_the_caps() {
    deep_nesting_builds_within_the_caps(DEPTH);
}

#[test]
fn multi_megabyte_strings_spill_within_the_spill_cap_or_are_elided() {
    on_normal_stack(|| {
        let ws = Workspace::new();
        let limits = PayloadLimits {
            stdin_cap: 1 << 20,
            spill_cap: 3 << 20,
        };
        let args = json!({"content": "x".repeat(2 << 20)});
        let result = json!({"output": "ok"});
        for b in build_all(&ws, &args, &result, limits) {
            assert!(b.spilled.is_some_and(|n| n > 2 << 20), "{b:?}");
            assert!(b.stdin.get("args").is_none() && b.stdin.get("tool_input").is_none());
        }
        // Over the spill cap as well: elided, no ref.
        let args = json!({"content": "y".repeat(3 << 20), "more": "z".repeat(1 << 20)});
        for b in build_all(&ws, &args, &result, limits) {
            assert_eq!(b.spilled, None, "{b:?}");
            assert!(b.stdin.get("payload_ref").is_none(), "{b:?}");
            assert!(b.stdin_len < 4096, "{b:?}");
        }
        // Nothing left behind in the session directory.
        let left = std::fs::read_dir(ws.root.join("session"))
            .expect("session")
            .count();
        assert_eq!(left, 0);
    });
}

#[test]
fn invalid_utf8_in_tool_output_and_binary_blobs_stays_valid_and_bounded() {
    on_normal_stack(|| {
        let ws = Workspace::new();
        let limits = PayloadLimits {
            stdin_cap: 1 << 20,
            spill_cap: 16 << 20,
        };
        // Bytes that are not UTF-8: lone continuation bytes, overlong
        // forms, surrogate encodings, a truncated sequence.
        let raw: Vec<u8> = (0..(2 << 20))
            .map(|i| [0xff, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xe2, 0x82][i % 8])
            .collect();
        let lossy = String::from_utf8_lossy(&raw[..4096]).into_owned();
        let blob = base64::engine::general_purpose::STANDARD.encode(&raw);
        let args = json!({"path": lossy});
        let result = json!({
            "stdout": lossy,
            "image": {"type": "image", "data": blob},
            "url": format!("data:application/octet-stream;base64,{blob}"),
            "broken": {"type": "bytes", "data": "%%% not base64 \u{fffd}"},
        });
        for b in build_all(&ws, &args, &result, limits) {
            // The blobs (2 MiB each, decoded) are metadata, not payload: nothing spills.
            assert_eq!(b.spilled, None, "{b:?}");
            assert!(b.stdin_len < 64 * 1024, "{} bytes", b.stdin_len);
        }
        // The native envelope lists the decoded lengths.
        let native = &build_all(&ws, &args, &result, limits)[0].stdin;
        let lens: Vec<u64> = native["binary"]
            .as_array()
            .expect("binary list")
            .iter()
            .filter_map(|m| m["len_bytes"].as_u64())
            .collect();
        assert!(
            lens.iter().filter(|&&n| n == 2 << 20).count() == 2,
            "{lens:?}"
        );
    });
}
