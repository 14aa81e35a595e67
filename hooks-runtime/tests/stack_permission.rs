//! Permission answers across hooks (deny > ask > allow), the
//! `permission_request` driver method and asks resolved by an approver
//! (`Decided::resolve`), with none an ask is refused (fail closed).

#[path = "common/stack.rs"]
mod stack;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use hooks_runtime::{
    Approval, ApprovalRequest, Diagnostic, Flow, FnHook, HookContext, HookStack,
    PermissionDecision, ToolDecision,
};
use serde_json::{Value, json};
use stack::call;

/// A stack whose hooks answer `flows`, in order.
fn answering(flows: &[Flow]) -> HookStack {
    let mut stack = HookStack::new();
    for (i, flow) in flows.iter().enumerate() {
        let flow = flow.clone();
        stack = stack.with(format!("h{i}"), FnHook::new(move |_, _| flow.clone()));
    }
    stack
}

async fn permission(flows: &[Flow]) -> PermissionDecision<'static> {
    static ARGS: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    let args = ARGS.get_or_init(|| json!({"command": "rm -rf build"}));
    let ctx = HookContext::new("run");
    answering(flows)
        .permission_request(&ctx, call(args), &Value::Null)
        .await
        .decision
}

#[tokio::test]
async fn deny_beats_ask_beats_allow_whatever_the_order() {
    let ask = Flow::ask("needs a second look");
    let deny = Flow::skip("never");
    let orders: [(&[Flow], &str); 7] = [
        (&[Flow::Allow, ask.clone()], "ask"),
        (&[ask.clone(), Flow::Allow], "ask"),
        (&[Flow::Allow, deny.clone()], "deny"),
        (&[ask.clone(), deny.clone()], "deny"),
        (&[deny.clone(), ask.clone()], "deny"),
        (&[Flow::Allow, Flow::Continue], "allow"),
        (&[Flow::Continue], "ask"),
    ];
    for (flows, expected) in orders {
        let decision = permission(flows).await;
        assert_eq!(decision.label(), expected, "{flows:?}");
    }
    // The first of two asks gives the reason; no hook deciding is an ask
    // without one (the agent's own approval flow).
    let two = permission(&[Flow::ask("first"), Flow::ask("second")]).await;
    assert!(matches!(two, PermissionDecision::Ask { reason: Some(r), .. } if r == "first"));
    let none = permission(&[]).await;
    assert!(matches!(none, PermissionDecision::Ask { reason: None, .. }));
}

#[tokio::test]
async fn a_rewrite_before_an_allow_is_the_input_that_runs() {
    let args = json!({"command": "npm run lint"});
    let stack = HookStack::new()
        .with(
            "narrow",
            FnHook::new(|_, _| Flow::RewriteArgs(json!({"command": "npm run lint -- --quiet"}))),
        )
        .with("grant", FnHook::new(|_, _| Flow::Allow));
    let ctx = HookContext::new("run");
    let decided = stack
        .permission_request(&ctx, call(&args), &Value::Null)
        .await;
    assert_eq!(
        decided.decision,
        PermissionDecision::Allow {
            args: Cow::Owned(json!({"command": "npm run lint -- --quiet"}))
        }
    );
}

#[tokio::test]
async fn before_tool_asks_and_a_later_deny_wins() {
    let args = json!({"command": "git push"});
    let ctx = HookContext::new("run");
    let stack = answering(&[Flow::ask("push to a shared remote?")]);
    let decided = stack.before_tool(&ctx, call(&args)).await;
    assert!(matches!(
        &decided.decision,
        ToolDecision::Ask { reason, .. } if reason == "push to a shared remote?"
    ));
    let stack = answering(&[Flow::ask("push?"), Flow::skip("pushes are off today")]);
    let decided = stack.before_tool(&ctx, call(&args)).await;
    assert_eq!(decided.decision.label(), "skip");
}

#[tokio::test]
async fn an_approver_decides_and_sees_the_call_and_the_reason() {
    let args = json!({"command": "git push"});
    let ctx = HookContext::new("run");
    let stack = answering(&[Flow::ask("push?")]);
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    let approver = move |req: &ApprovalRequest<'_>| {
        log.lock()
            .expect("log")
            .push(format!("{} {} {:?}", req.tool_name, req.args, req.reason));
        if req.args["command"] == "git push" {
            Approval::Allow
        } else {
            Approval::Deny {
                reason: "no".into(),
            }
        }
    };
    let decided = stack
        .before_tool(&ctx, call(&args))
        .await
        .resolve(&ctx, call(&args), Some(&approver))
        .await;
    assert_eq!(decided.decision.label(), "run");
    assert_eq!(
        *seen.lock().expect("log"),
        [r#"bash {"command":"git push"} Some("push?")"#]
    );
    let other = json!({"command": "git push --force"});
    let decided = stack
        .before_tool(&ctx, call(&other))
        .await
        .resolve(&ctx, call(&other), Some(&approver))
        .await;
    assert!(matches!(&decided.decision, ToolDecision::Skip { reason, .. } if reason == "no"));
}

#[tokio::test]
async fn without_an_approver_an_ask_is_refused_with_the_hooks_reason() {
    let args = json!({"command": "git push"});
    let ctx = HookContext::new("run");
    let stack = answering(&[Flow::ask("push to a shared remote?")]);
    let decided = stack
        .before_tool(&ctx, call(&args))
        .await
        .resolve(&ctx, call(&args), None)
        .await;
    let ToolDecision::Skip { reason, .. } = &decided.decision else {
        panic!("refused, got {:?}", decided.decision);
    };
    assert!(reason.starts_with("push to a shared remote?"), "{reason}");
    assert!(reason.contains("no approver"), "{reason}");
    assert!(decided.diagnostics.iter().any(|d| matches!(
        d,
        Diagnostic::NoApprover { tool, reason: Some(r) } if tool == "bash" && r == "push to a shared remote?"
    )));
    // A permission request no hook decided is denied the same way.
    let decided = answering(&[])
        .permission_request(&ctx, call(&args), &Value::Null)
        .await
        .resolve(&ctx, call(&args), None)
        .await;
    assert_eq!(decided.decision.label(), "deny");
    assert!(
        decided
            .diagnostics
            .iter()
            .any(|d| matches!(d, Diagnostic::NoApprover { reason: None, .. }))
    );
}

#[tokio::test]
async fn a_refused_ask_is_in_the_report_of_the_hook_that_asked() {
    let args = json!({"command": "git push"});
    let ctx = HookContext::new("run");
    let stack = HookStack::new()
        .with("quiet", FnHook::new(|_, _| Flow::Continue))
        .with("asker", FnHook::new(|_, _| Flow::ask("push?")));
    let decided = stack
        .before_tool(&ctx, call(&args))
        .await
        .resolve(&ctx, call(&args), None)
        .await;
    let asker = decided
        .reports
        .iter()
        .find(|r| r.hook == "asker")
        .expect("the asking hook's report");
    assert!(
        asker
            .diagnostics
            .iter()
            .any(|d| matches!(d, Diagnostic::NoApprover { .. })),
        "{asker:?}"
    );
}
