//! What a rule is matched against on an event: its [`Facts`]. Matching
//! itself is the plan's ([`Rule::matches`](hooks_plan::Rule::matches)).

use hooks_plan::{Facts, Subject};

use crate::core::event::StepEvent;

/// The value `when` pointers address on `event` (see the module docs).
pub fn subject<'a>(event: &StepEvent<'a>) -> Subject<'a> {
    match *event {
        StepEvent::RunStart { .. } => Subject::None,
        StepEvent::UserPrompt { prompt } => Subject::Text(prompt),
        StepEvent::BeforeCompletion { request } => Subject::Json(request),
        StepEvent::BeforeModelSelect { selection } | StepEvent::AfterModelSelect { selection } => {
            Subject::Json(selection)
        }
        StepEvent::AfterCompletion { response } | StepEvent::StreamFinish { response } => {
            Subject::Json(response)
        }
        StepEvent::TextDelta { delta } | StepEvent::ToolCallDelta { delta, .. } => {
            Subject::Text(delta)
        }
        StepEvent::AfterReasoning { reasoning } => Subject::Text(reasoning),
        StepEvent::AfterAssistant { text } | StepEvent::Stop { text, .. } => Subject::Text(text),
        StepEvent::BeforeTool { args, .. } | StepEvent::PermissionRequest { args, .. } => {
            Subject::Json(args)
        }
        StepEvent::AfterTool { result, .. } => Subject::Json(result),
        StepEvent::AfterToolBatch { calls } => Subject::Json(calls),
        StepEvent::InvalidToolCall { raw_args, .. } => Subject::Text(raw_args),
        StepEvent::Notification {
            notification_type, ..
        } => Subject::Text(notification_type),
        StepEvent::SubagentStart { agent_type, .. }
        | StepEvent::SubagentStop { agent_type, .. } => Subject::Text(agent_type),
        StepEvent::BeforeCompaction { trigger, .. }
        | StepEvent::AfterCompaction { trigger, .. } => Subject::Text(trigger),
        StepEvent::RunEnd { output, .. } => Subject::Text(output),
        StepEvent::RunError { error } => Subject::Text(error),
    }
}

/// The facts rules are matched against on `event`: its phase, tool,
/// pointer subject, the tool call's arguments (tool phases) and (on
/// `after_tool`) outcome. Never allocates.
pub fn facts<'a>(event: &StepEvent<'a>) -> Facts<'a> {
    Facts {
        phase: event.kind(),
        tool: event.tool_name(),
        subject: subject(event),
        args: match *event {
            StepEvent::BeforeTool { args, .. }
            | StepEvent::PermissionRequest { args, .. }
            | StepEvent::AfterTool { args, .. } => Some(args),
            _ => None,
        },
        outcome: match event {
            StepEvent::AfterTool { outcome, .. } => Some(outcome.kind()),
            _ => None,
        },
        admission: None,
    }
}

#[cfg(test)]
mod tests {
    use hooks_plan::Phase;

    /// What `when` pointers address on each phase's events is the capability
    /// table's [`hooks_plan::SubjectKind`].
    #[test]
    fn predicates_address_the_capability_tables_subject() {
        use super::subject;
        use crate::core::event::{StepEvent, ToolOutcome};
        use hooks_plan::Subject as Addressed;
        use hooks_plan::SubjectKind as Subject;
        let role = |r: &str| serde_json::json!({ "role": r });
        let (args, result, request, response, batch, selection) = (
            role("args"),
            role("result"),
            role("request"),
            role("response"),
            role("batch"),
            role("selection"),
        );
        let outcome = ToolOutcome::Success;
        let events = [
            StepEvent::RUN_START,
            StepEvent::UserPrompt { prompt: "t" },
            StepEvent::BeforeCompletion { request: &request },
            StepEvent::BeforeModelSelect {
                selection: &selection,
            },
            StepEvent::AfterModelSelect {
                selection: &selection,
            },
            StepEvent::AfterCompletion {
                response: &response,
            },
            StepEvent::TextDelta { delta: "t" },
            StepEvent::ToolCallDelta {
                tool_name: "x",
                call_id: "c",
                delta: "t",
            },
            StepEvent::StreamFinish {
                response: &response,
            },
            StepEvent::AfterReasoning { reasoning: "t" },
            StepEvent::AfterAssistant { text: "t" },
            StepEvent::BeforeTool {
                tool_name: "x",
                call_id: "c",
                args: &args,
            },
            StepEvent::PermissionRequest {
                tool_name: "x",
                call_id: "c",
                args: &args,
                suggestions: &request,
            },
            StepEvent::AfterTool {
                tool_name: "x",
                call_id: "c",
                args: &args,
                original_args: &args,
                result: &result,
                outcome: &outcome,
                duration_ms: None,
            },
            StepEvent::AfterToolBatch { calls: &batch },
            StepEvent::InvalidToolCall {
                tool_name: "x",
                call_id: "c",
                raw_args: "t",
                error: "e",
            },
            StepEvent::Stop {
                loop_count: 0,
                text: "t",
                background_tasks: &serde_json::Value::Null,
                session_crons: &serde_json::Value::Null,
            },
            StepEvent::Notification {
                notification_type: "t",
                title: "",
                message: "m",
            },
            StepEvent::SubagentStart {
                agent_id: "a",
                agent_type: "t",
            },
            StepEvent::SubagentStop {
                agent_id: "a",
                agent_type: "t",
                loop_count: 0,
                text: "x",
                agent_transcript_path: "",
                background_tasks: &serde_json::Value::Null,
                session_crons: &serde_json::Value::Null,
            },
            StepEvent::BeforeCompaction {
                trigger: "t",
                instructions: "",
            },
            StepEvent::AfterCompaction {
                trigger: "t",
                summary: "s",
            },
            StepEvent::RunEnd {
                output: "t",
                reason: "other",
            },
            StepEvent::RunError { error: "t" },
        ];
        for (phase, event) in Phase::ALL.into_iter().zip(events) {
            assert_eq!(event.kind(), phase);
            let json_role =
                |r: &str| matches!(subject(&event), Addressed::Json(v) if v["role"] == r);
            let agrees = match phase.capabilities().subject {
                Subject::Nothing => matches!(subject(&event), Addressed::None),
                Subject::Text => matches!(subject(&event), Addressed::Text(_)),
                Subject::Args => json_role("args"),
                Subject::Result => json_role("result"),
                Subject::Request => json_role("request"),
                Subject::Response => json_role("response"),
                Subject::Batch => json_role("batch"),
                Subject::Selection => json_role("selection"),
            };
            assert!(agrees, "{phase}: {:?}", subject(&event));
        }
    }
}
