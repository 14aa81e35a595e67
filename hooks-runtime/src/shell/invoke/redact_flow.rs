//! Redaction of the flow a shell hook's output asked for ([`redact_flow`]):
//! the one place shell-hook flows are redacted.

use std::borrow::Cow;

use crate::core::flow::Text;
use crate::core::patch::History;
use crate::shell::redact::{SecretSet, redact_json_strings, redact_sensitive_text};
use crate::{ContextItem, Flow};
use hooks_plan::Json;

/// `text` through [`redact_sensitive_text`]; unchanged (no allocation) when
/// nothing matched.
fn redact_text(text: Text, secrets: &SecretSet) -> Text {
    match redact_sensitive_text(&text, secrets) {
        Cow::Borrowed(_) => text,
        Cow::Owned(o) => Text::Owned(o),
    }
}

/// Redacts the content of each item, copying a borrowed list only when an
/// item changes.
fn redact_items(items: &mut Cow<'static, [ContextItem]>, secrets: &SecretSet) {
    for i in 0..items.len() {
        if let Cow::Owned(red) = redact_sensitive_text(&items[i].content, secrets) {
            items.to_mut()[i].content = Text::Owned(red);
        }
    }
}

/// `flow` with every text a hook's output put in it that reaches the model
/// or the records passed through [`redact_sensitive_text`] with the hook's
/// secrets: the one place shell-hook flows are redacted, whatever the
/// protocol (native, Claude Code) or the path (exit 2 stderr, stdout JSON,
/// Claude Code plain text).
///
/// Redacted: the reason of `Skip` / `Terminate` / `Resume`, `Retry`'s
/// feedback, a rewritten prompt, every `InjectContext` item, a rewritten
/// tool result (every string in it, keys included; values under
/// credential-like keys are not masked wholesale, so the result keeps its
/// shape), and a `PatchRequest`'s `preamble`, `extra_context` items,
/// replacement `history` messages and the strings of `additional_params`
/// (a provider parameter such as `system` can reach the model too).
///
/// Not redacted: `RewriteArgs` (the arguments go to the tool, which may
/// legitimately need a value the hook was given; they are never recorded),
/// `Repair`'s tool name, a selected model and a patch's tool names and
/// model (names, not free text), `SetEnv`'s values (they go to the agent's
/// tools like rewritten arguments; records name the variables, never their
/// values).
/// A rewritten prompt is redacted whole, so a secret the user typed in the
/// original prompt is redacted too once a hook rewrites it.
pub(super) fn redact_flow(flow: Flow, secrets: &SecretSet) -> Flow {
    let r = |s: Text| redact_text(s, secrets);
    match flow {
        Flow::Skip { reason } => Flow::Skip { reason: r(reason) },
        Flow::Terminate { reason } => Flow::Terminate { reason: r(reason) },
        Flow::Resume { reason } => Flow::Resume { reason: r(reason) },
        Flow::Ask { reason } => Flow::Ask { reason: r(reason) },
        Flow::Retry { feedback } => Flow::Retry {
            feedback: r(feedback),
        },
        Flow::RewritePrompt(prompt) => Flow::RewritePrompt(r(prompt)),
        Flow::InjectContext(mut items) => {
            for item in &mut items {
                item.content = r(std::mem::take(&mut item.content));
            }
            Flow::InjectContext(items)
        }
        Flow::RewriteResult(mut result) => {
            redact_json_strings(&mut result, secrets);
            Flow::RewriteResult(result)
        }
        Flow::PatchRequest(mut patch) => {
            patch.preamble = patch.preamble.map(r);
            redact_items(&mut patch.extra_context, secrets);
            if let Some(History::Replace(messages)) = &mut patch.history {
                for message in messages {
                    redact_json_strings(message, secrets);
                }
            }
            if !patch.additional_params.is_empty() {
                // Owned already: the patch was read from the hook's output.
                patch.additional_params.map_values(|param| {
                    let mut value = param.to_value();
                    redact_json_strings(&mut value, secrets);
                    *param = Json::from_value(value);
                });
            }
            Flow::PatchRequest(patch)
        }
        other @ (Flow::Continue
        | Flow::Fail
        | Flow::Allow
        | Flow::SelectModel(_)
        | Flow::RewriteArgs(_)
        | Flow::SetEnv(_)
        | Flow::Repair { .. }) => other,
    }
}
