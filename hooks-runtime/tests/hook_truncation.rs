//! Every record and report of a shell hook says how much the process wrote
//! to stdout and stderr, and whether either was cut at its cap.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, before_tool, sh};
use hooks_runtime::{Flow, HookLimits, OutputSizes, StreamSize};
use hooks_schema::Phase;
use serde_json::json;

const FIFTY_MB: u64 = 50 * 1024 * 1024;

#[tokio::test]
async fn a_50_mb_stderr_flood_that_exits_0_is_recorded_as_truncated() {
    let fx = Fixture::new();
    let cap = HookLimits::default().stderr_cap as u64;
    let spec = sh(
        "flood",
        Phase::BeforeTool,
        "head -c 52428800 /dev/zero >&2; printf '{}'",
    );
    let args = json!({});
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    assert_eq!(inv.flow, Flow::Continue, "{inv:?}");
    assert!(FIFTY_MB > cap);
    let want = OutputSizes {
        stdout: StreamSize {
            bytes: 2,
            truncated: false,
        },
        stderr: StreamSize {
            bytes: FIFTY_MB,
            truncated: true,
        },
    };
    assert_eq!(inv.report.output, Some(want));
    assert!(inv.report.output.is_some_and(|o| o.truncated()));
    let records = fx.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["status"], "ok");
    assert_eq!(
        records[0]["stderr"],
        json!({"bytes": FIFTY_MB, "truncated": true})
    );
    assert_eq!(
        records[0]["stdout"],
        json!({"bytes": 2, "truncated": false})
    );
}

#[tokio::test]
async fn a_failed_hook_records_its_output_sizes_too() {
    let limits = HookLimits {
        stdout_cap: 16,
        ..HookLimits::default()
    };
    let fx = Fixture::with_limits(limits);
    let spec = sh("loud", Phase::BeforeTool, "head -c 1000 /dev/zero; exit 0");
    let args = json!({});
    let inv = fx.invoke(spec, before_tool("bash", "c1", &args)).await;
    let record = &fx.records()[0];
    assert_eq!(record["status"], "failed", "{record}");
    assert_eq!(record["stdout"], json!({"bytes": 1000, "truncated": true}));
    assert_eq!(record["stderr"], json!({"bytes": 0, "truncated": false}));
    assert_eq!(
        inv.report.output.map(|o| o.stdout),
        Some(StreamSize {
            bytes: 1000,
            truncated: true
        })
    );
}
