//! Conversions between rig's values and ours.

use hooks_runtime::{ContextItem, History, RequestPatch, ToolChoice, ToolFailure, ToolOutcome};
use rig_agent::agent as rig;
use rig_agent::tool::{ToolErrorKind, ToolOutput, ToolResult};
use rig_core::completion::Document;
use rig_core::message::{AssistantContent, Message, ToolName};
use serde_json::{Value, json};

/// Why one of our values has no rig form (the adapter fails closed).
#[derive(Debug)]
pub(crate) struct ConvertError(pub(crate) String);

/// The text of a prompt message (its text blocks, joined by newlines).
pub(crate) fn prompt_text(message: &Message) -> String {
    match message {
        Message::User { content } => content
            .iter()
            .filter_map(|c| match c {
                rig_core::message::UserContent::Text(t) => Some(t.text()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Message::System { content } => content.clone(),
        Message::Assistant(_) => String::new(),
    }
}

/// A message in rig's serde form (`null` if it has none).
fn message_json(message: &Message) -> Value {
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// The request a `before_completion` hook sees: `{"messages": [...history,
/// prompt], "turn": N}`, messages in rig's serde form. Built from scratch;
/// the adapter keeps a [`Request`] per run instead.
#[cfg(test)]
pub(crate) fn request_json(prompt: &Message, history: &[Message], turn: usize) -> Value {
    let messages: Vec<Value> = history
        .iter()
        .chain(std::iter::once(prompt))
        .map(message_json)
        .collect();
    json!({"messages": messages, "turn": turn})
}

/// The `before_completion` request of a run's last completion call, kept
/// so that the next call converts only what is new: rig's history grows
/// by appending, so the messages converted before are reused. What it
/// holds is always what [`request_json`] builds for the last call.
///
/// The history is checked to extend the one converted before (compared
/// with rig's messages, kept beside their conversion): a history rig
/// replaced (a retried turn, a hook's history patch) is converted again
/// from its first changed message.
#[derive(Debug, Default)]
pub(crate) struct Request {
    /// The history converted so far (rig's messages, as rig sent them).
    seen: Vec<Message>,
    /// `seen` in rig's serde form, then the last call's prompt.
    messages: Vec<Value>,
    /// The request: `{"messages": ..., "turn": N}`, `messages` moved in
    /// by [`Request::update`] and out again by [`Request::done`].
    json: Value,
}

impl Request {
    /// Brings the request up to date with a call's `prompt`, `history` and
    /// `turn`, converting the messages not seen before and the prompt.
    pub(crate) fn update(&mut self, prompt: &Message, history: &[Message], turn: usize) {
        self.done();
        let kept = self
            .seen
            .iter()
            .zip(history)
            .take_while(|(seen, now)| seen == now)
            .count();
        self.seen.truncate(kept);
        self.messages.truncate(kept);
        for message in &history[kept..] {
            self.messages.push(message_json(message));
            self.seen.push(message.clone());
        }
        self.messages.push(message_json(prompt));
        let messages = std::mem::take(&mut self.messages);
        self.json = json!({"messages": messages, "turn": turn});
    }

    /// The request of the last [`Request::update`].
    pub(crate) fn json(&self) -> &Value {
        &self.json
    }

    /// Takes the converted messages back out of the request (its prompt
    /// dropped) for the next update.
    fn done(&mut self) {
        if let Some(Value::Array(messages)) = self
            .json
            .as_object_mut()
            .and_then(|o| o.get_mut("messages"))
        {
            self.messages = std::mem::take(messages);
            self.messages.truncate(self.seen.len());
        }
        self.json = Value::Null;
    }
}

/// Our context items as rig documents, `prefix-1`, `prefix-2`, ...
pub(crate) fn documents(items: &[ContextItem], prefix: &str) -> Vec<Document> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| Document {
            id: format!("{prefix}-{}", i + 1),
            text: item.content.to_string(),
            additional_props: Default::default(),
        })
        .collect()
}

/// Our request patch as rig's; `history` is the request's history (for
/// `keep_last`). A patch's `model` has no place in rig's patch: rig
/// selects models in `on_model_select`, where the adapter applies it.
pub(crate) fn request_patch(
    ours: &RequestPatch,
    history: &[Message],
) -> Result<rig::RequestPatch, ConvertError> {
    let mut patch = rig::RequestPatch::new();
    if let Some(preamble) = &ours.preamble {
        patch = patch.preamble(preamble.to_string());
    }
    if let Some(t) = ours.temperature {
        patch = patch.temperature(t);
    }
    if let Some(n) = ours.max_tokens {
        patch = patch.max_tokens(n);
    }
    if let Some(choice) = &ours.tool_choice {
        patch = patch.tool_choice(match choice {
            ToolChoice::Auto => rig_core::message::ToolChoice::Auto,
            ToolChoice::None => rig_core::message::ToolChoice::None,
            ToolChoice::Required => rig_core::message::ToolChoice::Required,
            ToolChoice::Tool(name) => rig_core::message::ToolChoice::Specific {
                function_names: vec![
                    ToolName::new(name.to_string())
                        .map_err(|_| ConvertError(String::from("tool_choice names no tool")))?,
                ],
            },
        });
    }
    if let Some(tools) = &ours.active_tools {
        patch = patch.active_tools(tools.iter().map(ToString::to_string));
    }
    if !ours.additional_params.is_empty() {
        patch = patch.additional_params(Value::Object(ours.additional_params.to_map()));
    }
    if !ours.extra_context.is_empty() {
        patch = patch.extra_context(documents(&ours.extra_context, "hook-extra-context"));
    }
    match &ours.history {
        None => {}
        Some(History::KeepLast { keep_last }) => {
            let keep = usize::try_from(*keep_last).unwrap_or(usize::MAX);
            let from = history.len().saturating_sub(keep);
            if from > 0 {
                patch = patch.history(history.iter().skip(from).cloned());
            }
        }
        Some(History::Replace(messages)) => {
            let messages = messages
                .iter()
                .map(|m| serde_json::from_value::<Message>(m.clone()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| {
                    ConvertError(format!("a history message is not a rig message: {e}"))
                })?;
            patch = patch.history(messages);
        }
    }
    Ok(patch)
}

/// A tool result's model-visible output as JSON (text as a string).
pub(crate) fn tool_result_json(result: &ToolResult) -> Value {
    let output = result.output();
    match output.as_json() {
        Some(value) => value.clone(),
        None => Value::String(
            output
                .as_text()
                .map_or_else(|| output.render(), ToOwned::to_owned),
        ),
    }
}

/// How a tool call ended, in our terms.
pub(crate) fn tool_outcome(result: &ToolResult) -> ToolOutcome {
    if result.is_success() {
        return ToolOutcome::Success;
    }
    let error = result.error().or_else(|| result.refusal());
    let failure = match error.map(|e| e.kind()) {
        Some(ToolErrorKind::Timeout) => ToolFailure::Timeout,
        Some(ToolErrorKind::NotFound) => ToolFailure::NotFound,
        Some(ToolErrorKind::PermissionDenied) => ToolFailure::Denied,
        _ if result.is_refused() => ToolFailure::Denied,
        _ => ToolFailure::Error,
    };
    ToolOutcome::Failed {
        failure,
        message: error.map(|e| e.message().to_owned()),
    }
}

/// A rewritten tool result as rig output (a string stays text).
pub(crate) fn tool_output(value: &Value) -> ToolOutput {
    match value {
        Value::String(text) => ToolOutput::text(text.clone()),
        other => ToolOutput::json(other.clone()),
    }
}

/// A short, one-line form of `value` for the transcript.
pub(crate) fn brief(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// A model turn's text, reasoning and whether it called tools.
pub(crate) fn turn_content(content: &[AssistantContent]) -> (String, String, bool) {
    let mut text = Vec::new();
    let mut reasoning = Vec::new();
    let mut calls = false;
    for item in content {
        match item {
            AssistantContent::Text(t) => text.push(t.text()),
            AssistantContent::Reasoning(r) => reasoning.push(r.text.as_str()),
            AssistantContent::ToolCall(_) => calls = true,
            _ => {}
        }
    }
    (text.join("\n"), reasoning.join("\n"), calls)
}

/// A completion's choice as `{"text": ..., "tool_calls": [{"name", "args"}]}`.
pub(crate) fn response_json(choice: &[AssistantContent]) -> Value {
    let (text, _, _) = turn_content(choice);
    let calls: Vec<Value> = choice
        .iter()
        .filter_map(|c| match c {
            AssistantContent::ToolCall(call) => Some(json!({
                "id": call.id.to_string(),
                "name": call.function.name.as_str(),
                "args": Value::Object(call.function.arguments.clone()),
            })),
            _ => None,
        })
        .collect();
    json!({"text": text, "tool_calls": calls})
}

/// Why rig could not dispatch a call, as the `error` of our event.
pub(crate) fn invalid_reason(reason: &rig::InvalidToolCallReason) -> String {
    match reason {
        rig::InvalidToolCallReason::UnknownTool => String::from("unknown tool"),
        rig::InvalidToolCallReason::DisallowedByToolChoice => {
            String::from("not allowed by the tool choice")
        }
        rig::InvalidToolCallReason::MalformedArguments { error } => {
            format!("malformed arguments: {error}")
        }
        _ => format!("{reason:?}"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn user(text: &str) -> Message {
        Message::user(text)
    }

    #[test]
    fn the_kept_request_is_the_request_built_from_scratch() {
        let mut request = Request::default();
        let mut history = Vec::new();
        // The history grows by appending, call after call.
        for turn in 1..=6 {
            let prompt = user(&format!("prompt {turn}"));
            request.update(&prompt, &history, turn);
            assert_eq!(request.json(), &request_json(&prompt, &history, turn));
            // The same call again (a retry) sees the same request.
            request.update(&prompt, &history, turn);
            assert_eq!(request.json(), &request_json(&prompt, &history, turn));
            history.push(prompt);
            history.push(Message::assistant(format!("answer {turn}")));
        }
        // A history replaced in the middle is converted again from there,
        // and one cut short drops what it lost.
        history[3] = user("replaced");
        let prompt = user("after the replacement");
        request.update(&prompt, &history, 7);
        assert_eq!(request.json(), &request_json(&prompt, &history, 7));
        history.truncate(2);
        request.update(&prompt, &history, 8);
        assert_eq!(request.json(), &request_json(&prompt, &history, 8));
        request.update(&prompt, &[], 9);
        assert_eq!(request.json(), &request_json(&prompt, &[], 9));
    }
}
