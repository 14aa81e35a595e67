//! What a rule is matched against on an event: its [`Facts`]. Matching
//! itself is the plan's ([`Rule::matches`](hooks_schema::plan::Rule::matches)).

use hooks_schema::plan::{Facts, Subject};

use crate::event::StepEvent;

/// The value `when` pointers address on `event` (see the module docs).
pub fn subject<'a>(event: &StepEvent<'a>) -> Subject<'a> {
    match *event {
        StepEvent::RunStart => Subject::None,
        StepEvent::UserPrompt { prompt } => Subject::Text(prompt),
        StepEvent::BeforeCompletion { request } => Subject::Json(request),
        StepEvent::AfterCompletion { response } | StepEvent::StreamFinish { response } => {
            Subject::Json(response)
        }
        StepEvent::TextDelta { delta } | StepEvent::ToolCallDelta { delta, .. } => {
            Subject::Text(delta)
        }
        StepEvent::AfterReasoning { reasoning } => Subject::Text(reasoning),
        StepEvent::AfterAssistant { text } | StepEvent::Stop { text, .. } => Subject::Text(text),
        StepEvent::BeforeTool { args, .. } => Subject::Json(args),
        StepEvent::AfterTool { result, .. } => Subject::Json(result),
        StepEvent::InvalidToolCall { raw_args, .. } => Subject::Text(raw_args),
        StepEvent::RunEnd { output } => Subject::Text(output),
        StepEvent::RunError { error } => Subject::Text(error),
    }
}

/// The facts rules are matched against on `event`: its phase, tool,
/// pointer subject and (on `after_tool`) outcome. Never allocates.
pub fn facts<'a>(event: &StepEvent<'a>) -> Facts<'a> {
    Facts {
        phase: event.kind(),
        tool: event.tool_name(),
        subject: subject(event),
        outcome: match event {
            StepEvent::AfterTool { outcome, .. } => Some(outcome.kind()),
            _ => None,
        },
    }
}
