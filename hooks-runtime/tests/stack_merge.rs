//! The `RequestPatch` merge rules (the table in its docs), one test per row
//! and per conflict case, through `HookStack::fold` and the driver's
//! `before_completion`.

#[path = "common/stack.rs"]
mod stack;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_runtime::{
    Change, CompletionDecision, ContextItem, Diagnostic, Flow, FlowKind, FnHook, History,
    HookContext, HookId, HookStack, PatchField, Provenance, RequestPatch, StackOutcome, StepEvent,
    Text, ToolChoice,
};
use hooks_schema::Phase;
use serde_json::{Value, json};
use stack::poll_ready;

/// A stack whose hooks `a`, `b`, `c`, ... return the given patches.
fn patching(patches: Vec<RequestPatch>) -> HookStack {
    let mut stack = HookStack::new();
    for (i, patch) in patches.into_iter().enumerate() {
        let id = char::from(b'a' + u8::try_from(i).expect("few hooks")).to_string();
        stack.push(
            id,
            FnHook::new(move |_, _| Flow::PatchRequest(patch.clone())),
        );
    }
    stack
}

fn fold(stack: &HookStack) -> StackOutcome {
    let request = json!({"messages": []});
    poll_ready(stack.fold(
        &HookContext::new("t"),
        StepEvent::BeforeCompletion { request: &request },
    ))
}

fn id(s: &str) -> HookId {
    HookId::from(s)
}

fn set(hook: &str, field: PatchField) -> Provenance {
    Provenance {
        hook: id(hook),
        change: Change::SetField(field),
    }
}

fn tools(names: &[&str]) -> Option<Cow<'static, [Text]>> {
    Some(names.iter().map(|n| Text::Owned((*n).to_owned())).collect())
}

/// One patch per last-writer-wins field, with the value `n` for that field.
fn lww_patch(field: PatchField, n: u64) -> RequestPatch {
    let mut patch = RequestPatch::default();
    match field {
        PatchField::Preamble => patch.preamble = Some(format!("preamble {n}").into()),
        PatchField::Temperature => patch.temperature = Some(n as f64 / 10.0),
        PatchField::MaxTokens => patch.max_tokens = Some(n),
        PatchField::ToolChoice => {
            patch.tool_choice = Some(ToolChoice::Tool(format!("tool{n}").into()))
        }
        PatchField::History => {
            patch.history = Some(History::Replace(vec![
                json!({"role": "user", "content": n}),
            ]))
        }
        other => panic!("{other} is not last-writer-wins"),
    }
    patch
}

const LWW: [PatchField; 5] = [
    PatchField::Preamble,
    PatchField::Temperature,
    PatchField::MaxTokens,
    PatchField::ToolChoice,
    PatchField::History,
];

#[test]
fn last_writer_wins_fields_take_the_later_value_with_a_conflict_diagnostic() {
    for field in LWW {
        let outcome = fold(&patching(vec![lww_patch(field, 1), lww_patch(field, 2)]));
        assert_eq!(outcome.decision, None, "{field}");
        assert_eq!(
            outcome.patch,
            lww_patch(field, 2),
            "{field}: the later value wins"
        );
        assert_eq!(
            outcome.diagnostics,
            [Diagnostic::Conflict {
                field,
                first: id("a"),
                second: id("b"),
            }],
            "{field}"
        );
        assert_eq!(
            outcome.provenance.as_slice(),
            [set("a", field), set("b", field)],
            "{field}"
        );
        let message = outcome.diagnostics[0].to_string();
        assert_eq!(
            message,
            format!("hooks `a` and `b` set `{field}` differently; the last writer (`b`) wins")
        );
        assert!(!outcome.diagnostics[0].fails_closed());
    }
}

#[test]
fn last_writer_wins_fields_set_to_the_same_value_do_not_conflict() {
    for field in LWW {
        let outcome = fold(&patching(vec![lww_patch(field, 3), lww_patch(field, 3)]));
        assert_eq!(outcome.patch, lww_patch(field, 3), "{field}");
        assert!(
            outcome.diagnostics.is_empty(),
            "{field}: {:?}",
            outcome.diagnostics
        );
        assert_eq!(
            outcome.provenance.as_slice(),
            [set("a", field), set("b", field)]
        );
    }
}

#[test]
fn a_conflict_names_the_previous_writer_not_the_first() {
    let field = PatchField::MaxTokens;
    let outcome = fold(&patching(vec![
        lww_patch(field, 1),
        RequestPatch::default(),
        lww_patch(field, 2),
        lww_patch(field, 3),
    ]));
    assert_eq!(outcome.patch.max_tokens, Some(3));
    assert_eq!(
        outcome.diagnostics,
        [
            Diagnostic::Conflict {
                field,
                first: id("a"),
                second: id("c"),
            },
            Diagnostic::Conflict {
                field,
                first: id("c"),
                second: id("d"),
            },
        ]
    );
}

#[test]
fn fields_set_by_different_hooks_combine_without_diagnostics() {
    let outcome = fold(&patching(vec![
        lww_patch(PatchField::Preamble, 1),
        lww_patch(PatchField::MaxTokens, 5),
        RequestPatch {
            temperature: Some(0.2),
            ..RequestPatch::default()
        },
    ]));
    assert_eq!(outcome.patch.preamble.as_deref(), Some("preamble 1"));
    assert_eq!(outcome.patch.max_tokens, Some(5));
    assert_eq!(outcome.patch.temperature, Some(0.2));
    assert!(outcome.diagnostics.is_empty());
    assert_eq!(
        outcome.provenance.as_slice(),
        [
            set("a", PatchField::Preamble),
            set("b", PatchField::MaxTokens),
            set("c", PatchField::Temperature),
        ]
    );
}

#[test]
fn active_tools_intersect_in_order_of_the_first_hook() {
    let outcome = fold(&patching(vec![
        RequestPatch {
            active_tools: tools(&["read", "bash", "write", "bash"]),
            ..RequestPatch::default()
        },
        RequestPatch {
            active_tools: tools(&["write", "grep", "read"]),
            ..RequestPatch::default()
        },
    ]));
    assert_eq!(outcome.patch.active_tools, tools(&["read", "write"]));
    assert!(outcome.diagnostics.is_empty());
    assert_eq!(
        outcome.provenance.as_slice(),
        [
            set("a", PatchField::ActiveTools),
            set("b", PatchField::ActiveTools)
        ]
    );
}

#[test]
fn active_tools_becoming_empty_is_reported_once() {
    let outcome = fold(&patching(vec![
        RequestPatch {
            active_tools: tools(&["read"]),
            ..RequestPatch::default()
        },
        RequestPatch {
            active_tools: tools(&["bash"]),
            ..RequestPatch::default()
        },
        RequestPatch {
            active_tools: tools(&["bash"]),
            ..RequestPatch::default()
        },
    ]));
    assert_eq!(outcome.patch.active_tools.as_deref(), Some(&[][..]));
    assert_eq!(outcome.decision, None, "an empty tool set is not fatal");
    assert_eq!(
        outcome.diagnostics,
        [Diagnostic::EmptyActiveTools { hook: id("b") }]
    );
    assert_eq!(
        outcome.diagnostics[0].to_string(),
        "hook `b` narrowed `active_tools` to an empty set; the model can call no tool"
    );
}

#[test]
fn additional_params_merge_shallowly_and_later_keys_win() {
    let params = |value: Value| match value {
        Value::Object(map) => RequestPatch {
            additional_params: map.into(),
            ..RequestPatch::default()
        },
        _ => unreachable!(),
    };
    let outcome = fold(&patching(vec![
        params(json!({"top_p": 0.9, "metadata": {"user": "u1", "tag": "x"}})),
        params(json!({"metadata": {"user": "u2"}, "seed": 7})),
    ]));
    assert_eq!(
        Value::Object(outcome.patch.additional_params.to_map()),
        json!({"top_p": 0.9, "metadata": {"user": "u2"}, "seed": 7}),
        "nested objects are replaced, not merged"
    );
    assert!(outcome.diagnostics.is_empty());
    let keys: Vec<_> = outcome
        .provenance
        .iter()
        .map(|p| (p.hook.to_string(), p.change.clone()))
        .collect();
    assert!(keys.contains(&("a".into(), Change::SetParam("top_p".into()))));
    assert!(keys.contains(&("b".into(), Change::SetParam("metadata".into()))));
    assert!(keys.contains(&("b".into(), Change::SetParam("seed".into()))));
}

#[test]
fn extra_context_is_appended_in_declared_order() {
    let context = |items: &[&str]| RequestPatch {
        extra_context: items
            .iter()
            .map(|c| ContextItem::user((*c).to_owned()))
            .collect(),
        ..RequestPatch::default()
    };
    let outcome = fold(&patching(vec![
        context(&["one", "two"]),
        context(&[]),
        context(&["three"]),
    ]));
    assert_eq!(
        *outcome.patch.extra_context,
        [
            ContextItem::user("one"),
            ContextItem::user("two"),
            ContextItem::user("three")
        ]
    );
    assert!(outcome.diagnostics.is_empty());
    assert_eq!(
        outcome.provenance.as_slice(),
        [
            Provenance {
                hook: id("a"),
                change: Change::AppendedContext { items: 2 }
            },
            Provenance {
                hook: id("c"),
                change: Change::AppendedContext { items: 1 }
            },
        ]
    );
}

#[test]
fn tool_choice_naming_a_tool_removed_by_active_tools_fails_closed() {
    // Either order: the forced tool is set first, or the narrowing comes first.
    for (setter, patches) in [
        (
            "a",
            vec![
                RequestPatch {
                    tool_choice: Some(ToolChoice::Tool("bash".into())),
                    max_tokens: Some(9),
                    ..RequestPatch::default()
                },
                RequestPatch {
                    active_tools: tools(&["read"]),
                    ..RequestPatch::default()
                },
            ],
        ),
        (
            "b",
            vec![
                RequestPatch {
                    active_tools: tools(&["read"]),
                    max_tokens: Some(9),
                    ..RequestPatch::default()
                },
                RequestPatch {
                    tool_choice: Some(ToolChoice::Tool("bash".into())),
                    ..RequestPatch::default()
                },
            ],
        ),
    ] {
        let stack = patching(patches);
        let outcome = fold(&stack);
        let reason = outcome.terminate_reason().expect("fails closed").to_owned();
        assert!(outcome.patch.is_empty(), "the merged patch is discarded");
        let diagnostic = Diagnostic::ToolChoiceRemoved {
            tool: "bash".into(),
            hook: Some(id(setter)),
        };
        assert_eq!(outcome.diagnostics.last(), Some(&diagnostic));
        assert!(diagnostic.fails_closed());
        assert_eq!(reason, diagnostic.to_string());
        assert_eq!(
            reason,
            format!(
                "`tool_choice` (set by hook `{setter}`) forces tool `bash`, which `active_tools` removed; the run is terminated (fail closed)"
            )
        );
        let decided =
            poll_ready(stack.before_completion(&HookContext::new("t"), &json!({"messages": []})));
        assert_eq!(
            decided.decision,
            CompletionDecision::Terminate {
                reason: reason.into()
            }
        );
    }
}

#[test]
fn tool_choice_naming_a_kept_tool_or_a_mode_is_sent() {
    for choice in [
        ToolChoice::Tool("read".into()),
        ToolChoice::Auto,
        ToolChoice::Required,
        ToolChoice::None,
    ] {
        let outcome = fold(&patching(vec![
            RequestPatch {
                active_tools: tools(&["read", "grep"]),
                ..RequestPatch::default()
            },
            RequestPatch {
                tool_choice: Some(choice.clone()),
                ..RequestPatch::default()
            },
        ]));
        assert_eq!(outcome.decision, None, "{choice}");
        assert_eq!(outcome.patch.tool_choice, Some(choice));
    }
    // Without `active_tools` nothing was removed.
    let outcome = fold(&patching(vec![RequestPatch {
        tool_choice: Some(ToolChoice::Tool("anything".into())),
        ..RequestPatch::default()
    }]));
    assert_eq!(outcome.decision, None);
}

#[test]
fn an_empty_merged_patch_is_continue() {
    let stack = patching(vec![RequestPatch::default(), RequestPatch::default()]);
    let outcome = fold(&stack);
    assert!(outcome.is_continue(), "{outcome:?}");
    assert_eq!(outcome.clone().net_flow(), Flow::Continue);
    assert!(outcome.provenance.is_empty());
    let decided =
        poll_ready(stack.before_completion(&HookContext::new("t"), &json!({"messages": []})));
    assert_eq!(
        decided.decision,
        CompletionDecision::Send {
            patch: RequestPatch::default()
        }
    );
}

#[test]
fn a_non_empty_merged_patch_is_sent_and_is_the_net_flow() {
    let stack = patching(vec![
        lww_patch(PatchField::MaxTokens, 5),
        lww_patch(PatchField::Preamble, 1),
    ]);
    let outcome = fold(&stack);
    let expected = RequestPatch {
        max_tokens: Some(5),
        preamble: Some("preamble 1".into()),
        ..RequestPatch::default()
    };
    assert_eq!(
        outcome.clone().net_flow(),
        Flow::PatchRequest(expected.clone())
    );
    let decided =
        poll_ready(stack.before_completion(&HookContext::new("t"), &json!({"messages": []})));
    assert_eq!(
        decided.decision,
        CompletionDecision::Send { patch: expected }
    );
    assert_eq!(decided.provenance, outcome.provenance);
}

/// A hook that counts its calls and answers `flow`.
fn counting(
    calls: &Arc<AtomicUsize>,
    flow: Flow,
) -> FnHook<impl Fn(&HookContext, StepEvent<'_>) -> Flow + Send + Sync + use<>> {
    let calls = Arc::clone(calls);
    FnHook::new(move |_, _| {
        calls.fetch_add(1, Ordering::SeqCst);
        flow.clone()
    })
}

#[test]
fn terminate_on_before_completion_stops_the_stack() {
    let later = Arc::new(AtomicUsize::new(0));
    let mut stack = patching(vec![lww_patch(PatchField::MaxTokens, 5)]);
    stack
        .push(
            "stopper",
            FnHook::new(|_, _| Flow::terminate("budget exhausted")),
        )
        .push(
            "later",
            counting(
                &later,
                Flow::PatchRequest(lww_patch(PatchField::MaxTokens, 6)),
            ),
        );
    let outcome = fold(&stack);
    assert_eq!(outcome.terminate_reason(), Some("budget exhausted"));
    assert_eq!(
        later.load(Ordering::SeqCst),
        0,
        "hooks after a terminate are not called"
    );
    assert_eq!(
        outcome.provenance.last(),
        Some(&Provenance {
            hook: id("stopper"),
            change: Change::Decided(FlowKind::Terminate)
        })
    );
}

#[test]
fn an_unhonoured_flow_on_before_completion_discards_the_patch_and_fails_closed() {
    let later = Arc::new(AtomicUsize::new(0));
    let mut stack = patching(vec![lww_patch(PatchField::MaxTokens, 5)]);
    stack
        .push("confused", FnHook::new(|_, _| Flow::RewriteArgs(json!({}))))
        .push("later", counting(&later, Flow::Continue));
    let outcome = fold(&stack);
    assert!(
        outcome.patch.is_empty(),
        "the accumulated patch is discarded"
    );
    assert_eq!(later.load(Ordering::SeqCst), 0);
    let diagnostic = Diagnostic::Unhonoured {
        hook: id("confused"),
        flow: FlowKind::RewriteArgs,
        phase: Phase::BeforeCompletion,
    };
    assert_eq!(outcome.diagnostics, std::slice::from_ref(&diagnostic));
    assert_eq!(
        outcome.terminate_reason(),
        Some(diagnostic.to_string().as_str())
    );
    assert_eq!(
        diagnostic.to_string(),
        "hook `confused` returned flow `rewrite_args`, which `before_completion` cannot honour; \
         the run is terminated (fail closed); `before_completion` honours: `continue`, \
         `patch_request`, `terminate`"
    );
}
