//! Claude Code transcript records → events (the mapping is in the
//! [module docs](super)).

use std::collections::HashMap;

use hooks_runtime::{OwnedEvent, ToolFailure, ToolOutcome};
use serde_json::Value;

use super::Session;

/// The tool calls announced so far, by call id: the tool's name and its
/// arguments, for the `tool_result` that answers each.
pub(super) type Calls = HashMap<String, (String, Value)>;

/// Converts one Claude Code record (see the module docs).
pub(super) fn record(
    kind: &str,
    record: &Value,
    calls: &mut Calls,
    session: &mut Session,
    line: usize,
) {
    let content = &record["message"]["content"];
    match kind {
        "user" => {
            let meta = record["isMeta"] == true;
            if let Some(text) = content.as_str() {
                if meta {
                    return;
                }
                session.events.push(OwnedEvent::UserPrompt {
                    prompt: text.to_owned(),
                });
                return;
            }
            let Some(items) = content.as_array() else {
                return;
            };
            let texts: Vec<&str> = items
                .iter()
                .filter(|i| i["type"] == "text")
                .filter_map(|i| i["text"].as_str())
                .collect();
            if !texts.is_empty() && !meta {
                session.events.push(OwnedEvent::UserPrompt {
                    prompt: texts.join("\n"),
                });
            }
            for item in items.iter().filter(|i| i["type"] == "tool_result") {
                let id = item["tool_use_id"].as_str().unwrap_or_default();
                let Some((tool, args)) = calls.get(id) else {
                    session.warnings.push(format!(
                        "line {line}: `tool_result` for `{id}`, which no earlier `tool_use` announced"
                    ));
                    continue;
                };
                let outcome = if item["is_error"] == true {
                    ToolOutcome::failed(ToolFailure::Error)
                } else {
                    ToolOutcome::Success
                };
                session.events.push(OwnedEvent::AfterTool {
                    tool_name: tool.clone(),
                    call_id: id.to_owned(),
                    args: args.clone(),
                    original_args: None,
                    result: serde_json::json!({ "output": result_text(&item["content"]) }),
                    outcome,
                    duration_ms: None,
                });
            }
        }
        "assistant" => {
            for item in content.as_array().into_iter().flatten() {
                if item["type"] != "tool_use" {
                    continue;
                }
                let id = item["id"].as_str().unwrap_or_default().to_owned();
                let tool = item["name"].as_str().unwrap_or_default().to_owned();
                let args = item.get("input").cloned().unwrap_or(Value::Null);
                calls.insert(id.clone(), (tool.clone(), args.clone()));
                session.events.push(OwnedEvent::BeforeTool {
                    tool_name: tool,
                    call_id: id,
                    args,
                });
            }
        }
        _ => {}
    }
}

/// The model-visible text of a `tool_result` `content`: the string, or the
/// `text` items joined by newlines.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::parse_session;

    #[test]
    fn claude_records_become_prompts_and_tool_calls() {
        let text = concat!(
            r#"{"type":"user","message":{"role":"user","content":"hello"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
            "\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}]}}"#,
            "\n",
            r#"{"type":"progress","data":{}}"#,
            "\nnot json\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"zz","content":"?"}]}}"#,
            "\n",
            r#"{"type":"user","isMeta":true,"message":{"content":"Stop hook feedback: ..."}}"#,
            "\n"
        );
        let s = parse_session(text.as_bytes()).unwrap();
        assert_eq!(s.events.len(), 3);
        assert_eq!(
            s.events[0],
            OwnedEvent::UserPrompt {
                prompt: "hello".into()
            }
        );
        assert!(
            matches!(&s.events[1], OwnedEvent::BeforeTool { tool_name, args, .. }
            if tool_name == "Bash" && args["command"] == "ls")
        );
        match &s.events[2] {
            OwnedEvent::AfterTool {
                args,
                result,
                outcome,
                ..
            } => {
                assert_eq!(args["command"], "ls");
                assert_eq!(result["output"], "a\nb");
                assert_eq!(outcome, &ToolOutcome::failed(ToolFailure::Error));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.formats.claude, 6);
        assert_eq!(
            s.skipped, 3,
            "progress, the orphan result, the meta message"
        );
        assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
        assert!(s.warnings[0].starts_with("line 5: not JSON"));
        assert!(s.warnings[1].contains("`zz`"));
    }
}
