//! Declarative actions evaluated in-process: from a rule's action to a [`Flow`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hooks_schema::Phase;
use serde_json::{Map, Value};

use super::data::{
    ActionSpec, PatchSpec, ProgramSpec, RewriteStep, Rule, Table, Text, ToolChoiceSpec,
};
use super::eval::array_index;
use crate::event::StepEvent;
use crate::flow::{ContextItem, Flow};
use crate::invoke::ShellHookSpec;
use crate::patch::{RequestPatch, ToolChoice};
use crate::payload::ToolPathSettings;
use crate::policy::apply_failure_policy;
use crate::shell::{CommandForm, EnvSpec};

/// Keys under which a completion request carries its message history,
/// tried in this order by `patch: {history: {keep_last: N}}`.
pub const HISTORY_KEYS: [&str; 3] = ["messages", "chat_history", "history"];

impl Rule {
    /// The flow of this rule's declarative action on `event` (which the rule
    /// matched), before `mode` is applied; `None` for `run` actions.
    ///
    /// `block`, `terminate` and `inject` allocate their reason or content
    /// (`Flow` owns its strings); `patch` and `rewrite` build owned values.
    pub fn declarative_flow(&self, event: &StepEvent<'_>) -> Option<Flow> {
        Some(match &self.action {
            ActionSpec::Run(_) => return None,
            ActionSpec::Block(reason) => Flow::skip(reason.to_string()),
            ActionSpec::Terminate(reason) => Flow::terminate(reason.to_string()),
            ActionSpec::Inject(content) => Flow::inject(content.to_string()),
            ActionSpec::Patch(patch) => Flow::PatchRequest(patch.to_request_patch(event)),
            ActionSpec::Rewrite(steps) => match *event {
                StepEvent::BeforeTool { args, .. } => Flow::RewriteArgs(rewrite(args, steps)),
                StepEvent::AfterTool { result, .. } => Flow::RewriteResult(rewrite(result, steps)),
                // The config check allows `rewrite` on tool phases only.
                _ => Flow::Continue,
            },
        })
    }

    /// The shell hook spec of a `run` rule (`None` for other actions), with
    /// the `tool_settings` of the event's tool from `table`.
    pub fn shell_spec(&self, table: &Table, tool: Option<&str>) -> Option<ShellHookSpec> {
        let ActionSpec::Run(run) = &self.action else {
            return None;
        };
        let form = match &run.program {
            ProgramSpec::Shell(c) => CommandForm::Shell(c.to_string()),
            ProgramSpec::Exec(argv) => {
                CommandForm::Exec(argv.iter().map(|a| a.to_string()).collect())
            }
        };
        let mut spec = ShellHookSpec::new(Arc::<str>::from(&*self.id), self.phase, form);
        spec.cwd = run.cwd.as_deref().map(PathBuf::from);
        spec.env = EnvSpec {
            pass: run.pass.iter().map(|p| p.to_string()).collect(),
            set: run
                .set
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        spec.timeout = Duration::from_millis(run.timeout_ms);
        spec.payload = run.payload;
        spec.protocol = run.protocol;
        spec.failure_policy = self.failure_policy;
        spec.mode = self.mode;
        spec.show_in_tui = self.show_in_tui;
        spec.tool_paths = tool
            .and_then(|t| table.tool_paths(t))
            .map(|t| ToolPathSettings {
                path_pointers: t.path_pointers.iter().map(|p| p.to_string()).collect(),
                allow_absolute: t.allow_absolute,
                writes: t.writes,
            });
        Some(spec)
    }

    /// The flow of a `run` rule when no shell runtime is bound: a failure
    /// under the rule's failure policy (`ignore`/`warn` continue, `block`
    /// skips the tool, `fail` terminates).
    pub(crate) fn unbound_run_flow(&self, phase: Phase) -> Flow {
        apply_failure_policy(
            self.failure_policy,
            phase,
            &self.id,
            "no shell runtime is bound to the dispatch table",
        )
        .flow
    }
}

impl PatchSpec {
    /// The runtime patch. `history.keep_last: N` keeps the last N entries of
    /// the request's history array (the first of [`HISTORY_KEYS`] that holds
    /// an array); when the request has none, the patch leaves history alone.
    pub fn to_request_patch(&self, event: &StepEvent<'_>) -> RequestPatch {
        let texts = |l: &[Text]| l.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let mut active_tools = self.active_tools.as_deref().map(texts);
        let tool_choice = self.tool_choice.as_ref().map(|c| match c {
            ToolChoiceSpec::Auto => ToolChoice::Auto,
            ToolChoiceSpec::None => ToolChoice::None,
            ToolChoiceSpec::Required => ToolChoice::Required,
            ToolChoiceSpec::Tools(tools) if tools.len() == 1 => {
                ToolChoice::Tool(tools[0].to_string())
            }
            ToolChoiceSpec::Tools(tools) => {
                let narrowed = match active_tools.take() {
                    None => texts(tools),
                    Some(mut current) => {
                        current.retain(|t| tools.iter().any(|c| **c == **t));
                        current
                    }
                };
                active_tools = Some(narrowed);
                ToolChoice::Required
            }
        });
        let history = match (self.keep_last, event) {
            (Some(n), StepEvent::BeforeCompletion { request }) => HISTORY_KEYS
                .iter()
                .find_map(|k| request.get(k).and_then(Value::as_array))
                .map(|items| {
                    let skip = items.len().saturating_sub(n as usize);
                    items[skip..].to_vec()
                }),
            _ => None,
        };
        RequestPatch {
            preamble: self.preamble.as_ref().map(|p| p.to_string()),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            tool_choice,
            history,
            active_tools,
            additional_params: self
                .additional_params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_value()))
                .collect::<Map<String, Value>>(),
            extra_context: self
                .extra_context
                .iter()
                .map(|c| ContextItem::user(c.to_string()))
                .collect(),
        }
    }
}

/// Applies `steps` to a copy of `value`, in order.
///
/// `set` replaces the value at the pointer, adds the last key of an object,
/// replaces an array element or appends (`-`); a missing parent leaves the
/// value unchanged. `set` at `""` replaces the whole value. `remove` deletes
/// an object key or array element; nothing happens when it is absent.
pub fn rewrite(value: &Value, steps: &[RewriteStep]) -> Value {
    let mut out = value.clone();
    for step in steps {
        match step {
            RewriteStep::Set { pointer, value } => {
                let Some((last, parents)) = pointer.split_last() else {
                    out = value.to_value();
                    continue;
                };
                if let Some(parent) = walk_mut(&mut out, parents) {
                    match parent {
                        Value::Object(map) => {
                            map.insert(last.to_string(), value.to_value());
                        }
                        Value::Array(items) if &**last == "-" => items.push(value.to_value()),
                        Value::Array(items) => {
                            if let Some(slot) = array_index(last).and_then(|i| items.get_mut(i)) {
                                *slot = value.to_value();
                            }
                        }
                        _ => {}
                    }
                }
            }
            RewriteStep::Remove { pointer } => {
                let Some((last, parents)) = pointer.split_last() else {
                    continue;
                };
                match walk_mut(&mut out, parents) {
                    Some(Value::Object(map)) => {
                        map.remove(&**last);
                    }
                    Some(Value::Array(items)) => {
                        if let Some(i) = array_index(last).filter(|i| *i < items.len()) {
                            items.remove(i);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn walk_mut<'v>(value: &'v mut Value, tokens: &[Text]) -> Option<&'v mut Value> {
    let mut cur = value;
    for token in tokens {
        cur = match cur {
            Value::Object(map) => map.get_mut(&**token)?,
            Value::Array(items) => items.get_mut(array_index(token)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::data::{Json, List};

    fn ptr(s: &[&str]) -> List<Text> {
        List::Owned(s.iter().map(|x| Text::from(x.to_string())).collect())
    }

    #[test]
    fn rewrite_sets_and_removes() {
        let v = serde_json::json!({"command": "ls", "env": {"TOKEN": "x"}, "a": [1, 2]});
        let steps = [
            RewriteStep::Set {
                pointer: ptr(&["command"]),
                value: Json::Str("ls -la".into()),
            },
            RewriteStep::Remove {
                pointer: ptr(&["env", "TOKEN"]),
            },
            RewriteStep::Set {
                pointer: ptr(&["a", "-"]),
                value: Json::U64(3),
            },
            RewriteStep::Set {
                pointer: ptr(&["a", "0"]),
                value: Json::Null,
            },
            RewriteStep::Set {
                pointer: ptr(&["missing", "x"]),
                value: Json::Null,
            },
            RewriteStep::Remove {
                pointer: ptr(&["a", "9"]),
            },
        ];
        assert_eq!(
            rewrite(&v, &steps),
            serde_json::json!({"command": "ls -la", "env": {}, "a": [null, 2, 3]})
        );
        assert_eq!(
            rewrite(
                &v,
                &[RewriteStep::Set {
                    pointer: ptr(&[]),
                    value: Json::Bool(true)
                }]
            ),
            serde_json::json!(true)
        );
    }

    #[test]
    fn keep_last_trims_the_request_history() {
        let patch = PatchSpec {
            preamble: None,
            temperature: None,
            max_tokens: None,
            tool_choice: Some(ToolChoiceSpec::Tools(List::Owned(vec![
                "a".into(),
                "b".into(),
            ]))),
            keep_last: Some(2),
            active_tools: Some(List::Owned(vec!["b".into(), "c".into()])),
            additional_params: List::EMPTY,
            extra_context: List::EMPTY,
        };
        let request = serde_json::json!({"messages": [1, 2, 3]});
        let p = patch.to_request_patch(&StepEvent::BeforeCompletion { request: &request });
        assert_eq!(
            p.history,
            Some(vec![serde_json::json!(2), serde_json::json!(3)])
        );
        assert_eq!(p.tool_choice, Some(ToolChoice::Required));
        assert_eq!(p.active_tools, Some(vec!["b".to_owned()]));
    }
}
