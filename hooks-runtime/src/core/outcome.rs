//! What folding one event yields: the [`StackOutcome`], with provenance
//! ([`Provenance`], [`Change`]) naming the hook behind every change.

use hooks_plan::Phase;
use serde::Serialize;
use serde_json::Value;
use smallvec::SmallVec;

use crate::core::diagnostic::Diagnostic;
use crate::core::flow::{ContextList, EnvVars, Flow, FlowKind, Text};
use crate::core::id::HookId;
use crate::core::patch::{PatchField, RequestPatch};
use crate::core::report::ReportList;

/// Adds `diagnostic` to the report of every hook whose provenance says it
/// decided `kind`, and to `diagnostics`, so whoever reads one hook's report
/// sees what became of its decision (an ask refused, a resume capped).
pub(crate) fn note_deciders(
    provenance: &ProvenanceList,
    reports: &mut ReportList,
    diagnostics: &mut Vec<Diagnostic>,
    kind: FlowKind,
    diagnostic: Diagnostic,
) {
    let decided = |hook: &HookId| {
        provenance
            .iter()
            .any(|p| &p.hook == hook && p.change == Change::Decided(kind))
    };
    for report in reports.iter_mut().filter(|r| decided(&r.hook)) {
        report.diagnostics.push(diagnostic.clone());
    }
    diagnostics.push(diagnostic);
}

/// The folded result of one event (see [`HookStack`](crate::HookStack)).
///
/// When every hook continued, every field is empty / `None` and nothing was
/// allocated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StackOutcome {
    /// The event's phase.
    pub phase: Phase,
    /// The flow that stopped the stack: `Skip`, `Terminate` (including a
    /// fail-closed one), `Resume`, `Fail`, `Retry` or `Repair`; else the
    /// strongest permission answer (`Ask` over `Allow`); `None` when every
    /// hook continued.
    pub decision: Option<Flow>,
    /// `before_completion`: the merged patch (empty when no hook patched, or
    /// when the stack stopped).
    pub patch: RequestPatch,
    /// `before_tool`, `permission_request`: the arguments as rewritten (kept when a later hook
    /// skipped or terminated); `None` when no hook rewrote them.
    pub args: Option<Value>,
    /// `after_tool`: the result as rewritten; `None` when no hook rewrote it.
    pub result: Option<Value>,
    /// `user_prompt`: the prompt as rewritten; `None` when no hook rewrote it.
    pub prompt: Option<Text>,
    /// `before_model_select`: the model the hooks chose (the last
    /// [`Flow::SelectModel`] in declared order; kept when a later hook
    /// skipped, which the decision says); `None` when no hook chose one.
    pub model: Option<Text>,
    /// After-phases: the context items injected, in order.
    pub context: ContextList,
    /// `run_start`: the environment variables hooks set (a later hook's
    /// value of a name wins); empty elsewhere.
    pub env: EnvVars,
    /// Which hook set or rewrote what, in order.
    pub provenance: ProvenanceList,
    /// Conflicts, fail-closed reasons and the consulted hooks' own
    /// diagnostics, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// One report per consulted hook, in order (inner hooks of a nested
    /// stack or table in place).
    pub reports: ReportList,
}

impl StackOutcome {
    /// Whether every hook continued (nothing to apply, no diagnostic;
    /// reports of hooks that continued may be present).
    pub fn is_continue(&self) -> bool {
        self.decision.is_none()
            && self.patch.is_empty()
            && self.args.is_none()
            && self.result.is_none()
            && self.prompt.is_none()
            && self.model.is_none()
            && self.context.is_empty()
            && self.env.is_empty()
            && self.diagnostics.is_empty()
    }

    /// The reason of a `Terminate` decision (hook-made or fail-closed).
    pub fn terminate_reason(&self) -> Option<&str> {
        match &self.decision {
            Some(Flow::Terminate { reason }) => Some(reason),
            _ => None,
        }
    }

    /// The result as one [`Flow`], as a stack used as a plain hook answers:
    /// the stopping decision if any; else the merged patch, the rewrite or
    /// the injected context; else `Continue`.
    ///
    /// This is lossy where one flow cannot say everything: rewrites made
    /// before a `Skip` / `Terminate` are dropped, and on `after_tool` a
    /// rewritten result wins over injected context (the context is dropped).
    /// Push stacks into stacks (which flattens) to keep everything.
    pub fn net_flow(self) -> Flow {
        net_flow(NetParts {
            decision: self.decision,
            patch: self.patch,
            args: self.args,
            result: self.result,
            prompt: self.prompt,
            model: self.model,
            context: self.context,
        })
    }
}

/// What of a fold's result its net flow is made of
/// ([`StackOutcome::net_flow`], [`Fold::take_net_flow`](crate::Fold)).
pub(crate) struct NetParts {
    pub(crate) decision: Option<Flow>,
    pub(crate) patch: RequestPatch,
    pub(crate) args: Option<Value>,
    pub(crate) result: Option<Value>,
    pub(crate) prompt: Option<Text>,
    pub(crate) model: Option<Text>,
    pub(crate) context: ContextList,
}

/// The one flow that says most of `parts` ([`StackOutcome::net_flow`]).
pub(crate) fn net_flow(parts: NetParts) -> Flow {
    if let Some(decision) = parts.decision {
        decision
    } else if !parts.patch.is_empty() {
        Flow::PatchRequest(parts.patch)
    } else if let Some(args) = parts.args {
        Flow::RewriteArgs(args)
    } else if let Some(result) = parts.result {
        Flow::RewriteResult(result)
    } else if let Some(prompt) = parts.prompt {
        Flow::RewritePrompt(prompt)
    } else if let Some(model) = parts.model {
        Flow::SelectModel(model)
    } else if !parts.context.is_empty() {
        Flow::InjectContext(parts.context)
    } else {
        Flow::Continue
    }
}

/// The provenance of a [`StackOutcome`], in order: up to 16 entries inline
/// (one per decision, rewrite, injection, audited rule or patch field), spilling to the
/// heap beyond. Dereferences to `[Provenance]`.
pub type ProvenanceList = SmallVec<[Provenance; 16]>;

/// One entry of a [`StackOutcome`]'s provenance: hook `hook` made `change`.
///
/// Serialized as `{"hook": "guard", "source": "hooks.yaml", "layer":
/// "project", "change": ...}`: `source` and `layer` are the config the hook
/// comes from and its layer ([`HookId::source`], [`HookId::layer`]), left
/// out for a hook built in code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The hook's id.
    pub hook: HookId,
    /// What it did.
    pub change: Change,
}

impl Serialize for Provenance {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            hook: &'a HookId,
            #[serde(skip_serializing_if = "Option::is_none")]
            source: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            layer: Option<&'a str>,
            change: &'a Change,
        }
        Shown {
            hook: &self.hook,
            source: self.hook.source(),
            layer: self.hook.layer(),
            change: &self.change,
        }
        .serialize(serializer)
    }
}

/// What a hook changed, in [`Provenance`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Set a field of the request patch (`active_tools`: narrowed it).
    SetField(PatchField),
    /// Set one key of the patch's `additional_params` (borrowed from a
    /// table compiled by `hooks!`).
    SetParam(Text),
    /// Appended items to the patch's `extra_context`.
    AppendedContext {
        /// How many items.
        items: usize,
    },
    /// Rewrote the arguments, result or prompt (the flow's kind says which).
    Rewrote(FlowKind),
    /// Injected context items.
    InjectedContext {
        /// How many items.
        items: usize,
    },
    /// Set environment variables (`run_start`): their names (the values
    /// are never recorded).
    SetEnv {
        /// The names, sorted.
        names: Vec<String>,
    },
    /// Stopped the stack with a decision of this kind.
    Decided(FlowKind),
    /// Ran in `mode: audit` and would have answered with a flow of this
    /// kind; nothing was applied (a dispatch table's declarative rules).
    Audited(FlowKind),
}

impl Change {
    /// The request-patch field this change set, if it is one.
    pub fn patch_field(&self) -> Option<PatchField> {
        match self {
            Change::SetField(field) => Some(*field),
            Change::SetParam(_) => Some(PatchField::AdditionalParams),
            Change::AppendedContext { .. } => Some(PatchField::ExtraContext),
            _ => None,
        }
    }
}
