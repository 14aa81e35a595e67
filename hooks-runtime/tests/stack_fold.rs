//! How `HookStack` folds flows per event (docs/config.md's *How several hooks
//! combine*) and what the driver methods return; flows an event cannot
//! honour and stacks inside stacks are in `stack_nesting.rs`.

#[path = "common/stack.rs"]
mod stack;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use hooks_runtime::{
    AfterToolDecision, AgentHook, Change, ContextItem, Flow, FlowKind, FnHook, HookContext,
    HookFuture, HookStack, InvalidCallDecision, Observed, PromptDecision, StepEvent, StepEventKind,
    StopDecision, ToolDecision, ToolFailure, ToolOutcome,
};
use hooks_schema::OutcomeKind;
use serde_json::json;
use stack::{args_tagged, call, prov, result_tagged};

/// Records, per hook, what it saw.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A hook named `name` that records what it sees (`args`, `result` or
/// `prompt`, rendered) and answers `answer(event)`.
fn recording<F>(seen: &Seen, name: &'static str, answer: F) -> impl AgentHook + use<F>
where
    F: Fn(StepEvent<'_>) -> Flow + Send + Sync + 'static,
{
    let seen = Arc::clone(seen);
    FnHook::new(move |_, event| {
        let view = match event {
            StepEvent::BeforeTool { args, .. } => args.to_string(),
            StepEvent::AfterTool { result, .. } => result.to_string(),
            StepEvent::UserPrompt { prompt } => prompt.to_owned(),
            other => other.kind().to_string(),
        };
        seen.lock().expect("seen").push((name.to_owned(), view));
        answer(event)
    })
}

fn names(seen: &Seen) -> Vec<String> {
    seen.lock()
        .expect("seen")
        .iter()
        .map(|(n, _)| n.clone())
        .collect()
}

fn views(seen: &Seen) -> Vec<String> {
    seen.lock()
        .expect("seen")
        .iter()
        .map(|(_, v)| v.clone())
        .collect()
}

#[tokio::test]
async fn before_tool_chains_rewrites_in_declared_order() {
    let seen = Seen::default();
    let stack = HookStack::new()
        .with("one", recording(&seen, "one", |e| args_tagged(e, "one")))
        .with("observer", recording(&seen, "observer", |_| Flow::Continue))
        .with("two", recording(&seen, "two", |e| args_tagged(e, "two")));
    let args = json!({"trail": []});
    let ctx = HookContext::new("run");
    let decided = stack.before_tool(&ctx, call(&args)).await;
    assert_eq!(
        views(&seen),
        [
            r#"{"trail":[]}"#,
            r#"{"trail":["one"]}"#,
            r#"{"trail":["one"]}"#
        ],
        "hook N sees the args rewritten by hooks 1..N-1"
    );
    assert_eq!(
        decided.decision,
        ToolDecision::Run {
            args: Cow::Owned(json!({"trail": ["one", "two"]}))
        }
    );
    assert_eq!(
        decided.provenance.as_slice(),
        [
            prov("one", Change::Rewrote(FlowKind::RewriteArgs)),
            prov("two", Change::Rewrote(FlowKind::RewriteArgs)),
        ]
    );
    assert!(decided.diagnostics.is_empty());
}

#[tokio::test]
async fn skip_and_terminate_stop_a_chain_and_keep_the_rewrites_before_them() {
    for (stopper, stop) in [
        ("skipper", Flow::skip("not in this repo")),
        ("terminator", Flow::terminate("policy violation")),
    ] {
        let seen = Seen::default();
        let stop_flow = stop.clone();
        let stack = HookStack::new()
            .with("one", recording(&seen, "one", |e| args_tagged(e, "one")))
            .with(
                stopper,
                recording(&seen, stopper, move |_| stop_flow.clone()),
            )
            .with(
                "never",
                recording(&seen, "never", |_| Flow::skip("unreachable")),
            );
        let args = json!({"trail": []});
        let ctx = HookContext::new("run");
        let outcome = stack
            .fold(
                &ctx,
                StepEvent::BeforeTool {
                    tool_name: "bash",
                    call_id: "c",
                    args: &args,
                },
            )
            .await;
        assert_eq!(names(&seen), ["one", stopper], "later hooks are not called");
        assert_eq!(outcome.decision, Some(stop.clone()));
        assert_eq!(
            outcome.args,
            Some(json!({"trail": ["one"]})),
            "rewrite kept"
        );
        assert_eq!(
            outcome.provenance.as_slice(),
            [
                prov("one", Change::Rewrote(FlowKind::RewriteArgs)),
                prov(stopper, Change::Decided(stop.kind())),
            ]
        );
        let decided = stack.before_tool(&ctx, call(&args)).await;
        match stop {
            Flow::Skip { reason } => assert_eq!(
                decided.decision,
                ToolDecision::Skip {
                    reason,
                    args: Cow::Owned(json!({"trail": ["one"]}))
                }
            ),
            Flow::Terminate { reason } => {
                assert_eq!(decided.decision, ToolDecision::Terminate { reason })
            }
            _ => unreachable!(),
        }
    }
}

#[tokio::test]
async fn after_tool_chains_results_accumulates_context_and_sees_both_args() {
    let seen_args = Arc::new(Mutex::new(Vec::new()));
    let seen_args2 = Arc::clone(&seen_args);
    let stack = HookStack::new()
        .with(
            "inspect",
            FnHook::new(move |_, event| {
                if let StepEvent::AfterTool {
                    args,
                    original_args,
                    outcome,
                    ..
                } = event
                {
                    seen_args2.lock().expect("lock").push((
                        original_args.clone(),
                        args.clone(),
                        outcome.kind(),
                    ));
                }
                Flow::inject("first note")
            }),
        )
        .with(
            "redact",
            FnHook::new(|_, event| result_tagged(event, "redacted")),
        )
        .with(
            "note",
            FnHook::new(|_, event| match event {
                StepEvent::AfterTool { result, .. } => Flow::InjectContext(smallvec::smallvec![
                    ContextItem::user(format!("saw {result}")),
                    ContextItem::user("second note"),
                ]),
                _ => Flow::Continue,
            }),
        )
        .with(
            "summarize",
            FnHook::new(|_, event| result_tagged(event, "summarized")),
        );
    let original = json!({"command": "cat .env"});
    let effective = json!({"command": "cat .env.example"});
    let result = json!({"trail": []});
    let outcome = ToolOutcome::Failed {
        failure: ToolFailure::NotFound,
        message: Some("no such file".into()),
    };
    let ctx = HookContext::new("run");
    let decided = stack
        .after_tool(&ctx, call(&effective), &original, &result, &outcome)
        .await;
    assert_eq!(
        *seen_args.lock().expect("lock"),
        [(original.clone(), effective.clone(), OutcomeKind::NotFound)],
        "after_tool sees the original and the effective args, and the outcome kind"
    );
    assert_eq!(
        decided.decision,
        AfterToolDecision {
            result: Cow::Owned(json!({"trail": ["redacted", "summarized"]})),
            terminate: None,
        }
    );
    assert_eq!(
        decided.context.as_slice(),
        [
            ContextItem::user("first note"),
            ContextItem::user(r#"saw {"trail":["redacted"]}"#),
            ContextItem::user("second note"),
        ]
    );
    assert_eq!(
        decided.provenance.as_slice(),
        [
            prov("inspect", Change::InjectedContext { items: 1 }),
            prov("redact", Change::Rewrote(FlowKind::RewriteResult)),
            prov("note", Change::InjectedContext { items: 2 }),
            prov("summarize", Change::Rewrote(FlowKind::RewriteResult)),
        ]
    );
}

#[tokio::test]
async fn after_tool_terminate_is_terminal() {
    let seen = Seen::default();
    let stack = HookStack::new()
        .with("note", recording(&seen, "note", |_| Flow::inject("kept")))
        .with(
            "stop",
            recording(&seen, "stop", |_| Flow::terminate("too many failures")),
        )
        .with(
            "never",
            recording(&seen, "never", |_| Flow::inject("unreachable")),
        );
    let args = json!({});
    let result = json!("out");
    let ctx = HookContext::new("run");
    let decided = stack
        .after_tool(&ctx, call(&args), &args, &result, &ToolOutcome::Success)
        .await;
    assert_eq!(names(&seen), ["note", "stop"]);
    assert_eq!(
        decided.decision,
        AfterToolDecision {
            result: Cow::Borrowed(&result),
            terminate: Some("too many failures".into()),
        }
    );
    assert_eq!(decided.context.as_slice(), [ContextItem::user("kept")]);
}

#[tokio::test]
async fn user_prompt_chains_rewrites_and_can_be_skipped() {
    let seen = Seen::default();
    let stack = HookStack::new()
        .with(
            "trim",
            recording(&seen, "trim", |e| match e {
                StepEvent::UserPrompt { prompt } => {
                    Flow::RewritePrompt(prompt.trim().to_owned().into())
                }
                _ => Flow::Continue,
            }),
        )
        .with(
            "tag",
            recording(&seen, "tag", |e| match e {
                StepEvent::UserPrompt { prompt } => {
                    Flow::RewritePrompt(format!("[ticket 7] {prompt}").into())
                }
                _ => Flow::Continue,
            }),
        );
    let ctx = HookContext::new("run");
    let decided = stack.user_prompt(&ctx, "  fix the build  ").await;
    assert_eq!(views(&seen), ["  fix the build  ", "fix the build"]);
    assert_eq!(
        decided.decision,
        PromptDecision::Send {
            prompt: Cow::Owned("[ticket 7] fix the build".into())
        }
    );
    let untouched = HookStack::new().with("noop", FnHook::new(|_, _| Flow::Continue));
    let decided = untouched.user_prompt(&ctx, "hello").await;
    assert_eq!(
        decided.decision,
        PromptDecision::Send {
            prompt: Cow::Borrowed("hello")
        }
    );
    let skipping = HookStack::new()
        .with(
            "tag",
            FnHook::new(|_, _| Flow::RewritePrompt("changed".into())),
        )
        .with(
            "gate",
            FnHook::new(|_, _| Flow::skip("prompts with secrets are refused")),
        );
    let outcome = skipping
        .fold(&ctx, StepEvent::UserPrompt { prompt: "sk-123" })
        .await;
    assert_eq!(outcome.prompt.as_deref(), Some("changed"), "rewrite kept");
    let decided = skipping.user_prompt(&ctx, "sk-123").await;
    assert_eq!(
        decided.decision,
        PromptDecision::Skip {
            reason: "prompts with secrets are refused".into()
        }
    );
}

#[tokio::test]
async fn after_phases_accumulate_context_and_stop_on_terminate() {
    let response = json!({"content": "hi"});
    let ctx = HookContext::new("run");
    for event in [
        StepEvent::AfterCompletion {
            response: &response,
        },
        StepEvent::AfterReasoning { reasoning: "hmm" },
        StepEvent::AfterAssistant { text: "done" },
    ] {
        let seen = Seen::default();
        let stack = HookStack::new()
            .with("a", recording(&seen, "a", |_| Flow::inject("one")))
            .with("b", recording(&seen, "b", |_| Flow::Continue))
            .with("c", recording(&seen, "c", |_| Flow::inject("two")));
        let decided = stack.observe(&ctx, event).await;
        assert_eq!(names(&seen), ["a", "b", "c"], "{}", event.kind());
        assert_eq!(decided.decision, Observed { terminate: None });
        assert_eq!(
            decided.context.as_slice(),
            [ContextItem::user("one"), ContextItem::user("two")]
        );
        let stack = HookStack::new()
            .with("a", FnHook::new(|_, _| Flow::inject("one")))
            .with("b", FnHook::new(|_, _| Flow::terminate("enough")))
            .with("c", FnHook::new(|_, _| Flow::inject("two")));
        let decided = stack.observe(&ctx, event).await;
        assert_eq!(
            decided.decision,
            Observed {
                terminate: Some("enough".into()),
            }
        );
        assert_eq!(decided.context.as_slice(), [ContextItem::user("one")]);
    }
}

#[tokio::test]
async fn other_events_take_the_first_non_continue_flow() {
    let ctx = HookContext::new("run");
    let seen = Seen::default();
    let stack = HookStack::new()
        .with("quiet", recording(&seen, "quiet", |_| Flow::Continue))
        .with(
            "first",
            recording(&seen, "first", |_| Flow::resume("tests still fail")),
        )
        .with(
            "second",
            recording(&seen, "second", |_| Flow::resume("unreachable")),
        );
    let decided = stack.stop(&ctx, 2, "done").await;
    assert_eq!(names(&seen), ["quiet", "first"]);
    assert_eq!(
        decided.decision,
        StopDecision::Resume {
            reason: "tests still fail".into()
        }
    );
    let terminating = HookStack::new()
        .with("quiet", FnHook::new(|_, _| Flow::Continue))
        .with(
            "gate",
            FnHook::new(|_, _| Flow::terminate("outside office hours")),
        )
        .with("late", FnHook::new(|_, _| Flow::terminate("unreachable")));
    let decided = terminating.observe(&ctx, StepEvent::RUN_START).await;
    assert_eq!(
        decided.decision.terminate.as_deref(),
        Some("outside office hours")
    );
    // A new run: the resumes counted above (at the cap) would keep the
    // stop hooks from being consulted at all.
    let ctx = HookContext::new("run-2");
    let decided = terminating.stop(&ctx, 0, "done").await;
    assert_eq!(
        decided.decision,
        StopDecision::Terminate {
            reason: "outside office hours".into()
        }
    );
    let nothing = HookStack::new().with("quiet", FnHook::new(|_, _| Flow::Continue));
    assert_eq!(
        nothing.stop(&ctx, 0, "done").await.decision,
        StopDecision::Stop
    );
}

#[tokio::test]
async fn invalid_tool_call_continue_means_fail() {
    let ctx = HookContext::new("run");
    let quiet = HookStack::new()
        .with("a", FnHook::new(|_, _| Flow::Continue))
        .with("b", FnHook::new(|_, _| Flow::Continue));
    let decided = quiet
        .invalid_tool_call(&ctx, "bsh", "c", "{}", "unknown tool")
        .await;
    assert_eq!(decided.decision, InvalidCallDecision::Fail);
    let empty = HookStack::new();
    let decided = empty
        .invalid_tool_call(&ctx, "bsh", "c", "{}", "unknown tool")
        .await;
    assert_eq!(decided.decision, InvalidCallDecision::Fail);
    for (flow, expected) in [
        (Flow::Fail, InvalidCallDecision::Fail),
        (
            Flow::Retry {
                feedback: "use `bash`".into(),
            },
            InvalidCallDecision::Retry {
                feedback: "use `bash`".into(),
            },
        ),
        (
            Flow::Repair {
                tool_name: "bash".into(),
                args: None,
            },
            InvalidCallDecision::Repair {
                tool_name: "bash".into(),
                args: None,
            },
        ),
        (
            Flow::Repair {
                tool_name: "bash".into(),
                args: Some(serde_json::json!({"command": "ls"})),
            },
            InvalidCallDecision::Repair {
                tool_name: "bash".into(),
                args: Some(serde_json::json!({"command": "ls"})),
            },
        ),
        (
            Flow::skip("not a tool of this agent"),
            InvalidCallDecision::Skip {
                reason: "not a tool of this agent".into(),
            },
        ),
        (
            Flow::terminate("model is confused"),
            InvalidCallDecision::Terminate {
                reason: "model is confused".into(),
            },
        ),
    ] {
        let first = flow.clone();
        let stack = HookStack::new()
            .with("quiet", FnHook::new(|_, _| Flow::Continue))
            .with("decider", FnHook::new(move |_, _| first.clone()))
            .with(
                "late",
                FnHook::new(|_, _| Flow::Repair {
                    tool_name: "unreachable".into(),
                    args: None,
                }),
            );
        let decided = stack
            .invalid_tool_call(&ctx, "bsh", "c", "{}", "unknown")
            .await;
        assert_eq!(decided.decision, expected, "{:?}", flow.kind());
        assert_eq!(
            decided.provenance.as_slice(),
            [prov("decider", Change::Decided(flow.kind()))]
        );
    }
}

#[tokio::test]
async fn hooks_that_decline_a_kind_are_not_called() {
    let seen = Seen::default();
    let seen2 = Arc::clone(&seen);
    let stack = HookStack::new().with(
        "tools-only",
        FnHook::observing(&[StepEventKind::BeforeTool], move |_, e| {
            seen2
                .lock()
                .expect("lock")
                .push(("tools-only".into(), e.kind().to_string()));
            Flow::terminate("stop everything")
        }),
    );
    let ctx = HookContext::new("run");
    let outcome = stack.fold(&ctx, StepEvent::TextDelta { delta: "x" }).await;
    assert!(outcome.is_continue());
    assert!(seen.lock().expect("lock").is_empty());
    assert!(!stack.observes(StepEventKind::TextDelta));
    assert!(stack.observes(StepEventKind::BeforeTool));
}

#[tokio::test(start_paused = true)]
async fn async_hooks_are_awaited_in_order() {
    struct Slow(u64, &'static str);
    impl AgentHook for Slow {
        fn on_event<'a>(&'a self, _: &'a HookContext, _: StepEvent<'a>) -> HookFuture<'a> {
            HookFuture::boxed(async move {
                tokio::time::sleep(std::time::Duration::from_millis(self.0)).await;
                Flow::inject(self.1)
            })
        }
    }
    let stack = HookStack::new()
        .with("slow", Slow(20, "slow"))
        .with("fast", Slow(1, "fast"));
    let decided = stack
        .observe(
            &HookContext::new("r"),
            StepEvent::AfterAssistant { text: "t" },
        )
        .await;
    assert_eq!(
        decided.context.as_slice(),
        [ContextItem::user("slow"), ContextItem::user("fast")]
    );
}
