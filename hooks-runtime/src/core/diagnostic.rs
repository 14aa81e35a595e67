//! What a fold reports beside its result: conflicts between hooks, why it
//! failed closed, and the hooks' own diagnostics ([`Diagnostic`]).

use std::fmt;

use hooks_plan::{FailurePolicy, Phase};
use serde::Serialize;

use crate::core::flow::FlowKind;
use crate::core::id::HookId;
use crate::core::patch::PatchField;

/// Something a fold reports: a conflict between hooks, or why it failed
/// closed. Rendered (`Display`) as a rustc-style message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Diagnostic {
    /// Two hooks set a last-writer-wins patch field to different values;
    /// `second` (the later) wins.
    Conflict {
        /// The field.
        field: PatchField,
        /// The hook whose value was overwritten.
        first: HookId,
        /// The hook whose value wins.
        second: HookId,
    },
    /// `hook` narrowed `active_tools` to the empty set.
    EmptyActiveTools {
        /// The hook whose narrowing emptied the set.
        hook: HookId,
    },
    /// The merged `tool_choice` forces a tool that `active_tools` removed;
    /// fails closed.
    ToolChoiceRemoved {
        /// The forced tool.
        tool: String,
        /// The hook that set `tool_choice` last.
        hook: Option<HookId>,
    },
    /// `hook` returned a flow the event cannot honour; fails closed.
    Unhonoured {
        /// The hook.
        hook: HookId,
        /// The flow's kind.
        flow: FlowKind,
        /// The event's phase.
        phase: Phase,
    },
    /// Reported by the invocation of hook `hook` itself (a shell hook: its
    /// failure under `failure_policy: warn`, an elided payload, a resume the
    /// stop-resume cap refused, a record that could not be written);
    /// redacted.
    Hook {
        /// The hook.
        hook: HookId,
        /// The redacted message.
        message: String,
    },
    /// `hook` is a `run` rule of a dispatch table that has no shell runtime
    /// bound: it could not run, and its failure policy was applied.
    NoShellRuntime {
        /// The rule.
        hook: HookId,
        /// The failure policy applied.
        policy: FailurePolicy,
    },
    /// The agent is about to stop (`stop`, `subagent_stop`) after it
    /// already resumed `resumes` times in this user turn, at or over the
    /// cap: the stop hooks are not consulted and it stops
    /// ([`StopDecision::Capped`](crate::StopDecision::Capped)).
    StopCapped {
        /// The cap per user turn.
        cap: u32,
        /// Resumes already granted in this user turn.
        resumes: u32,
    },
    /// The session state store
    /// ([`HookStack::with_session_store`](crate::HookStack::with_session_store))
    /// failed; `message` says what the runtime did instead (for the
    /// stop-resume cap: the agent stops, fail closed).
    SessionStore {
        /// What failed and what was done instead.
        message: String,
    },
    /// A hook asked for approval of a call of `tool` and the agent supplied
    /// no approver: the call was refused (fail closed).
    NoApprover {
        /// The tool.
        tool: String,
        /// The hook's reason, if one asked.
        reason: Option<String>,
    },
}

impl Diagnostic {
    /// Whether this diagnostic terminated the run (fail closed).
    pub fn fails_closed(&self) -> bool {
        matches!(
            self,
            Diagnostic::ToolChoiceRemoved { .. } | Diagnostic::Unhonoured { .. }
        )
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnostic::Conflict {
                field,
                first,
                second,
            } => write!(
                f,
                "hooks `{first}` and `{second}` set `{field}` differently; the last writer (`{second}`) wins"
            ),
            Diagnostic::Hook { message, .. } => f.write_str(message),
            Diagnostic::StopCapped { cap, resumes } => write!(
                f,
                "the agent already resumed {resumes} time(s) in this user turn; the cap is {cap}: stopping without running the stop hooks"
            ),
            Diagnostic::SessionStore { message } => write!(f, "session state store: {message}"),
            Diagnostic::NoApprover { tool, reason } => {
                write!(f, "the call of `{tool}` needed approval")?;
                if let Some(reason) = reason {
                    write!(f, " ({reason})")?;
                }
                f.write_str(" and there is no approver: refused (fail closed)")
            }
            Diagnostic::EmptyActiveTools { hook } => write!(
                f,
                "hook `{hook}` narrowed `active_tools` to an empty set; the model can call no tool"
            ),
            Diagnostic::NoShellRuntime { hook, policy } => write!(
                f,
                "`run` rule `{hook}` did not run: no shell runtime is bound to its dispatch table (bind one with `with_shell`); failure policy `{}` applied",
                policy.as_str()
            ),
            Diagnostic::ToolChoiceRemoved { tool, hook } => {
                write!(f, "`tool_choice` ")?;
                if let Some(hook) = hook {
                    write!(f, "(set by hook `{hook}`) ")?;
                }
                write!(
                    f,
                    "forces tool `{tool}`, which `active_tools` removed; the run is terminated (fail closed)"
                )
            }
            Diagnostic::Unhonoured { hook, flow, phase } => {
                write!(
                    f,
                    "hook `{hook}` returned flow `{flow}`, which `{phase}` cannot honour; the run is terminated (fail closed); `{phase}` honours: "
                )?;
                let mut first = true;
                for kind in FlowKind::ALL.into_iter().filter(|k| k.honoured_on(*phase)) {
                    if !first {
                        f.write_str(", ")?;
                    }
                    first = false;
                    write!(f, "`{kind}`")?;
                }
                Ok(())
            }
        }
    }
}
