//! Every text a shell hook's output puts in a flow — exit-2 stderr turned
//! into context, native `context_items`, `rewrite_prompt`, `rewrite_result`
//! and `patch`, Claude Code's `additionalContext`, block `reason` and plain
//! text — is redacted before it reaches the model, the records or the
//! diagnostics (token shapes and the values of the hook's credential-like
//! `env.set` entries). And stderr cut at its 64 KiB cap never leaves a
//! token's prefix in clear.

#[path = "common/hooks.rs"]
mod hooks;

use hooks::{Fixture, after_tool, before_tool, sh};
use hooks_runtime::{
    ContextItem, Flow, History, HookLimits, Invocation, REDACTED, ShellHookSpec, StepEvent,
    ToolOutcome,
};
use hooks_schema::{FailurePolicy, Phase, Protocol};
use serde_json::{Value, json};

/// The token's body; commands join it to `ghp_` at run time, so the only
/// whole token anywhere is the one the hook prints.
const BODY: &str = "abcdefghijklmnopqrstuvwxyz0123456789";

/// A declared secret: the value of the hook's `env.set` entry `DEPLOY_TOKEN`
/// (no token shape: only the declaration makes it a secret).
const SECRET: &str = "opaque-deploy-value-7781";

/// Shell prelude: `$T` is the token, `$DEPLOY_TOKEN` the declared secret.
fn prelude() -> String {
    format!("T=ghp_{BODY}; ")
}

/// A spec running `body` after [`prelude`] with `DEPLOY_TOKEN` set.
fn spec(id: &str, phase: Phase, protocol: Protocol, body: &str) -> ShellHookSpec {
    let mut spec = sh(id, phase, &format!("{}{body}", prelude()));
    spec.process_mut()
        .expect("a run hook")
        .env
        .set
        .push(("DEPLOY_TOKEN".to_owned(), SECRET.to_owned()));
    spec.protocol = protocol;
    spec
}

/// Asserts `text` holds neither secret nor a prefix of either.
fn assert_clean(what: &str, text: &str) {
    assert!(!text.contains("ghp_"), "{what}: {text}");
    assert!(!text.contains("abcdefghij"), "{what}: {text}");
    assert!(!text.contains("opaque-deploy"), "{what}: {text}");
}

/// Asserts nothing the invocation produced (flow, record, diagnostics, the
/// runtime's diagnostics, the records file) holds a secret.
fn assert_invocation_clean(fx: &Fixture, what: &str, inv: &Invocation) {
    let flow = serde_json::to_string(&inv.flow).expect("flows serialize");
    assert_clean(&format!("{what}: flow"), &flow);
    let record = serde_json::to_string(&inv.record).expect("records serialize");
    assert_clean(&format!("{what}: record"), &record);
    for d in &inv.diagnostics() {
        assert_clean(&format!("{what}: diagnostic"), d);
    }
    if let Some(message) = &inv.report.message {
        assert_clean(&format!("{what}: report message"), message);
    }
    assert_clean(&format!("{what}: records file"), &fx.records_text());
}

/// The contents of an `InjectContext` flow.
fn context(flow: &Flow) -> Vec<String> {
    match flow {
        Flow::InjectContext(items) => items.iter().map(|i| i.content.to_string()).collect(),
        other => panic!("expected inject_context, got {other:?}"),
    }
}

fn after_tool_event<'a>(args: &'a Value, result: &'a Value, ok: &'a ToolOutcome) -> StepEvent<'a> {
    after_tool("bash", "c1", args, result, ok)
}

#[tokio::test]
async fn exit_2_stderr_injected_after_a_tool_is_redacted() {
    let fx = Fixture::new();
    let (args, result, ok) = (json!({"command": "ls"}), json!("ok"), ToolOutcome::Success);
    for protocol in [Protocol::Native, Protocol::Claude] {
        let inv = fx
            .invoke(
                spec(
                    "leak",
                    Phase::AfterTool,
                    protocol,
                    r#"echo "lint failed; token=$T; deploy with $DEPLOY_TOKEN now" >&2; exit 2"#,
                ),
                after_tool_event(&args, &result, &ok),
            )
            .await;
        let items = context(&inv.flow);
        assert_eq!(
            items,
            [format!(
                "lint failed; token={REDACTED}; deploy with {REDACTED} now"
            )],
            "{protocol:?}"
        );
        assert_invocation_clean(&fx, &format!("{protocol:?}"), &inv);
    }
    // The injection record counts the bytes actually injected (redacted).
    let records = fx.records();
    let injection = records
        .iter()
        .find(|r| r["record"] == "context_injection")
        .expect("an injection record");
    let want = format!("lint failed; token={REDACTED}; deploy with {REDACTED} now").len();
    assert_eq!(injection["byte_count"], want);
}

#[tokio::test]
async fn exit_2_stderr_on_the_other_after_phases_is_redacted() {
    let fx = Fixture::new();
    let response = json!({"choices": []});
    let events = [
        (
            Phase::AfterAssistant,
            StepEvent::AfterAssistant { text: "done" },
        ),
        (
            Phase::AfterCompletion,
            StepEvent::AfterCompletion {
                response: &response,
            },
        ),
        (
            Phase::AfterReasoning,
            StepEvent::AfterReasoning { reasoning: "hmm" },
        ),
    ];
    for (phase, event) in events {
        let inv = fx
            .invoke(
                spec(
                    "leak",
                    phase,
                    Protocol::Native,
                    r#"printf '%s\n%s\n' "$T" "$DEPLOY_TOKEN" >&2; exit 2"#,
                ),
                event,
            )
            .await;
        assert_eq!(
            context(&inv.flow),
            [format!("{REDACTED}\n{REDACTED}")],
            "{phase}"
        );
        assert_invocation_clean(&fx, &format!("{phase}"), &inv);
    }
}

#[tokio::test]
async fn native_context_items_are_redacted() {
    let fx = Fixture::new();
    let (args, result, ok) = (json!({"command": "ls"}), json!("ok"), ToolOutcome::Success);
    let inv = fx
        .invoke(
            spec(
                "ctx",
                Phase::AfterTool,
                Protocol::Native,
                r#"printf '{"context_items":[{"role":"user","content":"use %s"},{"role":"user","content":"or %s, not plain"}]}' "$T" "$DEPLOY_TOKEN""#,
            ),
            after_tool_event(&args, &result, &ok),
        )
        .await;
    assert_eq!(
        context(&inv.flow),
        [
            format!("use {REDACTED}"),
            format!("or {REDACTED}, not plain")
        ]
    );
    assert_invocation_clean(&fx, "context_items", &inv);
}

#[tokio::test]
async fn native_rewrites_of_prompt_and_result_are_redacted() {
    let fx = Fixture::new();
    let inv = fx
        .invoke(
            spec(
                "prompt",
                Phase::UserPrompt,
                Protocol::Native,
                r#"printf '{"rewrite_prompt":"fix it with %s; Authorization: Bearer %s"}' "$T" "$DEPLOY_TOKEN""#,
            ),
            StepEvent::UserPrompt { prompt: "fix it" },
        )
        .await;
    assert_eq!(
        inv.flow,
        Flow::RewritePrompt(
            format!("fix it with {REDACTED}; Authorization: Bearer {REDACTED}").into()
        )
    );
    assert_invocation_clean(&fx, "rewrite_prompt", &inv);

    let (args, result, ok) = (json!({"command": "env"}), json!("x"), ToolOutcome::Success);
    let inv = fx
        .invoke(
            spec(
                "result",
                Phase::AfterTool,
                Protocol::Native,
                r#"printf '{"rewrite_result":{"author":"ann","lines":["GH=%s","ok",3],"note":"deploy %s"}}' "$T" "$DEPLOY_TOKEN""#,
            ),
            after_tool_event(&args, &result, &ok),
        )
        .await;
    // Strings are redacted; keys such as `author` are not masked wholesale.
    assert_eq!(
        inv.flow,
        Flow::RewriteResult(json!({
            "author": "ann",
            "lines": [format!("GH={REDACTED}"), "ok", 3],
            "note": format!("deploy {REDACTED}"),
        }))
    );
    assert_invocation_clean(&fx, "rewrite_result", &inv);
}

#[tokio::test]
async fn native_patch_texts_are_redacted() {
    let fx = Fixture::new();
    let request = json!({"messages": []});
    let inv = fx
        .invoke(
            spec(
                "patch",
                Phase::BeforeCompletion,
                Protocol::Native,
                r#"printf '{"patch":{"preamble":"you may use %s","max_tokens":64,"extra_context":[{"role":"user","content":"secret %s"}],"history":[{"role":"user","content":"earlier %s"}],"additional_params":{"system":"key %s"}}}' "$T" "$DEPLOY_TOKEN" "$T" "$DEPLOY_TOKEN""#,
            ),
            StepEvent::BeforeCompletion { request: &request },
        )
        .await;
    let Flow::PatchRequest(patch) = &inv.flow else {
        panic!("expected a patch, got {:?}", inv.flow);
    };
    assert_eq!(
        patch.preamble.as_deref(),
        Some(format!("you may use {REDACTED}").as_str())
    );
    assert_eq!(patch.max_tokens, Some(64));
    assert_eq!(
        patch.extra_context[..],
        [ContextItem::user(format!("secret {REDACTED}"))]
    );
    assert_eq!(
        patch.history,
        Some(History::Replace(vec![
            json!({"role": "user", "content": format!("earlier {REDACTED}")})
        ]))
    );
    assert_eq!(
        patch.additional_params.get("system").map(|v| v.to_value()),
        Some(json!(format!("key {REDACTED}")))
    );
    assert_invocation_clean(&fx, "patch", &inv);
}

#[tokio::test]
async fn claude_post_tool_use_context_and_reason_are_redacted() {
    let fx = Fixture::new();
    let (args, result, ok) = (json!({"command": "ls"}), json!("ok"), ToolOutcome::Success);
    let inv = fx
        .invoke(
            spec(
                "post",
                Phase::AfterTool,
                Protocol::Claude,
                r#"printf '{"decision":"block","reason":"found %s","systemMessage":"saw %s","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"rotate %s"}}' "$T" "$T" "$DEPLOY_TOKEN""#,
            ),
            after_tool_event(&args, &result, &ok),
        )
        .await;
    assert_eq!(
        context(&inv.flow),
        [format!("found {REDACTED}"), format!("rotate {REDACTED}")]
    );
    assert!(
        inv.diagnostics()
            .iter()
            .any(|d| d.contains("saw [REDACTED]")),
        "{:?}",
        inv.diagnostics()
    );
    assert_invocation_clean(&fx, "PostToolUse", &inv);
}

#[tokio::test]
async fn claude_user_prompt_context_is_redacted() {
    let fx = Fixture::new();
    // Plain text on stdout: added to the prompt.
    let inv = fx
        .invoke(
            spec(
                "plain",
                Phase::UserPrompt,
                Protocol::Claude,
                r#"printf 'use %s and %s\n' "$T" "$DEPLOY_TOKEN""#,
            ),
            StepEvent::UserPrompt { prompt: "deploy" },
        )
        .await;
    assert_eq!(
        inv.flow,
        Flow::RewritePrompt(format!("deploy\n\nuse {REDACTED} and {REDACTED}").into())
    );
    assert_invocation_clean(&fx, "plain text", &inv);
    // `additionalContext`.
    let inv = fx
        .invoke(
            spec(
                "json",
                Phase::UserPrompt,
                Protocol::Claude,
                r#"printf '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"token %s"}}' "$T""#,
            ),
            StepEvent::UserPrompt { prompt: "deploy" },
        )
        .await;
    let Flow::RewritePrompt(prompt) = &inv.flow else {
        panic!("expected a rewritten prompt, got {:?}", inv.flow);
    };
    assert!(prompt.starts_with("deploy"), "{prompt}");
    assert!(prompt.ends_with(&format!("token {REDACTED}")), "{prompt}");
    assert_invocation_clean(&fx, "additionalContext", &inv);
}

/// A command printing `pad` bytes of padding (lines of `xxxx`), a space and
/// the token on stderr, then exiting with `code`; `pad` is a multiple of 5.
fn capped(pad: usize, code: i32) -> String {
    assert_eq!(pad % 5, 0);
    format!(
        "yes xxxx | head -n {lines} >&2; printf ' %s%s\\n' ghp_ {BODY} >&2; exit {code}",
        lines = pad / 5
    )
}

#[tokio::test]
async fn a_token_cut_at_the_stderr_cap_leaves_no_prefix() {
    // Room for the whole 64 KiB of stderr as context after a tool.
    let fx = Fixture::with_limits(HookLimits {
        stderr_cap: 64 << 10,
        max_context_bytes: 1 << 20,
        ..HookLimits::default()
    });
    let (args, result, ok) = (json!({"command": "ls"}), json!("ok"), ToolOutcome::Success);
    let request = json!({"messages": []});
    let mut runs = 0;
    // 65,530 bytes of padding and a space keep `ghp_a` (5 bytes) of the token
    // under the 64 KiB cap; the others keep 15 and 20 bytes of it (all too
    // short for the token's shape) and 35 (long enough to be redacted).
    for pad in [65_530, 65_520, 65_515, 65_500] {
        for protocol in [Protocol::Native, Protocol::Claude] {
            let events = [
                (Phase::BeforeTool, before_tool("bash", "c1", &args)),
                (Phase::AfterTool, after_tool_event(&args, &result, &ok)),
                (
                    Phase::BeforeCompletion,
                    StepEvent::BeforeCompletion { request: &request },
                ),
                (Phase::RunStart, StepEvent::RUN_START),
            ];
            for (phase, event) in events {
                let what = format!("{protocol:?} {phase} padding {pad}");
                let mut s = sh("capped", phase, &capped(pad, 2));
                s.protocol = protocol;
                let inv = fx.invoke(s, event).await;
                assert_eq!(inv.record.failure_kind, None, "{what}");
                let flow = serde_json::to_string(&inv.flow).expect("flows serialize");
                match phase {
                    // Exit 2 cannot deny here: the reason is a diagnostic.
                    Phase::RunStart => assert!(
                        inv.diagnostics().iter().any(|d| d.contains("xxxx\nxxxx")),
                        "{what}"
                    ),
                    _ => assert!(
                        flow.contains(r"xxxx\nxxxx"),
                        "{what}: flow keeps whole words"
                    ),
                }
                assert_invocation_clean(&fx, &what, &inv);
                runs += 1;
            }
            // A nonzero exit: the first line of stderr is the failure detail.
            let mut s = sh("capped", Phase::AfterTool, &capped(pad, 1));
            s.protocol = protocol;
            s.failure_policy = FailurePolicy::Warn;
            let inv = fx.invoke(s, after_tool_event(&args, &result, &ok)).await;
            assert_eq!(inv.record.failure_kind, Some("nonzero_exit"));
            assert_invocation_clean(&fx, "nonzero exit", &inv);
            runs += 1;
        }
    }
    assert_eq!(
        fx.records()
            .iter()
            .filter(|r| r["record"] == "hook")
            .count(),
        runs
    );
}

#[tokio::test]
async fn a_single_word_cut_at_the_cap_is_dropped_whole() {
    let fx = Fixture::with_limits(HookLimits {
        stderr_cap: 64 << 10,
        ..HookLimits::default()
    });
    let args = json!({"command": "ls"});
    // No whitespace before the cut: the whole kept text is one partial word
    // (65,530 dashes and `ghp_ab`), so none of it is shown.
    let inv = fx
        .invoke(
            sh(
                "capped",
                Phase::BeforeTool,
                &format!(
                    "{{ head -c 65530 /dev/zero | tr '\\0' -; printf '%s%s' ghp_ {BODY}; }} >&2; exit 2"
                ),
            ),
            before_tool("bash", "c1", &args),
        )
        .await;
    assert_eq!(
        inv.flow,
        Flow::skip("denied by hook `capped` (exit code 2)")
    );
    assert_invocation_clean(&fx, "one long word", &inv);
}

/// Set only in the child process [`a_passed_env_secret_is_redacted`] spawns.
const CHILD_MARK: &str = "REDACT_CONTEXT_CHILD";

/// `env.pass`: the value of a credential-like variable the hook inherits
/// from the agent's environment is a secret too. The environment of this
/// process cannot be changed safely while other tests run, so the test
/// re-runs itself in a child process whose environment holds the variable.
#[tokio::test]
async fn a_passed_env_secret_is_redacted() {
    const NAME: &str = "REDACT_CONTEXT_API_TOKEN";
    const VALUE: &str = "opaque-deploy-passed-4410";
    if std::env::var_os(CHILD_MARK).is_none() {
        let exe = std::env::current_exe().expect("the test binary");
        let out = std::process::Command::new(exe)
            .args(["--exact", "a_passed_env_secret_is_redacted", "--nocapture"])
            .env(CHILD_MARK, "1")
            .env(NAME, VALUE)
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    assert_eq!(std::env::var(NAME).as_deref(), Ok(VALUE));
    let fx = Fixture::new();
    let (args, result, ok) = (json!({"command": "ls"}), json!("ok"), ToolOutcome::Success);
    let mut spec = sh(
        "passed",
        Phase::AfterTool,
        &format!(r#"echo "deploy key is ${NAME}" >&2; exit 2"#),
    );
    spec.process_mut()
        .expect("a run hook")
        .env
        .pass
        .push(NAME.to_owned());
    let inv = fx.invoke(spec, after_tool_event(&args, &result, &ok)).await;
    assert_eq!(context(&inv.flow), [format!("deploy key is {REDACTED}")]);
    assert_invocation_clean(&fx, "env.pass", &inv);
}
