//! The hook layer leaks no file descriptors and leaves no payload-ref files
//! over many invocations (one test in its own binary, so no other test's
//! descriptors are counted).

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{Flow, HookContext, HookLimits, PayloadLimits};
use hooks_schema::Phase;
use serde_json::json;

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

#[tokio::test]
async fn two_hundred_invocations_leave_no_descriptors_or_files() {
    let fx = Fixture::with_limits(HookLimits {
        payload: PayloadLimits {
            stdin_cap: 2048,
            spill_cap: 1 << 20,
        },
        ..Default::default()
    });
    let hook = fx.hook(sh("noop", Phase::BeforeTool, "cat >/dev/null; echo '{}'"));
    let ctx = HookContext::new("run-1");
    let small = json!({"command": "ls"});
    let big = json!({"content": "b".repeat(4096)});
    // Warm up lazily opened descriptors (the runtime's, the records file's).
    hook.invoke(&ctx, before_tool("t", "c", &small)).await;
    let before = open_fds();
    for i in 0..200 {
        let args = if i % 2 == 0 { &small } else { &big };
        let inv = hook.invoke(&ctx, before_tool("t", "c", args)).await;
        assert_eq!(inv.flow, Flow::Continue, "{inv:?}");
    }
    assert_eq!(open_fds(), before);
    let session: Vec<_> = std::fs::read_dir(fx.path("session"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(session, vec![std::ffi::OsString::from("records.jsonl")]);
    assert_eq!(fx.records().len(), 201);
}
