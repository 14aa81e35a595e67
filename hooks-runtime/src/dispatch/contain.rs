//! Containment at dispatch: the call of a tool whose `tool_settings` say
//! `writes: true` (and not `allow_absolute_paths: true`) is checked once
//! per event, before any rule is consulted, whether or not a hook is
//! invoked for it; again when the table's rules rewrote its arguments.

use std::ops::ControlFlow;
use std::sync::Arc;

use hooks_plan::{FailurePolicy, Mode, PathDiagnostic, Phase};

use super::table::Table;
use crate::core::context::HookContext;
use crate::core::diagnostic::Diagnostic;
use crate::core::event::StepEvent;
use crate::core::flow::Flow;
use crate::core::fold::Fold;
use crate::core::id::HookId;
use crate::core::report::HookReport;
use crate::shell::invoke::{MESSAGE_MAX_CHARS, ShellRuntime};
use crate::shell::payload::{Resolved, ToolPathSettings, affected_paths};
use crate::shell::records::{HookRecord, Record, RecordStatus};
use crate::shell::redact::{SecretSet, redact_and_truncate};

/// Why a call of a writing tool is refused when no workspace root is bound.
const NO_ROOT: &str = "refused: the tool writes files and no shell runtime is bound, so there is no workspace root to check its paths against (bind one with `with_shell`)";

impl Table {
    /// The path settings of `tool` when the config contains it: it writes
    /// and may not leave the workspace root. One comparison per tool with
    /// settings; nothing is built for a tool that is not contained.
    fn contained(&self, tool: &str) -> Option<&ToolPathSettings> {
        let i = self
            .plan()
            .tool_paths
            .iter()
            .position(|t| t.writes && !t.allow_absolute && t.tool == tool)?;
        self.tool_path_settings(i)
    }

    /// Whether the table checks calls on `phase` for containment: a
    /// `before_tool` or `permission_request` phase, and some tool is
    /// contained ([`Table::contained`]). The table then answers every such
    /// event, with a rule for it or not.
    pub(super) fn checks_containment_on(&self, phase: Phase) -> bool {
        matches!(phase, Phase::BeforeTool | Phase::PermissionRequest)
            && self
                .plan()
                .tool_paths
                .iter()
                .any(|t| t.writes && !t.allow_absolute)
    }

    /// Checks the paths of a contained tool's call (`before_tool`,
    /// `permission_request`; the arguments as `fold` has them now) and,
    /// when one is outside the workspace root or not checked (too long,
    /// past the 16th, holding a NUL byte, not a string: see
    /// `AffectedPaths::write_refusal`), refuses the call: a `skip` with the
    /// reason applied to `fold`, reported and recorded (status `decision`)
    /// as `tool_settings.<tool>`, with the findings. Relative paths are
    /// taken from the agent's `cwd` (`ctx`), else the workspace root of
    /// `shell`. Without a shell runtime there is no root: the call is
    /// refused.
    ///
    /// `Continue(None)` at once, without allocating, for another phase or
    /// a tool that is not contained; `Continue` with the paths resolved
    /// when the call may go on (the hooks' payloads reuse them: see
    /// [`Resolved`]).
    pub(super) fn contain(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        ctx: Option<&HookContext>,
        fold: &mut Fold<'_>,
    ) -> ControlFlow<(), Option<Resolved>> {
        let event = fold.event();
        let (StepEvent::BeforeTool {
            tool_name, args, ..
        }
        | StepEvent::PermissionRequest {
            tool_name, args, ..
        }) = event
        else {
            return ControlFlow::Continue(None);
        };
        if self.plan().tool_paths.is_empty() {
            return ControlFlow::Continue(None);
        }
        let Some(settings) = self.contained(tool_name) else {
            return ControlFlow::Continue(None);
        };
        let (reason, findings) = match shell {
            None => (NO_ROOT.to_owned(), Vec::new()),
            Some(rt) => {
                let root = rt.executor().workspace_root();
                let cwd = ctx
                    .and_then(HookContext::cwd)
                    .map_or_else(|| root.to_path_buf(), |c| root.join(c));
                let paths = affected_paths(args, settings, &cwd, root);
                let Some(reason) = paths.write_refusal() else {
                    return ControlFlow::Continue(Some(Resolved { cwd, paths }));
                };
                (reason, paths.diagnostics)
            }
        };
        let tool = tool_name.to_owned();
        let hook = self.own_hook_id(format!("tool_settings.{tool}"));
        let secrets = shell.map_or_else(SecretSet::new, |rt| rt.secrets().clone());
        let reason = redact_and_truncate(&reason, &secrets, MESSAGE_MAX_CHARS);
        let mut report = HookReport::new(hook.clone());
        report.message = Some(reason.clone().into());
        // A skip on these phases stops the fold.
        let _ = fold.apply_reported(report, Flow::skip(reason.clone()));
        if let Some(rt) = shell {
            record(rt, &hook, fold, tool, reason, findings);
        }
        ControlFlow::Break(())
    }

    /// [`Table::contain`] at the end of the table's part of a fold, when
    /// its rules rewrote the arguments since `rewrites` (the fold's count
    /// when the part began): the tool runs with the new ones.
    pub(super) fn contain_rewritten(
        &self,
        shell: Option<&Arc<ShellRuntime>>,
        ctx: Option<&HookContext>,
        fold: &mut Fold<'_>,
        rewrites: u32,
        step: ControlFlow<()>,
    ) -> ControlFlow<()> {
        if step.is_break() || fold.rewrites() == rewrites {
            return step;
        }
        match self.contain(shell, ctx, fold) {
            ControlFlow::Break(()) => ControlFlow::Break(()),
            ControlFlow::Continue(_) => step,
        }
    }
}

/// Writes the record of a refused call of `tool`, when `rt` has a record
/// writer; a lost record becomes a diagnostic of `fold`.
fn record(
    rt: &ShellRuntime,
    hook: &HookId,
    fold: &mut Fold<'_>,
    tool: String,
    message: String,
    path_diagnostics: Vec<PathDiagnostic>,
) {
    let Some(writer) = rt.records() else { return };
    let record = HookRecord {
        record: "hook",
        phase: fold.phase(),
        hook_id: hook.clone(),
        tool: Some(tool),
        status: RecordStatus::Decision,
        decision: Some("skip"),
        failure_kind: None,
        policy: FailurePolicy::Block,
        mode: Mode::Enforce,
        elapsed_ms: 0,
        target_ran: false,
        message: Some(message),
        notes: Vec::new(),
        output: None,
        path_diagnostics,
        http: None,
        rego: None,
        background: false,
    };
    if let Err(err) = writer.write(&Record::Hook(record), rt.secrets()) {
        let message = redact_and_truncate(
            &writer.lost_records_message(&err),
            rt.secrets(),
            MESSAGE_MAX_CHARS,
        );
        fold.diagnose_call(
            hook,
            Diagnostic::Hook {
                hook: hook.clone(),
                message,
            },
        );
    }
}
