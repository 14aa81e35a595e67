//! Output framing of shell hooks: two JSON documents, a BOM,
//! a trailing log line; and a non-ASCII payload round-tripping byte for byte.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, sh};
use hooks_runtime::__private::payload::{PayloadInput, build_payload};
use hooks_runtime::{Flow, HookContext, ToolOutcome};
use hooks_schema::{FailurePolicy, Phase};
use serde_json::json;

fn before_tool_args() -> serde_json::Value {
    json!({"command": "ls"})
}

#[tokio::test]
async fn two_json_documents_are_invalid_output_with_the_offset() {
    let fx = Fixture::new();
    let mut spec = sh(
        "two",
        Phase::BeforeTool,
        r#"printf '{"decision":"continue"}\n{}\n'"#,
    );
    spec.failure_policy = FailurePolicy::Warn;
    let args = before_tool_args();
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    assert_eq!(inv.flow, Flow::Continue);
    assert_eq!(inv.record.failure_kind, Some("invalid_output"));
    let msg = inv.record.message.as_deref().unwrap();
    // `{"decision":"continue"}` is 23 bytes, then `\n`: the second document starts at byte 24.
    assert!(
        msg.contains("a second JSON document") && msg.contains("at byte 24"),
        "{msg}"
    );
    assert_eq!(fx.records()[0]["failure_kind"], "invalid_output");
}

#[tokio::test]
async fn json_followed_by_a_log_line_is_invalid_output_with_the_offset() {
    let fx = Fixture::new();
    let spec = sh(
        "trailing",
        Phase::BeforeTool,
        r#"printf '{"decision":"block","reason":"no"}\nchecked 3 files\n'"#,
    );
    let args = before_tool_args();
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    // The default policy of before_tool is `block`: the failure fails closed.
    // The object is 34 bytes, then `\n`: the log line starts at byte 35.
    assert_eq!(inv.flow.kind(), hooks_runtime::FlowKind::Skip);
    assert_eq!(inv.record.failure_kind, Some("invalid_output"));
    let msg = inv.record.message.as_deref().unwrap();
    assert!(
        msg.contains("trailing text") && msg.contains("at byte 35"),
        "{msg}"
    );
}

#[tokio::test]
async fn a_bom_and_surrounding_whitespace_are_accepted() {
    let fx = Fixture::new();
    let spec = sh(
        "bom",
        Phase::BeforeTool,
        r#"printf '\357\273\277  \n {"decision":"block","reason":"bom ok"} \n\n'"#,
    );
    let args = before_tool_args();
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    assert_eq!(inv.flow, Flow::skip("bom ok"));
    assert_eq!(inv.record.failure_kind, None);
    assert_eq!(inv.record.decision, Some("skip"));
}

#[tokio::test]
async fn empty_stdout_and_empty_object_are_continue() {
    let fx = Fixture::new();
    let args = before_tool_args();
    let ctx = HookContext::new("run-1");
    for (id, cmd) in [("empty", "true"), ("obj", "echo '{}'")] {
        let inv = fx
            .hook(sh(id, Phase::BeforeTool, cmd))
            .invoke(&ctx, before_tool("bash", "c1", &args))
            .await;
        assert_eq!(inv.flow, Flow::Continue, "{id}");
        assert_eq!(inv.record.status, hooks_runtime::RecordStatus::Ok, "{id}");
    }
}

#[tokio::test]
async fn a_non_ascii_payload_round_trips_byte_for_byte() {
    let fx = Fixture::new();
    let text = "héllo wörld — 日本語 🎉 \u{0}\u{1f} \"quoted\" \\ end";
    let args = json!({"path": "naïve/файл.txt"});
    let result = json!({"content": [{"type": "text", "text": text}]});
    let outcome = ToolOutcome::Success;
    let event = after_tool("read", "c9", &args, &result, &outcome);
    // The hook saves its stdin, then echoes the result back as a rewrite.
    let spec = sh(
        "echo",
        Phase::AfterTool,
        r#"tee stdin.bin | python3 -c 'import json,sys; p=json.load(sys.stdin); sys.stdout.write(json.dumps({"rewrite_result": p["result"]}, ensure_ascii=False))'"#,
    );
    let ctx = HookContext::new("run-ü");
    let inv = fx.hook(spec).invoke(&ctx, event).await;
    assert_eq!(
        inv.flow,
        Flow::RewriteResult(result.clone()),
        "{:?}",
        inv.record
    );

    // What the hook read is exactly the payload the runtime builds, plus "\n".
    let secrets = hooks_runtime::SecretSet::new();
    let root = fx.root().canonicalize().unwrap();
    let input = PayloadInput {
        hook_id: "echo",
        ctx: &hooks_runtime::HookContext::new("run-ü"),
        cwd: &root,
        mode: hooks_schema::PayloadMode::Full,
        protocol: hooks_schema::Protocol::Native,
        tool_paths: None,
        secrets: &secrets,
        session_dir: None,
        root: &root,
        limits: hooks_runtime::PayloadLimits::default(),
    };
    let mut expected = build_payload(&event, &input).unwrap().stdin();
    expected.push(b'\n');
    let got = std::fs::read(fx.path("stdin.bin")).unwrap();
    assert_eq!(got, expected);
    // Non-ASCII text travels as UTF-8, not as \u escapes.
    let got_text = String::from_utf8(got).unwrap();
    assert!(got_text.contains("héllo wörld — 日本語 🎉"), "{got_text}");
    assert!(got_text.contains("naïve/файл.txt"));
    let parsed: hooks_schema::Payload = serde_json::from_str(got_text.trim_end()).unwrap();
    assert_eq!(parsed.result, Some(result));
    assert_eq!(parsed.run_id, "run-ü");
    assert!(parsed.target_ran);
}
